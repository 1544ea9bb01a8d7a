"""A program that exits while the library's log thread is inside a slow logging handler,
and whose own clean-up during Python's finalization takes a while: the client is left
open, for queuey's exit hook to close before Python finalizes. Without that hook the log
thread, taking the GIL back during finalization, is ended by Python (pthread_exit), and
the process aborts ("FATAL: exception not rethrown").

    exit_while_logging.py URL CONNECTION_NAME
Prints "ready" once connected, then waits for a line on stdin (the test closes the
connection from the broker's side meanwhile), then for the first record to be under
way, and returns.
"""
import builtins
import logging
import sys
import threading
import time

import queuey

started = threading.Event()


class Slow(logging.Handler):
    def emit(self, record):
        started.set()
        time.sleep(0.3)
        print(f"logged {record.levelname} {record.getMessage()}", file=sys.stderr, flush=True)


class SlowCleanUp:
    """Collected as the module is torn down, once Python is finalizing."""

    def __del__(self):
        time.sleep(1)


logger = logging.getLogger("queuey.library")
logger.addHandler(Slow())
logger.setLevel(logging.INFO)
logger.propagate = False

builtins.kept_client = queuey.Client(sys.argv[1], connection_name=sys.argv[2])  # never freed
clean_up = SlowCleanUp()
print("ready", flush=True)
sys.stdin.readline()
if not started.wait(10):
    sys.exit("no log line within 10 s")
