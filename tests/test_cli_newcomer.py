"""A newcomer at the `pitboss play` prompt: what they type and what they are told."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli


@pytest.fixture
def play(tmp_path):
    """`pitboss play` in-process with a script on stdin."""

    def run(*lines: str) -> str:
        result = run_cli("play", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path / "maps"),
                         cwd=tmp_path, stdin="\n".join(lines) + "\n")
        assert result.returncode == 0, result.stderr
        assert "Traceback" not in result.stdout + result.stderr
        return result.stdout
    return run


def test_run_cli_feeds_its_stdin_to_play(tmp_path):
    # `_play(args, stdin=sys.stdin)` binds the stdin of the moment bot.cli.main was imported, so the
    # in-process runner's stdin never reaches the prompt (under pytest: "reading from stdin while output
    # is captured").
    result = run_cli("play", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path / "maps"), cwd=tmp_path,
                     stdin="alice> /new speedway seed:7\nquit\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "New Speedway game created by alice." in result.stdout


def test_a_bare_line_goes_to_the_player_the_game_waits_on_after_someone_elses_refusal(play):
    # README: "A line that starts with / is played by whoever the game now waits on". After alice's
    # out-of-turn line is refused, the game still waits on bob alone, yet the bare line is alice's.
    out = play("alice> /new speedway seed:7", "alice> /game join", "bob> /game join car:sniper",
               "alice> /game start",               # seed 7: bob moves first
               "alice> /speed value:2",            # refused: bob's turn
               "/speed value:2")
    assert "refused: It is bob's turn, not yours." in out
    last = out.split("alice> /speed value:2", 1)[1]
    assert "bob> /speed value:2" in last and "bob set speed 0 -> 2." in last, last


def test_a_bare_line_after_a_peek_at_ones_own_hand_goes_to_the_player_the_game_waits_on(play):
    # Track: ben looks at his hand (a private answer) on ann's turn; ann's bare /play then acts as ben.
    out = play("ann> /new track seed:5", "ann> /game join", "ben> /game join", "ann> /game start",
               "ben> /hand",
               "/play card:KC move:out")
    assert "ann> /play card:KC move:out" in out and "ann played KC (come out)." in out, out[-600:]


def test_a_race_started_with_fine_tuning_says_so_instead_of_a_blank_message(play):
    # rules/race/lobby.py start(): with tuning attempts it returns no event, so the host's /game start
    # prints an empty message and /game log keeps an empty "#3 " line.
    out = play("eve> /new race track:dune_sea", "eve> /game join", "fay> /game join", "eve> /game start",
               "eve> /game log")
    started = out.split("eve> /game start\n", 1)[1].split("\nNext:", 1)[0]
    assert started.strip() not in ("", "ping: fay"), repr(started)
    log = out.split("eve> /game log\n", 1)[1]
    assert "#3 \n" not in log + "\n" and not log.rstrip().endswith("#3"), log
