"""Long jobs' answers kept by what they were made from, so the same question is not worked out twice.

A replay GIF or a verification re-runs a whole log (0.1 s for a short game, seconds for a long one).
Every player of a finished game may ask for its replay, and a game asked to verify again without a
move in between gives the same answer. The jobs are pure functions of their arguments (a ruleset id,
the game's row, its log), so an answer is kept under a digest of the job and those arguments: a game
that moved, was rolled back or was edited has other arguments, and is worked out again. At most
BUDGET bytes of answers are kept, the least recently asked let go first; two callers asking the same
at once share the one job.
"""

from __future__ import annotations

import asyncio
import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

BUDGET = 8 << 20      # bytes of kept answers: a few long games' GIFs, or many short ones
SMALL_ANSWER = 256    # what an answer that is not bytes (a verification's yes or no) is counted as


def digest(job: Callable[..., Any], args: tuple) -> bytes:
    """What identifies a job's answer: the job's name and its arguments, pickled and hashed."""
    hashed = hashlib.blake2b(f"{job.__module__}.{job.__qualname__}".encode(), digest_size=20)
    hashed.update(pickle.dumps(args, protocol=pickle.HIGHEST_PROTOCOL))
    return hashed.digest()


def weight(answer: Any) -> int:
    """The bytes a kept answer costs."""
    return len(answer) + SMALL_ANSWER if isinstance(answer, bytes) else SMALL_ANSWER


class KeptAnswers:
    """Answers by digest, least recently used let go past `budget` bytes; jobs in flight by digest."""

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = budget
        self.nbytes = 0
        self._answers: OrderedDict[bytes, tuple[Any, int]] = OrderedDict()
        self._running: dict[bytes, asyncio.Future] = {}
        self._generation = 0   # clear() counts up: a job under way when it came keeps nothing

    def __len__(self) -> int:
        return len(self._answers)

    async def get(self, key: bytes, work: Callable[[], Awaitable[Any]]) -> Any:
        """The answer kept under `key`, else the one `work()` gives (kept if it fits; an exception is not
        kept), shared with a caller that asks for `key` meanwhile."""
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key][0]
        running = self._running.get(key)
        if running is None:
            running = self._running[key] = asyncio.ensure_future(self._worked(key, work, self._generation))
            running.add_done_callback(lambda done: done.cancelled() or done.exception())   # read, if all gave up
        # shielded: a caller that gives up does not stop the job another caller may be waiting for
        return await asyncio.shield(running)

    async def _worked(self, key: bytes, work: Callable[[], Awaitable[Any]], generation: int) -> Any:
        try:
            answer = await work()
        finally:
            del self._running[key]
        if generation == self._generation:
            self._keep(key, answer)
        return answer

    def _keep(self, key: bytes, answer: Any) -> None:
        size = weight(answer)
        if size > self.budget:
            return
        self._answers[key] = (answer, size)
        self.nbytes += size
        while self.nbytes > self.budget:
            self.nbytes -= self._answers.popitem(last=False)[1][1]

    def clear(self) -> None:
        """Forget every kept answer, and keep none of the jobs under way now."""
        self._answers.clear()
        self.nbytes = 0
        self._generation += 1
