"""Status codes and the exceptions that carry them.

Codes are API, messages are not: match on the class (one per status family) or on
`status`, never on the message.
"""
from __future__ import annotations

import enum


class Status(enum.IntEnum):
    """qy_status of queuey.h, without the QY_ / QY_ERR_ prefix."""

    OK = 0
    INVALID_ARGUMENT = -1
    NO_MEMORY = -2
    INTERNAL = -3
    BAD_JSON = -10
    BAD_ENVELOPE = -11
    CONNECTION = -20
    TIMEOUT = -21
    UNROUTABLE = -22
    NACKED = -23
    PRECONDITION_FAILED = -24
    BROKER = -25
    CLOSED = -26
    UNSUPPORTED = -27
    AUTH = -28
    STALE_DELIVERY = -29
    ALREADY_SETTLED = -30
    NOT_SENT = -31
    NOT_FOUND = -32


class QueueyError(Exception):
    """A failed queuey call: status (a Status, or the int of one this version does not
    know), message (for people) and field (the envelope field it is about, or None).

    done: set by Client.replay_dead_letters() and purge_dead_letters(), which go on past
    a dead letter that fails: how many were replayed or purged all the same (None for
    any other call)."""

    done: int | None = None

    def __init__(self, status: Status | int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field

    def __str__(self) -> str:
        name = self.status.name if isinstance(self.status, Status) else str(self.status)
        return f"{name}: {self.message}"


class InvalidArgumentError(QueueyError, ValueError):
    """A value the call does not take (INVALID_ARGUMENT)."""


class InternalError(QueueyError):
    """Out of memory or a fault inside queuey (NO_MEMORY, INTERNAL)."""


class EnvelopeError(QueueyError, ValueError):
    """Bytes that are not JSON, or JSON that is not an envelope (BAD_JSON, BAD_ENVELOPE)."""


class BrokerError(QueueyError):
    """The broker could not be reached or refused something (CONNECTION, TIMEOUT,
    UNROUTABLE, NACKED, PRECONDITION_FAILED, BROKER, UNSUPPORTED, AUTH, NOT_SENT,
    NOT_FOUND)."""


class ClosedError(QueueyError):
    """The client, worker or handle was closed (CLOSED)."""


class DeliveryError(QueueyError):
    """A settle that could not happen (STALE_DELIVERY, ALREADY_SETTLED)."""


_FAMILIES: dict[Status, type[QueueyError]] = {
    Status.INVALID_ARGUMENT: InvalidArgumentError,
    Status.NO_MEMORY: InternalError,
    Status.INTERNAL: InternalError,
    Status.BAD_JSON: EnvelopeError,
    Status.BAD_ENVELOPE: EnvelopeError,
    Status.CONNECTION: BrokerError,
    Status.TIMEOUT: BrokerError,
    Status.UNROUTABLE: BrokerError,
    Status.NACKED: BrokerError,
    Status.PRECONDITION_FAILED: BrokerError,
    Status.BROKER: BrokerError,
    Status.UNSUPPORTED: BrokerError,
    Status.AUTH: BrokerError,
    Status.NOT_SENT: BrokerError,
    Status.NOT_FOUND: BrokerError,
    Status.CLOSED: ClosedError,
    Status.STALE_DELIVERY: DeliveryError,
    Status.ALREADY_SETTLED: DeliveryError,
}


def error_for(status: int, message: str, field: str | None) -> QueueyError:
    """The exception of a status returned by the library."""
    try:
        known = Status(status)
    except ValueError:
        return QueueyError(status, message, field)
    return _FAMILIES.get(known, QueueyError)(known, message, field)


def invalid(message: str) -> InvalidArgumentError:
    """An argument refused on the Python side, before the library sees it."""
    return InvalidArgumentError(Status.INVALID_ARGUMENT, message)


def closed(what: str) -> ClosedError:
    return ClosedError(Status.CLOSED, f"the {what} is closed")
