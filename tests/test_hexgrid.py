"""Property tests for the hex geometry every map and maneuver relies on."""

from hypothesis import given
from hypothesis import strategies as st

from rules.hexgrid import (
    DIRECTIONS,
    add,
    direction,
    distance,
    from_offset,
    label,
    neighbours,
    parse_label,
    step,
    to_offset,
)

coords = st.tuples(st.integers(-60, 60), st.integers(-60, 60))
on_map = st.tuples(st.integers(0, 80), st.integers(0, 80)).map(lambda cr: from_offset(*cr))
dirs = st.integers(-12, 12)


@given(coords, coords)
def test_distance_is_symmetric_and_zero_only_on_itself(a, b):
    assert distance(a, b) == distance(b, a)
    assert (distance(a, b) == 0) == (a == b)


@given(coords, coords, coords)
def test_distance_triangle_inequality(a, b, c):
    assert distance(a, c) <= distance(a, b) + distance(b, c)


@given(coords)
def test_neighbours_are_at_distance_one_and_distinct(h):
    ring = neighbours(h)
    assert len(set(ring)) == 6
    assert all(distance(h, n) == 1 for n in ring)


@given(coords, dirs, st.integers(0, 20))
def test_steps_in_a_straight_line_add_up(h, d, n):
    assert distance(h, step(h, d, n)) == n
    assert step(step(h, d, n), d + 3, n) == h


@given(dirs)
def test_direction_identities_used_by_the_maneuvers(k):
    # dir(k) + dir(k+2) = dir(k+1): a tight turn's tail lands on the old front's forward hex.
    assert add(direction(k), direction(k + 2)) == direction(k + 1)
    assert direction(k + 6) == direction(k)


def test_directions_run_counter_clockwise_from_east():
    assert DIRECTIONS[0] == (1, 0) and DIRECTIONS[3] == (-1, 0)
    assert DIRECTIONS[1] == (1, -1)  # NE is up and to the right


@given(on_map)
def test_label_round_trips(h):
    assert parse_label(label(h)) == h
    assert parse_label(label(h).lower()) == h


@given(st.integers(0, 80), st.integers(0, 80))
def test_offset_round_trips(col, row):
    assert to_offset(from_offset(col, row)) == (col, row)


def test_labels_players_read():
    assert label(from_offset(0, 0)) == "A1"
    assert label(from_offset(24, 16)) == "Y17"
    assert label(from_offset(26, 0)) == "AA1"


@given(st.text(max_size=6))
def test_parse_label_refuses_garbage_with_valueerror(text):
    try:
        h = parse_label(text)
    except ValueError:
        return
    assert label(h) == text.strip().upper()
