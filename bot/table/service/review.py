"""`/game review` (and the final message's Review button): a finished game's turning points, the luck of
each player's dice, and a chart of each seat's standing through the game. It exists only once the game
is over, and reads the log as the channel may see it then, so it is the same for every viewer."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from bot.storage.store import GameRecord
from bot.table.jobs import reviews
from bot.table.jobs.heavy_jobs import packed_log
from bot.table.protocol.replies import MESSAGE_LIMIT, REVIEW_PREFIX, Attachment, Reply, clip
from bot.table.service.shared import Table
from bot.table.service.standings import end_words
from rules.engine import Ruleset
from rules.errors import GameError
from rules.review import SHOWN

REVIEW_BUTTON = re.compile(rf"^{REVIEW_PREFIX}:(\d+):0:0$")   # the finished game's Review
NOT_YET = "A review exists only once the game is over: ask again after its end."


async def review(table: Table, ruleset: Ruleset, game: GameRecord, state: Any, ended: bool) -> Reply:
    """The review of a game that ended here, privately to whoever asks (the same for any of them)."""
    if not ended:
        raise GameError(NOT_YET)
    game, log = await table.store.game_and_actions(game.id)
    lines = [f"**Review of {ruleset.title} game {game.id}**: {ruleset.prompt(state)}"]
    files: tuple[Attachment, ...] = ()
    if ruleset.review is None:
        lines.append(f"{ruleset.title} has no turning points or standing chart to review.")
    elif len(log) > reviews.MOST_ACTIONS:
        lines.append(f"This game is {len(log):,} actions long; a review re-runs at most {reviews.MOST_ACTIONS:,}, so "
                     f"it gives the dice's luck alone (every roll still re-runs with /game verify).")
    else:
        found = await table.heavy.run(reviews.review, ruleset.id, game, await packed_log(log), items=len(log))
        lines += _turning_points(ruleset, found)
        files = (Attachment(f"pitboss-review-{game.id}.png", found.chart, clip(found.about, 1000)),)
    if luck := await asyncio.to_thread(end_words, log, ruleset, state.players):
        lines.append(luck)
    return Reply("shown", clip("\n".join(lines), MESSAGE_LIMIT), ephemeral=True, files=files)


def _turning_points(ruleset: Ruleset, found: reviews.Reviewed) -> list[str]:
    """The turning points' lines, or why there are none, and what the chart shows."""
    assert ruleset.review is not None
    if ruleset.review.turning_points is None:
        lines = [f"Turning points: none ({ruleset.review.why_none or 'this game names none'})."]
    elif not found.points:
        lines = ["Turning points: none (no roll whose chance the log proves had an outcome in doubt)."]
    else:
        lines = [f"Turning points (the {min(SHOWN, len(found.points))} of {found.checks} checked rolls whose "
                 f"surprise × consequence was highest; /game verify re-runs each):"]
        lines += [f"- {point.words()}" for point in found.points]
    review = ruleset.review
    lines.append(f"The chart: each seat's {review.measure} by {review.round_word}.")
    return lines
