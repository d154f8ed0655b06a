"""simtscope engine: a GPU simulator that executes PTX (functional core and timing model)."""
