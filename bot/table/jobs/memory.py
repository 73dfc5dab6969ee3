"""A long-running process's memory: settled once it has started (what start-up loaded is moved out of
the garbage collector's way), and given back to the system after a burst of work."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import os
from collections.abc import Callable
from typing import Any

ARENAS_ENV = "MALLOC_ARENA_MAX"
ARENAS = 2            # malloc heaps a long-running bot's threads share (glibc's default: 8 a core)
_M_ARENA_MAX = -8     # mallopt's parameter number for it (glibc's malloc.h)


def settle_memory() -> None:
    """Collect once, then freeze what survives, so a later full collection no longer walks every
    start-up object (a 12-15 ms pause about every 1,000 moves, by issue 16's study)."""
    gc.collect()
    gc.freeze()


def pss_mb(pid: int | str = "self",
           keys: tuple[tuple[str, str], ...] = (("smaps_rollup", "Pss:"), ("status", "VmRSS:"))) -> float:
    """A process's proportional set size in MB (/proc/PID/smaps_rollup; this one's by default): its private
    pages, and its share of the pages it shares (a forked render process's share of its zygote's); its
    resident size where the kernel shows no PSS, 0 where neither is shown (or the process is gone). A few
    milliseconds of the kernel's time for a process of a hundred MB: read it off any caller's path."""
    for name, key in keys:
        try:
            with open(f"/proc/{pid}/{name}", encoding="ascii", errors="replace") as status:
                for line in status:
                    if line.startswith(key):
                        return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            continue
    return 0.0


_PAGE_MB = (os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096) / 2 ** 20


def resident_mb(pid: int | str = "self") -> float:
    """A process's resident memory in MB (this one's by default), from statm's one short line (0 where it cannot
    be read): shared pages counted whole, where pss_mb counts a share of them."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE_MB
    except (OSError, ValueError, IndexError):
        return 0.0


def children(pid: int) -> list[int]:
    """Every descendant of `pid` (children, their children, ...), read from /proc/*/stat (none without /proc)."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                ppid = int(stat.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


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


_ENDED_TRACKERS: list[int] = []   # resource trackers told to end, not reaped yet


def stop_idle_tracker() -> bool:
    """Stop multiprocessing's resource tracker once it is this process's only descendant (every render and
    long-job process stopped); whether it was. `spawn` starts it with the first worker and keeps it for
    the process's life: a whole interpreter, 7 MB of an idle bot's 150 (issue 39, item 8), watching for
    semaphores and shared memory the bot's workers never make (they talk over sockets). The next spawn
    starts it again. Trackers told to end before are reaped here too."""
    from multiprocessing import resource_tracker

    for pid in list(_ENDED_TRACKERS):
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue
        _ENDED_TRACKERS.remove(pid)
    tracker: Any = resource_tracker._resource_tracker   # its state is private (typeshed does not show it)
    with tracker._lock:
        fd, pid = tracker._fd, tracker._pid
        if fd is None or pid is None or children(os.getpid()) != [pid]:
            return False
        os.close(fd)   # its end of the pipe: the tracker reads to its end and exits
        tracker._fd = tracker._pid = None
    _ENDED_TRACKERS.append(pid)
    return True
