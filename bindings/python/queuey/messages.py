"""Looking into queues: their counts, the messages a browse sees, and the filters that
select messages for a browse, a replay or a purge of dead letters (docs/cli.md).

A browse calls back into Python once per message, on the calling thread and inside the
browse: the callback only copies the message, and whatever it raises stops the browse
and is raised again once the C call has returned (see _visit).
"""
from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import Any, Iterable, Iterator

from . import _convert
from ._ffi import call, check, ffi, lib, new_err, string
from .envelope import Envelope


@dataclasses.dataclass(frozen=True)
class QueueCounts:
    """What a passive declare tells of a queue: the messages ready to be delivered and
    its consumers (AMQP has no count of the delivered, unacknowledged ones)."""

    ready: int
    consumers: int


@dataclasses.dataclass(frozen=True)
class Message:
    """A message that Client.browse() saw, copied out of the queue: it stays valid after
    the browse. A dead letter carries its reason and original queue (else "" and the
    envelope's queue). A body that is not an envelope (a malformed dead letter) has
    envelope None and says why in decode_error; its job id and type are then the AMQP
    message-id and type. headers: every AMQP header, parsed from the JSON the library
    gives (RabbitMQ's x-death as a list of dicts)."""

    job_id: str
    job_type: str
    attempt: int
    reason: str
    original_queue: str
    redelivered: bool
    envelope: Envelope | None
    decode_error: str
    headers: dict[str, Any]
    body: bytes


def _text(ptr: Any) -> str:
    """A borrowed string of a message: AMQP fields of a malformed message need not be
    UTF-8, and a browse must not fail on them."""
    return string(ptr, "replace") or ""


def _copy(message: Any) -> Message:
    env = lib.qy_message_envelope(message)
    size = ffi.new("size_t *")
    body = lib.qy_message_body(message, size)
    return Message(
        job_id=_text(lib.qy_message_job_id(message)),
        job_type=_text(lib.qy_message_job_type(message)),
        attempt=int(lib.qy_message_attempt(message)),
        reason=_text(lib.qy_message_reason(message)),
        original_queue=_text(lib.qy_message_original_queue(message)),
        redelivered=bool(lib.qy_message_redelivered(message)),
        envelope=None if env == ffi.NULL else Envelope._copy_of(env),
        decode_error=_text(lib.qy_message_decode_error(message)),
        headers=json.loads(_text(lib.qy_message_headers_json(message)) or "{}"),
        body=b"" if body == ffi.NULL else bytes(ffi.unpack(body, size[0])),
    )


class _Browse:
    """The state of one browse: the copies so far, and what a visit raised."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.raised: BaseException | None = None

    def __call__(self, message: Any) -> int:
        try:
            self.messages.append(_copy(message))
            return 0
        except BaseException as exc:  # noqa: B902 - nothing may propagate into C
            self.raised = exc
            return 1


def _visit(message: Any, user_data: Any) -> int:
    browse: _Browse = ffi.from_handle(user_data)
    return browse(message)


# One C entry point for every browse; each browse's state travels in user_data. error=1
# stops the browse should anything escape _visit all the same.
_VISIT_CB = ffi.callback("qy_message_visit_fn", _visit, error=1)


def browse(client: Any, queue_name: str, message_filter: Any, limit: int) -> list[Message]:
    """Runs qy_client_browse on client (a live `qy_client *`) and returns the copies.
    What a visit raised is raised here (with the browse's own error, if any, as its
    __context__)."""
    name = _convert.text(queue_name, "queue_name")
    count = _convert.unsigned(limit, "limit", 64)
    state = _Browse()
    handle = ffi.new_handle(state)  # alive until the call returns: it is a local
    err = new_err()
    status = lib.qy_client_browse(client, name, message_filter, count, _VISIT_CB, handle, err)
    if state.raised is None:
        check(status, err)
        return state.messages
    try:
        check(status, err)
    except BaseException:
        raise state.raised
    raise state.raised


@contextlib.contextmanager
def message_filter(job_ids: Iterable[str] = (), job_type: str | None = None,
                   reason_contains: str | None = None,
                   older_than: _convert.Duration | None = None) -> Iterator[Any]:
    """The C filter of the selection criteria, for the length of one call: every one
    given must hold, and none given selects every message."""
    if isinstance(job_ids, str):
        raise TypeError("job_ids must be a list of job ids, not a str")
    out = ffi.new("qy_message_filter **")
    call(lib.qy_message_filter_new, out)
    selection = ffi.gc(out[0], lib.qy_message_filter_free)
    try:
        for job_id in job_ids:
            call(lib.qy_message_filter_add_job_id, selection, _convert.text(job_id, "job_id"))
        if job_type is not None:
            call(lib.qy_message_filter_set_job_type, selection,
                 _convert.text(job_type, "job_type"))
        if reason_contains is not None:
            call(lib.qy_message_filter_set_reason_contains, selection,
                 _convert.text(reason_contains, "reason_contains"))
        if older_than is not None:
            call(lib.qy_message_filter_set_older_than_ms, selection,
                 _convert.milliseconds(older_than, "older_than"))
        yield selection
    finally:
        ffi.release(selection)
