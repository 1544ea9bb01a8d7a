"""queuey.Schedule: the shared vectors of tests/vectors/schedules/ (see its README), as
every language runs them, and what only the Python shape of a schedule has."""
from __future__ import annotations

import dataclasses
import datetime

import pytest

from conftest import by_name, vector_rows
import queuey

UTC = datetime.timezone.utc


def rows(name: str) -> list[list[str]]:
    return vector_rows("schedules/" + name)


def rfc3339(text: str) -> datetime.datetime:
    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert when.strftime("%Y-%m-%dT%H:%M:%SZ") == text
    return when


def vector_schedule(name: str, cron: str, interval_ms: str, time_zone: str) -> queuey.Schedule:
    """The schedule of a vector row. An interval_ms of 0 is the core's "no interval"
    (neither_cron_nor_interval); Python spells that None (interval=0 is refused:
    test_interval_units)."""
    return queuey.Schedule(
        name, "reports", "report.build", cron=None if cron == "-" else cron,
        time_zone=time_zone,
        interval=None if interval_ms in ("-", "0") else int(interval_ms) / 1000)


def nightly(**changes) -> queuey.Schedule:
    return dataclasses.replace(
        queuey.Schedule("nightly-report", "reports", "report.build", cron="0 2 * * *"),
        **changes)


def test_every_file_has_rows():
    assert len(rows("fires.tsv")) > 20
    assert len(rows("refused.tsv")) > 20
    assert len(rows("fire_ids.tsv")) >= 4


@by_name(rows("fires.tsv"))
def test_fires_vectors(row):
    name, cron, interval_ms, time_zone, after, fires = row
    schedule = vector_schedule(name, cron, interval_ms, time_zone)
    when = rfc3339(after)
    for expected in fires.split(" "):
        fire = schedule.next_fire(when)
        assert fire == rfc3339(expected), f"next_fire({when.isoformat()})"
        assert fire.tzinfo is UTC
        when = fire


@by_name(rows("refused.tsv"))
def test_refused_vectors(row):
    name, cron, interval_ms, time_zone, field, message = row
    with pytest.raises(queuey.InvalidArgumentError) as raised:
        vector_schedule(name, cron, interval_ms, time_zone)
    error = raised.value
    assert error.status == queuey.Status.INVALID_ARGUMENT
    assert error.field == field
    assert error.message.startswith(f"{field}: ")
    assert message in error.message
    assert isinstance(error, ValueError)


@by_name(rows("fire_ids.tsv"))
def test_fire_id_vectors(row):
    name, fire_time, job_id = row
    fire = rfc3339(fire_time)
    kinds = [queuey.Schedule(name, "reports", "report.build", interval=1),
             queuey.Schedule(name, "reports", "report.build", cron="0 2 * * *",
                             time_zone="Europe/Berlin")]
    plus_five = datetime.timezone(datetime.timedelta(hours=5))
    for schedule in kinds:
        # The id depends on the name and the second only.
        for when in (fire, fire + datetime.timedelta(microseconds=999999),
                     fire.astimezone(plus_five)):
            assert schedule.fire_job_id(when) == job_id, f"{schedule} at {when}"


def test_time_zone_and_result_in_utc():
    berlin = datetime.timezone(datetime.timedelta(hours=1))
    after = datetime.datetime(2026, 12, 7, 17, 0, tzinfo=berlin)  # 16:00Z
    for zone, expected in [("UTC", "2026-12-08T02:00:00Z"),
                           ("Europe/Berlin", "2026-12-08T01:00:00Z")]:
        schedule = nightly(time_zone=zone)
        fire = schedule.next_fire(after)
        assert fire == rfc3339(expected) and fire.tzinfo is UTC
        day = datetime.timedelta(days=1)
        assert schedule.next_fire(fire) == fire + day  # strictly after
        # Within the fire's second, the next fire is still the following one.
        assert schedule.next_fire(fire + datetime.timedelta(microseconds=999999)) == fire + day
        assert schedule.next_fire(fire - datetime.timedelta(microseconds=1)) == fire


@pytest.mark.parametrize("bad", [
    datetime.datetime(2026, 12, 7, 16, 0),  # naive
    datetime.date(2026, 12, 7),
    "2026-12-07T16:00:00Z",
    1796659200,
    None,
])
def test_a_time_that_is_not_an_aware_datetime_raises_type_error(bad):
    schedule = nightly()
    with pytest.raises(TypeError, match="datetime"):
        schedule.next_fire(bad)
    with pytest.raises(TypeError, match="datetime"):
        schedule.fire_job_id(bad)


def test_interval_units():
    for interval in (1, 1.0, 90, datetime.timedelta(seconds=90), 366 * 86400):
        queuey.Schedule("ticks", "ticks", "tick", interval=interval)
    every_90 = queuey.Schedule("ticks", "ticks", "tick", interval=datetime.timedelta(seconds=90))
    after = rfc3339("2026-12-07T16:00:00Z")
    assert every_90.next_fire(after) == rfc3339("2026-12-07T16:01:30Z")
    for interval, message in [
        (0, "0 is no interval"),
        (1.5, "1500 ms is not a whole number of seconds"),
        (1.0001, "1001 ms is not a whole number of seconds"),  # rounded up to whole ms
        (366 * 86400 + 1, "31622401000 ms"),
        (-1, "non-negative"),
        (float("nan"), "finite"),
    ]:
        with pytest.raises(queuey.InvalidArgumentError, match=message) as raised:
            queuey.Schedule("ticks", "ticks", "tick", interval=interval)
        assert raised.value.field == "interval"


def test_an_interval_takes_no_time_zone_but_utc():
    queuey.Schedule("ticks", "ticks", "tick", interval=60, time_zone="UTC")
    with pytest.raises(queuey.InvalidArgumentError,
                       match='"Etc/UTC" given to an interval schedule') as raised:
        queuey.Schedule("ticks", "ticks", "tick", interval=60, time_zone="Etc/UTC")
    assert raised.value.field == "time_zone"


def test_cron_and_interval_together_or_neither_raise_value_error():
    with pytest.raises(ValueError, match="cron expression or an interval, not both") as raised:
        nightly(interval=60)
    assert raised.value.field == "interval"
    with pytest.raises(ValueError, match="needs a cron expression or an interval") as raised:
        queuey.Schedule("n", "q", "t")
    assert raised.value.field == "cron"
    with pytest.raises(queuey.InvalidArgumentError, match="cron: .*got 0"):
        nightly(cron="")


def test_catch_up():
    for n in (0, 1, 1000):
        nightly(catch_up=n)
    with pytest.raises(queuey.InvalidArgumentError,
                       match="catch up at most 1001: must be 1 to 1000") as raised:
        nightly(catch_up=1001)
    assert raised.value.field == "missed_fires"
    with pytest.raises(queuey.InvalidArgumentError):
        nightly(catch_up=-1)
    with pytest.raises(TypeError):
        nightly(catch_up="1")
    with pytest.raises(TypeError):
        nightly(catch_up=True)


def test_payload():
    for payload in (None, {"day": 1}, [1, 2], 42, '"text"', '{"day": 1}', b"[1,2]", "null"):
        nightly(payload=payload)
    for payload in ('{"day":', b"", "1 2", "text"):  # str and bytes are JSON text
        with pytest.raises(queuey.EnvelopeError) as raised:
            nightly(payload=payload)
        assert raised.value.status == queuey.Status.BAD_JSON
        assert raised.value.field == "payload"
    with pytest.raises(queuey.InvalidArgumentError, match="payload") as raised:
        nightly(payload={"when": datetime.datetime.now()})
    assert raised.value.field == "payload"


def test_names():
    with pytest.raises(queuey.InvalidArgumentError) as raised:
        nightly(name="")
    assert raised.value.field == "name"
    with pytest.raises(queuey.InvalidArgumentError, match="201 bytes: at most 200"):
        nightly(name="n" * 201)
    nightly(name="n" * 200)
    for field in ("queue", "job_type"):
        with pytest.raises(queuey.InvalidArgumentError) as raised:
            nightly(**{field: ""})
        assert raised.value.field == field


@pytest.mark.parametrize("field, value", [
    ("name", "night\0ly"),
    ("queue", "reports\0"),
    ("job_type", "\0"),
    ("cron", "0 2 * * *\0 junk"),
    ("time_zone", "UTC\0"),
    ("payload", "1\0"),
    ("payload", b"1\0"),
])
def test_a_nul_character_is_refused_before_c(field, value):
    with pytest.raises(queuey.InvalidArgumentError, match="NUL") as raised:
        nightly(**{field: value})
    assert raised.value.field == field


@pytest.mark.parametrize("field, value", [
    ("name", b"nightly"),
    ("queue", None),
    ("job_type", 7),
    ("cron", 5),
    ("time_zone", None),
    ("interval", "60"),
    ("interval", True),
])
def test_wrong_types_raise_type_error(field, value):
    changes = {field: value, "cron": None} if field == "interval" else {field: value}
    with pytest.raises(TypeError, match=field):
        nightly(**changes)


def test_a_schedule_is_a_frozen_value():
    schedule = nightly(payload={"day": 1})
    with pytest.raises(dataclasses.FrozenInstanceError):
        schedule.cron = "* * * * *"  # type: ignore[misc]
    assert schedule == nightly(payload={"day": 1})
    assert schedule != nightly(payload={"day": 2})
    assert "Schedule" in queuey.__all__ and queuey.Schedule is type(schedule)
