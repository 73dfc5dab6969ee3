"""A throwaway PostgreSQL server on 127.0.0.1 for the tests, from the machine's own binaries.

`.ci/run` installs PostgreSQL (Debian's package) when it is missing, so CI always runs the storage
and service suites on it as well; a developer's machine without PostgreSQL runs them on SQLite only
and is told so. PITBOSS_TEST_POSTGRES=postgresql://... uses an existing server instead.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 60


def binaries() -> Path | None:
    """The folder with initdb and pg_ctl, if PostgreSQL is installed."""
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running cluster: its URL (database `pitboss`) and how to stop it."""

    url: str
    data: Path
    bin: Path
    as_user: list[str]
    options: str = ""

    def halt(self) -> None:
        """Stop the server and keep its data: an outage, until `resume`."""
        subprocess.run(self.as_user + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop"],
                       check=True, capture_output=True, timeout=60)

    def resume(self) -> None:
        """Start the halted server again, on the same port."""
        subprocess.run(self.as_user + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", self.options,
                                       "-l", str(self.data.parent / "log"), "-w", "-t", str(START_TIMEOUT), "start"],
                       check=True, capture_output=True, timeout=START_TIMEOUT + 10)

    def stop(self) -> None:
        subprocess.run(self.as_user + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.data.parent, ignore_errors=True)


def start() -> Server:
    """initdb a cluster in a temporary folder and start it on a free loopback port (fsync and autovacuum off)."""
    bin_dir = binaries()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL is not installed (no pg_ctl)")
    root = Path(tempfile.mkdtemp(prefix="pitboss-pg-"))
    data, sockets = root / "data", root / "run"
    sockets.mkdir()
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        os.chmod(root, 0o755)
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
    port = _free_port()
    subprocess.run(as_user + [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "pitboss",
                              "--no-sync", "-E", "UTF8"], check=True, capture_output=True, timeout=START_TIMEOUT)
    # durability and upkeep a throwaway server does not need, at the server's CPU: no fsync, no full pages or
    # more than minimal WAL after a checkpoint, no autovacuum over databases that live for one test
    options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
               " -c full_page_writes=off -c wal_level=minimal -c max_wal_senders=0 -c autovacuum=off")
    subprocess.run(as_user + [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(root / "log"),
                              "-w", "-t", str(START_TIMEOUT), "start"], check=True, capture_output=True,
                   timeout=START_TIMEOUT + 10)
    subprocess.run(as_user + [str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "pitboss",
                              "pitboss"], check=True, capture_output=True, timeout=30)
    return Server(f"postgresql://pitboss@127.0.0.1:{port}/pitboss", data, bin_dir, as_user, options)


def wait_for(url: str, timeout: float = 30) -> None:
    """Block until the server at `url` accepts connections."""
    import asyncio

    import asyncpg

    async def ping() -> None:
        conn = await asyncpg.connect(url)
        await conn.close()

    deadline = time.monotonic() + timeout
    while True:
        try:
            asyncio.run(ping())
            return
        except (OSError, asyncpg.PostgresError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
