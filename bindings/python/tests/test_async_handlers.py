"""Coroutine handlers (issue 41, item 1): an async def handler is awaited on an event loop
the worker owns, with the outcome and timeout rules of a plain function. Before, such a
handler was called, its coroutine dropped unawaited, and the job counted as succeeded."""
import asyncio
import threading

import pytest

import queuey
from workers import run_until, run_until_idle

FAST = queuey.QueueConfig("jobs", delay_granularity=0.001)


@pytest.fixture
def client(memory):
    memory.declare(FAST)
    return memory


def dead_letters(client):
    return [(env.job_type, env.attempt, reason) for env, reason in client.memory_dead_letters()]


def test_an_async_handler_runs_to_its_end_and_succeeds(client, producer):
    ran = []

    with queuey.Worker(client, "jobs") as worker:
        @worker.handler("greet")
        async def greet(job: queuey.Job) -> None:
            await asyncio.sleep(0.01)
            ran.append((job.payload["name"], threading.current_thread().name))

        for name in ("a", "b", "c"):
            producer.enqueue("jobs", "greet", {"name": name})
        run_until_idle(client, worker)
        assert sorted(ran) == [(n, "queuey-event-loop") for n in ("a", "b", "c")]
        assert worker.counter(queuey.Counter.SUCCEEDED) == 3
    assert dead_letters(client) == []


def test_what_an_async_handler_raises_is_its_outcome(client, producer):
    attempts = []
    retry = queuey.RetryPolicy.fixed(2, 0.001)
    with queuey.Worker(client, "jobs", retry=retry) as worker:
        @worker.handler("flaky")
        async def flaky(job: queuey.Job) -> None:
            attempts.append(job.attempt)
            await asyncio.sleep(0)
            raise KeyError("to")

        @worker.handler("doomed")
        async def doomed(job: queuey.Job) -> None:
            raise queuey.Fatal("no such customer")

        producer.enqueue("jobs", "flaky", {})
        producer.enqueue("jobs", "doomed", {})
        run_until_idle(client, worker)
        assert attempts == [1, 2]
        assert worker.counter(queuey.Counter.SUCCEEDED) == 0
    assert sorted(dead_letters(client)) == [
        ("doomed", 1, "fatal error: no such customer"),
        ("flaky", 2, "max attempts (2) exhausted after attempt 2: KeyError: 'to'"),
    ]


def test_handlers_run_concurrently_on_the_one_loop(client, producer):
    """Four jobs that each wait for all four to have started: they can only finish when
    the worker's concurrency of 4 has them on the loop at the same time."""
    started = 0
    everyone = None

    with queuey.Worker(client, "jobs", concurrency=4) as worker:
        @worker.handler("meet")
        async def meet(job: queuey.Job) -> None:
            nonlocal started, everyone
            if everyone is None:
                everyone = asyncio.Event()
            started += 1
            if started == 4:
                everyone.set()
            await asyncio.wait_for(everyone.wait(), 5)

        for _ in range(4):
            producer.enqueue("jobs", "meet", {})
        run_until_idle(client, worker)
        assert worker.counter(queuey.Counter.SUCCEEDED) == 4


def test_a_timed_out_coroutine_is_cancelled(client, producer):
    seen = []
    with queuey.Worker(client, "jobs", job_timeout=0.1) as worker:
        @worker.handler("slow")
        async def slow(job: queuey.Job) -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        producer.enqueue("jobs", "slow", {})
        run_until(worker, lambda: worker.counter(queuey.Counter.TIMED_OUT) == 1, timeout=10)
        assert worker.counter(queuey.Counter.SUCCEEDED) == 0
    assert seen == ["cancelled"]


def test_a_function_that_returns_a_coroutine_is_awaited_too(client, producer):
    ran = []

    async def work(job: queuey.Job) -> None:
        ran.append(job.payload)

    with queuey.Worker(client, "jobs") as worker:
        worker.add_handler("wrapped", lambda job: work(job))
        producer.enqueue("jobs", "wrapped", {"n": 1})
        run_until_idle(client, worker)
        assert ran == [{"n": 1}]
        assert worker.counter(queuey.Counter.SUCCEEDED) == 1


def test_a_returned_outcome_counts_as_raised(client, producer):
    with queuey.Worker(client, "jobs") as worker:
        worker.add_handler("returns", lambda job: queuey.Fatal("returned, not raised"))
        producer.enqueue("jobs", "returns", {})
        run_until_idle(client, worker)
        assert worker.counter(queuey.Counter.SUCCEEDED) == 0
    assert dead_letters(client) == [("returns", 1, "fatal error: returned, not raised")]


def test_the_loop_ends_with_its_workers_run(client, producer):
    loops = []
    for _ in range(2):
        with queuey.Worker(client, "jobs") as worker:
            @worker.handler("which")
            async def which(job: queuey.Job) -> None:
                loops.append(asyncio.get_running_loop())

            producer.enqueue("jobs", "which", {})
            run_until_idle(client, worker)
            assert loops[-1].is_closed()
    assert len(loops) == 2 and loops[0] is not loops[1]
