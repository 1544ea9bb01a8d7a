"""The worker command, as Celery users type `celery -A app worker`:

    python -m queuey worker MODULE:ATTRIBUTE [--concurrency N] [--log-level LEVEL] [--url URL]
    queuey-worker MODULE:ATTRIBUTE ...                 (the console script)

ATTRIBUTE is a queuey.Worker, or a callable returning one: called with the broker URL
when it takes a parameter (--url, else $QUEUEY_URL), else with none. The worker runs
until SIGTERM or SIGINT, then settles what it received and exits 0; a failure (the
worker cannot consume, the factory raised) exits 1, a usage error 2, each with one line
on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import os
import signal
import sys
import traceback
from typing import Any, NoReturn, Sequence

from .errors import QueueyError
from .worker import Worker

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
log = logging.getLogger("queuey.worker_cli")


class UsageError(Exception):
    """A command line that cannot run: exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (and --help as usual)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see --help)")


def _concurrency(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, not {text!r}")
    return value


def _level(text: str) -> str:
    if text.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(LEVELS)}, not {text!r}")
    return text.upper()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("app", metavar="MODULE:ATTRIBUTE",
                        help="a queuey.Worker, or a callable returning one (given the URL "
                             "when it takes a parameter)")
    parser.add_argument("--concurrency", "-c", type=_concurrency, default=None, metavar="N",
                        help="jobs run at once (0: the queues' prefetch; default: the worker's)")
    parser.add_argument("--log-level", "-l", type=_level, default="INFO", metavar="LEVEL",
                        help=f"{', '.join(LEVELS)} (default INFO)")
    parser.add_argument("--url", default=None,
                        help="the broker URL for a factory that takes one (default $QUEUEY_URL)")


def parser(prog: str = "queuey-worker") -> argparse.ArgumentParser:
    made = Parser(prog=prog, description="Runs a queuey worker until SIGTERM or SIGINT.")
    add_arguments(made)
    return made


def _attribute(spec: str) -> Any:
    module_name, sep, path = spec.partition(":")
    if not sep or not module_name or not path:
        raise UsageError(f"expected MODULE:ATTRIBUTE, such as app:worker, not {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` does: app.py of the current directory
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is None or not (module_name == e.name or module_name.startswith(e.name + ".")):
            raise  # a module that the app imports is missing: the app's failure
        raise UsageError(f"cannot import {module_name}: no module named {e.name}") from None
    for name in path.split("."):
        if not hasattr(target, name):
            raise UsageError(f"{spec}: {module_name} has no attribute {path}")
        target = getattr(target, name)
    return target


def _takes_a_parameter(factory: Any) -> bool:
    try:
        return bool(inspect.signature(factory).parameters)
    except (TypeError, ValueError):  # no signature to read (a builtin): call it bare
        return False


def _worker(spec: str, url: str | None) -> Worker:
    found = _attribute(spec)
    if isinstance(found, Worker):
        if url is not None:
            raise UsageError(f"{spec} is a Worker with its client already: --url does not apply")
        return found
    if not callable(found):
        raise UsageError(f"{spec} is a {type(found).__name__}, not a queuey.Worker or a "
                         "callable returning one")
    if _takes_a_parameter(found):
        url = url or os.environ.get("QUEUEY_URL")
        if not url:
            raise UsageError(f"{spec} takes a URL: give --url or set QUEUEY_URL")
        made = found(url)
    else:
        if url is not None:
            raise UsageError(f"{spec} takes no parameter: --url does not apply")
        made = found()
    if not isinstance(made, Worker):
        raise UsageError(f"{spec}() returned a {type(made).__name__}, not a queuey.Worker")
    return made


def run(args: argparse.Namespace) -> int:
    """Runs the worker that args name; the exit status."""
    logging.basicConfig(level=args.log_level,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    worker = _worker(args.app, args.url)
    if args.concurrency is not None:
        worker.set_concurrency(args.concurrency)
    # Until run() traps the signals itself (and from then on, its own way), a signal
    # shuts the worker down too: run() then returns at once.
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: worker.shutdown())
    log.info("running %s until SIGTERM or SIGINT", args.app)
    with worker:
        worker.run()
    log.info("stopped gracefully")
    return EXIT_OK


def main(argv: Sequence[str] | None = None, prog: str = "queuey-worker") -> int:
    """The console script queuey-worker (its entry point: sys.exit(main()))."""
    return guarded(prog, lambda: run(parser(prog).parse_args(argv)))


def guarded(prog: str, command: Any) -> int:
    """command()'s exit status, a usage error's 2 and a failure's 1, each failure said
    in one line on stderr (with the traceback of an exception not queuey's own)."""
    try:
        return int(command())
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except QueueyError as e:
        print(f"{prog}: failed: {e}", file=sys.stderr)
        return EXIT_FAILURE
    except Exception as e:  # noqa: B902 - the app's own failure: say where
        traceback.print_exc()
        print(f"{prog}: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_FAILURE
