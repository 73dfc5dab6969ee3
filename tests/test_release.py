"""What a release carries: a licence, the notices of bundled files, a changelog entry and a version."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib

import pytest

from bot.version import VERSION
from tests.conftest import ROOT


def test_version_output_names_the_release(capsys):
    from bot.cli.main import build_parser

    with pytest.raises(SystemExit) as done:
        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"pitboss {VERSION}"


def test_the_package_is_mit_licensed_and_reads_its_version_from_one_place():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "bot.version.VERSION"}
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    for name in project["project"]["license-files"]:
        assert (ROOT / name).is_file(), name


def test_every_bundled_font_is_named_in_the_notice_with_its_licence():
    notice = (ROOT / "NOTICE").read_text()
    for font in sorted((ROOT / "images" / "fonts").glob("*.ttf")):
        assert f"images/fonts/{font.name}" in notice
    assert "images/fonts/LICENSE-DejaVu.txt" in notice


def test_the_changelog_has_this_release():
    assert f"## {VERSION} " in (ROOT / "CHANGELOG.md").read_text()


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def test_every_earlier_release_in_the_changelog_has_a_git_tag_of_its_version():
    """Releases are tagged vX.Y.Z on the commit whose bot/version.py says X.Y.Z (issue 39, item 12); the
    newest entry may be the release being made, tagged once it is committed."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout (an unpacked source tree or an image)")
    versions = re.findall(r"^## (\d+\.\d+\.\d+) ", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert versions[0] == VERSION
    tags = set(_git("tag", "--list", "v*").split())
    if not tags:
        pytest.skip("a clone without tags (git clone --no-tags, or a shallow CI checkout)")
    for version in versions[1:]:
        assert f"v{version}" in tags, f"release {version} has no tag v{version}"
        assert f'VERSION = "{version}"' in _git("show", f"v{version}:bot/version.py")
