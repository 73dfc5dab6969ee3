"""The words of a result by agreement (`/game propose draw|end`, issue 38 finding 15), voted on as a rollback is
(bot.table.service.rollback): a draw shared by the players still in, or an end with no winner."""

from __future__ import annotations

from typing import Any

from rules.engine import Ruleset


def _proposer(state: Any, proposer: str) -> str:
    seat = state.player(proposer)
    return seat.name if seat else "A player"


def proposal_words(state: Any, proposer: str, kind: str) -> str:
    """Who proposed which result, in a few words."""
    who = _proposer(state, proposer)
    return f"{who} proposed a draw" if kind == "draw" else f"{who} proposed ending the game with no winner"


def proposal_question(ruleset: Ruleset, state: Any, proposer: str, kind: str) -> str:
    """The public question's opening: who proposes what, and what it means for each player's record."""
    who = _proposer(state, proposer)
    if kind == "draw":
        sharing = ", ".join(state.player(p).name for p in ruleset.still_in(state)) or "nobody"
        return (f"{who} proposes a draw: the game ends now, drawn among the players still in ({sharing}); /stats "
                f"counts a draw for each of them. Every seated player must agree.")
    return (f"{who} proposes ending the game now with no winner; /stats counts it as an ended game for every "
            f"player. Every seated player must agree.")
