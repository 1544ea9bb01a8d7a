"""The cluster's one scheduler (docs/scheduling.md): each Scheduler stands in its group's
election on the broker, and the one that leads enqueues the schedules' fires."""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from . import _convert, _exit, _log
from ._ffi import call, ffi, lib
from ._handle import Handle
from .client import client_options
from .config import QueueConfig
from .schedule import Schedule


@dataclasses.dataclass(frozen=True)
class SchedulerCounts:
    """What a scheduler did while it led; every count only grows."""
    fires: int  # enqueued and confirmed by the broker
    skipped: int  # missed fires that their policy skipped
    caught_up: int  # fires enqueued later than their grace (catch_up)
    leads: int  # times this scheduler took the lead
    failures: int  # connections lost, or fires the broker refused


_COUNTERS = {"fires": "QY_SCHEDULER_FIRES", "skipped": "QY_SCHEDULER_SKIPPED",
             "caught_up": "QY_SCHEDULER_CAUGHT_UP", "leads": "QY_SCHEDULER_LEADS",
             "failures": "QY_SCHEDULER_FAILURES"}


class Scheduler(Handle):
    """A candidate in its group's election on the broker at url (amqp://...). Exactly one
    scheduler of a group leads: it enqueues each fire of its schedules once, with a job id
    derived from the schedule's name and the fire time, and records the fire on the
    broker, so that the next leader neither repeats nor skips it. When the leader's
    connection goes (its process killed, the network lost, missed heartbeats) the broker
    hands the lead to another. It starts at once; a thread of the library connects, and
    connects again after a loss. close() (or leaving a with block) leaves the election.

    queues: the QueueConfigs of the queues the schedules fire into, declared when this
    scheduler takes the lead (a queue without one gets QueueConfig's defaults). group:
    schedulers of one group elect one leader ("" is the vhost's default group). log and
    the other keywords (connection_name, heartbeat, fallback_urls, reconnect_attempts,
    ...) are Client's. memory:// runs no scheduler yet (UnsupportedError)."""

    _what = "scheduler"

    def __init__(self, url: str, schedules: Iterable[Schedule], *,
                 queues: Iterable[QueueConfig] = (), group: str = "",
                 log: _log.LogTarget = True, **connection: Any) -> None:
        out = ffi.new("qy_scheduler_options **")
        call(lib.qy_scheduler_options_new, out)
        options = ffi.gc(out[0], lib.qy_scheduler_options_free)
        logger = _log.logger_for(log)
        opts = client_options(logger, **connection)
        try:
            for schedule in schedules:
                if not isinstance(schedule, Schedule):
                    raise TypeError(f"schedules must be Schedules, not {type(schedule).__name__}")
                with schedule._c() as c:
                    call(lib.qy_scheduler_options_add_schedule, options, c)
            for queue in queues:
                if not isinstance(queue, QueueConfig):
                    raise TypeError(f"queues must be QueueConfigs, not {type(queue).__name__}")
                with queue._c() as c:
                    call(lib.qy_scheduler_options_add_queue, options, c)
            call(lib.qy_scheduler_options_set_group, options, _convert.text(group, "group"))
            scheduler = ffi.new("qy_scheduler **")
            call(lib.qy_scheduler_new, _convert.text(url, "url"), opts, options, scheduler)
        finally:
            ffi.release(opts)
            ffi.release(options)
        super().__init__(scheduler[0], lib.qy_scheduler_free)
        if logger is not None:
            _exit.logging_clients.add(self)

    @property
    def leading(self) -> bool:
        """Whether this scheduler leads its group now (False once closed)."""
        return not self.closed and bool(lib.qy_scheduler_leading(self._p))

    def counts(self) -> SchedulerCounts:
        """What this scheduler did while it led."""
        value = ffi.new("uint64_t *")
        counts = {}
        for field, counter in _COUNTERS.items():
            call(lib.qy_scheduler_count, self._p, getattr(lib, counter), value)
            counts[field] = int(value[0])
        return SchedulerCounts(**counts)
