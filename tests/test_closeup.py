"""The close-up for a phone (issue 27 item 3): what it holds, how wide it is, how tall its smallest words
are at 400 px wide, and how /game status view:, plan previews and /me settings view: ask for it."""

from __future__ import annotations

import io
import statistics
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

import images
from bot.table.clock.personal import parse_view
from bot.table.protocol.commands import CommandSyntaxError, parse
from images import draw as drawing
from images.closeup import LEGIBLE, MAX_WIDTH, PHONE, RULED_LEFT, RULED_TOP, Closeup, crop_box, face_size
from images.registry import renderer
from rules.errors import BadOption
from tests.conftest import exec_in, run_cli
from tests.render_frames import game_frames
from tests.test_player_view import duel


@cache
def frames() -> tuple:
    """Every position of one self-played game of each game (400 of them, all four games)."""
    return tuple(game_frames(every=1))


def closeup_of(ruleset_id: str, view, last: tuple, focus: str | None = None) -> Closeup:
    draw = renderer(ruleset_id).closeup
    assert draw is not None, ruleset_id
    return draw(view, last, last, focus)


# ---- what each game's close-up must hold, worked out from the rules here -----------------------------

def _speedway_held(view, _closeup: Closeup) -> list[tuple[float, float]]:
    from images.speedway.arena import frame
    from images.speedway.closeup import acting_car
    from images.speedway.counters import midpoint
    from images.speedway.livery import liveried
    from rules.speedway import data
    from rules.speedway.geometry import in_arc, range_hexes

    view = liveried(view)
    car = acting_car(view, None)
    if car is None:
        return []
    layout = frame(view.arena).layout
    reach = [o for o in view.cars if o.id != car.id and o.front is not None and not o.out and any(
        w.offensive and w.working and range_hexes(car, o) <= data.offensive_weapons()[w.name].max_range
        and in_arc(car, w.mount, o) for w in car.weapons)]
    return [midpoint(c, layout) for c in (car, *reach)]


def _battlecars_held(view, _closeup: Closeup) -> list[tuple[float, float]]:
    from images.battlecars.style import HEADER, cell_size, centre
    from rules.battlecars import data
    from rules.battlecars.combat import lines_of
    from rules.battlecars.grid import line_to

    vehicle = view.vehicle_of(view.active)
    if vehicle is None or vehicle.point is None:
        return []
    reach = []
    for other in view.vehicles:
        line = line_to(vehicle.point, other.point) if other.point and other.id != vehicle.id else None
        if line is None or other.destroyed:
            continue
        for pod in vehicle.weapons():
            spec = data.rounds()[pod.load]
            if not pod.destroyed and pod.rounds > 0 and spec.kind != "passive" and line[0] in lines_of(vehicle, pod) \
                    and line[1] <= (spec.max_range or line[1]):
                reach.append(other)
                break
    cell = cell_size(view.the_board)
    return [centre(v.point, cell, HEADER) for v in (vehicle, *reach)]


def _race_held(view, _closeup: Closeup) -> list[tuple[float, float]]:
    from images.race.course import token_spots

    tokens = token_spots(view)
    if not tokens:
        return []
    leader = tokens[0][0]
    pack = [(x, y) for racer, x, y in tokens if leader.speed - racer.speed <= 100]
    return pack[:4]


def _track_held(view, closeup: Closeup) -> list[tuple[float, float]]:
    from images.track.closeup import contested_holes

    holes = set(contested_holes(view))
    assert len(holes) != 1   # a contested hole has its opponent's near it
    return [closeup.spots[f"{c.owner}:{c.id}"] for c in view.cars if c.where == "ring" and c.spot in holes]


HELD = {"speedway": _speedway_held, "battlecars": _battlecars_held, "race": _race_held, "track": _track_held}


def check(ruleset_id: str, view, last: tuple) -> float:
    """One position's close-up holds what it must, is at most MAX_WIDTH wide and not portrait, and its
    smallest words stand LEGIBLE px tall at PHONE px wide: returns that height."""
    shot = closeup_of(ruleset_id, view, last)
    width, height = shot.image.size
    assert width <= MAX_WIDTH and height <= width, (ruleset_id, shot.image.size)
    for x, y in HELD[ruleset_id](view, shot):
        assert shot.holds(x, y), (ruleset_id, (x, y), shot.crop)
    on_phone = shot.smallest_on_phone()
    assert on_phone >= LEGIBLE, (ruleset_id, on_phone)
    return on_phone


def test_a_sample_of_self_played_positions_make_close_ups_a_phone_reads():
    """One position in eight of the slow test's (every game's), for the fast tier."""
    sampled = frames()[::8]
    assert {r for r, _v, _l in sampled} == set(HELD)
    for ruleset_id, view, last in sampled:
        check(ruleset_id, view, last)


@pytest.mark.slow
def test_four_hundred_self_played_positions_make_close_ups_a_phone_reads():
    """Every position of a self-played game of each game (all four, 400 positions, ~3 s): each holds its
    focus, fits a phone and reads there; min and median of the smallest words' height at 400 px wide,
    and the widest picture, printed for the record."""
    assert {r for r, _v, _l in frames()} == set(HELD)
    heights, widths = [], []
    for ruleset_id, view, last in frames():
        heights.append(check(ruleset_id, view, last))
        widths.append(closeup_of(ruleset_id, view, last).image.width)
    assert len(heights) >= 200
    print(f"\n{len(heights)} close-ups: smallest words {min(heights):.1f} px (median "
          f"{statistics.median(heights):.1f}) at {PHONE} px wide; widest {max(widths)} px")


def test_the_reader_own_vehicle_is_the_one_a_private_close_up_centres_on():
    from images.speedway.closeup import acting_car

    ruleset_id, view, last = next(f for f in frames() if f[0] == "speedway" and len(f[1].cars) > 1
                                  and f[1].active_car and all(c.front is not None for c in f[1].cars))
    other = next(c for c in view.cars if c.id != view.active_car)
    assert acting_car(view, other.owner).id == other.id
    assert acting_car(view, None).id == view.active_car
    shot = closeup_of(ruleset_id, view, last, other.owner)
    assert shot.holds(*shot.spots[other.id])


def test_the_speedway_close_up_draws_no_words_but_its_own(monkeypatch):
    """The words a close-up's map holds are measured honestly: with the arena and counters drawn afresh,
    every text drawn is the close-up's own, in one size."""
    from images.speedway.arena import base_layer
    from images.speedway.counters import counter_piece

    ruleset_id, view, last = next(f for f in frames() if f[0] == "speedway" and f[1].active_car
                                  and all(c.in_control for c in f[1].cars))
    sizes: list[int] = []
    masks = drawing._text_mask

    def recorded(text, font, anchor, mode):
        sizes.append(font.size)
        return masks(text, font, anchor, mode)

    monkeypatch.setattr(drawing, "_text_mask", recorded)
    base_layer.cache_clear()
    counter_piece.cache_clear()
    try:
        shot = closeup_of(ruleset_id, view, last)
    finally:
        base_layer.cache_clear()
        counter_piece.cache_clear()
    assert sizes and set(sizes) == {face_size(shot.image.width)}, sorted(set(sizes))


def png_size(data: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(data)).size


# ---- through the service ------------------------------------------------------------------------------

async def test_status_view_closeup_is_a_private_smaller_picture_and_the_channel_keeps_the_map(table):
    await duel(table)
    full = await table("alice", "/game status")
    close = await table("alice", "/game status view:closeup")
    assert not full.ephemeral and full.image is not None
    assert close.ephemeral and close.outcome == "shown" and close.image is not None
    assert close.image != full.image and close.image.startswith(b"\x89PNG")
    (fw, fh), (cw, ch) = png_size(full.image), png_size(close.image)
    assert cw <= MAX_WIDTH and cw * ch < fw * fh and ch <= cw
    assert close.buttons == () and "close-up" in (close.alt_text or "")
    assert (await table("bob", "/game status")).image == full.image   # the channel's picture is unchanged


def test_a_view_that_is_not_one_is_refused_briefly():
    for line in ("/game status view:zoom", "/me settings view:zoom", "/move plan:normal preview:yes view:zoom"):
        with pytest.raises(CommandSyntaxError) as refused:
            parse(line)
        assert str(refused.value) == "view: must be one of full, closeup.", line
    with pytest.raises(BadOption, match="full .* or closeup"):
        parse_view("zoom")
    assert parse_view(" CloseUp ") == "closeup"


async def test_me_settings_view_closeup_makes_private_close_ups_the_default(table):
    await duel(table)
    full = await table("alice", "/game status")
    saved = await table("alice", "/me settings view:closeup")
    assert saved.outcome == "shown" and "close-ups" in saved.text and "next turn" not in saved.text
    assert "close-ups for a phone" in (await table("alice", "/me settings")).text
    mine = await table("alice", "/game status")
    assert mine.ephemeral and png_size(mine.image)[0] <= MAX_WIDTH
    overridden = await table("alice", "/game status view:full")
    assert not overridden.ephemeral and overridden.image == full.image
    assert not (await table("bob", "/game status")).ephemeral   # only alice chose close-ups
    assert "the full map" in (await table("alice", "/me settings view:full")).text


async def test_a_plan_preview_can_be_a_close_up(table):
    await duel(table)
    active = "alice" if "alice" in (await table("alice", "/game status")).waiting_on else "bob"
    assert (await table(active, "/speed value:2")).outcome == "applied"
    whole = await table(active, "/move plan:normal,normal preview:yes")
    close = await table(active, "/move plan:normal,normal preview:yes view:closeup")
    assert whole.ephemeral and close.ephemeral and {b.label for b in close.buttons} == {"Confirm", "Cancel"}
    assert close.image != whole.image and png_size(close.image)[0] <= MAX_WIDTH
    assert whole.buttons[0].custom_id == close.buttons[0].custom_id   # the same plan either way
    assert (await table(active, "/me settings view:closeup")).outcome == "shown"
    again = await table(active, "/move plan:normal,normal preview:yes")
    assert again.image == close.image
    assert (await table(active, "/move plan:normal,normal preview:yes view:full")).image == whole.image


def test_the_command_line_writes_a_private_close_up(tmp_path):
    db = str(tmp_path / "t.db")
    run = exec_in(db, tmp_path)
    for user, line in (("alice", "/game new ruleset:speedway seed:3"), ("alice", "/game join car:Brawler"),
                       ("bob", "/game join car:TORCH"), ("alice", "/game start")):
        run(user, line)
    result = run_cli("exec", "--db", db, "--channel", "c", "--user", "bob", "--out", str(tmp_path / "maps"),
                     "/game status view:closeup", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("private: ")
    (path,) = [line.removeprefix("image: ") for line in result.stdout.splitlines() if line.startswith("image: ")]
    assert path.endswith("-private.png") and png_size(Path(path).read_bytes())[0] <= MAX_WIDTH
    refused = run_cli("exec", "--db", db, "--channel", "c", "--user", "bob", "/game status view:zoom", cwd=tmp_path)
    assert refused.returncode != 0 and "closeup" in refused.stdout + refused.stderr


def test_images_draws_each_games_close_up_as_a_png():
    for ruleset_id in HELD:
        ruleset_id, view, last = next(f for f in frames() if f[0] == ruleset_id)
        data = images.render_closeup(ruleset_id, view, last, last)
        assert png_size(data)[0] <= MAX_WIDTH


def test_a_speedway_plan_preview_close_up_holds_the_path_and_reads_on_a_phone():
    from images.speedway.arena import frame
    from images.speedway.closeup import render_preview_closeup
    from images.speedway.preview import travelled
    from rules.speedway.preview import preview_turn
    from tests.speedway_fixtures import active, driving
    from tests.test_preview_render import WIGGLE

    state = driving()
    for maneuvers in (WIGGLE, ["normal"], ["normal"] * 5):
        preview = preview_turn(state, active(state), maneuvers)
        shot = render_preview_closeup(state, preview)
        assert shot.image.width <= MAX_WIDTH and shot.smallest_on_phone() >= LEGIBLE
        layout = frame(state.arena).layout
        assert all(shot.holds(*layout.center(h)) for h in (*travelled(preview), *preview.end.hexes))


async def test_a_battlecars_plan_preview_can_be_a_close_up(service, store):
    from rules.battlecars.ruleset import RULESET
    from tests.test_battlecars_table import run, two_drivers

    await two_drivers(service, "bc-close", alice="interceptor", bob="tank")
    order = RULESET.load_state((await store.active_game("bc-close")).state).order
    for player, value in zip(order, ("3", "1"), strict=True):
        await run(service, player, f"/speed value:{value}", "bc-close")
    whole = await run(service, order[0], "/move plan:ahead,ahead preview:yes", "bc-close")
    close = await run(service, order[0], "/move plan:ahead,ahead preview:yes view:closeup", "bc-close")
    assert close.ephemeral and close.image != whole.image and png_size(close.image)[0] <= MAX_WIDTH
    assert [b.label for b in close.buttons] == ["Confirm", "Cancel"]


@given(x=st.floats(0, 900), y=st.floats(0, 500), w=st.floats(1, 900), h=st.floats(1, 500),
       ruled=st.booleans())
def test_a_crop_holds_what_must_show_landscape_and_clear_of_its_rulers(x, y, w, h, ruled):
    """What must show, inside the map, is in the crop; the crop is never portrait; and when the map leaves
    room, a ruled crop keeps what must show clear of the coordinate bands on its left and top."""
    bounds = (0.0, 0.0, 1000.0, 600.0)
    must = (x, y, min(x + w, 1000.0), min(y + h, 600.0))
    left, top, right, bottom = crop_box(must, bounds, (100.0, 80.0), ruled)
    assert right - left >= bottom - top - 1
    assert left - 1 <= must[0] and must[2] <= right + 1 and top - 1 <= must[1] and must[3] <= bottom + 1
    if ruled:
        assert must[0] - left >= RULED_LEFT * (right - left) - 1 and must[1] - top >= RULED_TOP * (bottom - top) - 1
    else:
        assert bounds[0] <= left and right <= bounds[2] and bounds[1] <= top and bottom <= bounds[3]
