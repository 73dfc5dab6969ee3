"""Each game's renderer, found by its ruleset id: `images/<id>/` holds `RENDERER` (see rules.registry)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from images.captions import Captioner
from images.closeup import Closeup
from rules.registry import GAMES


@dataclass(frozen=True)
class Renderer:
    """How one game is drawn: the channel picture, a replay frame's map and caption, a plan preview.

    What the last action did (its words, dice, shots) is never stored in the state: each drawing is
    given the events the log holds for the action that led to the view (empty before the first).
    """

    # (a public view, the last action's events, the events of the turn before and this one) -> the PNG
    render: Callable[[Any, tuple, tuple], bytes]
    replay_map: Callable[[Any, tuple], Any]  # (a public view, its action's events) -> a frame's map (Pillow)
    captioner: Captioner  # words for a replay frame's caption line
    render_preview: Callable[[Any, Any], bytes] | None = None  # (view, the game's plan preview) -> PNG
    # (a public view, the last action's events, the recent turns' events, whose close-up: a player's id
    # or None) -> the close-up for a phone (images.closeup): a piece of the map round the acting vehicle
    # and what it reaches (the lead pack, the contested holes), at most 640 px wide, words >= 11 px at 400
    closeup: Callable[[Any, tuple, tuple, str | None], Closeup] | None = None
    # (the view the preview is drawn from, the plan's preview, whose) -> the preview's close-up
    preview_closeup: Callable[[Any, Any, str | None], Closeup] | None = None
    # (a public view, which car: its id or name, "" for all) -> the full sheets as a PNG; GameError when
    # no car fits, ValueError when there is nothing to draw
    render_sheets: Callable[[Any, str], bytes] | None = None
    # makes ahead what the first pictures would otherwise draw and cache (palettes, sprites), so a
    # long-running process pays it at start and not in the middle of a move
    warm: Callable[[], None] | None = None
    # makes ahead, once in the render zygote before it forks (bot.table.jobs.zygote), pieces too many to draw
    # in every process yet slow to draw under a move: the processes forked from it share them
    prepare_shared: Callable[[], None] | None = None


_PLUGINS: dict[str, Renderer] = {}
_LOADED: dict[str, Renderer] = {}


def register(ruleset_id: str, drawn_by: Renderer) -> None:
    """Add the renderer of a game that lives outside images/ (a plug-in)."""
    _PLUGINS[ruleset_id] = drawn_by


def is_built_in(ruleset_id: str) -> bool:
    """Whether a game is drawn by the project's own images/ package (not a plug-in registered at run time)."""
    return ruleset_id in GAMES and ruleset_id not in _PLUGINS


def renderer(ruleset_id: str) -> Renderer:
    """The renderer of a game; ValueError when the game has none."""
    if ruleset_id in _PLUGINS:
        return _PLUGINS[ruleset_id]
    if ruleset_id not in GAMES:
        raise ValueError(f"no renderer for ruleset {ruleset_id!r}")
    if ruleset_id not in _LOADED:
        _LOADED[ruleset_id] = importlib.import_module(f"images.{ruleset_id}").RENDERER
    return _LOADED[ruleset_id]
