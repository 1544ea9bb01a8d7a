"""Envelopes: one job as it travels on a queue (the message body)."""
from __future__ import annotations

import json
from typing import Any

from . import _convert
from ._ffi import call, ffi, lib, string
from ._handle import Handle


class Envelope(Handle):
    """An envelope, a value: next_attempt() and deferred() return new envelopes."""

    _what = "envelope"

    @classmethod
    def _adopt(cls, ptr: Any) -> "Envelope":
        env = cls.__new__(cls)
        Handle.__init__(env, ptr, lib.qy_envelope_free)
        return env

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
            env.correlation_id = correlation_id
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
        out, out_len = ffi.new("char **"), ffi.new("size_t *")
        call(lib.qy_envelope_to_bytes, self._p, out, out_len)
        try:
            return ffi.unpack(out[0], out_len[0])
        finally:
            lib.qy_string_free(out[0])

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
        return Envelope.from_bytes(self.to_bytes())

    @property
    def job_id(self) -> str:
        return string(lib.qy_envelope_job_id(self._p)) or ""

    @property
    def job_type(self) -> str:
        return string(lib.qy_envelope_job_type(self._p)) or ""

    @property
    def queue(self) -> str:
        return string(lib.qy_envelope_queue(self._p)) or ""

    @property
    def attempt(self) -> int:
        return int(lib.qy_envelope_attempt(self._p))

    @property
    def enqueued_at_ms(self) -> int:
        return int(lib.qy_envelope_enqueued_at_ms(self._p))

    @property
    def deferrals(self) -> int:
        return int(lib.qy_envelope_deferrals(self._p))

    @property
    def priority(self) -> int:
        return int(lib.qy_envelope_priority(self._p))

    @property
    def age_ms(self) -> int:
        """Milliseconds since the job was first enqueued."""
        return int(lib.qy_envelope_age_ms(self._p))

    @property
    def payload_json(self) -> str:
        """The payload as compact JSON text."""
        size = ffi.new("size_t *")
        data = lib.qy_envelope_payload(self._p, size)
        return ffi.unpack(data, size[0]).decode("utf-8")

    @property
    def payload(self) -> Any:
        """The payload parsed with json.loads (a dict for an object payload)."""
        return json.loads(self.payload_json)

    @property
    def correlation_id(self) -> str | None:
        return string(lib.qy_envelope_correlation_id(self._p))

    @correlation_id.setter
    def correlation_id(self, value: str | None) -> None:
        call(lib.qy_envelope_set_correlation_id, self._p,
             ffi.NULL if value is None else _convert.text(value, "correlation_id"))

    def __repr__(self) -> str:
        if self.closed:
            return "<Envelope closed>"
        return (f"<Envelope {self.job_id} {self.job_type!r} on {self.queue!r} "
                f"attempt {self.attempt} deferrals {self.deferrals}>")
