"""simtscope's top layer: the command line (`simtscope.cli`) over the engine and the web app."""
