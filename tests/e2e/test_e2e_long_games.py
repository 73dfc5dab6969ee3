"""End to end, the long way round: a whole game played to its winner by button presses only, and
a due reminder that is sent exactly once even when the bot is SIGKILLed around it.

Both run an unmodified `pitboss run` process against the fake Discord (see conftest.py). The tests
read the bot's SQLite file (WAL mode) to know the game's state; they write to it only to make a
reminder due at once (the `player_timers` table), as the clock would after the reminder delay.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rules.codec import decode_state
from rules.speedway import ai
from rules.speedway.ruleset import acting_players, legal_actions, turn_key
from rules.speedway.state import SpeedwayState
from tests.e2e.fake_discord import DEFERRED_UPDATE, EPHEMERAL, Exchange, FakeDiscord
from tests.e2e.test_e2e_discord import (
    EDITS,
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_png,
    assert_public_map,
    next_player,
    slash,
)

ROOT = Path(__file__).resolve().parents[2]

# Seed 331 on the Duel Pit, brawler (alice) against torch (bob), with the computer policy choosing
# every action: 121 presses, bob wins in round 10 (found by playing seeds 1-399 with the rules alone;
# all but one finish, most within 150-450 actions).
SEED = 331
ARENA = "duel"
CARS = {"alice": "brawler", "bob": "torch"}
MAX_PRESSES = 400  # a bound on the loop, far above the 121 this seed needs (not a round cap)
BUTTON_LIMIT = 25  # five rows of five
BUTTON_LABEL_LIMIT = 80

TICK_SECONDS = 0.5
REMINDER_TIMEOUT = 60.0  # a bound, not an expectation: a tick or two (0.5 s each), longer on a loaded machine
QUIET_TICKS = 6


# --------------------------------------------------------------------------------------------
# The bot's database, read (and for timers, written) from the outside
# --------------------------------------------------------------------------------------------


class Database:
    """A connection to the bot's SQLite file in autocommit mode: every SELECT sees the latest commit."""

    def __init__(self, path: Path):
        self.path = path
        self.connection = sqlite3.connect(path, timeout=15.0, isolation_level=None)
        self.connection.execute("PRAGMA busy_timeout = 15000")

    def close(self) -> None:
        self.connection.close()

    def one(self, sql: str, *params):
        return self.connection.execute(sql, params).fetchone()

    def game(self, game_id: int) -> tuple[int, str, SpeedwayState]:
        version, status, state = self.one("SELECT version, status, state FROM games WHERE id = ?", game_id)
        return version, status, decode_state(SpeedwayState, state)

    def turn_message(self, game_id: int) -> tuple[str, str] | None:
        return self.one("SELECT turn_key, message_id FROM turn_messages WHERE game_id = ?", game_id)

    def timer(self, game_id: int) -> tuple | None:
        return self.one("SELECT player, turn_key, reminder_due, deadline_due FROM player_timers WHERE game_id = ?",
                        game_id)

    def make_reminder_due(self, game_id: int) -> None:
        cursor = self.connection.execute("UPDATE player_timers SET reminder_due = 0 WHERE game_id = ?", (game_id,))
        assert cursor.rowcount == 1, "the game has no timer"


async def poll(check, timeout: float, what: str, interval: float = 0.01):
    """Call `check()` until it returns something truthy; bounded."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.1f}s waiting for {what}")
        await asyncio.sleep(interval)


def only_game_id(db: Database, channel_id: str) -> int:
    (game_id,) = db.one("SELECT id FROM games WHERE channel = ?", channel_id)
    return game_id


# --------------------------------------------------------------------------------------------
# Buttons
# --------------------------------------------------------------------------------------------


def all_buttons(message: dict) -> list[dict]:
    return [b for row in message.get("components") or [] for b in row["components"]]


def messages_with_action_buttons(fake: FakeDiscord, channel: str, game_id: int) -> list[dict]:
    """The channel's live messages that carry any of this game's action buttons (pb:GAME:...)."""
    channel_id = fake.channels[channel].id
    prefix = f"pb:{game_id}:"

    def collect(f: FakeDiscord) -> list[dict]:
        return [{"id": m["id"], "content": m["content"], "components": m["components"]}
                for m in f._messages.values()
                if m["channel_id"] == channel_id and not m.get("deleted") and not m["flags"] & EPHEMERAL
                and any(b.get("custom_id", "").startswith(prefix) for b in all_buttons(m))]
    return fake.snapshot(collect)


def press_finished(exchange: Exchange) -> bool:
    """Pressed: acknowledged, and then either the public update with the map arrived, or something
    went wrong (a refusal, an apology, a refused request) that the assertions will show."""
    if not exchange.callbacks:
        return False
    return bool(exchange.rejected or exchange.followups and any(f.ephemeral for f in exchange.followups)
                or any(r.files for r in exchange.requests))


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


async def test_a_two_player_game_is_played_to_the_end_with_buttons_only(fake, bot, record_latency):
    began = time.monotonic()
    created = assert_public_map(await slash(fake, "alice", "channel", "new speedway",
                                            seed=SEED, arena=ARENA), record_latency)
    assert "New Speedway game created by alice" in created.content
    for name in ("alice", "bob"):
        joined = assert_public_map(await slash(fake, name, "channel", "game join", car=CARS[name]), record_latency)
        assert f"{name} joined" in joined.content
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    assert "The game started" in started.content and next_player(started) in ("alice", "bob")

    db = Database(bot.db)
    try:
        game_id = only_game_id(db, fake.channels["channel"].id)
        names = {fake.users[n].id: n for n in ("alice", "bob")}
        latencies: list[float] = []
        presses = new_messages = edits = pings = mid_turn_pings = 0
        pings_before = len(fake.notifications())
        last: Exchange | None = None
        loop_began = time.monotonic()
        while True:
            version, status, state = db.game(game_id)
            if status == "finished":
                break
            assert presses < MAX_PRESSES, f"no winner after {presses} presses (round {state.round + 1})"

            # What to press: the computer policy's choice among the legal actions, from the stored state.
            (player,) = acting_players(state)
            legal = legal_actions(state, player)
            commands = [a.command for a in legal]
            assert 0 < len(legal) <= BUTTON_LIMIT, f"{len(legal)} legal actions, at most 25 buttons: {commands}"
            command = ai.choose_command(state, player, commands)
            index = commands.index(command)
            custom_id = f"pb:{game_id}:{version}:{index}"

            # The turn's latest message carries exactly the buttons of this version, one per legal action.
            (message,) = messages_with_action_buttons(fake, "channel", game_id)
            buttons = {b["custom_id"]: b for b in all_buttons(message)}
            assert sorted(buttons) == sorted(f"pb:{game_id}:{version}:{i}" for i in range(len(legal))), \
                (version, sorted(buttons), commands)
            expected_label = legal[index].label
            if len(expected_label) > BUTTON_LABEL_LIMIT:
                expected_label = expected_label[:BUTTON_LABEL_LIMIT - 1] + "…"
            assert buttons[custom_id]["label"] == expected_label, (buttons[custom_id], command)
            assert not buttons[custom_id].get("disabled")

            presser = names[player]
            interaction_id = await fake.click(presser, "channel", message["id"], custom_id)
            exchange = await fake.until(interaction_id, press_finished, timeout=RESPONSE_TIMEOUT,
                                        what=f"press {presses + 1}: {presser} {command} ({custom_id})")
            presses += 1

            # Acknowledged (how fast is printed below, not judged), without "thinking…" (type 6), and
            # accepted: one more action stored.
            assert exchange.callback.status == 200 and exchange.callback_type == DEFERRED_UPDATE, \
                exchange.describe()
            latencies.append(exchange.latency)
            assert not exchange.rejected, exchange.describe()
            assert not any(f.ephemeral for f in exchange.followups), exchange.describe()  # no refusal
            new_version = await poll(lambda: (v := db.game(game_id)[0]) > version and v, RESPONSE_TIMEOUT,
                                     f"version {version + 1}")
            assert new_version == version + 1, f"press {presses} stored {new_version - version} actions"
            _, _, after = db.game(game_id)
            # One message per turn: a new one (pinging the player now waited on) when the turn passed or
            # the game now waits on someone else (a ram's outcome, say); otherwise the same one, edited.
            # The end pings the other player still seated (issue 38, item 5), in a message of its own.
            waiting_after = acting_players(after)
            ended = after.phase == "finished"
            ping = next(p.id for p in after.players if p.id != player) if ended else \
                waiting_after[0] if waiting_after and waiting_after[0] != player else None
            words = "the game has ended." if ended else "your turn."
            expect_new = turn_key(after) != turn_key(state) or ping is not None

            # Exactly one public request carries the PNG: the turn's message edited, or a new turn's message.
            (record,) = [r for r in exchange.requests if r.files]
            assert record.kind in ("followup", *EDITS), exchange.describe()
            assert not int(record.body.get("flags") or 0) & EPHEMERAL
            # The table's PNG; the move that ends the game also carries every car's sheet.
            upload, *sheets = record.files
            assert_png(upload.data)
            assert len(sheets) == (1 if after.phase == "finished" else 0), exchange.describe()
            for attachment in record.body["attachments"]:
                assert (attachment.get("description") or "").strip()
            assert (record.kind == "followup") == expect_new, \
                f"press {presses} ({command}, turn {turn_key(state)} -> {turn_key(after)}):\n{exchange.describe()}"
            if record.kind == "followup":
                (followup,) = exchange.followups
                assert not followup.replaced_original and not followup.ephemeral
                shown_id = followup.message["id"]
                new_messages += 1
                if ping is not None:
                    assert record.body["content"].startswith(f"<@{ping}> {words}"), record.body["content"]
                    assert followup.notified == [ping]
                    pings += 1
                    mid_turn_pings += turn_key(after) == turn_key(state)
                else:
                    assert not record.body["content"].startswith("<@") and followup.notified == []
                # The bot remembers the new turn's message before the next press may edit it.
                await poll(lambda: (db.turn_message(game_id) or ("", ""))[1] == shown_id, RESPONSE_TIMEOUT,
                           f"turn message {shown_id} to be remembered")
                assert fake.message(message["id"])["components"] == []  # the old turn's buttons retired
            else:
                # the pressed message, edited through the press's own response, names no id in its path
                shown_id = exchange.original["id"] if record.kind == "edit_original" else record.path.rsplit("/", 1)[1]
                assert shown_id == message["id"], exchange.describe()
                edits += 1
            last = exchange
        loop_seconds = time.monotonic() - loop_began

        # The end: a winner, announced publicly, with no buttons left to press but the Rematch (issue 38 finding 14)
        # and the Review (issue 40 item 5).
        version, status, state = db.game(game_id)
        assert status == "finished" and state.phase == "finished"
        assert state.winner is not None and not state.ended_by, "the game must end with a winner, not a stop"
        winner = state.player(state.winner).name
        assert last is not None
        (final,) = [r for r in last.requests if r.files]
        banner = final.body["content"]
        assert f"{winner} WINS" in banner and f"Game over: {winner} wins." in banner, banner
        assert [b["label"] for b in all_buttons(final.body)] == ["Rematch", "Review"]
        assert messages_with_action_buttons(fake, "channel", game_id) == []
        (final_key, message_id) = db.turn_message(game_id)
        assert final_key == "finished" and f"{winner} WINS" in fake.message(message_id)["content"]
        (actions,) = db.one("SELECT COUNT(*) FROM actions WHERE game_id = ?", game_id)
        assert actions == 3 + presses  # two joins and the start, then one action per press
        assert version == actions  # no undo, so every change is one logged action
        assert len(fake.notifications()) == pings_before + pings  # edits never ping
    finally:
        db.close()

    # Every public map of the game came with exactly one accepted command or press.
    with_png = [r for r in fake.requests() if r.files]
    assert len(with_png) == 4 + presses  # /game new, two /game join, /game start, the presses

    # The stored game replays from its seed to the same snapshot, checked by the CLI.
    verified = subprocess.run([sys.executable, "-m", "bot", "verify", "--db", str(bot.db)], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "1 games checked, 0 mismatches" in verified.stdout, verified.stdout
    assert f"game {game_id} " in verified.stdout and "finished: replays to its snapshot" in verified.stdout

    assert_nothing_unexpected(fake, bot)
    record_latency(f"max over {presses} button presses", max(latencies))
    print(f"\nseed {SEED} on {ARENA}: {winner} won in round {state.round + 1} after {presses} presses "
          f"({edits} edits of the turn message, {new_messages} new messages, {pings} pings of which "
          f"{mid_turn_pings} mid-turn) in {loop_seconds:.1f}s "
          f"({loop_seconds / presses * 1000:.0f} ms a press); acknowledgements: median "
          f"{statistics.median(latencies) * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms; "
          f"whole test {time.monotonic() - began:.1f}s")


def reminders(fake: FakeDiscord, channel_id: str) -> list[dict]:
    """The bot's own posts in a channel (not interaction responses) that are reminders, oldest first."""
    return [{"body": r.body, "status": r.status, "message_id": (r.response or {}).get("id"), "at": r.at}
            for r in fake.requests("channel_post")
            if r.path == f"/channels/{channel_id}/messages" and "Reminder" in ((r.body or {}).get("content") or "")]


async def wait_for_reminders(fake: FakeDiscord, channel_id: str, count: int) -> list[dict]:
    def enough(f: FakeDiscord) -> bool:
        return len([r for r in f._requests if r.kind == "channel_post" and r.status == 200
                    and r.path == f"/channels/{channel_id}/messages"
                    and "Reminder" in ((r.body or {}).get("content") or "")]) >= count
    await fake.wait_for(enough, timeout=REMINDER_TIMEOUT, what=f"reminder number {count} in {channel_id}")
    return reminders(fake, channel_id)


def assert_reminder(fake: FakeDiscord, reminder: dict, user_id: str, name: str) -> None:
    content = reminder["body"]["content"]
    assert reminder["status"] == 200
    assert content.startswith(f"<@{user_id}>"), content
    assert f"Reminder: the game is waiting for {name}." in content, content
    mentions = reminder["body"]["allowed_mentions"]
    assert mentions["parse"] == [] and [str(u) for u in mentions["users"]] == [user_id], mentions
    # Exactly that one user is notified, by this new message.
    notified = [(m, u) for m, u in fake.notifications() if m == reminder["message_id"]]
    assert notified == [(reminder["message_id"], user_id)]


async def start_game(fake: FakeDiscord, record_latency, channel: str, host: str, guest: str, seed: int) -> str:
    """New game, host and guest join, host starts; returns the name of the player it waits on."""
    assert_public_map(await slash(fake, host, channel, "new speedway", seed=seed), record_latency)
    assert_public_map(await slash(fake, host, channel, "game join"), record_latency)
    assert_public_map(await slash(fake, guest, channel, "game join"), record_latency)
    started = assert_public_map(await slash(fake, host, channel, "game start"), record_latency)
    return next_player(started)


async def test_a_due_reminder_is_sent_exactly_once_across_a_sigkill(fake, start_bot, record_latency):
    bot = start_bot(env={"PITBOSS_TICK_SECONDS": str(TICK_SECONDS)})
    channel_id, thread_id = fake.channels["channel"].id, fake.channels["thread"].id
    waiting = await start_game(fake, record_latency, "channel", "alice", "bob", seed=7)
    user_id = fake.users[waiting].id
    # A second game in the thread is the control: its reminder shows the scheduler is running.
    control_waiting = await start_game(fake, record_latency, "thread", "carol", "bob", seed=8)
    control_user = fake.users[control_waiting].id

    db = Database(bot.db)
    try:
        game_id = only_game_id(db, channel_id)
        control_id = only_game_id(db, thread_id)
        player, turn_key, reminder_due, _deadline = db.timer(game_id)
        assert player == user_id and turn_key == f"0:{user_id}"
        assert reminder_due > time.time() + 11 * 3600  # the default: a reminder after 12 hours
        await asyncio.sleep(3 * TICK_SECONDS)
        assert reminders(fake, channel_id) == []  # nothing is due yet

        # Due now: the scheduler claims it and posts one reminder that pings the waiting player.
        db.make_reminder_due(game_id)
        made_due = time.monotonic()
        (first,) = await wait_for_reminders(fake, channel_id, 1)
        reminder_seconds = first["at"] - made_due
        assert_reminder(fake, first, user_id, waiting)
        assert db.timer(game_id)[2] is None  # claimed: cleared in the database
        await asyncio.sleep(QUIET_TICKS * TICK_SECONDS)
        assert len(reminders(fake, channel_id)) == 1

        # SIGKILL and restart: the claim survived, so the same turn is not reminded again, although
        # the scheduler demonstrably runs (it sends the control game's reminder made due meanwhile).
        await asyncio.to_thread(bot.restart, True)
        assert bot.alive and bot.starts == 2
        db.make_reminder_due(control_id)
        (control,) = await wait_for_reminders(fake, thread_id, 1)
        assert_reminder(fake, control, control_user, control_waiting)
        await asyncio.sleep(QUIET_TICKS * TICK_SECONDS)
        assert len(reminders(fake, channel_id)) == 1
        assert len(reminders(fake, thread_id)) == 1
        player, turn_key_after, reminder_due, _deadline = db.timer(game_id)
        assert (player, turn_key_after, reminder_due) == (user_id, turn_key, None)

        # Made due again while the bot is down: the due timer survives the restart, and is sent once.
        await asyncio.to_thread(bot.stop, True)
        assert not bot.alive
        db.make_reminder_due(game_id)
        await asyncio.to_thread(bot.start)
        restarted = time.monotonic()
        first_again, second = await wait_for_reminders(fake, channel_id, 2)
        assert first_again == first
        after_restart_seconds = second["at"] - restarted
        assert_reminder(fake, second, user_id, waiting)
        assert second["message_id"] != first["message_id"]
        await asyncio.sleep(QUIET_TICKS * TICK_SECONDS)
        assert len(reminders(fake, channel_id)) == 2
        assert len(reminders(fake, thread_id)) == 1
        assert db.timer(game_id)[2] is None
    finally:
        db.close()

    # Nothing else was posted on the bot's own initiative, and nobody else was pinged in the channel.
    posts = [r for r in fake.requests("channel_post") if r.path == f"/channels/{channel_id}/messages"]
    assert [r.body["content"].split("\n")[0] for r in posts] == [f"<@{user_id}> your turn."] * 2
    pinged = [u for m, u in fake.notifications() if fake.message(m)["channel_id"] == channel_id]
    assert pinged == [user_id] * 3  # the start's turn message and the two reminders
    assert_nothing_unexpected(fake, bot)
    print(f"\nreminder posted {reminder_seconds * 1000:.0f} ms after it fell due; after the restart "
          f"{after_restart_seconds * 1000:.0f} ms after READY; bot starts took "
          f"{', '.join(f'{s:.2f}s' for s in bot.startup_seconds)}")


async def test_two_shard_processes_on_one_database_serve_one_bot(fake, start_bot, record_latency, tmp_path):
    """`pitboss run --shards 0/2` and `--shards 1/2` share one database: the guild's shard plays the
    game, only shard 0 syncs the commands, and both schedulers race for due reminders, so each
    reminder must still be sent exactly once."""
    shared = tmp_path / "shared.db"
    env = {"PITBOSS_TICK_SECONDS": str(TICK_SECONDS)}
    first = start_bot(name="shard0", db=shared, env=env, args=("--shards", "0/2"))
    second = start_bot(name="shard1", db=shared, env=env, args=("--shards", "1/2"))
    assert len(fake.command_puts()) == 1  # only the process with shard 0 synced
    shards = sorted(tuple(i["shard"]) for i in fake.identifies() if "shard" in i)
    assert shards == [(0, 2), (1, 2)]

    channel_id, thread_id = fake.channels["channel"].id, fake.channels["thread"].id
    waiting = await start_game(fake, record_latency, "channel", "alice", "bob", seed=7)
    control_waiting = await start_game(fake, record_latency, "thread", "carol", "bob", seed=8)
    db = Database(shared)
    try:
        for channel, player in ((channel_id, waiting), (thread_id, control_waiting)):
            game_id = only_game_id(db, channel)
            for count in (1, 2, 3):  # made due three times while both schedulers run: three claims
                db.make_reminder_due(game_id)
                await wait_for_reminders(fake, channel, count)
            await asyncio.sleep(QUIET_TICKS * TICK_SECONDS)
            sent = reminders(fake, channel)
            assert len(sent) == 3, sent  # one reminder per claim, never one from each process
            for reminder in sent:
                assert_reminder(fake, reminder, fake.users[player].id, player)
        assert first.alive and second.alive
        for bot in (first, second):
            assert "Traceback" not in bot.log_text(), bot.log_tail()
    finally:
        db.close()
