"""A process that plays Speedway moves in several channels and acknowledges each one on stdout.

Run as `python -m tests.crash_driver DB CHANNELS SEED`. It resumes whatever games the database
holds, so a test can SIGKILL it at any moment and start it again. Each line `ack GAME VERSION`
is printed only after the service reported the move applied (committed).
"""

from __future__ import annotations

import asyncio
import sys

from bot.cli.bench import PLAYERS, _open_game
from bot.storage.store import Store
from bot.table.protocol.commands import parse
from bot.table.service.entry import GameService
from rules.codec import decode_state
from rules.speedway import ai
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState


async def drive(db: str, channels: int, seed: int) -> None:
    store = await Store.open(db)
    service = GameService(store, render=None)
    names = [f"crash-{i}" for i in range(channels)]

    async def play(index: int, channel: str) -> None:
        game_seed = seed * 100 + index
        while True:
            game = await store.active_game(channel)
            if game is None:
                game_seed += 1000
                await _open_game(service, channel, game_seed)
                continue
            state = decode_state(SpeedwayState, game.state)
            if state.phase == "lobby":  # killed while setting the game up: finish the setup
                for actor in PLAYERS[:2]:
                    if state.player(actor.id) is None:
                        await service.execute(channel, actor, parse("/game join"))
                await service.execute(channel, PLAYERS[0], parse("/game start"))
                continue
            (player,) = SPEEDWAY.acting_players(state)
            line = ai.choose_command(state, player, [a.command for a in SPEEDWAY.legal_actions(state, player)])
            actor = next(a for a in PLAYERS if a.id == player)
            reply = await service.execute(channel, actor, parse(line))
            if reply.outcome == "applied":
                print(f"ack {reply.game_id} {reply.version}", flush=True)

    await asyncio.gather(*(play(i, name) for i, name in enumerate(names)))


if __name__ == "__main__":
    asyncio.run(drive(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
