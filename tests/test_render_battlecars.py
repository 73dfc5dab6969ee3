"""The Battlecars table picture: a landscape PNG of one size all game per board, the same bytes for the
same state, and never a speed counter still face down."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from images.battlecars import page_size, render_battlecars
from rules.battlecars import data
from rules.battlecars.actions import AddComputer, Join, SetSpeed, Start
from rules.battlecars.ruleset import RULESET


def game(board: str, seats: int):
    state = RULESET.setup({"board": board}, 3, "alice")
    state, _ = RULESET.apply(state, "alice", Join("alice", "interceptor"))
    for design in list(data.vehicles())[1:seats]:
        state, _ = RULESET.apply(state, "alice", AddComputer(design))
    return RULESET.apply(state, "alice", Start())[0]


def picture(state, last=()) -> Image.Image:
    return Image.open(io.BytesIO(render_battlecars(RULESET.view(state, None), last)))


def test_the_picture_is_landscape_and_keeps_its_size_all_game():
    for board, seats in (("open", 2), ("town", 3), ("open", 6)):
        state = game(board, seats)
        sizes = {picture(state).size}
        for _ in range(40):
            if RULESET.is_finished(state):
                break
            player = RULESET.acting_players(state)[0]
            action = RULESET.computer.choose(state, player) or SetSpeed(0)
            state, last = RULESET.apply(state, player, action)
            sizes.add(picture(state, last).size)
        (size,) = sizes
        assert size == page_size(state.the_board) and size[0] > size[1]


def test_the_same_state_gives_the_same_bytes():
    state = game("town", 3)
    assert render_battlecars(state) == render_battlecars(game("town", 3))


def test_a_face_down_speed_counter_never_reaches_the_picture():
    """Only the channel's view is drawn: a counter set but not revealed draws the same whatever it is."""
    state = game("open", 2)
    first = state.order[0]
    slow, _ = RULESET.apply(state, first, SetSpeed(1))
    fast, _ = RULESET.apply(state, first, SetSpeed(3))
    assert render_battlecars(RULESET.view(slow, None)) == render_battlecars(RULESET.view(fast, None))
    assert render_battlecars(RULESET.view(slow, None)) != render_battlecars(state)   # a "?" marks it down


async def test_the_full_mats_come_on_request_privately_or_to_the_channel(service):
    from bot.table.protocol.commands import parse
    from bot.table.protocol.replies import Actor

    async def run(user, line):
        return await service.execute("chan-1", Actor(user, user), parse(line))

    for user, line in (("alice", "/game new ruleset:battlecars seed:3"), ("alice", "/game join vehicle:war_rig"),
                       ("bob", "/game join vehicle:bike2"), ("alice", "/game start")):
        assert (await run(user, line)).outcome == "applied", line
    every = await run("carol", "/game sheet")
    assert every.outcome == "shown" and every.ephemeral
    (mats,) = every.files
    image = Image.open(io.BytesIO(mats.data))
    assert image.size == (1000, 420)                               # two mats side by side
    one = await run("carol", "/game sheet car:v2 public:true")
    assert not one.ephemeral and Image.open(io.BytesIO(one.files[0].data)).size == (1000, 420)
    wrong = await run("carol", "/game sheet car:zed")
    assert wrong.outcome == "refused" and "No vehicle 'zed'" in wrong.text


def test_passive_counters_and_a_dead_drivers_pistol_are_drawn():
    from dataclasses import replace

    from rules.battlecars.grid import parse_label
    from rules.battlecars.state import Counter

    state = game("open", 2)
    base = render_battlecars(RULESET.view(state, None))
    seen = set()
    for kind in ("oil", "mine", "spikes", "smoke"):
        marked = replace(state, counters=(Counter(1, kind, parse_label("F5"), "v1"),))
        drawn = render_battlecars(RULESET.view(marked, None))
        assert drawn != base
        seen.add(drawn)
    assert len(seen) == 4                                             # each kind looks different
    pistol = replace(state, pistols_left=((parse_label("F5"), 3),))
    assert render_battlecars(RULESET.view(pistol, None)) != base


def test_every_word_stays_above_9_px_on_a_phone_and_no_chip_figure_is_cut():
    """Issue 10's rule: legible at 420 px wide. The smallest words are TEXT px on a page at most
    420 / 9 * TEXT wide, and every mat's chip lines, at their longest (a full speedo and armour, the
    driver on foot), fit the chip without an ellipsis."""
    from dataclasses import replace

    from images.battlecars.chips import chip_lines
    from images.battlecars.style import CHIP_INSET, SIDEBAR, TEXT
    from images.fonts import font
    from rules.battlecars.state import Pedestrian

    for board in (data.board("open"), data.board("town"), data.board("open", big=True)):
        assert TEXT * 420 / page_size(board)[0] >= 9
    face = font(TEXT)
    room = SIDEBAR - 22 - CHIP_INSET
    state = game("open", 2)
    for design in data.vehicles():
        vehicle = replace(state.vehicles[0], design=design, armour=data.vehicles()[design].armour,
                          speed=data.vehicles()[design].max_speed)
        walker = Pedestrian("d1", vehicle.owner, "x", (0, 0), 3, 6)
        for standing in (replace(state, vehicles=(vehicle,)),
                         replace(state, vehicles=(vehicle,), pedestrians=(walker,))):
            for line in chip_lines(standing, vehicle)[1:]:
                assert face.getlength(line) <= room, (design, line)


def test_redrawing_only_the_busy_pieces_gives_the_whole_picture_pixel_for_pixel():
    """The kept bare board plus the pieces of it where something stands or happened (each mark's box,
    overlapping ones gathered) is the picture drawn all at once: at every action of a whole self-played
    game (vehicles, counters, shots, trails, wrecks, drivers on foot, flattened scenery), lobby and end
    included."""
    from PIL import ImageChops

    from images.battlecars import render_image
    from tests.render_frames import game_frames

    frames = [(view, last) for game, view, last in game_frames(1) if game == "battlecars"]
    assert len(frames) > 40
    for index, (view, last) in enumerate(frames):
        turn = tuple(e for _view, events in frames[max(0, index - 8):index + 1] for e in events)   # trails
        fast, whole = render_image(view, last, turn=turn), render_image(view, last, whole=True, turn=turn)
        assert ImageChops.difference(fast, whole).getbbox() is None


def test_a_driver_on_foot_wears_a_name_tag_and_the_header_names_who_decides():
    """Issue 25, item 8: a driver on foot is labelled (name and health) like a vehicle; the empty vehicle
    is not ringed as the one acting; the header names the driver who must choose where a hit lands."""
    from dataclasses import replace

    from images.battlecars.header import headline
    from images.battlecars.tags import tag_words
    from images.fonts import font
    from rules.battlecars.actions import Leave
    from rules.battlecars.state import PendingHit, Phase
    from tests.battlecars_helpers import table

    state = table(("alice", "interceptor", "C5", "E", 0), ("bob", "rammer", "M1", "W", 0))
    mover = state.active
    state, _ = RULESET.apply(state, mover, Leave())
    tags = {ident: text for ident, _point, text, _colour, _muted in tag_words(state, font(23, bold=True))}
    walker = state.pedestrian_of(mover)
    assert tags[walker.id] == f"{walker.name} · 3♥"
    assert tags[state.vehicle_of(mover).id] == state.vehicle_of(mover).name     # empty: no speed shown
    other = next(p for p in state.order if p != mover)
    hit = PendingHit(state.vehicle_of(other).id, other, 3, ("front", "middle"), False, state.vehicle_of(mover).id,
                     False)
    deciding = replace(state, phase=Phase.SECTION, pending_hit=hit)
    assert headline(deciding) == f"Turn {state.round + 1} · {state.seat(other).name} chooses where the hit lands"


def test_the_header_tells_the_roll_that_mattered_not_a_smoke_marker_that_stayed():
    """Issue 25, item 8: a smoke marker's end-of-turn roll that left it in place is no news; the header's
    two lines keep the shot and its damage. A roll that made it drift is told."""
    from images.battlecars.header import news
    from rules.battlecars.events import DiceRolled, WeaponFired

    shot = (WeaponFired("alice's driver", "a pistol", "bob", 3),
            DiceRolled("alice's driver", "rolls to hit", "range dice: 2d6 >= range", "d6", (4, 5), 9, 3, True))
    stayed = DiceRolled("Smoke", "at H2 rolls", "1 drifts, 2-6 stays", "d6", (5,), 5)
    drifted = DiceRolled("Smoke", "at H2 rolls", "1 drifts, 2-6 stays", "d6", (1,), 1)
    assert news(shot + (stayed,)) == news(shot) and "Smoke" not in news(shot + (stayed,))
    assert "Smoke at H2 rolls" in news(shot + (drifted,))


@pytest.mark.parametrize("name", ["Al", "Charlotte", "Maximilianus", "W" * 32])
def test_a_chip_shows_the_vehicles_name_whole_and_the_drivers_name_legible_on_a_phone(name):
    """Issue 37, item 12: the mat's name was cut ('Charlotte · Int… · OUT') and 9 px on a 420 px phone.
    It has a line of its own, never cut; the driver's name is 11 px there (a longer name smaller, down to
    the smallest words, and cut only when it alone is too long, never ' · OUT'); every line fits."""
    from images.battlecars.chips import chip_words
    from images.battlecars.style import CHIP_INSET, SIDEBAR, TEXT

    room = SIDEBAR - 22 - CHIP_INSET
    widest = max(page_size(data.board(board, big=big))[0] for board in data.board_ids() for big in (False, True))
    for mat in data.vehicles().values():
        for gone in ("", " · OUT"):
            (head, title, _), (_, vehicle, _), *_rest = lines = chip_words(((name, mat.name, gone), "", ""), room)
            assert all(face.getlength(words) <= room for face, words, _muted in lines)
            assert vehicle == mat.name and title.endswith(gone)
            assert head.size >= TEXT and (head.size * 420 / widest >= 11 or len(name) > 9)
            assert title == name + gone if len(name) < 16 else title.startswith(name[:3]) and f"…{gone}" in title


def test_each_vehicle_leaves_a_trail_of_its_recent_turns_in_its_own_colour():
    """Issue 25, item 8: like Speedway's, the picture shows where each vehicle went in the recent turns
    (the events it is given as `turn`): a faint line in the vehicle's colour with a dot on every point it
    passed, and nothing of it without those events."""
    from images.battlecars import render_image
    from images.battlecars.marks import trails
    from images.battlecars.style import HEADER, TRAILS, cell_size, centre
    from tests.render_frames import game_frames

    frames = [(view, last) for game, view, last in game_frames(1) if game == "battlecars"]
    checked = 0
    for index, (view, last) in enumerate(frames):
        turn = tuple(e for _view, events in frames[max(0, index - 8):index + 1] for e in events)
        standing = {v.point for v in view.vehicles} | {p.point for p in view.pedestrians} \
            | {c.point for c in view.counters} | {p for p, _r in view.pistols_left}
        for name, path in trails(turn).items():
            vehicle = next(v for v in view.vehicles if v.name == name)
            passed = [p for p in path[:-1] if p not in standing and p not in path[-1:]
                      and not any(p in trails(last).get(n, []) for n in trails(last))]
            if not passed:
                continue
            x, y = centre(passed[0], cell_size(view.the_board), HEADER)
            with_trails = render_image(view, last, turn=turn).getpixel((round(x), round(y)))
            without = render_image(view, last).getpixel((round(x), round(y)))
            assert with_trails == TRAILS[vehicle.colour % len(TRAILS)], (index, name, passed[0])
            assert without != with_trails
            checked += 1
    assert checked >= 10
