"""Issue 39, item 8: the caches of drawn pieces that grew with play (text masks, chips) hold at most their
budget of bytes, whatever a render process draws, and pictures drawn with pieces evicted are the same."""

from __future__ import annotations

import pytest
from PIL import Image

import images
from bot.table.jobs.drawing import refresh_drawing
from images import bounded
from images.bounded import bounded as bounded_by
from images.bounded import weight
from tests.render_frames import game_frames


def _square(side: int) -> Image.Image:
    return Image.new("L", (side, side))


def test_a_bounded_cache_forgets_its_least_recently_used_pieces_past_its_budget():
    made: list[int] = []

    def draw(side: int) -> Image.Image:
        made.append(side)
        return _square(side)
    budget = 3 * weight(_square(100))
    cache = bounded_by(budget)(draw)
    try:
        for _ in range(6):
            cache(100)
        assert made == [100] and cache.cache_info().hits == 5
        cache(99), cache(98), cache(100), cache(97)   # 99 is now the least recently used, and goes
        assert cache.cache_info().nbytes <= budget and cache.cache_info().currsize == 3
        cache(100), cache(99)
        assert made == [100, 99, 98, 97, 99]
        cache(1000)   # heavier than the whole budget: drawn, returned, not kept
        assert cache(1000).size == (1000, 1000) and made[-2:] == [1000, 1000]
        assert weight((_square(10), (1, 2))) == weight(_square(10)) == 100 + bounded.ENTRY_BYTES
    finally:
        bounded.CACHES.remove(cache.cache)


@pytest.fixture(scope="module")
def frames():
    return game_frames(every=20)


def test_drawing_every_game_keeps_each_cache_within_its_budget_and_the_pictures_unchanged(frames, monkeypatch):
    """Drawn with the budgets cut to a sliver the caches evict all the time, stay within them, and draw
    byte for byte what ample caches draw."""
    from images.battlecars.chips import chip_image
    from images.draw import _text_mask
    from images.speedway import _mapped_chip as _chip
    from images.track.board import _car, _discard, _draw_pile

    caches = [_text_mask, _chip, chip_image, _car, _discard, _draw_pile]
    assert all(cache.cache in bounded.CACHES for cache in caches)
    bounded.clear_all()
    ample = [images.render(ruleset, view, last, ()) for ruleset, view, last in frames]
    assert {ruleset for ruleset, _view, _last in frames} >= {"speedway", "track", "battlecars", "race"}
    assert all(cache.cache_info().currsize > 0 for cache in caches)
    for cache in bounded.CACHES:
        monkeypatch.setattr(cache, "budget", 64 << 10)
    bounded.clear_all()
    squeezed = [images.render(ruleset, view, last, ()) for ruleset, view, last in frames]
    for cache in bounded.CACHES:
        info = cache.cache_info()
        assert info.nbytes <= info.budget == 64 << 10
        assert info.nbytes == sum(size for _value, size in cache.entries.values())
    assert _text_mask.cache_info().misses > _text_mask.cache_info().currsize   # it did evict
    assert squeezed == ample
    monkeypatch.undo()
    refresh_drawing()   # leave the drawing as a warmed process has it, for the tests after this one


def test_car_sheets_are_kept_within_their_budget_and_drawn_the_same(frames, monkeypatch):
    """Sheets are drawn on request only: 256 kept held up to 53 MB in a render process."""
    from images.speedway import sheets

    assert sheets._sheet_image.cache in bounded.CACHES and sheets._rows_image.cache in bounded.CACHES
    views = [view for ruleset, view, _last in frames if ruleset == "speedway" and view.cars]
    ample = [images.render_sheets("speedway", view) for view in views]
    for cache in (sheets._sheet_image, sheets._rows_image):
        monkeypatch.setattr(cache.cache, "budget", 3 * cache.cache_info().nbytes // max(1, cache.cache_info().currsize))
        cache.cache_clear()
    assert [images.render_sheets("speedway", view) for view in views] == ample
    for cache in (sheets._sheet_image, sheets._rows_image):
        info = cache.cache_info()
        assert 0 < info.nbytes <= info.budget and info.misses > info.currsize


def test_a_car_counter_is_kept_as_the_part_that_draws_and_pastes_the_same():
    """A counter's square sprite is mostly clear: the kept piece is a small part of it (216 kept for every
    picture took 22 MB as squares), and put back in its square it is the sprite, pixel for pixel."""
    from images.speedway.counters import _counter_sprite, counter_piece, counter_sprite

    for args in ((0, 0, False, True, False, 0), (3, 1, True, False, False, 2), (5, 4, False, True, True, 0)):
        full = _counter_sprite(*args)
        piece, (left, top) = counter_piece(*args)
        assert counter_sprite(*args).tobytes() == full.tobytes()
        assert piece.tobytes() == full.crop((left, top, left + piece.width, top + piece.height)).tobytes()
        assert piece.width * piece.height * 3 < full.width * full.height


def test_fitting_a_text_keeps_only_the_faces_it_asked_for_and_the_one_it_chose():
    """A fit from 184 pixels down to about 140 used to keep the ~40 faces it measured (~200 KB each)."""
    from images import fonts
    from images.draw import _fitted_size, fit_font

    wide = fonts.passing_face(184, True).getlength("10")
    width = wide * 0.8
    fonts.font.cache_clear()
    _fitted_size.cache_clear()
    fitted = fit_font("10", 184, width, True)
    assert fonts.font.cache_info().currsize == 2   # 184 (asked for) and the one chosen
    assert fitted is fonts.font(fitted.size, True)
    assert fonts.passing_face(fitted.size, True).getlength("10") <= width
    assert fonts.passing_face(fitted.size + 1, True).getlength("10") > width
    assert fit_font("10", 184, width, True) is fitted and _fitted_size.cache_info().hits == 1


def test_fitting_a_text_measures_few_sizes_and_finds_the_one_a_size_by_size_scan_finds(monkeypatch):
    """Fitting starts just above the size the proportion of widths gives (issue 39 item 3: a new round's
    title measured six faces on every Track picture); the size found is the largest that fits, as
    going down size by size finds it."""
    from images import draw, fonts

    def scanned(text: str, size: int, width: float, bold: bool, minimum: int) -> int:
        while size > minimum and fonts.passing_face(size, bold).getlength(text) > width:
            size -= 1
        return size

    measured: list[int] = []
    passing = fonts.passing_face
    monkeypatch.setattr(fonts, "passing_face", lambda size, bold=False: measured.append(size) or passing(size, bold))
    draw._fitted_size.cache_clear()
    assert draw._fitted_size("Round 65 · ben's turn", 34, 348, True, 20) == 28
    assert len(measured) <= 3   # going down size by size measured 6
    monkeypatch.undo()
    texts = ("Round 65 · ben's turn", "★ ann wins! ★", "iiii WWWW", "10", "Armor 0 · Engine 2 · Driver 1 · guns 1/1")
    for text in texts:
        for size, bold, minimum in ((34, True, 20), (50, False, 12), (22, True, 21)):
            for width in (40, 120, 261, 348, 600):
                draw._fitted_size.cache_clear()
                assert draw._fitted_size(text, size, width, bold, minimum) == scanned(text, size, width, bold, minimum)
    draw._fitted_size.cache_clear()


def test_the_warmed_drawing_has_drawn_each_games_opening(monkeypatch):
    """Issue 39, item 6: the bot's own drawing, warmed as it starts and after a lull, has drawn each game's
    opening, so a new game's first picture finds its board's layers, chips and words made: it makes at
    most half the pieces it makes after fonts, palettes and sprites alone."""
    from bot.table.jobs import zygote_warm
    from bot.table.jobs.drawing import drawing_caches
    from rules.registry import GAMES, get_ruleset

    def pieces_made_by_new_openings() -> dict[str, int]:
        made = {}
        for game in GAMES:
            before = sum(cache.cache_info().misses for cache in drawing_caches())
            view, last = next(zygote_warm.played(get_ruleset(game), 5000, 0))
            images.render(game, view, last, ())
            made[game] = sum(cache.cache_info().misses for cache in drawing_caches()) - before
        return made

    monkeypatch.setattr(zygote_warm, "draw_openings", lambda: 0)
    refresh_drawing()
    bare = pieces_made_by_new_openings()
    monkeypatch.undo()
    refresh_drawing()
    warmed = pieces_made_by_new_openings()
    assert all(bare[game] >= 10 and warmed[game] * 2 <= bare[game] for game in GAMES), (bare, warmed)


@pytest.mark.parametrize("warmed", [False, True])
def test_the_warmed_bot_reads_a_new_games_state_without_reading_its_types_again(warmed):
    """Issue 39, item 6: the bot's own warm-up (warm_settled, as it starts) passes each game's opening through
    the rules' codec (zygote_warm.warm_rules), so the first command reads a stored state with the decoders
    built: no type hints read again (a fresh interpreter, where nothing else has built them)."""
    import subprocess
    import sys
    from pathlib import Path

    probe = ("import typing\n"
             "from bot.table.jobs import zygote_warm\n"
             "from rules.codec import encode_state\n"
             "from rules.registry import GAMES, get_ruleset\n"
             f"if {warmed}:\n"
             "    zygote_warm.warm_rules()\n"
             "states = {game: encode_state(zygote_warm.opening(get_ruleset(game), 5000)[0]) for game in GAMES}\n"
             "read, hints = [], typing.get_type_hints\n"
             "typing.get_type_hints = lambda *args, **kw: read.append(args[0]) or hints(*args, **kw)\n"
             "for game, text in states.items():\n"
             "    get_ruleset(game).load_state(text)\n"
             "print(len(read))\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=Path(__file__).parent.parent, capture_output=True,
                          text=True, check=True, timeout=120)
    read = int(done.stdout.split()[-1])
    assert (read == 0) if warmed else (read > 10), (warmed, read)
