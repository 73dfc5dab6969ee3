"""Issue 40 item 3: each game's rank order at its end (Ruleset.final_order), for the server's rating, on real
end states of games the computer plays out with fixed seeds, and on the ends a table agrees to."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from bot.storage.store import GameRecord
from bot.table.jobs.rating_jobs import rating_input, seat_turns
from bot.table.protocol.commands import parse
from rules.battlecars.turns import drivers_left
from rules.codec import decode_tagged, dumps, encode_tagged
from rules.engine import replay_states
from rules.race.flow import finish as race_finish
from rules.registry import get_ruleset
from rules.table import Player

HOST = "host"


def played_out(ruleset_id: str, seed: int, moves: int = 100_000) -> tuple[GameRecord, list[tuple[int, str, str, str]]]:
    """A game of computer seats (the game's selfplay set-up) played to its end by the rules alone: its record
    and log as the store would keep them."""
    ruleset = get_ruleset(ruleset_id)
    plan = ruleset.selfplay
    assert plan is not None
    rng = random.Random(seed)
    made = parse(f"/game new ruleset:{ruleset_id} seed:{seed} {plan.new_options(rng)}").options
    options = ruleset.new_game_options({k: v for k, v in made.items() if k not in ("ruleset", "seed")})
    state = ruleset.setup(options, seed, HOST)
    log: list[tuple[str, object]] = []
    for line in [*plan.seats(rng), "/game start"]:
        command = parse(line)
        log.append((HOST, ruleset.command_to_action(command.name, dict(command.options))))
        state = ruleset.apply(state, HOST, log[-1][1])[0]
    while not ruleset.is_finished(state) and moves > 0:
        moves -= 1
        player = ruleset.acting_players(state)[0]
        action = ruleset.computer.choose(state, player)
        log.append((player, action))
        state = ruleset.apply(state, player, action)[0]
    game = GameRecord(1, "c", ruleset_id, "finished", HOST, seed, dumps(options), len(log), "")
    return game, [(n, actor, dumps(encode_tagged(action)), "[]") for n, (actor, action) in enumerate(log, 1)]


def states_of(game: GameRecord, rows) -> list:
    """Every state of a played-out game, re-run from its log."""
    ruleset = get_ruleset(game.ruleset)
    actions = [(actor, decode_tagged(ruleset.actions, json.loads(action))) for _n, actor, action, _e in rows]
    return replay_states(ruleset, json.loads(game.options), game.seed, game.host, actions)


def out_at(game: GameRecord, rows, gone) -> dict[str, int]:
    """When each seat was out by the game's own measure (`gone(state, seat)`), as the action's number."""
    states = states_of(game, rows)
    found: dict[str, int] = {}
    for number, state in enumerate(states):
        for seat in state.players:
            if seat.id not in found and state.phase != "lobby" and gone(state, seat.id):
                found[seat.id] = number
    return found


@pytest.mark.parametrize(("game_id", "seed"), [("speedway", 11), ("battlecars", 3), ("speedway", 9)])
def test_a_car_combat_game_ranks_the_winner_then_the_others_by_when_they_went_out_last_out_higher(game_id, seed):
    """Speedway (seed, Overview: "the last operable car being the victor") and Battlecars (seed, Scoring /
    Victory Conditions: "The last vehicle (or driver) still operational wins. A player is eliminated when
    their driver is killed"): the winner, then the others, the later out the higher, those out at once tied
    (Battlecars seed 3; seed 5 until rules revision 5); a draw at the round cap ties those still running
    (Speedway seed 9)."""
    game, rows = played_out(game_id, seed)
    given = rating_input(game_id, game, rows)
    if game_id == "speedway":
        gone = out_at(game, rows, lambda state, p: not state.operable_cars_of(p))
    else:
        gone = out_at(game, rows, lambda state, p: p not in drivers_left(state))
    final = states_of(game, rows)[-1]
    first, *rest = given.order
    assert first == ((final.winner,) if final.winner else tuple(p.id for p in final.players if p.id not in gone))
    assert sum(len(group) for group in given.order) >= 3, given.order   # three seats or more: an order to check
    assert all(len({gone[seat] for seat in group}) == 1 for group in rest)
    outs = [gone[group[0]] for group in rest]
    assert outs == sorted(outs, reverse=True) and len(set(outs)) == len(outs)
    assert sorted(seat for group in given.order for seat in group) == sorted(p.id for p in final.players)
    if game_id == "battlecars":
        assert any(len(group) == 2 for group in rest)   # two drivers killed by one action: tied


def test_a_race_ranks_as_its_finish_says_finishers_in_order_then_the_later_out_higher():
    """RULES.md Finish (4.2.4 rule 16), as the race's own RaceFinished event lists it."""
    game, rows = played_out("race", 6)
    final = states_of(game, rows)[-1]
    given = rating_input("race", game, rows)
    named = {r.name: r.owner for r in final.racers}
    _state, (told,) = race_finish(replace(final, phase="section"))   # the standings the race announced
    assert given.order == tuple((named[name],) for name in told.standings)
    assert any(r.out for r in final.racers), "a racer went out: the order checks those out too"


def test_a_track_game_ranks_its_winner_then_the_other():
    """Seed: "The first player to get all five of his/her pieces into their Finish area wins!"."""
    game, rows = played_out("track", 2)
    given = rating_input("track", game, rows)
    final = states_of(game, rows)[-1]
    loser = next(p.id for p in final.players if p.id != final.winner)
    assert given.order == ((final.winner,), (loser,))


@pytest.mark.parametrize("game_id", ["speedway", "battlecars", "race", "track"])
def test_an_agreed_draw_ties_those_still_in_an_agreed_or_host_end_ranks_nobody_and_the_resigned_rank_last(game_id):
    ruleset = get_ruleset(game_id)
    game, rows = played_out(game_id, 5, moves=0)
    running = states_of(game, rows)[-1]   # everyone still in
    seats = [p.id for p in running.players if p.id != getattr(running, "gm", None)]
    drawn = replace(running, phase="finished", winner=None, agreed="draw")
    assert ruleset.final_order(drawn, {}) == (tuple(seats),)
    assert ruleset.final_order(replace(drawn, agreed="end"), {}) == ()
    assert ruleset.final_order(replace(running, phase="finished", ended_by=HOST), {}) == ()
    quitter = seats[0]
    resigned = replace(drawn, players=tuple(replace(p, resigned=p.id == quitter) for p in running.players))
    if game_id == "race":   # a resigning racer retires: out of the race
        resigned = replace(resigned, racers=tuple(replace(r, out="retired" if r.owner == quitter else r.out,
                                                          out_order=1 if r.owner == quitter else r.out_order)
                                                  for r in running.racers))
    assert ruleset.final_order(resigned, {}) == (tuple(seats[1:]), (quitter,))


def test_a_seats_turns_are_its_members_own_unless_the_autopilot_the_computer_or_an_earlier_holder_played_them():
    final = type("S", (), {"players": (Player("ann", "ann"), Player("dave", "carol"))})()
    # ann, carol (then her seat's taker dave), alternately: a run of one seat's moves is one turn
    counted = [(0, "ann"), (0, "ann"), (1, "carol"), (0, ""), (1, ""), (0, "ann"), (1, "dave")]
    turns = seat_turns(final, counted)
    assert (turns["ann"].own, turns["ann"].total) == (2, 3)   # one turn the autopilot played
    assert (turns["dave"].own, turns["dave"].total) == (1, 3)   # carol's turn and the computer's are not his
