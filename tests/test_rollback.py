"""A rollback the whole table agrees to (issue 27, item 2): `/game rollback to:N` opens a vote of the seated
people; on everyone's yes the game returns to action N, logs the rollback, and draws its dice from a new
stream of the committed seed; the actions set aside stay readable, exported, imported and verified."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from bot.table.jobs.heavy_jobs import log_rows, rebuilt_snapshot
from bot.table.protocol.commands import Command, CommandSyntaxError, parse
from bot.table.protocol.replies import Actor
from rules.codec import decode_tagged, encode_state, encode_tagged
from rules.dice import DiceState, roll_d6
from rules.engine import replay_states
from rules.registry import get_ruleset
from rules.table import Rollback
from tests.conftest import run_cli
from tests.examples import games, lines

CHANNEL = "rollback"
SEED = 3


async def run(service, user, line, channel=CHANNEL):
    return await service.execute(channel, Actor(user, user), parse(line))


async def started(service, game, seed=SEED):
    """A game of ann and ben by its example opening, started."""
    for user, line in lines(game, seed):
        assert (await run(service, user, line)).outcome == "applied", line


async def play(service, store, game, moves, until=None, seed=1):
    """Seeded moves of whoever is waited on (attacks preferred) until `until(events JSON)` holds for the
    last action, or `moves` were made; the stored log then."""
    ruleset = get_ruleset(game)
    rng = random.Random(seed)
    for move in range(moves):
        record = await store.active_game(CHANNEL)
        if record is None:
            break   # the game is over
        state = ruleset.load_state(record.state)
        player = ruleset.acting_players(state)[0]
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        attacks = [a for a in legal if a.primary]
        chosen = rng.choice(attacks if attacks and rng.random() < 0.9 else legal)
        assert (await run(service, player, chosen.command)).outcome == "applied", chosen.command
        _, records = await store.game_and_actions(record.id)
        if until is not None and move >= 8 and until(records[-1].events):
            break
    game_record = await store.active_game(CHANNEL) or await store.latest_game(CHANNEL)
    return game_record, (await store.game_and_actions(game_record.id))[1]


def fired(events: str) -> bool:
    return '"WeaponFired"' in events


async def test_five_actions_with_a_shot_are_voted_back_and_the_shot_replays_on_the_new_stream(service, store):
    await started(service, "speedway", 5)
    game, records = await play(service, store, "speedway", 300, until=fired)
    assert fired(records[-1].events), "no shot in 300 moves"
    to = len(records) - 5
    before = (game.version, game.state)

    proposed = await run(service, "ann", f"/game rollback to:{to}")
    assert proposed.outcome == "shown" and not proposed.ephemeral
    assert proposed.mentions == ("ben",) and proposed.ping_words == "vote on the rollback."
    assert f"ann proposes rolling the game back to #{to}, setting aside 5 actions" in proposed.text
    unchanged = await store.active_game(CHANNEL)
    assert (unchanged.version, unchanged.state) == before   # a vote alone changes nothing

    refused = await run(service, "ben", "/game rollback vote:no")
    assert refused.text == f"ben votes no: the game is not rolled back to #{to}; the game plays on as it is."
    after_no = await store.active_game(CHANNEL)
    assert (after_no.version, after_no.state) == before
    assert [r.seq for r in (await store.game_and_actions(game.id))[1]] == [r.seq for r in records]
    assert (await run(service, "ben", "/game rollback vote:yes")).text.startswith("No rollback vote is open")

    proposed = await run(service, "ann", f"/game rollback to:{to}")
    yes = next(b for b in proposed.buttons if b.label == "Yes, roll back")
    stranger = await service.press(CHANNEL, Actor("zed", "zed"), yes.custom_id)
    assert stranger.outcome == "refused" and "Only the seated players vote" in stranger.text
    done = await service.press(CHANNEL, Actor("ben", "ben"), yes.custom_id)
    assert done.outcome == "applied", done.text
    assert f"The table voted to roll back to #{to}: 5 actions set aside (/game log set_aside:1" in done.text
    assert done.image is not None and done.mentions == done.waiting_on

    game, live = await store.game_and_actions(game.id)
    assert [r.seq for r in live] == list(range(1, to + 2))
    assert live[:to] == records[:to]
    ruleset = get_ruleset("speedway")
    assert decode_tagged(ruleset.actions, json.loads(live[-1].action)) == Rollback(to, 1, 5, redeal=True)
    set_aside = await store.set_aside(game.id)
    assert [r.seq for r in set_aside[1]] == list(range(to + 1, to + 6))
    assert [(r.actor, r.action, r.events) for r in set_aside[1]] == \
        [(r.actor, r.action, r.events) for r in records[to:]]
    state = ruleset.load_state(game.state)
    rebuilt = replay_states(ruleset, json.loads(game.options), game.seed, game.host,
                            [(r.actor, decode_tagged(ruleset.actions, json.loads(r.action))) for r in records[:to]])[-1]
    assert state.dice == DiceState(game.seed, rebuilt.dice.counter, branch=1)   # the same count, a new stream

    # the same five actions again: the shot is rolled from the rollback's stream
    for record in set_aside[1]:
        action = decode_tagged(ruleset.actions, json.loads(record.action))
        now = ruleset.load_state((await store.active_game(CHANNEL)).state)
        legal = [a for a in ruleset.legal_actions(now, record.actor) if a.action == action]
        assert legal, f"{action} is not legal again"
        assert now.dice.branch == 1
        assert (await run(service, record.actor, legal[0].command)).outcome == "applied"
    game, live = await store.game_and_actions(game.id)
    shot = live[-1]
    assert fired(shot.events)
    before_shot = ruleset.load_state(await _state_before_last(store, ruleset, game))
    assert before_shot.dice.branch == 1
    _, rerun = ruleset.apply(before_shot, shot.actor, decode_tagged(ruleset.actions, json.loads(shot.action)))
    assert json.loads(shot.events) == json.loads(json.dumps([encode_tagged(e) for e in rerun]))
    assert await service.replay_matches(game)
    verify = await run(service, "zed", "/game verify")
    assert "from the seed, and the line its rollback set aside to where it stood, rebuilds the table exactly" \
        in verify.text, verify.text
    # the finished game's export re-plays elsewhere to the same table, the shot set aside included
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    exported = await run(service, "ann", "/game export")
    imported = await service.execute("elsewhere", Actor("ann", "ann"),
                                     Command("game import", {"file": exported.files[0].data}))
    assert imported.outcome == "applied", imported.text
    copy = await store.latest_game("elsewhere")
    assert copy.state == (await store.latest_game(CHANNEL)).state
    assert [r.action for r in (await store.set_aside(copy.id))[1]] == [r.action for r in set_aside[1]]
    assert await service.replay_matches(copy)


async def _state_before_last(store, ruleset, game):
    """The snapshot the game had before its last action, rebuilt from its log."""
    _, records = await store.game_and_actions(game.id)
    return rebuilt_snapshot(ruleset.id, game, log_rows(records[:-1]))


def test_a_branch_draws_other_dice_from_the_same_count():
    """Branch 0 is the stream games always drew from; each rollback's stream differs from it and from the others."""
    assert roll_d6(DiceState(7, 3), 5)[1] == roll_d6(DiceState(7, 3, branch=0), 5)[1]
    streams = {roll_d6(DiceState(7, 3, branch=b), 12)[1] for b in range(5)}
    assert len(streams) == 5
    assert roll_d6(DiceState(7, 3, branch=2), 4)[0] == DiceState(7, 7, branch=2)


@pytest.mark.parametrize("game", games())
async def test_every_game_rolls_back_replays_and_verifies(service, store, game):
    await started(service, game)
    record, records = await play(service, store, game, 6)
    assert (await run(service, "ann", "/game rollback to:3")).outcome == "shown"
    done = await run(service, "ben", "/game rollback vote:yes")
    assert done.outcome == "applied", done.text
    record, live = await store.game_and_actions(record.id)
    assert len(live) == 4 and live[:3] == records[:3]
    state = get_ruleset(game).load_state(record.state)
    assert getattr(state, "dice", None) is None or state.dice.branch == 1   # a game with no dice has no stream
    await play(service, store, game, 6, seed=2)
    assert await service.replay_matches(await store.latest_game(CHANNEL))


async def test_track_deals_its_hands_and_draw_pile_again_so_the_seen_cards_do_not_come_back(service, store):
    await started(service, "track")
    record, records = await play(service, store, "track", 6)
    ruleset = get_ruleset("track")
    at_two = replay_states(ruleset, json.loads(record.options), record.seed, record.host,
                           [(r.actor, decode_tagged(ruleset.actions, json.loads(r.action))) for r in records[:4]])[-1]
    assert at_two.draw_pile
    await run(service, "ann", "/game rollback to:4")
    await run(service, "ben", "/game rollback vote:yes")
    state = ruleset.load_state((await store.active_game(CHANNEL)).state)
    def unseen(table):   # every card held or in the pile
        return sorted([card for hand in table.hands for card in hand.cards] + list(table.draw_pile))
    assert unseen(state) == unseen(at_two)
    assert [(h.player, h.size) for h in state.hands] == [(h.player, h.size) for h in at_two.hands]
    assert state.hands != at_two.hands and state.draw_pile != at_two.draw_pile
    assert state.discard_pile == at_two.discard_pile


async def test_a_move_during_the_vote_makes_it_lapse(service, store):
    await started(service, "battlecars", 9)
    record, records = await play(service, store, "battlecars", 6)
    assert (await run(service, "ann", "/game rollback to:4")).outcome == "shown"
    again = await run(service, "ben", "/game rollback to:5")
    assert again.outcome == "refused" and again.text.startswith("A vote is open already: roll back to #4.")
    await play(service, store, "battlecars", 1, seed=3)   # the move closes the vote (its message says it lapsed)
    lapsed = await run(service, "ben", "/game rollback vote:yes")
    assert lapsed.text.startswith("No rollback vote is open here")
    _, live = await store.game_and_actions(record.id)
    assert len(live) == len(records) + 1 and await store.set_aside(record.id) == {}


async def test_refusals_change_nothing(service, store):
    await started(service, "battlecars", 9)
    record, records = await play(service, store, "battlecars", 4)
    for user, line, words in (
            ("zed", "/game rollback to:1", "Only the seated players vote"),
            ("ann", f"/game rollback to:{len(records)}", "to: give an action before the last (at most"),
            ("ann", "/game rollback", "Give to:N to propose"),
            ("ann", "/game rollback to:2", "to: that is before the game started"),
            ("ann", "/game rollback to:1 vote:yes", "Give to:N to propose"),
            ("ann", "/game rollback vote:yes", "No rollback vote is open here"),
            ("ann", "/game log set_aside:1", "set_aside: this game has no rollback 1 (it has none)")):
        reply = await run(service, user, line)
        assert reply.outcome == "refused" and words in reply.text, (line, reply.text)
    assert (await store.game_and_actions(record.id))[1] == records
    with pytest.raises(CommandSyntaxError, match="to: must be between 0 and"):
        parse("/game rollback to:-1")


async def test_alone_with_the_computer_a_rollback_needs_no_vote_and_undo_leaves_it(service, store):
    for line in ("/game new ruleset:battlecars seed:9", "/game join vehicle:interceptor", "/game add-ai",
                 "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    record, records = await play(service, store, "battlecars", 3)
    done = await run(service, "ann", "/game rollback to:7")   # a move, no dice (tests/test_rollback_votes.py)
    assert done.outcome == "applied" and "The table voted to roll back to #7" in done.text
    await run(service, "ann", "/game end")
    await started(service, "battlecars", 9)   # two people: the rollback is the last action, and the proposer's
    await play(service, store, "battlecars", 3)
    await run(service, "ann", "/game rollback to:4")
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"
    undo = await run(service, "ann", "/undo")
    assert undo.outcome == "refused" and "not taken back by /undo" in undo.text, undo.text


async def test_the_set_aside_actions_are_in_the_log_the_export_and_a_replayed_import(service, store):
    await started(service, "battlecars", 9)
    record, records = await play(service, store, "battlecars", 8)
    await run(service, "ann", "/game rollback to:4")
    await run(service, "ben", "/game rollback vote:yes")
    await play(service, store, "battlecars", 3, seed=4)
    await run(service, "ben", "/game rollback to:4")
    await run(service, "ann", "/game rollback vote:yes")
    await play(service, store, "battlecars", 2, seed=5)
    log = await run(service, "ann", "/game log set_aside:1")
    assert log.ephemeral and log.text.startswith("Set aside by rollback 1:\n#5 ")
    assert "Earlier" not in log.text   # nothing before its first
    last = await run(service, "ann", "/game log set_aside:1 count:1")
    assert last.text.endswith("\nEarlier: /game log set_aside:1 before:11"), last.text
    second = await run(service, "ann", "/game log set_aside:2")
    assert second.text.startswith("Set aside by rollback 2:\n#5 The table voted to roll back to #4")
    assert await service.replay_matches(await store.active_game(CHANNEL))

    assert (await run(service, "ann", "/game end")).outcome == "applied"
    exported = await run(service, "ann", "/game export")
    document = json.loads(exported.files[0].data)
    assert [a["rollback"] for a in document["set_aside"]] == [1, 2]
    assert [a["actions"][0]["seq"] for a in document["set_aside"]] == [5, 5]
    imported = await service.execute("elsewhere", Actor("ann", "ann"),
                                     Command("game import", {"file": exported.files[0].data}))
    assert imported.outcome == "applied", imported.text
    original = await store.latest_game(CHANNEL)
    copy = await store.latest_game("elsewhere")
    assert copy.state == original.state
    assert {k: [(r.seq, r.actor, r.action, r.events) for r in v] for k, v in (await store.set_aside(copy.id)).items()} \
        == {k: [(r.seq, r.actor, r.action, r.events) for r in v]
            for k, v in (await store.set_aside(original.id)).items()}
    assert await store.line_ends(copy.id) == await store.line_ends(original.id)
    assert await service.replay_matches(copy)


async def test_verify_catches_a_set_aside_action_that_was_changed(service, store):
    await started(service, "battlecars", 9)
    record, _ = await play(service, store, "battlecars", 8)
    await run(service, "ann", "/game rollback to:4")
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"
    assert await service.replay_matches(await store.active_game(CHANNEL))
    async with store.transaction():
        await store.driver.execute("UPDATE set_aside SET actor = 'ben' WHERE game_id = ? AND seq = 6", (record.id,))
    assert not await service.replay_matches(await store.active_game(CHANNEL))
    async with store.transaction():
        await store.driver.execute("UPDATE set_aside SET actor = 'ann' WHERE game_id = ? AND seq = 6", (record.id,))
    assert await service.replay_matches(await store.active_game(CHANNEL))
    (snapshot,) = (await store.line_ends(record.id)).values()
    state = get_ruleset("battlecars").load_state(snapshot)
    forged = encode_state(replace(state, dice=replace(state.dice, counter=state.dice.counter + 1)))
    async with store.transaction():   # the line's end as if another die had come up
        await store.driver.execute("UPDATE rollbacks SET snapshot = ? WHERE game_id = ?", (forged, record.id))
    assert not await service.replay_matches(await store.active_game(CHANNEL))


def test_the_command_line_votes_and_rolls_back(tmp_path):
    def cli(user, line):
        done = run_cli("exec", "--db", "g.db", "--channel", "c", "--user", user, line, cwd=tmp_path)
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        return done.stdout
    for user, line in lines("battlecars", 9):
        cli(user, line)
    cli("ann", "/speed value:2")
    assert "ann proposes rolling the game back to #3" in cli("ann", "/game rollback to:3")
    assert "The table voted to roll back to #3: 1 action set aside" in cli("ben", "/game rollback vote:yes")


async def test_a_rollback_to_a_computers_turn_lets_it_play_at_once(service, store):
    """The game as it was may wait on a computer seat: it plays, as after any move (a play-test found the game
    stuck there for good)."""
    for user, line in (("ann", "/game new ruleset:speedway seed:5 arena:duel"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:torch"), ("ann", "/game add-ai"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome == "applied", line
    ruleset = get_ruleset("speedway")
    record, records = await play(service, store, "speedway", 40)
    computer = [r.seq for r in records if r.actor.startswith("ai-")]
    assert computer, "the computer never played"
    to = computer[-1] - 1   # just before one of the computer's actions: it is the computer's turn
    proposed = await run(service, "ann", f"/game rollback to:{to}")
    done = proposed if proposed.outcome == "applied" else await run(service, "ben", "/game rollback vote:yes")
    assert done.outcome == "applied", done.text
    state = ruleset.load_state((await store.active_game(CHANNEL)).state)
    waiting = ruleset.acting_players(state)
    assert waiting and not any(ruleset.is_computer(state, p) for p in waiting), waiting
    assert set(done.mentions) == set(waiting)
    assert await service.replay_matches(await store.active_game(CHANNEL))


async def test_a_rollback_goes_no_further_back_than_a_seat_changing_hands(service, store):
    await started(service, "battlecars", 9)
    await play(service, store, "battlecars", 4)
    resigned = await run(service, "ben", "/game rollback to:4")
    assert resigned.outcome == "shown"
    assert (await run(service, "ann", "/game rollback vote:no")).outcome == "shown"
    assert (await run(service, "ann", "/game seat give to:carol")).outcome == "applied"
    assert (await run(service, "carol", "/game seat take")).outcome == "applied"
    count = await store.action_count((await store.active_game(CHANNEL)).id)
    refused = await run(service, "carol", "/game rollback to:4")
    assert refused.outcome == "refused" and f"A seat changed hands at #{count}" in refused.text, refused.text
    assert f"to #{count} at the earliest" in refused.text


async def test_a_second_yes_is_refused_and_pings_nobody(service, store):
    await started(service, "battlecars", 9)
    await play(service, store, "battlecars", 4)
    assert (await run(service, "ann", "/game rollback to:4")).outcome == "shown"
    again = await run(service, "ann", "/game rollback vote:yes")
    assert again.outcome == "refused" and "You already voted yes" in again.text and not again.mentions


async def test_a_running_game_rolled_back_moves_by_its_export_with_what_it_set_aside(service, store):
    await started(service, "battlecars", 9)
    record, _ = await play(service, store, "battlecars", 6)
    await run(service, "ann", "/game rollback to:4")
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"
    exported = await run(service, "ann", "/game export")
    moved = await service.execute("elsewhere", Actor("ann", "ann"), Command("game import",
                                                                            {"file": exported.files[0].data}))
    assert moved.outcome == "applied" and "moved here" in moved.text, moved.text
    game = await store.active_game("elsewhere")
    assert list(await store.set_aside(game.id)) == [1] and await store.line_ends(game.id)
    assert await service.replay_matches(game)


async def test_a_battlecars_rollback_into_a_speed_step_takes_the_counters_set_there_up(service, store):
    """ann set her counter face down, ben's revealed both; rolled back between the two, ben has seen hers, so
    both set a counter again (a play-test found ben choosing with hers known)."""
    await started(service, "battlecars", 9)
    assert (await run(service, "ann", "/speed value:2")).outcome == "applied"
    assert (await run(service, "ben", "/speed value:2")).outcome == "applied"   # both revealed
    await run(service, "ben", "/game rollback to:4")
    assert (await run(service, "ann", "/game rollback vote:yes")).outcome == "applied"
    ruleset = get_ruleset("battlecars")
    state = ruleset.load_state((await store.active_game(CHANNEL)).state)
    assert state.declared == () and set(ruleset.acting_players(state)) == {"ann", "ben"}
    assert await service.replay_matches(await store.active_game(CHANNEL))
