"""Shared fixtures: a real store and service, on a temporary SQLite file or a fresh PostgreSQL database.

A test module that sets `BACKENDS = ("sqlite", "postgres")` runs each test that uses the database on
both; `@pytest.mark.sqlite_only` keeps a test that reads the SQLite file itself on SQLite, and
`@pytest.mark.rules_only` one whose stored path its module's other tests already run on both (what it adds
is the game's or the service's logic, not the database's).
"""

from __future__ import annotations

import compileall
import contextlib
import io
import os
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
    # (the plug-in games too: every process the tests start imports them).
    for package in ("bot", "rules", "images", "tests/toy", "tests/walkthrough"):
        compileall.compile_dir(ROOT / package, quiet=1)
    if not hasattr(config, "workerinput"):   # the xdist controller, or a run without workers
        _rewrite_test_modules_once(config)
    from tests import schedule

    config.pluginmanager.register(schedule, "pitboss-schedule")   # the workers' order of the tests


def _rewrite_test_modules_once(config) -> None:
    """Cache pytest's assertion-rewritten code of every test module before the workers start: with
    PYTHONDONTWRITEBYTECODE set each worker otherwise rewrites all of them again (~6 s of CPU a worker),
    and on a fresh clone they all would. Uses pytest's own rewriter; skipped if its internals move."""
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
    for path in sorted((ROOT / "tests").rglob("*.py")):
        if not (path.name.startswith("test_") or path.name == "conftest.py"):
            continue
        cache = get_cache_dir(path)
        pyc = cache / (path.name[:-3] + PYC_TAIL)
        if _read_pyc(path, pyc) is not None:
            continue
        cache.mkdir(exist_ok=True)
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
    if "db_path" in metafunc.fixturenames:
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
    asyncio.run(_on_server(postgres_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


@pytest.fixture
def db_path(tmp_path: Path, db_backend: str, request):
    """Where the test's database lives: a SQLite file, or the URL of a new PostgreSQL database, dropped
    after the test (a server left holding hundreds of them took ~50 s to stop and delete). For a test that
    opens the `store` fixture on it, it starts as a copy of a migrated one, what `Store.open` would make of
    a new database, for less: a file copy instead of ~10 ms of CPU, and on PostgreSQL half the server's CPU
    (~150 ms, a template copied file by file). A new database's own migration is tested on its own
    (test_store_service, test_upgrades) and by every process the suite starts."""
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
    name = f"pitboss_test_{os.getpid()}_{next(_DATABASES)}"
    template = f" TEMPLATE {request.getfixturevalue('migrated_postgres')} STRATEGY FILE_COPY" if migrated else ""
    asyncio.run(_on_server(server, f"CREATE DATABASE {name}{template}"))
    yield server.rsplit("/", 1)[0] + "/" + name
    asyncio.run(_on_server(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


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
        status = main(list(args))
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
