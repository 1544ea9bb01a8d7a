"""How a handler says that a job did not succeed: it raises one of these. Any other
exception counts as a retryable error with the exception's message."""
from __future__ import annotations

from . import _convert
from .config import RetryPolicy


class JobOutcome(Exception):
    """The base of the outcomes a handler raises on purpose."""


class Retry(JobOutcome):
    """A retryable error: the retry policy (`policy` if given, above every other)
    publishes the next attempt after its backoff, or dead-letters the job once the
    attempts are spent."""

    def __init__(self, message: str = "retry", *, policy: RetryPolicy | None = None) -> None:
        super().__init__(message)
        self.policy = policy


class Fatal(JobOutcome):
    """An error no retry can fix: the job is dead-lettered at once."""


class Defer(JobOutcome):
    """Not now: the job comes back after delay seconds, ahead of the backlog, without
    spending an attempt."""

    def __init__(self, delay: _convert.Duration, reason: str = "") -> None:
        super().__init__(reason)
        self.delay_ms = _convert.milliseconds(delay, "defer delay", 2147483647)
        self.reason = reason
