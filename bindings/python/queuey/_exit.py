"""What queuey does at interpreter exit, before Python finalizes: the workers whose run()
is active are shut down and waited for, then the clients that log into Python are
closed. Afterwards no thread of libqueuey calls into Python: a C thread that takes the
GIL while Python finalizes is ended on the spot (pthread_exit), which a C++ thread does
not survive, and a handler or log line would meet a half-torn-down interpreter.

The price: at exit, a daemon thread still using such a client sees ClosedError.
"""
from __future__ import annotations

import atexit
import weakref
from typing import Any

# Workers whose run() is active: they have shutdown() and _join().
running_workers: "weakref.WeakSet[Any]" = weakref.WeakSet()
# Clients with a log callback into Python: they have close().
logging_clients: "weakref.WeakSet[Any]" = weakref.WeakSet()


@atexit.register
def _before_finalizing() -> None:
    workers = list(running_workers)
    for worker in workers:
        worker.shutdown()
    for worker in workers:
        worker._join()
    for client in list(logging_clients):
        client.close()
