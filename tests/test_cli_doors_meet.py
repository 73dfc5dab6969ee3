"""Where the operator's command line meets the Discord door: the same checks on a channel, a member's id and an
imported file whichever door they come through, a game moved from the command line staying on its server, and
the operator's file commands (verify, backup) refusing a mistyped target in one line, changing nothing."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
from pathlib import Path

import pytest

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from tests.conftest import run_cli, run_pitboss

pytestmark = pytest.mark.slow  # the command line, some of it a process per command

ANN, BEN = "111111111111111111", "222222222222222222"
GUILD = "555555555555555555"


def execute(db: str, cwd: Path, channel: str, user: str, line: str, *extra: str):
    return run_cli("exec", "--db", db, "--channel", channel, "--user", user, *extra, line, cwd=cwd)


def channels_of(db: str) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT channel FROM games ORDER BY id")]


async def on_discord(service, user: str, line: str, channel: str):
    return await service.execute(channel, Actor(user, user), parse(line), guild=GUILD)


# 1. `exec --channel` takes any text as the channel, and the channel a Discord mention names is not that channel.

def test_exec_takes_a_channel_mention_for_the_channel_it_names_or_refuses_it(tmp_path):
    """An operator who pastes a channel as Discord copies it (<#id>) makes a game no Discord channel holds: the
    channel itself says it has no game, and /games names it as `<#<#id>>`. `/league board channel:` reads the same
    text as the channel's id (bot.table.service.league.board_channel_of); exec must too, or refuse it in one line."""
    db = str(tmp_path / "game.db")
    made = run_pitboss("exec", "--db", db, "--channel", f"<#{GUILD}>", "--user", "ann",
                       "/game new ruleset:track seed:3", cwd=tmp_path)
    assert "Traceback" not in made.stdout + made.stderr
    stored = channels_of(db) if Path(db).exists() else []
    assert stored in ([], [GUILD]), f"a game stored under the channel {stored!r}, which no channel is"
    listed = execute(db, tmp_path, "elsewhere", "ann", "/games")
    assert "<#<#" not in listed.stdout, listed.stdout
    for blank in ("", "  ", "a b"):   # no channel at all, or not one word
        result = execute(db, tmp_path, blank, "bob", "/game new ruleset:track")
        assert result.returncode != 0, (blank, result.stdout)
        assert blank not in channels_of(db) and "Traceback" not in result.stdout + result.stderr


# 2. A member id with a trailing newline passes the id check (`$` matches before a final newline).

def test_a_user_id_with_a_trailing_newline_is_refused_not_seated_as_a_second_player(tmp_path):
    """`--user "$(cat name)"`-style input, or any script that keeps a line's end: "ann\\n" is a new player whose shown
    name is "ann" (the name is cleaned, the id is not), so one person sits twice, the game names them ann and
    ann#2, and their ping line carries the newline. Ids are letters, digits and . _ - (docs/operating.md)."""
    db = str(tmp_path / "game.db")
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join")):
        assert execute(db, tmp_path, "c", user, line).returncode == 0
    twice = execute(db, tmp_path, "c", "ann\n", "/game join")
    assert twice.returncode == 1 and twice.stdout.startswith("refused: "), twice.stdout
    with sqlite3.connect(db) as conn:
        (state,) = conn.execute("SELECT state FROM games").fetchone()
    assert [p["id"] for p in json.loads(state)["state"]["players"]] == ["ann"]


async def test_an_imported_actor_id_with_a_trailing_newline_is_refused(service, store):
    """The import door reads ids with the same check (bot/table/trust/importer.py `_actor`): a file's "bob\\n" is
    taken as a player id the live doors never make."""
    for user, line in ((ANN, "/game new ruleset:track seed:3"), (ANN, "/game join"), (BEN, "/game join"),
                       (ANN, "/game start"), (ANN, "/game end")):
        assert (await on_discord(service, user, line, "100")).outcome == "applied", line
    exported = await on_discord(service, ANN, "/game export", "100")
    document = {**json.loads(exported.files[0].data), "game_id": 987_654}
    for entry in document["actions"]:
        if entry["actor"] == BEN:
            entry["actor"] = BEN + "\n"
    hostile = Command("game import", {"file": json.dumps(document).encode()})
    reply = await service.execute("200", Actor(ANN, ANN), hostile, guild=GUILD)
    assert reply.outcome == "refused", reply.text
    assert await store.latest_game("200") is None


# 3. A running game moved from the command line leaves its server.

async def test_a_game_moved_by_exec_import_stays_on_its_server(service, store, db_path, tmp_path):
    """The host (or the operator for them) moves a server's lobby with `pitboss exec … /game import file:…`: the
    command line has no server, and the move stores the game under none (relocation.py `move_game_tx(…, guild)`),
    so it drops off its server's /lfg and board (and its ratings, standings and admin checks go with it)."""
    for line in ("/game new ruleset:track seed:3 public:yes", "/game join"):
        assert (await on_discord(service, ANN, line, "100")).outcome == "applied", line
    assert [table.game_id for table in await service.open_tables(GUILD)] == [1]
    exported = await on_discord(service, ANN, "/game export", "100")
    path = tmp_path / "export.json"
    path.write_bytes(exported.files[0].data)
    moved = await asyncio.to_thread(execute, db_path, tmp_path, "200", ANN, f"/game import file:{path}")
    assert moved.returncode == 0 and "moved here" in moved.stdout, moved.stdout + moved.stderr
    game = await store.active_game("200")
    assert game is not None and game.guild == GUILD, f"the moved game's server is {game.guild!r}"
    assert [table.channel for table in await service.open_tables(GUILD)] == ["200"]


# 4. verify and backup on a mistyped --db make an empty database and report it sound.

def test_verify_and_backup_of_a_database_that_does_not_exist_refuse_in_one_line(tmp_path):
    """After a restore (docs/operating.md: put the backup in place, verify, start the bot) a mistyped --db is
    answered "0 games checked, 0 mismatches; database integrity: ok", exit 0, and an empty database is left
    where the typo pointed; `backup` copies that empty database and calls it sound."""
    typo = tmp_path / "pitbos.db"
    checked = run_pitboss("verify", "--db", str(typo), cwd=tmp_path)
    assert checked.returncode != 0, checked.stdout
    assert not typo.exists(), "verify made a database where none was"
    copied = run_cli("backup", str(tmp_path / "copy.db"), "--db", str(typo), cwd=tmp_path)
    assert copied.returncode != 0, copied.stdout
    assert not typo.exists() and not (tmp_path / "copy.db").exists()
    for result in (checked, copied):
        assert "Traceback" not in result.stdout + result.stderr


# 5. backup's "another file than the database itself" is judged by the path's spelling, not the file.

@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_backup_refuses_the_database_itself_reached_through_a_symbolic_link(tmp_path):
    """`--db /data/pitboss.db` where /data is a link to /srv/data, and `backup /srv/data/pitboss.db`: the check
    compares os.path.abspath (bot/cli/main.py `_backup`), the copy is renamed over the live database (a new file
    under a running bot, whose later writes go to the unlinked one), and it answers "backup: … ok", exit 0."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    db = real / "pitboss.db"
    assert execute(str(db), tmp_path, "c", "ann", "/game new ruleset:track seed:3").returncode == 0
    before = db.stat().st_ino
    result = run_pitboss("backup", str(db), "--db", str(tmp_path / "link" / "pitboss.db"), cwd=tmp_path)
    assert result.returncode == 2 and "another file than the database" in result.stderr, result.stdout
    assert db.stat().st_ino == before, "the database file was replaced by its own backup"


# 6. backup into a folder leaves a whole copy of the database beside it.

def test_backup_into_a_folder_refuses_and_leaves_no_copy_behind(tmp_path):
    """`pitboss backup /backups` (a folder, as `cp` would take it): the copy is made at `/backups.partial`, the
    rename fails, and the answer is "error: IsADirectoryError: …" with a traceback logged as a bug, while a whole
    copy of every member's data stays at /backups.partial, outside any rotation (docs/operating.md: backups hold
    forgotten members until rotated out)."""
    db = str(tmp_path / "game.db")
    assert execute(db, tmp_path, "c", "ann", "/game new ruleset:track seed:3").returncode == 0
    folder = tmp_path / "backups"
    folder.mkdir()
    result = run_pitboss("backup", str(folder), "--db", db, cwd=tmp_path)
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not Path(f"{folder}.partial").exists(), "a whole copy of the database was left beside the folder"
    assert "IsADirectoryError" not in result.stderr, result.stderr   # an operator's slip, said in words, not a bug


# 7. An imported file's options are stored unchecked for what /game new never stores.

def test_an_imported_game_stores_no_thread_or_public_option(tmp_path):
    """/game new takes thread: and public: and stores neither (seating.py pops them; the command line refuses
    thread:yes); an imported file's options go through the same typing but keep both (importer.py `_options`),
    so the game's stored options say thread:yes, and its rematch (same options) and every later export carry it."""
    db = str(tmp_path / "game.db")
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start"), ("ann", "/game end")):
        assert execute(db, tmp_path, "5", user, line).returncode == 0, line
    out = tmp_path / "out"
    exported = execute(db, tmp_path, "5", "ann", "/game export", "--out", str(out))
    document = json.loads((out / "pitboss-game-1.json").read_text())
    assert exported.returncode == 0
    document["options"].update({"thread": "yes", "public": "yes"})
    document["game_id"] = 99_999
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(document))
    imported = run_pitboss("exec", "--db", db, "--channel", "6", "--user", "eve", f"/game import file:{edited}",
                           cwd=tmp_path)
    assert "Traceback" not in imported.stdout + imported.stderr
    with sqlite3.connect(db) as conn:
        stored = [json.loads(row[0]) for row in conn.execute("SELECT options FROM games WHERE channel = '6'")]
    assert all("thread" not in options and "public" not in options for options in stored), stored


def test_an_export_without_out_says_it_wrote_nothing_and_how_to(tmp_path):
    """`exec "/game export"` without --out said "The log of game 1: 4 actions." and exit 0, writing no file and
    giving no hint; it names what it did not write and the option that writes it."""
    db = str(tmp_path / "game.db")
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join")):
        assert execute(db, tmp_path, "5", user, line).returncode == 0, line
    exported = execute(db, tmp_path, "5", "ann", "/game export")
    assert exported.returncode == 0 and "pitboss-game-1.json" in exported.stdout and "--out" in exported.stdout
    assert not list(tmp_path.glob("*.json"))


def test_a_command_turned_off_again_keeps_its_reason_and_the_list_offers_none_that_stays_on(tmp_path):
    """`disable-command` again without --reason wiped the operator's note; and a name it does not know listed
    `me forget` among the commands that may be turned off, which is refused when tried."""
    db = str(tmp_path / "game.db")
    assert execute(db, tmp_path, "5", "ann", "/games").returncode == 0   # the database, as a bot would make it
    run_cli("disable-command", "--db", db, "game", "replay", "--reason", "too slow on this host", cwd=tmp_path)
    run_cli("disable-command", "--db", db, "game", "replay", cwd=tmp_path)
    assert "too slow on this host" in run_cli("blocks", "--db", db, cwd=tmp_path).stdout
    unknown = run_cli("disable-command", "--db", db, "dance", cwd=tmp_path)
    assert unknown.returncode != 0 and "me forget" not in unknown.stdout + unknown.stderr
