"""Each ruleset's RULES.md stays true: every test it cites exists, and every code path it names is real."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FILES = {"drv": "test_speedway_driving.py", "cmb": "test_speedway_combat.py", "haz": "test_speedway_hazards.py",
         "col": "test_speedway_collisions.py", "game": "test_speedway_game.py",
         "trk": "test_track_rules.py", "tbl": "test_track_table.py", "cli": "test_cli.py",
         "e2e": "e2e/test_e2e_track.py", "rpl": "test_replay_render.py", "rev3": "test_revision3.py"}
DOCS = {"speedway": 80, "track": 50}  # each RULES.md and the fewest citations it should have


@pytest.mark.parametrize("ruleset", DOCS)
def test_every_cited_test_exists(ruleset):
    text = (ROOT / "rules" / ruleset / "RULES.md").read_text()
    cited = re.findall(r"`(\w+)::(test_\w+?)(\*?)`", text)
    assert len(cited) > DOCS[ruleset]
    for short, name, wildcard in cited:
        source = (ROOT / "tests" / FILES[short]).read_text()
        pattern = rf"^(async )?def {name}\w*\(" if wildcard else rf"^(async )?def {name}\("
        assert re.search(pattern, source, re.M), f"RULES.md cites {short}::{name}{wildcard}, which does not exist"


@pytest.mark.parametrize("ruleset", DOCS)
def test_every_cited_module_exists(ruleset):
    for module in set(re.findall(r"`(\w+\.py)`", (ROOT / "rules" / ruleset / "RULES.md").read_text())):
        assert (ROOT / "rules" / ruleset / module).exists() or list(ROOT.rglob(module)), module
