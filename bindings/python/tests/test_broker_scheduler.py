"""queuey.Scheduler on a real broker: of two schedulers one leads and fires, and closing
it hands the lead to the other; the queue holds exactly the fires the two counted; the
listing of a group names its leader and its schedules."""
import os
import time

import queuey


def wait_for_leader(schedulers: list[queuey.Scheduler], timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for i, scheduler in enumerate(schedulers):
            if scheduler.leading:
                return i
        time.sleep(0.05)
    raise AssertionError(f"no leader within {timeout} s")


def test_the_leader_fires_and_closing_it_hands_the_lead_on(broker_url, broker, queue_name):
    config = queuey.QueueConfig(queue_name)
    schedule = queuey.Schedule(queue_name, queue_name, "tick", interval=1)
    schedulers = [queuey.Scheduler(broker_url, [schedule], queues=[config], group=queue_name,
                                   connection_name=f"{queue_name}-{i}") for i in range(2)]
    try:
        leader = wait_for_leader(schedulers, 10)
        time.sleep(2.5)
        first = schedulers[leader].counts()
        schedulers[leader].close()
        following = schedulers[1 - leader]
        wait_for_leader([following], 2)
        time.sleep(2.5)
        second = following.counts()
    finally:
        for scheduler in schedulers:
            scheduler.close()
    assert first.leads == second.leads == 1
    assert first.fires >= 2 and second.fires >= 2
    assert broker.queue_counts(queue_name).ready == first.fires + second.fires


def test_list_schedules_names_the_leader_and_each_schedule(broker_url, broker, queue_name):
    assert broker.list_schedules(queue_name) == {"group": queue_name, "leader": None,
                                                 "schedulers": 0, "schedules": []}
    schedule = queuey.Schedule(queue_name, queue_name, "tick", interval=1,
                               payload={"n": 1})
    scheduler = queuey.Scheduler(broker_url, [schedule], group=queue_name,
                                 connection_name=f"{queue_name}-leader")
    try:
        wait_for_leader([scheduler], 10)
        deadline = time.monotonic() + 10
        while scheduler.counts().fires == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        listing = broker.list_schedules(queue_name)
    finally:
        scheduler.close()
    assert listing["leader"]["connection"] == f"{queue_name}-leader"
    assert listing["leader"]["pid"] == os.getpid()
    assert listing["schedulers"] == 1
    [ticks] = listing["schedules"]
    assert (ticks["name"], ticks["queue"], ticks["job_type"], ticks["payload"]) == \
        (queue_name, queue_name, "tick", '{"n":1}')
    assert ticks["interval_ms"] == 1000 and ticks["missed"] == "skip"
    assert ticks["last_fire"] < ticks["next_fire"]  # RFC 3339 UTC text sorts as time
    assert broker.list_schedules(queue_name)["schedulers"] == 0  # closed: none runs
