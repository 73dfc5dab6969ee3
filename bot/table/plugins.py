"""Games from outside the project's own packages: PITBOSS_GAMES names their modules.

A plug-in module holds `RULESET` (a rules.engine.Ruleset) and `RENDERER` (an images.registry.Renderer);
listing it in PITBOSS_GAMES (comma-separated module paths) registers both, once, before the command
grammar is built, so the game plays through Discord, the command line and the service alike.
"""

from __future__ import annotations

import importlib
import os

from images import registry as images_registry
from rules import registry as rules_registry

ENV = "PITBOSS_GAMES"
_loaded: set[str] = set()


def load_plugins(names: str | None = None) -> tuple[str, ...]:
    """Import and register each plug-in module named (default: $PITBOSS_GAMES); the ids registered."""
    listed = names if names is not None else os.environ.get(ENV, "")
    ids = []
    for module_name in filter(None, (n.strip() for n in listed.split(","))):
        if module_name in _loaded:
            continue
        module = importlib.import_module(module_name)
        rules_registry.register(module.RULESET)
        images_registry.register(module.RULESET.id, module.RENDERER)
        _loaded.add(module_name)
        ids.append(module.RULESET.id)
    return tuple(ids)
