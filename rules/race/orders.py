"""The Race's questions a racer may answer in advance (`/orders`), both asked off their turn: how to react
to a racer who targets them (block, dodge or none, where the maneuver allows it) and whether to stabilize
when side swept."""

from __future__ import annotations

from rules.engine import LegalAction, Question, StandingOrders
from rules.race.actions import React, Stabilize
from rules.race.state import Phase, RaceState


def _targeted(phase: Phase):
    def asked(state: RaceState, player: str) -> bool:
        return state.phase == phase and state.pending is not None and state.racer(state.pending.target).owner == player
    return asked


def _react(state: RaceState, player: str, answer: str, legal: tuple[LegalAction, ...]) -> React | None:
    offered = [a.action for a in legal if isinstance(a.action, React) and a.action.reaction == answer]
    return offered[0] if offered else None   # not open against this maneuver: the racer is asked


ORDERS = StandingOrders((
    Question("reaction", ("block", "dodge", "none"), _targeted(Phase.REACTION), _react),
    Question("stabilize", ("yes", "no"), _targeted(Phase.STABILIZE),
             lambda state, player, answer, legal: Stabilize(answer == "yes")),
))
