"""`/stats` and `/standings`: what the games played to their end on a server say of each player (their rating,
games, wins, draws, how long they take to move, the turns the autopilot played for them), and the end-of-game
summary (the winner and the luck of each roller's dice against expectation, from the log), said once the
game is over and never before."""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from bot.storage import ratings as rated_stored
from bot.storage.ratings import Rating
from bot.storage.store import ActionRecord, GameRecord
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Reply, clip
from bot.table.service.ratings import PROVISIONAL_GAMES, Ratings
from bot.table.service.shared import Table
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids
from rules.seats import holder
from rules.table import Player, born_computer, plural

GAMES_READ = 200        # the most recent finished games one answer reads (a bound on its work)
STANDINGS_SHOWN = 15
PROVISIONAL_MARK = "?"   # marks a provisional rating (bot.table.service.ratings.PROVISIONAL_GAMES)
_DICE = re.compile(r"(\d*)d(\d+)")


@dataclass
class Record:
    """One player's finished games of one kind."""

    name: str = ""
    games: int = 0
    wins: int = 0
    draws: int = 0
    ended: int = 0   # games the table agreed to end with no winner (/game propose end)
    game_ids: list[int] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def records(games: Iterable[GameRecord]) -> dict[str, dict[str, Record]]:
    """{game kind: {player id: Record}} from the final states of finished games (computer seats and a seated GM
    left out). A seat that changed hands counts for the member who held it at the end, by their own name, in
    /stats and /standings alike (rules.seats.holder). A draw counts for the players still in at the end (a
    draw by agreement: rules.referee.Referee.still_in; a resigned player lost); an end the table agreed to
    counts as a game ended, won by nobody and drawn by nobody."""
    table: dict[str, dict[str, Record]] = {}
    for game in games:
        ruleset = get_ruleset(game.ruleset)
        state = ruleset.load_state(game.state)
        agreed = getattr(state, "agreed", "")
        if state.ended_by is not None and not agreed:   # ended by its host or an admin, unplayed: not counted
            continue
        drawn = state.winner is None and agreed != "end"
        sharing = set(ruleset.still_in(state)) if agreed == "draw" else None
        master = ruleset.game_master.seat(state) if ruleset.game_master is not None else None
        for seat in state.players:
            if born_computer(seat.id) or seat.id == master:   # a seated GM referees: no player's record
                continue
            record = table.setdefault(game.ruleset, {}).setdefault(seat.id, Record(holder(seat)))
            record.games += 1
            record.wins += state.winner == seat.id
            record.draws += drawn and not getattr(seat, "resigned", False) and (sharing is None or seat.id in sharing)
            record.ended += agreed == "end"
            record.game_ids.append(game.id)
    return table


def _ended(record: Record) -> str:
    """", N ended by agreement" when the table agreed to end any of the player's games with no winner."""
    return f", {record.ended} ended by agreement" if record.ended else ""


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Standings:
    """The answers of /stats and /standings for one server."""

    def __init__(self, table: Table):
        self._table = table
        self._ratings = Ratings(table)

    async def stats(self, actor: Actor, guild: str, options: dict) -> Reply:
        """One player's record per game kind on this server (the asker's, or `player:`'s)."""
        player = str(options.get("player") or actor.id)
        kind = str(options.get("ruleset") or "")
        await self._ratings.catch_up(guild)
        games = await self._table.store.finished_games_of(guild, kind, player, GAMES_READ)
        mine = {k: by[player] for k, by in (await asyncio.to_thread(records, games)).items() if player in by}
        who = "Your" if player == actor.id else f"<@{player}>'s" if player.isdigit() else f"{player}'s"
        if not mine:
            what = f" of {get_ruleset(kind).title}" if kind else ""
            return Reply("shown", f"{who} record: no game{what} played to its end on this server yet.", ephemeral=True)
        lines = [f"{who} record on this server (the last {GAMES_READ} finished games at most):"]
        for ruleset_id, record in sorted(mine.items()):
            waited, missed = await self._table.store.move_times(record.game_ids, player)
            median = f"median time to move {_duration(waited)}" if waited is not None else "no move timed"
            lines.append(f"- **{get_ruleset(ruleset_id).title}**: {plural(record.games, 'game', 'games')}, "
                         f"{record.wins} won, {record.draws} drawn{_ended(record)}; {median}; the autopilot played "
                         f"{plural(missed, 'action', 'actions')} for {'you' if player == actor.id else 'them'}; "
                         f"{await self._rating_words(guild, ruleset_id, player)}")
        return Reply("shown", clip("\n".join(lines), MESSAGE_LIMIT), ephemeral=True)

    async def _rating_words(self, guild: str, ruleset: str, member: str) -> str:
        store = self._table.store
        return rating_words(await rated_stored.rating(store, guild, ruleset, member),
                            await rated_stored.own_share(store, guild, ruleset, member))

    async def standings(self, guild: str, options: dict) -> Reply:
        """The server's players of one game kind, by rating (the rated first), then by wins and the share won."""
        kind = str(options.get("ruleset") or "")
        if kind not in ruleset_ids():
            raise GameError(f"ruleset: one of {', '.join(ruleset_ids())}.")
        await self._ratings.catch_up(guild)
        games = await self._table.store.finished_games_of(guild, kind, "", GAMES_READ)
        by_player = (await asyncio.to_thread(records, games)).get(kind, {})
        rated = {r.member: r for r in await rated_stored.ratings_of_kind(self._table.store, guild, kind)}
        if not by_player:
            return Reply("shown", f"No {get_ruleset(kind).title} game has been played to its end on this server yet.",
                         ephemeral=True)
        # by rating (the rated first, best first), then by wins and the share of games won
        ranked = sorted(by_player.items(), key=lambda item: (
            item[0] not in rated, -rated[item[0]].ordinal if item[0] in rated else 0.0, -item[1].wins, -item[1].rate,
            item[1].name.casefold()))
        played = len({game_id for record in by_player.values() for game_id in record.game_ids})
        lines = [f"**{get_ruleset(kind).title}** standings on this server, by rating "
                 f"({plural(played, 'game played to its end', 'games played to their end')}; "
                 f"{PROVISIONAL_MARK} provisional: fewer than {PROVISIONAL_GAMES} rated games):"]
        lines += [f"{place}. {record.name}: {rating_short(rated.get(player))}{record.wins} won of {record.games} "
                  f"({record.rate:.0%}), {record.draws} drawn{_ended(record)}"
                  for place, (player, record) in enumerate(ranked[:STANDINGS_SHOWN], start=1)]
        return Reply("shown", clip("\n".join(lines), MESSAGE_LIMIT), ephemeral=True)


def rating_short(rating: Rating | None) -> str:
    """A rating as a standings line starts with it ("" for none): its ordinal, provisional marked."""
    if rating is None:
        return "unrated; "
    mark = PROVISIONAL_MARK if rating.games < PROVISIONAL_GAMES else ""
    return f"rating {rating.ordinal:.1f}{mark}; "


def rating_words(rating: Rating | None, share: tuple[int, int]) -> str:
    """A member's rating in one game kind as /stats says it, with the share of their seats' turns they played
    themselves in the rated games."""
    own, turns = share
    played = f"played {own / turns:.0%} of their seats' turns themselves" if turns else "no turn counted yet"
    if rating is None:
        return f"not rated yet; {played}"
    mark = f" {PROVISIONAL_MARK} provisional ({rating.games} of {PROVISIONAL_GAMES} rated games)" \
        if rating.games < PROVISIONAL_GAMES else f" ({plural(rating.games, 'rated game', 'rated games')})"
    return f"rating {rating.ordinal:.1f} (μ {rating.mu:.1f}, σ {rating.sigma:.1f}){mark}; {played}"


def dice_luck(log: Iterable[ActionRecord], named: Mapping[str, tuple[int, ...]] | None = None
              ) -> dict[str, tuple[int, float]]:
    """Each roller's dice against expectation, from the log's rolls (any event with whole `faces` and
    `dice` like "2d6", or a die the game names with its faces (Ruleset.named_dice)):
    {roller: (dice rolled, how many standard deviations above the average they fell)}."""
    sums: dict[str, list[float]] = {}
    for record in log:
        for event in json.loads(record.events):
            dice, faces = event.get("dice"), event.get("faces")
            roller = event.get("who") or event.get("car")
            die = _die(dice, named or {})
            if die is None or not isinstance(roller, str) or not isinstance(faces, list) \
                    or not all(type(f) is int for f in faces):
                continue
            mean, variance = die
            totals = sums.setdefault(roller, [0, 0.0, 0.0])
            totals[0] += len(faces)
            totals[1] += sum(faces) - len(faces) * mean
            totals[2] += len(faces) * variance
    return {roller: (int(n), above / math.sqrt(spread) if spread else 0.0) for roller, (n, above, spread) in
            sums.items()}


def _die(dice: object, named: Mapping[str, tuple[int, ...]]) -> tuple[float, float] | None:
    """(mean, variance) of one die of a roll's kind: a die the game names, or an S-sided one ("2d6")."""
    if not isinstance(dice, str):
        return None
    if dice in named:
        faces = named[dice]
        mean = sum(faces) / len(faces)
        return mean, sum((f - mean) ** 2 for f in faces) / len(faces)
    kind = _DICE.fullmatch(dice)
    if not kind:
        return None
    sides = int(kind.group(2))
    return (sides + 1) / 2, (sides * sides - 1) / 12


def biggest_hit(log: Iterable[ActionRecord], hit_size: Callable[[dict], tuple[int, str] | None]) -> str:
    """The game's biggest hit in its own measure, with the number of the action it came in (the first of
    equal ones): '' when nothing was hit."""
    best: tuple[int, int, str] | None = None
    for record in log:
        for event in json.loads(record.events):
            if isinstance(event, dict) and (hit := hit_size(event)) is not None and (best is None or hit[0] > best[0]):
                best = (hit[0], record.seq, hit[1])
    return f"The biggest hit: {best[2]} (#{best[1]})." if best else ""


def end_words(log: list[ActionRecord], ruleset: Ruleset, seats: Iterable[Player] | None = None) -> str:
    """The end-of-game summary from the whole log: the biggest hit, then each player's dice against their
    average, luckiest first: only the rolls made under a seat's name (a smoke cloud's drift, a driver on
    foot, a hazard are no player), a computer seat's marked so; every roller when `seats` is None."""
    lines = [biggest_hit(log, ruleset.hit_size)] if ruleset.hit_size is not None else []
    rolled = dice_luck(log, ruleset.named_dice)
    if seats is not None:
        names = {seat.name: seat.name + (" (computer)" if seat.ai or born_computer(seat.id) else "") for seat in seats}
        rolled = {names[roller]: luck for roller, luck in rolled.items() if roller in names}
    luck = sorted(rolled.items(), key=lambda item: -item[1][1])
    if luck:
        words = "; ".join(f"{roller} {n} dice, {z:+.1f} σ" for roller, (n, z) in luck)
        lines.append(f"The dice against their average (σ: standard deviations; 0 is par): {words}.")
    return "\n".join(line for line in lines if line)
