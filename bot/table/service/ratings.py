"""The server's rating of its members per game kind (issue 40 item 3): OpenSkill's Plackett-Luce model with its
default parameters, updated once when a game ends, from the game's own rank order (Ruleset.final_order).

Rulings (docs/league.md):
- One rating per (server, game kind, member). Computer seats and a seated game master are not rated; the
  members still in a game's order are ranked among themselves.
- A member whose own turns were fewer than half of their seat's (the autopilot at a deadline, or the computer,
  played the rest; bot.table.jobs.rating_jobs) is not rated for that game; the others are rated among
  themselves. A game that leaves fewer than two members to rate changes no rating.
- A game ended with no result (the host's /game end, an agreed end) is not rated; an agreed draw is a tie of
  the seats still in, above those already out.
- A game is rated once: the rated games are recorded with the ratings in one transaction, and any finished
  game not yet recorded is rated the next time the server's ratings are read or a game of it ends (a crash
  between the end and the rating loses nothing). In a long-running bot the rating of a game that just ended
  runs after its last move's reply, not on it (its log re-run cost that move as much as the move itself, and
  more while the long-job process starts: issue 39 item 3); what reads the ratings waits for it first
  (`Ratings.settled`). A moved game counts once, where it went; an imported one never; one finished before
  ratings existed only through a rebuild (`pitboss ratings --rebuild`), which re-rates every counted game in
  the order they were rated and gives the same numbers.
- A forgotten member's id (rules: forgotten-…) is never stored: a rebuild still counts their seat, with a
  rating kept only while it runs, so the others' numbers stay what they were.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from openskill.models import PlackettLuce

from bot.storage import rank_roles
from bot.storage import ratings as stored
from bot.storage.ratings import Rating, SeatRecord
from bot.storage.store import GameRecord, Store
from bot.table.jobs.heavy_jobs import PACKED_ROWS, PackedLog
from bot.table.jobs.rating_jobs import RatingInput, rating_input
from bot.table.service.shared import Table
from bot.table.trust.guards import FORGOTTEN_PREFIX

log = logging.getLogger("pitboss.ratings")

MODEL = PlackettLuce()   # the library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 0.0001
PROVISIONAL_GAMES = 5    # a rating of fewer rated games than this is marked provisional
REBUILD_ATTEMPTS = 3     # a rebuild that finds games rated while it worked starts over, at most this often

Runner = Callable[..., Awaitable[Any]]   # HeavyWork.run: a job off the event loop


def own_enough(own: int, turns: int) -> bool:
    """Whether a member played enough of their seat's turns themselves to be rated: not fewer than half."""
    return 2 * own >= turns


def rated(given: RatingInput, known: dict[str, Rating]) -> tuple[list[SeatRecord], list[Rating]]:
    """One game's seat records (each member seated) and the new ratings of those it rates, from the ratings
    `known` before it (a member missing starts at the model's defaults)."""
    people = [p for p in given.people if p in given.turns] if given.order else []   # no result: no record
    seats = [SeatRecord(p, given.turns[p].own, given.turns[p].total,
                        own_enough(given.turns[p].own, given.turns[p].total)) for p in people]
    counted = {s.member for s in seats if s.rated}
    groups = [[p for p in group if p in counted] for group in given.order]
    groups = [group for group in groups if group]
    members = [p for group in groups for p in group]
    if len(members) < 2:
        return [SeatRecord(s.member, s.own_turns, s.turns, False) for s in seats], []
    teams = [[MODEL.rating(mu=known[p].mu, sigma=known[p].sigma) if p in known else MODEL.rating()] for p in members]
    ranks = [float(place) for place, group in enumerate(groups, start=1) for _ in group]
    new = MODEL.rate(teams, ranks=ranks)
    return seats, [Rating(p, team[0].mu, team[0].sigma, (known[p].games if p in known else 0) + 1)
                   for p, team in zip(members, new, strict=True)]


def kept(seats: list[SeatRecord], ratings: list[Rating]) -> tuple[list[SeatRecord], list[Rating]]:
    """What is stored of a game's rating: nothing of a forgotten member."""
    return ([s for s in seats if not s.member.startswith(FORGOTTEN_PREFIX)],
            [r for r in ratings if not r.member.startswith(FORGOTTEN_PREFIX)])


async def packed(rows: list) -> PackedLog:
    """Rows pickled a slice at a time for the worker process, the event loop running between slices."""
    slices = []
    for first in range(0, len(rows), PACKED_ROWS):
        slices.append(pickle.dumps(rows[first:first + PACKED_ROWS], pickle.HIGHEST_PROTOCOL))
        await asyncio.sleep(0)
    return PackedLog(tuple(slices))


async def game_input(store: Store, run: Runner, game: GameRecord) -> RatingInput:
    """What a finished game gives the rating, re-run off the event loop; a game its log no longer re-runs
    (a stored game that never verified) gives nothing to rate."""
    rows = await stored.rating_log(store, game.id)
    try:
        return await run(rating_input, game.ruleset, game, await packed(rows), items=len(rows))
    except (LookupError, ValueError, TypeError, AttributeError) as exc:
        log.error("game %s gives no rating: its log does not re-run (%s)", game.id, exc)
        return RatingInput(())


async def rate_due(store: Store, run: Runner, guild: str,
                   taken: list[tuple[GameRecord, RatingInput]] | None = None) -> int:
    """Rate the server's finished games not yet rated, in the order they ended: how many were rated now (each with
    what its log gave, appended to `taken`)."""
    done = 0
    for game in await stored.due_games(store, guild):
        given = await game_input(store, run, game)
        async with store.transaction():
            await store.driver.lock_channel(f"ratings:{guild}")   # one rater of a server at a time
            if await stored.was_looked_at_tx(store, game.id):
                continue
            seats, new = rated(given, await stored.ratings_tx(store, guild, game.ruleset, list(given.people)))
            await stored.record_game_tx(store, game, *kept(seats, new))
            await rank_roles.mark_due_tx(store, guild)   # its rank roles follow the ratings
        done += 1
        if taken is not None:
            taken.append((game, given))
    return done


async def recomputed(store: Store, run: Runner, guild: str) -> list[tuple[GameRecord, list[SeatRecord], list[Rating]]]:
    """A server's ratings worked out anew from its stored finished games, in the order they were rated (those
    finished before ratings existed first, by when they ended): each game with what is stored of it."""
    games = await stored.rebuild_games(store, guild)
    given = [await game_input(store, run, game) for game in games]
    known: dict[str, dict[str, Rating]] = {}
    done = []
    for game, input_ in zip(games, given, strict=True):
        kind = known.setdefault(game.ruleset, {})
        seats, new = rated(input_, kind)
        kind.update((r.member, r) for r in new)   # a forgotten member's too, while the rebuild runs
        done.append((game, *kept(seats, new)))
    return done


def latest(games: list[tuple[GameRecord, list[SeatRecord], list[Rating]]]) -> dict[tuple[str, str], Rating]:
    """Each member's last rating in each game kind, by (game kind, member), from `recomputed`'s games."""
    return {(game.ruleset, r.member): r for game, _seats, new in games for r in new}


async def rebuild(store: Store, run: Runner, guild: str) -> int:
    """Recompute a server's ratings from its stored finished games (`recomputed`) and store them in place of
    the old: how many games were rated."""
    for _attempt in range(REBUILD_ATTEMPTS):
        seen = await stored.taken_in(store, guild)
        games = await recomputed(store, run, guild)
        async with store.transaction():
            await store.driver.lock_channel(f"ratings:{guild}")
            if await stored.taken_in(store, guild) != seen:   # a game was rated meanwhile: work it out again
                continue
            await stored.clear_guild_tx(store, guild)
            for game, seats, new in games:
                await stored.record_game_tx(store, game, seats, new)
            await rank_roles.mark_due_tx(store, guild)
        return len(games)
    raise RuntimeError(f"the ratings of server {guild!r} kept changing during the rebuild: try again")


async def rebuild_all(store: Store, run: Runner) -> dict[str, int]:
    """Rebuild every server's ratings: games rated, by server."""
    return {guild: await rebuild(store, run, guild) for guild in await stored.guilds(store)}


async def rating_of(store: Store, guild: str, ruleset: str, member: str) -> Rating | None:
    """This server's rating of member `member` in game kind `ruleset` (None while they have none): what a
    league or tournament orders players by (Rating.ordinal, highest first)."""
    return await stored.rating(store, guild, ruleset, member)


AFTER_PICTURE_SECONDS = 5.0   # a game end's rating waits at most this long for the ending move's picture

# the ratings started by game ends and not finished yet, by the service's Table (each part has its own Ratings)
_ENDED: weakref.WeakKeyDictionary[Table, set[asyncio.Task]] = weakref.WeakKeyDictionary()


class Ratings:
    """The rating as the service keeps it: rated when a game ends, caught up before it is shown."""

    def __init__(self, table: Table):
        self._table = table

    async def game_ended(self, guild: str, after: asyncio.Future | None = None) -> None:
        """A game of the server just ended: rate it (catch_up). A long-running bot (its long jobs in a process
        of their own) does so on a task of its own, so the move that ended it replies without waiting for its
        log to be re-run; a one-shot process (`pitboss exec`, a script) before it returns. `after`: the
        ending move's last picture (and sheets) being drawn; the task waits for it (AFTER_PICTURE_SECONDS at
        most) before it starts, so the long-job process a first rating spawns (an interpreter and its imports)
        does not take the cores that picture needs (a first game end took 33-59 ms, the next 25)."""
        if not self._table.heavy.process:
            await self.catch_up(guild)
            return
        task = asyncio.ensure_future(self._catch_up(guild, after))
        pending = _ENDED.setdefault(self._table, set())
        pending.add(task)
        task.add_done_callback(pending.discard)

    async def settled(self, timeout: float | None = None) -> None:
        """Wait until the ratings started by game ends (game_ended) are done (a waiter that gives up stops none
        of them); past `timeout` seconds, those left are cancelled: a bot that stops rates those games when it
        next reads the ratings."""
        loop = asyncio.get_running_loop()
        end = None if timeout is None else loop.time() + timeout
        while pending := _ENDED.get(self._table):
            left = None if end is None else end - loop.time()
            if left is not None and left <= 0:
                for task in pending:
                    task.cancel()
                await asyncio.wait(pending)
                return
            await asyncio.wait(pending, timeout=left)

    async def catch_up(self, guild: str) -> None:
        """Rate the server's games that ended and are not rated yet (after the ratings game ends started);
        a failure is logged and left for the next time (the game stays unrated until then, never rated twice)."""
        await self.settled()
        await self._catch_up(guild)

    async def _catch_up(self, guild: str, after: asyncio.Future | None = None) -> None:
        if after is not None:   # its outcome is the move's to read; here only its end matters
            await asyncio.wait([after], timeout=AFTER_PICTURE_SECONDS)
        taken: list[tuple[GameRecord, RatingInput]] = []
        try:
            await rate_due(self._table.store, self._table.heavy.run, guild, taken)
            for game, given in taken:   # what else reads a game's end reads it here, not from its log again
                for hook in self._table.when_rated:
                    await hook(game, given)
        except Exception:   # the rating never stops a move's reply or an answer
            log.exception("the ratings of server %r were not brought up to date", guild)

    async def rating_of(self, guild: str, ruleset: str, member: str) -> Rating | None:
        """This server's rating of `member` in `ruleset`, brought up to date first."""
        await self.catch_up(guild)
        return await rating_of(self._table.store, guild, ruleset, member)
