"""Helpers to run a Worker until a condition holds, shared by the memory and broker tests."""
from __future__ import annotations

import threading
import time
from typing import Callable

import queuey


def run_until(worker: queuey.Worker, done: Callable[[], bool], timeout: float = 30) -> None:
    """Runs worker on this thread until done() holds (polled), then shuts it down.
    Fails the test when that takes longer than timeout seconds."""
    expired = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                expired.set()
                break
            time.sleep(0.005)
        worker.shutdown()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    worker.run()
    watcher.join()
    assert not expired.is_set(), f"the worker did not finish within {timeout} s"


def run_until_idle(client: queuey.Client, worker: queuey.Worker, timeout: float = 30) -> None:
    """Runs worker until the memory:// client has nothing pending, held or in flight."""
    def idle() -> bool:
        try:
            client.memory_wait_idle(0.05)
            return True
        except queuey.BrokerError:
            return False
    run_until(worker, idle, timeout)
