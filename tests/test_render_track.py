"""The track board picture: valid, deterministic, small PNGs that change with the game and never show
a hidden card (issue 5). States are driven through the real referee with a fixed seed."""

from __future__ import annotations

import io
import random
from dataclasses import replace

from PIL import Image

from images import render
from images.track import render_track
from images.track.geometry import lane_cell, pit_cell, ring_cell
from rules.engine import parse_command
from rules.track.actions import Join, Start
from rules.track.ruleset import TRACK
from rules.track.state import LANE, PITS, RING, Car, TrackState

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SEED = 5
A, B = "alice", "bob"


def lobby() -> TrackState:
    state = TRACK.setup({}, SEED, A)
    state, _ = TRACK.apply(state, A, Join("alice"))
    return state


def started() -> TrackState:
    state, _ = TRACK.apply(lobby(), B, Join("bob"))
    state, _ = TRACK.apply(state, A, Start())
    return state


def step(state: TrackState, rng: random.Random) -> TrackState:
    """One random legal command by the player to move."""
    player = state.active_player
    options = TRACK.legal_actions(state, player)
    name, opts = parse_command(options[rng.randrange(len(options))].command)
    state, _ = TRACK.apply(state, player, TRACK.command_to_action(name, opts))
    return state


def played(turns: int, seed: int = 3) -> TrackState:
    rng, state = random.Random(seed), started()
    for _ in range(turns):
        if state.phase != "play":
            break
        state = step(state, rng)
    return state


def finished() -> TrackState:
    rng, state = random.Random(3), started()
    while state.phase != "finished":
        state = step(state, rng)
    return state


def public(state: TrackState) -> bytes:
    return render_track(TRACK.view(state, None))


def image_of(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_valid_small_landscape_png_of_one_size_all_game():
    data = public(played(40))
    image = image_of(data)
    assert image.size == (1220, 800) and len(data) < 250_000      # the board, and the words beside it
    sizes = {image_of(public(state)).size for state in (lobby(), started(), played(5), finished())}
    assert sizes == {(1220, 800)}


def test_same_state_same_bytes():
    state = played(25)
    assert public(state) == public(state)
    assert public(played(25)) == public(state)


def test_a_move_changes_the_bytes():
    before = played(10)
    after = step(before, random.Random(1))
    assert after.cars != before.cars or after.discard_pile != before.discard_pile
    assert public(before) != public(after)


def test_the_last_path_is_drawn():
    state = played(12)
    assert state.last_moves
    assert public(state) != public(replace(state, last_moves=()))


def test_lobby_start_and_finished_render():
    for state in (TRACK.setup({}, SEED, A), lobby(), started(), finished()):
        image_of(public(state))
    done = finished()
    assert done.phase == "finished" and done.winner
    assert public(done) != public(replace(done, winner=None, phase="play"))


def test_dispatch_by_ruleset_id():
    state = TRACK.view(played(8), None)
    assert render("track", state) == render_track(state)


def test_hidden_cards_cannot_influence_the_image():
    """Known hands and a known draw pile; swapping hand contents (sizes kept) or reordering the draw
    pile changes nothing, and the full state renders exactly like its public view: the renderer reads
    hand sizes and the draw count only."""
    state = played(14)
    state = state.with_hand(A, ("JK", "AS", "KH")).with_hand(B, ("2C", "3D", "4S"))
    swapped = state.with_hand(A, ("2C", "3D", "4S")).with_hand(B, ("JK", "AS", "KH"))
    reordered = replace(swapped, draw_pile=tuple(reversed(state.draw_pile)))
    assert TRACK.view(state, None) != TRACK.view(state, A)
    image = public(state)
    assert image == public(swapped) == public(reordered)
    assert render_track(state) == image
    # A viewer's own hand in a private view is not drawn either: the board is the public picture.
    assert render_track(TRACK.view(state, A)) == image


def test_hand_size_is_shown():
    state = played(6)
    smaller = state.with_hand(A, state.hand(A).cards[:1])
    assert public(state) != public(smaller)


def test_board_geometry_is_the_square_ring_of_rules_gaps():
    board = started().board
    assert ring_cell(board, 0) == (9, 0) and ring_cell(board, 9) == (0, 0)
    assert ring_cell(board, 18) == (0, 9) and ring_cell(board, 27) == (9, 9)
    assert ring_cell(board, 8) == (1, 0) and ring_cell(board, 26) == (8, 9)
    assert len({ring_cell(board, h) for h in range(36)}) == 36
    assert lane_cell(board, 0, 0) == (8, 1) and lane_cell(board, 0, 5) == (3, 1)
    assert lane_cell(board, 1, 0) == (1, 8) and lane_cell(board, 1, 5) == (6, 8)
    assert [pit_cell(board, 0, i) for i in range(5)] == [(2, c) for c in range(2, 7)]
    assert [pit_cell(board, 1, i) for i in range(5)] == [(7, c) for c in range(7, 2, -1)]
    ring = {ring_cell(board, h) for h in range(36)}
    inner = {lane_cell(board, s, k) for s in (0, 1) for k in range(6)} | \
        {pit_cell(board, s, i) for s in (0, 1) for i in range(5)}
    assert not ring & inner and len(inner) == 22


def test_cars_in_every_place_render():
    state = started()
    cars = (Car(A, "c1", RING, 8), Car(A, "c2", LANE, 0), Car(A, "c3", LANE, 5), Car(A, "c4", RING, 35),
            Car(A, "c5", PITS, 0), Car(B, "c1", RING, 26), Car(B, "c2", LANE, 3), Car(B, "c3", RING, 0),
            Car(B, "c4", PITS, 0), Car(B, "c5", RING, 18))
    image_of(public(replace(state, cars=cars)))


def test_each_start_hole_wears_its_owners_colour():
    from images.track import board as board_module
    from images.track import geometry
    from images.track import style as track_style

    state = started()
    b = state.board
    side = board_module.BOARD
    image = board_module.draw_board(state).convert("RGB")
    scale = side / track_style.WIDTH
    for seat in range(2):
        hole = (b.corners[seat] + b.start_after_corner) % b.ring_holes
        if any(c.where == "ring" and c.spot == hole for c in state.cars):
            continue
        x, y = board_module.centre(geometry.ring_cell(b, hole))
        pixel = image.getpixel((round((x + track_style.HOLE * 0.6) * scale), round(y * scale)))
        expected = track_style.seat_colour(seat)
        assert max(abs(p - q) for p, q in zip(pixel, expected)) < 40, (seat, pixel, expected)


def test_the_last_move_line_never_crosses_the_discard_card():
    """Every leg a move can draw (a pit to its start hole, a step round the ring, into and along a finish
    lane, and a Joker's swap between any two holes) stays off the felt where the discard card lies; only
    a swap's jump is left undrawn, shown by the rings on both its holes."""
    from images.track.board import _drawn_legs, crosses, felt_box
    from rules.track.state import CarMove

    state = started()
    b = state.board
    felt = felt_box(state)
    card = (felt[0] + 131, felt[1] + 58, felt[0] + 301, felt[1] + 296)    # where _draw_table lays it
    assert crosses((0, 0), (2000, 2000), felt) and not crosses((0, 0), (10, 0), felt)
    walks = []
    for owner, seat in ((A, 0), (B, 1)):
        start = (b.corners[seat] + b.start_after_corner) % b.ring_holes
        for n in range(1, 6):
            walks.append(CarMove(owner, f"c{n}", PITS, 0, RING, start, (start,)))
        walks.append(CarMove(owner, "c1", RING, 0, RING, 35, tuple(range(1, 36))))
        corner = b.corners[seat]
        lane = tuple(b.ring_holes + s for s in range(b.finish_holes + 1))
        walks.append(CarMove(owner, "c1", RING, corner, LANE, b.finish_holes, lane))
    for move in walks:                                  # a walk keeps every leg
        legs = _drawn_legs(state, move)
        assert len(legs) == len(move.path) and not any(crosses(a, z, card) for a, z in legs)
    swaps = [CarMove(A, "c1", RING, i, RING, j, (j,)) for i in range(36) for j in range(36) if i != j]
    across = [m for m in swaps if not _drawn_legs(state, m)]
    assert across and all(not crosses(a, z, card) for m in swaps for a, z in _drawn_legs(state, m))
    swapped = replace(state, cars=(Car(A, "c1", RING, 30), *state.cars[1:]), last_moves=(across[0],))
    image_of(public(swapped))


def test_a_joker_swap_out_of_the_finish_rings_the_finish_hole_it_left():
    """Seed 002's Joker "from anywhere" (Track revision 4, issue 37 item 9): the picture rings the F3 the
    car left, in the last move's colour, and the car stands on the hole it took."""
    from images.track import board as board_module
    from images.track import geometry
    from images.track import style as track_style

    state = replace(started(), revision=4, cars=(Car(A, "c1", LANE, 3), Car(B, "c1", RING, 16)),
                    order=(A, B), turn_index=0)
    state = state.with_hand(A, ("JK", "2C", "3C"))
    swap = TRACK.command_to_action(*parse_command("/play card:JK move:swap car:c1 target:c1"))
    state, _ = TRACK.apply(state, A, swap)
    image = board_module.draw_board(TRACK.view(state, None)).convert("RGB")
    scale, b = board_module.BOARD / track_style.WIDTH, state.board
    x, y = board_module.centre(geometry.lane_cell(b, 0, 3))
    strip = [image.getpixel((round((x + dx) * scale), round(y * scale))) for dx in range(track_style.HOLE + 14)]
    assert min(max(abs(p - q) for p, q in zip(pixel, track_style.PATH)) for pixel in strip) < 20
    x, y = board_module.centre(geometry.ring_cell(b, 16))
    assert image.getpixel((round((x + track_style.CAR * 0.7) * scale), round(y * scale))) == track_style.seat_colour(0)


def test_the_picture_mapped_box_by_box_is_the_whole_picture_mapped():
    """Track maps the kept board once and then only the boxes a move drew in (render_paletted, issue 39
    item 3): the same pixels and palette as mapping the whole RGB picture, from the empty table and a lone
    seat to the end, and the same PNG bytes."""
    from images.draw import to_png
    from images.track import PNG_LEVEL, few_colours, reference_palette, render_image, render_paletted

    palette = few_colours() or reference_palette()
    rng, state = random.Random(11), started()
    states = [TRACK.setup({}, SEED, A), lobby(), state]
    while state.phase == "play" and len(states) < 40:
        state = step(state, rng)
        states.append(state)
    for view in (TRACK.view(s, None) for s in states + [finished()]):
        whole = render_image(view).quantize(palette=palette, dither=Image.Dither.NONE)
        boxed = render_paletted(view)
        assert (boxed.mode, boxed.size, boxed.getpalette()) == (whole.mode, whole.size, whole.getpalette())
        assert boxed.tobytes() == whole.tobytes()
    assert render_track(view) == to_png(render_image(view), palette=palette, level=PNG_LEVEL)


def test_overlapping_boxes_are_joined_and_cut_to_the_picture():
    from images.track import merged

    assert merged([(0, 0, 10, 10), (5, 5, 20, 20), (30, 30, 40, 40), (-5, 35, 3, 60), (50, 50, 50, 60)],
                  (45, 45)) == [(0, 0, 20, 20), (30, 30, 40, 40), (0, 35, 3, 45)]
    assert merged([(0, 0, 4, 4), (10, 0, 14, 4), (3, 0, 11, 2)], (20, 20)) == [(0, 0, 14, 4)]


def test_a_split_cards_two_paths_far_apart_are_drawn_apart_to_the_same_picture(monkeypatch):
    """A 7 split between two cars far apart draws each car's path in its own small box (supersampled and
    mapped apart, not one box around both: issue 39, items 1-3) and gives the picture drawn in one box."""
    from bot.cli.bench_pictures import positions
    from images.track import board

    split = next(view for seed in range(2000, 2012) for view, _, _ in positions("track", seed, 400)
                 if len(view.last_moves) == 2 and len(board._path_groups(
                     [tuple(board._drawn_legs(view, move)) for move in view.last_moves])) == 2)
    apart, boxes = board.drawn_board(split)
    monkeypatch.setattr(board, "_path_groups", lambda paths: [tuple(leg for path in paths for leg in path)])
    together, one_box = board.drawn_board(split)
    assert apart.tobytes() == together.tobytes()
    area = lambda found: sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in found)   # noqa: E731
    assert len(boxes) == len(one_box) + 1 and area(boxes) < area(one_box)


def test_paths_whose_boxes_overlap_are_drawn_together():
    from images.track import board

    near = (((10.0, 10.0), (60.0, 10.0)),)
    touching = (((60.0, 10.0), (60.0, 80.0)),)
    far = (((500.0, 500.0), (560.0, 500.0)),)
    assert board._path_groups([near, touching, far]) == [near + touching, far]
    assert board._path_groups([near, (), far]) == [near, far]
