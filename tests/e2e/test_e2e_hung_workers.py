"""End to end: the bot's worker processes stopped (SIGSTOP), not killed (issue 23, item 4).

With every render process, the render zygote and the long-job process stopped, every command in every channel is still
answered within seconds: a move posts its map (drawn on a thread), `/game log` and `/game status` come
back, `/game verify` is answered or refused with "nothing was changed"; the stopped processes are
killed and replaced, play goes on at full speed, nothing is lost, and `pitboss verify` is clean.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from bot.table.jobs import zygote
from tests.conftest import process_ended, process_gone, run_pitboss
from tests.e2e.fake_discord import FakeChannel, snowflake
from tests.e2e.test_e2e_discord import assert_public_map, lobby_of_two, next_player, slash

ANSWERED_WITHIN = 120.0   # a bound, every command (the deadlines are 4 s a picture and 5 s a short long job)


def worker_pids(parent: int) -> list[int]:
    """The bot's worker processes: its spawned multiprocessing children (not its resource tracker) and what they
    forked (the render processes of the render zygote)."""
    children: dict[int, list[int]] = {}
    workers: set[int] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":   # ended, not yet reaped
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        if "spawn_main" in command and "resource_tracker" not in command:
            workers.add(int(entry.name))
    found, below = [], [pid for pid in children.get(parent, ()) if pid in workers]
    while below:
        pid = below.pop()
        found.append(pid)
        below += [child for child in children.get(pid, ()) if child in workers]
    return sorted(found)


# two render processes and the long-job process, and the render zygote that forks the render processes
WORKERS = 3 + zygote.available()


async def test_stopped_workers_freeze_no_channel_and_lose_nothing(fake, start_bot, record_latency):
    garage = FakeChannel("garage", snowflake(), 0, fake.guild_id)
    fake.channels["garage"] = garage
    bot = start_bot(env={"PITBOSS_RENDER_PROCESSES": "2"})
    channels = ("channel", "thread", "garage")
    movers, turns = {}, {}
    for seed, channel in enumerate(channels, start=3):
        await lobby_of_two(fake, record_latency, channel, seed=seed)
        turns[channel] = assert_public_map(await slash(fake, "alice", channel, "game start"), record_latency)
        movers[channel] = next_player(turns[channel])
    # the long-job process starts with the first long job (issue 28): one verify starts it
    verified = await slash(fake, "carol", "channel", "game verify")
    assert "rebuilds the table exactly" in verified.followups[-1].content
    for _ in range(300):   # the three workers (two render, one long-job) are up
        stopped = worker_pids(bot.proc.pid)
        if len(stopped) == WORKERS:
            break
        await asyncio.sleep(0.1)
    assert len(stopped) == WORKERS, stopped
    try:
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        began = time.monotonic()
        sent = []
        for channel in channels:
            sent.append((channel, "speed", await fake.send_slash(movers[channel], channel, "speed", {"value": "2"})))
            for command in ("game log", "game status", "game verify"):
                sent.append((channel, command, await fake.send_slash("carol", channel, command)))
        answers = await asyncio.gather(*(fake.responses(i, timeout=ANSWERED_WITHIN) for _c, _n, i in sent))
        took = time.monotonic() - began
        print(f"\nwith every worker stopped, the last of {len(sent)} commands was answered after {took:.1f} s")
        for (channel, command, _id), exchange in zip(sent, answers):
            if command == "speed":   # the turn's message, edited with the new map
                assert exchange.callback is not None and exchange.original_deleted, exchange.describe()
                turn = fake.message(turns[channel].message_id)
                assert "set speed 0 -> 2" in turn["content"] and turn["attachments"], turn
                continue
            assert exchange.callback is not None and exchange.followups, (channel, command, exchange.describe())
            said = " ".join(f.content for f in exchange.followups)
            if command == "game verify":
                assert "rebuilds the table exactly" in said or "nothing was changed" in said, said
            else:
                assert "Sorry" not in said, said
        for _ in range(int(ANSWERED_WITHIN * 10)):   # the zygote is found wedged when asked to fork (10 s)
            fresh = worker_pids(bot.proc.pid)
            if len(fresh) == WORKERS:
                break
            await asyncio.sleep(0.1)
        assert len(fresh) == WORKERS and not set(fresh) & set(stopped), (fresh, stopped)
        # killed, not left stopped: the zygote when asked for a render process in place of those killed; reaped by
        # the bot, or (a render process orphaned by its zygote's kill) left to init, which reaps in its own time
        owners = {bot.proc.pid, *fresh}
        assert all(process_ended(pid, owners) for pid in stopped), stopped
        for channel in channels:   # full speed again, on the new workers
            moved = assert_public_map(await slash(fake, movers[channel], channel, "move", maneuver="normal"),
                                      record_latency)
            assert f"{movers[channel]}: normal" in moved.content
            verified = await slash(fake, "carol", channel, "game verify")
            assert "rebuilds the table exactly" in verified.followups[-1].content
        log = bot.log_text()
        assert "gave no answer within" in log and "Traceback" not in log, bot.log_tail()
    finally:
        for pid in stopped:   # never leave a stopped process behind, whatever failed
            if not process_gone(pid):
                os.kill(pid, signal.SIGKILL)
    bot.stop()
    checked = run_pitboss("verify", "--db", str(bot.db), cwd=bot.workdir)
    assert checked.returncode == 0 and "3 games checked, 0 mismatches" in checked.stdout, checked.stdout
