"""A toy third game, registered as a plug-in (PITBOSS_GAMES=tests.toy): its rules, its renderer."""

from tests.toy.render import RENDERER
from tests.toy.rules import RULESET

__all__ = ["RENDERER", "RULESET"]
