"""libqueuey's log lines (qy_client_options_set_log) as records of Python's logging.

Each line becomes a record of the logger a Client names (by default "queuey.library", a
child of "queuey"), at the level that matches its qy_log_level. The lines arrive on the
client's log thread, one at a time and in order (queuey.h), also while the broker is
unreachable: the library queues them and never waits for this callback.
"""
from __future__ import annotations

import logging
import sys
import threading
from typing import Any, Union

from ._ffi import call, ffi, lib

#: The logger that a Client created with log=True (the default) writes to.
LIBRARY_LOGGER = "queuey.library"

#: What Client(log=...) takes: True (LIBRARY_LOGGER), False or None (no log thread at
#: all: the library stays silent), or a logging.Logger of your own.
LogTarget = Union[bool, None, logging.Logger]

LEVELS = {
    lib.QY_LOG_DEBUG: logging.DEBUG,
    lib.QY_LOG_INFO: logging.INFO,
    lib.QY_LOG_WARN: logging.WARNING,
    lib.QY_LOG_ERROR: logging.ERROR,
}

# The loggers lines go to, by the index that travels in the callback's user_data. A
# plain integer, not an ffi handle: the library may call once more after its client was
# freed (a call under way when qy_client_free stops waiting), and an index stays valid.
# Loggers live as long as the process, so the list only grows by distinct loggers.
_targets: list[logging.Logger] = []
_index: dict[logging.Logger, int] = {}
_lock = threading.Lock()


def _target_index(logger: logging.Logger) -> int:
    with _lock:
        if logger not in _index:
            _index[logger] = len(_targets)
            _targets.append(logger)
        return _index[logger]


def _emit(level: int, message: Any, user_data: Any) -> None:
    """The qy_log_fn: runs on a client's log thread. Nothing may propagate into C, and
    nothing is done once Python finalizes (logging's handlers may be gone)."""
    if sys.is_finalizing():
        return
    try:
        logger = _targets[int(ffi.cast("uintptr_t", user_data))]
        python_level = LEVELS.get(level, logging.WARNING)
        if logger.isEnabledFor(python_level):
            logger.log(python_level, "%s", ffi.string(message).decode("utf-8", "replace"))
    except BaseException:  # noqa: B902 - a failing handler loses its line, nothing more
        pass


def _ignore(exc_type: Any, exc: Any, tb: Any) -> None:
    """cffi's onerror: whatever escaped _emit (nothing should) is dropped silently."""


# One C entry point for the whole process.
_LOG_CB = ffi.callback("qy_log_fn", _emit, onerror=_ignore)


def logger_for(target: LogTarget) -> logging.Logger | None:
    """The logger of a Client's log= argument; None for no logging."""
    if target is True:
        return logging.getLogger(LIBRARY_LOGGER)
    if target is False or target is None:
        return None
    if isinstance(target, logging.Logger):
        return target
    raise TypeError(f"log must be True, False or a logging.Logger, not {type(target).__name__}")


def route(opts: Any, logger: logging.Logger) -> None:
    """Sends the log lines of the clients made from opts to logger."""
    user_data = ffi.cast("void *", _target_index(logger))
    call(lib.qy_client_options_set_log, opts, _LOG_CB, user_data, ffi.NULL)
