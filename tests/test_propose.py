"""A result by agreement (issue 38 finding 15): `/game propose draw|end` opens the rollback's vote (every seat
votes through its holder, a seat made for the computer abstains, a resigned player is out); on everyone's yes
the game ends drawn among the players still in, or with no winner, and /stats and /standings count it so.
One vote is open at a time; a no closes it, and the game moving on lapses it."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Edit
from bot.table.service.entry import GameService
from bot.table.service.rollback import PROPOSAL_FLOOR
from bot.table.service.standings import records
from rules.codec import encode_state
from rules.registry import get_ruleset
from tests.conftest import ROOT, run_cli, run_pitboss
from tests.examples import games, lines, third_join
from tests.test_player_clock import Clock, speedway_waiting_on_alice

BACKENDS = ("sqlite", "postgres")
CHANNEL = "propose"


async def run(service, user, line, channel=CHANNEL):
    return await service.execute(channel, Actor(user, user), parse(line), guild="g")


async def started(service, game, seed=3, extra=(), opening=None):
    """The game's example opening (ann and ben; `extra` lines before the start), started."""
    every = lines(game, seed, opening)
    for user, line in [*every[:-1], *extra, every[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (line, game)


async def state_of(store, channel=CHANNEL):
    game = await store.active_game(channel) or await store.latest_game(channel)
    return game, get_ruleset(game.ruleset).load_state(game.state)


def yes_button(reply):
    (button,) = [b for b in reply.buttons if b.label.startswith("Yes")]
    return button


@pytest.mark.parametrize("result", ["draw", "end"])
@pytest.mark.parametrize("game", games())
async def test_a_result_every_seat_agrees_to_ends_the_game_and_is_counted(service, store, game, result):
    """Every game: ann proposes, the game is unchanged while ben has not voted; ben's Yes (a button naming the
    proposal) ends it, replayed exactly by /game verify, and /stats and /standings count it."""
    await started(service, game)
    before, state = await state_of(store)
    asked = await run(service, "ann", f"/game propose {result}")
    if not hasattr(state, "agreed"):   # a plug-in's game that keeps no agreed result (tests/toy): said so
        assert asked.outcome == "refused" and asked.text.endswith("takes no result by agreement: the host ends "
                                                                  "it with /game end."), asked.text
        return
    assert asked.outcome == "shown" and asked.mentions == ("ben",) and asked.vote_proposal, asked.text
    assert ("proposes a draw" if result == "draw" else "proposes ending the game now with no winner") in asked.text
    yes = yes_button(asked)
    assert yes.label == ("Yes, a draw" if result == "draw" else "Yes, end the game")
    assert yes.command == "/game propose vote:yes"
    assert (await store.active_game(CHANNEL)).version == before.version   # a vote alone changes nothing

    agreed = await service.press(CHANNEL, Actor("ben", "ben"), yes.custom_id)
    assert agreed.outcome == "applied", agreed.text
    words = "The table agreed to a draw: ann, ben share it." if result == "draw" else \
        "The table agreed to end the game: it ends with no winner."
    assert words in agreed.text and agreed.mentions == ("ann",)
    game_record, state = await state_of(store)
    assert game_record.status == "finished" and state.winner is None and state.agreed == result
    assert await service.replay_matches(game_record)
    record = "0 won, 1 drawn;" if result == "draw" else "0 won, 0 drawn, 1 ended by agreement;"
    for player in ("ann", "ben"):
        assert f"1 game, {record}" in (await run(service, player, "/stats")).text
    standings = (await run(service, "ann", f"/standings ruleset:{game}")).text
    assert f"0 won of 1 (0%), {record.split(', ', 1)[1].rstrip(';')}" in standings


@pytest.mark.rules_only
async def test_who_may_propose_and_vote_and_when(service, store):
    """The refusals: a lobby, a member with no seat, a second proposal (of either kind, a rollback too) while
    one is open, a second yes, the rollback's own vote command; a finished game; a proposal with nothing."""
    every = lines("track", 3)
    for user, line in every[:-1]:
        await run(service, user, line)
    lobby = await run(service, "ann", "/game propose draw")
    assert lobby.outcome == "refused" and "has not started" in lobby.text
    await run(service, *every[-1])
    bare = await run(service, "ann", "/game propose")
    assert bare.outcome == "refused" and bare.text.startswith("Give draw or end")
    stranger = await run(service, "zed", "/game propose end")
    assert stranger.outcome == "refused" and stranger.text.startswith("Only the seated players vote on a proposed")
    no_vote = await run(service, "ann", "/game propose vote:yes")
    assert no_vote.text == "No vote on a result by agreement is open here; /game propose draw|end opens one."
    assert (await run(service, "ann", "/game propose draw")).outcome == "shown"
    for user, line in (("ben", "/game propose end"), ("ben", "/game propose draw"), ("ben", "/game rollback to:0")):
        again = await run(service, user, line)
        assert again.outcome == "refused" and again.text.startswith("A vote is open already: a draw."), again.text
    twice = await run(service, "ann", "/game propose vote:yes")
    assert twice.text == "You already voted yes to a draw; the vote waits on the others."
    other = await run(service, "ben", "/game rollback vote:yes")
    assert other.outcome == "refused" and "/game propose vote:yes|no answers it" in other.text
    outsider = await run(service, "zed", "/game propose vote:yes")
    assert outsider.outcome == "refused" and outsider.text.startswith("Only the seated players vote")
    assert (await run(service, "ben", "/game propose vote:yes")).outcome == "applied"
    over = await run(service, "ann", "/game propose end")
    assert over.outcome == "refused" and over.text.startswith("Game over: a draw by agreement.")


async def test_a_no_closes_the_vote_and_a_move_lapses_it(service, store):
    """The vote is on the position, as a rollback's: a no ends it (its message says so), and the game moving on
    before everyone agreed makes it lapse; a rollback vote's Yes never counts for a proposal, nor the reverse."""
    await started(service, "track")
    game, state = await state_of(store)
    asked = await run(service, "ann", "/game propose end")
    await service.remember_vote_message(game.id, asked.vote_proposal, "m1")
    refused = await run(service, "ben", "/game propose vote:no")
    assert refused.ephemeral and refused.text == "ben votes no: the game is not ended; the game plays on as it is."
    assert refused.edits == (Edit("m1", "Refused: ann proposed ending the game with no winner, and ben voted no; "
                                        "the game plays on as it is."),)
    old = await service.press(CHANNEL, Actor("ben", "ben"), yes_button(asked).custom_id)
    assert old.outcome == "refused" and old.text == "That vote is over."

    asked = await run(service, "ben", "/game propose draw")
    await service.remember_vote_message(game.id, asked.vote_proposal, "m2")
    (mover,) = get_ruleset("track").acting_players(state)
    own = await service.own_choices(CHANNEL, mover)
    moved = await run(service, mover, own[0].command)
    assert moved.outcome == "applied"
    assert Edit("m2", "Lapsed: ben proposed a draw, and the game moved on before everyone agreed; the game plays "
                      "on.") in moved.edits
    late = await run(service, "ann", "/game propose vote:yes")
    assert late.text.startswith("No vote on a result by agreement is open here")
    assert (await state_of(store))[0].status == "active"


@pytest.mark.rules_only
async def test_a_seats_holder_votes_and_a_resigned_player_neither_votes_nor_draws(service, store):
    """Battlecars of three: cal resigns, ben hands his seat to dave; ann's draw waits on dave alone, and is
    shared by ann and dave's seat; cal's game counts as lost, not drawn."""
    await started(service, "battlecars", extra=(third_join("battlecars"),))
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    asked = await run(service, "ann", "/game propose draw")
    assert asked.mentions == ("dave",) and "drawn among the players still in (ann, ben)" in asked.text, asked.text
    assert (await run(service, "cal", "/game propose vote:no")).outcome == "refused"
    assert (await run(service, "dave", "/game propose vote:yes")).outcome == "applied"
    assert "1 game, 0 won, 1 drawn;" in (await run(service, "dave", "/stats")).text
    assert "1 game, 0 won, 1 drawn;" in (await run(service, "ann", "/stats")).text
    assert "1 game, 0 won, 0 drawn;" in (await run(service, "cal", "/stats")).text
    assert "no game" in (await run(service, "ben", "/stats")).text


@pytest.mark.rules_only
async def test_a_computer_seat_abstains_and_a_persons_seat_the_computer_plays_still_votes(service, store):
    """The rollback's ruling (bot.table.service.rollback.voters): ann with a seat made for the computer agrees
    alone; in another game, ben's seat handed to the computer still waits on ben's vote."""
    for line in ("/game new ruleset:battlecars seed:9", "/game join vehicle:interceptor", "/game add-ai",
                 "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    agreed = await run(service, "ann", "/game propose end")
    assert agreed.outcome == "applied" and "ends with no winner" in agreed.text
    assert "1 ended by agreement" in (await run(service, "ann", "/stats")).text

    await started(service, "battlecars", seed=4)
    assert (await run(service, "ben", "/game seat computer")).outcome == "applied"
    asked = await run(service, "ann", "/game propose draw")
    assert asked.outcome == "shown" and asked.mentions == ("ben",)
    assert (await run(service, "ben", "/game propose vote:yes")).outcome == "applied"


@pytest.mark.rules_only
async def test_a_races_gm_votes_but_shares_no_draw(service, store):
    """A seated GM referees: gina votes on the draw as every seat does, and only the racers share it."""
    race = get_ruleset("race")
    await started(service, "race", opening=race.more_examples[0])
    asked = await run(service, "ann", "/game propose draw")
    assert set(asked.mentions) == {"ben", "gina"} and "(ann, ben)" in asked.text, asked.text
    assert (await run(service, "gina", "/game propose vote:yes")).outcome == "shown"
    done = await run(service, "ben", "/game propose vote:yes")
    assert "The table agreed to a draw: ann, ben share it." in done.text
    assert "no game" in (await run(service, "gina", "/stats")).text


async def test_the_clock_runs_through_a_vote_and_the_autopilot_lapses_it(db_path):
    """A vote never stops the clock: the player waited on keeps their timer, the autopilot plays at the deadline,
    and the vote is then found lapsed; the game waits on a player with a timer again."""
    clock = Clock(1_800_000_000.0)
    store = await Store.open(db_path)
    service = GameService(store, render=None, clock=clock)
    await speedway_waiting_on_alice(service, "chan-1", "g1", "/game settings deadline_hours:2")
    game = await store.active_game("chan-1")
    asked = await service.execute("chan-1", Actor("bob", "bob"), parse("/game propose draw"), guild="g1")
    assert asked.outcome == "shown" and asked.mentions == ("alice",)
    assert {t.player for t in await store.timers(game.id)} == {"alice"}
    clock.now += 3 * 3600
    notices = await service.run_due()
    assert any("autopilot" in n.reply.text for n in notices), [n.reply.text for n in notices]
    assert await store.rollback_vote(game.id) is None   # the autopilot's move lapsed it
    late = await service.execute("chan-1", Actor("alice", "alice"), parse("/game propose vote:yes"), guild="g1")
    assert late.text.startswith("No vote on a result by agreement is open here")
    game = await store.active_game("chan-1")
    waiting = get_ruleset("speedway").acting_players(get_ruleset("speedway").load_state(game.state))
    assert {t.player for t in await store.timers(game.id)} == set(waiting)
    await store.close()


async def test_a_voter_in_their_away_hours_is_asked_without_a_ping(service, store):
    """The question pings only the voters not away (bot.table.service.away), as every message does."""
    await started(service, "track")
    assert (await run(service, "ben", "/me away hours:10")).outcome == "applied"
    asked = await run(service, "ann", "/game propose draw")
    assert asked.outcome == "shown" and asked.mentions == () and "Waiting on ben" in asked.text


def test_a_draw_agreed_on_the_command_line(tmp_path):
    """The command line: a proposal typed as `/game propose draw`, the vote in a process of its own."""
    db = str(tmp_path / "p.db")
    for user, line in lines("track", 3):
        assert run_cli("exec", "--db", db, "--channel", "1", "--user", user, line, cwd=tmp_path).returncode == 0
    asked = run_cli("exec", "--db", db, "--channel", "1", "--user", "ann", "/game propose draw", cwd=tmp_path)
    assert asked.returncode == 0 and "ann proposes a draw" in asked.stdout, asked.stdout + asked.stderr
    voted = run_pitboss("exec", "--db", db, "--channel", "1", "--user", "ben", "/game propose vote:yes", cwd=tmp_path)
    assert voted.returncode == 0 and "The table agreed to a draw: ann, ben share it." in voted.stdout, voted.stderr
    assert "Game over: a draw by agreement." in voted.stdout


@pytest.mark.rules_only
async def test_help_and_the_docs_name_the_proposal(service, store):
    """/help lists /game propose at a running table and explains it; docs/commands.md names both forms."""
    await started(service, "track")
    listed = await run(service, "ann", "/help")
    assert "/game propose" in listed.text
    explained = await run(service, "ann", '/help command:"game propose"')
    assert explained.outcome == "shown" and "a draw among the players still in" in explained.text, explained.text
    docs = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    assert "`/game propose draw\\|end`, `/game propose vote:yes\\|no`" in docs


async def test_a_rollback_vote_stored_before_proposals_still_loads_and_carries(tmp_path):
    """A vote left open in a release 0.2.0 database (schema 15, before votes had a kind) is a rollback's: a
    proposal's vote command is refused, naming it, and its own carries it."""
    path = tmp_path / "release38.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release38.db", path)
    with sqlite3.connect(path) as old:   # as 0.2.0 stored it: carol proposed rolling chan-track back to #30
        old.execute("INSERT INTO rollback_votes (game_id, to_seq, at_seq, proposer, approvals, created_at, proposal)"
                    " VALUES (3, 30, 33, 'carol', '[\"carol\"]', '2026-01-01T00:00:00', ?)", (str(PROPOSAL_FLOOR + 5),))
    store = await Store.open(str(path))
    try:
        service = GameService(store, render=None)
        vote = await store.rollback_vote(3)
        assert vote is not None and vote.kind == "rollback" and vote.approvals == ("carol",)
        other = await run(service, "dave", "/game propose vote:yes", "chan-track")
        assert other.outcome == "refused" and "/game rollback vote:yes|no answers it" in other.text, other.text
        rolled = await run(service, "dave", "/game rollback vote:yes", "chan-track")
        assert rolled.outcome == "applied" and "The table voted to roll back to #30" in rolled.text, rolled.text
    finally:
        await store.close()


@pytest.mark.rules_only
async def test_a_resigned_player_never_counts_a_draw(service, store):
    """/stats: a game drawn by the rules (no vehicle left running) counts as lost for a seat that resigned before
    it, drawn for the others (before issue 38 every seat of a drawn game counted a draw)."""
    await started(service, "battlecars", extra=(third_join("battlecars"),))
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    game, state = await state_of(store)
    drawn = replace(state, phase=type(state.phase).FINISHED, winner=None)   # as the rules leave a draw
    by = records([replace(game, status="finished", state=encode_state(drawn))])["battlecars"]
    assert (by["ann"].draws, by["ben"].draws, by["cal"].draws, by["cal"].games) == (1, 1, 0, 1)
