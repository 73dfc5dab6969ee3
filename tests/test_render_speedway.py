"""Speedway map rendering: valid, deterministic, small PNGs that change when the table changes."""

from __future__ import annotations

import ast
import io
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from images import render
from images.speedway import map_band, render_sheets, render_speedway
from images.speedway.arena import frame
from rules.dice import DiceState
from rules.errors import BadOption
from rules.hexgrid import direction_index, parse_label
from rules.speedway import data
from rules.speedway.cars import new_car
from rules.speedway.events import (
    CarManeuvered,
    CarSlid,
    DamageTaken,
    DiceRolled,
    GameDrawn,
    InertiaGained,
    SpeedLost,
    WeaponFired,
)
from rules.speedway.state import Hazard, PendingRam, PendingSkid, Player, SpeedwayState

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
    )


# What the last action of each table did: the caption's words, dice and the map's shot come from these.
RUNNING_LAST = (CarManeuvered("alice", "turn left", "D3", "E4", "NE", 0), InertiaGained("alice", 2, "turn"))
SKIDDING_LAST = (CarSlid("bob", "NW", "K9", "sideslip"), SpeedLost("bob", 5),
                 DiceRolled("bob", "tries to regain control", "control: Driver Roll vs speed + inertia",
                            "white driver dice", (2, 0, 3), 5, 10, False, car_id="c1"))
COMBAT_LAST = (WeaponFired("alice", "Vulcan Machine Gun (Front)", "bob", 6, car_id="c0", target_id="c1"),
               DiceRolled("alice", "rolls to hit", "to hit", "d6", (4, 2, 6), 12, 6, True, modifier=0, car_id="c0"),
               DamageTaken("bob", ("3 Armor", "catches fire")))


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
    )


COMBAT_DESIGNS = ("brawler", "sniper", "torch", "lancer", "bruiser", "torch")
COMBAT_POSES = (("J8", "E"), ("P8", "W"), ("M11", "NE"), ("H13", "NE"), ("S10", "NW"), ("E5", "SE"))


def _hazard(ident: int, kind: str, at: str, owner: str) -> Hazard:
    return Hazard(ident, kind, parse_label(at), owner)


def combat(seats: int = 6) -> SpeedwayState:
    """A busy fight: cars in the middle, hazards down, fire, a wreck, weapons fired and spent, a shot."""
    designs = data.car_designs()
    players = tuple(Player(f"p{i}", NAMES[i], ai=i in (3, 5)) for i in range(seats))
    cars = []
    for i in range(seats):
        car = new_car(designs[COMBAT_DESIGNS[i]], f"c{i}", f"p{i}", NAMES[i], i)
        front, facing = COMBAT_POSES[i]
        cars.append(replace(car, front=parse_label(front), facing=direction_index(facing), speed=1 + i,
                            inertia=i % 4))
    alice, bob = cars[0], cars[1]
    cars[0] = replace(alice, fired=("Front",), fire_chips=0,
                      weapons=(alice.weapons[0], replace(alice.weapons[1], charges=1)))
    bob_systems = replace(bob.systems, armor=bob.systems.armor.cross(3), engine=bob.systems.engine.cross(1))
    cars[1] = replace(bob, fire_chips=2, systems=bob_systems, in_control=False, skid=1,
                      weapons=(replace(bob.weapons[0], track=bob.weapons[0].track.cross(1)),
                               replace(bob.weapons[1], charges=0)))
    if seats > 3:
        dave = cars[3]
        cars[3] = replace(dave, out=True, speed=0, fire_chips=1,
                          systems=replace(dave.systems, armor=dave.systems.armor.cross(6),
                                          driver=dave.systems.driver.cross(6)))
    if seats > 2:
        cars[2] = replace(cars[2], must_turn=True, oil_drops_left=3,
                          weapons=(cars[2].weapons[0], replace(cars[2].weapons[1], charges=1),
                                   cars[2].weapons[2]))
    hazards = (
        _hazard(1, "mine", "I10", "c0"), _hazard(2, "mine", "K11", "c0"), _hazard(3, "oil", "L12", "c2"),
        _hazard(4, "oil", "L13", "c2"), _hazard(5, "oil", "K13", "c2"), _hazard(6, "smoke", "Q8", "c1"),
        _hazard(7, "smoke", "R7", "c1"), _hazard(8, "smoke", "R8", "c1"), _hazard(9, "mine", "O10", "c4"),
        _hazard(10, "oil", "O10", "c2"),
    )
    return SpeedwayState(
        arena="classic", host="p0", dice=DiceState(7), players=players, cars=tuple(cars), phase="movement",
        # round 2 turns the seating order by two seats, so alice (p0) is up
        order=tuple(p.id for p in players[-2:] + players[:-2]), round=2, active_car="c0",
        moves_left=1, moves_total=1,
        hazards=hazards, next_hazard_id=11,
    )


def _ram(state: SpeedwayState, chooser: str) -> PendingRam:
    """alice (c0) has rammed bob (c1) and `chooser` won the roll-off."""
    bob = state.car("c1")
    return PendingRam(attacker="c0", defender="c1", struck=bob.front, chooser=chooser, front=bob.front,
                      facing=state.car("c0").facing)


def _open(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_png_opens_at_map_width():
    png = render_speedway(running())
    assert png.startswith(PNG_SIGNATURE)
    image = _open(png)


    assert image.height > frame("classic").height


def test_dispatch_by_ruleset_id():
    assert render("speedway", running()) == render_speedway(running())
    assert render("speedway", running(), RUNNING_LAST) == render_speedway(running(), RUNNING_LAST)


def test_unknown_ruleset_is_refused():
    try:
        render("no-such-game", running())
    except ValueError:
        return
    raise AssertionError("expected ValueError")


def test_same_state_same_bytes():
    state = skidding()
    assert render_speedway(state, SKIDDING_LAST) == render_speedway(state, SKIDDING_LAST)


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
    for state, last in ((lobby(), ()), (running(), RUNNING_LAST), (skidding(), SKIDDING_LAST)):
        assert len(render_speedway(state, last)) < 250_000


def test_long_last_action_is_wrapped_not_grown_without_bound():
    short = _open(render_speedway(running(), RUNNING_LAST))
    long = _open(render_speedway(running(), (GameDrawn("word " * 2000),)))
    assert long.size == short.size


def test_the_caption_tells_the_last_actions_events():
    """The words and dice under the title are the events': other events, another picture; none, none."""
    state = skidding()
    pictures = {render_speedway(state, last) for last in ((), RUNNING_LAST, SKIDDING_LAST, SKIDDING_LAST[:2])}
    assert len(pictures) == 4
    assert len({_open(picture).size for picture in pictures}) == 1     # one size, whatever it says


def test_events_logged_before_they_carried_car_ids_draw_the_same_shot():
    state = combat()
    by_name = tuple(replace(e, car_id="", target_id="") if isinstance(e, WeaponFired) else
                    replace(e, car_id="") if isinstance(e, DiceRolled) else e for e in COMBAT_LAST)
    assert render_speedway(state, by_name) == render_speedway(state, COMBAT_LAST)
    gone = replace(COMBAT_LAST[0], target="nobody", target_id="")  # a car the state does not have: no line
    assert map_band(state, (gone,) + COMBAT_LAST[1:]).tobytes() == map_band(state, ()).tobytes()
    assert map_band(state, COMBAT_LAST).tobytes() != map_band(state, ()).tobytes()


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
    from images.palette import CAR_COLOURS, car_colour

    assert len(set(CAR_COLOURS)) == 6
    assert car_colour(6) == car_colour(0)


def test_a_players_second_car_wears_the_owners_colour_with_a_stripe():
    """Issue 13: distinct cars, the owner's colour kept on a player's second car (striped) and on its tag
    and chip bars; the other players keep their own colours."""
    from images.palette import car_colour
    from images.speedway.counters import counter_sprite
    from images.speedway.livery import liveried, pattern

    state = running(3)
    second = replace(state.cars[1], owner="p0", name="alice-2")          # alice's second car, seat 1
    state = replace(state, cars=(state.cars[0], second, state.cars[2]))
    drawn = liveried(state)
    assert [c.colour for c in drawn.cars] == [0, 6, 2]                     # bob's seat colour unchanged
    assert car_colour(drawn.cars[1].colour) == car_colour(0) and [pattern(c.colour) for c in drawn.cars] == [0, 1, 0]
    assert liveried(running(3)) == running(3)                              # one car each: nothing changes
    plain, striped = (counter_sprite(colour, 0, False, True).convert("RGB") for colour in (0, 6))
    assert plain.tobytes() != striped.tobytes()
    def white(sprite):
        return sum(n for n, colour in sprite.getcolors(1 << 16) if colour == (255, 255, 255))
    assert white(striped) > white(plain) + 40                              # the stripe itself
    bobs = replace(state, cars=(state.cars[0], replace(second, owner="p1"), state.cars[2]))
    assert render_speedway(state) != render_speedway(bobs)                 # the livery reaches the page


def test_fewer_cars_get_wider_chips_and_no_figure_is_too_small_for_a_phone():
    from images.speedway.status import band_height, chip_columns, smallest_text

    two_rows = band_height(2)
    assert [chip_columns(n, two_rows, 3) for n in (1, 2, 3, 4, 5, 6)] == [2, 2, 2, 2, 3, 3]
    assert chip_columns(4, band_height(4), 1) == 1                         # the sidebar stays one column
    assert smallest_text(963) == 21 and smallest_text(825) == 18          # 9 px once shown 420 px wide
    assert all(size * 420 / width >= 9 for width in (825, 947, 963) for size in [smallest_text(width)])


def test_out_of_control_marks_change_the_picture():
    state = running()
    bob = state.car("c1")
    sliding = state.with_car(replace(bob, in_control=False, skid=3))
    assert render_speedway(state) != render_speedway(sliding)
    assert render_speedway(sliding) != render_speedway(sliding.with_car(replace(bob, in_control=False, skid=4)))


def test_same_combat_state_same_bytes():
    state = combat()
    assert render_speedway(state, COMBAT_LAST) == render_speedway(state, COMBAT_LAST)


def test_busy_combat_picture_stays_small():
    finished = replace(combat(), phase="finished", winner="p4", active_car=None)
    ramming = replace(combat(), pending_ram=_ram(combat(), "p1"))
    for state in (combat(), finished, ramming):
        assert len(render_speedway(state, COMBAT_LAST)) < 250_000


def test_hazards_change_the_picture():
    state = combat()
    base = render_speedway(replace(state, hazards=()))
    for hazard in state.hazards:
        assert render_speedway(replace(state, hazards=(hazard,))) != base, hazard.kind


def test_hazard_kinds_look_different():
    state = replace(combat(), hazards=())
    pictures = {kind: render_speedway(replace(state, hazards=(_hazard(1, kind, "K10", "c0"),)))
                for kind in ("mine", "oil", "smoke")}
    assert len(set(pictures.values())) == 3


def test_last_shot_hit_and_miss_change_the_picture():
    state = combat()
    shot, roll, damage = COMBAT_LAST
    none = render_speedway(state, (roll,))
    hit = render_speedway(state, (shot, roll))
    miss = render_speedway(state, (shot, replace(roll, success=False)))
    assert len({none, hit, miss}) == 3
    # The line is the shot's: the same words without the WeaponFired event draw no line.
    assert render_speedway(state, (shot, roll, damage)) != render_speedway(state, (roll, damage))


def test_wrecked_car_changes_the_picture():
    state = running()
    bob = state.car("c1")
    assert render_speedway(state) != render_speedway(state.with_car(replace(bob, out=True)))


def test_fire_chips_change_the_picture():
    state = running()
    bob = state.car("c1")
    one = render_speedway(state.with_car(replace(bob, fire_chips=1)))
    two = render_speedway(state.with_car(replace(bob, fire_chips=2)))
    assert len({render_speedway(state), one, two}) == 3


def test_weapon_rows_show_charges_fired_and_disabled():
    state = running()
    alice = state.car("c0")
    mines = alice.weapons[1]
    with_mines = [state.with_car(replace(alice, weapons=(alice.weapons[0], replace(mines, charges=n))))
                  for n in (1, 0)]
    fired = state.with_car(replace(alice, fired=("Front",)))
    pictures = {render_sheets(s) for s in (state, *with_mines, fired)}      # the full sheets, on request
    assert len(pictures) == 4


def test_winner_banner_changes_the_picture():
    state = replace(running(), phase="finished", active_car=None)
    pictures = {render_speedway(replace(state, winner=w, ended_by=e))
                for w, e in ((None, None), ("p0", None), ("p1", None), (None, "alice"))}
    assert len(pictures) == 4


def test_ramming_prompt_and_must_turn_change_the_picture():
    state = running()
    ram = replace(state, pending_ram=_ram(state, "p1"))
    turn = state.with_car(replace(state.car("c0"), must_turn=True))
    assert len({render_speedway(state), render_speedway(ram), render_speedway(turn)}) == 3


def test_driver_dice_and_d6_look_different():
    state = skidding()
    roll = replace(SKIDDING_LAST[-1], faces=(2, 1, 3))
    assert render_speedway(state, (replace(roll, dice="d6"),)) != render_speedway(state, (roll,))


def test_ai_players_are_tagged():
    state = running()
    ai = replace(state, players=(state.players[0], replace(state.players[1], ai=True)))
    assert render_speedway(state) != render_speedway(ai)


def test_the_style_colours_survive_the_palette_exactly():
    """The palette is built from a sample of the pixels, but every named style colour stays exact, and
    the rest of the picture stays within a few levels of the full-colour drawing."""
    from PIL import ImageChops, ImageStat

    from images.speedway import KEY_COLOURS, render_image

    state = combat()
    drawn = render_image(state, COMBAT_LAST)
    encoded = _open(render_speedway(state, COMBAT_LAST))
    assert encoded.mode == "P"
    used = {colour for _count, colour in drawn.getcolors(1 << 20)} & set(KEY_COLOURS)
    kept = {colour for _count, colour in encoded.convert("RGB").getcolors(1 << 20)}
    assert len(used) > 15 and used <= kept, used - kept
    error = ImageStat.Stat(ImageChops.difference(drawn, encoded.convert("RGB"))).mean
    assert max(error) < 2.0, error


def test_a_sheet_drawn_from_the_cache_looks_like_a_fresh_one():
    from images.speedway import sheets

    state = combat()
    first = render_speedway(state, COMBAT_LAST)
    sheets._rows_image.cache_clear()
    assert render_speedway(state, COMBAT_LAST) == first


# --- the channel picture: map first, landscape, one size a game (issue 13) -------------------------

def _play_through(arena: str, seats: int, actions: int = 120):
    """(state, last events) after each action of a computer game on `arena`, from the empty lobby."""
    from rules.speedway.actions import AddComputer, Start
    from rules.speedway.ruleset import SPEEDWAY

    state = SPEEDWAY.setup({"arena": arena, "revision": 3}, 5, "p0")
    shown = [(state, ())]
    for _ in range(seats):
        state, events = SPEEDWAY.apply(state, "p0", AddComputer())
        shown.append((state, events))
    state, events = SPEEDWAY.apply(state, "p0", Start())
    shown.append((state, events))
    while len(shown) < actions and not SPEEDWAY.is_finished(state):
        (player,) = SPEEDWAY.acting_players(state)
        state, events = SPEEDWAY.apply(state, player, SPEEDWAY.computer.choose(state, player))
        shown.append((state, events))
    return shown


@pytest.mark.parametrize("arena, seats", [("classic", 2), ("classic", 6), ("duel", 2), ("duel", 4),
                                          ("junkyard", 6)])
def test_every_picture_of_a_game_is_landscape_and_the_same_size(arena, seats):
    from images.speedway import page

    layout = page(arena)
    assert layout.width >= layout.height
    steps = _play_through(arena, seats)
    sample = steps[:seats + 3] + steps[seats + 3::9] + steps[-1:]        # the lobby, the start, then a spread
    sizes = {_open(render_speedway(SPEEDWAY_VIEW(state), last)).size for state, last in sample}
    assert sizes == {(layout.width, layout.height)}


def SPEEDWAY_VIEW(state):  # noqa: N802 - reads as the ruleset's view
    from rules.speedway.ruleset import SPEEDWAY

    return SPEEDWAY.view(state, None)


def test_the_chips_name_every_cars_figures():
    """Speed, inertia, fire and Armor, Engine, Driver and guns are in each chip, read from the sheet."""
    from images.speedway.status import _figures, _motion

    state = combat()
    bob = state.car("c1")
    assert _motion(bob)[0] == "speed 2 · inertia 1 · fire 2"
    assert _figures(bob)[0] == "Armor 2 · Engine 3 · Driver 4 · guns 1/1"
    assert _motion(state.car("c3")) == ("wrecked",)


def test_sheets_are_drawn_for_one_car_or_all():
    state = combat()
    one, every = _open(render_sheets(state, "bob")), _open(render_sheets(state))
    assert one.width == every.width and one.height < every.height
    assert render_sheets(state, "c1") == render_sheets(state, "BOB")
    with pytest.raises(BadOption, match="No car called 'nobody'"):
        render_sheets(state, "nobody")


def _every_kind_of_roll() -> list:
    """One real roll of each kind, from the engine with fixed dice: to hit, resisting a skid, regaining
    control, a mine's check, and both sides of a ramming roll-off."""
    from rules.speedway.actions import AnswerSkid, Fire, Move
    from rules.speedway.events import DiceRolled
    from tests.test_speedway_collisions import ram
    from tests.test_speedway_combat import act, shooting
    from tests.test_speedway_driving import E as EAST
    from tests.test_speedway_driving import apply, driving
    from tests.test_speedway_hazards import mine_run

    events = list(act(shooting("Vulcan Machine Gun", 6, 2), "alice", Fire("front", "bob"))[1])
    skid, _ = apply(driving("M9", EAST, speed=5, dice_seed=16), "alice", Move("turn-left"))
    skid, resisted = apply(skid, "alice", AnswerSkid("resist"))
    events += resisted
    events += apply(skid, "alice", Move("slide"))[1]
    events += act(mine_run(6), "alice", Move("normal"))[1]
    events += act(ram(1), "alice", Move("normal"))[1]
    return [e for e in events if isinstance(e, DiceRolled)]


def test_the_dice_strip_says_what_the_roll_event_says_for_every_kind_of_roll():
    from images.speedway.caption import strip_words
    from images.speedway.last_turn import last_roll

    rolls = _every_kind_of_roll()
    assert {r.rule.split(":")[0] for r in rolls} >= {"to hit", "mine", "ramming roll-off"}
    assert {r.purpose for r in rolls} >= {"rolls to hit", "resists the skid", "tries to regain control"}
    for roll in rolls:
        lead, sums, verdict = strip_words(roll)
        said = roll.describe()
        assert said.startswith(lead[:-1] + ":"), (said, lead)
        assert f"= {roll.total} vs {roll.target} -> {roll.verdict}" in said and verdict.endswith(roll.verdict)
        plus = f"+ {roll.modifier} " if roll.modifier else ""
        assert sums.strip() == f"{plus}= {roll.total} vs {roll.target}" and (f" + {roll.modifier} =" in said) == bool(
            roll.modifier)
        assert last_roll((roll,)) is roll       # the strip shows this very event
    # The ram's roll-off adds each side's bonus: the strip shows it, as the text does (issue 13 found
    # "5 vs 0, success" on the strip beside "9 vs 15, failure" in the text).
    bob = next(r for r in rolls if r.car == "bob" and r.rule == "ramming roll-off")
    assert strip_words(bob)[1].strip() == f"+ 2 = {bob.total} vs {bob.target}" and bob.target > 0


# --- the turn on the map: trails and crash marks (issue 13, item 2) --------------------------------

def test_trails_follow_each_cars_moves_and_slides_and_crashes_are_marked():
    from images.speedway.trails import crash_sites, paths
    from rules.speedway.events import CarManeuvered, CarSlid, Collided, MineExploded

    events = (CarManeuvered("alice", "normal", "J8", "K8", "E", 0),
              CarManeuvered("alice", "turn-left", "K8", "K7", "NE", 2),
              CarSlid("alice", "NE", "L6", "out of control"), CarSlid("bob", "E", "Q8", "no move of bob's seen"),
              Collided("ram", "alice", "bob", "L6", 4), MineExploded("O10"),
              Collided("strike", "bob", "the wall", "Q8", 2))
    assert paths(events) == {"alice": [parse_label(h) for h in ("J8", "K8", "K7", "L6")]}
    assert crash_sites(events) == [(parse_label("L6"), False), (parse_label("O10"), True), (parse_label("Q8"), False)]
    state = combat()
    bare, drawn = map_band(state).tobytes(), map_band(state, (), events).tobytes()
    assert bare != drawn
    assert map_band(state, (), events[:3]).tobytes() not in (bare, drawn)   # the trail alone


async def test_the_channel_picture_gets_the_last_round_of_events(store):
    """After the computer's turn, the picture is drawn with that turn and the player's own last one."""
    from bot.table.protocol.commands import parse
    from bot.table.protocol.replies import Actor
    from bot.table.service.entry import GameService
    from rules.speedway.events import CarManeuvered

    seen = []

    def recording(ruleset, view, last, turn):
        seen.append(turn)
        return b"png"

    service = GameService(store, render=recording)
    for line in ("/game new ruleset:speedway seed:5 arena:duel", "/game join car:brawler", "/game add-ai car:torch",
                 "/game start", "/speed value:2", "/move maneuver:normal", "/move maneuver:normal", "/end"):
        assert (await service.execute("c", Actor("alice", "alice"), parse(line))).outcome == "applied", line
    movers = {e.car for e in seen[-1] if isinstance(e, CarManeuvered)}
    assert movers == {"alice", "Robo1"}


def _linear(channel: float) -> float:
    channel /= 255
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def _lab(rgb) -> tuple[float, float, float]:
    r, g, b = (_linear(v) for v in rgb)
    x, y, z = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = lambda t: t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116  # noqa: E731
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


# Machado, Oliveira & Fernandes (2009), full severity, applied to linear RGB.
_SIMULATIONS = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
}


def _seen_as(rgb, matrix) -> tuple[float, ...]:
    lin = [_linear(v) for v in rgb]
    out = []
    for row in matrix:
        c = min(1.0, max(0.0, sum(m * v for m, v in zip(row, lin))))
        out.append(255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055))
    return tuple(out)


def test_the_six_car_colours_stay_apart_for_colour_blind_players():
    """Every pair of car colours differs by at least 15 CIE76 units as seen with protanopia or
    deuteranopia (measured: 20.7 and 17.9; 26.4 with normal sight), far above the ~2.3 of a just
    noticeable difference."""
    import itertools
    import math

    from images.palette import CAR_COLOURS

    def closest(colours) -> float:
        return min(math.dist(_lab(a), _lab(b)) for a, b in itertools.combinations(colours, 2))

    assert closest(CAR_COLOURS) > 25
    for name, matrix in _SIMULATIONS.items():
        assert closest([_seen_as(c, matrix) for c in CAR_COLOURS]) > 15, name


def test_name_tags_keep_off_the_rulers_and_fit_a_two_digit_inertia():
    from images.speedway import counters
    from images.speedway import style as speedway_style

    size = (963, 588)
    side, end = speedway_style.MAP_SIDE, speedway_style.MAP_END
    corner = (side, end, side + 30, end + 30)
    tag = counters._place(corner, 200, 36, [], size)
    assert tag[0] >= speedway_style.MAP_SIDE - 6 and tag[1] >= speedway_style.MAP_END - 6
    far = (size[0] - 40, size[1] - 40, size[0] - 10, size[1] - 10)
    tag = counters._place(far, 200, 36, [], size)
    assert tag[2] <= size[0] - speedway_style.MAP_SIDE + 6 and tag[3] <= size[1] - speedway_style.MAP_END + 6
    state = combat()
    carol = state.car("c2")
    assert render_speedway(state.with_car(replace(carol, inertia=12))) != render_speedway(state)
    clear = counters.keep_clear(state, frame("classic").layout)
    assert len(clear) == len(data.arena("classic").obstacles) + sum(1 for c in state.cars if c.front and not c.out)


def test_status_chips_from_the_cache_are_the_pixels_drawn_in_place():
    """Chips are drawn once per face and pasted on whole pixels: the band is the one drawing every chip
    in its place gives."""
    from PIL import ImageDraw

    from images.speedway import status
    from tests.render_frames import game_frames

    views = [view for ruleset, view, _ in game_frames(every=20) if ruleset == "speedway"]
    assert len(views) >= 5
    for view in views:
        for width, height, columns in ((330, 408, 1), (947, 200, 3), (500, 300, 2), (963, 290, 3)):
            cached = status.render_status(view, width, height, columns, 947)
            in_place = Image.new("RGB", (width, height), status.palette.PAPER)
            draw = ImageDraw.Draw(in_place)
            for car, box in zip(view.cars, status.chip_boxes(len(view.cars), width, height, columns)):
                status.draw_chip(draw, status.chip_face(view, car), box, status.smallest_text(947))
            assert cached.tobytes() == in_place.tobytes(), (width, height, columns)


def test_a_name_tag_keeps_off_another_tag_before_a_counter():
    """Issue 25, item 13: a tag would rather cover a bit of a counter than another car's tag, and the
    running cars' tags are placed first (a wreck's "OUT" tag was laid over a running car's name)."""
    from images.speedway import counters

    size = (963, 588)
    counter = (400, 300, 440, 340)
    below = (320, 341, 520, 377)
    over_a_counter = [(410, 270, 450, 300)]                  # a counter under the spot above
    assert counters._place(counter, 200, 36, over_a_counter, size) == below
    beside = counters._place(counter, 200, 36, over_a_counter, size, tags=[below])
    assert counters._overlap(beside, below) == 0
    # every spot but the two covers other counters: the tag takes the one over a counter's corner
    crowded = over_a_counter + [(430, 280, 700, 360), (150, 280, 410, 360), (150, 330, 700, 420)]
    assert counters._overlap(counters._place(counter, 200, 36, crowded, size, tags=[below]), below) == 0
    state = combat()
    carol = state.car("c2")
    wrecked = state.with_car(replace(carol, out=True))
    assert render_speedway(wrecked) != render_speedway(state)


@pytest.mark.parametrize("fire", [0, 3, 12])
def test_a_counter_supersampled_within_its_reach_is_the_whole_sprite_supersampled(fire, monkeypatch):
    """A car's counter is supersampled only within COUNTER_REACH of the sprite's centre (issue 39 item 3:
    a third of the work of a counter not drawn before): every pixel is that of the whole sprite drawn."""
    from images import draw
    from images.speedway import counters

    for facing, active, in_control, out in ((0, True, False, False), (1, False, True, True), (4, True, True, False)):
        reached = counters._counter_sprite(1, facing, active, in_control, out, fire)
        monkeypatch.setattr(counters, "smooth_sprite", lambda w, h, paint, within=None: draw.smooth_sprite(w, h, paint))
        whole = counters._counter_sprite(1, facing, active, in_control, out, fire)
        monkeypatch.undo()
        assert reached.tobytes() == whole.tobytes(), (facing, active, in_control, out)
