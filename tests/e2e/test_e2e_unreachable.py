"""An operator's first run: a token Discord refuses, or a host that cannot reach Discord, is said in one line
of the log and `pitboss run` exits 1, with no traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT, SHIM

pytestmark = pytest.mark.slow   # a bot process each


def _run(tmp_path, fake_url: str, token: str) -> subprocess.CompletedProcess:
    shim = tmp_path / "shim"
    shim.mkdir()
    shutil.copyfile(SHIM, shim / "sitecustomize.py")
    env = {k: v for k, v in os.environ.items() if k not in ("PITBOSS_DB", "DISCORD_TOKEN", "PYTHONPATH")}
    env.update(PYTHONPATH=os.pathsep.join([str(shim), str(ROOT)]), DISCORD_TOKEN=token,
               PITBOSS_E2E_FAKE_DISCORD=fake_url, PITBOSS_RENDER_PROCESSES="0")
    return subprocess.run([sys.executable, "-m", "bot", "run", "--db", str(tmp_path / "p.db")], env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_refused_token_is_one_line_and_exit_1(fake, tmp_path):
    done = _run(tmp_path, fake.url, "not.the.token")
    assert done.returncode == 1, done.stderr
    assert "Discord refused the token" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_discord_out_of_reach_is_one_line_and_exit_1(tmp_path):
    done = _run(tmp_path, "http://127.0.0.1:9", "a.b.c")   # nothing listens on the discard port
    assert done.returncode == 1, done.stderr
    assert "Discord cannot be reached from here" in done.stderr and "Traceback" not in done.stderr, done.stderr
