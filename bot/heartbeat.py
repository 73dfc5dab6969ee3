"""The running bot's heartbeat file: whether it is connected to Discord, written every few seconds.

`pitboss run` writes it (bot/chat/adapter.py) where PITBOSS_HEARTBEAT names a file; `pitboss health`
(the Docker HEALTHCHECK) reads it, and a stale one counts as a bot that is stuck or gone.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

HEARTBEAT_ENV = "PITBOSS_HEARTBEAT"
BEAT_SECONDS = 15.0  # how often the bot writes it (env PITBOSS_HEARTBEAT_SECONDS)
MISSED_BEATS = 6  # a heartbeat older than this many beats means the bot is not answering


def beat_seconds() -> float:
    """How often the running bot writes its heartbeat (env PITBOSS_HEARTBEAT_SECONDS; the reader uses it too)."""
    return float(os.environ.get("PITBOSS_HEARTBEAT_SECONDS", BEAT_SECONDS))


def heartbeat_path() -> Path | None:
    """Where the heartbeat is written and read (env PITBOSS_HEARTBEAT), or None when it is not kept."""
    value = os.environ.get(HEARTBEAT_ENV, "").strip()
    return Path(value) if value else None


def write_heartbeat(path: Path, *, connected: bool, now: float | None = None) -> None:
    """Record the connection state and the time, replacing the file in one step (a reader never sees half)."""
    body = json.dumps({"connected": connected, "at": time.time() if now is None else now, "pid": os.getpid()})
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(body)
    os.replace(partial, path)


def heartbeat_problem(path: Path, *, now: float | None = None, stale_after: float | None = None) -> str | None:
    """Why the heartbeat says the bot is unhealthy (None: it is connected and the beat is fresh: younger than
    `stale_after` seconds, by default MISSED_BEATS beats)."""
    stale_after = MISSED_BEATS * beat_seconds() if stale_after is None else stale_after
    try:
        beat = json.loads(path.read_text())
        connected, at = bool(beat["connected"]), float(beat["at"])
    except FileNotFoundError:
        return f"no heartbeat at {path}: the bot is not running (or PITBOSS_HEARTBEAT differs from its own)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"the heartbeat at {path} cannot be read: {exc}"
    age = (time.time() if now is None else now) - at
    if age > stale_after:
        return f"the heartbeat is {age:.0f} s old (more than {stale_after:.0f} s): the bot is stuck or stopped"
    if not connected:
        return "the bot is not connected to Discord"
    return None
