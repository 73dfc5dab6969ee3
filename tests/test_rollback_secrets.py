"""What a rollback does with hidden things (issue 36, items 1 and 2): the actions it sets aside stay readable,
so Track deals its hands and draw pile anew from the new dice stream, and a Battlecars speed counter that
was never turned up stays withheld from everyone but its driver in every output, wherever it sits."""

from __future__ import annotations

import json
import random
import shutil

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.battlecars.actions import Join, SetSpeed, Start
from rules.battlecars.counters import face_down
from rules.battlecars.events import SpeedsRevealed
from rules.codec import decode_tagged
from rules.engine import Logged, replay_states, replay_steps
from rules.registry import get_ruleset
from rules.table import Rollback
from tests.conftest import ROOT
from tests.test_rollback import CHANNEL, run

TRACK = get_ruleset("track")
CARS = get_ruleset("battlecars")
WITHHELD = {"type": "Withheld", "stands_for": "a speed counter, face down"}


async def _state(store, ruleset):
    return ruleset.load_state((await store.active_game(CHANNEL)).state)


async def _first_legal_until(service, store, count: int) -> None:
    """The waited-on player's first legal play until the log holds `count` actions."""
    while await store.action_count((await store.active_game(CHANNEL)).id) < count:
        state = await _state(store, TRACK)
        player = TRACK.acting_players(state)[0]
        assert (await run(service, player, TRACK.legal_actions(state, player)[0].command)).outcome == "applied"


def _hands(state) -> dict[str, tuple[str, ...]]:
    return {h.player: h.cards for h in state.hands}


async def _plays_set_aside(service, viewer: str) -> list[tuple[str, str]]:
    """(player, card) of each play `/game log set_aside:1` tells `viewer`."""
    told = await run(service, viewer, "/game log set_aside:1")
    assert told.outcome == "shown", told.text
    lines = [line for line in told.text.splitlines() if " played " in line]
    return [(line.split()[1], line.split(" played ")[1].split()[0]) for line in lines]


async def test_a_track_rollback_deals_the_hands_again_so_the_set_aside_plays_tell_nobody_a_held_card(
        service, store):
    """ann and ben hold three cards each at #9; ben, ann and ben play; the table rolls back to #9. A spectator's
    `/game log set_aside:1` names the three cards played (they were played face up), but they are no longer
    known to be in those hands: every held card and the pile were shuffled together and dealt again."""
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    await _first_legal_until(service, store, 9)
    at_nine = await _state(store, TRACK)
    await _first_legal_until(service, store, 12)
    assert (await run(service, "ann", "/game rollback to:9")).outcome == "shown"
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"

    plays = await _plays_set_aside(service, "zed")
    assert [player for player, _ in plays] == ["ben", "ann", "ben"]
    known = [(player, card) for player, card in plays if card in _hands(at_nine)[player]]
    assert len(known) == 3, (plays, _hands(at_nine))   # each came from its player's hand at #9
    after = await _state(store, TRACK)
    assert {p: len(h) for p, h in _hands(after).items()} == {p: len(h) for p, h in _hands(at_nine).items()}
    assert _hands(after) != _hands(at_nine) and after.draw_pile != at_nine.draw_pile
    assert not all(card in _hands(after)[player] for player, card in known), _hands(after)
    assert after.discard_pile == at_nine.discard_pile and after.draw_count == len(after.draw_pile)
    rollback = decode_tagged(TRACK.actions, json.loads((await store.game_and_actions(
        (await store.active_game(CHANNEL)).id))[1][-1].action))
    assert rollback == Rollback(9, 1, 3, redeal=True)
    assert await service.replay_matches(await store.active_game(CHANNEL))


async def test_alone_against_the_computer_a_rollback_is_refused_so_no_set_aside_play_shows_its_hand(service, store):
    """No vote: ann alone with a computer seat. Before, she rolled back alone and read the computer's plays
    as cards back in its hand; a Track rollback deals anew with the dice, so a lone voter may not make one
    (she would deal herself new hands at will), and nothing is set aside."""
    for line in ("/game new ruleset:track seed:3", "/game join", "/game add-ai", "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    await _first_legal_until(service, store, 16)
    game, records = await store.game_and_actions((await store.active_game(CHANNEL)).id)
    computer = [r.seq for r in records if r.actor.startswith("ai-")]
    refused = await run(service, "ann", f"/game rollback to:{computer[-4]}")
    assert refused.outcome == "refused" and "deals what it hides anew" in refused.text, refused.text
    assert await store.game_and_actions(game.id) == (game, records)
    assert "has no rollback 1" in (await run(service, "ann", "/game log set_aside:1")).text


async def _counters(service, store, viewer: str, rollback: int = 0) -> dict[int, object]:
    """Each speed counter action in `viewer`'s export (of what `rollback` set aside), by number, as written."""
    exported = await run(service, viewer, "/game export")
    document = json.loads(exported.files[0].data)
    actions = document["actions"] if not rollback else document["set_aside"][rollback - 1]["actions"]
    return {a["seq"]: a["action"] for a in actions if a["action"]["type"] in ("SetSpeed", "Withheld")}


async def test_a_counter_set_before_a_rollback_into_its_speed_step_stays_face_down_to_the_others(service, store):
    """ann sets 3PT, ben a counter; all three agree to roll back to ann's counter (ben's set aside). The speed
    step starts again, so ann's 3PT is never turned up: a third driver and a spectator never read it, in the
    export, the log, the set-aside actions or the catch-up, even once the new counters are
    turned up; ann still reads her own."""
    for user, line in (("ann", "/game new ruleset:battlecars seed:9"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("cal", "/game join vehicle:gunwagon"),
                       ("ann", "/game start"), ("ann", "/speed value:3PT"), ("ben", "/speed value:1")):
        assert (await run(service, user, line)).outcome == "applied", line
    assert (await run(service, "ann", "/game rollback to:5")).outcome == "shown"
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "shown"
    assert (await run(service, "cal", "/game rollback vote:yes")).outcome == "applied"
    for viewer in ("cal", "zed"):
        assert (await _counters(service, store, viewer))[5] == WITHHELD, viewer
    assert (await _counters(service, store, "ann"))[5] == {"type": "SetSpeed", "speed": -2}

    for user, line in (("cal", "/speed value:1"), ("ann", "/speed value:1"), ("ben", "/speed value:2")):
        assert (await run(service, user, line)).outcome == "applied", line   # ben's reveals the three
    assert (await _state(store, CARS)).phase == "move"
    for viewer in ("cal", "zed"):
        seen = await _counters(service, store, viewer)
        assert seen[5] == WITHHELD and seen[7] == {"type": "SetSpeed", "speed": 1}, (viewer, seen)
        for line in ("/game log", "/game log before:7 count:3", "/game catchup"):
            told = await run(service, viewer, line)
            assert "3PT" not in told.text and "-2" not in told.text, (viewer, line, told.text)
        assert await _counters(service, store, viewer, 1) == {6: WITHHELD}   # ben's was never turned up either
    assert (await _counters(service, store, "ann"))[5] == {"type": "SetSpeed", "speed": -2}
    assert await service.replay_matches(await store.active_game(CHANNEL))


async def test_alone_against_two_computers_a_rollback_shows_no_computers_counter(service, store):
    """The computers set their counters as the turn starts; ann rolls back alone between them. The first
    computer's counter, set before the target and never turned up, stays withheld from her and a
    spectator; the counters set again are withheld as every face-down counter is."""
    for line in ("/game new ruleset:battlecars seed:9", "/game join vehicle:interceptor", "/game add-ai",
                 "/game add-ai", "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    _, records = await store.game_and_actions((await store.active_game(CHANNEL)).id)
    assert [r.actor for r in records[-2:]] == ["ai-1", "ai-2"] and "SetSpeed" in records[-1].action
    done = await run(service, "ann", f"/game rollback to:{len(records) - 1}")
    assert done.outcome == "applied", done.text
    state = await _state(store, CARS)
    assert CARS.acting_players(state) == ("ann",)   # the computers set theirs again at once
    for viewer in ("ann", "zed"):
        seen = await _counters(service, store, viewer)
        assert seen and all(action == WITHHELD for action in seen.values()), (viewer, seen)
        assert list((await _counters(service, store, viewer, 1)).values()) == [WITHHELD], viewer


async def test_games_rolled_back_before_the_redeal_verify_and_play_on(tmp_path):
    """Rolled back by 602805d's code (tests/fixtures/make_rollback_db.py): the Track rollback, logged
    without `redeal`, replays as it was played (the hands as they were); the game plays on, a new rollback
    deals anew, and both verify. The Battlecars counter set before its rollback is withheld now."""
    path = tmp_path / "rollbacks.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "rollbacks602805d.db", path)
    store = await Store.open(str(path))
    try:
        service = GameService(store, render=None)
        for game in await store.all_games():
            assert await service.replay_matches(game), game.channel
        game, records = await store.game_and_actions((await store.active_game("chan-track")).id)
        old = decode_tagged(TRACK.actions, json.loads(records[9].action))
        assert old == Rollback(9, 1, 3) and not old.redeal
        states = replay_states(TRACK, json.loads(game.options), game.seed, game.host,
                               [(r.actor, decode_tagged(TRACK.actions, json.loads(r.action))) for r in records[:10]])
        assert _hands(states[10]) == _hands(states[9])   # as it was played: the hands came back

        async def act(channel: str, user: str, line: str):
            return await service.execute(channel, Actor(user, user), parse(line), guild="guild-1")
        state = TRACK.load_state(game.state)
        player = TRACK.acting_players(state)[0]
        assert (await act("chan-track", player, TRACK.legal_actions(state, player)[0].command)).outcome == "applied"
        count = await store.action_count(game.id)
        assert (await act("chan-track", "ann", f"/game rollback to:{count - 2}")).outcome == "shown"
        assert (await act("chan-track", "ben", "/game rollback vote:yes")).outcome == "applied"
        game, records = await store.game_and_actions(game.id)
        assert decode_tagged(TRACK.actions, json.loads(records[-1].action)).redeal
        assert await service.replay_matches(game)

        cars = await store.active_game("chan-cars")
        exported = await act("chan-cars", "cal", "/game export")
        actions = {a["seq"]: a["action"] for a in json.loads(exported.files[0].data)["actions"]}
        assert actions[5] == WITHHELD   # ann's counter, set before the rollback and never turned up
        assert await service.replay_matches(cars)
    finally:
        await store.close()


def _random_line(seed: int, rollbacks: int) -> tuple[object, list[Logged], set[int]]:
    """A three-driver game of random legal actions, rolled back `rollbacks` times to random points of play:
    its end, its live log, and the counters its states say were never turned up (the oracle: a counter is
    turned up by the reveal its step ends with, and taken up by a rollback that clears the counters set)."""
    rng = random.Random(seed)
    state = CARS.setup(CARS.new_game_options({}), seed, "ann")
    line: list[tuple[str, object]] = []
    for actor, action in (("ann", Join("ann", "interceptor")), ("ben", Join("ben", "rammer")),
                          ("cal", Join("cal", "gunwagon")), ("ann", Start())):
        state, _ = CARS.apply(state, actor, action)
        line.append((actor, action))
    started, states, branch = len(line), [state], 0
    for _ in range(rng.randrange(10, 40)):
        if CARS.is_finished(state):
            break
        if branch < rollbacks and len(states) > 2 and rng.random() < 0.2:
            to = started + rng.randrange(len(states) - 1)
            branch += 1
            state, _ = CARS.apply(states[to - started], "ann", Rollback(to, branch, len(line) - to))
            line, states = line[:to] + [("ann", Rollback(to, branch, len(line) - to))], states[:to - started + 1]
        else:
            player = rng.choice(CARS.acting_players(state))
            action = rng.choice([a for a in CARS.legal_actions(state, player) if a.action is not None]).action
            state, _ = CARS.apply(state, player, action)
            line.append((player, action))
        states.append(state)
    hidden: set[int] = set()
    unturned: list[int] = []
    before = None
    for seq, (after, events) in enumerate(replay_steps(CARS, CARS.new_game_options({}), seed, "ann", line)):
        action = line[seq - 1][1] if seq else None
        if isinstance(action, SetSpeed):
            unturned.append(seq)
        if any(isinstance(e, SpeedsRevealed) for e in events):
            unturned = []
        if isinstance(action, Rollback) and before.declared and not after.declared:
            hidden.update(unturned)
            unturned = []
        before = after
    if not CARS.is_finished(state):
        hidden.update(unturned)
    return state, [Logged(seq, actor, action) for seq, (actor, action) in enumerate(line, start=1)], hidden


@given(seed=st.integers(0, 10_000), rollbacks=st.integers(0, 3))
@settings(max_examples=40, deadline=None, derandomize=True)
def test_a_counter_is_withheld_exactly_while_it_was_never_turned_up(seed, rollbacks):
    """By the log's shape alone (counters.face_down) as by the game's own states and reveals."""
    state, log, hidden = _random_line(seed, rollbacks)
    for viewer in ("zed", "ann"):
        expected = {e.seq for e in log if e.seq in hidden and e.actor != viewer}
        assert set(face_down(state, log, viewer)) == expected, (viewer, [(e.seq, e.actor, e.action) for e in log])
