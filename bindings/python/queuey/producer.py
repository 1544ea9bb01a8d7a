"""Producers: put jobs on queues, each publish confirmed by the broker."""
from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any, Iterable, Sequence, Union

from . import _convert
from ._ffi import call, check, ffi, lib, new_err
from ._handle import Handle
from .envelope import Envelope
from .errors import Status

if TYPE_CHECKING:
    from .client import Client

#: A job for enqueue_batch: an Envelope, or (queue, job_type, payload[, correlation_id]).
BatchJob = Union[Envelope, Sequence[Any]]

_MAX_DELAY_MS = 2147483647


@dataclasses.dataclass(frozen=True)
class BatchResult:
    """The outcome of one job of enqueue_batch()."""

    job_id: str
    status: Status | int

    @property
    def ok(self) -> bool:
        return self.status == Status.OK


class Producer(Handle):
    """Puts jobs on declared queues. Thread-safe. Every call returns once the broker
    confirmed the job (the job id), or raises (BrokerError UNROUTABLE, NACKED, TIMEOUT,
    CONNECTION; ClosedError)."""

    _what = "producer"

    def __init__(self, client: "Client") -> None:
        out = ffi.new("qy_producer **")
        call(lib.qy_producer_new, client._p, out)
        super().__init__(out[0], lib.qy_producer_free)
        self._client = client  # the client outlives its producers

    def enqueue(self, queue: str, job_type: str, payload: _convert.Payload, *,
                correlation_id: str | None = None) -> str:
        """Publishes a new job. payload: JSON text (str, bytes) or a JSON-able value."""
        with Envelope.new(queue, job_type, payload, correlation_id) as env:
            call(lib.qy_producer_enqueue, self._p, env._p)
            return env.job_id

    def enqueue_after(self, queue: str, job_type: str, payload: _convert.Payload,
                      delay: _convert.Duration, *, correlation_id: str | None = None) -> str:
        """Publishes a new job that arrives after delay seconds (rounded up to the queue's
        granularity), at priority 0. The queue must have been declared by this client."""
        ms = _convert.milliseconds(delay, "delay", _MAX_DELAY_MS)
        with Envelope.new(queue, job_type, payload, correlation_id) as env:
            call(lib.qy_producer_enqueue_after, self._p, env._p, ms)
            return env.job_id

    def defer(self, queue: str, job_type: str, payload: _convert.Payload,
              delay: _convert.Duration, *, correlation_id: str | None = None) -> str:
        """Like enqueue_after(), but the job arrives at the queue's max priority."""
        ms = _convert.milliseconds(delay, "delay", _MAX_DELAY_MS)
        with Envelope.new(queue, job_type, payload, correlation_id) as env:
            call(lib.qy_producer_defer, self._p, env._p, ms)
            return env.job_id

    def enqueue_envelope(self, envelope: Envelope) -> None:
        """Publishes an envelope as it is (to envelope.queue)."""
        if not isinstance(envelope, Envelope):
            raise TypeError(f"envelope must be an Envelope, not {type(envelope).__name__}")
        call(lib.qy_producer_enqueue, self._p, envelope._p)

    def enqueue_batch(self, jobs: Iterable[BatchJob]) -> list[BatchResult]:
        """Publishes many jobs with many in flight at once and waits for every confirm.
        Returns one result per job, in order: a job the broker refused fails alone, and a
        failure of every publish (a lost connection, a closed client) shows in each
        result. Raises for what no result can carry: a bad job, a closed Producer."""
        envelopes, owned = [], []
        try:
            for job in jobs:
                if isinstance(job, Envelope):
                    envelopes.append(job)
                elif isinstance(job, (tuple, list)) and len(job) in (3, 4):
                    owned.append(Envelope.new(*job))
                    envelopes.append(owned[-1])
                else:
                    raise TypeError("a batch job must be an Envelope or a (queue, job_type, "
                                    f"payload[, correlation_id]) tuple, not {job!r}")
            return self._publish(envelopes)
        finally:
            for env in owned:
                env.close()

    # asyncio: each *_async method runs its blocking counterpart on a thread of the event
    # loop's default executor (the C call releases the GIL), so that the loop goes on
    # meanwhile. Cancelling the awaiting task does not recall a publish under way: the
    # job may still be enqueued.

    async def enqueue_async(self, queue: str, job_type: str, payload: _convert.Payload, *,
                            correlation_id: str | None = None) -> str:
        """enqueue() without blocking the event loop."""
        return await asyncio.to_thread(self.enqueue, queue, job_type, payload,
                                       correlation_id=correlation_id)

    async def enqueue_after_async(self, queue: str, job_type: str, payload: _convert.Payload,
                                  delay: _convert.Duration, *,
                                  correlation_id: str | None = None) -> str:
        """enqueue_after() without blocking the event loop."""
        return await asyncio.to_thread(self.enqueue_after, queue, job_type, payload, delay,
                                       correlation_id=correlation_id)

    async def defer_async(self, queue: str, job_type: str, payload: _convert.Payload,
                          delay: _convert.Duration, *, correlation_id: str | None = None) -> str:
        """defer() without blocking the event loop."""
        return await asyncio.to_thread(self.defer, queue, job_type, payload, delay,
                                       correlation_id=correlation_id)

    async def enqueue_batch_async(self, jobs: Iterable[BatchJob]) -> list[BatchResult]:
        """enqueue_batch() without blocking the event loop. jobs is read into a list
        first, on the loop's thread."""
        return await asyncio.to_thread(self.enqueue_batch, list(jobs))

    def _publish(self, envelopes: list[Envelope]) -> list[BatchResult]:
        count = len(envelopes)
        if count == 0:
            return []
        ptrs = ffi.new("qy_envelope *[]", [env._p for env in envelopes])
        statuses = ffi.new("qy_status[]", count)  # zeroed: QY_OK
        err = new_err()
        status = lib.qy_producer_enqueue_batch(self._p, ptrs, count, statuses, err)
        if status != lib.QY_OK and all(s == lib.QY_OK for s in statuses):
            check(status, err)  # nothing attributable to a single job: raise
        lib.qy_error_free(err[0])
        return [BatchResult(env.job_id, _status(s)) for env, s in zip(envelopes, statuses)]


def _status(value: int) -> Status | int:
    try:
        return Status(value)
    except ValueError:
        return value

