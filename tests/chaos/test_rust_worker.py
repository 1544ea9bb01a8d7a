"""A Rust worker sharing the queue (issue 10, item 1): the queuey-rabbitmq crate's own
Worker, stopped mid-drain, hands its last jobs back redelivered to a queuey worker.
Every job is counted as in test_chaos.py.
"""

from __future__ import annotations

from chaos_harness import Scenario
from test_chaos import check

# The job types of the Rust worker (tests/interop/rust) and the payloads that make a
# chaos_agent worker do the same with them (agent_work.c).
RUST_JOBS = {"ok": {}, "retry-once": {"fail_once": True}, "defer-once": {"defer_once": True}}


def test_m_rust_worker_sharing_the_queue_stopped_twice(broker, rust_worker, record):
    """A queuey worker and a Rust worker (the queuey-rabbitmq crate's own Worker) share a
    queue of jobs that retry or defer once; the Rust worker is stopped twice mid-drain.
    Its shutdown closes its channel before its last jobs are settled, so the broker hands
    them (and those it only prefetched) to the queuey worker marked redelivered: each
    must run, after a lost-run republish, none may be dead-lettered, and no run may be
    charged an attempt. A job that the Rust worker had run and settled but not acked
    runs twice (dups)."""
    handled, stops = 25, 2
    scenario = Scenario("m_rust_worker_stopped", broker.url)
    job_types = {}
    for job_type in ("defer-once", "retry-once", "ok"):  # those that come back from a hold first
        ids = scenario.produce(100, {"sleep_ms": 100, **RUST_JOBS[job_type]}, threads=4, job_type=job_type)
        job_types |= dict.fromkeys(ids, job_type)
    queuey_worker = scenario.worker(concurrency=4, max_attempts=3)  # the Rust worker's policy: 3, 1 s apart
    rust_runs: list[tuple[str, ...]] = []  # (job_id, "attempt", n, "deferrals", n)
    try:
        for _ in range(stops):
            rust = scenario.rust_worker(rust_worker, handled)
            status = rust.finish(40)
            rust_runs += [tuple(words[1:]) for words in rust.words("started")]
            if status != 0:
                scenario.figures.notes.append(f"a Rust worker exited {status} after {len(rust_runs)} runs")
        scenario.wait_settled(60)
    finally:
        figures = scenario.finish()
    # Only the jobs that retry may run at attempt 2, and none later: a redelivery costs no attempt.
    charged = {words[1] for words in scenario.lines("started")
               if int(words[3]) > (2 if job_types.get(words[1]) == "retry-once" else 1)}
    if charged:
        figures.notes.append(f"{len(charged)} jobs ran at an attempt they did not ask for")
    # Rust runs that the queuey worker ran again as they were: the Rust worker's ack was lost.
    again = set(rust_runs) & {tuple(words[1:]) for words in queuey_worker.words("started")}
    settled = sum(job_types.get(run[0]) != "ok" and run[2] == "1" for run in again)
    figures.measured = (f"{len(rust_runs)} runs in the Rust workers, {len(again)} of them run again by queuey "
                        f"({settled} that Rust had retried or deferred); "
                        f"{scenario.counter('worker_lost')} redeliveries charged as lost runs")
    check(figures, record)
