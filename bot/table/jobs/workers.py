"""Worker processes the event loop talks to over sockets, with no thread in between.

concurrent.futures' process pool hands every job through two threads of the bot's process (one that
pickles and writes, one that reads and wakes the loop): on two busy cores those hops cost ~2 ms a
picture and widened the slowest moves. Here the loop writes a job to an idle worker's socket itself
and reads the answer as it arrives (asyncio streams): a round trip is the pickling of a few kilobytes
each way and two process switches, and a big message (a log of 10,000 actions going out, a GIF coming
back) never blocks the loop while a worker, perhaps at a lower priority, is slow to take or give it.

Each worker is started with `spawn` (no forked event loop, database handle or thread) and runs its warm-up
once, or is forked warm by a zygote (`zygote=True`: bot.table.jobs.zygote, itself spawned); it then
answers jobs (a picklable function and its arguments) one at a time. A job's exception comes back and
is raised in the caller. A worker that dies is replaced; its job raises WorkerDied.

Every exchange has a deadline its caller fits to the work (a picture, a whole log). A worker that
hangs instead of dying (stopped, wedged) gives no answer by then: it is killed and replaced, and the
job raises WorkerHung, so no caller (nor the channel lock it holds) waits past its deadline (a long job
may wait in line for a worker first, up to a bound of its own: `call`'s `line`). Only a
warmed worker takes jobs: a new one joins the idle workers once it says it is ready, and one that
is not ready within WARM_SECONDS is replaced in turn.

A pool may start fewer workers than it may have (`start`), and grow on demand up to `count`: a process
costs tens of megabytes, so an idle bot keeps none it does not use. It also gives memory back (issue 39,
item 8): a worker idle for TRIM_SECONDS collects and returns its free heap to the system
(bot.table.jobs.memory.trim_memory); one idle for `idle_seconds` is stopped (the next job that finds
none starts one again); one grown past `max_mb` of proportional set size (its private pages and its
share of its zygote's, as it measures itself between jobs: SIZE_SECONDS) is replaced after its job. Closing
stops every worker at once (their sockets closed, then a shared short wait, stragglers killed), never
one after another.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import pickle
import signal
import socket
import struct
import time
from collections.abc import Callable, Coroutine
from multiprocessing.connection import Connection
from typing import Any

from bot.table.jobs.zygote import ForkedProcess, Zygote

log = logging.getLogger("pitboss.workers")


class _Ready:
    """A worker's first message: it is warm, this is its process id and its size (memory.pss_mb)."""

    def __init__(self, pid: int, size: float = 0.0):
        self.pid = pid
        self.size = size


WARM_SECONDS = 60.0   # how long a new worker may take to start and warm up before it is replaced
FORK_SECONDS = 10.0   # how long a zygote that already forked a worker may take to fork the next one
# A worker past its deadline that is still runnable and has had less CPU than the deadline is starved by
# a busy machine, not hung: it is given up to this many deadlines in all before it is killed.
STARVED_DEADLINES = 6.0
STARVED_POLL_SECONDS = 0.25
TRIM_SECONDS = 2.0    # a worker that has had no job for this long gives its free memory back
IDLE_ENV = "PITBOSS_WORKER_IDLE_SECONDS"
IDLE_SECONDS = 300.0  # by default a worker process with no job this long is stopped
# A worker measures its own size (memory.pss_mb: 2-7 ms for a render process of ~100 MB) after sending an
# answer, at most this often, and tells it with its next answer: the bot replaces one past its pool's max_mb.
# It measures in a lull (no job within SIZE_LULL_SECONDS of the answer), so a picture already on its way is
# not held behind the measure; a worker never in a lull measures at least every SIZE_MOST_SECONDS.
SIZE_SECONDS = 2.0
SIZE_LULL_SECONDS = 0.005
SIZE_MOST_SECONDS = 10.0


def setting(name: str, default: float) -> float:
    """A positive number from the environment variable `name`, or `default` when unset or not one."""
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def idle_seconds() -> float:
    """How long a worker process may wait for a job before it is stopped ($PITBOSS_WORKER_IDLE_SECONDS)."""
    return setting(IDLE_ENV, IDLE_SECONDS)


class WorkerDied(Exception):
    """The worker process ended (killed, out of memory) before it answered."""


class WorkerHung(WorkerDied):
    """No worker answered within the exchange's deadline: the one that hung was killed and replaced."""


class NoWorkerFree(WorkerHung):
    """A job waited its whole line (`call`'s `line`) and no worker was free: it never started."""


class NoneWarm(WorkerDied):
    """No worker is warm yet (all are starting), and the caller would rather not wait."""


def process_cpu(pid: int) -> tuple[str, float] | None:
    """A process's scheduler state letter and the CPU seconds it has used, from /proc (None elsewhere,
    or when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return _stat_cpu(stat.read())
    except OSError:
        return None


def _stat_cpu(stat: bytes) -> tuple[str, float]:
    """The state letter and CPU seconds in a /proc/PID/stat line."""
    fields = stat.rsplit(b")", 1)[1].split()
    return fields[0].decode(), (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


_CLOCK_TICKS = float(os.sysconf("SC_CLK_TCK")) if hasattr(os, "sysconf") else 100.0


def starved(now: tuple[str, float] | None, began_cpu: float | None, deadline: float) -> bool:
    """Whether a worker past its deadline is only starved of CPU: runnable (or in a disk wait) and with less
    CPU time for this job than the deadline. A stopped (T) or wedged (S) worker, or one that spent its
    deadline's worth of CPU, is hung; so is any worker where /proc is not there to tell."""
    if now is None or began_cpu is None:
        return False
    state, cpu = now
    return state in ("R", "D") and cpu - began_cpu < deadline


def _serve(conn: Connection, warm: Callable[[], None] | None) -> None:
    """A worker's life: warm up, say so, then answer jobs until the pipe closes. Ctrl-C in a terminal
    reaches the whole process group: the bot stops its workers itself, so they ignore it."""
    from bot.table.jobs.memory import pss_mb, trim_memory

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm is not None:
        warm()
    trim_memory()
    size, measured = pss_mb(), time.monotonic()
    try:
        conn.send(_Ready(os.getpid(), size))
    except OSError:   # the bot died (killed) while this worker warmed up: end quietly, no traceback
        return
    trimmed = True
    while True:
        try:
            if not trimmed and not conn.poll(TRIM_SECONDS):   # a lull: what the last jobs freed goes back
                trim_memory()
                size, measured = pss_mb(), time.monotonic()
            trimmed = True
            job, args = conn.recv()
            trimmed = False
        except (EOFError, OSError):
            return
        try:
            answer = (True, job(*args), size)
        except Exception as exc:  # the caller gets the job's own exception
            answer = (False, exc, size)
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:   # an answer that cannot travel
            conn.send((False, RuntimeError(f"a worker's answer could not be sent back: {exc}"), size))
        except OSError:   # the bot is gone: nobody waits for the answer
            return
        since = time.monotonic() - measured
        if since >= SIZE_SECONDS and (since >= SIZE_MOST_SECONDS or not conn.poll(SIZE_LULL_SECONDS)):
            size, measured = pss_mb(), time.monotonic()   # off the answer's path; told with the next one


class _Worker:
    """One worker process and the bot's end of its socket, read and written by the event loop: spawned
    and warmed by `warm`, or forked warm by `zygote`."""

    process: multiprocessing.process.BaseProcess | ForkedProcess

    def __init__(self, warm: Callable[[], None] | None, name: str, zygote: Zygote | None = None):
        if zygote is not None:
            self.sock, self.process = zygote.fork(name)
        else:
            self.sock, theirs = socket.socketpair()
            child = Connection(theirs.detach())   # the worker's end speaks multiprocessing's framing
            self.process = multiprocessing.get_context("spawn").Process(
                target=_serve, args=(child, warm), name=name, daemon=True)
            self.process.start()
            child.close()
        self.ready = False
        self.size = 0.0   # MB, as the worker last measured itself (memory.pss_mb)
        self.idle_since = time.monotonic()
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._stat: int | None = None   # its /proc/PID/stat, kept open (it is read at every job's start)
        self._closed = False   # hung up or killed: its /proc file is not opened again (its id may be reused)

    def cpu(self) -> tuple[str, float] | None:
        """process_cpu of this worker, read again from the file kept open: a third of the cost of opening it
        at every job (which a busy bot's loop paid with every picture); None when it is gone."""
        if self._closed:
            return None
        try:
            if self._stat is None:
                self._stat = os.open(f"/proc/{self.process.pid}/stat", os.O_RDONLY)
            return _stat_cpu(os.pread(self._stat, 1024, 0))
        except (OSError, IndexError):
            return None

    def open_writer(self) -> asyncio.StreamWriter | None:
        """The bot's end of the socket to write to, once its streams are open (streams), else None."""
        return self._streams[1] if self._streams is not None else None

    async def streams(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._streams is None:   # opened on first use, in the loop that uses them
            self._streams = await asyncio.open_connection(sock=self.sock)
        return self._streams

    def _close_socket(self) -> None:
        self._closed = True
        if self._stat is not None:
            os.close(self._stat)
            self._stat = None
        if self._streams is not None:
            self._streams[1].close()
        else:
            self.sock.close()

    def hang_up(self) -> None:
        """Close the bot's end: a waiting worker reads the end and exits; one still warming is told to end."""
        self._close_socket()
        if self.process.is_alive() and not self.ready:
            self.process.terminate()

    def kill(self) -> None:
        """End a worker that may be hung (stopped, wedged): killed at once, whatever it was doing."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=1.0)
        self._close_socket()


def _framed(message: Any) -> tuple[bytes, bytes]:
    """A message pickled, with its size in multiprocessing.Connection's framing (a 4-byte size, or -1 and an
    8-byte one) before it."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("!i", len(data)) if len(data) <= 0x7FFFFFFF else struct.pack("!iQ", -1, len(data)), data


async def _receive(reader: asyncio.StreamReader) -> Any:
    (size,) = struct.unpack("!i", await reader.readexactly(4))
    if size == -1:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    return pickle.loads(await reader.readexactly(size))


STOP_SECONDS = 0.5   # how long closing waits, for all the workers together, before it kills what is left


def stop_all(workers: list[_Worker], wait: float = STOP_SECONDS) -> None:
    """Stop `workers` together: every socket closed at once, one shared wait of `wait` seconds for them to
    exit, then whatever is left killed and reaped."""
    for worker in workers:
        worker.hang_up()
    end = time.monotonic() + wait
    for worker in workers:
        worker.process.join(timeout=max(0.0, end - time.monotonic()))
    for worker in workers:
        if worker.process.is_alive():
            worker.kill()


class ProcessWorkers:
    """Up to `count` worker processes, each warmed by `warm` (a picklable function) before its first job;
    `start` of them (all by default) started now, the others when the work asks for them (grow)."""

    def __init__(self, count: int, warm: Callable[[], None] | None = None, name: str = "pitboss-worker",
                 warm_seconds: float = WARM_SECONDS, start: int | None = None,
                 idle_seconds: float | None = None, max_mb: float | None = None, zygote: bool = False):
        self.count = count
        # zygote: `warm` runs once, in a zygote that forks every worker warm (bot.table.jobs.zygote); it is
        # stopped with the last worker (an idle pool holds no process) and started again by the next one
        self.zygote = Zygote(warm, f"{name}-zygote", _serve) if zygote else None
        self.idle_seconds = idle_seconds   # a worker idle this long is stopped (None: never)
        self.max_mb = max_mb               # a worker past this PSS (MB) is replaced after its job
        self.retired = 0                   # workers stopped for idling or for their size, so far
        self._reaper: asyncio.Task | None = None
        self._warm = warm
        self._warm_seconds = warm_seconds
        self._name = name
        self._workers = [self._new(f"{name}-{i}") for i in range(count if start is None else min(start, count))]
        self._idle: asyncio.LifoQueue | None = None
        self._became_ready = asyncio.Event()   # bound to a loop only when first awaited
        self._starting: set[asyncio.Task] = set()
        self._failed_starts = 0
        self._busy = 0   # workers out on a job
        self._waiting = 0   # jobs waiting for an idle worker

    def _new(self, name: str) -> _Worker:
        """A new worker: forked by the zygote when the pool has one, else spawned to warm itself."""
        return _Worker(self._warm, name, self.zygote)

    def _queue(self) -> asyncio.LifoQueue:
        if self._idle is None:   # made on first use, inside the loop that will use it
            # the worker that finished last goes first: when few jobs come, one worker does them all
            # and its caches (word masks, sprites) stay warm; under load every worker is busy anyway
            self._idle = asyncio.LifoQueue()
            for worker in self._workers:
                self._await_ready(worker)
            if self.idle_seconds is not None:
                self._reaper = asyncio.ensure_future(self._reap_idle())
        return self._idle

    async def _reap_idle(self) -> None:
        """Every so often, stop the workers idle for idle_seconds."""
        assert self.idle_seconds is not None
        while True:
            await asyncio.sleep(max(0.05, min(30.0, self.idle_seconds / 4)))
            self.retire_idle()
            if self.zygote is not None:
                self.zygote.reap()

    def retire_idle(self, now: float | None = None) -> int:
        """Stop every worker waiting for a job since idle_seconds ago or longer; how many were stopped. The
        next job that finds none idle starts one again."""
        if self.idle_seconds is None or self._idle is None:
            return 0
        now = time.monotonic() if now is None else now
        waiting = [self._idle.get_nowait() for _ in range(self._idle.qsize())]
        stale = [w for w in waiting if now - w.idle_since >= self.idle_seconds]
        for worker in reversed(waiting):   # back in their order: the last to finish is taken first
            if worker not in stale:
                self._idle.put_nowait(worker)
        for worker in stale:
            self._retire(worker)
        if stale and not self._workers and self.zygote is not None:
            self.zygote.stop()   # an idle pool holds no process: the next worker starts it again
        return len(stale)

    def _retire(self, worker: _Worker) -> None:
        """Stop a worker that is not on a job, and forget it: told to end now, reaped (or killed) later,
        off the loop's path."""
        self._workers.remove(worker)
        self.retired += 1
        worker.hang_up()
        task = asyncio.ensure_future(self._reap(worker))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    @staticmethod
    async def _reap(worker: _Worker) -> None:
        end = time.monotonic() + STOP_SECONDS
        while worker.process.is_alive() and time.monotonic() < end:
            await asyncio.sleep(0.02)
        worker.kill()   # reaps it (and kills it first if it still runs)

    def _await_ready(self, worker: _Worker, pause: float = 0.0) -> None:
        """Let `worker` join the idle ones once it says it is ready (after `pause`, for a replacement of
        one that would not start)."""
        task = asyncio.ensure_future(self._ready(worker, pause))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _ready(self, worker: _Worker, pause: float) -> None:
        if pause:
            await asyncio.sleep(pause)
        forked = worker.process if self.zygote is not None and isinstance(worker.process, ForkedProcess) else None
        # a zygote that forked a worker before is warm: a fork it does not answer soon means it is wedged
        proven = forked is not None and self.zygote is not None and self.zygote.proven(forked)
        limit = min(FORK_SECONDS, self._warm_seconds) if proven else self._warm_seconds
        try:
            await asyncio.wait_for(self._answer(worker), limit)
        except (TimeoutError, WorkerDied):
            self._failed_starts += 1
            log.warning("worker process %s did not start within %.0f s; starting another",
                        worker.process.name, limit)
            if forked is not None and self.zygote is not None:
                self.zygote.failed(forked)
            self._replace(worker, pause=min(60.0, 2.0 ** self._failed_starts))
            return
        if forked is not None and self.zygote is not None:
            self.zygote.answered(forked)
        self._failed_starts = 0
        worker.idle_since = time.monotonic()
        self._queue().put_nowait(worker)
        self._became_ready.set()

    def grow(self) -> bool:
        """Start one more worker, when fewer than `count` run and none is still starting; whether one was."""
        if len(self._workers) >= self.count or any(not w.ready for w in self._workers):
            return False
        worker = self._new(f"{self._name}-{len(self._workers)}")
        self._workers.append(worker)
        if self._idle is not None:   # else _queue() awaits it with the others
            self._await_ready(worker)
        return True

    @property
    def started(self) -> int:
        """How many workers run now (warm or warming)."""
        return len(self._workers)

    async def warm(self, every: bool = False) -> None:
        """Wait until every running worker has warmed up (at most WARM_SECONDS for each start); `every`:
        start the ones not yet started first, up to `count`."""
        while every and len(self._workers) < self.count:
            self._workers.append(self._new(f"{self._name}-{len(self._workers)}"))
            if self._idle is not None:
                self._await_ready(self._workers[-1])
        self._queue()
        loop = asyncio.get_running_loop()
        end = loop.time() + self._warm_seconds
        while not all(worker.ready for worker in self._workers) and loop.time() < end:
            self._became_ready.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._became_ready.wait(), end - loop.time())

    async def call(self, job: Callable[..., Any], *args: Any, deadline: float, only_warm: bool = False,
                   line: float | None = None) -> Any:
        """`job(*args)` on the next idle worker, within `deadline` seconds in all (the wait for a worker
        included); its exception is raised here. WorkerDied when the worker died meanwhile, WorkerHung
        when no worker was free, or the one taken gave no answer in time (it is killed and replaced):
        either way nothing of the job's result is used. `only_warm`: NoneWarm at once rather
        than wait while no worker is warm yet (the caller has another way, as a picture its thread).
        With `line`, the job waits in line for a free worker up to `line` seconds, and its `deadline`
        counts from when a worker takes it: the jobs ahead are each watched by their own deadline, so a
        job that only waited has not hung (a long job behind two others on a slow machine was refused as
        "did not finish in time" before it started)."""
        loop = asyncio.get_running_loop()
        framed = _framed((job, args))   # a job that cannot be pickled raises here, before a worker is taken
        idle = self._queue()
        if idle.empty() and not self._busy:   # none warm yet: starting, or not started
            if only_warm:
                raise NoneWarm("no worker is warm yet")
            self.grow()
            await self.warm()   # a first start's warm-up does not count against the job's deadline
        end = loop.time() + deadline
        waits = deadline if line is None else line
        try:   # an idle worker taken at once (most pictures): no task and timer for a wait that never comes
            # (only when no job waits already: a job that waits keeps its place in the line)
            if not idle.empty() and not self._waiting:
                worker = idle.get_nowait()
            else:
                self._waiting += 1
                try:
                    worker = await asyncio.wait_for(idle.get(), waits)
                finally:
                    self._waiting -= 1
        except TimeoutError:
            refused = WorkerHung if line is None else NoWorkerFree
            raise refused(f"no worker was free within {waits:.1f} s") from None
        if line is not None:
            end = loop.time() + deadline
        return await self._sent_to(worker, framed, end, deadline)

    def call_now(self, job: Callable[..., Any], *args: Any, deadline: float) -> asyncio.Future | None:
        """call(), the job written to an idle worker before this returns, with no turn of the event loop
        first: a picture started while its move is written is on its way before the write's first step
        (else it waited for the move's own work up to its first wait: 0.6 ms of a 5 ms move). None when no
        worker is idle with its socket open, or a job waits already (call() then); a job that cannot be
        pickled raises here, and no worker is taken."""
        idle = self._queue()
        if idle.empty() or self._waiting:
            return None
        framed = _framed((job, args))
        worker = idle.get_nowait()
        writer = worker.open_writer()
        if writer is None:   # not used yet: its streams are opened on the loop (call)
            idle.put_nowait(worker)   # back on top, as it was
            return None
        answer = self._sent_to(worker, None, asyncio.get_running_loop().time() + deadline, deadline)
        writer.writelines(framed)   # before the exchange's task first runs: it only drains
        return asyncio.ensure_future(answer)

    def _sent_to(self, worker: _Worker, framed: tuple[bytes, bytes] | None, end: float,
                 deadline: float) -> Coroutine[Any, Any, Any]:
        """The answer of a job to `worker`, taken for it (_answered), its CPU read as the job starts and its
        exchange begun (`framed` written by it, or None: written by the caller before the loop turns)."""
        began = worker.cpu() if worker.process.pid is not None else None
        self._busy += 1
        exchange = asyncio.ensure_future(self._exchange(worker, framed))
        exchange.add_done_callback(lambda done: done.cancelled() or done.exception())
        return self._answered(worker, exchange, end, deadline, began)

    async def _answered(self, worker: _Worker, exchange: asyncio.Future, end: float, deadline: float,
                        began: tuple[str, float] | None) -> Any:
        """The answer of `exchange` with `worker` by loop time `end`; a worker past it that is only starved of
        CPU (`began`: its CPU as the job started) is given more, one that is hung is killed (WorkerHung)."""
        loop = asyncio.get_running_loop()
        # shielded: a caller that gives up (cancelled) does not stop the exchange, whose answer
        # is still read before the worker takes another job
        answer = asyncio.shield(exchange)
        try:
            done, _ = await asyncio.wait([answer], timeout=max(0.0, end - loop.time()))
            last_chance = end + (STARVED_DEADLINES - 1) * deadline
            while not done and loop.time() < last_chance and starved(
                    worker.cpu(), began[1] if began else None, deadline):
                done, _ = await asyncio.wait([answer], timeout=STARVED_POLL_SECONDS)
        finally:
            if not answer.done():
                answer.cancel()   # the exchange itself goes on (shielded) and its end is read by its callback
        if not done:
            log.warning("worker process %s gave no answer within %.1f s; killing it", worker.process.name, deadline)
            worker.kill()   # the exchange then ends as WorkerDied and replaces it
            raise WorkerHung(f"{worker.process.name} gave no answer within {deadline:.1f} s") from None
        ok, value = answer.result()
        if not ok:
            raise value
        return value

    async def _exchange(self, worker: _Worker, framed: tuple[bytes, bytes] | None) -> tuple[bool, Any]:
        """Send the job to `worker` (`framed`, or None: written already, call_now) and read its answer."""
        try:
            try:
                writer = (await worker.streams())[1]
                if framed is not None:
                    writer.writelines(framed)
                await writer.drain()   # a big job goes out as the worker takes it; the loop runs on meanwhile
            except (ConnectionError, OSError) as exc:   # the socket broke under us
                raise WorkerDied(str(exc)) from None
            ok, value, worker.size = await self._answer(worker)
            answer = (ok, value)
        except WorkerDied:
            log.warning("worker process %s died; starting a new one", worker.process.name)
            self._replace(worker)
            raise
        finally:
            self._busy -= 1
        if self.max_mb is not None and worker.size > self.max_mb:
            log.info("worker process %s holds %.0f MB, over %.0f MB (proportional set size); starting a fresh one",
                     worker.process.name, worker.size, self.max_mb)
            self._retire(worker)
            self.grow()
            return answer
        worker.idle_since = time.monotonic()
        self._queue().put_nowait(worker)
        return answer

    def _replace(self, dead: _Worker, pause: float = 0.0) -> None:
        """A new worker in a dead (or killed) one's place; it takes jobs once it is warm."""
        dead.kill()
        worker = self._new(dead.process.name)
        self._workers = [worker if w is dead else w for w in self._workers]
        self._await_ready(worker, pause)

    async def _answer(self, worker: _Worker) -> Any:
        """The worker's next message, read as it arrives (the loop runs on meanwhile)."""
        try:
            message = await _receive((await worker.streams())[0])
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            raise WorkerDied(worker.process.name) from None
        if isinstance(message, _Ready):
            worker.ready = True
            worker.size = message.size
            if isinstance(worker.process, ForkedProcess):
                worker.process.started(message.pid)
        return message

    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [pid for w in self._workers if (pid := w.process.pid) is not None]

    def close(self) -> None:
        """Stop every worker together (a job in flight is abandoned)."""
        for task in list(self._starting):
            task.cancel()
        if self._reaper is not None:
            self._reaper.cancel()
        stop_all(self._workers)
        if self.zygote is not None:
            self.zygote.stop()
