"""Stalled sockets (issue 10, item 3). rabbitmq-c 0.11 writes on a non-blocking socket and
waits for it without a time limit, and amqp_basic_publish waits for input without one
once nothing has arrived for two heartbeats; queuey bounds both (docs/broker.md, "Stalled
sockets"). A producer's connection goes through Toxiproxy, a worker on a direct one
drains the queue, and every job is counted as in test_chaos.py.
"""

from __future__ import annotations

import time

from chaos_harness import Figures, Scenario, wait_for_log
from test_chaos import check

def run_stall(scenario: Scenario, broker_port: int, toxiproxy, toxic: dict, publish,
              detect_within: float) -> tuple[Figures, float, float]:
    """Connects a publisher through a proxy, enqueues one job, adds the toxic, runs
    publish(publisher), and waits for the connection to be given up (up to
    detect_within + 10 s). Then heals the proxy, waits for the enqueues to end, enqueues
    until a job goes through and drains the queue with a direct worker. Returns the
    figures and the seconds from the toxic to "connection lost" and from the heal to the
    next enqueued job."""
    proxy = scenario.queue
    publisher = scenario.publisher(toxiproxy.amqp_url(proxy, broker_port))
    detected = recovered = float("inf")
    try:
        assert publisher.enqueue(1, 0)[0][0] == "enqueued"
        cut = time.monotonic()
        toxiproxy.add_toxic(proxy, "stall", **toxic)
        publish(publisher)
        detected = wait_for_log(publisher, cut, "connection lost", detect_within + 10)
        toxiproxy.remove_toxic(proxy, "stall")
        healed = time.monotonic()
        assert publisher.done(120), "the enqueues did not end"
        recovered = publisher.enqueue_until_ok(30) - healed
        publisher.process.stdin.close()  # the agent exits at the end of its commands
        assert publisher.finish(30) == 0
        scenario.count_calls(publisher, publisher.timeout_ms)
        scenario.worker()
        scenario.wait_settled(60)
    finally:
        publisher.kill()
        figures = scenario.finish()
        toxiproxy.delete(proxy)
    figures.measured = f"lost after {detected:.1f} s, a job through {recovered:.1f} s after the heal"
    return figures, detected, recovered


def test_j_broker_stops_reading_a_16mib_publish(broker, toxiproxy, record, monkeypatch):
    """Upstream slowed to 1 KB/s while a 16 MiB job is written: the write stalls on a
    full TCP window (rabbitmq-c polls for it without a limit). The call returns within
    its timeout, TCP_USER_TIMEOUT (2 heartbeats, 4 s here) gives the connection up, and a
    job goes through soon after the heal."""
    heartbeat_s = 2
    monkeypatch.setenv("QUEUEY_CHAOS_HEARTBEAT_S", str(heartbeat_s))
    monkeypatch.setenv("QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS", "3000")
    figures, detected, recovered = run_stall(
        Scenario("j_stops_reading", broker.url), broker.port, toxiproxy,
        {"kind": "bandwidth", "stream": "upstream", "rate": 1},
        lambda publisher: publisher.enqueue(1, 16 << 20), 2 * heartbeat_s)
    check(figures, record)
    assert detected <= 2 * heartbeat_s + 4, figures.measured
    assert recovered <= 15, figures.measured


def test_k_broker_silent_under_a_stream_of_publishes(broker, toxiproxy, record, monkeypatch):
    """Nothing comes back from the broker (Toxiproxy's timeout toxic drops it) while a
    producer publishes every 0.5 s, more often than the I/O thread's idle wakeup. In the
    publish that finds two heartbeats without input, rabbitmq-c 0.11 waits for input
    without a limit, until the broker drops the silent client 2 to 3 heartbeats later
    (18 s or more here). queuey must give the connection up itself after at most 2
    heartbeats (12 s here) and get a job through soon after the heal."""
    heartbeat_s = 6
    monkeypatch.setenv("QUEUEY_CHAOS_HEARTBEAT_S", str(heartbeat_s))
    monkeypatch.setenv("QUEUEY_CHAOS_PUBLISH_TIMEOUT_MS", "500")
    calls = (2 * heartbeat_s + 2) * 2  # enqueues of 0.5 s, a little past 2 heartbeats
    figures, detected, recovered = run_stall(
        Scenario("k_broker_silent", broker.url), broker.port, toxiproxy,
        {"kind": "timeout", "stream": "downstream", "timeout": 0},
        lambda publisher: publisher.start(calls, 0), 2 * heartbeat_s)
    check(figures, record)
    assert detected <= 2 * heartbeat_s + 3, figures.measured
    assert recovered <= 15, figures.measured
