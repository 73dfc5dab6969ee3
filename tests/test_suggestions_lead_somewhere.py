"""Autocomplete leads somewhere, and shows nobody what they may not see: every suggestion the service offers,
in every game, at every kind of moment, to every kind of viewer.

Each game is played from its example opening (Race also with a seated GM) by seeded legal moves, and kept at a
sample of moments: the lobby (the host seated, the others not yet), the first moment of each phase met and the
first in it where only some are still waited on (one has answered: their secret is kept from the others), and
the finished game. At each, for each viewer (each player of the opening, seated or about to be, the host, the GM
where there is one, and a member only watching), every option Discord autocompletes from the service (bot.chat
.adapter: an option declared `suggest` that is neither one of its command's own listed choices nor the folded
`more`) is asked for, with nothing chosen and with each value suggested for another option of the command
chosen, and every value offered is sent as its command (on the moment's own copy of the database, put back
after anything it changed).

What counts as a dead end: a suggested value that cannot be taken. It is sent alone (with what was chosen
before it); if refused, it is sent again completed the ways the suggestions themselves lead: a legal action of
the viewer's that uses the value (the command a button of theirs would send), the command's other autocompleted
options filled with what they suggest, and the words a command asks in free text or as a confirmation
(`IMPLIED`: a note's text, the member a seat goes to, confirm:yes). A refusal for missing information the
completion supplies is no dead end; one that no completion passes is: the value should not have been offered to
that viewer then ("not your turn", "the seats are closed", "only the host ...", "still playing: the host may
act on their seat only once they are gone", "the game master does not race"). The service also answers for the
options of a game's moves declared with fixed choices (Discord shows those itself, but a layout short of room or
another game declaring the option otherwise sends them to the service): a viewer the game does not wait on is
offered none of them (each would be refused: Battlecars' /move turn:, the Race's /react reaction:).

What a viewer may not see: each moment is also compared with its twin, the same game with another player's
secrets changed (another hand's cards, a face-down counter, a GM's DC change, note or unseen trap, the dice
seed), which the viewer's own view cannot tell apart (checked); every suggestion, label and value, must be the
same in both.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from bot.chat.layout import discord_layout
from bot.storage.store import Store
from bot.table.protocol.commands import Command, command_table, game_spec, parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.entry import GameService
from rules.codec import encode_state
from rules.dice import DiceState
from rules.engine import ExampleOpening, Ruleset, parse_command
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME

G, CHANNEL = "g1", "c"
WATCHER = "zed"        # a member only watching
NEWCOMER = "yan"       # a member a seat may be handed to
MOVES = 120            # seeded legal moves at most, then a server admin ends the game
IMPLIED = {"confirm": "yes", "to": NEWCOMER, "tell": "Keep left at the bend."}
TABLE_WIDE = frozenset({"help", "rules", "me settings"})   # the same offers in every moment: asked once a game
READ_ONLY = frozenset(command_table().queries)


def autocompleted() -> dict[str, tuple[str, ...]]:
    """The options Discord asks the service to autocomplete, by command (bot.chat.adapter._suggester)."""
    found: dict[str, tuple[str, ...]] = {}
    for slash in discord_layout():
        names = tuple(o.name for o in slash.options
                      if o.suggest and o.name not in slash.listed and o.name != slash.more)
        if names:
            found[slash.command] = found.get(slash.command, ()) + names
    return found


AUTOCOMPLETED = autocompleted()
REQUIRED = {slash.command: {o.name for o in slash.options if o.required} for slash in discord_layout()}   # always sent


@dataclass(frozen=True)
class Table:
    """One game to play: its id, the opening, the seed, and the viewers to ask for."""

    game: str
    opening: ExampleOpening
    seed: int

    @property
    def viewers(self) -> tuple[str, ...]:
        """The host (the GM, where one is seated), each player of the opening, and a member only watching."""
        people = dict.fromkeys([self.opening.host, *(p for p, _line in self.opening.commands), WATCHER])
        return tuple(people)


TABLES = (Table("speedway", get_ruleset("speedway").example, 3),
          Table("battlecars", get_ruleset("battlecars").example, 3),
          Table("track", get_ruleset("track").example, 3),
          Table("race", get_ruleset("race").example, 3),
          Table("race", get_ruleset("race").more_examples[0], 3))


# --- the twins: another player's secrets changed, the viewer's view the same -----------------------------------

def _other_hands(state: Any, viewer: str) -> Any:
    """Track: each other hand's first card swapped with a draw-pile card of another value."""
    hands, pile = list(state.hands), list(state.draw_pile)
    for i, hand in enumerate(hands):
        if hand.player == viewer or not hand.cards:
            continue
        other = next((j for j, card in enumerate(pile) if card != hand.cards[0]), None)
        if other is not None:
            pile[other], cards = hand.cards[0], (pile[other], *hand.cards[1:])
            hands[i] = replace(hand, cards=cards)
    return replace(state, hands=tuple(hands), draw_pile=tuple(pile))


def _other_counters(state: Any, viewer: str) -> Any:
    """Battlecars: every other face-down speed counter says something else."""
    return replace(state, declared=tuple((p, s if p == viewer else s + 1) for p, s in state.declared))


def _gm_secrets(state: Any, viewer: str) -> Any:
    """Race: a GM's DC change, a note to another's racer, a boost trap only another racer saw."""
    if viewer == state.gm or not state.racers:
        return state
    from rules.race.state import GmNote

    others = [r for r in state.racers if r.owner != viewer]
    notes = state.notes + tuple(GmNote(r.id, "zq secret note") for r in others)
    racers = tuple(replace(r, sees_traps=(*r.sees_traps, f"{state.section}:0")) if r.owner != viewer else r
                   for r in state.racers)
    return replace(state, dc_changes=(*state.dc_changes, (state.section, 7)), notes=notes, racers=racers)


SECRETS = {"track": _other_hands, "battlecars": _other_counters, "race": _gm_secrets}


def twins(ruleset: Ruleset, state: Any, viewer: str) -> list[tuple[str, Any]]:
    """The states `viewer` cannot tell from `state`, each with what was changed: the dice seed, and where the game
    keeps one from the viewer now, another player's secrets."""
    found = [("the dice seed", replace(state, dice=DiceState(state.dice.seed + 1, state.dice.counter)))]
    secret = SECRETS.get(ruleset.id)
    twin = secret(state, viewer) if secret is not None else state
    if twin != state:
        assert ruleset.view(twin, viewer) == ruleset.view(state, viewer), "a twin looks the same to the viewer"
        found.append((f"{ruleset.id}'s secrets", twin))
    return found


# --- the moments: a played game kept at each kind of moment ----------------------------------------------------

def _copied(kept: str, into: sqlite3.Connection) -> None:
    """The kept database written over `into` (SQLite's backup)."""
    source = sqlite3.connect(kept)
    try:
        source.backup(into)
    finally:
        source.close()


class Moment:
    """A kept copy of the game's database, put back (and a new service opened on it) after anything the probes
    change."""

    def __init__(self, label: str, kept: Path, work: Path):
        self.label, self.kept, self.work = label, kept, work
        self.store: Store | None = None
        self.service: GameService | None = None

    async def open(self) -> GameService:
        if self.store is None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.work}{suffix}").unlink(missing_ok=True)
            shutil.copyfile(self.kept, self.work)
            self.store = await Store.open(str(self.work))
        else:   # SQLite's backup into the open file, on its connection's thread: no file reopened, nothing synced
            connection = self.store.driver._db
            await connection._execute(_copied, str(self.kept), connection._conn)
        self.service = GameService(self.store, render=None, clock=lambda: TABLE_TIME)
        return self.service

    async def close(self) -> None:
        if self.store is not None:
            await self.store.close()
            self.store = None

    async def state(self) -> tuple[Ruleset | None, Any]:
        assert self.store is not None
        record = await self.store.active_game(CHANNEL)
        if record is None:
            return None, None
        ruleset = get_ruleset(record.ruleset)
        return ruleset, ruleset.load_state(record.state)


async def _do(service: GameService, user: str, command: Command, admin: bool = False) -> Reply:
    return await service.execute(CHANNEL, Actor(user, user, admin), command, guild=G)


async def played(table: Table, folder: Path) -> list[Moment]:
    """The table's game kept in the lobby, at the first moment of each phase met (and of some answered), and
    once finished."""
    store = await Store.open(str(folder / "play.db"))
    service = GameService(store, render=None, clock=lambda: TABLE_TIME)
    ruleset = get_ruleset(table.game)
    moments: list[Moment] = []

    async def keep(label: str) -> None:
        kept = folder / f"{len(moments)}.db"
        await store.driver.backup(str(kept))
        moments.append(Moment(label, kept, folder / "work.db"))

    lines = table.opening.lines(table.game, table.seed)
    for number, (user, line) in enumerate(lines):
        if number == 2:
            await keep("lobby")
        reply = await _do(service, user, parse(line))
        assert reply.outcome == "applied", (line, reply.text)
    rng, met = random.Random(table.seed), set()
    for _ in range(MOVES):
        record = await store.active_game(CHANNEL)
        state = ruleset.load_state(record.state) if record else None
        if state is None or ruleset.is_finished(state):
            break
        waiting = ruleset.acting_players(state)
        if (state.phase, len(waiting)) not in met:   # each phase met, and one some have answered: a secret kept
            met.add((state.phase, len(waiting)))
            await keep(f"phase {state.phase}, waiting on {', '.join(waiting)}")
        player = rng.choice(waiting)
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        reply = await _do(service, player, parse(rng.choice(legal).command))
        assert reply.outcome == "applied", reply.text
    else:
        assert (await _do(service, table.opening.host, parse("/game end"), admin=True)).outcome == "applied"
    await keep("finished")
    await store.close()
    return moments


# --- the probes ---------------------------------------------------------------------------------------------------

def fixed_choices(ruleset: Ruleset) -> list[tuple[str, str]]:
    """The options of the game's own moves declared with fixed choices: Discord shows those itself, but the
    service answers for them too (a layout short of room, or another game declaring the option otherwise)."""
    return [(spec.name, o.name) for spec in ruleset.grammar.commands if not spec.query
            for o in spec.options if o.choices and not o.suggest]


def _options_of(ruleset: Ruleset, command: str) -> tuple[str, ...]:
    """The command's autocompleted options this game declares (all of a table-wide command's)."""
    spec = game_spec(ruleset, command)
    declared = {o.name for o in spec.options} if spec is not None else set()
    return tuple(o for o in AUTOCOMPLETED[command] if command in TABLE_WIDE or o in declared)


class Probe:
    """One viewer at one moment: what they are offered, and whether each offer can be taken."""

    def __init__(self, moment: Moment, ruleset: Ruleset, viewer: str):
        self.moment, self.ruleset, self.viewer = moment, ruleset, viewer
        self.dead_ends: list[tuple] = []

    async def offers(self, command: str, option: str, chosen: dict[str, str]) -> list[tuple[str, str]]:
        assert self.moment.service is not None
        return await self.moment.service.suggest(CHANNEL, Actor(self.viewer, self.viewer), command, option, "",
                                                 chosen, guild=G)

    async def seen(self, commands: list[str]) -> dict[tuple, list[tuple[str, str]]]:
        """Every offer to the viewer: each option with nothing chosen, and with one other option's offer chosen."""
        seen = {}
        for command in commands:
            options = _options_of(self.ruleset, command)
            for option in options:
                offers = seen[(command, option, ())] = await self.offers(command, option, {})
                for other in options:
                    for _label, value in offers if other != option else ():
                        chosen = {option: value}
                        seen[(command, other, tuple(chosen.items()))] = await self.offers(command, other, chosen)
        return seen

    async def taken(self, command: str, options: dict[str, str]) -> Reply:
        """`command` sent by the viewer; the moment is opened afresh after anything it changed."""
        assert self.moment.service is not None
        reply = await _do(self.moment.service, self.viewer, Command(command, options))
        if reply.outcome != "refused" and command not in READ_ONLY:
            await self.moment.open()
        return reply

    async def completions(self, command: str, given: dict[str, str]) -> list[dict[str, str]]:
        """The ways the suggestions lead on from `given`: the viewer's legal actions using it, the implied words,
        and the other autocompleted options filled with their own offers."""
        _ruleset, state = await self.moment.state()
        ways = []
        spec = game_spec(self.ruleset, command)
        declared = {o.name for o in spec.options} if spec is not None else set()
        implied = {k: v for k, v in IMPLIED.items() if k in declared and k not in given}
        if implied:
            ways.append({**given, **implied})
        if state is not None and self.viewer in self.ruleset.acting_players(state):
            for legal in self.ruleset.legal_actions(state, self.viewer):
                name, options = parse_command(legal.command)
                if name == command and all(options.get(k, "").lower() == v.lower() for k, v in given.items()):
                    ways.append(options)
        rest = [o for o in _options_of(self.ruleset, command) if o not in given]
        if rest:
            for _label, value in (await self.offers(command, rest[0], given))[:3]:
                filled = {**given, rest[0]: value}
                ways.append({**filled, **implied})
                ways += await self.completions(command, filled) if len(rest) > 1 else []
        return ways

    async def check(self, command: str, chosen: dict[str, str], option: str, value: str) -> None:
        """Record a dead end if `value` offered for `option` leads to no command the table takes."""
        given = {**chosen, option: value}
        ways = [given, *await self.completions(command, given)]
        first = None
        for way in ways:
            if not REQUIRED[command] <= set(way):   # Discord sends no command without its required options
                continue
            reply = await self.taken(command, way)
            if reply.outcome != "refused":
                return
            first = first or reply
        self.dead_ends.append((self.moment.label, self.viewer, command, chosen, option, value,
                               first.text if first else "no way to complete it"))


@dataclass
class Found:
    """What the probes found: dead ends, offers that differ between twins, and how many secrets were compared."""

    dead_ends: list[tuple]
    leaks: list[tuple]
    off_turn: list[tuple]
    secrets: int = 0


async def probe(moment: Moment, viewer: str, table_wide: bool, found: Found) -> None:
    """Into `found`: the dead ends `viewer` meets at `moment`, the offers that differ from a twin's, and a move's
    fixed choices offered to a viewer the game does not wait on."""
    await moment.open()
    ruleset, state = await moment.state()
    if ruleset is None:   # a finished game: nothing but the table-wide offers
        ruleset = get_ruleset((await moment.store.latest_game(CHANNEL)).ruleset)
    commands = [c for c in AUTOCOMPLETED if (c in TABLE_WIDE) == table_wide and _options_of(ruleset, c)]
    person = Probe(moment, ruleset, viewer)
    seen = await person.seen(commands)
    if state is not None:
        record = await moment.store.active_game(CHANNEL)
        for changed, twin in twins(ruleset, state, viewer):
            await moment.store.driver.execute("UPDATE games SET state = ? WHERE id = ?",
                                              (encode_state(twin), record.id))
            other = await person.seen(commands)
            found.leaks += [(moment.label, viewer, changed, key, seen[key], other.get(key))
                            for key in seen if seen[key] != other.get(key)]
            found.secrets += changed != "the dice seed"
        await moment.open()
        waited_on = viewer in ruleset.acting_players(state)
        for command, option in [] if table_wide or waited_on else fixed_choices(ruleset):
            if offers := await person.offers(command, option, {}):
                found.off_turn.append((moment.label, viewer, command, option, offers))
    for (command, option, chosen), offers in seen.items():
        for _label, value in offers:
            await person.check(command, dict(chosen), option, value)
    found.dead_ends += person.dead_ends
    await moment.close()


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t.game}{'-gm' if t.opening.maker else ''}")
async def test_every_suggestion_leads_somewhere_and_shows_no_secret(table, tmp_path):
    """Each suggestion to each viewer at each kind of moment can be taken (by itself, or completed as the
    suggestions lead), and is the same whatever the secrets the viewer may not see; a move's fixed choices are
    offered to nobody the game does not wait on."""
    found = Found([], [], [])
    moments = await played(table, tmp_path)
    labels = [m.label for m in moments]
    assert labels[0] == "lobby" and labels[-1] == "finished" and len(labels) > 2, labels
    for number, moment in enumerate(moments):
        for viewer in table.viewers:
            await probe(moment, viewer, False, found)
        if number == 0:
            await probe(moment, WATCHER, True, found)
    assert not found.leaks, found.leaks[:5]
    assert not found.off_turn, found.off_turn[:5]
    assert found.secrets or table.game not in SECRETS   # the game's own secrets were compared, not only the seed
    assert not found.dead_ends, "\n".join(map(repr, found.dead_ends))
