"""The race's picture drawn band by band (images.race): the bands drawn apart are the picture drawn whole, and
mapped one by one to the palette, kept by what they show, they are the whole picture mapped, pixel for pixel."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image

import images.race as R
from images.bands import drawn_alone
from rules.race import data
from rules.race.actions import Join
from rules.race.events import HazardHit
from rules.race.ruleset import RULESET
from rules.race.state import Phase, RaceState
from tests.race_helpers import race, seat
from tests.render_frames import game_frames


def _lobby(racers: int) -> RaceState:
    state = RULESET.setup({"track": "dune_sea"}, 1, "p0")
    for n in range(racers):
        state, _ = RULESET.apply(state, f"p{n}", Join(f"Racer {n + 1}"))
    return state


def _tall_words() -> list[tuple[RaceState, tuple]]:
    """Names and a group's own track whose glyphs reach past the rows the layout gives their words (stacked
    Vietnamese accents, Arabic, Lao, combining marks): in the news, the title, a row and the panel."""
    base = data.track("dune_sea")
    first = base.sections[0]
    own = replace(base, id="own", name="Đường Ổ", sections=(
        replace(first, name="Ổ gà Ẳ", hazard=replace(first.hazard, what="Ổ gà")),) + base.sections[1:])
    return [(race("ẤN", "b"), (HazardHit("ẤN", "rock"),)), (race("أحمد", "b"), (HazardHit("أحمد", "rock"),)),
            (race("ບຸນມີ", "b", phase=Phase.FINISHED, winner="ບຸນມີ"), ()), (race("b", "Ẳ"), ()),
            (race("Z\u0489", "b"), (HazardHit("Z\u0489", "rock"),)), (replace(race("a", "b"), custom_track=own), ())]


def _states() -> list[tuple[RaceState, tuple]]:
    """Frames of a self-played race with their events, and states it does not reach: every lobby size, the
    GM readying a section, a grid of six with racers out and hulls under half, a racer in a later colour
    (the fixed palette's 256), a feature under way, the race over, and words taller than their rows."""
    played = [(view, last) for ruleset, view, last in game_frames(every=2) if ruleset == "race"]
    most = data.table()["max_racers"]
    crowd = race(seat("a", 620, 3, hp=10), seat("b", 90, 1, out="crashed", out_order=1), "c",
                 seat("d", 400, 7, bonus=2),
                 seat("a long name that the table has to cut short", 300, 1, advantage=True), "f")
    made = [_lobby(n) for n in range(1, most + 1)] + [
        race("a", "b", phase=Phase.GM, gm=True), crowd,
        replace(crowd, racers=tuple(replace(r, colour=r.colour + 3) for r in crowd.racers)),
        race("a", "b", "c", phase=Phase.FEATURE, feature_stage="before", feature=0, section=1),
        race("a", "b", phase=Phase.FINISHED, winner="r2")]
    return played + [(RULESET.view(state, None), ()) for state in made] + \
        [(RULESET.view(state, None), last) for state, last in _tall_words()]


def test_bands_drawn_alone_are_the_picture_drawn_whole_or_one_says_it_reaches_past_its_rows():
    """Each band (title, news, course, panel, the table's titles, a row per racer) drawn alone on its own paper
    is the same pixels as its rows of the picture drawn whole, unless a band says its drawing reaches past its
    rows (None; then the picture is drawn whole): ordinary words never do, tall ones (stacked accents, other
    scripts) always do, in the title, the news, a row or the panel."""
    states = _states()
    tall = {id(view) for view, _last in states[-len(_tall_words()):]}
    for view, last in states:
        alone = [(drawn_alone(part, R.WIDTH, R.PAPER), part, top) for part, top in R._parts(view, last)]
        reached = [part[0].__name__ for drawn, part, _top in alone if drawn is None]
        assert bool(reached) == (id(view) in tall), (reached, view.phase, last)
        if reached:
            continue
        whole = R.render_image(view, last)
        for drawn, part, top in alone:
            assert drawn is not None and drawn.tobytes() == whole.crop((0, top, R.WIDTH, top + part[1])).tobytes()


def test_the_bands_mapped_one_by_one_are_the_whole_picture_mapped():
    """Drawn anew, then from the bands kept: every picture is the whole RGB picture mapped to its palette, the
    same palette and pixels, across both palettes (the few colours of a race in the first colours, the fixed
    256 of one that is not); and most bands come from the cache the second time."""
    states = _states()
    keys = {R.palette_key(view) for view, _last in states}
    assert () in keys and len(keys) >= 3, keys   # the fixed palette, and a few colours for more than one grid
    R._mapped_part.cache_clear()
    for _round in range(2):
        for view, last in states:
            whole = R.render_image(view, last).quantize(palette=R.palette_of(view), dither=Image.Dither.NONE)
            parts = R.render_paletted(view, last)
            assert (parts.mode, parts.size, parts.getpalette()) == (whole.mode, whole.size, whole.getpalette())
            assert parts.tobytes() == whole.tobytes(), (view.phase, last)
    info = R._mapped_part.cache_info()
    assert info.hits > 3 * len(states), info


def test_a_band_kept_for_one_palette_is_not_pasted_into_a_picture_of_another():
    """The same table row under two palettes (a hull falling under half adds a colour to the few) is mapped
    for each: the bands are kept by palette and look, never by look alone."""
    R._mapped_part.cache_clear()
    healthy = race("a", "b", "c")
    hurt = replace(healthy, racers=(replace(healthy.racers[0], hp=1),) + healthy.racers[1:])
    assert R.palette_key(healthy) != R.palette_key(hurt)
    for view in (healthy, hurt, healthy):
        whole = R.render_image(view).quantize(palette=R.palette_of(view), dither=Image.Dither.NONE)
        assert R.render_paletted(view).tobytes() == whole.tobytes()


def test_a_render_process_forked_from_the_zygote_draws_no_road_at_any_section(monkeypatch):
    """The render zygote draws every built-in track's road at every section (images.prepare_shared) before it
    forks: a race's picture at any section of any built-in track then draws no road under a move (4-9 ms)."""
    import images
    from bot.table.jobs import drawing, zygote_warm
    from images.race import course

    asked: list[tuple] = []
    monkeypatch.setattr(images, "prepare_shared", lambda games: asked.append(tuple(games)))
    monkeypatch.setattr(zygote_warm, "warm_pictures", lambda: 0)
    monkeypatch.setattr(drawing, "warm_drawing", lambda: None)
    monkeypatch.delenv(drawing.WARM_ENV, raising=False)   # a suite's bots set it: then the zygote warms nothing
    drawing._warm_zygote()
    assert asked and "race" in asked[0]
    monkeypatch.undo()

    course._road.cache_clear()
    images.prepare_shared(["race"])
    drawn = course._road.cache_info().misses
    for track_id in data.track_ids():
        for section in range(len(data.track(track_id).sections)):
            for phase in (Phase.ACTION, Phase.LOBBY, Phase.FINISHED):
                R.render_race(RULESET.view(race("a", "b", track=track_id, section=section, phase=phase), None))
    assert course._road.cache_info().misses == drawn
    assert course._road.cache_info().currsize == drawn
