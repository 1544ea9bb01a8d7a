"""The chaos suite: faults put between queuey and a real RabbitMQ on purpose, counting
every job (docs/reliability.md). Every scenario must end with 0 lost, 0 dead-lettered
for a reason it did not cause, and every call back within its timeout plus a small
bound; duplicates are reported, not failed.

Several scenarios assert the lost-run rules of issue 10 (a redelivery that this process
did not cause is republished with x-lost-runs + 1 and runs; only a job lost
max_lost_runs = 3 times is dead-lettered): they fail until that redesign is merged.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from chaos_harness import LOST_BUDGET_REASON, Figures, Scenario, peek, wait_for_log


def check(figures: Figures, record) -> None:
    """Records the figures for the table, then holds the scenario to the rules."""
    record(figures)
    assert figures.enqueued > 0
    assert figures.lost == 0, f"{figures.lost} confirmed jobs neither ran to success nor reached q.dead"
    assert figures.wrongly_dead == 0, f"{figures.wrongly_dead} jobs dead-lettered wrongly: {figures.notes}"
    assert not figures.notes, figures.notes
    assert figures.calls_bounded(), (
        f"an enqueue took {figures.max_call_ms} ms, past its {figures.call_timeout_ms} ms timeout")


def running(at_least: int):
    return lambda lines: sum(line.startswith("started ") for line in lines) >= at_least


def succeeded(at_least: int):
    return lambda lines: sum(line.startswith("succeeded ") for line in lines) >= at_least


@pytest.mark.parametrize("stop", ["sigkill", "graceful"])
def test_a_broker_restarted_with_2000_jobs_queued(broker, record, stop):
    """Every message RabbitMQ recovers after a restart comes back marked redelivered;
    after a SIGKILL as after a graceful stop, all 2,000 must run, none dead-lettered."""
    scenario = Scenario(f"a_broker_{stop}_restart", broker.url)
    scenario.produce(2000, {}, threads=8)
    if stop == "sigkill":
        broker.kill()
    broker.restart()  # a graceful stop first when the node runs
    scenario.worker()
    scenario.wait_settled(120)
    check(scenario.finish(), record)


def test_b_worker_killed_mid_drain(broker, record):
    """A worker running 4 jobs and holding 12 more prefetched is killed with SIGKILL; a
    second worker runs all of them: none lost, none dead-lettered."""
    scenario = Scenario("b_worker_sigkill", broker.url)
    scenario.produce(300, {"sleep_ms": 20}, threads=4)
    first = scenario.worker(concurrency=4)  # below the prefetch of 16: jobs wait unstarted
    assert first.wait_until(succeeded(50), 60), "the first worker did not get going"
    first.kill()
    scenario.worker()
    scenario.wait_settled(120)
    check(scenario.finish(), record)


def test_c_handler_that_kills_its_process(broker, record):
    """A job that kills every process that runs it runs 3 times, each on a fresh worker,
    and then sits in q.dead with the lost-run reason; the other jobs are unaffected."""
    scenario = Scenario("c_handler_kills_process", broker.url)
    others = scenario.produce(20, {})
    (killer,) = scenario.produce(1, {"sleep_ms": 1000, "kill": True})
    killed_workers = 0
    for _ in range(6):  # the budget needs 4 workers; more would be a crash loop
        worker = scenario.worker()
        worker.wait_until(lambda lines: scenario.enqueued <= scenario.settled(), 15)
        if not worker.exited():
            break  # it survived: nothing kills it any more
        killed_workers += 1
    scenario.wait_settled(10)
    runs = [words[1] for words in scenario.lines("started")].count(killer)
    figures = scenario.finish(expected_dead={killer: LOST_BUDGET_REASON})
    if runs != 3:
        figures.notes.append(f"the killer ran {runs} times, not 3")
    check(figures, record)
    assert killed_workers == 3
    assert others <= set(scenario.succeeded())


@pytest.mark.parametrize("fault", ["close_connection", "stop_app"])
def test_d_connection_closed_while_2s_handlers_run(broker, record, fault):
    """rabbitmqctl close_connection (or stop_app, 2 s, start_app) while 16 handlers of
    2 s run (concurrency 32): the worker reconnects; every job succeeds (some twice),
    none is dead-lettered."""
    scenario = Scenario(f"d_{fault}", broker.url)
    scenario.produce(32, {"sleep_ms": 2000}, threads=4)
    worker = scenario.worker(concurrency=32)
    assert worker.wait_until(running(16), 30), "the handlers did not start"
    time.sleep(0.5)
    if fault == "close_connection":
        assert broker.close_connections_named("chaos_agent work") >= 1
    else:
        broker.ctl("stop_app")
        time.sleep(2)
        broker.ctl("start_app")
    scenario.wait_settled(60)
    check(scenario.finish(), record)


def test_e_connection_reset_by_proxy_five_times(broker, toxiproxy, record):
    """The worker's and a producer's connections go through Toxiproxy, which cuts them
    five times during a drain with retries and deferrals in flight."""
    scenario = Scenario("e_proxy_resets", broker.url)
    proxy = scenario.queue
    proxied_url = toxiproxy.amqp_url(proxy, broker.port)
    scenario.produce(60, {"sleep_ms": 300})  # 16 at a time: a drain of some 4 s
    scenario.produce(60, {"sleep_ms": 300, "fail_once": True})
    scenario.produce(60, {"sleep_ms": 300, "defer_once": True})
    scenario.worker(max_attempts=3, url=proxied_url)
    try:
        with ThreadPoolExecutor(1) as pool:
            # One enqueue at a time, to span the resets.
            producing = pool.submit(scenario.produce, 3000, {}, url=proxied_url)
            for _ in range(5):
                time.sleep(1.0)
                toxiproxy.set_enabled(proxy, False)  # resets every connection through it
                time.sleep(0.2)
                toxiproxy.set_enabled(proxy, True)
            producing.result(120)  # raises what the producer raised
        scenario.wait_settled(120)
    finally:
        figures = scenario.finish()
        toxiproxy.delete(proxy)
    check(figures, record)
    assert figures.reconnects >= 1, "the resets did not reach the worker"


def test_f_peeked_and_requeued_job_runs(broker, record):
    """A basic.get + reject(requeue), as the management UI's "Get messages" does, makes
    the job come back marked redelivered: it must run, not be dead-lettered."""
    scenario = Scenario("f_peek_requeue", broker.url)
    scenario.produce(5, {})
    line = peek(broker.url, scenario.queue)
    assert line.startswith("peeked "), line
    scenario.worker()
    scenario.wait_settled(30)
    check(scenario.finish(), record)


def test_g_100ms_latency_each_way(broker, toxiproxy, record):
    """100 ms more latency each way on a producer's and a worker's connections: no call
    times out, every job runs once."""
    scenario = Scenario("g_latency_100ms", broker.url)
    proxy = scenario.queue
    proxied_url = toxiproxy.amqp_url(proxy, broker.port)
    for stream in ("upstream", "downstream"):
        toxiproxy.add_toxic(proxy, f"latency_{stream}", "latency", stream, latency=100)
    try:
        scenario.produce(100, {"sleep_ms": 10}, threads=4, url=proxied_url)
        scenario.worker(url=proxied_url)
        scenario.wait_settled(60)
    finally:
        figures = scenario.finish()
        toxiproxy.delete(proxy)
    check(figures, record)
    assert figures.enqueue_failed == 0
    assert figures.duplicates == 0


def test_h_half_open_connection(broker, toxiproxy, record, monkeypatch):
    """Toxiproxy's timeout toxic holds the worker's connection open but lets nothing
    through, for 8 s: the worker must notice within about two heartbeats (2 s here),
    reconnect soon after the heal, and run every job."""
    heartbeat_s = 2
    monkeypatch.setenv("QUEUEY_CHAOS_HEARTBEAT_S", str(heartbeat_s))
    scenario = Scenario("h_half_open", broker.url)
    proxy = scenario.queue
    proxied_url = toxiproxy.amqp_url(proxy, broker.port)
    scenario.produce(60, {"sleep_ms": 500})
    worker = scenario.worker(url=proxied_url)
    detected = recovered = float("inf")
    try:
        assert worker.wait_until(succeeded(10), 30), "the worker did not get going"
        cut = time.monotonic()
        for stream in ("upstream", "downstream"):
            toxiproxy.add_toxic(proxy, f"timeout_{stream}", "timeout", stream, timeout=0)
        detected = wait_for_log(worker, cut, "connection lost", 30)
        time.sleep(max(0.0, cut + 8 - time.monotonic()))
        healed = time.monotonic()
        for stream in ("upstream", "downstream"):
            toxiproxy.remove_toxic(proxy, f"timeout_{stream}")
        recovered = wait_for_log(worker, healed, "reconnected to the broker", 30)
        scenario.wait_settled(60)
    finally:
        figures = scenario.finish()
        toxiproxy.delete(proxy)
    figures.measured = f"lost after {detected:.1f} s, reconnected {recovered:.1f} s after the heal"
    check(figures, record)
    assert detected <= 2 * heartbeat_s + 2, figures.measured
    assert recovered <= 10, figures.measured


def test_i_worker_stopped_by_sigterm_mid_drain(broker, record):
    """A deploy: SIGTERM to a worker running 4 jobs of 50 ms with 12 more prefetched. It
    lets the running jobs end, gives the prefetched ones back and stops; a second worker
    finishes. Nothing dead-lettered, nothing run twice."""
    scenario = Scenario("i_worker_sigterm", broker.url)
    scenario.produce(200, {"sleep_ms": 50}, threads=4)
    first = scenario.worker(concurrency=4)
    assert first.wait_until(succeeded(30), 60), "the first worker did not get going"
    assert first.terminate() == 0
    scenario.worker()
    scenario.wait_settled(60)
    figures = scenario.finish()
    check(figures, record)
    assert figures.duplicates == 0
