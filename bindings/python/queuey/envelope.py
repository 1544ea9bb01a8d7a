"""Envelopes: one job as it travels on a queue (the message body)."""
from __future__ import annotations

from typing import Any

from . import _convert
from ._ffi import call, call_for_bytes, ffi, lib
from ._fields import EnvelopeFields
from ._handle import Handle


class Envelope(Handle, EnvelopeFields):
    """An envelope, a value: next_attempt() and deferred() return new envelopes."""

    _what = "envelope"

    @classmethod
    def _adopt(cls, ptr: Any) -> "Envelope":
        env = cls.__new__(cls)
        Handle.__init__(env, ptr, lib.qy_envelope_free)
        return env

    @classmethod
    def _copy_of(cls, ptr: Any) -> "Envelope":
        """An envelope of its own with the contents of a borrowed `const qy_envelope *`
        (one that lives only during a callback), through its wire form."""
        return cls.from_bytes(call_for_bytes(lib.qy_envelope_to_bytes, ptr))

    @classmethod
    def new(cls, queue: str, job_type: str, payload: _convert.Payload,
            correlation_id: str | None = None) -> "Envelope":
        """A new job: fresh job id, attempt 1, enqueued now. payload: JSON text (str or
        bytes) or a value that json.dumps takes."""
        data = _convert.payload_json(payload)
        out = ffi.new("qy_envelope **")
        call(lib.qy_envelope_new, _convert.text(job_type, "job_type"),
             _convert.text(queue, "queue"), data, len(data), out)
        env = cls._adopt(out[0])
        if correlation_id is not None:
            env.set_correlation_id(correlation_id)
        return env

    @classmethod
    def from_bytes(cls, body: bytes | bytearray | memoryview) -> "Envelope":
        """Decodes a message body; raises EnvelopeError naming the field at fault."""
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError(f"body must be bytes, not {type(body).__name__}")
        data = bytes(body)
        out = ffi.new("qy_envelope **")
        call(lib.qy_envelope_from_bytes, data, len(data), out)
        return cls._adopt(out[0])

    def to_bytes(self) -> bytes:
        """The message body: compact UTF-8 JSON."""
        return call_for_bytes(lib.qy_envelope_to_bytes, self._p)

    def next_attempt(self) -> "Envelope":
        """The envelope a retry publishes: attempt + 1, priority 0."""
        out = ffi.new("qy_envelope **")
        call(lib.qy_envelope_next_attempt, self._p, out)
        return Envelope._adopt(out[0])

    def deferred(self, priority: int) -> "Envelope":
        """The envelope a deferral publishes: deferrals + 1, the given priority."""
        out = ffi.new("qy_envelope **")
        call(lib.qy_envelope_deferred, self._p, _convert.unsigned(priority, "priority", 8), out)
        return Envelope._adopt(out[0])

    def copy(self) -> "Envelope":
        return Envelope._copy_of(self._p)

    def _envelope(self) -> Any:
        return self._p

    def set_correlation_id(self, value: str | None) -> None:
        """Sets the correlation id (UTF-8 without NUL), or removes it for None."""
        call(lib.qy_envelope_set_correlation_id, self._p,
             ffi.NULL if value is None else _convert.text(value, "correlation_id"))

    def __repr__(self) -> str:
        if self.closed:
            return "<Envelope closed>"
        return (f"<Envelope {self.job_id} {self.job_type!r} on {self.queue!r} "
                f"attempt {self.attempt} deferrals {self.deferrals}>")
