"""Fixtures: a fake Discord on 127.0.0.1 and an unmodified `pitboss run` subprocess connected to it.

discord.py is redirected from the test side only: `discord_redirect.py` is copied as
`sitecustomize.py` into a temporary folder placed first on the child's PYTHONPATH, and the fake's
address travels in PITBOSS_E2E_FAKE_DISCORD. Every wait is bounded; the child is always killed.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.fake_discord import INTERACTION_DEADLINE, STARVED_MACHINE_DEADLINE, FakeDiscord

ROOT = Path(__file__).resolve().parents[2]
SHIM = Path(__file__).with_name("discord_redirect.py")
CLOCK = Path(__file__).with_name("fake_clock.py")   # the shim's table clock, when PITBOSS_E2E_CLOCK is set
STARTUP_TIMEOUT = 120.0  # a bound from spawning the process to READY (normally ~1.5 s; a busy machine's far more)
KILL_TIMEOUT = 10.0

LATENCIES = pytest.StashKey[list]()


class BotProcess:
    """`python -m bot run --db <tmp>/pitboss.db [--guild ID]` against the fake, restartable."""

    def __init__(self, fake: FakeDiscord, workdir: Path, *, guild: bool = False,
                 env: dict[str, str] | None = None, db: Path | None = None, args: tuple[str, ...] = ()):
        self.fake = fake
        self.workdir = workdir
        self.guild = guild
        self.extra_env = dict(env or {})  # e.g. PITBOSS_TICK_SECONDS for a fast scheduler
        self.db = db or workdir / "pitboss.db"  # several processes may share one database
        self.extra_args = list(args)  # e.g. --shards 1/2
        self.log_path = workdir / "bot.log"
        self.shim_dir = workdir / "shim"
        self.shim_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHIM, self.shim_dir / "sitecustomize.py")
        shutil.copyfile(CLOCK, self.shim_dir / "e2e_clock.py")
        self.proc: subprocess.Popen | None = None
        self.starts = 0
        self.startup_seconds: list[float] = []

    def command(self) -> list[str]:
        args = [sys.executable, "-m", "bot", "run", "--db", str(self.db)]
        if self.guild:
            args += ["--guild", self.fake.guild_id]
        return args + self.extra_args

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("PITBOSS_DB", "DISCORD_TOKEN", "PYTHONPATH", "PYTHONSTARTUP")}
        env.update(PYTHONPATH=os.pathsep.join([str(self.shim_dir), str(ROOT)]),
                   DISCORD_TOKEN=self.fake.token, PITBOSS_E2E_FAKE_DISCORD=self.fake.url,
                   PYTHONUNBUFFERED="1", PITBOSS_LOG=str(self.workdir / "pitboss-errors.log"),
                   # render processes as a bot runs by default: started while pictures overlap. A process
                   # started with every bot (=1) warmed every game's drawing, ~2 s of CPU a bot, mostly
                   # for nothing: e2e tests of the workers ask for them (test_e2e_hung_workers, _stop)
                   PITBOSS_RENDER_PROCESSES="auto",
                   PITBOSS_WARM_START="0")   # the suite starts many bots, each without warming its drawing first
        if self.fake.clock_path is not None:   # Discord's clock as the fake moves it (its `advance`)
            env["PITBOSS_E2E_DISCORD_CLOCK"] = str(self.fake.clock_path)
        env.update(self.extra_env)
        return env

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None, "the bot is already running"
        identified = self.fake.identify_count()
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== e2e: start {self.starts}: {' '.join(self.command())}\n".encode())
            log.flush()
            began = time.monotonic()
            self.proc = subprocess.Popen(self.command(), cwd=self.workdir, env=self.environment(),
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = began + STARTUP_TIMEOUT
        ready = False
        while not (ready and self.fake.synced_commands(guild=self.guild)):  # READY, and commands synced
            code = self.proc.poll()
            if code is not None:
                raise RuntimeError(f"pitboss run exited with status {code} before READY\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"pitboss run was not READY with its commands synced within "
                                   f"{STARTUP_TIMEOUT:.0f}s\nsessions: {self.fake.sessions()}\n"
                                   f"unexpected: {self.fake.unexpected()}\n{self.log_tail()}")
            try:
                self.fake.wait_ready_blocking(after=identified, timeout=0.5)
                ready = True
            except TimeoutError:
                continue
            time.sleep(0.05)
        self.startup_seconds.append(time.monotonic() - began)

    def stop(self, sigkill: bool = True) -> None:
        """Kill the child (SIGKILL, or SIGTERM then SIGKILL) and reap it; only this one process."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.send_signal(signal.SIGKILL if sigkill else signal.SIGTERM)
            proc.wait(KILL_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(KILL_TIMEOUT)
        except ProcessLookupError:
            pass

    def restart(self, sigkill: bool = True) -> None:
        self.stop(sigkill=sigkill)
        self.start()

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines: int = 60) -> str:
        return "----- pitboss run log (tail) -----\n" + "\n".join(self.log_text().splitlines()[-lines:])


@pytest.fixture
def fake(tmp_path):
    server = FakeDiscord(clock_path=tmp_path / "discord-clock", deadline=STARVED_MACHINE_DEADLINE).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def start_bot(fake, tmp_path):
    """Factory: start a `pitboss run` child (optionally with --guild, and extra environment variables)
    and wait until it is READY."""
    started: list[BotProcess] = []

    def start(*, guild: bool = False, name: str = "bot", env: dict[str, str] | None = None,
              db: Path | None = None, args: tuple[str, ...] = ()) -> BotProcess:
        bot = BotProcess(fake, tmp_path / name, guild=guild, env=env, db=db, args=args)
        started.append(bot)
        bot.start()
        return bot

    yield start
    for bot in started:
        bot.stop()
        print(bot.log_tail(200))  # shown by pytest only when the test failed
    unexpected = fake.unexpected()
    if unexpected:
        print("fake Discord saw unexpected requests:\n" + "\n".join(unexpected))


@pytest.fixture
def bot(start_bot) -> BotProcess:
    """The bot, synced (global commands) and connected: IDENTIFY answered with READY and GUILD_CREATE."""
    return start_bot()


@pytest.fixture
def restart_bot(bot):
    """`await restart_bot(sigkill=True)`: kill the bot and start it again on the same database."""
    async def restart(sigkill: bool = True) -> BotProcess:
        await asyncio.to_thread(bot.restart, sigkill)
        return bot
    return restart


@pytest.fixture
def record_latency(request):
    """Record a measured first-response latency for the end-of-run summary."""
    def record(label: str, seconds: float) -> None:
        request.config.stash.setdefault(LATENCIES, []).append((request.node.name, label, seconds))
    return record


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    latencies = config.stash.get(LATENCIES, [])
    if not latencies:
        return
    terminalreporter.section("e2e: first response (INTERACTION_CREATE sent -> callback received)")
    for test, label, seconds in latencies:
        terminalreporter.write_line(f"{seconds * 1000:7.1f} ms  {test}: {label}")
    values = sorted(s for _, _, s in latencies)
    late = sum(1 for s in values if s > INTERACTION_DEADLINE)
    terminalreporter.write_line(f"n={len(values)} min {values[0] * 1000:.1f} ms, median "
                                f"{values[len(values) // 2] * 1000:.1f} ms, max {values[-1] * 1000:.1f} ms; "
                                f"{late} later than Discord's {INTERACTION_DEADLINE:.0f} s (a busy machine's, "
                                "judged by the bench, not by the tests)")
