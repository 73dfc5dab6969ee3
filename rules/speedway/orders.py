"""Speedway's questions a driver may answer in advance (`/orders`): a skid (accept, resist, or resist when
the chance is at least N%), a swipe at a car in a skid hex, and the ramming outcome the roll-off's winner
picks."""

from __future__ import annotations

import re

from rules.engine import LegalAction, Question, StandingOrders
from rules.errors import BadOption
from rules.speedway.actions import AnswerSkid, ChooseRam
from rules.speedway.odds import resist_chance
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.state import SpeedwayState

_RESIST_AT = re.compile(r"resist(?::|\s*>=?\s*)(\d{1,2})%?")


def _read_skid(typed: str) -> str:
    """'accept', 'resist', or 'resist:N' (resist when the chance is at least N%, N from 1 to 99)."""
    word = typed.strip().casefold()
    if word in ("accept", "resist"):
        return word
    at = _RESIST_AT.fullmatch(word)
    if at and 1 <= int(at.group(1)) <= 99:
        return f"resist:{int(at.group(1))}"
    raise BadOption("answer: skid takes accept, resist, or resist:N (resist when the chance is at least N%, "
                    "N from 1 to 99).")


def _skidding(state: SpeedwayState, player: str) -> bool:
    return state.phase == SpeedwayPhase.SKID and state.active_player == player


def _skid(state: SpeedwayState, player: str, answer: str, legal: tuple[LegalAction, ...]) -> AnswerSkid | None:
    if not state.open_skid.skid_applies:
        return None
    if answer.startswith("resist:"):
        answer = "resist" if resist_chance(state.current_car) >= int(answer.partition(":")[2]) / 100 else "accept"
    return AnswerSkid(answer)


def _swipe(state: SpeedwayState, player: str, answer: str, legal: tuple[LegalAction, ...]) -> AnswerSkid | None:
    answers = [a.action for a in legal if isinstance(a.action, AnswerSkid)]
    offered = {a.choice for a in answers}
    if "swipe" not in offered:
        return None
    if answer == "yes":
        return _first_swipe(state, player, [a for a in answers if a.choice == "swipe"])
    return AnswerSkid("continue") if "continue" in offered else None   # no swipe: the skid question decides


def _first_swipe(state: SpeedwayState, player: str, swipes: list[AnswerSkid]) -> AnswerSkid:
    """With a car in each skid hex (revision 6), "yes" swipes another player's car before one's own, else the
    first offered (the front skid hex's)."""
    def own(swipe: AnswerSkid) -> bool:
        return bool(swipe.target) and state.car(swipe.target).owner == player
    return next((s for s in swipes if not own(s)), swipes[0])


ORDERS = StandingOrders((
    Question("swipe", ("yes", "no"), _skidding, _swipe),
    Question("skid", ("accept", "resist", "resist:50"), _skidding, _skid, _read_skid),
    Question("ram", ("A", "B"),
             lambda state, player: state.phase == SpeedwayPhase.RAM and state.pending_ram is not None
             and state.pending_ram.chooser == player,
             lambda state, player, answer, legal: ChooseRam(answer)),
))
