"""Words for a replay frame's caption, given how a game names who acts and their colour."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Captioner:
    """Words for a frame's caption line, given how a ruleset names who acts, and their colour."""

    acting: Callable  # state -> the player whose decision the game waits on
    name_of: Callable  # (state, player id) -> display name
    colour_of: Callable  # (state, player id) -> RGB

    def __call__(self, previous, state) -> tuple[str, str, tuple | None, str]:
        """(head, who, who's colour, what happened) for the caption of `state`, reached from `previous`."""
        if previous is None:
            actor = state.host
        else:
            seated = {p.id for p in previous.players}
            joined = [p.id for p in state.players if p.id not in seated]
            actor = joined[0] if joined else self.acting(previous) or previous.host
        who = self.name_of(state, actor)
        text = " ".join(state.last_action.split()).replace("->", "→")
        for lead in (f"{who}: ", f"{who} "):
            if who and text.startswith(lead):
                text = text[len(lead):]
                break
        if state.phase == "finished":
            head = (f"{self.name_of(state, state.winner)} wins" if state.winner
                    else f"Ended by {state.ended_by}" if state.ended_by else "Draw")
            head = f"Game over · {head}"
        else:
            head = "Lobby" if state.phase == "lobby" else f"Round {state.round + 1}"
        return head, who, self.colour_of(state, actor), text or "new game"
