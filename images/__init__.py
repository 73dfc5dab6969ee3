"""Pillow rendering: game state in, PNG bytes out. Each game's renderer is found through images.registry."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from images.closeup import captioned
from images.draw import to_png
from images.registry import renderer
from rules.registry import get_ruleset


def render(ruleset: str, view, last: tuple = (), turn: tuple = ()) -> bytes:
    """Render a game's public view to PNG bytes, with the events of the action that led to it (`last`)
    and of the turn before and this one so far (`turn`)."""
    return renderer(ruleset).render(view, last, turn)


def render_preview(ruleset: str, view, preview) -> bytes:
    """Render a player's private preview of a planned turn to PNG bytes (games that have previews)."""
    draw = renderer(ruleset).render_preview
    if draw is None:
        raise ValueError(f"{ruleset} has no previews")
    return draw(view, preview)


def render_closeup(ruleset: str, view, last: tuple = (), turn: tuple = (), focus: str | None = None) -> bytes:
    """Render the close-up for a phone of a game's public view (images.closeup), centred on `focus`'s
    vehicle when they have one, else the one the game waits on, to PNG bytes; ValueError when the game
    draws none."""
    draw = renderer(ruleset).closeup
    if draw is None:
        raise ValueError(f"{ruleset} has no close-up")
    return to_png(captioned(draw(view, last, turn, focus), whose_turn(ruleset, view)).image)


def render_preview_closeup(ruleset: str, view, preview, focus: str | None = None) -> bytes:
    """Render the close-up for a phone of a player's plan preview to PNG bytes (games that have both)."""
    draw = renderer(ruleset).preview_closeup
    if draw is None:
        raise ValueError(f"{ruleset} has no close-up of its previews")
    words = f"Your plan, not driven yet · {renderer(ruleset).captioner.heading(view)}"
    return to_png(captioned(draw(view, preview, focus), words).image)


def whose_turn(ruleset: str, view) -> str:
    """A close-up's caption: the game's step and whom it waits on ('Round 4 · carol to move'), or its result."""
    return renderer(ruleset).captioner.whose_turn(view, tuple(get_ruleset(ruleset).acting_players(view)))


def render_sheets(ruleset: str, view, which: str = "") -> bytes:
    """Render the full car sheets of a game's public view (all, or the car `which` names) to PNG bytes;
    ValueError when the game draws none or nobody is seated."""
    draw = renderer(ruleset).render_sheets
    if draw is None:
        raise ValueError(f"{ruleset} has no car sheets")
    return draw(view, which)


def render_final(ruleset: str, view, last: tuple = (), turn: tuple = (),
                 picture_of: Callable[[str, Any, tuple, tuple], bytes] = render) -> tuple[bytes, bytes | None]:
    """A finished game's last picture (`picture_of`: render, or a service's own) and its final car sheets
    (render_sheets of every car), drawn one after the other in one call: a render process draws both warm,
    in one exchange with the bot, where two drawn side by side took the second, colder process and a core
    the move's own work needed. The sheets are None when the game draws none or nobody was seated."""
    picture = picture_of(ruleset, view, last, turn)
    try:
        return picture, render_sheets(ruleset, view)
    except ValueError:
        return picture, None


def prepare_shared(ruleset_ids: Iterable[str]) -> None:
    """Make ahead what each game draws once for every process forked after (Renderer.prepare_shared)."""
    for ruleset_id in ruleset_ids:
        prepare = renderer(ruleset_id).prepare_shared
        if prepare is not None:
            prepare()


def warm_up(ruleset_ids: Iterable[str]) -> None:
    """Load each game's renderer and make ahead what its first pictures would draw and cache."""
    for ruleset_id in ruleset_ids:
        warm = renderer(ruleset_id).warm
        if warm is not None:
            warm()
