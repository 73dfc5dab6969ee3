"""`pitboss ratings [--rebuild]`: each server's ratings per game kind, recomputed from the stored finished
games first with --rebuild (bot.table.service.ratings)."""

from __future__ import annotations

from bot.storage import ratings as stored
from bot.storage.store import Store
from bot.table.jobs.heavy import HeavyWork
from bot.table.service.ratings import PROVISIONAL_GAMES, rebuild_all
from rules.registry import ruleset_ids

SHOWN = 10   # ratings listed per server and game kind


async def ratings_command(store: Store, rebuild: bool) -> str:
    """What `pitboss ratings` prints: with `rebuild`, how many games each server's rebuild rated, then the
    best ratings of each server and game kind."""
    lines = []
    if rebuild:
        heavy = HeavyWork()
        try:
            rebuilt = await rebuild_all(store, heavy.run)
        finally:
            heavy.close()
        lines += [f"rebuilt: server {guild or '(none)'}: {count} games" for guild, count in rebuilt.items()]
        lines.append(f"ratings rebuilt from {sum(rebuilt.values())} finished games")
    for guild in await stored.guilds(store):
        for kind in ruleset_ids():
            found = await stored.ratings_of_kind(store, guild, kind)
            if not found:
                continue
            lines.append(f"server {guild or '(none)'}, {kind}: {len(found)} rated")
            lines += [f"  {r.member}: {r.ordinal:.3f} (mu {r.mu:.3f}, sigma {r.sigma:.3f}, {r.games} games"
                      f"{', provisional' if r.games < PROVISIONAL_GAMES else ''})" for r in found[:SHOWN]]
    return "\n".join(lines) if lines else "no ratings yet"
