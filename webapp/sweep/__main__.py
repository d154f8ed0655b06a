"""`python -m webapp.sweep ...`: the same as `simtscope sweep ...` (for tests and checkouts without the
installed command)."""
import argparse
import sys

from .command import add_parser


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="simtscope")
    sub = p.add_subparsers(dest="cmd")
    add_parser(sub)
    a = p.parse_args(["sweep", *(sys.argv[1:] if argv is None else argv)])
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
