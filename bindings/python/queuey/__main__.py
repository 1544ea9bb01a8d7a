"""python -m queuey COMMAND: the commands of the Python binding (one so far: worker)."""
from __future__ import annotations

import sys
from typing import Sequence

from . import worker_cli

PROG = "python -m queuey"


def main(argv: Sequence[str] | None = None) -> int:
    parser = worker_cli.Parser(prog=PROG, description="queuey's Python commands.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     parser_class=worker_cli.Parser)
    worker = commands.add_parser("worker", help="run a worker until SIGTERM or SIGINT",
                                 description="Runs a queuey worker until SIGTERM or SIGINT.")
    worker_cli.add_arguments(worker)
    return worker_cli.guarded(PROG, lambda: worker_cli.run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
