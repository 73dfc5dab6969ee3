"""Close-ups for the phone (issue 38 finding 10): the nearest rival held, no tag for a car the crop cuts, a
Battlecars plan's end marked, a caption saying whose turn it is, and a finished race's close-up cutting no word."""

from __future__ import annotations

import io

from PIL import Image

import images
from images.closeup import LEGIBLE, MAX_WIDTH, Ruler, Spot, closeup, face_size
from images.palette import INK, PAPER
from images.registry import renderer
from rules.registry import get_ruleset
from tests.test_closeup import closeup_of, frames


def _picture(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


def test_a_battlecars_close_up_holds_the_nearest_rival_even_out_of_reach():
    from images.battlecars.closeup import acting_vehicle, in_reach, nearest_rival
    from images.battlecars.style import HEADER, cell_size, centre

    unreached = 0
    for ruleset_id, view, last in frames():
        vehicle = acting_vehicle(view, None) if ruleset_id == "battlecars" else None
        rival = nearest_rival(view, vehicle) if vehicle is not None else None
        if rival is None:
            continue
        unreached += rival not in in_reach(view, vehicle)
        shot = closeup_of(ruleset_id, view, last)
        cell = cell_size(view.the_board)
        assert shot.holds(*centre(vehicle.point, cell, HEADER)) and shot.holds(*centre(rival.point, cell, HEADER))
        assert rival.id in shot.named   # and it is named on a tag
    assert unreached >= 5   # positions where no weapon reaches a rival (the finding's)


def test_a_speedway_close_up_holds_the_nearest_rival_even_out_of_reach():
    from images.speedway.closeup import in_reach, render_closeup_image
    from tests.speedway_fixtures import active, car_of, driving

    state = driving()   # bob parked in a corner, out of every gun of alice's
    assert not in_reach(state, active(state))
    shot = render_closeup_image(state, (), (), "alice")
    assert shot.holds(*shot.spots[car_of(state, "bob").id]) and car_of(state, "bob").id in shot.named


def test_a_tag_names_only_what_the_close_up_shows_whole():
    """A thing cut by the crop's edge, or under its coordinate bands, gets no tag (its colour is nowhere)."""
    board = Image.new("RGB", (1000, 600), PAPER)
    colours = {"whole": (200, 30, 30), "cut": (30, 200, 30), "banded": (30, 30, 200), "outside": (200, 200, 30)}
    crop = (200, 100, 700, 400)
    spots = [Spot("whole", 450, 250, "Whole", colours["whole"], 20), Spot("cut", 690, 250, "Cut", colours["cut"], 20),
             Spot("banded", 205, 250, "Banded", colours["banded"], 20),
             Spot("outside", 750, 250, "Outside", colours["outside"], 20)]
    shot = closeup(board, crop, spots, Ruler(((450, "A"),), ((250, "1"),)))
    assert shot.named == ("whole",)
    seen = {colour for _count, colour in shot.image.getcolors(1 << 20)}
    assert colours["whole"] in seen and not {colours["cut"], colours["banded"], colours["outside"]} & seen


def test_a_battlecars_plan_preview_marks_where_the_plan_ends():
    from images.battlecars import PLAN_END, render_plan, render_preview_closeup
    from images.battlecars.style import HEADER, PATH, cell_size, centre
    from images.reference import started
    from rules.battlecars.actions import Join, SetSpeed
    from rules.battlecars.plans import work_out
    from rules.battlecars.ruleset import RULESET

    state = started(RULESET, {"board": "town"}, [Join("alice", "interceptor"), Join("bob", "tank")])
    for player in RULESET.acting_players(state):
        state = RULESET.apply(state, player, SetSpeed(1))[0]
    mover = state.active
    preview = work_out(state, mover, {"plan": "ahead"})
    view = RULESET.view(state, mover)
    cell = cell_size(view.the_board)
    end = centre(view.vehicle_of(mover).point, cell, HEADER)
    end = (end[0] - cell, end[1])   # "ahead" from facing W: one point west
    assert preview.moves[-1].to_point != preview.moves[-1].from_point
    full = _picture(render_plan(view, preview))
    ring = [full.getpixel((round(end[0] + dx), round(end[1] + dy))) for dx, dy in ((0, cell * 0.5 - 2),
                                                                                   (-cell * 0.5 + 2, 0))]
    assert all(_near(pixel, PATH) for pixel in ring), ring   # a ring in the path's colour round its end
    shot = render_preview_closeup(view, preview, mover)
    assert PLAN_END in shot.named and shot.spots[PLAN_END] == end and shot.holds(*end)


def _near(pixel: tuple, colour: tuple, slack: int = 40) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(pixel, colour, strict=False))


def test_every_close_up_says_whose_turn_it_is_or_the_result_in_a_band_a_phone_reads():
    sampled = [f for f in frames() if f[1].phase != "lobby"]
    by_game = {}
    for ruleset_id, view, last in sampled:
        by_game.setdefault(ruleset_id, []).append((view, last))
    assert set(by_game) == {"speedway", "battlecars", "race", "track"}
    for ruleset_id, shown in by_game.items():
        for view, last in (shown[len(shown) // 2], shown[-1]):
            words = images.whose_turn(ruleset_id, view)
            waiting = get_ruleset(ruleset_id).acting_players(view)
            if view.phase == "finished":
                assert words.startswith("Game over · "), words
            else:
                names = [renderer(ruleset_id).captioner.name_of(view, p) for p in waiting]
                assert words.endswith(" to move"), words
                assert all(n in words for n in names) if len(names) <= 3 else f"{len(names)} players" in words
            picture = _picture(images.render_closeup(ruleset_id, view, last, last))
            width, height = picture.size
            assert width <= MAX_WIDTH and height <= width
            band = round(face_size(width) * 1.8)
            row = [picture.getpixel((x, height - band // 2)) for x in range(width)]
            assert sum(_near(p, INK, 10) for p in row) > width / 2 and any(_near(p, PAPER, 30) for p in row)
            assert face_size(width) * 420 / width >= LEGIBLE   # its words at 420 px wide


def test_a_plan_preview_close_up_is_captioned_as_a_plan():
    from rules.speedway.preview import preview_turn
    from tests.speedway_fixtures import active, driving

    state = driving()
    preview = preview_turn(state, active(state), ["normal"])
    picture = _picture(images.render_preview_closeup("speedway", state, preview, "alice"))
    assert picture.height <= picture.width
    assert _near(picture.getpixel((2, picture.height - 3)), INK, 10)


def test_a_race_close_up_cuts_no_word_of_the_band_and_a_finished_one_shows_the_finish():
    from images.race import WIDTH
    from images.race.course import current_index, words_along

    race = [(view, last) for ruleset_id, view, last in frames() if ruleset_id == "race"]
    assert race[-1][0].phase == "finished"
    for view, last in race:
        shot = closeup_of("race", view, last)
        left, _top, right, _bottom = shot.crop
        words = words_along(view.the_track, current_index(view), WIDTH)
        for x0, x1 in words:
            assert right <= x0 or x1 <= left or left <= x0 and x1 <= right, (view.phase, (x0, x1), shot.crop)
    finished = closeup_of("race", *race[-1])
    x0, x1 = words_along(race[-1][0].the_track, None, WIDTH)[-2]   # the last section's name
    assert finished.crop[0] <= x0 and x1 <= finished.crop[2]   # the last section's name whole, and the flag
