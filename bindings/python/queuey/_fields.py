"""The fields of an envelope, read through the C getters; shared by Envelope (a handle
of its own) and Job (the envelope of a running job)."""
from __future__ import annotations

import json
from typing import Any

from ._ffi import ffi, lib, string


class EnvelopeFields:
    __slots__ = ()

    def _envelope(self) -> Any:
        """The `const qy_envelope *` to read; raises ClosedError when there is none."""
        raise NotImplementedError

    @property
    def job_id(self) -> str:
        return string(lib.qy_envelope_job_id(self._envelope())) or ""

    @property
    def job_type(self) -> str:
        return string(lib.qy_envelope_job_type(self._envelope())) or ""

    @property
    def queue(self) -> str:
        return string(lib.qy_envelope_queue(self._envelope())) or ""

    @property
    def attempt(self) -> int:
        """1 for the first run, 2 for the first retry, ..."""
        return int(lib.qy_envelope_attempt(self._envelope()))

    @property
    def deferrals(self) -> int:
        """How often the job was deferred."""
        return int(lib.qy_envelope_deferrals(self._envelope()))

    @property
    def priority(self) -> int:
        return int(lib.qy_envelope_priority(self._envelope()))

    @property
    def enqueued_at_ms(self) -> int:
        """When the job was first enqueued, Unix epoch milliseconds."""
        return int(lib.qy_envelope_enqueued_at_ms(self._envelope()))

    @property
    def age_ms(self) -> int:
        """Milliseconds since the job was first enqueued (retries and deferrals included)."""
        return int(lib.qy_envelope_age_ms(self._envelope()))

    @property
    def age(self) -> float:
        """Seconds since the job was first enqueued."""
        return self.age_ms / 1000.0

    @property
    def correlation_id(self) -> str | None:
        return string(lib.qy_envelope_correlation_id(self._envelope()))

    @property
    def payload_json(self) -> str:
        """The payload as compact JSON text."""
        size = ffi.new("size_t *")
        data = lib.qy_envelope_payload(self._envelope(), size)
        return str(ffi.unpack(data, size[0]).decode("utf-8"))

    @property
    def payload(self) -> Any:
        """The payload parsed with json.loads (a dict for an object payload)."""
        return json.loads(self.payload_json)
