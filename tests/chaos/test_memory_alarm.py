"""A memory alarm on a client that produces and works (issue 10, item 2): the broker
blocks publishers, and a client publishes on one connection and consumes on another so
that its worker keeps going. Every job is counted as in test_chaos.py.
"""

from __future__ import annotations

import time

from chaos_harness import Scenario
from test_chaos import check

ALARM_S = 20
# 8 handlers of 200 ms run 40 jobs/s: a backlog of 800 keeps them busy through the alarm.
CONCURRENCY, SLEEP_MS, BACKLOG = 8, 200, 800
# The longest time without a success during the alarm that still counts as consuming.
LONGEST_QUIET_S = 2.0


def test_l_memory_alarm_on_a_client_that_produces_and_works(broker, record):
    """One client both produces (one enqueue at a time, with confirms) and works on the
    same queue, whose handlers retry or defer a fifth of the jobs, while the broker's
    memory alarm blocks publishing for 20 s. The worker must keep running and acking
    jobs through the alarm (it consumes on a connection of its own), the enqueues must
    fail cleanly (not sent, or not confirmed) within their timeout, no connection may be
    torn down, and after the alarm every job must run to success, its parked retries and
    deferrals settled."""
    plain = {"sleep_ms": SLEEP_MS}
    scenario = Scenario("l_memory_alarm", broker.url)
    agent = scenario.producing_worker([plain] * 8 + [{**plain, "fail_once": True}, {**plain, "defer_once": True}],
                                      backlog=BACKLOG, concurrency=CONCURRENCY, max_attempts=3)
    raised = cleared = time.monotonic()
    try:
        assert agent.wait_until(lambda lines: len(agent.words("enqueued")) >= BACKLOG, 60), "no backlog"
        raised = time.monotonic()
        broker.set_memory_alarm(True)
        try:
            time.sleep(ALARM_S)
        finally:
            broker.set_memory_alarm(False)
            cleared = time.monotonic()
        agent.stop_producing()
        assert agent.wait_until(lambda lines: agent.totals("produced"), 30), "the producer did not stop"
        scenario.count_calls(agent, int(agent.totals("produced")[0]["timeout_ms"]))
        scenario.wait_settled(60)
    finally:
        figures = scenario.finish()
    runs = agent.times_between("succeeded", raised, cleared)
    quiet = max(later - earlier for earlier, later in zip([raised, *runs], [*runs, cleared]))
    lost_connections = sum("connection lost" in line for _, line in agent.log)
    statuses = sorted(words[3] for words in agent.words("failed"))
    figures.measured = (f"{len(runs) / (cleared - raised):.1f} jobs/s during the alarm, none for {quiet:.1f} s at "
                        f"most; failed enqueues {statuses}; {lost_connections} connections lost; "
                        f"{scenario.counter('settle_failures')} settle failures; "
                        f"{scenario.counter('worker_lost')} redeliveries charged as lost runs")
    if set(statuses) - {"QY_ERR_NOT_SENT", "QY_ERR_TIMEOUT"}:
        figures.notes.append(f"enqueues failed otherwise than not sent or timed out: {statuses}")
    check(figures, record)
    assert statuses, "no enqueue was held up by the alarm"
    assert lost_connections == 0 and figures.reconnects == 0, figures.measured
    assert runs, f"the worker ran nothing during the alarm: {figures.measured}"
    assert quiet <= LONGEST_QUIET_S, f"the worker stalled during the alarm: {figures.measured}"
