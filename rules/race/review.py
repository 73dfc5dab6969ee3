"""The Race's review: each racer's place, section by section (1: leading; a racer out falls behind every
racer still in, the later out ahead). Its checks are made against DCs its events do not name (a section's
DC may be the GM's secret), so it names no turning point it cannot prove."""

from __future__ import annotations

from collections.abc import Mapping

from rules.race.state import RaceState
from rules.review import GameReview


def places(state: RaceState) -> Mapping[str, int]:
    """Each racer's seat and place: those racing in move order, then those out, the last out first."""
    racing = [r for r in (state.racer(i) for i in state.order) if not r.out]
    out = sorted((r for r in state.racers if r.out), key=lambda r: -r.out_order)
    return {racer.owner: place for place, racer in enumerate(racing + out, start=1)}


REVIEW = GameReview(None, places, lambda state: state.round + 1, "place (1: leading)", higher_is_better=False,
                    round_word="section",
                    why_none="the Race's checks are made against DCs its events do not name, so no roll's chance "
                             "can be proved from the log alone")
