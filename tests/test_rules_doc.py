"""Each game's RULES.md stays true: every test it cites exists, every file and code path it names is real,
and it has the sections every game's rules must have."""

import re
import sys
from pathlib import Path

import pytest

from rules.registry import GAMES, get_ruleset
from tests.examples import games

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
# Sections every game's RULES.md has: how its seats change hands, how a rollback treats it, and the grace and
# time bank rulings (issue 38 findings 12 and 13).
REQUIRED_SECTIONS = ("Seats that change hands", "Rollbacks", "Grace and the time bank")
# A short name for a test file, as each RULES.md defines its own near the top: "`bc::` is
# `tests/test_battlecars_rules.py`", "`drv` = `test_speedway_driving.py`", "`rr::` (`tests/...`)".
_PREFIX = re.compile(r"`(\w+)(?:::)?`\s*(?:is\b|=|\(|the\s[^`]*?\bin\b)?\s*`(?:tests/)?([\w/]+\.py)`")
_SHORT_CITATION = re.compile(r"`(\w+)::(test_\w+?)(\*?)`")
_FILE_CITATION = re.compile(r"`tests/([\w/]+\.py)(?:::(test_\w+))?`")
_BARE_TEST = re.compile(r"`(test_\w+)`")


def _folder(ruleset: str) -> Path:
    """Where a game's rules live (rules/<id>/, or a plug-in's package): its RULES.md beside them."""
    return Path(sys.modules[type(get_ruleset(ruleset)).__module__].__file__).parent


def _doc(ruleset: str) -> str:
    return (_folder(ruleset) / "RULES.md").read_text()


def _defines(source: str, name: str, wildcard: bool = False) -> bool:
    tail = r"\w*" if wildcard else ""
    pattern = rf"^\s*(async )?def {name}{tail}\("
    return re.search(pattern, source, re.M) is not None


def prefixes(text: str) -> dict[str, str]:
    """The short names a RULES.md gives its test files."""
    return {short: path for short, path in _PREFIX.findall(text)}


def test_the_prefix_reader_reads_every_spelling_the_docs_use():
    text = ("`bc::` is `tests/test_a.py`. `drv` = `test_b.py`, `rr::` (`tests/test_c.py`), "
            "`tbl::` the table (service) tests in `tests/test_d.py`, `cli::` `tests/test_e.py`")
    assert prefixes(text) == {"bc": "test_a.py", "drv": "test_b.py", "rr": "test_c.py", "tbl": "test_d.py",
                              "cli": "test_e.py"}


@pytest.mark.parametrize("ruleset", games())
def test_every_cited_test_exists(ruleset):
    text = _doc(ruleset)
    files = prefixes(text)
    cited = _SHORT_CITATION.findall(text)
    assert len(cited) > (40 if ruleset in GAMES else 3), f"{ruleset}'s RULES.md cites {len(cited)} tests"
    for short, name, wildcard in cited:
        assert short in files, f"{ruleset}'s RULES.md cites {short}::{name} but never says which file {short} is"
        source = (TESTS / files[short]).read_text()
        assert _defines(source, name, bool(wildcard)), f"RULES.md cites {short}::{name}{wildcard}, which does not exist"
    for path, name in _FILE_CITATION.findall(text):
        assert (TESTS / path).exists(), f"{ruleset}'s RULES.md names tests/{path}, which does not exist"
        assert not name or _defines((TESTS / path).read_text(), name), f"tests/{path}::{name} does not exist"


@pytest.mark.parametrize("ruleset", games())
def test_every_test_named_alone_exists_somewhere(ruleset):
    sources = "\n".join(path.read_text() for path in TESTS.rglob("test_*.py"))
    for name in set(_BARE_TEST.findall(_doc(ruleset))):
        assert _defines(sources, name, wildcard=True), f"{ruleset}'s RULES.md names {name}, which does not exist"


@pytest.mark.parametrize("ruleset", games())
def test_every_cited_module_exists(ruleset):
    text = _doc(ruleset)
    for module in set(re.findall(r"`(\w+\.py)`", text)):
        assert (_folder(ruleset) / module).exists() or list(ROOT.rglob(module)), module
    for path in set(re.findall(r"`((?:bot|rules|images)/[\w/]+\.py)`", text)):
        assert (ROOT / path).exists(), f"{ruleset}'s RULES.md names {path}, which does not exist"


@pytest.mark.parametrize("ruleset", games())
def test_every_game_documents_its_seats_rollbacks_and_revisions(ruleset):
    headings = re.findall(r"^#+ (.*)$", _doc(ruleset), re.M)
    for section in REQUIRED_SECTIONS:
        assert any(h.startswith(section) for h in headings), f"{ruleset}'s RULES.md has no section {section!r}"
    if get_ruleset(ruleset).revision > 1:
        assert any(h.startswith("Rules revisions") for h in headings), f"{ruleset} has revisions and no section"
