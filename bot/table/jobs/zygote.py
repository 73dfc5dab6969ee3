"""A warm parent that forks render processes: the drawing warmed once, shared copy-on-write (issue 39, item 8).

A render process warmed on its own holds every layer, font and palette of the drawing by itself (60 MB
warm, 155 MB once it has drawn every game, close-up and sheet). Here one process, the zygote, is started
(`spawn`, before it has any thread), warms the drawing and draws a few pictures of every game so the
layers they share are built, freezes what it holds out of the garbage collector's way (gc.freeze: a
collection in a child then writes to none of those objects' pages), and forks each render process on
request. A child starts warm at once and its pages stay the zygote's until written: Pillow's pixels are
only read by later pictures, so each process's proportional set size counts its share of them and what
it drew itself.

The bot asks for a child by sending one end of a new socket pair (SCM_RIGHTS) over a sequenced-packet
socket; the child speaks the worker protocol of bot.table.jobs.workers on it and tells its process id
in its first message, from which the bot opens a pidfd (a handle no reused id can fool) to watch and
signal it. The zygote reaps its children. It ends when the bot hangs up (or dies), after reaping what
is left. A zygote that died is started again by the next request. Linux only (pidfd, fork); elsewhere
the render processes are spawned and warm themselves (`available`).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import select
import signal
import socket
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection

REAP_SECONDS = 1.0   # how often the zygote reaps its ended children while no request comes
STOP_SECONDS = 5.0   # a zygote told to end that still runs after this long is killed


def available() -> bool:
    """Whether render processes can be forked from a zygote here (Linux 5.3 or later: fork, pidfd, fd
    passing; a container's seccomp profile may refuse pidfd_open, which is tried)."""
    if not (hasattr(os, "pidfd_open") and hasattr(signal, "pidfd_send_signal") and hasattr(socket, "send_fds")
            and "fork" in multiprocessing.get_all_start_methods()):
        return False
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError:
        return False
    return True


class ForkedProcess:
    """A render process forked by the zygote, as the worker pool sees a process: its name, its id once it
    has told it (`started`), whether it is alive, and a way to wait for it and signal it (by pidfd)."""

    def __init__(self, name: str, generation: int = 0):
        self.name = name
        self.generation = generation   # which start of the zygote forked it (Zygote.starts)
        self.pid: int | None = None
        self._pidfd: int | None = None
        self._gone = False

    def started(self, pid: int) -> None:
        """The child has told its id (in its first message, so it is alive and not reaped yet)."""
        self.pid = pid
        try:
            self._pidfd = os.pidfd_open(pid)
        except OSError:
            self._gone = True

    def is_alive(self) -> bool:
        """Alive as far as can be told (a child that has not told its id yet counts as alive: closing its
        socket ends it)."""
        if self._pidfd is None:
            return not self._gone
        return not select.select([self._pidfd], [], [], 0)[0]

    def join(self, timeout: float | None = None) -> None:
        """Wait at most `timeout` seconds for it to end."""
        if self._pidfd is not None:
            select.select([self._pidfd], [], [], timeout)

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def _signal(self, number: int) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, number)

    def __del__(self) -> None:
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)


class Zygote:
    """The bot's end of a zygote: started by the first `fork`, warmed by `warm` (a picklable function),
    stopped by `stop` (and started again by the next fork). Each child runs `serve` (a picklable function)
    on its end of the socket: bot.table.jobs.workers' worker loop."""

    def __init__(self, warm: Callable[[], None] | None, name: str, serve: Callable[[Connection, None], None]):
        self._warm = warm
        self._serve = serve
        self._name = name
        self._sock: socket.socket | None = None
        self.process: multiprocessing.process.BaseProcess | None = None
        self.starts = 0   # how many zygote processes were started so far
        self._proven = 0   # the latest start whose zygote forked a child that answered (so it is warm)
        self._ending: list[tuple[multiprocessing.process.BaseProcess, float]] = []   # stopped, maybe not reaped yet

    def _start(self) -> None:
        self.stop()
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = multiprocessing.get_context("spawn").Process(
            target=_zygote, args=(Connection(theirs.detach()), self._warm, self._serve), name=self._name, daemon=True)
        self.process.start()
        self.starts += 1

    @property
    def pid(self) -> int | None:
        """The zygote's process id while it runs."""
        return self.process.pid if self.process is not None and self.process.is_alive() else None

    def fork(self, name: str) -> tuple[socket.socket, ForkedProcess]:
        """A new child named `name`: the bot's end of its socket, and its process. The zygote (started now
        if it is not running) forks it as soon as it is warm; the child says so on the socket. If the
        request cannot reach the zygote, the socket is closed at the other end at once: the pool sees a
        worker that died starting, and tries again (starting a new zygote)."""
        if self.process is None or not self.process.is_alive():
            self._start()
        assert self._sock is not None
        ours, theirs = socket.socketpair()
        try:
            socket.send_fds(self._sock, [name.encode()], [theirs.fileno()])
        except OSError:
            pass
        finally:
            theirs.close()
        return ours, ForkedProcess(name, self.starts)

    def answered(self, child: ForkedProcess) -> None:
        """A child started and answered: the zygote that forked it is warm."""
        self._proven = max(self._proven, child.generation)

    def proven(self, child: ForkedProcess) -> bool:
        """Whether the zygote that is to fork `child` has forked one that answered before (it is warm, so a
        fork takes it milliseconds)."""
        return child.generation == self._proven

    def failed(self, child: ForkedProcess) -> None:
        """A child did not start (not forked, or not warm, in time): if the zygote running now was to fork
        it, it hangs (stopped, or wedged), so it is killed (and the next fork starts another)."""
        if child.generation == self.starts and self.process is not None:
            self.process.kill()
            self.process.join(timeout=1.0)   # killed: reaped at once, not left a zombie until the next reap
            self.stop()

    def stop(self) -> None:
        """Hang up: the zygote reaps what children are left and ends (its children end as the pool closes
        their sockets); `reap` collects it once it has."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self.process is not None:
            self._ending.append((self.process, time.monotonic() + STOP_SECONDS))
            self.process = None
        self.reap()

    def reap(self) -> None:
        """Reap the stopped zygotes that have ended, without waiting; kill one still running STOP_SECONDS
        after it was told to end."""
        for process, deadline in list(self._ending):
            if process.is_alive() and time.monotonic() >= deadline:
                process.kill()
            process.join(timeout=0)
            if not process.is_alive():
                self._ending.remove((process, deadline))


def _zygote(conn: Connection, warm: Callable[[], None] | None, serve: Callable[[Connection, None], None]) -> None:
    """The zygote's life: warm, settle (collect, freeze, trim), then fork a child for each request until
    the bot hangs up; reap children all along."""
    from bot.table.jobs.memory import trim_memory

    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C reaches the process group: the bot stops us
    sock = socket.socket(fileno=os.dup(conn.fileno()))
    conn.close()
    if warm is not None:
        warm()
    gc.collect()
    gc.freeze()   # the children's collections never walk (nor write to) what the zygote made
    trim_memory(collect=False)
    if threading.active_count() != 1:   # fork is safe only from a single thread
        raise RuntimeError("the render zygote has threads; it will not fork")
    while True:
        ready = select.select([sock], [], [], REAP_SECONDS)[0]
        _reap()
        if not ready:
            continue
        try:
            message, fds, _flags, _address = socket.recv_fds(sock, 256, 1)
        except OSError:
            break
        if not message:
            break   # the bot hung up
        if not fds:
            continue
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(serve, fds[0], message.decode(errors="replace"))
        os.close(fds[0])
    sock.close()
    end = time.monotonic() + 1.0
    while _reap() and time.monotonic() < end:
        time.sleep(0.02)


def _reap() -> bool:
    """Reap every ended child; whether any child is still running."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


def _child(serve: Callable[[Connection, None], None], fd: int, name: str) -> None:
    """A forked render process: serve jobs on socket `fd` (warm already: nothing to warm), then end without
    running the zygote's exit handlers."""
    code = 1
    try:
        multiprocessing.current_process().name = name
        serve(Connection(fd), None)
        code = 0
    except Exception:
        traceback.print_exc()
    finally:
        os._exit(code)
