"""The last public actions' events of the games this process serves, kept so each picture's trails, caption
and alt text cost no read.

A window is tagged with the game's version: every write bumps it, so a window that missed a write (another
process, an undo) no longer matches and is read again from the log.
"""

from __future__ import annotations

from collections import OrderedDict, deque

RECENT_ACTIONS = 60   # how far back a picture looks for the last round (a long turn is ~20 actions)
GAMES_KEPT = 512      # windows kept, the least recently used dropped first


class RecentEvents:
    """Per game: the events of its last RECENT_ACTIONS actions, and the version they are true for."""

    def __init__(self) -> None:
        self._windows: OrderedDict[int, tuple[int, deque]] = OrderedDict()

    def get(self, game_id: int, version: int) -> list[tuple] | None:
        """The window of a game as of `version`, or None when this process does not know it."""
        entry = self._windows.get(game_id)
        if entry is None or entry[0] != version:
            return None
        self._windows.move_to_end(game_id)
        return list(entry[1])

    def put(self, game_id: int, version: int, actions: list[tuple]) -> None:
        """Remember a window read from the log."""
        self._windows[game_id] = (version, deque(actions[-RECENT_ACTIONS:], maxlen=RECENT_ACTIONS))
        self._windows.move_to_end(game_id)
        while len(self._windows) > GAMES_KEPT:
            self._windows.popitem(last=False)

    def after(self, game_id: int, version: int, events: tuple) -> list[tuple] | None:
        """The window as it will be once the public action `events` taking the game past `version` is
        written (None when this process does not know the game at `version`)."""
        window = self.get(game_id, version)
        return None if window is None else [*window, events][-RECENT_ACTIONS:]

    def add(self, game_id: int, version: int, events: tuple, public: bool = True) -> None:
        """One more action just written, taking the game from `version - 1` to `version`; one the channel
        may not learn of (bot.table.trust.seen) moves the version on and adds nothing."""
        entry = self._windows.get(game_id)
        if entry is None or entry[0] != version - 1:
            self._windows.pop(game_id, None)
            return
        if public:
            entry[1].append(events)
        self._windows[game_id] = (version, entry[1])
