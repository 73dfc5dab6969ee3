"""Shared fixtures: a real store and service, on a temporary SQLite file or a fresh PostgreSQL database.

A test module that sets `BACKENDS = ("sqlite", "postgres")` runs each test that uses the database on
both; `@pytest.mark.sqlite_only` keeps a test that reads the SQLite file itself on SQLite, and
`@pytest.mark.rules_only` one whose stored path its module's other tests already run on both (what it adds
is the game's or the service's logic, not the database's). A test that parametrizes `db_backend` itself
names its own pairs (e.g. each variant of its logic on SQLite, the stored path once on PostgreSQL).
"""

from __future__ import annotations

import compileall
import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

# A third game, from outside the project, plays in every test (and in every bot or CLI process the tests
# start): the framework must hold with a game it was not written for (tests/toy).
os.environ["PITBOSS_GAMES"] = "tests.toy,tests.walkthrough"

import pytest  # noqa: E402

from bot.storage.store import Store  # noqa: E402
from bot.table.plugins import load_plugins  # noqa: E402
from bot.table.protocol.commands import parse  # noqa: E402
from bot.table.service.entry import Actor, GameService  # noqa: E402

load_plugins()   # before collection: suites parametrized by the registry cover the plug-ins too

ROOT = Path(__file__).resolve().parent.parent


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "sqlite_only: the test reads the SQLite file directly")
    config.addinivalue_line("markers", "rules_only: the module's other tests run its stored path on both backends")
    config.addinivalue_line("markers", "slow: the slow tier (a process per command, the bot against the fake "
                                       "Discord, PostgreSQL); `-m 'not slow'` runs the fast tier")
    # The command-line tests start hundreds of interpreters; where PYTHONDONTWRITEBYTECODE is set (as
    # here) each would compile every module again. Byte-compile once, as an installed package would be
    # (the plug-in games too: every process the tests start imports them; and the tests' own helpers, the
    # fake Discord's 2,000 lines among them, which every worker imports: pytest caches only test modules).
    for package in ("bot", "rules", "images"):
        compileall.compile_dir(ROOT / package, quiet=1)
    compileall.compile_dir(ROOT / "tests", quiet=1, rx=re.compile(r"[/\\](test_[^/\\]*|conftest)\.py$"))
    if not hasattr(config, "workerinput"):   # the xdist controller, or a run without workers
        _rewrite_test_modules_once(config)
    from tests import schedule

    config.pluginmanager.register(schedule, "pitboss-schedule")   # the workers' order of the tests


def _rewrite_test_modules_once(config) -> None:
    """Cache pytest's assertion-rewritten code of every test module before the workers start: with
    PYTHONDONTWRITEBYTECODE set each worker otherwise rewrites all of them again (~6 s of CPU a worker),
    and on a fresh clone they all would. The plug-ins' modules pytest rewrites too (Hypothesis' ~80 as the
    tests import it, ~0.8 s of CPU in every process; the controller's own from the second run on). Uses
    pytest's own rewriter; skipped if its internals move."""
    try:
        from _pytest.assertion.rewrite import (
            PYC_TAIL,
            _read_pyc,
            _rewrite_test,
            _write_pyc,
            assertstate_key,
            get_cache_dir,
        )
        state = config.stash[assertstate_key]
    except (ImportError, KeyError):   # pytest's internals changed, or assertions are not rewritten
        return
    import hypothesis  # noqa: F401  (the plug-in's package the test modules import: rewritten here, once)

    plugins = [Path(path) for path in getattr(state.hook, "_rewritten_names", {}).values()]
    tests = [path for path in sorted((ROOT / "tests").rglob("*.py"))
             if path.name.startswith("test_") or path.name == "conftest.py"]
    for path in dict.fromkeys(plugins + tests):
        cache = get_cache_dir(path)
        pyc = cache / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc) is not None:
            continue
        try:
            cache.mkdir(exist_ok=True)
        except OSError:   # a plug-in installed where this user cannot write
            continue
        source_hash, code = _rewrite_test(path, config)
        _write_pyc(state, code, source_hash, pyc)


E2E = ROOT / "tests" / "e2e"


def pytest_collection_modifyitems(config, items) -> None:
    """The slow tier, besides tests marked by hand: every end-to-end test, and every test's PostgreSQL run."""
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if E2E in Path(item.fspath).parents or params.get("db_backend") == "postgres":
            item.add_marker(pytest.mark.slow)


def pytest_generate_tests(metafunc) -> None:
    named = {name.strip() for mark in metafunc.definition.iter_markers("parametrize")
             for name in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])}
    if "db_path" in metafunc.fixturenames and "db_backend" not in named:   # unless the test names its own pairs
        backends = getattr(metafunc.module, "BACKENDS", ("sqlite",))
        marked = metafunc.definition.get_closest_marker
        if marked("sqlite_only") or marked("rules_only"):
            backends = ("sqlite",)
        metafunc.parametrize("db_backend", backends)


@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL server for the session: PITBOSS_TEST_POSTGRES, or one started from local binaries."""
    from tests import postgres_server

    given = os.environ.get("PITBOSS_TEST_POSTGRES")
    if given:
        postgres_server.wait_for(given)
        yield given
        return
    try:
        server = postgres_server.start()
    except (FileNotFoundError, subprocess.CalledProcessError) as exc:
        if os.environ.get("PITBOSS_REQUIRE_POSTGRES"):
            pytest.fail(f"PostgreSQL is required here but could not start: {exc}")
        pytest.skip(f"PostgreSQL is not available on this machine ({exc}); .ci/run installs it")
    try:
        yield server.url
    finally:
        server.stop()


_DATABASES = iter(range(1, 1_000_000))


async def _on_server(server: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(server)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def _migrate(target: str) -> None:
    await (await Store.open(target)).close()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A new SQLite database with every migration applied, made once a session and never written after."""
    import asyncio

    path = tmp_path_factory.mktemp("migrated") / "pitboss.db"
    asyncio.run(_migrate(str(path)))
    return path


@pytest.fixture(scope="session")
def migrated_postgres(postgres_url: str):
    """The name of a PostgreSQL database with every migration applied, made once a session: a template."""
    import asyncio

    name = f"pitboss_migrated_{os.getpid()}"
    asyncio.run(_on_server(postgres_url, f"CREATE DATABASE {name}"))
    asyncio.run(_migrate(postgres_url.rsplit("/", 1)[0] + "/" + name))
    yield name
    for url in _REUSED:   # the copies emptied for reuse (their server may be another's, given)
        asyncio.run(_on_server(postgres_url, f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)"))
    _REUSED.clear()
    asyncio.run(_on_server(postgres_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
def db_path(tmp_path: Path, db_backend: str, request):
    """Where the test's database lives: a SQLite file, or the URL of a new PostgreSQL database, dropped
    after the test (a server left holding hundreds of them took ~50 s to stop and delete). For a test that
    opens the `store` fixture on it, it starts as a copy of a migrated one, what `Store.open` would make of
    a new database, for less: a file copy instead of ~10 ms of CPU, and on PostgreSQL half the server's CPU
    (~150 ms, a template copied file by file), or less still: a copy an earlier test of this process used,
    emptied back to exactly what a new copy holds (`_reuse_or_drop`). A new database's own migration is
    tested on its own (test_store_service, test_upgrades) and by every process the suite starts."""
    migrated = "store" in request.fixturenames
    if db_backend == "sqlite":
        path = tmp_path / "pitboss.db"
        if migrated:
            import shutil

            shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
        yield str(path)
        return
    import asyncio

    server = request.getfixturevalue("postgres_url")
    if migrated:
        template = request.getfixturevalue("migrated_postgres")
        url = _REUSED.pop() if _REUSED else asyncio.run(_copy_of(server, template))
        yield url
        asyncio.run(_reuse_or_drop(server, url))
        return
    name = f"pitboss_test_{os.getpid()}_{next(_DATABASES)}"
    asyncio.run(_on_server(server, f"CREATE DATABASE {name}"))
    yield server.rsplit("/", 1)[0] + "/" + name
    asyncio.run(_on_server(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


# A copy of the migrated template costs the server ~75-250 ms of CPU to make and drop (a checkpoint and a
# file copy each way), and ~220 tests take one. After its test a copy is emptied instead and handed to the
# next (a few ms): its rows deleted and its sequences set back, then checked to be the template's exact shape,
# rows and sequences again (the same fingerprint); a copy that differs, or that a session still holds, is dropped.
_REUSED: list[str] = []
_AS_MADE: list[tuple[tuple, list[str]]] = []   # a first copy's fingerprint and seeded tables

_SHAPE = """
SELECT md5(string_agg(part, E'\\n' ORDER BY part)) FROM (
    SELECT 'namespace ' || nspname AS part FROM pg_namespace
    UNION ALL SELECT 'class ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || ' ' || c.relnatts
        || ' ' || c.relpersistence::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    UNION ALL SELECT 'column ' || a.attrelid::regclass::text || '.' || a.attname || ' ' || format_type(a.atttypid,
        a.atttypmod) || ' ' || a.attnotnull || ' ' || a.attisdropped || ' ' || coalesce(pg_get_expr(d.adbin,
        d.adrelid), '') FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attnum > 0 AND a.attrelid IN (SELECT c.oid FROM pg_class c JOIN pg_namespace n
        ON n.oid = c.relnamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
    UNION ALL SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
    UNION ALL SELECT 'index ' || pg_get_indexdef(indexrelid) FROM pg_index
    UNION ALL SELECT 'trigger ' || tgname || ' ' || tgenabled::text || ' ' || tgfoid::regproc::text FROM pg_trigger
    UNION ALL SELECT 'function ' || p.oid::regprocedure::text || ' ' || md5(p.prosrc) FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
    UNION ALL SELECT 'setting ' || array_to_string(setconfig, ' ') FROM pg_db_role_setting
        WHERE setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
) AS shape
"""


async def _listed(conn, view: str, column: str) -> list[str]:
    rows = await conn.fetch(f"SELECT quote_ident(schemaname) || '.' || quote_ident({column}) FROM {view}"
                            " WHERE schemaname NOT IN ('pg_catalog', 'information_schema')")
    return sorted(r[0] for r in rows)


async def _fingerprint(conn) -> tuple[str, str, tuple[tuple[str, int, bool], ...]]:
    """The copy's schema, every row of every table, and its sequences' values."""
    tables = await _listed(conn, "pg_tables", "tablename")
    rows = " UNION ALL ".join(f"SELECT {i}, (SELECT array_agg(t::text ORDER BY t::text) FROM {table} t)::text"
                              for i, table in enumerate(tables))
    sequences = [(name, *await conn.fetchrow(f"SELECT last_value, is_called FROM {name}"))
                 for name in await _listed(conn, "pg_sequences", "sequencename")]
    return (await conn.fetchval(_SHAPE), repr([tuple(r) for r in await conn.fetch(f"{rows} ORDER BY 1")]),
            tuple(sequences))


async def _copy_of(server: str, template: str) -> str:
    """A new copy of the migrated template; the first one also tells what a copy is like as made."""
    import asyncpg

    name = f"pitboss_test_{os.getpid()}_{next(_DATABASES)}"
    await _on_server(server, f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
    url = server.rsplit("/", 1)[0] + "/" + name
    if not _AS_MADE:
        conn = await asyncpg.connect(url)
        try:
            seeded = [t for t in await _listed(conn, "pg_tables", "tablename")
                      if await conn.fetchval(f"SELECT count(*) FROM {t}")]
            _AS_MADE.append((await _fingerprint(conn), seeded))
        finally:
            await conn.close()
    return url


async def _reuse_or_drop(server: str, url: str) -> None:
    """Empty the test's copy back to the template's rows and keep it for the next test, or drop it."""
    import asyncpg

    fingerprint, seeded = _AS_MADE[0]
    try:
        conn = await asyncpg.connect(url)
        try:
            if await conn.fetchval("SELECT count(*) FROM pg_stat_activity"
                                   " WHERE datname = current_database() AND pid <> pg_backend_pid()"):
                raise LookupError("another session still holds the copy")
            async with conn.transaction():
                await conn.execute("SET LOCAL session_replication_role = replica")   # no foreign-key order
                for table in await _listed(conn, "pg_tables", "tablename"):
                    if table not in seeded:
                        await conn.execute(f"DELETE FROM {table}")
                for name, value, called in fingerprint[2]:
                    await conn.execute("SELECT setval($1::regclass, $2, $3)", name, value, called)
            if await _fingerprint(conn) != fingerprint:
                raise LookupError("the copy's shape, rows or sequences differ from the template's")
        finally:
            await conn.close()
    except (LookupError, OSError, asyncpg.PostgresError):
        await _on_server(server, f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")
        return
    _REUSED.append(url)


@pytest.fixture(autouse=True)
def no_kept_answers():
    """Each test starts with no long-job answer kept by an earlier one: fresh databases give the same ids,
    rows and logs, so a test that changes what a job does (its words, its rules) would read the answer an
    earlier test kept in the shared worker (bot.table.jobs.kept)."""
    from bot.table.jobs.heavy import HEAVY

    HEAVY.kept.clear()
    yield


@pytest.fixture
async def store(db_path: str):
    opened = await Store.open(db_path)
    yield opened
    await opened.close()


@pytest.fixture
async def release8_store(tmp_path: Path):
    """A copy of tests/fixtures/release8.db (made by the release of stop 8, schema 5), opened: migrated."""
    import shutil

    path = tmp_path / "release8.db"
    shutil.copyfile(ROOT / "tests" / "fixtures" / "release8.db", path)
    opened = await Store.open(str(path))
    yield opened
    await opened.close()


TABLE_TIME = 1_800_000_000.0   # the service fixture's clock: replies that show a moment read the same in any run


@pytest.fixture
def service(store: Store) -> GameService:
    return GameService(store, clock=lambda: TABLE_TIME)


class Table:
    """Drive one channel's game by typed commands, as players would."""

    def __init__(self, service: GameService, channel: str = "chan-1"):
        self.service = service
        self.channel = channel

    async def __call__(self, user: str, line: str, admin: bool = False):
        return await self.service.execute(self.channel, Actor(user, user, admin), parse(line))


@pytest.fixture
def table(service: GameService) -> Table:
    return Table(service)


def run_pitboss(*args: str, cwd: Path | None = None, stdin: str | None = None,
                env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the pitboss command line in a fresh interpreter, as a user would (bounded generously: at load
    25 a `play` of an example script and a small `bench` each passed 120 s)."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "bot", *args], cwd=cwd, input=stdin,
                           capture_output=True, text=True, env=full_env, timeout=600)


def run_cli(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess:
    """Run the pitboss command line through its own entry point in this process, as `run_pitboss` does
    in a fresh one (its arguments, output and exit status), without the ~1.4 s an interpreter costs.
    Whole games played one command at a time use this; a process per command is tested on its own."""
    from bot.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _stdin_of(stdin):
        try:
            status = main(list(args))
        except SystemExit as exited:   # argparse's refusal of an argument, as a process would end
            status = exited.code if isinstance(exited.code, int) else 1
    return subprocess.CompletedProcess(["pitboss", *args], status, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stdin_of(text: str):
    saved, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


def exec_in(db: str, cwd: Path, channel: str = "c"):
    """A function running one command in `channel` of `db` through `pitboss exec`'s entry point, as
    `user` would (each call a fresh service and store, as a new process has); it asserts the command
    was taken and returns what it printed."""
    def run(user: str, line: str) -> str:
        result = run_cli("exec", "--db", db, "--channel", channel, "--user", user, line, cwd=cwd)
        assert result.returncode == 0, (line, result.stdout, result.stderr)
        return result.stdout
    return run


def track_on_the_command_line(db: str, cwd: Path, channel: str = "c") -> None:
    """A Track race of ann (the host) and ben, started through `pitboss exec`'s entry point."""
    run = exec_in(db, cwd, channel)
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start")):
        run(user, line)


def stored_state(ruleset, db: str, channel: str = "c"):
    """The latest game of `channel` in the SQLite file `db`, as `ruleset` reads it."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        (text,) = conn.execute("SELECT state FROM games WHERE channel = ? ORDER BY id DESC", (channel,)).fetchone()
    return ruleset.load_state(text)



def process_gone(pid: int) -> bool:
    """Whether no process has this id any more (killed and reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def process_ended(pid: int, owners: set[int]) -> bool:
    """Whether the process has ended: gone, or a zombie whose parent is none of `owners` (a render process whose
    zygote was killed before it is left to init, which reaps it in its own time: no owner can, nor wait on it)."""
    if process_gone(pid):
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return True
    return fields[0] == "Z" and int(fields[1]) not in owners
