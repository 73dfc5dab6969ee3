"""A table clock the test sets, for a `pitboss run` process; installed beside the `sitecustomize` shim.

When PITBOSS_E2E_CLOCK names a file, discord_redirect.py (the shim) imports this module as `e2e_clock`
and calls `install`: every GameService the bot makes reads the time from that file (epoch seconds, as
text; the test replaces it whole, so a read never sees half a number), and each scheduler round writes
the time it started at to FILE.ticked once its notices are posted, so a test knows that all that fell
due by then has reached the fake Discord. Only the table's clock moves: discord.py, the gateway and
the log's own timestamps keep the machine's time. Product code is not touched.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path


def set_time(path: Path, now: float) -> None:
    """Write `now` to `path` whole (the test moves the table clock so; the bot marks its rounds so)."""
    spare = path.with_name(f"{path.name}.{os.getpid()}.next")   # the test and the bot each their own
    spare.write_text(repr(now))
    os.replace(spare, path)


def ticked(path: Path) -> float | None:
    """The time the last finished scheduler round started at, or None before the first."""
    try:
        return float(Path(f"{path}.ticked").read_text())
    except (FileNotFoundError, ValueError):
        return None


def install(path: str) -> None:
    """Give every GameService the file's clock, and mark each finished scheduler round."""
    from bot.chat import adapter
    from bot.table.service import entry

    def clock() -> float:
        return float(Path(path).read_text())

    made = entry.GameService.__init__

    @functools.wraps(made)
    def init(self, *args, **kwargs):
        kwargs.setdefault("clock", clock)
        made(self, *args, **kwargs)

    entry.GameService.__init__ = init
    loop = adapter.PitbossBehaviour.scheduler
    inner = loop.coro

    @functools.wraps(inner)
    async def scheduler(client) -> None:
        began = clock()
        await inner(client)
        set_time(Path(f"{path}.ticked"), began)

    loop.coro = scheduler
