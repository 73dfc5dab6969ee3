"""RULES.md stays true: every test it cites exists, and every code path it names is real."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules" / "speedway" / "RULES.md"
FILES = {"drv": "test_speedway_driving.py", "cmb": "test_speedway_combat.py", "haz": "test_speedway_hazards.py",
         "col": "test_speedway_collisions.py", "game": "test_speedway_game.py"}


def test_every_cited_test_exists():
    text = RULES.read_text()
    cited = re.findall(r"`(\w+)::(test_\w+?)(\*?)`", text)
    assert len(cited) > 80
    for short, name, wildcard in cited:
        source = (ROOT / "tests" / FILES[short]).read_text()
        pattern = rf"^(async )?def {name}\w*\(" if wildcard else rf"^(async )?def {name}\("
        assert re.search(pattern, source, re.M), f"RULES.md cites {short}::{name}{wildcard}, which does not exist"


def test_every_cited_module_exists():
    for module in set(re.findall(r"`(\w+\.py)`", RULES.read_text())):
        assert (ROOT / "rules" / "speedway" / module).exists() or list(ROOT.rglob(module)), module
