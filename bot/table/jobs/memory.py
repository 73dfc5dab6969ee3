"""A long-running process's memory: settled once it has started (what start-up loaded is moved out of
the garbage collector's way), and given back to the system after a burst of work."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from collections.abc import Callable

ARENAS_ENV = "MALLOC_ARENA_MAX"
ARENAS = 2            # malloc heaps a long-running bot's threads share (glibc's default: 8 a core)
_M_ARENA_MAX = -8     # mallopt's parameter number for it (glibc's malloc.h)


def settle_memory() -> None:
    """Collect once, then freeze what survives, so a later full collection no longer walks every
    start-up object (a 12-15 ms pause about every 1,000 moves, by issue 16's study)."""
    gc.collect()
    gc.freeze()


def own_size_mb() -> float:
    """This process's proportional set size in MB (/proc/self/smaps_rollup): its private pages, and its share
    of the pages it shares (a forked render process's share of its zygote's); its resident size where the
    kernel shows no PSS, 0 where neither is shown. A few milliseconds of the kernel's time for a process of a
    hundred MB: read it off any caller's path."""
    for name, key in (("smaps_rollup", b"Pss:"), ("status", b"VmRSS:")):
        try:
            with open(f"/proc/self/{name}", "rb") as status:
                for line in status:
                    if line.startswith(key):
                        return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return 0.0


def _libc(name: str) -> Callable[..., int] | None:
    """A function of glibc, or None elsewhere (musl, macOS)."""
    try:
        return getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None


# malloc_trim returns the free pages of every malloc heap to the system, which glibc otherwise keeps
# for the process's next peak.
MALLOC_TRIM = _libc("malloc_trim")
MALLOPT = _libc("mallopt")


def limit_arenas() -> bool:
    """Have this process's threads share ARENAS malloc heaps (unless $MALLOC_ARENA_MAX says otherwise,
    which glibc then reads itself); whether the limit was set. Call it first thing, before any thread
    starts: glibc fixes the number the first time a thread needs a heap of its own. Each render thread,
    the database's thread and asyncio's helpers otherwise get one, and what a burst leaves in each is
    not all given back: the bench's process held 140 MB ten minutes after its load with glibc's
    default, 113 MB with two (issue 39, item 8)."""
    if MALLOPT is None or os.environ.get(ARENAS_ENV, "").strip():
        return False
    return bool(MALLOPT(_M_ARENA_MAX, ARENAS))


def trim_memory(collect: bool = True) -> None:
    """Give back what the last work freed: a full collection (unless not `collect`), then (on glibc) every
    free page of the heap. A few milliseconds: call it in a lull, never on a command's path (malloc_trim
    itself lets other threads run: ctypes releases the GIL)."""
    if collect:
        gc.collect()
    if MALLOC_TRIM is not None:
        MALLOC_TRIM(0)
