"""The job a handler runs, read from the C job handle while the handler runs."""
from __future__ import annotations

from typing import Any

from ._fields import EnvelopeFields
from ._ffi import lib
from .errors import closed


class Job(EnvelopeFields):
    """What a handler is given: the job's identity, counters (attempt, deferrals), age
    and payload. Valid only during the handler call: its fields are read from the
    running job."""

    __slots__ = ("_job", "_env")

    def __init__(self, job: Any) -> None:
        self._job = job
        self._env = lib.qy_job_envelope(job)

    def _envelope(self) -> Any:
        if self._job is None:
            raise closed("job (used after its handler returned)")
        return self._env

    def _end(self) -> None:
        self._job = self._env = None

    @property
    def cancelled(self) -> bool:
        """True once the job has timed out: its result no longer counts, return early."""
        self._envelope()
        return bool(lib.qy_job_cancelled(self._job))

    def __repr__(self) -> str:
        if self._job is None:
            return "<Job finished>"
        return f"<Job {self.job_id} {self.job_type!r} attempt {self.attempt}>"
