"""No output shows a viewer what they may not see (issue 23, item 3), for every registered game.

Two worlds that differ only in a secret kept from a viewer must look the same to that viewer through
every door: the export, the log, the status with its picture and alt text, verification, the replay,
`/games`, autocomplete and refusals. The worlds are random running games played through the service,
forked where a secret is made: a face-down counter or declared move (Battlecars, the toy), the group's
own track with planted DCs and traps and a seated GM's private rulings (Race), another hand's cards
(Track, where the stored hidden state itself is changed). Speedway's one secret, the dice seed, is
planted as an unmistakable number. The secret's owner (its driver, the GM, the file's author) still
reads it: the rules give them that right.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import tempfile
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.storage import store as store_module
from bot.storage import tournaments as tournaments_stored
from bot.storage.store import Store
from bot.table.league import tournament as tournament_course
from bot.table.protocol.commands import Command, CommandSyntaxError, parse
from bot.table.protocol.replies import Actor, Reply, review_button
from bot.table.service.entry import GameService
from bot.table.service.league import League
from bot.table.service.review import NOT_YET
from rules.codec import encode_state
from rules.registry import get_ruleset, ruleset_ids
from tests.conftest import TABLE_TIME
from tests.examples import games, lines

pytestmark = pytest.mark.slow  # whole games in two worlds, through every door

LOOKS = ("/game export", "/game log count:100", "/game status", "/game verify", "/game replay", "/games", "/help",
         "/game catchup", "/game log set_aside:1",
         "/help command:odds", "/lfg", "/game review",
         "/league roles ruleset:speedway")   # rank roles (issue 40 item 4): from finished games' ratings only
EXAMPLES = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


def _face(reply: Reply) -> tuple:
    """Everything of a reply its reader can see (a CLI file name's version is not a door: see README)."""
    return (reply.outcome, reply.text, reply.image, reply.alt_text, reply.ephemeral,
            tuple((a.command, a.label) for a in reply.legal), reply.waiting_on, reply.mentions,
            tuple((b.label, b.custom_id) for b in reply.buttons), tuple((f.filename, f.data) for f in reply.files))


class World:
    """One game in a database of its own: played on without pictures, looked at with them."""

    def __init__(self, folder: str, name: str):
        self.path = str(Path(folder) / f"{name}.db")

    async def __aenter__(self) -> World:
        self.store = await Store.open(self.path)
        # one fixed clock in both worlds: a deadline or reminder shown is the same moment in each
        self.player = GameService(self.store, render=None, clock=lambda: TABLE_TIME)
        self.looker = GameService(self.store, clock=lambda: TABLE_TIME)
        return self

    async def __aexit__(self, *exc) -> None:
        await self.store.close()

    async def do(self, user: str, line: str, admin: bool = False, **options) -> Reply:
        command = Command(line, options) if options else parse(line)
        return await self.player.execute("c", Actor(user, user, admin), command)

    async def must(self, user: str, line: str, **options) -> Reply:
        reply = await self.do(user, line, **options)
        assert reply.outcome == "applied", (user, line, reply.text)
        return reply

    async def game(self):
        game = await self.store.latest_game("c")
        ruleset = get_ruleset(game.ruleset)
        return game, ruleset, ruleset.load_state(game.state)

    async def wander(self, rng: random.Random, humans: tuple[str, ...], steps: int, stop=None) -> bool:
        """Random legal play by `humans` (computers play themselves) for `steps` actions, or until
        `stop(ruleset, state)`; False when the game ended or nobody can act first."""
        for _ in range(steps):
            _game, ruleset, state = await self.game()
            if ruleset.is_finished(state):
                return False
            if stop is not None and stop(ruleset, state):
                return True
            waiting = [p for p in ruleset.acting_players(state) if p in humans]
            if not waiting:
                return False
            player = rng.choice(waiting)
            legal = [a for a in ruleset.legal_actions(state, player) if not a.command.startswith("/game")]
            if not legal:
                return False
            await self.must(player, rng.choice(legal).command)
        _game, ruleset, state = await self.game()
        return not ruleset.is_finished(state) and (stop is None or stop(ruleset, state))

    async def looks(self, viewer: str) -> dict:
        """What `viewer` gets from every door that reads the game."""
        seen = {}
        for line in LOOKS:
            reply = await self.looker.execute("c", Actor(viewer, viewer), parse(line))
            seen[line] = _face(reply)
        seen["the board of open tables"] = League.board_words(await self.looker.open_tables(""))
        game, ruleset, _state = await self.game()
        for line in ("/stats", f"/stats ruleset:{ruleset.id}", f"/standings ruleset:{ruleset.id}"):   # the ratings
            seen[line] = _face(await self.looker.execute("c", Actor(viewer, viewer), parse(line)))
        seen["the review button"] = _face(await self.looker.press("c", Actor(viewer, viewer),
                                                                  review_button(game.id).custom_id))
        for spec in ruleset.grammar.commands:
            for option in spec.options:
                if option.suggest:
                    seen[f"suggest {spec.name} {option.name}"] = await self.looker.suggest(
                        "c", Actor(viewer, viewer), spec.name, option.name, "", {})
        return seen

    async def review(self, viewer: str) -> tuple:
        """What `viewer` gets from /game review (issue 40 item 5)."""
        return _face(await self.looker.execute("c", Actor(viewer, viewer), parse("/game review")))

    async def refusals(self, viewer: str, lines: list[str]) -> list[tuple]:
        """What `viewer` is told trying each of `lines` (the secret owner's own choices, say)."""
        told = []
        for line in lines:
            try:
                command = parse(line)
            except CommandSyntaxError as exc:
                told.append(("syntax", str(exc)))
                continue
            reply = await self.looker.execute("c", Actor(viewer, viewer), command)
            assert reply.outcome != "applied", line   # probes are chosen among what the viewer may not do
            told.append(_face(reply))
        return told


async def _same_to(viewers: tuple[str, ...], a: World, b: World) -> None:
    for viewer in viewers:
        assert await a.looks(viewer) == await b.looks(viewer), viewer


def _run(coroutine_factory):
    # the store's own clock fixed too: /stats' time to move, from when each action was stored, is the same in each
    stored_at = datetime.fromtimestamp(TABLE_TIME, UTC).isoformat(timespec="seconds")
    with tempfile.TemporaryDirectory() as folder, mock.patch.object(store_module, "_now", lambda: stored_at):
        return asyncio.run(coroutine_factory(folder))


# --- secret declarations: Battlecars' speed counters, the toy's moves --------------------------------------

DECLARATIONS = {
    "battlecars": ("/game new ruleset:battlecars seed:{seed}", "/game join vehicle:interceptor",
                   "/game join vehicle:tank", "/game join vehicle:bike1", "/speed value:"),
    "toy": ("/game new ruleset:toy seed:{seed}", "/game join", "/game join", "/game join", "/move direction:"),
}


async def _declaration_worlds(game_id: str, seed: int, steps: int, folder: str) -> bool:
    new, join_p, join_v, join_third, declare = DECLARATIONS[game_id]
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    async with World(folder, "a") as a, World(folder, "b") as b:
        for world, rng in ((a, rng_a), (b, rng_b)):
            await world.must("alice", new.format(seed=seed))
            await world.must("alice", join_p)
            await world.must("bob", join_v)
            await world.must("dan", join_third)
            await world.must("alice", "/game start")

            def both_wait(ruleset, state) -> bool:
                waiting = ruleset.acting_players(state)
                return "alice" in waiting and "bob" in waiting and \
                    len({a.command for a in ruleset.legal_actions(state, "alice") if a.command.startswith(declare)}) > 1

            if not await world.wander(rng, ("alice", "bob", "dan"), steps, both_wait):
                return False   # this game ended (or could not fork) first: nothing to compare
        _game, ruleset, state = await a.game()
        choices = sorted({x.command for x in ruleset.legal_actions(state, "alice") if x.command.startswith(declare)})
        await a.must("alice", choices[0])
        await b.must("alice", choices[-1])
        probes = [line for line in (choices + ["/end", "/move turn:ahead"]) if line.startswith("/")]
        await _same_to(("bob", "carol"), a, b)
        for world in (a, b):   # a takeover in any phase must not uncover the counters (issue 23, item 2)
            assert (await world.do("bob", "/game takeover", admin=True)).outcome == "applied"
        await _same_to(("bob", "carol"), a, b)
        assert await a.refusals("carol", probes) == await b.refusals("carol", probes)
        own_a, own_b = await a.looks("alice"), await b.looks("alice")
        assert own_a["/game export"] != own_b["/game export"]   # her own choice is hers to read
        for world in (a, b):   # set aside by a rollback (issue 27, item 2), the choice is as secret as it was
            record, _ruleset, _state = await world.game()
            to = await world.store.action_count(record.id) - 2   # before her choice and the takeover
            assert (await world.do("alice", f"/game rollback to:{to}")).outcome == "shown"
            assert (await world.do("bob", "/game rollback vote:yes")).outcome == "shown"
            await world.must("dan", "/game rollback vote:yes")
        await _same_to(("bob", "carol"), a, b)
        own_a, own_b = await a.looks("alice"), await b.looks("alice")
        assert own_a["/game export"] != own_b["/game export"]   # her set-aside choice is still hers to read
        if game_id == "battlecars":   # the toy's rollback leaves its declarations as they were
            await _kept_before_a_rollback(a, b, choices, declare)
        return True


async def _kept_before_a_rollback(a: World, b: World, choices: list[str], declare: str) -> None:
    """Her choice made again, then bob's while dan's is still to come; rolled back to hers (bob's set aside),
    hers was never turned up: it is as secret to dan and a spectator as it was (issue 36, item 2)."""
    _game, ruleset, state = await a.game()
    if {"alice", "bob", "dan"} - set(ruleset.acting_players(state)):
        return   # bob's choice would turn the others up
    for world, choice in ((a, choices[0]), (b, choices[-1])):
        await world.must("alice", choice)
        _game, ruleset, state = await world.game()
        await world.must("bob", next(x.command for x in ruleset.legal_actions(state, "bob")
                                     if x.command.startswith(declare)))
        record, _ruleset, _state = await world.game()
        to = await world.store.action_count(record.id) - 1
        assert (await world.do("alice", f"/game rollback to:{to}")).outcome == "shown"
        assert (await world.do("bob", "/game rollback vote:yes")).outcome == "shown"
        await world.must("dan", "/game rollback vote:yes")
    await _same_to(("dan", "carol"), a, b)


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60))
@EXAMPLES
def test_battlecars_counters_are_the_same_to_everyone_else_whatever_they_say(seed, steps):
    compared = _run(lambda folder: _declaration_worlds("battlecars", seed, steps, folder))
    assert compared or steps > 0   # every turn starts with secret counters: it forks at once


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 12))
@EXAMPLES
def test_the_toys_declared_moves_are_the_same_to_everyone_else_whatever_they_say(seed, steps):
    compared = _run(lambda folder: _declaration_worlds("toy", seed, steps, folder))
    assert compared or steps > 0


# --- the race: the group's own track, a seated GM's private rulings -----------------------------------------

def _own_track(feature: str) -> bytes:
    """The group's own track with one feature before the action: what differs is what only the GM may know."""
    return f"""
[track]
name = "Planted Loop"
[[track.sections]]
name = "Trap Run"
type = "twisted"
hazard = {{ kind = "railing", height = 2 }}
before = [{feature}]
[[track.sections]]
name = "Bend"
type = "curved"
hazard = {{ kind = "coarse_wall", height = 3 }}
""".encode()


async def _race_lobby(world: World, file: bytes | None) -> None:
    await world.must("gina", "/game new ruleset:race gm:yes tuning:0 seed:7")
    if file is not None:
        await world.must("gina", "custom", file=file)


async def _race_file_worlds(folder: str) -> None:
    async with World(folder, "a") as a, World(folder, "b") as b:
        # a boost trap (seen from Perception 25) or a plain boost strip: to racers, both are a boost strip
        await _race_lobby(a, _own_track('{ kind = "boost_trap", dc = 17, speed = 50, detect = 25 }'))
        await _race_lobby(b, _own_track('{ kind = "boost", dc = 29, speed = 50 }'))
        await _same_to(("alice", "bob"), a, b)            # one export in the lobby is enough to leak it
        assert "Race" in (await a.looks("bob"))["/lfg"][1]   # listed as an open table: the same in both worlds
        for world in (a, b):
            await world.must("alice", "/game join pilot:rookie vehicle:racing_swoop")
            await world.must("bob", "/game join pilot:veteran vehicle:podracer")
            await world.must("gina", "/game start")
        await _same_to(("alice", "bob", "carol"), a, b)   # the GM readies the first section
        gm = (await a.looks("gina"))["/game export"][-1][0][1].decode()
        assert "boost_trap" in gm and "dc = 17" in gm      # the GM reads the track


def test_a_groups_own_track_looks_the_same_to_racers_whatever_its_dcs_and_traps():
    _run(_race_file_worlds)


async def _gm_worlds(seed: int, steps: int, rulings_a: list[str], rulings_b: list[str], folder: str) -> None:
    async with World(folder, "a") as a, World(folder, "b") as b:
        for world in (a, b):
            await _race_lobby(world, None)
            await world.must("alice", "/game join pilot:rookie vehicle:racing_swoop")
            await world.must("bob", "/game join pilot:champion vehicle:podracer")
            await world.must("gina", "/game start")

            def readying(ruleset, state) -> bool:
                return ruleset.acting_players(state) == ("gina",) and state.phase.name == "GM"

            # the GM only reveals while wandering: rulings are the fork
            rng = random.Random(seed)
            for _ in range(steps):
                _game, ruleset, state = await world.game()
                if ruleset.is_finished(state):
                    return
                waiting = ruleset.acting_players(state)
                if waiting == ("gina",):
                    await world.must("gina", "/gm reveal:yes" if readying(ruleset, state) else "/gm approve:yes")
                    continue
                player = rng.choice(waiting)
                await world.must(player, rng.choice(ruleset.legal_actions(state, player)).command)
            if not await world.wander(rng, ("alice", "bob"), 200, readying):
                return
        for world, rulings in ((a, rulings_a), (b, rulings_b)):
            for ruling in rulings:
                reply = await world.do("gina", ruling)
                assert reply.outcome in ("applied", "refused"), reply.text
                assert reply.ephemeral, ruling                # never a word in the channel
        await _same_to(("alice", "bob", "carol"), a, b)
        probes = ["/gm change:5", "/gm reveal:yes", "/dcs"]
        assert await a.refusals("alice", probes) == await b.refusals("alice", probes)


RULINGS = st.lists(st.sampled_from(["/gm change:3", "/gm change:-2", "/gm change:11", "/gm condition:fog altitude:3",
                                    "/gm condition:darkness", "/gm condition:-fog", "/undo"]), max_size=4)


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40), rulings_a=RULINGS, rulings_b=RULINGS)
@example(seed=1, steps=0, rulings_a=["/gm condition:darkness"], rulings_b=[])   # the picture showed it early
@example(seed=2, steps=0, rulings_a=["/gm change:3", "/gm change:-2"], rulings_b=["/gm change:11"])
@example(seed=3, steps=9, rulings_a=["/gm change:3", "/undo", "/gm condition:fog altitude:3"], rulings_b=[])
@EXAMPLES
def test_a_gms_private_rulings_look_the_same_to_racers_however_many_and_whatever_they_are(seed, steps, rulings_a,
                                                                                         rulings_b):
    _run(lambda folder: _gm_worlds(seed, steps, rulings_a, rulings_b, folder))


async def _note_worlds(words_a: str, words_b: str, end: bool, folder: str) -> None:
    """The GM tells alice one thing in world a and another in b: to bob and carol (and the channel) the two
    worlds look the same through every door, while the race runs and once it is over; alice reads her own."""
    async with World(folder, "a") as a, World(folder, "b") as b:
        for world, words in ((a, words_a), (b, words_b)):
            await _race_lobby(world, None)
            await world.must("alice", "/game join pilot:rookie vehicle:racing_swoop")
            await world.must("bob", "/game join pilot:champion vehicle:podracer")
            await world.must("gina", "/game start")
            told = await world.must("gina", f'/gm racer:alice tell:"{words}"')
            assert words not in repr(told.notices)          # the channel's line says nothing of it
            if end:
                await world.must("gina", "/game end")
        await _same_to(("bob", "carol"), a, b)
        for world, words in ((a, words_a), (b, words_b)):
            for viewer in ("bob", "carol"):
                assert words not in repr(await world.looks(viewer)), viewer
            if not end:
                assert words in (await world.do("alice", "/notes")).text
                assert words not in (await world.do("bob", "/notes")).text
        if words_a != words_b:
            assert (await a.looks("alice"))["/game export"] != (await b.looks("alice"))["/game export"]
        for world in (a, b):   # the review: refused to all while the race runs, the GM too; the same to all after
            reviews = {viewer: await world.review(viewer) for viewer in ("alice", "bob", "carol", "gina")}
            assert len(set(reviews.values())) == 1, reviews
            assert (reviews["gina"][:2] == ("refused", NOT_YET)) != end


NOTE_WORDS = st.lists(st.sampled_from(["zqbend", "zqwall", "zqleft", "zqboost", "zqmines"]), min_size=1,
                      max_size=4).map(" ".join)


@given(words_a=NOTE_WORDS, words_b=NOTE_WORDS, end=st.booleans())
@example(words_a="zqbend", words_b="zqwall zqleft", end=True)
@EXAMPLES
def test_a_gms_note_looks_the_same_to_everyone_but_its_racer_whatever_it_says(words_a, words_b, end):
    _run(lambda folder: _note_worlds(words_a, words_b, end, folder))


# --- Track: the cards in another hand ------------------------------------------------------------------

async def _hand_worlds(seed: int, steps: int, swap: int, folder: str) -> None:
    async with World(folder, "a") as a, World(folder, "b") as b:
        for world in (a, b):   # one seed for both, so that they deal the same hands
            await world.must("alice", f"/game new ruleset:track seed:{seed}")
            for user in ("alice", "bob"):
                await world.must(user, "/game join")
            await world.must("alice", "/game start")
        rng_a, rng_b = random.Random(seed), random.Random(seed)
        if not (await a.wander(rng_a, ("alice", "bob"), steps) and await b.wander(rng_b, ("alice", "bob"), steps)):
            return
        game, ruleset, state = await b.game()
        hand, pile = list(state.hand("bob").cards), list(state.draw_pile)
        others = [i for i, card in enumerate(pile) if hand and card != hand[swap % len(hand)]]
        if not others:
            return
        mine, theirs = swap % len(hand), others[swap % len(others)]
        hand[mine], pile[theirs] = pile[theirs], hand[mine]   # bob holds another card, the pile the one he had
        other = replace(state, hands=tuple(replace(h, cards=tuple(hand)) if h.player == "bob" else h
                                           for h in state.hands), draw_pile=tuple(pile))
        assert ruleset.view(other, "alice") == ruleset.view(state, "alice")   # the same to alice by her view
        await b.store.driver.execute("UPDATE games SET state = ? WHERE id = ?", (encode_state(other), game.id))
        for viewer in ("alice", "carol"):
            seen_a, seen_b = await a.looks(viewer), await b.looks(viewer)
            for looks in (seen_a, seen_b):   # world b's stored state was changed by hand: it no longer replays
                looks.pop("/game verify")
            assert seen_a == seen_b, viewer
        assert (await a.do("bob", "/hand")).text != (await b.do("bob", "/hand")).text   # bob's own cards


@given(seed=st.integers(0, 10_000), steps=st.integers(0, 30), swap=st.integers(0, 100))
@EXAMPLES
def test_another_hands_cards_look_the_same_to_everyone_else(seed, steps, swap):
    _run(lambda folder: _hand_worlds(seed, steps, swap, folder))


# --- the queue: its pings and its muster's messages ------------------------------------------------------------

QUEUE_SCRIPT = (("ann", "/queue join ruleset:track players:2", "hall"), ("bob", "/queue join ruleset:track players:2",
                "hall"), ("cat", "/queue join ruleset:track players:2", "hall"), ("cat", "/queue show", "hall"),
                ("ann", "/queue confirm", "hall-queue1"), ("bob", "/queue decline", "hall-queue1"),
                ("cat", "/queue confirm", "hall-queue1"), ("ann", "/queue show", "hall"))


def _queue_face(line: str, reply: Reply) -> tuple:
    """What the queue says: a queue command's whole reply and its notices; of a confirmation (a seat taken, the
    game's own reply, whose doors are tested above), the queue's line about its muster."""
    if line != "/queue confirm":
        return _face(reply), tuple((n.channel, _face(n.reply)) for n in reply.notices)
    return reply.outcome, reply.text.splitlines()[-1] if "Queued game" in reply.text else reply.text.splitlines()[0]


async def _queue_worlds(seeds: tuple[int, int], folder: str) -> None:
    from bot.table.service import seating
    told = []
    for name, seed in zip("ab", seeds, strict=True):
        async with World(folder, name) as world:
            with mock.patch.object(seating, "new_seed", lambda seed=seed: seed):
                replies = [(line, await world.player.execute(channel, Actor(user, user), parse(line), guild="g"))
                           for user, line, channel in QUEUE_SCRIPT]
            assert not any(str(seed) in repr(reply) for _line, reply in replies)   # no seed, no hand, anywhere
            told.append([_queue_face(line, reply) for line, reply in replies])
    assert told[0] == told[1]


@given(seed_a=st.integers(10**12, 10**13), seed_b=st.integers(10**12, 10**13))
@EXAMPLES
def test_the_queues_pings_and_muster_look_the_same_whatever_the_queued_games_dice_and_hands(seed_a, seed_b):
    _run(lambda folder: _queue_worlds((seed_a, seed_b), folder))


# --- a league season: its announcement, its pairings, /league show and its standings -----------------------------

SEASON_SCRIPT = (("mod", "/league new ruleset:track season_days:7 max_games:1", "hall"),
                 *((m, "/league join", "hall") for m in ("ann", "bob", "cat", "dan")), ("cat", "/league show", "hall"),
                 ("ann", "/league leave", "hall"), ("mod", "/league end", "hall"), ("bob", "/league show", "hall"))


def _season_face(reply: Reply) -> tuple:
    """What the season says: its reply whole, its own lines in the season's channel whole, and in each game's thread
    the first line of its own message (who was seated: the rest, the game's commitment and its start's table, where
    the dice set the turn order, are the game's own, whose doors are tested above)."""
    told = tuple((n.channel, _face(n.reply) if n.channel == "hall" else n.reply.text.splitlines()[0])
                 for n in reply.notices if n.channel == "hall" or n.reply.text.startswith("Season "))
    return _face(reply), told


async def _season_worlds(seeds: tuple[int, int], folder: str) -> None:
    from bot.table.service import seating
    told = []
    for name, seed in zip("ab", seeds, strict=True):
        async with World(folder, name) as world:
            with mock.patch.object(seating, "new_seed", lambda seed=seed: seed):
                replies = [await world.player.execute(channel, Actor(user, user, user == "mod"), parse(line), guild="g")
                           for user, line, channel in SEASON_SCRIPT]
            assert all(r.outcome in ("applied", "shown") for r in replies), [r.text for r in replies]
            assert sum(len(r.notices) for r in replies) == 6   # two games paired: a line and two thread messages each
            assert not any(str(seed) in repr(reply) for reply in replies)   # no seed, no hand, anywhere
            told.append([_season_face(reply) for reply in replies])
    assert told[0] == told[1]


@given(seed_a=st.integers(10**12, 10**13), seed_b=st.integers(10**12, 10**13))
@EXAMPLES
def test_a_seasons_announcement_pairings_and_show_look_the_same_whatever_its_games_dice_and_hands(seed_a, seed_b):
    _run(lambda folder: _season_worlds((seed_a, seed_b), folder))


# --- the league: /lfg's Join, a tournament's every message, the ratings, the review button -----------------------

LEAGUE = ("ann", "bob", "cat", "dan")
COMMITMENT = re.compile(r"sha256 [0-9a-f]+")


def _unhashed(seen) -> str:
    """What a viewer sees, the dice commitment aside: a hash of the seed, published at each game's start so the dice
    can be checked at its end (it differs with the seed by design, and tells nothing of it)."""
    return COMMITMENT.sub("sha256 <commitment>", repr(seen))


class LeagueWorld:
    """One server's league in a database of its own, its games rolling the secret dice given."""

    def __init__(self, world: World):
        self.world, self.service = world, world.looker

    async def do(self, channel: str, user: str, line: str) -> Reply:
        reply = await self.service.execute(channel, Actor(user, user.title()), parse(line), guild="g")
        assert reply.outcome != "refused", (user, line, reply.text)
        return reply

    async def said(self, channel: str, user: str, line: str) -> tuple:
        """A command's reply and every notice it posts, as their readers see them."""
        reply = await self.do(channel, user, line)
        return _face(reply), tuple((n.channel, _face(n.reply)) for n in reply.notices)

    async def course(self, number: int):
        return tournament_course.load((await tournaments_stored.get(self.world.store, number)).course)

    async def running_games(self, number: int) -> list[tuple[str, str]]:
        """The tournament's games still running: each one's channel and the member seated last."""
        found = []
        for table in (await self.course(number)).tables:
            if table.game_id and table.order is None:
                game = await self.world.store.game(table.game_id)
                if game.status == "active":
                    found.append((game.channel, table.members[-1]))
        return found

    async def doors(self, number: int) -> dict:
        """What each member and a stranger see of the league at its doors while games run: the tournament, the
        ratings, and the review button of each game of it still running (refused to all before its end)."""
        seen = {}
        games = [game_id for t in (await self.course(number)).tables if (game_id := t.game_id) and t.order is None]
        for viewer in (*LEAGUE, "eve"):
            for line in ("/tournament show", "/stats", "/stats ruleset:track", "/standings ruleset:track",
                         "/queue show"):
                seen[viewer, line] = _face(await self.service.execute("hall", Actor(viewer, viewer), parse(line),
                                                                      guild="g"))
            for game_id in games:
                seen[viewer, game_id] = _face(await self.service.press("hall", Actor(viewer, viewer),
                                                                       review_button(game_id).custom_id, guild="g"))
        return seen


async def _league_world(world: World, seed: int) -> list:
    """/lfg and its Join; a tournament of four at Track (each hand dealt by the world's secret dice) announced, signed
    up, started, looked at, carried to its final and its final table (each game's last seat resigns: the results
    are the same in every world, the hands never are). What every door said, in order."""
    from bot.table.service import seating
    seeds = iter(range(seed, seed + 100))
    league = LeagueWorld(world)
    told: list = []
    with mock.patch.object(seating, "new_seed", lambda: next(seeds)):
        await league.do("lobby", "ann", "/new track")
        told.append(await league.said("hall", "eve", "/lfg"))
        told.append(await league.said("hall", "eve", "/lfg game:1"))   # its Join: the reply, the lobby told
        announced = await league.do("hall", "ann", "/tournament new ruleset:track format:elimination players:4 "
                                                 "setup:first_player:host")   # the start the same: the host first
        told.append((_face(announced),))
        (join,) = announced.buttons
        for member in LEAGUE:
            told.append(_face(await world.looker.press("hall", Actor(member, member.title()), join.custom_id,
                                                       guild="g")))
        told.append(await league.said("hall", "ann", "/tournament start"))   # the round's line, each game's messages
        number = int(join.custom_id.split(":")[1])
        told.append(await league.doors(number))
        for _round in range(3):
            running = await league.running_games(number)
            if not running:
                break
            for channel, member in running:
                await league.do(channel, member, "/game resign confirm:yes")
                reviews = {await world.looker.press(channel, Actor(v, v), review_button(
                    (await world.store.latest_game(channel)).id).custom_id, guild="g") for v in (*LEAGUE, "eve")}
                assert len(reviews) == 1 and next(iter(reviews)).outcome == "shown"   # over: one review, for anyone
            told.append(await league.doors(number))   # the ratings now count the finished games
            told.append(tuple((n.channel, _face(n.reply)) for n in await world.looker.run_due()))   # the next round
            told.append(await league.doors(number))
        assert (await league.course(number)).status == "finished"
    return told


async def _league_worlds(seeds: tuple[int, int], folder: str) -> None:
    told = []
    for name, seed in zip("ab", seeds, strict=True):
        async with World(folder, name) as world:
            seen = await _league_world(world, seed)
            assert not any(str(s) in repr(seen) for s in range(seed, seed + 5))   # no game's seed, anywhere
            told.append(seen)
    assert any("Final table" in repr(step) for step in told[0])
    for step_a, step_b in zip(*told, strict=True):   # door by door: the first that differs is named
        assert _unhashed(step_a) == _unhashed(step_b)


@given(seed_a=st.integers(10**12, 10**13), seed_b=st.integers(10**12, 10**13))
@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_leagues_doors_look_the_same_whatever_its_games_dice_and_hands(seed_a, seed_b):
    """/lfg's Join, a tournament's announcement, sign-ups, start, each round's line and each game's opening messages
    in its thread, /tournament show, its final table, /stats, /standings, /queue show and the review button: the same
    to everyone in two worlds whose games rolled other dice and dealt other hands."""
    _run(lambda folder: _league_worlds((seed_a, seed_b), folder))


# --- every game: the dice seed -------------------------------------------------------------------------------

PLANTED_SEED = 7_373_737_373_737


async def _seed_planted(game: str, steps: int, folder: str) -> None:
    async with World(folder, "a") as a:
        for index, (user, line) in enumerate(lines(game, PLANTED_SEED)):
            await a.must(user, line)
            if index == 0:   # its lobby is an open table: /lfg and the board list it, and never its seed
                listed = await a.looks("carol")
                assert get_ruleset(game).title in listed["/lfg"][1] and listed["the board of open tables"][1]
                assert str(PLANTED_SEED) not in repr((listed["/lfg"], listed["the board of open tables"]))
        await a.wander(random.Random(steps), ("ann", "ben"), steps)
        record, ruleset, state = await a.game()
        for viewer in ("ann", "ben", "carol") if not ruleset.is_finished(state) else ():   # before the end
            looks = json.dumps({k: repr(v) for k, v in (await a.looks(viewer)).items()})
            assert str(PLANTED_SEED) not in looks, viewer
        if record.status == "active":
            assert (await a.do(ruleset.example.host, "/game review")).text == NOT_YET   # the host too
            await a.do(ruleset.example.host, "/game end")
        export = (await a.looks("carol"))["/game export"]
        assert json.loads(export[-1][0][1])["seed"] == PLANTED_SEED   # over: the seed is everyone's
        reviews = {await a.review(viewer) for viewer in ("ann", "ben", "carol")}
        assert len(reviews) == 1 and next(iter(reviews))[0] == "shown"   # over: the one review, for anyone


@pytest.mark.parametrize("game", games())
@given(steps=st.integers(0, 40))
@EXAMPLES
def test_no_games_dice_seed_reaches_an_output_before_the_end(game, steps):
    """Every registered game, set up by its example opening with a planted seed (Speedway's one secret)."""
    _run(lambda folder: _seed_planted(game, steps, folder))


def test_every_registered_game_has_its_secrets_tested_here():
    """Every game's planted seed is tested above, by its example; a game with a secret of its own (a face-down
    choice, a GM's ruling, a hand) adds its worlds here, and the whole-table model forks on any such secret."""
    marks = {m.name: m.args for m in test_no_games_dice_seed_reaches_an_output_before_the_end.pytestmark}
    assert tuple(marks["parametrize"][1]) == ruleset_ids()
