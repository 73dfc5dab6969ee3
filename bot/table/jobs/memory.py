"""A long-running process's memory: settled once it has started (what start-up loaded is moved out of
the garbage collector's way), and given back to the system after a burst of work."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable


def settle_memory() -> None:
    """Collect once, then freeze what survives, so a later full collection no longer walks every
    start-up object (a 12-15 ms pause about every 1,000 moves, by issue 16's study)."""
    gc.collect()
    gc.freeze()


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None elsewhere (musl, macOS): it returns the free pages of every malloc
    heap to the system, which glibc otherwise keeps for the process's next peak."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):
        return None


MALLOC_TRIM = _malloc_trim()


def trim_memory(collect: bool = True) -> None:
    """Give back what the last work freed: a full collection (unless not `collect`), then (on glibc) every
    free page of the heap. A few milliseconds: call it in a lull, never on a command's path (malloc_trim
    itself lets other threads run: ctypes releases the GIL)."""
    if collect:
        gc.collect()
    if MALLOC_TRIM is not None:
        MALLOC_TRIM(0)
