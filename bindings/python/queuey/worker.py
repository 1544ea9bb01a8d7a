"""Workers: run handlers, registered per job type, on the jobs of some queues.

Handlers run on the C worker's threads; cffi takes the GIL for each call, so handlers
are ordinary Python functions (run one at a time unless they release the GIL, as I/O
does). A coroutine function (async def) is a handler too: its coroutine runs on an
event loop the worker owns (_event_loop). Nothing a handler raises reaches C: see
_dispatch.
"""
from __future__ import annotations

import enum
import inspect
import logging
import os
import signal
import threading
import traceback
from typing import Any, Awaitable, Callable, Iterable, TypeVar, Union

from . import _convert, _exit
from ._event_loop import EventLoopThread
from ._ffi import call, call_for_bytes, check, ffi, lib, new_err
from ._handle import Handle
from .client import Client
from .config import RetryPolicy, with_policy
from .envelope import Envelope
from .errors import invalid
from .job import Job
from .outcomes import Defer, Fatal, Retry

log = logging.getLogger("queuey")

# A handler returns nothing: the job succeeded. Any other outcome is raised (Retry,
# Fatal, Defer, or any exception: a retry). A coroutine function is awaited.
Handler = Union[Callable[[Job], None], Callable[[Job], Awaitable[None]]]
DeadLetterHook = Callable[[Envelope, str], Any]
_F = TypeVar("_F", bound=Handler)


class Counter(enum.IntEnum):
    """What Worker.counter() reads (qy_counter)."""

    SUCCEEDED = 0
    RETRIED = 1
    DEFERRED = 2
    DEAD_LETTERED_FATAL = 3
    DEAD_LETTERED_EXHAUSTED = 4
    DEAD_LETTERED_UNKNOWN_TYPE = 5
    DEAD_LETTERED_UNDECODABLE = 6
    TIMED_OUT = 7
    WORKER_LOST = 8
    SETTLE_FAILURES = 9
    IN_FLIGHT = 10
    DEAD_LETTERED_LOST = 11
    DEAD_LETTERED_MALFORMED = 12
    DROPPED_MALFORMED = 13
    PARKED = 14
    DUPLICATE_FIRES = 15


def _message(text: str) -> bytes:
    """An error message as the library takes it: UTF-8 without NUL characters."""
    return text.replace("\0", "\\0").encode("utf-8", "replace")


def _settle(job: Any, exc: BaseException) -> int:
    """The qy_job_result for what a handler raised, with its error set on the job."""
    err = ffi.NULL  # the library's error details are not needed here
    if isinstance(exc, Defer):
        lib.qy_job_set_defer(job, exc.delay_ms, _message(exc.reason), err)
        return int(lib.QY_JOB_DEFER)
    if not isinstance(exc, (Fatal, Retry)):
        # The x-exception header, should this run end dead-lettered: the type and the
        # traceback of what went wrong. queuey's own outcomes carry a reason instead, and
        # their dead letters stay header for header those of the other implementations.
        lib.qy_job_set_exception(job, _message(_qualified_name(type(exc))),
                                 _message("".join(traceback.format_exception(exc))), err)
    if isinstance(exc, Fatal):
        lib.qy_job_set_error(job, _message(str(exc)), err)
        return int(lib.QY_JOB_FATAL)
    if isinstance(exc, Retry):
        if exc.policy is not None:
            with with_policy(exc.policy) as policy:
                lib.qy_job_set_retry_policy(job, policy, err)
        error = str(exc) or "Retry"
    else:
        # The library logs what becomes of the job (retried, or dead-lettered on its
        # last attempt); the traceback is in its x-exception header and here.
        log.debug("handler raised", exc_info=exc)
        error = _exception_text(exc)
    lib.qy_job_set_error(job, _message(error), err)
    return int(lib.QY_JOB_RETRY)


def _qualified_name(kind: type) -> str:
    """"KeyError", "queuey.outcomes.Fatal", "myapp.jobs.NoSuchCustomer": builtins bare."""
    return kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _exception_text(exc: BaseException) -> str:
    """"KeyError: 'to'": the exception's type, then its text (str(KeyError('to')) alone
    is "'to'", which says nothing of what went wrong)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Registration:
    """What a handler's user_data reaches: the function, and the loop of its worker."""

    __slots__ = ("fn", "event_loop")

    def __init__(self, fn: Handler, event_loop: EventLoopThread) -> None:
        self.fn, self.event_loop = fn, event_loop


def _dispatch(job: Any, user_data: Any) -> int:
    registration = ffi.from_handle(user_data)
    context = Job(job)
    try:
        result = registration.fn(context)
        if inspect.isawaitable(result):  # an async def, or a function returning a coroutine
            registration.event_loop.run(result, lambda: bool(lib.qy_job_cancelled(job)))
        elif isinstance(result, (Retry, Fatal, Defer)):
            raise result  # returned where it should be raised: it is still the outcome
        return int(lib.QY_JOB_SUCCESS)
    except BaseException as exc:  # noqa: B902 - nothing may propagate into C
        try:
            return _settle(job, exc)
        except BaseException:
            log.exception("queuey: settling a failed job failed; it will be retried")
            return int(lib.QY_JOB_RETRY)
    finally:
        context._end()


def _dead_letter(env: Any, reason: Any, user_data: Any) -> None:
    hook = ffi.from_handle(user_data)
    try:
        hook(Envelope._copy_of(env), ffi.string(reason).decode("utf-8", "replace"))
    except BaseException:
        log.exception("queuey: the dead-letter hook raised")


def _unraisable(exc_type: Any, exc: Any, tb: Any) -> None:
    log.error("queuey: a callback raised", exc_info=(exc_type, exc, tb))


# One C entry point each, alive for the whole process: the Python function a callback
# reaches travels in user_data (ffi.new_handle), kept alive by its Worker.
_HANDLER_CB = ffi.callback("qy_handler_fn", _dispatch, error=lib.QY_JOB_RETRY,
                           onerror=_unraisable)
_DEAD_LETTER_CB = ffi.callback("qy_dead_letter_fn", _dead_letter, onerror=_unraisable)


class Worker(Handle):
    """Runs jobs of `queues` (each declared on client first) with the handlers
    registered by @worker.handler(job_type). concurrency 0: the queues' prefetch;
    job_timeout (seconds) None: no limit; retry: the default policy (1 attempt);
    max_lost_runs: how often a job may be lost mid-run before it is dead-lettered, for
    queues that set none (default 3)."""

    _what = "worker"

    def __init__(self, client: Client, queues: str | Iterable[str], *, concurrency: int = 0,
                 job_timeout: _convert.Duration | None = None,
                 retry: RetryPolicy | None = None, max_lost_runs: int = 3) -> None:
        if not isinstance(client, Client):
            raise TypeError(f"client must be a Client, not {type(client).__name__}")
        names = [queues] if isinstance(queues, str) else list(queues)
        encoded = [ffi.new("char[]", _convert.text(q, "queue")) for q in names]
        out = ffi.new("qy_worker **")
        call(lib.qy_worker_new, client._p, ffi.new("char *[]", encoded), len(encoded), out)
        super().__init__(out[0], lib.qy_worker_free)
        self._client = client
        self._keep: list[Any] = []  # the user_data handles the library holds
        self._event_loop = EventLoopThread()  # for coroutine handlers, started when needed
        self._signalled = False  # a first SIGINT or SIGTERM came during run()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.set_concurrency(concurrency)
        if job_timeout is not None:
            call(lib.qy_worker_set_job_timeout_ms, self._p,
                 _convert.milliseconds(job_timeout, "job_timeout", 2**32 - 1))
        call(lib.qy_worker_set_max_lost_runs, self._p,
             _convert.unsigned(max_lost_runs, "max_lost_runs", 32, 1))
        if retry is not None:
            self.set_retry(retry)

    def set_concurrency(self, concurrency: int) -> None:
        """How many jobs run at once (0: the sum of the queues' prefetch); before run()."""
        call(lib.qy_worker_set_concurrency, self._p,
             _convert.unsigned(concurrency, "concurrency", 32))

    def handler(self, job_type: str, *, retry: RetryPolicy | None = None) -> Callable[[_F], _F]:
        """Decorator: registers the function as the handler of job_type."""
        def register(fn: _F) -> _F:
            self.add_handler(job_type, fn, retry=retry)
            return fn
        return register

    def add_handler(self, job_type: str, fn: Handler, *, retry: RetryPolicy | None = None) -> None:
        """Registers fn(job) for job_type, with an optional policy of its own: a function,
        or a coroutine function run on the worker's event loop. A second handler for the
        same type raises InvalidArgumentError."""
        if not callable(fn):
            raise TypeError(f"a handler must be callable, not {type(fn).__name__}")
        handle = ffi.new_handle(_Registration(fn, self._event_loop))
        with with_policy(retry) as policy:
            call(lib.qy_worker_register, self._p, _convert.text(job_type, "job_type"),
                 _HANDLER_CB, handle, ffi.NULL, policy)
        self._keep.append(handle)

    def on_dead_letter(self, hook: DeadLetterHook) -> DeadLetterHook:
        """Decorator: hook(envelope, reason) runs before each dead-lettering."""
        if not callable(hook):
            raise TypeError(f"a hook must be callable, not {type(hook).__name__}")
        handle = ffi.new_handle(hook)
        call(lib.qy_worker_set_dead_letter_hook, self._p, _DEAD_LETTER_CB, handle, ffi.NULL)
        self._keep.append(handle)
        return hook

    def set_retry(self, policy: RetryPolicy, *, queue: str | None = None,
                  job_type: str | None = None) -> None:
        """The default policy, or an override for one queue or one job type."""
        if queue is not None and job_type is not None:
            raise invalid("give a queue or a job_type, not both")
        with with_policy(policy) as p:
            if queue is not None:
                call(lib.qy_worker_set_queue_retry, self._p, _convert.text(queue, "queue"), p)
            elif job_type is not None:
                call(lib.qy_worker_set_job_type_retry, self._p,
                     _convert.text(job_type, "job_type"), p)
            else:
                call(lib.qy_worker_set_default_retry, self._p, p)

    def run(self, *, stop_on_signals: bool = True) -> None:
        """Runs until shutdown(), then returns once every received job is settled.
        Called from the main thread with stop_on_signals, SIGINT and SIGTERM shut the
        worker down gracefully (the previous handlers come back afterwards)."""
        with self._lock:
            if self._thread is not None:
                raise invalid("the worker is running already")
            result: list[Any] = []
            worker = self._p
            self._thread = threading.Thread(
                target=lambda: result.append(_run(worker)), name="queuey-worker", daemon=True)
        previous = self._trap_signals() if stop_on_signals else {}
        _exit.running_workers.add(self)
        try:
            self._thread.start()
            self._wait()
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            _exit.running_workers.discard(self)
            self._thread = None
            self._event_loop.stop()
        check(*result[0])

    def _trap_signals(self) -> dict[int, Any]:
        if threading.current_thread() is not threading.main_thread():
            return {}
        previous: dict[int, Any] = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, self._on_signal)
        return previous

    def _on_signal(self, signum: int, _frame: Any) -> None:
        """The first SIGINT or SIGTERM shuts down gracefully; a second one ends the
        process at once, by the signal's default action (the jobs still running come
        back redelivered: docs/worker.md, signals)."""
        name = signal.Signals(signum).name
        if self._signalled:
            log.warning("%s again: exiting now, without waiting for the running jobs", name)
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self._signalled = True
        log.warning("%s: shutting down, the running jobs run to their end first; "
                    "send it again to exit at once", name)
        self.shutdown()

    def _wait(self) -> None:
        """Joins the run thread in short steps, so that signal handlers get to run; a
        KeyboardInterrupt (signals not trapped) shuts down and is raised at the end."""
        thread, interrupted = self._thread, None
        assert thread is not None
        while thread.is_alive():
            try:
                thread.join(0.2)
            except KeyboardInterrupt as e:
                self.shutdown()
                interrupted = e
        if interrupted is not None:
            raise interrupted

    def _join(self) -> None:
        """Waits until the run thread has ended (for the exit hook: queuey._exit)."""
        thread = self._thread
        if thread is not None:
            thread.join()

    def shutdown(self) -> None:
        """Asks the worker to stop: it settles the jobs it has, then run() returns.
        Idempotent; from any thread, a handler or a signal handler included."""
        ptr = self._ptr
        if ptr is not None:
            lib.qy_worker_shutdown(ptr)

    def counter(self, which: Counter) -> int:
        return int(lib.qy_worker_counter(self._p, Counter(which)))

    def counters(self) -> dict[str, int]:
        """Every counter, by lowercase name."""
        return {c.name.lower(): self.counter(c) for c in Counter}

    def metrics_text(self) -> str:
        """The worker's metrics in the Prometheus text format, version 0.0.4
        (qy_worker_metrics_text; docs/metrics.md): from any thread, while run() runs too.
        queuey.metrics.WorkerCollector hands them to prometheus_client."""
        return call_for_bytes(lib.qy_worker_metrics_text, self._p).decode("utf-8", "replace")

    def close(self) -> None:
        """Shuts down, waits for run() to return and frees the worker. Idempotent."""
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self.shutdown()
            thread.join()
        self._event_loop.stop()
        super().close()


def _run(worker: Any) -> tuple[int, Any]:
    err = new_err()
    return lib.qy_worker_run(worker, err), err
