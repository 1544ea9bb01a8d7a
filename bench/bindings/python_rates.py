#!/usr/bin/env python3
"""The Python binding's rates for bench/bindings/run (the contract of c_rates.c):

    python_rates.py enqueue URL QUEUE N   N "noop" jobs with payload {"n": i}, one
                                          confirmed enqueue at a time
    python_rates.py drain URL QUEUE N     preload N jobs (untimed, batches), then time a
                                          worker (concurrency 1, no-op handler) from run()
                                          until it returns after the N-th ack

Prints `rate enqueue|drain JOBS_PER_S`. The queuey package comes from PYTHONPATH or
an installed binding; the library from QUEUEY_LIBRARY, pkg-config or the loader.
"""
import sys
import time
from typing import Callable

import queuey
import rates_cli

PRELOAD_BATCH = 1000


def enqueue(client: queuey.Client, queue: str, n: int) -> float:
    with client.producer() as producer:
        start = time.perf_counter()
        for i in range(n):
            producer.enqueue(queue, "noop", {"n": i})
        return time.perf_counter() - start


def drain(client: queuey.Client, queue: str, n: int) -> float:
    with client.producer() as producer:
        for first in range(0, n, PRELOAD_BATCH):
            results = producer.enqueue_batch(
                [(queue, "noop", {"n": i}) for i in range(first, min(n, first + PRELOAD_BATCH))])
            if not all(r.ok for r in results):
                raise RuntimeError("preloading failed")
    remaining = n
    with queuey.Worker(client, queue, concurrency=1) as worker:
        @worker.handler("noop")
        def noop(job: queuey.Job) -> None:
            nonlocal remaining  # one handler thread: concurrency 1
            remaining -= 1
            if remaining == 0:
                worker.shutdown()

        start = time.perf_counter()
        worker.run(stop_on_signals=False)
        seconds = time.perf_counter() - start
        acked = worker.counter(queuey.Counter.SUCCEEDED)
    if acked != n:
        raise RuntimeError(f"the worker acked {acked} jobs, expected {n}")
    return seconds


def run(workload: Callable[[queuey.Client, str, int], float]) -> rates_cli.Workload:
    """A workload on a client of its own, connected and declared before the clock starts."""
    def connected(url: str, queue: str, n: int) -> float:
        with queuey.Client(url) as client:
            client.declare(queue)
            return workload(client, queue, n)
    return connected


if __name__ == "__main__":
    sys.exit(rates_cli.main("python_rates", {"enqueue": run(enqueue), "drain": run(drain)},
                            sys.argv[1:]))
