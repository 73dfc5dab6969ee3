"""Storage faults and secrets: a full disk, damaged games, a read-only database, a PostgreSQL password."""

from __future__ import annotations

import asyncio
import ctypes
import io
import os
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest

from bot.cli.main import _run_one
from bot.storage.store import Store
from bot.storage.target import masked, split_password
from bot.table.protocol.commands import parse
from bot.table.service.entry import Actor, GameService
from tests.conftest import ROOT, run_pitboss

BACKENDS = ("sqlite", "postgres")

ALICE, BOB = Actor("alice", "alice"), Actor("bob", "bob")


async def _new_games(db_path: str, channels: tuple[str, ...]) -> None:
    """A running Speedway game with two cars in each channel, then the store closed."""
    store = await Store.open(db_path)
    try:
        service = GameService(store)
        for channel in channels:
            for actor, line in ((ALICE, "/game new ruleset:speedway seed:7"), (ALICE, "/game join car:brawler"),
                                (BOB, "/game join car:torch")):
                assert (await service.execute(channel, actor, parse(line))).outcome != "refused", line
    finally:
        await store.close()


# A full disk


async def _fill_up(store: Store) -> None:
    """No page may be added to the file any more (SQLite's own limit: as a full disk to the writer)."""
    (pages,) = await store.driver.fetchone("PRAGMA page_count")
    await store.driver.execute(f"PRAGMA max_page_count = {pages}")


@pytest.mark.sqlite_only
async def test_a_full_disk_says_full_and_the_connection_stays_usable(store):
    await _fill_up(store)
    # SQLite rolls the whole transaction back itself on SQLITE_FULL; the driver's own ROLLBACK
    # used to fail on top of it with "cannot rollback - no transaction is active".
    with pytest.raises(sqlite3.OperationalError, match="full"):
        await store.set_meta("filler", "x" * 100_000)
    await store.driver.execute("PRAGMA max_page_count = 1000000")
    await store.set_meta("after", "written")
    assert await store.get_meta("after") == "written" and await store.get_meta("filler") is None


@pytest.mark.sqlite_only
async def test_a_task_cancelled_in_its_commit_ends_cancelled_and_the_commit_stands(store):
    """A stop cancels the scheduler in its COMMIT: the COMMIT, queued in the connection's thread, still
    runs. The driver's ROLLBACK used to be queued behind it on the loop's stale look at the connection,
    and failed with "cannot rollback - no transaction is active" in place of the cancellation."""
    reached, released = asyncio.Event(), threading.Event()

    async def claim() -> None:
        async with store.transaction():
            await store.driver.fetchone("SELECT value FROM meta WHERE key = 'x'")   # the transaction is begun
            await reached.wait()
            await store.driver.execute_later("INSERT INTO meta (key, value) VALUES ('claimed', 'yes')")

    task = asyncio.ensure_future(claim())
    while not store.driver._db.in_transaction:
        await asyncio.sleep(0.01)
    blocker = asyncio.ensure_future(store.driver._db._execute(released.wait))   # the thread is busy
    try:
        reached.set()
        for _ in range(50):   # the transaction's COMMIT is queued behind the blocker
            await asyncio.sleep(0)
        assert not task.done()
        task.cancel()
        await asyncio.sleep(0.05)
    finally:
        released.set()   # a failed assertion above must not leave the connection's thread blocked
    await blocker
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await store.get_meta("claimed") == "yes"   # the COMMIT ran: what the task claimed is kept
    await store.set_meta("after", "written")   # and the connection goes on
    assert await store.get_meta("after") == "written"


@pytest.mark.sqlite_only
async def test_a_full_disk_shows_the_apology_and_logs_the_real_error(store, caplog):
    """The service does not catch a full disk: the command line's generic apology answers, and the log says why."""
    service = GameService(store)
    await _fill_up(store)
    out = io.StringIO()
    for number in range(20):  # games fit in the free room of existing pages until one needs a new page
        channel = f"c{number}"
        status, _reply = await _run_one(service, channel, ALICE, "/game new ruleset:speedway", None, out)
        if status != 0:
            break
    assert out.getvalue().endswith("Sorry, something went wrong on my side. Nothing was changed.\n")
    assert await store.active_game(channel) is None  # nothing half-written
    (failure,) = [r for r in caplog.records if r.exc_info]
    assert "database or disk is full" in str(failure.exc_info[1])


@pytest.mark.sqlite_only
async def test_a_full_disk_leaves_the_service_as_itself(store):
    """Whichever write meets the full disk, the error the service lets through (to the adapter's log)
    is the real one, and nothing is half-applied."""
    service = GameService(store)
    await service.execute("c1", ALICE, parse("/game new ruleset:speedway seed:7"))
    await _fill_up(store)
    # A command's first write is its delivery record: one this big needs a page the file cannot have
    # (a one-row write, after which SQLite rolls the whole transaction back itself).
    with pytest.raises(sqlite3.OperationalError, match="full"):
        await service.execute("c1", ALICE, parse("/game join car:brawler"), delivery="9" * 10_000)
    assert (await store.active_game("c1")).version == 0
    await store.driver.execute("PRAGMA max_page_count = 1000000")  # room again: the claim was undone too
    joined = await service.execute("c1", ALICE, parse("/game join car:brawler"), delivery="9" * 10_000)
    assert joined.outcome == "applied"


# verify: every game reported, whatever is wrong with another


async def test_verify_reports_every_damaged_game_and_carries_on(db_path, tmp_path):
    await _new_games(db_path, ("c1", "c2", "c3", "c4"))
    store = await Store.open(db_path)
    try:
        await store.driver.execute("""UPDATE games SET options = '{"broken"' WHERE channel = 'c1'""")
        await store.driver.execute("""UPDATE games SET state = '{"broken"' WHERE channel = 'c2'""")
        third = await store.active_game("c3")
        other_state = third.state.replace('"speed":0', '"speed":1', 1)  # sound JSON, another table
        assert other_state != third.state
        await store.driver.execute("UPDATE games SET state = ? WHERE id = ?", (other_state, third.id))
    finally:
        await store.close()
    result = run_pitboss("verify", "--db", db_path, cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = dict(re.findall(r"^game \d+ channel (c\d) speedway v\d+ active: (.*)$", result.stdout, re.M))
    assert lines["c1"].startswith("CANNOT BE READ: JSONDecodeError"), result.stdout
    assert lines["c2"].startswith("CANNOT BE READ: its snapshot is not valid JSON"), result.stdout
    assert lines["c3"].startswith("DOES NOT REPLAY: "), result.stdout
    assert lines["c4"] == "replays to its snapshot"
    assert "4 games checked, 1 mismatches, 2 cannot be read; database integrity: ok" in result.stdout


# A read-only database

_DAC_CAPABILITIES = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
_PR_CAPBSET_DROP = 24


def _can_drop_root_privileges() -> bool:
    """Whether a child can be started without the capabilities that let root write a 0444 file."""
    status = Path("/proc/self/status").read_text()
    effective = int(re.search(r"^CapEff:\s*([0-9a-f]+)$", status, re.M).group(1), 16)
    return bool(effective & (1 << 8))  # CAP_SETPCAP: may shrink the bounding set


def _without_root_privileges() -> None:
    """In the child before exec: root then obeys file modes, as any other user does."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in _DAC_CAPABILITIES:
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            os._exit(99)


def _run_unprivileged(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`pitboss ARGS` as a user who may read but not write the database."""
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60,
                          preexec_fn=_without_root_privileges if os.geteuid() == 0 else None)


async def _make_read_only(db_path: str) -> None:
    """A SQLite file and its folder without write permission; a PostgreSQL database that refuses writes."""
    if db_path.startswith("postgresql://"):
        import asyncpg

        conn = await asyncpg.connect(db_path)
        try:
            await conn.execute(f"ALTER DATABASE {db_path.rsplit('/', 1)[1]} SET default_transaction_read_only = on")
        finally:
            await conn.close()
        return
    if os.geteuid() == 0 and not _can_drop_root_privileges():
        pytest.skip("running as root without CAP_SETPCAP: a child cannot be made to obey file modes")
    assert sorted(os.listdir(Path(db_path).parent)) == ["pitboss.db"]  # closed cleanly: no -wal, no -shm
    os.chmod(db_path, 0o444)
    os.chmod(Path(db_path).parent, 0o555)


@pytest.mark.slow
async def test_verify_backup_and_status_work_on_a_read_only_database(db_path, tmp_path):
    if not db_path.startswith("postgresql://"):
        db_path = str(tmp_path / "ro" / "pitboss.db")
        os.mkdir(tmp_path / "ro")
    await _new_games(db_path, ("c1",))
    await _make_read_only(db_path)
    try:
        verified = _run_unprivileged("verify", "--db", db_path, cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "1 games checked, 0 mismatches; database integrity: ok" in verified.stdout

        copy = tmp_path / "copy.db"
        backed = _run_unprivileged("backup", "--db", db_path, str(copy), cwd=tmp_path)
        assert backed.returncode == 0, backed.stdout + backed.stderr
        assert copy.stat().st_size > 0

        status = _run_unprivileged("exec", "--db", db_path, "--channel", "c1", "--user", "carol", "/game status",
                                   cwd=tmp_path)
        assert status.returncode == 0 and "alice (Brawler)" in status.stdout, status.stdout + status.stderr

        # Writing still fails, as it must, with the apology and no traceback.
        write = _run_unprivileged("exec", "--db", db_path, "--channel", "c1", "--user", "carol",
                                  "/game join car:sniper", cwd=tmp_path)
        assert write.returncode == 1 and "something went wrong" in write.stdout, write.stdout + write.stderr
        assert "Traceback" not in write.stdout + write.stderr
        assert re.search(r"readonly|read-only", (tmp_path / "pitboss-errors.log").read_text())

        if not db_path.startswith("postgresql://"):  # the bot itself refuses to start on it
            bot = _run_unprivileged("run", "--db", db_path, cwd=tmp_path)
            assert bot.returncode == 2 and "read-only" in bot.stderr and "Traceback" not in bot.stderr, bot.stderr
    finally:
        if not db_path.startswith("postgresql://"):
            os.chmod(Path(db_path).parent, 0o755)
    if not db_path.startswith("postgresql://"):
        assert sorted(os.listdir(Path(db_path).parent)) == ["pitboss.db"]  # nothing written beside it


# The PostgreSQL password


def test_masked_and_split_password():
    assert masked("pitboss.db") == "pitboss.db"
    assert masked("postgresql://u:secret@db.example:5432/x") == "postgresql://u:***@db.example:5432/x"
    assert masked("postgresql://u:p@ss@h/x?password=two&sslmode=require") == \
        "postgresql://u:***@h/x?password=***&sslmode=require"
    assert split_password("postgresql://u:p%2Fw%40rd@h/x") == ("postgresql://u@h/x", "p/w@rd")
    assert split_password("postgresql://h/x?password=top&sslmode=disable") == \
        ("postgresql://h/x?sslmode=disable", "top")
    assert split_password("postgresql://u@h/x") == ("postgresql://u@h/x", None)


@pytest.mark.slow
async def test_pg_dump_gets_the_password_in_its_environment_not_its_command_line(postgres_url, tmp_path,
                                                                                 monkeypatch):
    """A real backup as a role that must give its password (scram-sha-256, not the test server's trust)."""
    import asyncpg

    role, password = f"pitboss_pw_{os.getpid()}", "s3cret/p@ss word"
    server = urlsplit(postgres_url)
    admin = await asyncpg.connect(postgres_url)
    hba = Path(await admin.fetchval("SHOW hba_file"))
    if not os.access(hba, os.W_OK):
        await admin.close()
        pytest.skip("the test server's pg_hba.conf is not writable here")
    original = hba.read_text()
    try:
        hba.write_text(f"host all {role} {server.hostname}/32 scram-sha-256\n" + original)
        await admin.execute("SELECT pg_reload_conf()")
        await admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{password}'")
        await admin.execute(f"CREATE DATABASE {role} OWNER {role}")
        url = f"postgresql://{role}:{quote(password, safe='')}@{server.hostname}:{server.port}/{role}"
        with pytest.raises(asyncpg.exceptions.InvalidPasswordError):  # the password really is checked
            await (await asyncpg.connect(url.replace("s3cret", "wrong"))).close()

        await _new_games(url, ("c1",))
        started = []
        real_exec = asyncio.create_subprocess_exec

        async def recording_exec(*argv, **options):
            started.append((argv, options.get("env") or {}))
            return await real_exec(*argv, **options)

        monkeypatch.setattr(asyncio, "create_subprocess_exec", recording_exec)
        store = await Store.open(url)
        try:
            await store.backup(str(tmp_path / "dump"))
        finally:
            await store.close()
        assert (tmp_path / "dump").read_bytes().startswith(b"PGDMP")
        ((argv, env),) = started
        assert argv[0] == "pg_dump" and not any("s3cret" in arg for arg in argv), argv
        assert env["PGPASSWORD"] == password
    finally:
        hba.write_text(original)
        await admin.execute("SELECT pg_reload_conf()")
        await admin.close()


@pytest.mark.slow
async def test_play_banner_and_errors_never_show_the_password(postgres_url, tmp_path):
    import asyncpg

    name = f"pitboss_banner_{os.getpid()}"
    admin = await asyncpg.connect(postgres_url)
    try:
        await admin.execute(f"CREATE DATABASE {name}")
    finally:
        await admin.close()
    # The test server trusts every connection: the password is carried along, never checked.
    with_password = postgres_url.replace("pitboss@", "pitboss:secret@", 1).rsplit("/", 1)[0] + "/" + name
    played = run_pitboss("play", "--db", with_password, "--out", str(tmp_path / "maps"), stdin="quit\n",
                         cwd=tmp_path)
    assert played.returncode == 0, played.stderr
    assert "database postgresql://pitboss:***@" in played.stdout
    unreachable = run_pitboss("play", "--db", "postgresql://u:secret@127.0.0.1:1/x", stdin="quit\n", cwd=tmp_path)
    assert unreachable.returncode == 1
    log = tmp_path / "pitboss-errors.log"
    for text in (played.stdout, played.stderr, unreachable.stdout, unreachable.stderr,
                 log.read_text() if log.exists() else ""):
        assert "secret" not in text


@pytest.mark.slow
@pytest.mark.sqlite_only
def test_run_on_a_folder_it_cannot_write_names_the_user_id_and_the_folder(tmp_path):
    """A bind mount owned by another user (`-v ./data:/data`): one line saying who needs which folder."""
    if os.geteuid() == 0 and not _can_drop_root_privileges():
        pytest.skip("running as root without CAP_SETPCAP: a child cannot be made to obey file modes")
    folder = tmp_path / "data"
    folder.mkdir(mode=0o555)
    try:
        bot = _run_unprivileged("run", "--db", str(folder / "pitboss.db"), cwd=tmp_path)
    finally:
        folder.chmod(0o755)
    assert bot.returncode == 2 and "Traceback" not in bot.stderr, bot.stderr
    assert f"user {os.getuid()}:{os.getgid()} cannot write the folder {folder}" in bot.stderr
    assert list(folder.iterdir()) == []
