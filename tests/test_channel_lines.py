"""Every action reaches the channel (issue 38, findings 7 and 8): a reply past Discord's 2,000 characters
used to keep whole lines from its end, so one run-on computer turn pushed the rest out (the player's own
ram, a race's final standings, a standing order's shot); and an answer a standing order gave was worded
like a computer's turn, its owner told nothing. Now each action keeps a line, the longest shortened
first (never their end), a standing order's answer is told as its owner's and pings them."""

from __future__ import annotations

import random
from dataclasses import dataclass

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.report import report
from rules.registry import get_ruleset
from rules.speedway.ruleset import SPEEDWAY
from rules.table import ByStandingOrder
from rules.track.ruleset import TRACK
from tests.test_render_speedway import running


@dataclass(frozen=True)
class Said:
    """An event as the channel reads it."""

    words: str

    def describe(self) -> str:
        return self.words


def test_one_run_on_turn_pushes_no_other_action_out():
    """A computer's 1,400-character turn between the player's ram and a standing order's shot and the win:
    every action keeps its line, the run-on one shortened, its end kept."""
    state = running()   # p0 alice, p1 bob
    run_on = tuple(Said(f"bob drives C{i} -> C{i + 1}, facing N.") for i in range(50)) + (Said("bob ends its move."),)
    others = [("p1", run_on),
              ("p0", (ByStandingOrder("alice", "return_fire"), Said("alice fires pod A at bob, range 4."))),
              ("p1", (Said("bob is destroyed (its fuel tank is gone)."),)),
              ("p0", (Said("alice wins: the last driver left."),))]
    own = ["alice rams bob (head-on) at C4."]
    for ruleset in (TRACK, SPEEDWAY):   # no summary of a turn, and one
        text = report(ruleset, state, own, others, 1400)
        lines = text.splitlines()
        assert len(text) <= 1400 and lines[0] == own[0], text
        if ruleset is TRACK:   # its first and last events, the middle left out
            assert lines[1].startswith("bob drives C0 -> C1, facing N. … "), lines[1]
            assert lines[1].endswith("bob drives C49 -> C50, facing N. bob ends its move."), lines[1]
        else:
            assert lines[1] == "bob's turn: 0 Moves.", lines[1]
        assert "alice's standing order (return fire): alice fires pod A at bob, range 4." in lines, text
        ending = ["bob is destroyed (its fuel tank is gone).", "alice wins: the last driver left."]
        pointer = ["(the whole turn: /game log)"] if ruleset is TRACK else []   # only where a line was cut
        assert lines[-len(ending) - len(pointer):] == ending + pointer, text


def test_a_long_answer_by_standing_order_is_no_computers_turn():
    """Speedway sums a long turn up in a line ("NAME's turn: …"); an answer by standing order keeps saying
    it was one."""
    state = running()
    shots = tuple(Said(f"alice fires the front gun at bob: hit {i}, bob takes Armor {i}.") for i in range(8))
    text = report(SPEEDWAY, state, ["bob rams alice."], [("p0", (ByStandingOrder("alice", "ram"), *shots))], 1500)
    assert text.splitlines()[1].startswith("alice's standing order (ram): "), text
    assert "alice's turn" not in text


async def _play(service, store, game: str, seed: int, setup: list[str], orders: dict[str, dict[str, str]],
                moves: int):
    """A seeded game in which each seat that waits plays a random legal action (mostly an attack): every
    reply, with who acted."""
    run = lambda user, line: service.execute("lines", Actor(user, user), parse(line))   # noqa: E731
    for user, line in [("ann", f"/game new ruleset:{game} seed:{seed} {get_ruleset(game).example.options}"),
                       *(("ann" if "add-ai" in line or i == 0 else "ben", line) for i, line in enumerate(setup))]:
        assert (await run(user, line)).outcome == "applied", line
    for user, standing in orders.items():
        for question, answer in standing.items():
            assert (await run(user, f"/orders set question:{question} answer:{answer}")).outcome == "shown"
    replies = [("ann", await run("ann", "/game start"))]
    ruleset, rng = get_ruleset(game), random.Random(seed)
    for _ in range(moves):
        record = await store.active_game("lines")
        if record is None:
            break
        state = ruleset.load_state(record.state)
        player = ruleset.acting_players(state)[0]
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        attacks = [a for a in legal if a.primary]
        replies.append((player, await run(player, rng.choice(attacks if attacks and rng.random() < 0.8 else legal)
                                          .command)))
    return replies


async def test_a_races_final_standings_reach_the_channel(service, store):
    """Seed 5: ann's pass ends the race among two computers' long turns; the standings (the last line) used
    to be hidden as "… 12 earlier events"."""
    replies = await _play(service, store, "race", 5, ["/game join pilot:rookie", "/game add-ai", "/game add-ai"],
                          {"ann": {"reaction": "dodge", "stabilize": "yes"}}, 12)
    _who, last = replies[-1]
    assert await store.active_game("lines") is None and len(last.text) <= 2000
    assert "The race is over. 1. Robo2, 2. Robo1 (wrecked), 3. ann (wrecked)." in last.text, last.text
    assert "earlier events" not in last.text and last.text.startswith("ann tries to pass Robo1.")


async def test_the_ram_that_ends_a_battlecars_game_reaches_the_channel(service, store):
    """Seed 175 (seed 3 until Battlecars rules revision 6 changed the dice): ann crashes, her car takes
    a long run of internal hits, and Robo2 wins: her crash, the first line, used to be cut."""
    seats = ["/game join vehicle:interceptor", "/game add-ai vehicle:rammer", "/game add-ai vehicle:rammer"]
    replies = await _play(service, store, "battlecars", 175, seats, {}, 40)
    _who, last = replies[-1]
    assert await store.active_game("lines") is None and len(last.text) <= 2000
    lines = last.text.splitlines()
    assert lines[0] == "ann crashes into the board's edge and stops dead at A7.", last.text
    assert "Robo2 wins: the last driver left, on foot." in lines and "Next: Game over: Robo2 wins." in lines
    assert lines[-1].startswith("The dice against their average") and lines[-1].endswith("σ."), lines[-1]


async def test_a_standing_order_is_told_as_its_owners_and_pings_them(service, store):
    """ann fires at ben; ben's order returns fire: the channel's line says it was ben's standing order, and
    the reply pings ben, saying why."""
    replies = await _play(service, store, "battlecars", 9, ["/game join vehicle:interceptor",
                                                            "/game join vehicle:rammer"],
                          {"ben": {"return_fire": "attacker"}, "ann": {"return_fire": "attacker"}}, 60)
    fired = [(who, r) for who, r in replies if "'s standing order (return fire): " in r.text]
    assert fired, [r.text for _who, r in replies]
    for who, reply in fired:
        owner = "ben" if who == "ann" else "ann"
        line = next(x for x in reply.text.splitlines() if "'s standing order" in x)
        assert line.startswith(f"{owner}'s standing order (return fire): {owner} fires "), line
        assert owner in reply.mentions and "your standing order answered (below)." in reply.ping_words, reply
        assert " answers by standing order" not in reply.text


async def test_a_rollback_pings_the_owner_of_a_standing_order_that_answers_after_it(service, store):
    """Seed 1: ben's third action draws ann's standing order (return fire). Rolled back to that action, the
    game plays on at once and her order answers again: the rollback's reply says so and pings her."""
    orders = {"ben": {"return_fire": "attacker"}, "ann": {"return_fire": "attacker"}}
    replies = await _play(service, store, "battlecars", 1, ["/game join vehicle:interceptor",
                                                            "/game join vehicle:rammer",
                                                            "/game add-ai vehicle:rammer"], orders, 3)
    who, last = replies[-1]
    assert who == "ben" and "ann's standing order (return fire): " in last.text, last.text
    game = await store.active_game("lines")
    to = max(r.seq for r in await store.recent_actions(game.id, 20) if r.actor == "ben")
    run = lambda user, line: service.execute("lines", Actor(user, user), parse(line))   # noqa: E731
    assert (await run("ann", f"/game rollback to:{to}")).outcome == "shown"
    rolled = await run("ben", "/game rollback vote:yes")
    assert rolled.outcome == "applied" and "ann's standing order (return fire): ann fires " in rolled.text, rolled.text
    assert "ann" in rolled.mentions and "ann: your standing order answered (below)." in rolled.ping_words, rolled
