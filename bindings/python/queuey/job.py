"""The job a handler runs, read from the C job handle while the handler runs."""
from __future__ import annotations

import json
from typing import Any

from ._ffi import ffi, lib, string
from .errors import closed


class Job:
    """What a handler is given: the job's identity, counters and payload. Valid only
    during the handler call (its fields are read from the running job)."""

    __slots__ = ("_job", "_env", "_payload")

    def __init__(self, job: Any) -> None:
        self._job = job
        self._env = lib.qy_job_envelope(job)
        self._payload: Any = _UNSET

    def _e(self) -> Any:
        if self._job is None:
            raise closed("job (used after its handler returned)")
        return self._env

    def _end(self) -> None:
        self._job = self._env = None

    @property
    def job_id(self) -> str:
        return string(lib.qy_envelope_job_id(self._e())) or ""

    @property
    def job_type(self) -> str:
        return string(lib.qy_envelope_job_type(self._e())) or ""

    @property
    def queue(self) -> str:
        return string(lib.qy_envelope_queue(self._e())) or ""

    @property
    def attempt(self) -> int:
        """1 for the first run, 2 for the first retry, ..."""
        return int(lib.qy_envelope_attempt(self._e()))

    @property
    def deferrals(self) -> int:
        """How often the job was deferred before this run."""
        return int(lib.qy_envelope_deferrals(self._e()))

    @property
    def priority(self) -> int:
        return int(lib.qy_envelope_priority(self._e()))

    @property
    def correlation_id(self) -> str | None:
        return string(lib.qy_envelope_correlation_id(self._e()))

    @property
    def enqueued_at_ms(self) -> int:
        return int(lib.qy_envelope_enqueued_at_ms(self._e()))

    @property
    def age(self) -> float:
        """Seconds since the job was first enqueued (retries and deferrals included)."""
        return int(lib.qy_envelope_age_ms(self._e())) / 1000.0

    @property
    def payload_json(self) -> str:
        size = ffi.new("size_t *")
        data = lib.qy_envelope_payload(self._e(), size)
        return ffi.unpack(data, size[0]).decode("utf-8")

    @property
    def payload(self) -> Any:
        """The payload parsed with json.loads (a dict for an object payload)."""
        if self._payload is _UNSET:
            self._payload = json.loads(self.payload_json)
        return self._payload

    @property
    def cancelled(self) -> bool:
        """True once the job has timed out: its result no longer counts, return early."""
        self._e()
        return bool(lib.qy_job_cancelled(self._job))

    def __repr__(self) -> str:
        if self._job is None:
            return "<Job finished>"
        return f"<Job {self.job_id} {self.job_type!r} attempt {self.attempt}>"


_UNSET: Any = object()
