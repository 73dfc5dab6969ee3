"""Pillow rendering: game state in, PNG bytes out."""

from __future__ import annotations


def render(ruleset: str, view) -> bytes:
    """Render a ruleset's public view of a game to PNG bytes."""
    if ruleset == "speedway":
        from images.speedway import render_speedway

        return render_speedway(view)
    raise ValueError(f"no renderer for ruleset {ruleset!r}")
