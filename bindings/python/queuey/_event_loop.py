"""The asyncio event loop a worker owns for its coroutine handlers: started on a thread of
its own at the first coroutine, stopped when the worker's run() returns. Each job's
coroutine runs there while the C worker thread that took the job waits for it, so the
worker's concurrency is the number of coroutines in flight, and the job's outcome is
whatever the coroutine returned or raised, as for a plain function.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Awaitable, Callable

# How often a waiting worker thread asks whether its job timed out (job_timeout): the
# coroutine is then cancelled, as a plain handler is asked to return early.
_CANCEL_POLL_S = 0.05


async def _awaited(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


class EventLoopThread:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def run(self, awaitable: Awaitable[Any], cancelled: Callable[[], bool]) -> None:
        """Runs awaitable on the loop until it ends; raises what it raised. Once
        cancelled() says so, the coroutine is cancelled and this returns: the job timed
        out, its outcome no longer counts."""
        future = asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._started())
        while not concurrent.futures.wait([future], timeout=_CANCEL_POLL_S).done:
            if cancelled():
                future.cancel()
                return
        future.result()

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(target=loop.run_forever,
                                                name="queuey-event-loop", daemon=True)
                self._thread.start()
                self._loop = loop
            return self._loop

    def stop(self) -> None:
        """Ends the loop once no job uses it (after the worker's run()); the next
        coroutine starts a new one."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        if thread is threading.current_thread():
            return  # stop() from a coroutine of its own (a handler closing its worker)
        thread.join()
        # What is left: coroutines of jobs that timed out, cancelled and not yet ended.
        left = asyncio.all_tasks(loop)
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
