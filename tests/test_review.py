"""A finished game's review (issue 40 item 5): `/game review` and the final message's Review button give
the turning points (each a roll the log holds, with its exact chance and what followed), the luck of each
player's dice, and a chart of each seat's standing; refused before the end, to everyone."""

from __future__ import annotations

import io
import json
import re
from fractions import Fraction
from itertools import product

import pytest
from PIL import Image

from bot.cli.bench_games import _opening, script
from bot.storage.store import Store
from bot.table.jobs import reviews
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.service.review import NOT_YET
from rules.engine import replay_steps
from rules.registry import get_ruleset
from rules.review import ReviewStep, chance_of_check, ranked, told
from rules.speedway import data as speedway_data
from tests.conftest import run_cli, run_pitboss, track_on_the_command_line

NAMED = re.compile(r"^- \w+ (\d+) \(#(\d+)\): .*? ((?:\[-?\d+\] ?)+): ")   # a turning point's action and faces
ANN, BEN, ZED = Actor("ann", "ann"), Actor("ben", "ben"), Actor("zed", "zed")
BACKENDS = ("sqlite", "postgres")   # the service's test runs on both (PostgreSQL's in the slow tier)


async def _play(service: GameService, store: Store, game: str, seed: int, moves: int, channel: str = "rv"):
    """A whole game of ann and ben (and the example's computers) through the service; the last reply."""
    ruleset = get_ruleset(game)
    for actor, line in _opening(ruleset, seed):
        assert (await service.execute(channel, actor, parse(line))).outcome == "applied"
    early = [await service.execute(channel, who, parse("/game review")) for who in (ANN, BEN, ZED)]
    assert {(r.outcome, r.text, r.files) for r in early} == {("refused", NOT_YET, ())}   # the host too
    for actor, line in script(ruleset, seed, moves):
        last = await service.execute(channel, actor, parse(line))
    assert ruleset.is_finished(ruleset.load_state((await store.latest_game(channel)).state))
    return last


async def test_the_review_names_rolls_the_log_holds_and_the_button_gives_it_to_anyone(service, store):
    final = await _play(service, store, "battlecars", 3, 400)
    assert "Game over" in final.text and "The dice against their average" in final.text
    button = next(b for b in final.buttons if b.label == "Review")
    asked = await service.execute("rv", ANN, parse("/game review"))
    pressed = await service.press("rv", ZED, button.custom_id)
    by_number = await service.execute("rv", BEN, parse("/game review game:1"))
    assert asked.ephemeral and asked.text == pressed.text == by_number.text
    assert [f.data for f in asked.files] == [f.data for f in pressed.files]
    points = [NAMED.match(line) for line in asked.text.splitlines() if line.startswith("- ")]
    assert points and all(points), asked.text
    log = {r.seq: json.loads(r.events) for r in await store.actions(1)}
    for point in points:
        faces = [int(f) for f in re.findall(r"-?\d+", point.group(3))]
        rolls = [e for e in log[int(point.group(2))] if e["type"] == "DiceRolled" and e["success"] is not None]
        assert faces in [e["faces"] for e in rolls], (point.group(0), rolls)
    # the luck is the final message's own line; /game verify re-runs every roll named
    luck = next(line for line in final.text.splitlines() if line.startswith("The dice against"))
    assert luck in asked.text
    assert "rebuilds the table exactly" in (await service.execute("rv", ZED, parse("/game verify"))).text
    chart = Image.open(io.BytesIO(asked.files[0].data))
    assert chart.format == "PNG" and chart.width > chart.height
    assert "armour boxes left by turn" in asked.files[0].description


@pytest.mark.parametrize(("game", "seed", "moves", "any_points"),
                         [("speedway", 5, 400, True), ("battlecars", 3, 400, True), ("race", 1, 600, True),
                          ("track", 3, 400, False)])
def test_each_games_review_proves_each_turning_point_from_its_events(game, seed, moves, any_points):
    """The rules' hook alone, over a whole game: each turning point is a roll of its action with the faces
    and chance it states (the chance counted afresh over every face), and each seat has a standing."""
    ruleset = get_ruleset(game)
    opening = _opening(ruleset, seed)
    made = parse(opening[0][1]).options
    options = ruleset.new_game_options({k: v for k, v in made.items() if k not in ("ruleset", "seed")})
    lines = opening[1:] + script(ruleset, seed, moves)
    actions = []
    for actor, line in lines:
        command = parse(line)
        actions.append((actor.id, ruleset.command_to_action(command.name, {**command.options, "name": actor.name})))
    states = list(replay_steps(ruleset, options, seed, opening[0][0].id, actions))
    assert ruleset.is_finished(states[-1][0])
    hooks = ruleset.review
    steps = [ReviewStep(n, hooks.round_of(before), actor, events, after)
             for n, ((actor, _a), (before, _), (after, events)) in enumerate(zip(actions, states, states[1:]), 1)]
    found = hooks.turning_points(steps) if hooks.turning_points else []
    assert bool(found) == any_points
    for point in found:
        events = [e for e in steps[point.number - 1].events if getattr(e, "faces", None) == point.faces]
        assert events, point.words()
        if game == "speedway":
            sides = speedway_data.driver_die() if "driver" in point.rolled else (1, 2, 3, 4, 5, 6)
            roll = events[0]
            ways = [sum(f) + roll.modifier >= roll.target for f in product(sides, repeat=len(point.faces))]
            assert point.chance == Fraction(ways.count(roll.success), len(ways))
        if game == "race":   # the mover's roll and its target's answer, every face of each counted
            ours = events[0]
            theirs = steps[point.number - 1].events[steps[point.number - 1].events.index(ours) + 1]
            sides = [[(max if r.edge > 0 else min)(f) + sum(v for _k, v in r.modifiers)
                      for f in product(range(1, 21), repeat=len(r.faces))] for r in (ours, theirs)]
            higher = sum(a > b for a in sides[0] for b in sides[1])
            won = ours.total > theirs.total
            assert point.chance == Fraction(higher if won else len(sides[0]) * len(sides[1]) - higher,
                                            len(sides[0]) * len(sides[1]))
    assert len(ranked(found)) == min(3, len([p for p in found if p.chance < 1]))
    final = hooks.standing(states[-1][0])
    assert set(final) == {p.id for p in states[-1][0].players if p.id in final} and len(final) >= 2


def test_a_checks_chance_is_exact_and_a_roll_read_another_way_is_none():
    d6 = (1, 2, 3, 4, 5, 6)
    assert chance_of_check(d6, (5, 3), 0, 8, True) == Fraction(15, 36)        # 2d6 >= 8, made
    assert chance_of_check(d6, (1, 2), 0, 8, False) == Fraction(21, 36)       # and missed
    assert chance_of_check(d6, (1, 1, 1), 2, 6, False) == Fraction(1, 216)    # 3d6 + 2 < 6: all ones
    assert chance_of_check(d6, (3,), 0, 4, True, at_most=True) == Fraction(4, 6)   # a skid on 4 or less
    assert chance_of_check(d6, (2,), 0, 4, True) is None                      # not what the rule gives: no proof
    assert chance_of_check(d6, (7,), 0, 4, True) is None                      # a face the die does not have
    assert told(list("abcdef")) == "a; b; c; d; and 2 more"                    # a long chain, told short


async def test_a_game_past_the_bound_gets_the_luck_alone(tmp_path, monkeypatch):
    store = await Store.open(str(tmp_path / "b.db"))
    service = GameService(store, render=None)
    await _play(service, store, "battlecars", 3, 400)
    monkeypatch.setattr(reviews, "MOST_ACTIONS", 5)
    reply = await service.execute("rv", ZED, parse("/game review"))
    assert "re-runs at most 5" in reply.text and "The dice against their average" in reply.text
    assert not reply.files and "Turning points" not in reply.text
    await store.close()


def test_the_review_on_the_command_line(tmp_path):
    """The local game speaks the same command: refused while the race runs, the chart written once over."""
    db = str(tmp_path / "t.db")
    track_on_the_command_line(db, tmp_path)
    early = run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/game review", cwd=tmp_path)
    assert early.returncode != 0 and NOT_YET in early.stdout
    assert run_cli("exec", "--db", db, "--channel", "c", "--user", "ben", "/game resign confirm:yes",
                   cwd=tmp_path).returncode == 0
    done = run_pitboss("exec", "--db", db, "--channel", "c", "--user", "zed", "--out", str(tmp_path / "out"),
                       "/game review", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr   # in a process of its own, as a player runs it
    assert "Turning points: none (Track deals cards and rolls no dice)" in done.stdout
    assert (tmp_path / "out" / "pitboss-review-1.png").read_bytes().startswith(b"\x89PNG")
