"""Rollback votes where they meet the other features (issue 36, items 3, 4, 7, 9 and 14): a seat handed to the
computer still votes through its holder, and a lone voter never rolls back dice; a vote button names its
proposal; a GM's private ruling neither lapses a vote nor shows in any answer; two yes votes at once from two
services both count; a finished vote's message and the turns a rollback set aside are edited to say so."""

from __future__ import annotations

import asyncio

from bot.storage.store import Store
from bot.table.protocol.replies import VOTE_PREFIX, Actor
from bot.table.service.entry import GameService
from bot.table.service.rollback import MAX_MARKED
from rules.registry import get_ruleset
from tests.test_rollback import CHANNEL, play, run, started
from tests.test_seats import time_passes

BACKENDS = ("sqlite", "postgres")


async def opened(service, host: str, line: str, players: tuple[str, ...]) -> None:
    for user, command in ((host, line), *((p, "/game join") for p in players), (host, "/game start")):
        reply = await run(service, user, command)
        assert reply.outcome == "applied", (user, command, reply.text)


async def count(store) -> int:
    return len((await store.game_and_actions((await store.active_game(CHANNEL)).id))[1])


def yes_of(reply):
    return next(b for b in reply.buttons if b.label == "Yes, roll back").custom_id


async def test_a_seat_handed_to_the_computer_still_votes_through_its_holder(service, store):
    """Item 3: the host gave ben's seat to the computer; her rollback then waits on ben's vote."""
    await started(service, "battlecars")
    await play(service, store, "battlecars", 3)
    await time_passes(store, 73, CHANNEL)   # ben is gone: the host may act on his seat (issue 36 item 3)
    assert (await run(service, "ann", "/game seat computer player:ben")).outcome == "applied"
    await play(service, store, "battlecars", 3, seed=2)
    before = await store.game_and_actions((await store.active_game(CHANNEL)).id)
    proposed = await run(service, "ann", f"/game rollback to:{len(before[1]) - 1}")
    assert proposed.outcome == "shown" and proposed.mentions == ("ben",), proposed.text
    assert "Waiting on ben" in proposed.text
    assert await store.game_and_actions(before[0].id) == before   # nothing rolled back by the host alone
    done = await run(service, "ben", "/game rollback vote:yes")
    assert done.outcome == "applied", done.text


async def test_one_player_with_computers_never_rolls_back_dice(service, store):
    """Item 3: alone with a computer seat, a rollback past a roll of the dice is refused; one past none is
    not (a seat made for the computer abstains)."""
    for line in ("/game new ruleset:battlecars seed:9", "/game join vehicle:interceptor", "/game add-ai",
                 "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    record, records = await play(service, store, "battlecars", 3)   # #6 and #7 fire: dice; #8 a move
    refused = await run(service, "ann", "/game rollback to:4")
    assert refused.outcome == "refused" and refused.text.startswith("Dice were rolled since #4: you are the only"), \
        refused.text
    assert (await store.game_and_actions(record.id))[1] == records and await store.set_aside(record.id) == {}
    assert (await run(service, "ann", "/game rollback to:7")).outcome == "applied"


async def test_an_older_proposals_yes_never_approves_another(service, store):
    """Item 4: ann proposes to:L-1; cal votes no and proposes to:5 at the same moment of the log; the Yes of
    ann's message, and any button of the old kind (a log position), is refused and changes nothing."""
    await opened(service, "ann", "/game new ruleset:battlecars seed:9", ("ann", "ben", "cal"))
    record, records = await play(service, store, "battlecars", 12)
    first = await run(service, "ann", f"/game rollback to:{len(records) - 1}")
    assert (await run(service, "cal", "/game rollback vote:no")).outcome == "shown"
    second = await run(service, "cal", "/game rollback to:5")
    assert second.outcome == "shown" and yes_of(second) != yes_of(first)
    old_kind = f"{VOTE_PREFIX}:{record.id}:{records[-1].seq}:1"   # as 602805d drew them: game, position, yes
    for user, custom_id in (("ben", yes_of(first)), ("ann", yes_of(first)), ("ben", old_kind)):
        refused = await service.press(CHANNEL, Actor(user, user), custom_id)
        assert refused.outcome == "refused" and refused.text == "That vote is over.", refused.text
    assert (await store.game_and_actions(record.id))[1] == records and await store.set_aside(record.id) == {}
    vote = await store.rollback_vote(record.id)
    assert vote is not None and vote.approvals == ("cal",)
    assert (await service.press(CHANNEL, Actor("ben", "ben"), yes_of(second))).outcome == "shown"


async def _gm_race(service, store, channel: str) -> None:
    """A seated GM's race, played until it waits on the GM again (who may then rule privately)."""
    ruleset = get_ruleset("race")
    for user, line in (("gina", "/game new ruleset:race gm:yes tuning:0 seed:7"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:champion vehicle:podracer"), ("gina", "/game start"),
                       ("gina", "/gm reveal:yes")):
        assert (await run(service, user, line, channel)).outcome == "applied", line
    for _ in range(80):
        state = ruleset.load_state((await store.active_game(channel)).state)
        (player, *_) = ruleset.acting_players(state)
        if player == "gina":
            return
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        assert (await run(service, player, legal[0].command, channel)).outcome == "applied"
    raise AssertionError("the race never came back to its GM")


async def test_a_gms_private_ruling_neither_lapses_a_vote_nor_shows_in_its_answers(service, store):
    """Item 7: two worlds alike but for a private ruling the GM made after alice proposed: every answer the
    racers get is the same, the vote goes on, and the rollback sets the ruling aside with the rest."""
    answers = {}
    for channel, ruled in (("plain", False), ("ruled", True)):
        await _gm_race(service, store, channel)
        said = [await run(service, "alice", "/game rollback to:3", channel)]
        if ruled:
            assert (await run(service, "gina", "/gm change:2", channel)).ephemeral
        said += [await run(service, "bob", "/game rollback vote:yes", channel),
                 await run(service, "bob", "/game rollback vote:yes", channel),
                 await run(service, "alice", "/game rollback to:2", channel),
                 await run(service, "gina", "/game rollback vote:yes", channel)]
        assert said[-1].outcome == "applied", said[-1].text
        said += [await run(service, "alice", line, channel) for line in ("/game log", "/game log set_aside:1")]
        answers[channel] = [(r.outcome, r.ephemeral, r.text, r.mentions) for r in said]
        game = await store.active_game(channel)
        state = get_ruleset("race").load_state(game.state)
        assert state.dc_changes == ()   # the ruling was set aside with the rest
    assert answers["plain"] == answers["ruled"]


async def test_two_yes_votes_at_once_from_two_services_both_count(service, store, db_path):
    """Item 9: ann proposes; ben and cal say yes at the same moment through two services on one database;
    the vote then holds both (dan's no closes it for the next round), round after round."""
    await opened(service, "ann", "/game new ruleset:battlecars seed:9", ("ann", "ben", "cal", "dan"))
    record, records = await play(service, store, "battlecars", 4)
    other_store = await Store.open(db_path)
    other = GameService(other_store)
    try:
        for _ in range(12):
            assert (await run(service, "ann", "/game rollback to:6")).outcome == "shown"
            ben, cal = await asyncio.gather(run(service, "ben", "/game rollback vote:yes"),
                                            run(other, "cal", "/game rollback vote:yes"))
            assert "refused" not in (ben.outcome, cal.outcome), (ben.text, cal.text)
            vote = await store.rollback_vote(record.id)
            assert vote is not None and sorted(vote.approvals) == ["ann", "ben", "cal"], vote
            assert (await run(other, "dan", "/game rollback vote:no")).outcome == "shown"
    finally:
        await other_store.close()
    assert (await store.game_and_actions(record.id))[1] == records


async def test_a_vote_edits_its_one_message_and_a_rollback_marks_the_turns_it_set_aside(service, store):
    """Item 14: the question pings each voter once; a yes edits it (privately acknowledged), a no, a lapse or
    an approval edits it to its outcome with no buttons; the approved rollback marks the last turn messages
    that told what it set aside."""
    await opened(service, "ann", "/game new ruleset:battlecars seed:9", ("ann", "ben", "cal"))
    ruleset = get_ruleset("battlecars")
    game = await store.active_game(CHANNEL)
    for number in range(10):   # each move shown in a turn message of its own, as the Discord adapter does
        await play(service, store, "battlecars", 1, seed=number)
        await service.remember_turn_message(game.id, f"turn{number}", f"m{number}", f"move {number}")
    _, records = await store.game_and_actions(game.id)
    asked = await run(service, "ann", f"/game rollback to:{len(records) - 3}")
    assert asked.mentions == ("ben", "cal") and asked.vote_proposal and not asked.edits
    await service.remember_vote_message(game.id, asked.vote_proposal, "question")
    yes = await run(service, "ben", "/game rollback vote:yes")
    assert yes.ephemeral and not yes.mentions and yes.text.endswith("the vote waits on cal.")
    (edit,) = yes.edits
    assert edit.message_id == "question" and "Yes so far: ann, ben. Waiting on cal" in edit.text and edit.buttons
    done = await run(service, "cal", "/game rollback vote:yes")
    assert done.outcome == "applied"
    question, *marks = done.edits
    assert question.message_id == "question" and question.text.startswith("Approved: ann proposed rolling the "
                                                                          "game back to") and not question.buttons
    assert 0 < len(marks) <= MAX_MARKED and marks[-1].message_id == "m9" and not any(m.buttons for m in marks)
    assert all(m.text.startswith("Set aside by the rollback to #") for m in marks[1:])
    assert marks[-1].text.endswith("move 9")

    asked = await run(service, "ben", "/game rollback to:5")
    await service.remember_vote_message(game.id, asked.vote_proposal, "question2")
    no = await run(service, "cal", "/game rollback vote:no")
    assert no.ephemeral and no.text.startswith("cal votes no")
    assert [(e.message_id, e.text[:38], e.buttons) for e in no.edits] == [
        ("question2", "Refused: ben proposed rolling the game", ())]

    asked = await run(service, "ben", "/game rollback to:5")
    await service.remember_vote_message(game.id, asked.vote_proposal, "question3")
    state = ruleset.load_state((await store.active_game(CHANNEL)).state)
    player = ruleset.acting_players(state)[0]
    moved = await run(service, player, next(a for a in ruleset.legal_actions(state, player) if a.action).command)
    assert [(e.message_id, e.text[:37], e.buttons) for e in moved.edits] == [
        ("question3", "Lapsed: ben proposed rolling the game", ())]
    assert (await run(service, "cal", "/game rollback vote:yes")).text.startswith("No rollback vote is open here")


async def test_a_vote_opened_before_proposals_had_names_is_still_answered_by_command(service, store):
    """A vote stored by 602805d (no proposal named): its buttons are over, /game rollback vote:yes still counts."""
    await started(service, "battlecars")
    record, records = await play(service, store, "battlecars", 6)
    await run(service, "ann", f"/game rollback to:{len(records) - 2}")
    async with store.transaction():
        await store.driver.execute("UPDATE rollback_votes SET proposal = '', message_id = ''")
    old_kind = f"{VOTE_PREFIX}:{record.id}:{records[-1].seq}:1"
    assert (await service.press(CHANNEL, Actor("ben", "ben"), old_kind)).text == "That vote is over."
    assert (await run(service, "ben", "/game rollback vote:yes")).outcome == "applied"
