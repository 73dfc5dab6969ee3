"""Caches of drawn pieces bounded by their pixels' bytes, not by their count: a word drawn in a big face
or a whole chip weighs a hundred times a small label, so a count alone let a render process grow past
its budget (issue 39, item 8)."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, NamedTuple, Protocol, TypeVar, cast

from PIL import Image

R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
ENTRY_BYTES = 3072   # an entry's cost besides its pixels: the Image, its core, its key (~3.5 KB measured)


class BoundedInfo(NamedTuple):
    """A bounded cache's figures, like functools' CacheInfo, with its bytes and its budget."""

    hits: int
    misses: int
    currsize: int
    nbytes: int
    budget: int


def weight(value: Any) -> int:
    """The bytes an entry holding `value` costs: its images' pixels (Pillow keeps 1 byte a pixel for
    L, P and 1, 4 for the rest), in whatever tuples or lists hold them, plus ENTRY_BYTES."""
    return _pixel_bytes(value) + ENTRY_BYTES


def _pixel_bytes(value: Any) -> int:
    if isinstance(value, Image.Image):
        return value.width * value.height * (1 if value.mode in ("1", "L", "P") else 4)
    if isinstance(value, (tuple, list)):
        return sum(_pixel_bytes(item) for item in value)
    return 0


class BoundedCache(Generic[R]):
    """A least-recently-used cache of `function`'s results (keyed on its positional arguments) holding
    at most `budget` bytes (weight); a result heavier than the whole budget is returned, not kept. Its
    calls go through `bounded`'s wrapper, whose hit takes no lock (a text mask is asked for ~60 times a
    picture)."""

    def __init__(self, function: Callable[..., R], budget: int,
                 weigh: Callable[[tuple, R], int] | None = None) -> None:
        self._function, self.budget = function, budget
        self._weigh = weigh or (lambda args, value: weight(value))
        self.entries: OrderedDict[tuple, tuple[R, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.nbytes = self.hits = self.misses = 0
        CACHES.append(self)

    def miss(self, args: tuple) -> R:
        """`function(*args)`, kept if it fits, the least recently used results let go to make room."""
        self.misses += 1
        value = self._function(*args)
        size = self._weigh(args, value)
        if size <= self.budget:
            with self._lock:
                entries = self.entries
                if args not in entries:
                    entries[args] = (value, size)
                    self.nbytes += size
                    while self.nbytes > self.budget:
                        self.nbytes -= entries.popitem(last=False)[1][1]
        return value

    def cache_clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self.entries.clear()
            self.nbytes = self.hits = self.misses = 0

    def cache_info(self) -> BoundedInfo:
        """Hits, misses, entries, bytes held and the budget."""
        return BoundedInfo(self.hits, self.misses, len(self.entries), self.nbytes, self.budget)


class Bounded(Protocol[R_co]):
    """A function wrapped by `bounded`: called as before, with functools' cache_info and cache_clear."""

    cache: BoundedCache

    def __call__(self, *args: Any) -> R_co: ...

    def cache_info(self) -> BoundedInfo: ...

    def cache_clear(self) -> None: ...


CACHES: list[BoundedCache] = []   # every bounded cache made, for clear_all and the tests


def bounded(budget: int, weigh: Callable[[tuple, Any], int] | None = None) -> Callable[[Callable[..., R]], Bounded[R]]:
    """Decorate a function drawing a piece (an image, or a tuple holding images) with a cache of at most
    `budget` bytes; `weigh(args, result)`: an entry's bytes, when not its images' (weight)."""
    def decorate(function: Callable[..., R]) -> Bounded[R]:
        cache = BoundedCache(function, budget, weigh)
        entries, to_end = cache.entries, cache.entries.move_to_end

        @functools.wraps(function)
        def cached(*args: Any) -> R:
            try:   # each step is atomic; another thread may evict between them (then it is a miss)
                found = entries[args]
                to_end(args)
            except KeyError:
                return cache.miss(args)
            cache.hits += 1
            return found[0]
        wrapper = cast(Bounded[R], cached)
        wrapper.cache = cache
        wrapper.cache_info = cache.cache_info   # type: ignore[method-assign]
        wrapper.cache_clear = cache.cache_clear   # type: ignore[method-assign]
        return wrapper
    return decorate


def clear_all() -> None:
    """Empty every bounded cache."""
    for cache in CACHES:
        cache.cache_clear()
