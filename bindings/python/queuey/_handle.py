"""The owner of one C handle: freed by close() (or leaving a with block), and by the
garbage collector when the Python object goes away unclosed."""
from __future__ import annotations

from types import TracebackType
from typing import Any, Callable, TypeVar

from ._ffi import ffi
from .errors import closed

_Self = TypeVar("_Self", bound="Handle")


class Handle:
    _what = "handle"

    def __init__(self, ptr: Any, free: Callable[[Any], None]) -> None:
        self._ptr: Any = ffi.gc(ptr, free)

    @property
    def _p(self) -> Any:
        """The live pointer; raises ClosedError once closed."""
        if self._ptr is None:
            raise closed(self._what)
        return self._ptr

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def close(self) -> None:
        """Frees the C object now. Idempotent."""
        ptr, self._ptr = self._ptr, None
        if ptr is not None:
            ffi.release(ptr)

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
