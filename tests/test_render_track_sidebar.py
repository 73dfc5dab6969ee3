"""Track's words beside the board drawn band by band (images.track.caption.sidebar_parts): the bands drawn
apart are the sidebar drawn whole, and mapped one by one to the palette, kept by what they show, they are
the whole picture mapped, pixel for pixel."""

from __future__ import annotations

import random
from dataclasses import replace

from PIL import Image

import images.track as T
from images.bands import drawn_alone
from images.track import style
from images.track.caption import SEAT_BAND, render_sidebar, sidebar_parts
from rules.track.actions import Join, Start
from rules.track.phases import TrackPhase
from rules.track.ruleset import TRACK
from rules.track.state import TrackState
from tests.test_render_track import finished, lobby, started

HEIGHT = 800   # the board's height: the sidebar's


def _seated(*names: str) -> TrackState:
    state = TRACK.setup({}, 5, "p0")
    for n, name in enumerate(names):
        state, _ = TRACK.apply(state, f"p{n}", Join(name))
    return TRACK.apply(state, "p0", Start())[0] if len(names) == 2 else state


def _played_by(name: str) -> tuple[TrackState, tuple]:
    """The first card played by a player called `name`, and its events: the last card's first line names them."""
    state = started()
    state = replace(state, players=tuple(replace(p, name=name) if p.id == state.active_player else p
                                         for p in state.players))
    return TRACK.apply(state, state.active_player, TRACK.legal_actions(state, state.active_player)[0].action)


def _tall_words() -> list[tuple[TrackState, tuple]]:
    """Names whose glyphs reach past the rows the layout gives their words (stacked Vietnamese accents,
    Arabic, combining marks) at the top of the last card's lines."""
    return [_played_by(name) for name in ("ẤN", "أحمد", "Z\u0489")]


def _states() -> list[tuple[TrackState, tuple]]:
    """A self-played game's views with their events, and states it does not reach: the empty table and a
    lone seat, a computer's seat, tall names in the seats' boxes and the banner (their boxes leave them
    room), a name cut short, a game ended by someone and a draw, and words taller than their rows."""
    rng, state, last = random.Random(11), started(), ()
    played = [(state, last)]
    while state.phase == "play" and len(played) < 60:
        player = state.active_player
        options = TRACK.legal_actions(state, player)
        state, last = TRACK.apply(state, player, options[rng.randrange(len(options))].action)
        played.append((state, last))
    over = finished()
    computer = replace(started(), players=(replace(started().players[0], ai=True),) + started().players[1:])
    lao = replace(over, players=(replace(over.players[0], name="ບຸນມີ"),) + over.players[1:], winner=over.players[0].id)
    made = [TRACK.setup({}, 5, "p0"), lobby(), computer, _seated("a name far too long for the box beside it", "b"),
            _seated("ẤN", "Z\u0489"), lao, replace(over, winner=None, ended_by="alice"),
            replace(over, winner=None, ended_by=None), over]
    return [(TRACK.view(s, None), last) for s, last in played + [(s, ()) for s in made] + _tall_words()]


def test_sidebar_bands_drawn_alone_are_the_sidebar_drawn_whole_or_one_says_it_reaches_past_its_rows():
    """Each band (the banner, the last card's lines, a seat's box) drawn alone on its own paper is the same
    pixels as its rows of the sidebar drawn whole, unless it says its drawing reaches past its rows (None):
    ordinary words never do, tall ones always do. The bands leave no drawn row outside them."""
    states = _states()
    tall = {id(view) for view, _last in states[-len(_tall_words()):]}
    assert {view.phase for view, _last in states} == {TrackPhase.LOBBY, TrackPhase.PLAY, TrackPhase.FINISHED}
    for view, last in states:
        parts = sidebar_parts(view, T.SIDEBAR, HEIGHT, last)
        alone = [(drawn_alone(part, T.SIDEBAR, style.PAPER), part, top) for part, top in parts]
        reached = [top for drawn, _part, top in alone if drawn is None]
        assert bool(reached) == (id(view) in tall), (reached, view.phase, last)
        if reached:
            continue
        whole = render_sidebar(view, T.SIDEBAR, HEIGHT, last)
        covered = Image.new("RGB", whole.size, style.PAPER)
        for drawn, part, top in alone:
            assert drawn is not None and drawn.tobytes() == whole.crop((0, top, T.SIDEBAR, top + part[1])).tobytes()
            covered.paste(drawn, (0, top))
        assert covered.tobytes() == whole.tobytes()


def test_the_sidebar_mapped_band_by_band_is_the_whole_picture_mapped():
    """Drawn anew, then from the bands kept: every picture is the whole RGB picture mapped to the palette,
    tall words included (their sidebar drawn whole), and most bands come from the cache the second time."""
    states = _states()
    palette = T.pictures_palette()
    T._mapped_band.cache_clear()
    for _round in range(2):
        for view, last in states:
            whole = T.render_image(view, last).quantize(palette=palette, dither=Image.Dither.NONE)
            banded = T.render_paletted(view, last)
            assert (banded.mode, banded.size, banded.getpalette()) == (whole.mode, whole.size, whole.getpalette())
            assert banded.tobytes() == whole.tobytes(), view.phase
    info = T._mapped_band.cache_info()
    assert info.hits > 2 * len(states), info


def test_a_seat_band_is_kept_by_everything_its_box_shows():
    """A seat's band is kept by what its box shows: the turn passing changes both boxes' looks (the outline),
    a card played and drawn the mover's cars home or hand; a band kept never shows a stale box."""
    state = started()
    after, _events = TRACK.apply(state, state.active_player, TRACK.legal_actions(state, state.active_player)[0].action)

    def seats(of: TrackState) -> list:
        return [look for (drawer, _height, look), _top in sidebar_parts(TRACK.view(of, None), T.SIDEBAR, HEIGHT)
                if drawer is SEAT_BAND]

    before_looks, after_looks = seats(state), seats(after)
    assert len(before_looks) == len(after_looks) == len(state.board.corners)
    assert [look[2][2] for look in before_looks[:2]] == [True, False]   # whose turn, in the look
    assert [look[2][2] for look in after_looks[:2]] == [False, True]
    assert all(b != a for b, a in zip(before_looks[:2], after_looks[:2]))


def test_a_column_too_short_for_its_bands_is_drawn_whole():
    """A column shorter than its banner, lines and seats (no built-in board is) leaves a band no rows: it is
    drawn whole, the same picture as drawing it whole, never a band of negative height."""
    palette = T.pictures_palette()
    view = TRACK.view(started(), None)
    parts = sidebar_parts(view, T.SIDEBAR, 250)
    assert any(part[1] <= 0 for part, _top in parts)
    assert drawn_alone(parts[1][0], T.SIDEBAR, style.PAPER) is None
    whole = render_sidebar(view, T.SIDEBAR, 250).quantize(palette=palette, dither=Image.Dither.NONE)
    assert T._mapped_sidebar(view, 250, ()).tobytes() == whole.tobytes()
