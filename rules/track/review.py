"""Track's review: each seat's progress along the course, round by round (its cars' holes covered, a car
in the finish lane counted past the ring, as the computer player weighs them). Track deals cards and rolls
no dice: it has no turning points to prove."""

from __future__ import annotations

from collections.abc import Mapping

from rules.review import GameReview
from rules.track.ai import progress
from rules.track.state import TrackState


def standing(state: TrackState) -> Mapping[str, int]:
    """Each seat's progress: the sum over its cars."""
    return {seat.id: sum(progress(state, car) for car in state.cars_of(seat.id)) for seat in state.players}


REVIEW = GameReview(None, standing, lambda state: state.round + 1, "progress along the course",
                    why_none="Track deals cards and rolls no dice")
