"""Checks and conversions of Python arguments before they reach the C library."""
from __future__ import annotations

import datetime
import json
import math
from typing import Any, Union

from .errors import invalid

#: A delay in seconds, or a timedelta.
Duration = Union[float, int, datetime.timedelta]

#: A payload: JSON text (str or bytes, passed on verbatim) or a value json.dumps takes.
Payload = Any


def text(value: object, what: str) -> bytes:
    """A str argument as NUL-terminated-safe UTF-8."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise invalid(f"{what} contains a NUL character")
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise invalid(f"{what} is not valid Unicode: {e.reason}") from None


def payload_json(payload: Payload) -> bytes:
    """JSON text for a payload; str and bytes are taken as JSON text already."""
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogatepass")  # the library rejects bad UTF-8
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    try:
        return json.dumps(payload, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8", "surrogatepass")
    except (TypeError, ValueError) as e:
        raise invalid(f"payload cannot be written as JSON: {e}") from None


def milliseconds(delay: Duration, what: str, maximum: int = 2**64 - 1) -> int:
    """A duration in whole milliseconds (rounded up: never shorter than asked)."""
    if isinstance(delay, datetime.timedelta):
        seconds = delay.total_seconds()
    elif isinstance(delay, (int, float)) and not isinstance(delay, bool):
        seconds = float(delay)
    else:
        raise TypeError(f"{what} must be seconds (int, float) or a timedelta, "
                        f"not {type(delay).__name__}")
    if not math.isfinite(seconds) or seconds < 0:
        raise invalid(f"{what} must be a finite, non-negative duration, not {delay!r}")
    ms = math.ceil(round(seconds * 1000, 6))
    if ms > maximum:
        raise invalid(f"{what} of {ms} ms is longer than {maximum} ms")
    return ms


def unsigned(value: object, what: str, bits: int, minimum: int = 0) -> int:
    """An int argument in [minimum, 2**bits - 1]."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    if not minimum <= value < 2**bits:
        raise invalid(f"{what} must be in {minimum}..{2**bits - 1}, not {value}")
    return value
