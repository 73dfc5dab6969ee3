"""Pillow rendering: game state in, PNG bytes out. Each game's renderer is found through images.registry."""

from __future__ import annotations

from images.registry import renderer


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
