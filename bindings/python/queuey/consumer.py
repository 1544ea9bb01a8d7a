"""Consumers: read the jobs of a queue by hand and settle each one yourself (a Worker
does all of this for you)."""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from . import _convert
from ._ffi import call, ffi, lib
from ._fields import EnvelopeFields
from ._handle import Handle
from .config import QueueConfig
from .envelope import Envelope

if TYPE_CHECKING:
    from .client import Client

_MAX_DELAY_MS = 2147483647
# next() waits in slices of at most this long, so that signal handlers (Ctrl-C) run and
# close() from another thread gets in between.
_SLICE_MS = 200


class Delivery(Handle, EnvelopeFields):
    """One received job: its envelope's fields (job_id, job_type, attempt, payload, ...)
    and redelivered. Settle it exactly once with ack(), retry(), defer() or
    dead_letter(), from any thread; a second settle raises DeliveryError
    ALREADY_SETTLED. Closing one that was not settled (also by leaving a with block)
    puts the job back on its queue."""

    _what = "delivery"

    def __init__(self, ptr: Any, consumer: "Consumer") -> None:
        super().__init__(ptr, lib.qy_delivery_free)
        self._consumer = consumer  # keeps the client alive while the delivery lives

    def _envelope(self) -> Any:
        return lib.qy_delivery_envelope(self._p)

    @property
    def envelope(self) -> Envelope:
        """A copy of the delivered envelope, yours to keep."""
        return Envelope._copy_of(self._envelope())

    @property
    def redelivered(self) -> bool:
        """True when the broker delivered this job before, to a consumer that did not
        settle it."""
        return bool(lib.qy_delivery_redelivered(self._p))

    def ack(self) -> None:
        """The job is done."""
        call(lib.qy_delivery_ack, self._p)

    def retry(self, delay: _convert.Duration = 0, *, envelope: Envelope | None = None) -> None:
        """Publishes the next attempt (envelope, by default the delivered envelope's
        next_attempt()) to arrive after delay seconds, waits for the broker's confirm, and
        only then acknowledges: if the publish fails, the job is redelivered, never lost."""
        self._publish_again(lib.qy_delivery_retry, delay, envelope, Envelope.next_attempt)

    def defer(self, delay: _convert.Duration, *, priority: int | None = None,
              envelope: Envelope | None = None) -> None:
        """As retry(), without spending an attempt: envelope defaults to the delivered
        envelope's deferred(priority), priority to the queue's max_priority (that of the
        QueueConfig given to Client.consumer(), else QueueConfig's default, 10)."""
        level = self._consumer.max_priority if priority is None else priority
        self._publish_again(lib.qy_delivery_defer, delay, envelope,
                            lambda current: current.deferred(level))

    def dead_letter(self, reason: str) -> None:
        """Publishes the job to the dead-letter queue with x-death-reason = reason, waits
        for the confirm, then acknowledges (what raising Fatal does in a handler)."""
        call(lib.qy_delivery_dead_letter, self._p, _convert.text(reason, "reason"))

    def _publish_again(self, fn: Any, delay: _convert.Duration, envelope: Envelope | None,
                       make: Callable[[Envelope], Envelope]) -> None:
        """fn(delivery, envelope to publish, delay_ms, &err); by default the envelope that
        make() derives from the delivered one."""
        ms = _convert.milliseconds(delay, "delay", _MAX_DELAY_MS)
        if envelope is not None:
            if not isinstance(envelope, Envelope):
                raise TypeError(f"envelope must be an Envelope, not {type(envelope).__name__}")
            call(fn, self._p, envelope._p, ms)
            return
        with self.envelope as current, make(current) as again:
            call(fn, self._p, again._p, ms)

    def __repr__(self) -> str:
        if self.closed:
            return "<Delivery closed>"
        return f"<Delivery {self.job_id} {self.job_type!r} attempt {self.attempt}>"


class Consumer(Handle):
    """Receives the jobs of one queue that the client declared, with the queue's prefetch.
    next() from one thread at a time; close() (or leaving a with block) cancels the
    subscription and puts its unsettled deliveries back on the queue."""

    _what = "consumer"

    def __init__(self, client: "Client", queue: QueueConfig | str) -> None:
        config = QueueConfig(queue) if isinstance(queue, str) else queue
        if not isinstance(config, QueueConfig):
            raise TypeError(f"queue must be a QueueConfig or a str, not {type(queue).__name__}")
        out = ffi.new("qy_consumer **")
        call(lib.qy_consumer_new, client._p, _convert.text(config.name, "queue"), out)
        super().__init__(out[0], lib.qy_consumer_free)
        self._client = client  # the client outlives its consumers
        self.queue = config.name
        self.max_priority = config.max_priority
        self._lock = threading.Lock()  # one qy_consumer_next at a time; close() waits for it

    def next(self, timeout: _convert.Duration | None = None) -> Delivery | None:
        """The next job, or None once timeout seconds passed without one (None: wait
        until one comes). A body that is not a valid envelope never comes out here: it is
        dead-lettered as "malformed envelope" and logged."""
        limit = None if timeout is None else _convert.milliseconds(timeout, "timeout", 2**32 - 1)
        deadline = None if limit is None else time.monotonic() + limit / 1000
        out = ffi.new("qy_delivery **")
        while True:
            left = _SLICE_MS
            if deadline is not None:
                left = min(left, max(0, round((deadline - time.monotonic()) * 1000)))
            with self._lock:
                call(lib.qy_consumer_next, self._p, left, out)
            if out[0] != ffi.NULL:
                return Delivery(out[0], self)
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def close(self) -> None:
        """Cancels the subscription; unsettled deliveries go back to the queue. Waits
        for a next() under way on another thread (at most 0.2 s). Idempotent."""
        with self._lock:
            super().close()
