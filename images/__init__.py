"""Pillow rendering: game state in, PNG bytes out."""

from __future__ import annotations


def render(ruleset: str, view) -> bytes:
    """Render a ruleset's public view of a game to PNG bytes."""
    if ruleset == "speedway":
        from images.speedway import render_speedway

        return render_speedway(view)
    if ruleset == "track":
        from images.track import render_track

        return render_track(view)
    raise ValueError(f"no renderer for ruleset {ruleset!r}")


def render_preview(ruleset: str, view, preview) -> bytes:
    """Render a player's private preview of a planned turn (e.g. Speedway's TurnPreview) to PNG bytes."""
    if ruleset == "speedway":
        from images.speedway.preview import render_preview as render_speedway_preview

        return render_speedway_preview(view, preview)
    raise ValueError(f"no preview renderer for ruleset {ruleset!r}")
