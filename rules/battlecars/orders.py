"""Battlecars' questions a driver may answer in advance (`/orders`), both asked off their turn: returning
fire (at the attacker, with the best shot open, or hold) and which armour section takes a hit."""

from __future__ import annotations

from rules.battlecars.actions import ChooseSection, Fire, HoldFire
from rules.battlecars.state import BattlecarsState, Phase
from rules.engine import LegalAction, Question, StandingOrders


def _returning(state: BattlecarsState, player: str) -> bool:
    return state.phase == Phase.RETURN and state.open_return.chooser == player


def _placing(state: BattlecarsState, player: str) -> bool:
    return state.phase == Phase.SECTION and state.open_hit.chooser == player


def _return_fire(state: BattlecarsState, player: str, answer: str, legal: tuple[LegalAction, ...]):
    shots = [a.action for a in legal if isinstance(a.action, Fire)]
    return shots[0] if answer == "attacker" and shots else HoldFire()   # no shot open: holding is all there is


def _section(state: BattlecarsState, player: str, answer: str, legal: tuple[LegalAction, ...]):
    return ChooseSection(answer) if answer in state.open_hit.sections else None


ORDERS = StandingOrders((
    Question("return_fire", ("attacker", "hold"), _returning, _return_fire),
    Question("hit_section", ("front", "middle", "rear"), _placing, _section),
))
