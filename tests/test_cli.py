"""The command line as a newcomer or a script uses it: one process per command, one database file."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from rules.registry import ruleset_ids
from tests.conftest import run_cli, run_pitboss, track_on_the_command_line

pytestmark = pytest.mark.slow  # the command line, a process per command

BACKENDS = ("sqlite", "postgres")  # tests here that take db_path run on both (tests/conftest.py)


class Exec:
    """`pitboss exec` against one database: one process per call, or (`processes=False`) its entry point
    called here, as fresh each call but for the interpreter; `process=` chooses for one call (a game set up
    here for the step a test runs as a process of its own)."""

    def __init__(self, tmp_path: Path, processes: bool = True):
        self.db = str(tmp_path / "game.db")
        self.out = str(tmp_path / "maps")
        self.cwd = tmp_path
        self.processes = processes

    def __call__(self, user: str, *command: str, channel: str = "42", process: bool | None = None):
        runner = run_pitboss if (self.processes if process is None else process) else run_cli
        return runner("exec", "--db", self.db, "--channel", channel, "--user", user, "--out", self.out, *command,
                      cwd=self.cwd)


def image_of(result) -> bytes:
    match = re.search(r"^image: (.+)$", result.stdout, re.M)
    assert match, result.stdout
    return Path(match.group(1)).read_bytes()


def active_player(status_text: str) -> str:
    return re.search(r"Round \d+, (\w+): ", status_text).group(1)


def test_scripted_game_through_exec(tmp_path):
    """A script's game, a command a call. Each exit status (0 with a map, 1, 2), the words as a shell splits them
    and a fresh process reading what the others wrote are processes of their own; the steps between run
    through the same entry point here (fresh each call but for the interpreter: Exec)."""
    run = Exec(tmp_path, processes=False)
    assert run("alice", "/game", "new", "ruleset:speedway", "seed:7", process=True).returncode == 0
    assert run("alice", "/game join car:brawler").returncode == 0
    assert run("bob", "/game", "join", "car:torch").returncode == 0
    started = run("alice", "/game start")
    assert started.returncode == 0 and "Turn order" in started.stdout

    status = run("carol", "/game status")
    assert status.returncode == 0
    first = active_player(status.stdout)
    second = "bob" if first == "alice" else "alice"

    # A bystander and the out-of-turn player are refused with exit 1 and change nothing.
    for user in ("carol", second):
        refused = run(user, "/speed value:2", process=user == "carol")
        assert refused.returncode == 1, refused.stdout
        assert refused.stdout.startswith("refused: ")
        assert "image:" not in refused.stdout
        assert run("carol", "/game status").stdout == status.stdout

    speed = run(first, "/speed value:3", process=True)
    assert speed.returncode == 0 and "set speed 0 -> 3" in speed.stdout
    last_png = image_of(speed)
    assert last_png.startswith(b"\x89PNG\r\n\x1a\n")
    for maneuver in ("normal", "sideslip-left", "normal"):
        moved = run(first, f"/move maneuver:{maneuver}")
        assert moved.returncode == 0, moved.stdout
        png = image_of(moved)
        assert png != last_png, f"the map after {maneuver} should differ from the one before"
        last_png = png
    assert f", {second}: " in moved.stdout.split("Next:")[1]  # three Moves at speed 3: the turn passed

    unknown = run(first, "/fly", "to:moon", process=True)
    assert unknown.returncode == 2 and "Unknown command" in unknown.stdout
    malformed = run(second, "/speed value:fast")
    assert malformed.returncode == 2 and "whole number" in malformed.stdout

    again = run("dave", "/game new ruleset:speedway")
    assert again.returncode == 1 and "already has a game" in again.stdout
    elsewhere = run("dave", "/game new ruleset:speedway", channel="43")
    assert elsewhere.returncode == 0
    assert active_player(run("carol", "/game status", process=True).stdout) == second


def test_exec_draws_the_map_only_where_it_writes_it(tmp_path, monkeypatch):
    """Without --out no picture is written or shown, so `exec` draws none: the same words, for less CPU."""
    import images

    drawn: list[str] = []
    real = images.renderer
    monkeypatch.setattr(images, "renderer", lambda ruleset: drawn.append(ruleset) or real(ruleset))
    db = str(tmp_path / "game.db")
    track_on_the_command_line(db, tmp_path)
    where = ("exec", "--db", db, "--channel", "c", "--user", "ann")
    plain = run_cli(*where, "/game status", cwd=tmp_path)
    assert plain.returncode == 0 and drawn == [] and "image:" not in plain.stdout
    mapped = run_cli(*where, "--out", str(tmp_path / "maps"), "/game status", cwd=tmp_path)
    assert mapped.returncode == 0 and drawn == ["track"], drawn
    words = [line for line in mapped.stdout.splitlines() if not line.startswith(("image: ", "⏰"))]
    assert words == [line for line in plain.stdout.splitlines() if not line.startswith("⏰")], mapped.stdout


def test_python_dash_m_bot_is_the_same_command(tmp_path):
    result = run_pitboss("--help", cwd=tmp_path)
    assert result.returncode == 0
    for mode in ("run", "play", "exec", "verify"):
        assert mode in result.stdout


def test_run_without_token_explains_itself(tmp_path):
    result = run_pitboss("run", "--db", str(tmp_path / "x.db"), env={"DISCORD_TOKEN": ""}, cwd=tmp_path)
    assert result.returncode == 2 and "DISCORD_TOKEN" in result.stderr
    assert "Traceback" not in result.stderr


def test_play_reads_named_lines(tmp_path):
    script = "\n".join([
        "alice> /game new ruleset:speedway seed:3",
        "alice> /game join",
        "bob> /game join car:sniper",
        "alice> /game start",
        "bob> /speed value:1",
        "this is not a command",
        "quit",
    ])
    result = run_pitboss("play", "--db", str(tmp_path / "p.db"), "--out", str(tmp_path / "maps"),
                         stdin=script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "bob joined with a Sniper." in result.stdout
    assert "error: write NAME> /command" in result.stdout
    assert len(list((tmp_path / "maps").glob("*.png"))) >= 4


def test_verify_replays_every_game(tmp_path):
    run = Exec(tmp_path, processes=False)   # the game set up here; verify is a process of its own
    run("alice", "/game new ruleset:speedway seed:9")
    run("alice", "/game join")
    result = run_pitboss("verify", "--db", run.db, cwd=tmp_path)
    assert result.returncode == 0 and "1 games checked, 0 mismatches" in result.stdout


def test_a_bug_shows_an_apology_not_a_traceback(tmp_path):
    import sqlite3

    run = Exec(tmp_path, processes=False)
    run("alice", "/game new ruleset:speedway seed:9")
    with sqlite3.connect(run.db) as db:  # a snapshot damaged outside Pitboss
        db.execute("""UPDATE games SET state = '{"schema":1,"state":{"arena":7}}'""")
    result = run("alice", "/game join", process=True)
    assert result.returncode == 1
    assert "something went wrong" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
    assert "Traceback" in (tmp_path / "pitboss-errors.log").read_text()


def test_tick_sends_what_is_due_once(tmp_path):
    run = Exec(tmp_path, processes=False)
    run("alice", "/game new ruleset:speedway seed:9")
    result = run_pitboss("tick", "--db", run.db, cwd=tmp_path)
    assert result.returncode == 0 and "0 notices sent" in result.stdout


def test_export_then_import_through_the_command_line(tmp_path):
    run = Exec(tmp_path, processes=False)
    run("alice", "/game new ruleset:speedway seed:12")
    run("alice", "/game join")
    exported = run("alice", "/game export", process=True)
    path = re.search(r"^file: (.+)$", exported.stdout, re.M).group(1)
    moved = run("alice", f"/game import file:{path}", channel="77", process=True)
    assert moved.returncode == 0 and "moved here" in moved.stdout
    missing = run("alice", "/game import file:/nonexistent.json", channel="78")
    assert missing.returncode == 2 and "Could not read" in missing.stdout
    assert "alice" in run("carol", "/game status", channel="77").stdout


def test_a_closed_pipe_ends_quietly(tmp_path):
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "bot", "exec", "--db", str(tmp_path / "p.db"), "--channel",
                                "1", "--user", "alice", "/game", "new", "ruleset:speedway"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path)
    process.stdout.close()  # like `| head -0`: nobody reads the reply
    _out, err = process.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipe" not in err


TRACK_CARD = re.compile(r"(?<![\w:])(?:10|[2-9AJQK])[SHDC](?!\w)")


def test_a_track_game_through_exec_keeps_hands_private(tmp_path):
    """Each player asks for their hand privately, picks the first play it lists and plays it publicly;
    no public output ever names a card that a player still holds and nobody has played."""
    run = Exec(tmp_path, processes=False)
    assert run("alice", "/game new ruleset:track seed:11").returncode == 0
    assert run("alice", "/game join").returncode == 0 and run("bob", "/game join").returncode == 0
    started = run("alice", "/game start")
    assert started.returncode == 0
    # the one private line is the player's own: their choices (issue 25, item 6), for their eyes only
    private = [line for line in started.stdout.splitlines() if line.startswith("private:")]
    assert all(line.startswith("private: choices for alice: /") for line in private), private
    public = [started.stdout]
    played = set()
    for _turn in range(8):
        player = re.search(r"Round \d+, (\w+): play a card", run("carol", "/game status").stdout).group(1)
        hand = run(player, "/hand")
        assert hand.returncode == 0 and hand.stdout.startswith("private: Your hand: ")
        held = re.search(r"Your hand: ([^.]*)\.", hand.stdout).group(1).split()
        assert len(held) == 3
        choice = re.search(r"You can: (/(?:play|discard) [^;.]*)", hand.stdout).group(1)
        assert choice.split()[1].removeprefix("card:") in held
        peek = run("bob" if player == "alice" else "alice", "/hand")
        assert not set(held) & set(TRACK_CARD.findall(peek.stdout)) - {"JK"}, "another player's hand shows"
        done = run(player, *choice.split())
        assert done.returncode == 0 and not done.stdout.startswith("private:"), done.stdout
        played.add(choice.split()[1].removeprefix("card:"))
        assert re.search(rf"{player} (?:played|had no move and discarded) {re.escape(choice.split()[1][5:])}\b",
                         done.stdout)
        public.append(done.stdout)
    log = run("carol", "/game log count:20")
    assert log.returncode == 0 and "drew a card" in log.stdout
    public.append(log.stdout)
    export = run("carol", "/game export")
    exported = Path(re.search(r"^file: (.+)$", export.stdout, re.M).group(1)).read_text()
    assert '"seed":' not in exported  # the deck order stays secret until the end
    public.append(exported)
    held_now = set()
    for name in ("alice", "bob"):
        text = run(name, "/hand").stdout
        held_now |= set(re.search(r"Your hand: ([^.]*)\.", text).group(1).split())
    secret = held_now - played
    assert secret
    for text in public:
        assert not set(TRACK_CARD.findall(text)) & secret, text


def test_selfplay_plays_track_games_to_the_end_and_replays_them(tmp_path):
    result = run_pitboss("selfplay", "--ruleset", "track", "--games", "3", "--seed", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:3]] == ["game 0", "game 1", "game 2"]
    assert all("winner Robo" in line and "replay ok" in line for line in lines[:3])
    assert lines[3].startswith("summary: 3 games, 3 won, 0 drawn") and "replay mismatches 0" in lines[3]


def test_selfplay_refuses_an_unknown_ruleset(tmp_path):
    result = run_pitboss("selfplay", "--ruleset", "chess", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice: 'chess'" in result.stderr


def test_backup_and_verify_while_games_are_being_played(tmp_path, db_path):
    """Computer games write to the database the whole time; every backup is a sound copy, and verify
    finds every game replaying to its snapshot, on SQLite and on PostgreSQL."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    postgres = db_path.startswith("postgresql://")
    run_pitboss("selfplay", "--db", db_path, "--games", "1", "--seed", "3", cwd=tmp_path)  # the schema exists
    writer = subprocess.Popen([sys.executable, "-m", "bot", "selfplay", "--ruleset", "track", "--db", db_path,
                               "--games", "6", "--seed", "4"], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        copies: list[int] = []
        # three rounds at most: each is two or three processes, taking the cores from the writer they wait for
        while len(copies) < 2 or (writer.poll() is None and len(copies) < 3):
            copy = tmp_path / f"copy-{len(copies)}.db"
            backed = run_pitboss("backup", "--db", db_path, str(copy), cwd=tmp_path)
            assert backed.returncode == 0, backed.stdout + backed.stderr
            live = run_pitboss("verify", "--db", db_path, cwd=tmp_path)
            assert live.returncode == 0 and "0 mismatches; database integrity: ok" in live.stdout, live.stdout
            if postgres:
                assert "pg_dump custom format" in backed.stdout and copy.read_bytes().startswith(b"PGDMP")
                copies.append(copy.stat().st_size)
                continue
            assert "database integrity: ok" in backed.stdout, backed.stdout
            checked = run_pitboss("verify", "--db", str(copy), cwd=tmp_path)
            assert checked.returncode == 0 and "0 mismatches; database integrity: ok" in checked.stdout, checked.stdout
            copies.append(int(re.search(r"(\d+) games", backed.stdout).group(1)))
    finally:
        out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0 and "replay mismatches 0" in out, out + err
    assert copies == sorted(copies) and copies[0] >= 1
    assert not list(tmp_path.glob("*.partial"))


def test_backup_refuses_to_overwrite_its_own_database(tmp_path):
    db = tmp_path / "game.db"
    run_pitboss("exec", "--db", str(db), "--channel", "1", "--user", "a", "/game new ruleset:track", cwd=tmp_path)
    refused = run_pitboss("backup", "--db", str(db), str(db), cwd=tmp_path)
    assert refused.returncode == 2 and "another file" in refused.stderr


def test_bench_prints_every_figure(tmp_path):
    """A small run of the benchmark: it must print each figure the README quotes (values not asserted)."""
    from bot.cli.bench_clean import OLD_MEDIANS
    from bot.table.jobs.zygote import available as zygote_available

    result = run_pitboss("bench", "--channels", "3", "--moves", "2", "--single", "4", "--game-moves", "8",
                         "--idle-wait", "0.5", "--stall-size", "0", cwd=tmp_path)   # the loop-hold pass: below
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for pattern in (r"one channel, 4 moves.*cold.*p50 [\d.]+ ms, p95 [\d.]+ ms, p99 [\d.]+ ms",
                    r"one channel, 4 moves, warm: p50 [\d.]+ ms, p95 [\d.]+ ms, p99 [\d.]+ ms",
                    r"plain Pillow as PNG at level 1 \(in a clean process\): [\d.]+ ms; our encoder [\d.]+x that; "
                    r"a warm move's p50 [\d.]+x",
                    r"3 channels at once, 6 moves in [\d.]+ s: [\d.]+ moves/s",
                    r"\(in a clean process\): drawing [\d.]+ ms, PNG encoding [\d.]+ ms "
                    r"\(the floor: zlib-ng level \d \(zlib-ng\), as the moves\)",
                    r"PNG size over \d+ pictures: median \d+ KB, max \d+ KB",
                    r"after 10 actions [\d.]+ ms, after \d{4,} actions [\d.]+ ms, ratio [\d.]+",
                    r"PNG by zlib-ng level \d \(zlib-ng\) for the channel picture.*ISA-L level 1 \(isal\) for the rest",
                    *(rf"first pictures {when}: /game new [\d.]+ ms \(CPU [\d.]+ ms\), .* CPU [\d.]+x and [\d.]+x"
                      for when in ("after a start", "after that wait")),
                    r"after the load \d+ MB in \d+ processes",
                    r"memory [\d.]+ s after the last move: \d+ MB in \d+ processes \(the bot's own process \d+ MB, "
                    r"the others .*; idle workers stop after \d+ s",
                    r"\d+ render processes \(PITBOSS_RENDER_PROCESSES\), started and warmed in [\d.]+ s",
                    r"resident memory: the bot's process \d+ MB now, \d+ MB peak; its \d+ render processes [\d, ]+ MB",
                    *((r"each warm: [\d, ]+ MB \(proportional set size\), forked from a zygote of \d+ MB",)
                      if zygote_available() else ()),
                    *(rf"game {game}: warm p50 [\d.]+ ms, p99 [\d.]+ ms, yardstick [\d.]+ ms, ratio [\d.]+ "
                      rf"\(yardstick in a clean process, timed between blocks of these moves\); "
                      rf"CPU [\d.]+ ms a move over all processes, yardstick CPU [\d.]+ ms, CPU ratio [\d.]+"
                      for game in ruleset_ids()),
                    *(rf"game {game}: bytes median [\d.]+ KB, max [\d.]+ KB over \d+ pictures"
                      for game in ruleset_ids()),
                    *(rf"game {game}: bytes .*; [\d.]+x the median of 8dd771d" for game in OLD_MEDIANS),
                    r"3 channels of all \d+ games at once, \d+ moves in [\d.]+ s: [\d.]+ moves/s; .* "
                    r"CPU [\d.]+ ms a move"):
        assert re.search(pattern, out), (pattern, out)


async def test_the_bench_ends_with_every_commands_worst_loop_hold(tmp_path):
    """What `pitboss bench` prints last (bot.cli.bench._stall_pass), small: a row for every command the bot has
    with its worst hold's wall time, the loop's CPU in it, its wait for a core and the other threads' CPU, and
    the figure judged against the limit."""
    from bot.cli.bench import _stall_pass
    from bot.cli.bench_stall import Size
    from bot.table.protocol.commands import command_table

    lines: list[str] = []
    await _stall_pass(str(tmp_path / "bench.db"), Size.of(50, rounds=1), lines.append)
    out = "\n".join(lines)
    for pattern in (r"every command's worst loop hold: 50 running games on a server, a 50-action game, 1 run of each "
                    r"command \(`pitboss bench --stall`: 10000 and 10000, 3 runs\)",
                    r"every command's worst loop hold \(the loop hold is a command's longest step of the event loop: "
                    r"wall time, the loop's CPU in it, its wait for a core",
                    r"the loop-hold pass took \d+ s, CPU \d+ s in all its processes"):
        assert re.search(pattern, out), (pattern, out)
    for spec in command_table().commands:
        row = rf"^  /{re.escape(spec.name)} +\d+( +[\d.]+ ms){{5}}  .* (ok|OVER)"
        assert len(re.findall(row, out, re.MULTILINE)) == 1, (spec.name, out)
    assert "NOT COVERED" not in out


async def test_the_bench_idles_as_the_bot_does_with_its_scheduler_running(tmp_path, monkeypatch):
    """The bench's lull before its last memory figure and first pictures is a running bot's: the scheduler's round
    (due reminders and turns, digests, rank roles) every PITBOSS_TICK_SECONDS, none after the wait ends."""
    import asyncio

    from bot.cli.bench import _idle_as_the_bot
    from bot.storage.store import Store
    from bot.table.service.entry import GameService

    monkeypatch.setenv("PITBOSS_TICK_SECONDS", "0.05")
    store = await Store.open(str(tmp_path / "bench.db"))
    try:
        service = GameService(store, render=None)
        rounds: list[str] = []
        for name in ("run_due", "due_digests"):
            real = getattr(service, name)

            async def counted(real=real, name=name):
                rounds.append(name)
                return await real()
            monkeypatch.setattr(service, name, counted)
        await _idle_as_the_bot(service, 0.3)
        after = len(rounds)
        await asyncio.sleep(0.2)
        assert after >= 2 and rounds[:2] == ["run_due", "due_digests"] and len(rounds) == after
    finally:
        await store.close()


def test_a_database_that_cannot_be_opened_is_one_line_not_a_traceback(tmp_path):
    (tmp_path / "garbage.db").write_bytes(b"not a database, " * 512)
    for target in (str(tmp_path / "garbage.db"), "postgresql://nobody@127.0.0.1:1/none"):
        result = run_pitboss("verify", "--db", target, cwd=tmp_path)
        assert result.returncode == 1
        assert result.stderr.startswith("error: ") and "Traceback" not in result.stdout + result.stderr
        assert "Traceback" in (tmp_path / "pitboss-errors.log").read_text()  # the details, for whoever runs it


def test_run_checks_its_shard_range_before_anything_else(tmp_path):
    for bad in ("3/2", "2-1/4", "0-4/4", "x/2", "1"):
        result = run_pitboss("run", "--shards", bad, cwd=tmp_path)
        assert result.returncode == 2 and "--shards is FIRST[-LAST]/COUNT" in result.stderr, (bad, result.stderr)
    missing_token = run_pitboss("run", "--shards", "0-1/4", cwd=tmp_path, env={"DISCORD_TOKEN": ""})
    assert missing_token.returncode == 2 and "DISCORD_TOKEN" in missing_token.stderr


def test_every_mode_is_dispatched_by_its_own_handler():
    from bot.cli.main import build_parser

    parser = build_parser()
    modes = re.search(r"\{([a-z,-]+)\}", parser.format_usage()).group(1).split(",")
    required = {"exec": ["--channel", "1", "--user", "alice"], "backup": ["copy.db"], "invite": ["--client-id", "1"],
                "forget": ["--user", "1"], "block": ["--user", "1"], "unblock": ["--user", "1"],
                "disable-command": ["rules"], "enable-command": ["rules"]}
    assert set(required) <= set(modes) and len(modes) == 17
    handlers = {mode: parser.parse_args([mode, *required.get(mode, [])]).func for mode in modes}
    assert all(callable(handler) for handler in handlers.values())
    assert len(set(handlers.values())) == len(modes)


def test_exec_without_a_command_is_malformed(tmp_path):
    result = run_pitboss("exec", "--db", str(tmp_path / "x.db"), "--channel", "1", "--user", "alice", cwd=tmp_path)
    assert result.returncode == 2 and "give a command" in result.stderr
    assert not (tmp_path / "x.db").exists()


def test_a_game_with_private_choices_shows_the_players_own_on_the_command_line(tmp_path):
    """Issue 25, item 6: Battlecars offers its choices privately (secret speed counters); the command line
    prints the acting player's own as a private line, and never another player's."""
    run = Exec(tmp_path, processes=False)
    for user, line in (("alice", "/game new ruleset:battlecars seed:9"), ("alice", "/game join vehicle:interceptor"),
                       ("bob", "/game join vehicle:rammer")):
        assert run(user, line).returncode == 0
    started = run("alice", "/game start").stdout
    assert "private: choices for alice: /speed value:4 | /speed value:3 | /speed value:2" in started, started
    assert "choices for bob" not in started
    counter = run("bob", "/speed value:2").stdout
    assert "private: choices for bob" not in counter      # bob has set his counter: nothing waits on him


def test_two_databases_keep_their_maps_apart():
    """Issue 25, item 16: `pitboss play` on another database puts its maps in a folder of its own, so the
    same channel and game number in two databases never overwrite each other's pictures."""
    from bot.cli.main import maps_folder

    assert maps_folder("pitboss.db") == Path("pitboss-maps")
    first, second = maps_folder("a/game.db"), maps_folder("b/game.db")
    assert first != second and first.parent == second.parent == Path("pitboss-maps")
    assert first.name.startswith("game-") and maps_folder("a/game.db") == first
    assert maps_folder("postgresql://u:secret@host/db").name.startswith("postgres-")
    assert "secret" not in str(maps_folder("postgresql://u:secret@host/db"))
