"""queuey.Scheduler without a broker: what it refuses where it is made, and a scheduler
whose broker cannot be reached (it keeps trying in the library's thread until closed).
The election on a real broker: test_broker_scheduler.py."""
import pytest

import queuey

UNREACHABLE = "amqp://127.0.0.1:1"


def ticks(name: str = "ticks", queue: str = "ticks") -> queuey.Schedule:
    return queuey.Schedule(name, queue, "tick", interval=1)


def test_what_cannot_run_is_refused_with_its_field():
    cases = [
        (dict(schedules=[]), "schedules", "needs a schedule"),
        (dict(schedules=[ticks("t", "a"), ticks("t", "b")]), "name", 'two schedules are named "t"'),
        (dict(schedules=[ticks()], group="g" * 250), "group", "250 bytes: at most 227"),
    ]
    for keywords, field, message in cases:
        with pytest.raises(queuey.InvalidArgumentError, match=message) as raised:
            queuey.Scheduler(UNREACHABLE, **keywords)
        assert raised.value.field == field
    with pytest.raises(queuey.BrokerError, match="memory://") as unsupported:
        queuey.Scheduler("memory://", [ticks()])
    assert unsupported.value.status == queuey.Status.UNSUPPORTED
    with pytest.raises(TypeError, match="schedules must be Schedules"):
        queuey.Scheduler(UNREACHABLE, ["ticks"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="queues must be QueueConfigs"):
        queuey.Scheduler(UNREACHABLE, [ticks()], queues=["ticks"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="unexpected keyword argument 'heartbeats'"):
        queuey.Scheduler(UNREACHABLE, [ticks()], heartbeats=5)


def test_a_scheduler_without_its_broker_keeps_trying_until_closed():
    with queuey.Scheduler(UNREACHABLE, [ticks()], connection_name="nowhere") as scheduler:
        assert not scheduler.leading
        counts = scheduler.counts()
        assert (counts.fires, counts.skipped, counts.caught_up, counts.leads) == (0, 0, 0, 0)
    assert scheduler.closed and not scheduler.leading
    with pytest.raises(queuey.ClosedError):
        scheduler.counts()
