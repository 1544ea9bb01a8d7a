"""Schedules: periodic jobs (docs/scheduling.md), plain values that the library checks
where they are made and turns into C objects only for the call that needs one."""
from __future__ import annotations

import contextlib
import dataclasses
import datetime
from typing import Any, Callable, Iterator, TypeVar

from . import _convert
from ._ffi import call, ffi, lib
from .errors import InvalidArgumentError, Status

_T = TypeVar("_T")
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MS = datetime.timedelta(milliseconds=1)


def _refused(field: str, message: str) -> InvalidArgumentError:
    """A refusal made in Python in the library's terms: the field, "field: message"."""
    return InvalidArgumentError(Status.INVALID_ARGUMENT, f"{field}: {message}", field)


def _for_field(field: str, convert: Callable[..., _T], *args: Any) -> _T:
    """convert(*args), its InvalidArgumentError naming `field`."""
    try:
        return convert(*args)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(e.status, e.message, field) from None


def _unix_ms(when: object, what: str) -> int:
    """An aware datetime as Unix epoch milliseconds (floored)."""
    if not isinstance(when, datetime.datetime):
        raise TypeError(f"{what} must be a datetime, not {type(when).__name__}")
    if when.utcoffset() is None:
        raise TypeError(f"{what} must be a timezone-aware datetime, not a naive one")
    return (when - _EPOCH) // _MS


@dataclasses.dataclass(frozen=True)
class Schedule:
    """A periodic job: a job of job_type with payload on queue, enqueued at the local
    times of a five-field cron expression (or "@daily", ...) read in time_zone (an IANA
    name), or every interval (seconds or a timedelta: whole seconds, 1 s to 366 days, at
    the multiples of it since the Unix epoch). Exactly one of cron and interval; a
    time_zone other than "UTC" is for cron only. payload: JSON text (str, bytes) or a
    JSON-able value, the same for every fire (None: JSON null).

    catch_up: what a scheduler does with fires it comes to late. 0 (the default) skips
    those later than the schedule's grace (its interval up to a minute; a minute for
    cron); N from 1 to 1000 enqueues the latest N however late and skips older ones.

    Checked by the library when made: a refusal raises InvalidArgumentError (EnvelopeError
    for a payload that is not JSON) whose field names what is wrong ("cron", "interval",
    "time_zone", "missed_fires", ...); an argument of a wrong type raises TypeError."""

    name: str
    queue: str
    job_type: str
    payload: _convert.Payload = None
    cron: str | None = None
    time_zone: str = "UTC"
    interval: _convert.Duration | None = None
    catch_up: int = 0

    def __post_init__(self) -> None:
        with self._c():
            pass

    def next_fire(self, after: datetime.datetime) -> datetime.datetime:
        """The first fire strictly after `after` (a timezone-aware datetime), in UTC. Fires
        are whole seconds. Schedules work from 1970 to 9999-01-01: an `after` outside
        raises InvalidArgumentError (field "after_ms"); BrokerError NOT_FOUND says that the
        next fire would be past the end."""
        after_ms = _unix_ms(after, "after")
        out = ffi.new("int64_t *")
        with self._c() as schedule:
            call(lib.qy_schedule_next_fire_ms, schedule, after_ms, out)
        return _EPOCH + int(out[0]) * _MS

    def fire_job_id(self, fire: datetime.datetime) -> str:
        """The job id of the fire at `fire` (a timezone-aware datetime, floored to the
        second): the UUIDv5 of "name@YYYY-MM-DDTHH:MM:SSZ" in queuey's namespace."""
        fire_ms = _unix_ms(fire, "fire")
        out = ffi.new("char[37]")
        with self._c() as schedule:
            call(lib.qy_schedule_fire_job_id, schedule, fire_ms, out)
        return str(ffi.string(out).decode())

    @contextlib.contextmanager
    def _c(self) -> Iterator[Any]:
        name = _for_field("name", _convert.text, self.name, "name")
        queue = _for_field("queue", _convert.text, self.queue, "queue")
        job_type = _for_field("job_type", _convert.text, self.job_type, "job_type")
        zone = _for_field("time_zone", _convert.text, self.time_zone, "time_zone")
        payload = _for_field("payload", _convert.payload_json, self.payload)
        if b"\0" in payload:
            raise _refused("payload", "contains a NUL character")
        catch_up = _convert.unsigned(self.catch_up, "catch_up", 32)
        out = ffi.new("qy_schedule **")
        cron = ffi.NULL if self.cron is None else _for_field("cron", _convert.text, self.cron,
                                                             "cron")
        interval = 0 if self.interval is None else _for_field(
            "interval", _convert.milliseconds, self.interval, "interval")
        if interval == 0 and self.interval is not None:  # C's 0 is "none"; Python's is None
            raise _refused("interval", f"{self.interval!r} is no interval (None is none)")
        call(lib.qy_schedule_new, name, queue, job_type, cron, zone, interval, out)
        schedule = ffi.gc(out[0], lib.qy_schedule_free)
        try:
            call(lib.qy_schedule_set_payload, schedule, payload)
            policy = lib.QY_MISSED_FIRES_CATCH_UP if catch_up else lib.QY_MISSED_FIRES_SKIP
            call(lib.qy_schedule_set_missed_fires, schedule, policy, catch_up)
            yield schedule
        finally:
            ffi.release(schedule)
