"""Speedway map rendering: valid, deterministic, small PNGs that change when the table changes."""

from __future__ import annotations

import ast
import io
from dataclasses import replace
from pathlib import Path

from PIL import Image

from images import render
from images.speedway import render_speedway
from images.speedway.arena import frame
from rules.dice import DiceState
from rules.speedway import data
from rules.speedway.cars import new_car
from rules.speedway.state import PendingSkid, Player, RollRecord, SpeedwayState

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NAMES = ("alice", "bob", "carol", "dave", "erin", "frank")
DESIGNS = ("brawler", "sniper", "torch")


def lobby(seats: int = 2) -> SpeedwayState:
    """A game waiting to start, with `seats` players and unplaced cars."""
    designs = data.car_designs()
    players = tuple(Player(f"p{i}", NAMES[i]) for i in range(seats))
    cars = tuple(
        new_car(designs[DESIGNS[i % 3]], f"c{i}", f"p{i}", NAMES[i], i) for i in range(seats)
    )
    return SpeedwayState(arena="classic", host="p0", dice=DiceState(7), players=players, cars=cars)


def running(seats: int = 2) -> SpeedwayState:
    """The same table mid-game: cars on their start slots, p0 moving with speed and inertia."""
    state = lobby(seats)
    starts = data.arena("classic").starts
    cars = tuple(
        replace(car, front=starts[i].front, facing=starts[i].facing, speed=2 + i, inertia=i % 3)
        for i, car in enumerate(state.cars)
    )
    return replace(
        state, cars=cars, phase="movement", order=tuple(p.id for p in state.players), round=0,
        active_car="c0", moves_left=2, moves_total=4,
        last_action="alice turns left from D3 to E4.\nalice gains 2 inertia.",
    )


def skidding(seats: int = 6) -> SpeedwayState:
    """A crowded table: bob out of control and skidding, alice (active) facing a skid decision."""
    state = running(seats)
    bob = state.car("c1")
    damaged = replace(bob.systems, engine=bob.systems.engine.cross(2), driver=bob.systems.driver.cross(1),
                      targeting=bob.systems.targeting.cross(4))
    bob = replace(bob, in_control=False, skid=2, speed=6, inertia=4, systems=damaged,
                  weapons=(replace(bob.weapons[0], track=bob.weapons[0].track.cross(3)),) + bob.weapons[1:])
    state = state.with_car(bob)
    return replace(
        state, phase="skid", pending_skid=PendingSkid("sideslip", 4),
        last_roll=RollRecord("c1", "tries to regain control", (2, 0, 3), 5, 10, False),
        last_action="bob slides one hex NW and loses 1 speed.\nbob tries to regain control and fails.",
    )


def _open(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_png_opens_at_map_width():
    png = render_speedway(running())
    assert png.startswith(PNG_SIGNATURE)
    image = _open(png)
    assert image.mode == "P"
    assert image.width == frame("classic").width
    assert image.height > frame("classic").height


def test_dispatch_by_ruleset_id():
    assert render("speedway", running()) == render_speedway(running())


def test_unknown_ruleset_is_refused():
    try:
        render("no-such-game", running())
    except ValueError:
        return
    raise AssertionError("expected ValueError")


def test_same_state_same_bytes():
    state = skidding()
    assert render_speedway(state) == render_speedway(state)


def test_moving_a_car_changes_the_picture():
    state = running()
    car = state.car("c0")
    moved = state.with_car(replace(car, front=(car.front[0] + 1, car.front[1])))
    assert render_speedway(state) != render_speedway(moved)


def test_lobby_renders_arena_and_seats():
    image = _open(render_speedway(lobby(3)))
    assert image.width == frame("classic").width


def test_empty_lobby_renders():
    state = SpeedwayState(arena="classic", host="p0", dice=DiceState(1))
    assert _open(render_speedway(state)).height >= frame("classic").height


def test_finished_game_renders():
    state = replace(running(), phase="finished", winner="p1", active_car=None)
    assert render_speedway(state).startswith(PNG_SIGNATURE)


def test_pictures_stay_small():
    for state in (lobby(), running(), skidding()):
        assert len(render_speedway(state)) < 250_000


def test_long_last_action_is_wrapped_not_grown_without_bound():
    short = _open(render_speedway(running()))
    long = _open(render_speedway(replace(running(), last_action="word " * 2000)))
    assert long.height - short.height < 200


def test_images_never_import_bot():
    root = Path(__file__).resolve().parents[1] / "images"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(n == "bot" or n.startswith("bot.") for n in names), f"{path} imports bot"


def test_every_player_colour_is_distinct_and_indexes_wrap():
    from images.speedway.style import CAR_COLOURS, car_colour

    assert len(set(CAR_COLOURS)) == 6
    assert car_colour(6) == car_colour(0)


def test_out_of_control_marks_change_the_picture():
    state = running()
    bob = state.car("c1")
    sliding = state.with_car(replace(bob, in_control=False, skid=3))
    assert render_speedway(state) != render_speedway(sliding)
    assert render_speedway(sliding) != render_speedway(sliding.with_car(replace(bob, in_control=False, skid=4)))
