"""The README's examples and examples/*.txt run as written, with no refusal (issue 13, item 4)."""

from __future__ import annotations

import re

import pytest

from rules.speedway import data
from tests.conftest import ROOT, run_pitboss

pytestmark = pytest.mark.slow  # the example scripts through the command line

README = (ROOT / "README.md").read_text()


def prompt_blocks() -> list[str]:
    """The README's code blocks typed at the `pitboss play` prompt, in order."""
    blocks, current = [], None
    for line in README.splitlines():
        if line.startswith("```"):
            if current is None:
                current = []
            else:
                blocks.append("".join(f"{x}\n" for x in current))
                current = None
        elif current is not None:
            current.append(line)
    return [b for b in blocks if b.strip() and all(re.match(r"^(\w+> )?/", line) for line in b.splitlines())]


def refusals(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith(("refused:", "error:", "Sorry"))]


def test_the_readme_prompt_examples_run_in_one_session_without_a_refusal(tmp_path):
    blocks = prompt_blocks()
    assert len(blocks) == 4   # Speedway, Track, Battlecars, the Race
    result = run_pitboss("play", "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "maps"), cwd=tmp_path,
                         stdin="".join(blocks))
    assert result.returncode == 0 and not refusals(result.stdout), result.stdout[-3000:]
    assert "alice resists the skid" in result.stdout                      # the skid really came up
    assert "alice> /play card:KD move:out" in result.stdout and "came out of the pits" in result.stdout


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "examples").glob("*.txt")))
def test_each_example_script_runs_on_its_own_database_without_a_refusal(script, tmp_path):
    stdin = (ROOT / "examples" / script).read_text()
    result = run_pitboss("play", "--db", str(tmp_path / "t.db"), "--out", str(tmp_path / "maps"), cwd=tmp_path,
                         stdin=stdin)
    assert result.returncode == 0 and not refusals(result.stdout), result.stdout[-3000:]
    assert f"play --db {script.split('.')[0].split('-')[0]}.db < examples/{script}" in README


def test_the_readme_lists_every_car_with_its_weapons():
    for key, design in data.car_designs().items():
        weapons = ", ".join(f"{w.name} ({w.mount})" for w in design.weapons)
        assert f"| `{key}` ({design.name}) | {weapons} |" in README, key
