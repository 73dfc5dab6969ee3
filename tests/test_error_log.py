"""Where the command line logs a bug's details (issue 39, item 10): a default path that cannot be written
(the image's /app) costs the details' place, never the one-line error."""

from __future__ import annotations

import logging
import re

import pytest

from bot.cli.errorlog import NAME, ErrorLog, error_log_path
from tests.conftest import run_pitboss


@pytest.fixture
def unwritable_here(tmp_path):
    """A read-only working folder where even root cannot create the default log (a folder holds its name)."""
    here = tmp_path / "app"
    (here / NAME).mkdir(parents=True)
    here.chmod(0o555)
    yield here
    here.chmod(0o755)


@pytest.mark.parametrize("command", [("verify",), ("exec", "--channel", "c", "--user", "alice", "/game status")])
def test_a_failure_is_one_line_when_the_default_error_log_cannot_be_written(tmp_path, unwritable_here, command):
    data = tmp_path / "data"
    data.mkdir()
    bad = data / "pitboss.db"
    bad.write_bytes(b"not a database at all" * 100)
    result = run_pitboss(command[0], "--db", str(bad), *command[1:], cwd=unwritable_here, env={"PITBOSS_LOG": ""})
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    (line,) = result.stderr.splitlines()
    assert re.fullmatch(rf"error: DatabaseError: file is not a database \(details in {data / NAME}\)", line), line
    assert "Traceback" in (data / NAME).read_text()   # the details, beside the database


def test_the_log_falls_back_to_the_temporary_folder_and_says_a_failure_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PITBOSS_LOG", str(tmp_path))   # a folder: no file can be opened there
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)   # read TMPDIR again
    assert error_log_path("postgresql://u@h/db") == tmp_path / "tmp" / NAME
    broken = ErrorLog(str(tmp_path / "missing" / NAME), delay=True)
    logger = logging.getLogger("pitboss.test_error_log")
    logger.addHandler(broken)
    try:
        logger.error("first")
        logger.error("second")
    finally:
        logger.removeHandler(broken)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be written" in err and "Traceback" not in err, err
