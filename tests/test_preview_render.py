"""The private turn-preview picture: a valid, deterministic, small PNG of the map with the plan on it."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from PIL import Image

from images import render_preview as dispatch_preview
from images.speedway import render_speedway
from images.speedway.arena import frame
from images.speedway.preview import render_preview, weapon_arcs
from rules.hexgrid import parse_label
from rules.speedway.preview import preview_turn
from rules.speedway.state import Hazard
from tests.speedway_fixtures import active, driving, place

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LIMIT = 250_000
WIGGLE = ["normal", "turn-left", "tight-turn-right", "sideslip-left", "normal"]


def plan(state, maneuvers):
    return preview_turn(state, active(state), maneuvers)


def picture(png: bytes) -> Image.Image:
    assert png.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_preview_is_a_valid_png_as_wide_as_the_map():
    state = driving("M9", 0, speed=5)
    png = render_preview(state, plan(state, WIGGLE))
    image = picture(png)
    assert image.width == frame("classic").width == picture(render_speedway(state)).width   # the map, no gutters
    assert 500 < image.height < 1200


def test_preview_is_deterministic():
    state = driving("M9", 0, speed=5)
    preview = plan(state, WIGGLE)
    assert render_preview(state, preview) == render_preview(state, plan(state, WIGGLE))


def test_preview_differs_from_the_normal_map():
    state = driving("M9", 0, speed=5)
    assert render_preview(state, plan(state, ["normal"])) != render_speedway(state)


def test_two_plans_give_two_pictures():
    state = driving("M9", 0, speed=5)
    straight = render_preview(state, plan(state, ["normal", "normal", "normal"]))
    turning = render_preview(state, plan(state, ["normal", "turn-left", "normal"]))
    assert straight != turning


def test_a_blocked_plan_renders():
    state = place(driving("M9", 0, speed=5), "bob", "Q9", 3)   # bob's counter covers Q9 and R9
    preview = plan(state, ["normal"] * 5)
    assert preview.steps[-1].blocked and len(preview.steps) == 4
    free = render_preview(place(state, "bob", "B2", "NW"), plan(place(state, "bob", "B2", "NW"), ["normal"] * 5))
    png = render_preview(state, preview)
    assert picture(png).width == frame("classic").width and png != free


def test_a_plan_blocked_at_once_and_one_into_the_wall_render():
    stuck = place(driving("M9", 0, speed=5), "bob", "N9", 3)
    preview = plan(stuck, ["normal", "normal"])
    assert [s.blocked for s in preview.steps] == [True]
    picture(render_preview(stuck, preview))
    walled = driving("V9", 0, speed=5)
    preview = plan(walled, ["normal"] * 4)
    assert preview.steps[-1].blocked
    picture(render_preview(walled, preview))


def test_a_target_in_arc_gets_a_shot_line():
    state = place(driving("H9", 0, speed=5), "bob", "P9", 3)   # bob straight ahead, in range
    preview = plan(state, ["normal", "normal"])
    assert [(s.weapon, s.target) for s in preview.shots] == [("Vulcan Machine Gun (Front)", "bob")]
    with_shot = render_preview(state, preview)
    picture(with_shot)
    arcs = weapon_arcs(state, preview.end)
    assert [(name, mount) for name, mount, _, _ in arcs] == [("Vulcan Machine Gun", "Front")]
    assert parse_label("P9") in arcs[0][3]
    # The same path with bob out of reach draws no shot: the pictures differ.
    away = place(state, "bob", "B2", "NW")
    assert render_preview(away, plan(away, ["normal", "normal"])) != with_shot


def test_a_destroyed_or_fired_weapon_shows_no_arc():
    state = driving("M9", 0, speed=5)
    car = active(state)
    gun = car.weapons[0]
    broken = replace(car, weapons=(replace(gun, track=gun.track.cross(3)),) + car.weapons[1:])
    assert weapon_arcs(state, broken) == []
    assert weapon_arcs(state, replace(car, fired=(gun.mount,))) == []


def test_a_busy_preview_stays_small():
    state = place(driving("H9", 0, speed=6), "bob", "P7", 3)
    state = replace(state, hazards=(Hazard(1, "mine", parse_label("L10"), "bob"),
                                    Hazard(2, "smoke", parse_label("Q12"), "bob")))
    png = render_preview(state, plan(state, WIGGLE + ["normal"]))
    assert len(png) < LIMIT


def test_preview_leaves_the_normal_map_untouched():
    state = driving("M9", 0, speed=5)
    before = render_speedway(state)
    render_preview(state, plan(state, WIGGLE))
    assert render_speedway(state) == before


def test_the_images_package_dispatches_previews():
    state = driving("M9", 0, speed=5)
    preview = plan(state, ["normal"])
    assert dispatch_preview("speedway", state, preview) == render_preview(state, preview)
    with pytest.raises(ValueError):
        dispatch_preview("chess", state, preview)


def test_the_preview_says_in_words_where_it_ends_what_it_meets_and_what_blocks_it():
    from rules.speedway.preview import preview_text

    state = driving("M9", 0, speed=5)
    state = replace(state, hazards=(Hazard(1, "oil", parse_label("N9"), "bob"),
                                    Hazard(2, "mine", parse_label("P10"), "bob")))
    text = preview_text(state, plan(state, ["normal", "normal", "normal"]))
    assert text.splitlines()[0] == "Ends at P9 facing E, inertia 1."   # the oil at N9 adds 1, as in play
    assert "On the way: oil at N9, mine at P10." in text and "No skid checks." in text
    blocked = place(state, "bob", "O9", 3)
    words = preview_text(blocked, plan(blocked, ["normal", "normal"]))
    assert "Move #2 (normal) is blocked by bob." in words
