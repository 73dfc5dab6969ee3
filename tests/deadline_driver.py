"""A scheduler process that claims what is due, waits for a word, then sends it: a claim taken before a
player acted, in another process, deterministically.

Run as `python -m tests.deadline_driver DB NOW`. It claims every reminder and deadline due at NOW (epoch
seconds) and prints `claimed N`; on a line from stdin it sends them and prints `sent N`, then each
notice's first line.
"""

from __future__ import annotations

import asyncio
import sys

from bot.storage.store import Store
from bot.table.service.entry import GameService


async def drive(db: str, now: float) -> None:
    store = await Store.open(db)
    try:
        service = GameService(store, render=None, clock=lambda: now)
        claimed = await store.claim_due(now)
        print(f"claimed {len(claimed)}", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        notices = await service.send_claimed(claimed)
        print(f"sent {len(notices)}", flush=True)
        for notice in notices:
            print(notice.reply.text.splitlines()[0], flush=True)
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(drive(sys.argv[1], float(sys.argv[2])))
