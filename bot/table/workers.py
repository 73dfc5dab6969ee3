"""Worker processes the event loop talks to over sockets, with no thread in between.

concurrent.futures' process pool hands every job through two threads of the bot's process (one that
pickles and writes, one that reads and wakes the loop): on two busy cores those hops cost ~2 ms a
picture and widened the slowest moves. Here the loop writes a job to an idle worker's socket itself
and reads the answer as it arrives (asyncio streams): a round trip is the pickling of a few kilobytes
each way and two process switches, and a big message (a log of 10,000 actions going out, a GIF coming
back) never blocks the loop while a worker, perhaps at a lower priority, is slow to take or give it.

Each worker is started with `spawn` (no forked event loop, database handle or thread), runs its warm-up
once, then answers jobs (a picklable function and its arguments) one at a time. A job's exception
comes back and is raised in the caller. A worker that dies is replaced; its job raises WorkerDied.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import pickle
import socket
import struct
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger("pitboss.workers")

_READY = "ready"


class WorkerDied(Exception):
    """The worker process ended (killed, out of memory) before it answered."""


def _serve(conn: Connection, warm: Callable[[], None] | None) -> None:
    """A worker's life: warm up, say so, then answer jobs until the pipe closes."""
    if warm is not None:
        warm()
    conn.send(_READY)
    while True:
        try:
            job, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer = (True, job(*args))
        except Exception as exc:  # the caller gets the job's own exception
            answer = (False, exc)
        try:
            conn.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:   # an answer that cannot travel
            conn.send((False, RuntimeError(f"a worker's answer could not be sent back: {exc}")))


class _Worker:
    """One worker process and the bot's end of its socket, read and written by the event loop."""

    def __init__(self, warm: Callable[[], None] | None, name: str):
        self.sock, theirs = socket.socketpair()
        child = Connection(theirs.detach())   # the worker's end speaks multiprocessing's framing
        self.process = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(child, warm), name=name, daemon=True)
        self.process.start()
        child.close()
        self.ready = False
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def streams(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._streams is None:   # opened on first use, in the loop that uses them
            self._streams = await asyncio.open_connection(sock=self.sock)
        return self._streams

    def stop(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
        else:
            self.sock.close()
        self.process.join(timeout=0.5)
        if self.process.is_alive():
            self.process.kill()


async def _send(writer: asyncio.StreamWriter, message: Any) -> None:
    """A message in multiprocessing.Connection's framing (a 4-byte size, or -1 and an 8-byte one)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    writer.write(struct.pack("!i", len(data)) if len(data) <= 0x7FFFFFFF else struct.pack("!iQ", -1, len(data)))
    writer.write(data)
    await writer.drain()   # a big message goes out as the worker takes it; the loop runs on meanwhile


async def _receive(reader: asyncio.StreamReader) -> Any:
    (size,) = struct.unpack("!i", await reader.readexactly(4))
    if size == -1:
        (size,) = struct.unpack("!Q", await reader.readexactly(8))
    return pickle.loads(await reader.readexactly(size))


class ProcessWorkers:
    """`count` worker processes, each warmed by `warm` (a picklable function) before its first job."""

    def __init__(self, count: int, warm: Callable[[], None] | None = None, name: str = "pitboss-worker"):
        self.count = count
        self._warm = warm
        self._workers = [_Worker(warm, f"{name}-{i}") for i in range(count)]
        self._idle: asyncio.LifoQueue | None = None

    def _queue(self) -> asyncio.LifoQueue:
        if self._idle is None:   # made on first use, inside the loop that will use it
            # the worker that finished last goes first: when few jobs come, one worker does them all
            # and its caches (word masks, sprites) stay warm; under load every worker is busy anyway
            self._idle = asyncio.LifoQueue()
            for worker in self._workers:
                self._idle.put_nowait(worker)
        return self._idle

    async def warm(self) -> None:
        """Wait until every worker has warmed up."""
        taken = [await self._queue().get() for _ in range(self.count)]
        try:
            for worker in taken:
                if not worker.ready:
                    await self._answer(worker)
        finally:
            for worker in taken:
                self._queue().put_nowait(worker)

    async def call(self, job: Callable[..., Any], *args: Any) -> Any:
        """`job(*args)` on the next idle worker; its exception is raised here. WorkerDied when the
        worker died meanwhile (it is replaced). A caller that gives up does not stop the exchange: the
        worker's answer is still read before it takes another job."""
        worker = await self._queue().get()
        exchange = asyncio.ensure_future(self._exchange(worker, job, args))
        exchange.add_done_callback(lambda done: done.cancelled() or done.exception())
        ok, value = await asyncio.shield(exchange)
        if not ok:
            raise value
        return value

    async def _exchange(self, worker: _Worker, job: Callable[..., Any], args: tuple) -> tuple[bool, Any]:
        try:
            if not worker.ready:
                await self._answer(worker)
            try:
                await _send((await worker.streams())[1], (job, args))
            except (ConnectionError, OSError) as exc:   # the socket broke under us
                raise WorkerDied(str(exc)) from None
            return await self._answer(worker)
        except WorkerDied:
            log.warning("worker process %s died; starting a new one", worker.process.name)
            worker.stop()
            dead, worker = worker, _Worker(self._warm, worker.process.name)
            self._workers = [worker if w is dead else w for w in self._workers]
            raise
        finally:
            self._queue().put_nowait(worker)

    async def _answer(self, worker: _Worker) -> Any:
        """The worker's next message, read as it arrives (the loop runs on meanwhile)."""
        try:
            message = await _receive((await worker.streams())[0])
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            raise WorkerDied(worker.process.name) from None
        if message == _READY:
            worker.ready = True
        return message

    def pids(self) -> list[int]:
        """The workers' process ids."""
        return [w.process.pid for w in self._workers]

    def close(self) -> None:
        """Stop every worker (a job in flight is abandoned)."""
        for worker in self._workers:
            worker.stop()
