"""Clients: connections to a broker (one publishes, one consumes), or the in-process
memory:// backend."""
from __future__ import annotations

import enum
import json
import logging
from typing import Any, Iterable

from . import _convert, _exit, _log, messages
from ._ffi import call, call_for_bytes, check, ffi, lib, new_err
from ._handle import Handle
from .config import QueueConfig
from .consumer import Consumer
from .envelope import Envelope
from .errors import QueueyError
from .messages import Message, QueueCounts
from .producer import Producer


class MemoryCount(enum.IntEnum):
    """What Client.memory_count() counts (qy_memory_count)."""

    PENDING = 0
    IN_FLIGHT = 1
    HELD = 2
    ACKED = 3
    RETRIED = 4
    DEFERRED = 5
    DEAD_LETTERED = 6


def client_options(logger: logging.Logger | None, *, fallback_urls: Iterable[str] = (),
                   connection_name: str | None = None, heartbeat: int | None = None,
                   connect_timeout: _convert.Duration | None = None,
                   publish_timeout: _convert.Duration | None = None,
                   ca_cert_file: str | None = None, reconnect_attempts: int | None = None) -> Any:
    """The C options of a connection (Client's keywords), released by the caller."""
    out = ffi.new("qy_client_options **")
    call(lib.qy_client_options_new, out)
    opts = ffi.gc(out[0], lib.qy_client_options_free)
    if isinstance(fallback_urls, str):
        raise TypeError("fallback_urls must be a list of URLs, not a str")
    for url in fallback_urls:
        call(lib.qy_client_options_add_url, opts, _convert.text(url, "url"))
    if connection_name is not None:
        call(lib.qy_client_options_set_connection_name, opts,
             _convert.text(connection_name, "connection_name"))
    if heartbeat is not None:
        call(lib.qy_client_options_set_heartbeat, opts, _convert.unsigned(heartbeat, "heartbeat", 16))
    if connect_timeout is not None:
        call(lib.qy_client_options_set_connect_timeout_ms, opts,
             _convert.milliseconds(connect_timeout, "connect_timeout", 2**32 - 1))
    if publish_timeout is not None:
        call(lib.qy_client_options_set_publish_timeout_ms, opts,
             _convert.milliseconds(publish_timeout, "publish_timeout", 2**32 - 1))
    if ca_cert_file is not None:
        call(lib.qy_client_options_set_ca_cert_file, opts, _convert.text(ca_cert_file, "ca_cert_file"))
    if reconnect_attempts is not None:
        attempts = _convert.unsigned(reconnect_attempts, "reconnect_attempts", 63, -1)
        call(lib.qy_client_options_set_reconnect, opts, attempts, 500, 2.0, 5000, 1)
    if logger is not None:
        _log.route(opts, logger)
    else:  # the library's own default is stderr
        call(lib.qy_client_options_set_log, opts, ffi.NULL, ffi.NULL, ffi.NULL)
    return opts


class Client(Handle):
    """A connection to url (amqp://user:pass@host:port/vhost, amqps://..., or memory://).
    Thread-safe. Use it as a context manager, or close() it.

    reconnect_attempts: -1 (the default) reconnects forever, 0 never, N gives up after N.
    Durations are in seconds.

    log: the library's log lines (connection lost, reconnects, blocked publishing, settle
    failures, ...) become records of the logger "queuey.library" (True, the default), of
    a logging.Logger you pass, or are not produced at all (False: no log thread either).
    Levels map as DEBUG, INFO, WARNING, ERROR. At interpreter exit the clients that log
    are closed (queuey._exit).
    """

    _what = "client"

    def __init__(self, url: str, *, fallback_urls: Iterable[str] = (),
                 connection_name: str | None = None, heartbeat: int | None = None,
                 connect_timeout: _convert.Duration | None = None,
                 publish_timeout: _convert.Duration | None = None,
                 ca_cert_file: str | None = None, reconnect_attempts: int | None = None,
                 log: _log.LogTarget = True) -> None:
        logger = _log.logger_for(log)
        opts = client_options(logger, fallback_urls=fallback_urls,
                              connection_name=connection_name, heartbeat=heartbeat,
                              connect_timeout=connect_timeout, publish_timeout=publish_timeout,
                              ca_cert_file=ca_cert_file, reconnect_attempts=reconnect_attempts)
        out = ffi.new("qy_client **")
        try:
            call(lib.qy_client_new, _convert.text(url, "url"), opts, out)
        finally:
            ffi.release(opts)
        super().__init__(out[0], lib.qy_client_free)
        if logger is not None:
            _exit.logging_clients.add(self)

    def declare(self, queue: QueueConfig | str) -> None:
        """Declares a queue (a name: with the defaults) and its dead-letter queue."""
        config = QueueConfig(queue) if isinstance(queue, str) else queue
        if not isinstance(config, QueueConfig):
            raise TypeError(f"queue must be a QueueConfig or a str, not {type(queue).__name__}")
        with config._c() as c:
            call(lib.qy_client_declare, self._p, c)

    def producer(self) -> Producer:
        """A producer on this client."""
        return Producer(self)

    def consumer(self, queue: QueueConfig | str) -> Consumer:
        """A consumer of a queue that this client declared, to receive and settle jobs by
        hand. queue: its name, or its QueueConfig (whose max_priority Delivery.defer()
        uses)."""
        return Consumer(self, queue)

    # Looking into queues; dead letters. The selection keywords (job_ids, job_type,
    # reason_contains, older_than) must all hold; none given selects every message.
    # older_than is a duration in seconds (or a timedelta) since the job was first
    # enqueued. A queue that does not exist raises BrokerError NOT_FOUND naming it.

    def queue_counts(self, queue_name: str) -> QueueCounts:
        """The ready messages and the consumers of any queue by its full name (a work
        queue q, q.dead, a hold queue q.deferred.N)."""
        ready, consumers = ffi.new("uint64_t *"), ffi.new("uint32_t *")
        call(lib.qy_client_queue_counts, self._p, _convert.text(queue_name, "queue_name"),
             ready, consumers)
        return QueueCounts(ready=int(ready[0]), consumers=int(consumers[0]))

    def list_schedules(self, group: str = "") -> dict[str, Any]:
        """What the schedulers of group ("": the default group) fire, as their newest
        leader published it, read from the broker with nothing consumed (what `queuey
        schedule list` shows): a dict with "group", "leader" (None before any scheduler
        led; else "connection", "host", "pid", "since"), "schedulers" (those standing in
        the election now) and "schedules", each with the members of its definition and
        "last_fire" and "next_fire" (RFC 3339 UTC text or None); qy_client_list_schedules
        in queuey.h."""
        text = call_for_bytes(lib.qy_client_list_schedules, self._p,
                              _convert.text(group, "group"))
        listing: dict[str, Any] = json.loads(text)
        return listing

    def browse(self, queue_name: str, *, job_ids: Iterable[str] = (), job_type: str | None = None,
               reason_contains: str | None = None,
               older_than: _convert.Duration | None = None, limit: int = 0) -> list[Message]:
        """Copies of the messages of any queue (a work queue, q.dead) that the selection
        takes, in delivery order, at most limit of them (0: no limit). Nothing is
        removed, but the broker marks them redelivered: on a work queue that a worker
        consumes, a browsed job it receives next counts as one lost run, and the jobs a
        browse holds are not delivered while it lasts. Browse a dead-letter queue freely,
        a busy work queue with a limit (qy_client_browse in queuey.h)."""
        with messages.message_filter(job_ids, job_type, reason_contains, older_than) as selection:
            return messages.browse(self._p, queue_name, selection, limit)

    def replay_dead_letters(self, queue: str, *, job_ids: Iterable[str] = (),
                            job_type: str | None = None, reason_contains: str | None = None,
                            older_than: _convert.Duration | None = None,
                            keep_attempt: bool = False) -> int:
        """Puts the selected dead letters of queue (the work queue's name; they are in
        queue.dead) back on their original queue as attempt 1 with no deferrals, or as
        they are with keep_attempt, and returns how many were. When some could not be
        (a body that is no envelope: EnvelopeError; an original queue that is gone:
        BrokerError UNROUTABLE; a failed publish), the others still went, those stay in
        queue.dead, and the exception's `done` attribute is how many were replayed."""
        return self._walk_dead_letters(lib.qy_client_replay_dead_letters, queue, job_ids,
                                       job_type, reason_contains, older_than,
                                       1 if keep_attempt else 0)

    def purge_dead_letters(self, queue: str, *, job_ids: Iterable[str] = (),
                           job_type: str | None = None, reason_contains: str | None = None,
                           older_than: _convert.Duration | None = None) -> int:
        """Removes the selected dead letters of queue (as replay_dead_letters) for good and
        returns how many were. On failure the exception's `done` attribute is how many
        were purged."""
        return self._walk_dead_letters(lib.qy_client_purge_dead_letters, queue, job_ids,
                                       job_type, reason_contains, older_than)

    def _walk_dead_letters(self, fn: Any, queue: str, job_ids: Iterable[str],
                           job_type: str | None, reason_contains: str | None,
                           older_than: _convert.Duration | None, *extra: Any) -> int:
        """fn(client, queue, filter, *extra, &count, &err) with the C filter of the
        selection: the count, or the exception of the failure with the count (which the
        library fills also then) as its `done`."""
        name = _convert.text(queue, "queue")
        done, err = ffi.new("uint64_t *"), new_err()
        with messages.message_filter(job_ids, job_type, reason_contains, older_than) as selection:
            status = fn(self._p, name, selection, *extra, done, err)
        try:
            check(status, err)
        except QueueyError as e:
            e.done = int(done[0])
            raise
        return int(done[0])

    # The in-memory backend (memory:// only; other clients raise BrokerError UNSUPPORTED).

    def memory_count(self, what: MemoryCount, queue: str | None = None) -> int:
        """How many jobs of queue (None: every queue) are or were `what`."""
        out = ffi.new("uint64_t *")
        call(lib.qy_client_memory_count, self._p,
             ffi.NULL if queue is None else _convert.text(queue, "queue"),
             MemoryCount(what), out)
        return int(out[0])

    def memory_dead_letters(self) -> list[tuple[Envelope, str]]:
        """Every job dead-lettered so far, oldest first, with its reason."""
        letters = []
        for index in range(self.memory_count(MemoryCount.DEAD_LETTERED)):
            env, reason = ffi.new("qy_envelope **"), ffi.new("char **")
            call(lib.qy_client_memory_dead_letter, self._p, index, env, reason)
            try:
                letters.append((Envelope._adopt(env[0]), ffi.string(reason[0]).decode("utf-8")))
            finally:
                lib.qy_string_free(reason[0])
        return letters

    def memory_wait_idle(self, timeout: _convert.Duration) -> None:
        """Waits until nothing is pending, held or in flight; BrokerError TIMEOUT if not."""
        call(lib.qy_client_memory_wait_idle, self._p,
             _convert.milliseconds(timeout, "timeout", 2**32 - 1))

