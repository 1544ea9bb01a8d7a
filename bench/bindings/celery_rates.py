#!/usr/bin/env python3
"""Celery's rates on the same broker, for bench/bindings/run (the contract of c_rates.c):

    celery_rates.py enqueue URL QUEUE N   N tasks "noop" with kwargs {"n": i}, one
                                          apply_async at a time, each publisher-confirmed
                                          (broker_transport_options confirm_publish)
    celery_rates.py drain URL QUEUE N     preload N tasks (untimed), then time a worker
                                          with the solo pool (concurrency 1), in this
                                          process, from its start until the N-th task ran

Prints `rate enqueue|drain JOBS_PER_S`. Needs Celery (scripts/lib/deps.sh:
queuey_celery_python BUILD_DIR installs the pinned version into a venv and prints its
python). Made comparable with queuey: acks_late (a task is acked after it ran, as queuey
does), prefetch 16 (queuey's default), no result backend, JSON. The drain's clock stops
when the N-th task returns: Celery's acks of it and its worker shutdown are not timed.
"""
import logging
import sys
import time
import warnings

from celery import Celery
from celery.worker import state as worker_state

import rates_cli


def make_app(url: str, queue: str, confirm: bool) -> Celery:
    app = Celery("queuey_bench", broker=url, set_as_current=False)
    app.conf.update(
        broker_transport_options={"confirm_publish": confirm},
        task_default_queue=queue,
        task_serializer="json",
        accept_content=["json"],
        task_ignore_result=True,
        task_acks_late=True,
        worker_prefetch_multiplier=16,
        worker_hijack_root_logger=False,
        worker_redirect_stdouts=False,
        broker_connection_retry_on_startup=False,
    )
    return app


class Drain:
    """The no-op task's bookkeeping: it runs on the solo pool's one thread."""

    def __init__(self, n: int) -> None:
        self.remaining = n
        self.finished = 0.0

    def ran(self) -> None:
        self.remaining -= 1
        if self.remaining == 0:
            self.finished = time.perf_counter()
            worker_state.should_stop = 0  # the consumer loop exits before its next message


def noop(n: int) -> None:
    """The task of the enqueue and the preload (never run there)."""


def declare(app: Celery, queue: str) -> None:
    with app.connection_for_write() as conn:
        app.amqp.queues[queue].bind(conn.default_channel).declare()


def enqueue(url: str, queue: str, n: int) -> float:
    app = make_app(url, queue, confirm=True)
    task = app.task(name="noop", shared=False)(noop)
    declare(app, queue)
    with app.producer_pool.acquire(block=True) as producer:
        producer.connection.ensure_connection()  # connect before the clock starts
    start = time.perf_counter()
    for i in range(n):
        task.apply_async(kwargs={"n": i})
    return time.perf_counter() - start


def drain(url: str, queue: str, n: int) -> float:
    preload = make_app(url, queue, confirm=True)
    preload_task = preload.task(name="noop", shared=False)(noop)
    declare(preload, queue)
    with preload.producer_or_acquire() as producer:
        for i in range(n):
            preload_task.apply_async(kwargs={"n": i}, producer=producer)

    app = make_app(url, queue, confirm=True)
    bookkeeping = Drain(n)

    @app.task(name="noop", shared=False)
    def counted_noop(n: int) -> None:
        bookkeeping.ran()

    worker = app.Worker(pool="solo", concurrency=1, queues=[queue], loglevel="WARNING",
                        quiet=True, without_heartbeat=True, without_mingle=True,
                        without_gossip=True, hostname=f"bench-{queue}@localhost")
    start = time.perf_counter()
    worker.start()
    if bookkeeping.remaining != 0:
        raise RuntimeError(f"the worker stopped with {bookkeeping.remaining} tasks left "
                           f"(exit code {worker.exitcode})")
    return bookkeeping.finished - start


if __name__ == "__main__":
    logging.basicConfig(level=logging.ERROR)
    warnings.filterwarnings("ignore", module="celery")  # e.g. running as root
    sys.exit(rates_cli.main("celery_rates", {"enqueue": enqueue, "drain": drain}, sys.argv[1:]))
