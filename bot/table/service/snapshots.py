"""Decoded snapshots of the games this process serves, so a move does not decode the one it just wrote.

Decoding a stored snapshot was the largest single cost of a move in the bot's own process (~0.6 ms of
~2.5, issue 16). Entries are keyed by the snapshot's text itself, so a hit is exactly what decoding
that text gives (decoding is deterministic and states are immutable values); a game changed by
another process or an undo simply has other text and is decoded afresh.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from rules.engine import Ruleset

KEPT = 256   # snapshots kept, the least recently used dropped first


class DecodedSnapshots:
    """An LRU of (ruleset id, snapshot text) -> decoded state."""

    def __init__(self, kept: int = KEPT) -> None:
        self._states: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._kept = kept

    def load(self, ruleset: Ruleset, text: str) -> Any:
        """The state `text` decodes to under `ruleset` (decoded once, then remembered)."""
        key = (ruleset.id, text)
        state = self._states.get(key)
        if state is None:
            state = ruleset.load_state(text)
            self.remember(ruleset, text, state)
        else:
            self._states.move_to_end(key)
        return state

    def remember(self, ruleset: Ruleset, text: str, state: Any) -> None:
        """Record that `text` is the encoding of `state` (just written)."""
        self._states[(ruleset.id, text)] = state
        self._states.move_to_end((ruleset.id, text))
        while len(self._states) > self._kept:
            self._states.popitem(last=False)
