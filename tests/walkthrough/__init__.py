"""The game docs/writing-a-game.md builds, registered as a plug-in (PITBOSS_GAMES): its rules, its picture."""

from tests.walkthrough.render import RENDERER
from tests.walkthrough.rules import RULESET

__all__ = ["RENDERER", "RULESET"]
