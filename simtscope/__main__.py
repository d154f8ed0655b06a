"""`python -m simtscope ...` is the `simtscope` command."""
import sys

from .cli import main

sys.exit(main())
