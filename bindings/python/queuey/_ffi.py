"""Loads libqueuey and turns its status codes into exceptions.

The library is looked up, in order, at QUEUEY_LIBRARY (a path, or a bare libqueuey.so.0
for the system's loader), next to this file (where `pip install <repository>` puts the
library it builds), in the directories that pkg-config reports for queuey, and by the
system's loader (libqueuey.so.0).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

import cffi  # type: ignore[import-untyped, unused-ignore]

from ._cdef import CDEF
from .errors import error_for

ffi = cffi.FFI()
ffi.cdef(CDEF)

SONAME = "libqueuey.so.0"
# The library that the wheel ships, beside the package's sources (meson.build).
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)), SONAME)


def _pkg_config(*args: str) -> str:
    found = subprocess.run(["pkg-config", *args, "queuey"], capture_output=True, text=True,
                           check=False)
    return found.stdout.strip() if found.returncode == 0 else ""


def _pkg_config_dirs() -> list[str]:
    """libdir, then the -L directories (those of queuey-uninstalled.pc, whose libdir
    names where the library would be installed)."""
    if shutil.which("pkg-config") is None:
        return []
    dirs = [_pkg_config("--variable=libdir")]
    dirs += [flag[2:] for flag in _pkg_config("--libs-only-L").split()]
    return [d for d in dict.fromkeys(dirs) if d]


def _candidates() -> list[str]:
    explicit = os.environ.get("QUEUEY_LIBRARY")
    if explicit:
        return [explicit]  # a wrong path is an error, not a reason to load another library
    found = [os.path.join(d, SONAME) for d in _pkg_config_dirs()]
    return [BUNDLED] + [path for path in found if os.path.exists(path)] + [SONAME]


def _load_error(tried: list[str]) -> ImportError:
    """What to do, then each candidate with dlopen's reason (a library that is there but
    lacks librabbitmq.so.4 says so)."""
    return ImportError(
        "queuey: cannot load libqueuey. Install queuey with the library inside it: "
        "pip install PATH, PATH a checkout of the queuey repository (its pyproject.toml "
        "builds libqueuey into the package); or set QUEUEY_LIBRARY to the path of a "
        "libqueuey.so.0 (libqueuey.so.0 alone: the system's). Tried: " + "; ".join(tried))


def _load() -> Any:
    tried = []
    for candidate in _candidates():
        try:
            return ffi.dlopen(candidate)
        except OSError as e:
            tried.append(f"{candidate}: {e}")
    raise _load_error(tried)


lib = _load()


def new_err() -> Any:
    """A `qy_error **` for the last parameter of a fallible call."""
    return ffi.new("qy_error **")


def check(status: int, err: Any) -> None:
    """Raises the QueueyError of a failed call (and frees its error object)."""
    if status == lib.QY_OK:
        return
    e = err[0]
    try:
        if e == ffi.NULL:
            raise error_for(status, ffi.string(lib.qy_status_name(status)).decode(), None)
        field = lib.qy_error_field(e)
        raise error_for(status, ffi.string(lib.qy_error_message(e)).decode("utf-8", "replace"),
                        ffi.string(field).decode() if field != ffi.NULL else None)
    finally:
        lib.qy_error_free(e)
        err[0] = ffi.NULL


def call(fn: Any, *args: Any) -> None:
    """Calls a fallible function with an error out parameter appended; raises on failure."""
    err = new_err()
    check(fn(*args, err), err)


def call_for_bytes(fn: Any, *args: Any) -> bytes:
    """The buffer that fn(*args, &out, &out_len, &err) hands out, copied, then freed
    (qy_string_free); raises on failure."""
    out, out_len = ffi.new("char **"), ffi.new("size_t *")
    call(fn, *args, out, out_len)
    try:
        return bytes(ffi.unpack(out[0], out_len[0]))
    finally:
        lib.qy_string_free(out[0])


def string(ptr: Any, errors: str = "strict") -> str | None:
    """A borrowed `const char *` as str, None for NULL; errors as for bytes.decode."""
    return None if ptr == ffi.NULL else ffi.string(ptr).decode("utf-8", errors)
