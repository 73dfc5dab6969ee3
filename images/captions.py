"""Words for a replay frame's caption, given how a game names who acts and their colour."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rules.engine import describe_events
from rules.table import TablePhase


def event_words(events: tuple) -> str:
    """The events of one action as one line of caption text (arrows drawn as arrows)."""
    return " ".join(describe_events(events).split()).replace("->", "→")


def seat_name(state, player_id: str | None) -> str:
    """A seated player's display name, or the id itself for someone no longer seated (every game's
    state has `player(id)`)."""
    player = state.player(player_id)
    return player.name if player else (player_id or "")


def round_words(state) -> str:
    """A game's step in a caption, for games that play in rounds: 'Round 3'."""
    return f"Round {state.round + 1}"


@dataclass(frozen=True)
class Captioner:
    """Words for a frame's caption line, given how a ruleset names who acts, their colour, and the
    game's step in its own words (a lap and a section, a turn)."""

    name_of: Callable  # (state, player id) -> display name
    colour_of: Callable  # (state, player id) -> RGB
    step_of: Callable = round_words  # (state) -> 'Round 3'

    def __call__(self, state, actor: str, events: tuple) -> tuple[str, str, tuple | None, str]:
        """(head, who, who's colour, what happened) for the caption of `state`, reached by `actor`'s
        action that had `events`."""
        who = self.name_of(state, actor)
        text = event_words(events)
        for lead in (f"{who}: ", f"{who} "):
            if who and text.startswith(lead):
                text = text[len(lead):]
                break
        return self.heading(state), who, self.colour_of(state, actor), text or "new game"

    def heading(self, state) -> str:
        """The game's step ('Round 3', 'Lobby'), or its result once it is over ('Game over · alice wins')."""
        if state.phase == TablePhase.FINISHED:
            head = (f"{self.name_of(state, state.winner)} wins" if state.winner
                    else f"Ended by {state.ended_by}" if state.ended_by else "Draw")
            return f"Game over · {head}"
        return "Lobby" if state.phase == TablePhase.LOBBY else self.step_of(state)

    def whose_turn(self, state, waiting: tuple[str, ...]) -> str:
        """The heading and who the game waits on: 'Round 4 · carol to move' (the result once it is over)."""
        head = self.heading(state)
        if state.phase in (TablePhase.FINISHED, TablePhase.LOBBY) or not waiting:
            return head
        names = [self.name_of(state, p) for p in waiting]
        who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}" if len(names) <= 3 \
            else f"{len(names)} players"   # named while a phone's line holds them
        return f"{head} · {who} to move"
