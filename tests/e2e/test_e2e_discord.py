"""End to end: an unmodified `pitboss run` process, connected to the local fake Discord, played by
slash commands and buttons the way Discord delivers them (gateway INTERACTION_CREATE in, REST
callbacks, webhooks and channel-message edits out). See conftest.py for how discord.py is pointed
at the fake, fake_discord.py for what the fake checks (3-second deadline, single acknowledgement,
multipart bodies, command limits, who gets pinged).

How the bot shows an accepted action (bot/chat/views.py, "one message per turn"): it defers
(type 5, "thinking…"), then either fills the deferral with a follow-up that becomes the turn's
message (new game, new turn, status), or edits the turn's message in the channel and deletes the
deferral (another move in the same turn). Either way exactly one public request carries the PNG.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

import aiohttp
from PIL import Image

from rules.registry import ruleset_ids
from tests.e2e.fake_discord import (
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    EPHEMERAL,
    LOADING,
    PRIVILEGED_INTENTS,
    Exchange,
    FakeDiscord,
    HttpRecord,
    command_characters,
    command_problems,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A bound on every wait for the bot, not an expectation (normally ~0.2 s): on two cores shared with a dozen
# busy processes a heavy job takes tens of seconds. How fast the bot answers is the bench's to measure
# (`pitboss bench`, and the latency summary at the end of an e2e run); a test judges what it did.
RESPONSE_TIMEOUT = 120.0
EDITS = ("edit_original", "edit_followup", "channel_message_edit")   # the routes that edit a turn's message
USER_AGENT = re.compile(r"^DiscordBot \(https://github\.com/Rapptz/discord\.py 2\.\d+\.\d+\)")


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


@dataclass
class Shown:
    """The public map an accepted command produced."""

    via: str  # "followup" (a new turn message), or how the turn's message was edited: "edit_original" (the
    # pressed message, through its press), "edit_followup" (through the interaction that posted it, while
    # its token lives) or "channel_message_edit" (the channel route, bound by the global rate limit)
    record: HttpRecord
    message_id: str
    content: str
    description: str
    png: bytes
    buttons: dict[str, str]  # label -> custom_id


async def slash(fake: FakeDiscord, user: str, channel: str, command: str, **options: Any) -> Exchange:
    interaction_id = await fake.send_slash(user, channel, command, options)
    return await fake.responses(interaction_id, timeout=RESPONSE_TIMEOUT)


async def press(fake: FakeDiscord, user: str, channel: str, message_id: str, label: str) -> Exchange:
    buttons = buttons_of(fake.message(message_id))
    assert label in buttons, f"no button {label!r} on message {message_id}: {sorted(buttons)}"
    interaction_id = await fake.click(user, channel, message_id, buttons[label])
    return await fake.responses(interaction_id, timeout=RESPONSE_TIMEOUT)


def buttons_of(message: dict) -> dict[str, str]:
    return {b["label"]: b["custom_id"] for row in message.get("components") or [] for b in row["components"]}


def assert_acknowledged(exchange: Exchange, record_latency, kind: int = DEFERRED_CHANNEL_MESSAGE,
                                body_keys: tuple[str, ...] = ("type",)) -> None:
    assert exchange.callback is not None, exchange.describe()
    assert exchange.callback.status == 200, exchange.describe()
    assert exchange.callback.body["type"] == kind, exchange.describe()
    assert sorted(exchange.callback.body) == sorted(body_keys), exchange.describe()
    assert exchange.callback.query == {"with_response": "1"}
    label = {2: f"/{exchange.command}", 3: exchange.command, 4: f"autocomplete /{exchange.command}"}
    record_latency(f"{exchange.user} {label.get(exchange.type, exchange.command)}", exchange.latency)


def assert_png(data: bytes) -> None:
    assert data.startswith(PNG_SIGNATURE)
    with Image.open(io.BytesIO(data)) as image:
        image.verify()


def assert_public_map(exchange: Exchange, record_latency, kind: int = DEFERRED_CHANNEL_MESSAGE,
                      title: str = "Speedway") -> Shown:
    """Accepted: acknowledged at once, then exactly one public request with the PNG map and alt text,
    and no "thinking…" message left behind."""
    assert_acknowledged(exchange, record_latency, kind)
    assert not exchange.rejected, exchange.describe()
    with_files = [r for r in exchange.requests if r.files]
    assert len(with_files) == 1, exchange.describe()
    (record,) = with_files
    assert record.kind in ("followup", *EDITS), exchange.describe()
    body = record.body
    assert not int(body.get("flags") or 0) & EPHEMERAL
    assert body.get("allowed_mentions") is not None  # never discord.py's default of "ping everything"
    (attachment,) = body["attachments"]
    (upload,) = record.files
    assert upload.field == "files[0]" and attachment["id"] == 0
    assert attachment["filename"] == upload.filename and upload.filename.endswith(".png")
    assert_png(upload.data)
    description = attachment.get("description") or ""
    assert description.strip() and title in description and len(description) <= 1024
    if record.kind == "followup":
        (followup,) = [f for f in exchange.followups if f.record.at == record.at]
        message = followup.message
        if kind == DEFERRED_CHANNEL_MESSAGE:
            # Either the follow-up fills in the placeholder (a read such as /game status), or the
            # placeholder is deleted first so a turn's new message can ping: never both, never neither.
            assert followup.replaced_original != exchange.original_deleted, exchange.describe()
    else:
        message_id = record.path.rsplit("/", 1)[1]
        if record.kind == "edit_original":   # a press edits the message it is on through its own response
            assert kind == DEFERRED_UPDATE and exchange.original is not None, exchange.describe()
            message_id = exchange.original["id"]
        message = exchange.original if kind == DEFERRED_UPDATE else None
        if kind == DEFERRED_CHANNEL_MESSAGE:
            assert exchange.original_deleted, exchange.describe()  # the deferral does not linger
            assert not exchange.followups
        message = {"id": message_id, **(message or {})}
    if exchange.original is not None and not exchange.original_deleted:
        assert not exchange.original["flags"] & LOADING, exchange.describe()
    buttons = {b["label"]: b["custom_id"] for row in body.get("components") or [] for b in row["components"]}
    return Shown(record.kind, record, message["id"], body.get("content") or "", description, upload.data, buttons)


def assert_private_refusal(exchange: Exchange, record_latency, text: str | None = None,
                           kind: int = CHANNEL_MESSAGE) -> str:
    """Refused, and nothing public ever shown (issue 25, item 4): a slash command is answered privately in
    its one response, with no public "thinking…" before it; a button's press is acknowledged silently
    (type 6) and refused in an ephemeral follow-up. The refusal's words are returned."""
    if kind == CHANNEL_MESSAGE:
        assert_acknowledged(exchange, record_latency, kind, body_keys=("type", "data"))
        assert exchange.kinds == ["callback"], exchange.describe()
        data = exchange.callback.body["data"]
        assert data["flags"] & EPHEMERAL and not exchange.callback.files, exchange.describe()
        content = data["content"]
    else:
        assert_acknowledged(exchange, record_latency, kind)
        assert exchange.kinds == ["callback", "followup"], exchange.describe()
        (followup,) = exchange.followups
        assert followup.requested_flags & EPHEMERAL
        assert followup.ephemeral and not followup.replaced_original
        assert not followup.files and not followup.attachments
        content = followup.content
    assert not exchange.rejected, exchange.describe()
    if text is not None:
        assert content == text
    return content


async def stand_still(fake: FakeDiscord, user: str, record_latency) -> Shown:
    """`user` sets speed 0 and, offered the drop a car standing still may make (Speedway revision 6), ends the
    turn: the shown message that passes it on."""
    shown = assert_public_map(await slash(fake, user, "channel", "speed", value="0"), record_latency)
    if "/end the turn" in shown.content.rsplit("Next:", 1)[-1]:
        shown = assert_public_map(await slash(fake, user, "channel", "end"), record_latency)
    return shown


def next_player(shown: Shown) -> str:
    match = re.search(r"Next: Round \d+, (\w+):", shown.content)
    assert match, shown.content
    return match.group(1)


def assert_nothing_unexpected(fake: FakeDiscord, bot) -> None:
    assert fake.unexpected() == []
    assert "Traceback" not in bot.log_text(), bot.log_tail()
    assert fake.token not in bot.log_text(), "the bot token reached the log"


async def lobby_of_two(fake: FakeDiscord, record_latency, channel: str = "channel", seed: int = 7) -> Shown:
    created = assert_public_map(await slash(fake, "alice", channel, "new speedway", seed=seed),
                                record_latency)
    assert "New Speedway game created by alice" in created.content
    joined = assert_public_map(await slash(fake, "alice", channel, "game join"), record_latency)
    assert "alice joined" in joined.content
    joined = assert_public_map(await slash(fake, "bob", channel, "game join"), record_latency)
    assert "bob joined" in joined.content
    return joined


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


def test_startup_syncs_commands_within_discord_limits(fake, bot):
    (put,) = fake.command_puts()
    assert put.path == f"/applications/{fake.app_id}/commands"  # global: `pitboss run` without --guild
    assert put.status == 200
    commands = put.body
    for command in commands:
        assert command_problems(command, total_limit=4000) == [], command
        assert command_characters(command) < 4000
    assert len([c for c in commands if c.get("type", 1) == 1]) <= 100
    by_name = {c["name"]: c for c in commands}
    assert {"game", "new", "speed", "move", "skid", "fire", "end"} <= set(by_name)
    subcommands = {o["name"]: o for o in by_name["game"]["options"]}
    assert {name: o["type"] for name, o in subcommands.items() if o["type"] != 1} == {"seat": 2}  # groups
    assert {"join", "start", "status", "end"} <= set(subcommands) and "new" not in subcommands
    assert len(subcommands) <= 25
    rooms = {o["name"]: o for o in by_name["new"]["options"]}  # /new <game>: each game its own room
    assert set(rooms) == set(ruleset_ids()) and all(o["type"] == 1 for o in rooms.values())
    assert {o["name"] for o in rooms["speedway"]["options"]} == {"seed", "thread", "public", "arena", "rounds"}
    (value,) = by_name["speed"]["options"]
    # Speedway's speed is a number, Battlecars' also R or 3PT: one Discord option, text suggested by
    # the channel's game, that each game then reads as its own (an int for Speedway).
    assert value["type"] == 3 and value["required"] and value["autocomplete"]

    # The fake holds the synced commands with ids, as Discord would.
    assert {c["name"] for c in fake.synced_commands()} == set(by_name)
    assert fake.synced_commands(guild=True) == []

    # The redirect is complete: every REST call is the bot's own, to the fake, with its token ...
    for request in fake.requests():
        assert request.headers.get("Authorization") == f"Bot {fake.token}", request
        assert USER_AGENT.match(request.headers.get("User-Agent", "")), request.headers
    # ... and the gateway session asked for no privileged intent (the README promises none is needed).
    (identify,) = fake.identifies()
    assert identify["intents"] & sum(PRIVILEGED_INTENTS.values()) == 0
    assert identify["token"] == fake.token

    assert_nothing_unexpected(fake, bot)


async def test_a_game_played_by_slash_commands(fake, bot, record_latency):
    lobby = await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    assert "The game started" in started.content
    active = next_player(started)
    assert active in ("alice", "bob")
    # A new turn gets a new message that names the player it waits on (and allows pinging only them).
    assert started.via == "followup" and started.message_id != lobby.message_id
    active_id = fake.users[active].id
    assert started.content.startswith(f"<@{active_id}> your turn.")
    mentions = started.record.body["allowed_mentions"]
    assert mentions["parse"] == [] and [str(u) for u in mentions["users"]] == [active_id]
    assert {"Speed 0", "Speed 2"} <= set(started.buttons)
    # The placeholder was deleted first, so this is a new message and the ping really notifies.
    assert fake.notifications() == [(started.message_id, active_id)]

    speed = assert_public_map(await slash(fake, active, "channel", "speed", value="2"), record_latency)
    assert f"{active} set speed 0 -> 2" in speed.content
    # While typing /move, Discord asks for suggestions; they cannot be deferred and must come at once.
    asked = await fake.autocomplete(active, "channel", "move", {"maneuver": ""}, focused="maneuver")
    suggestions = await fake.responses(asked, timeout=RESPONSE_TIMEOUT)
    assert_acknowledged(suggestions, record_latency, kind=AUTOCOMPLETE_RESULT,
                                body_keys=("type", "data"))
    choices = suggestions.callback.body["data"]["choices"]
    assert 1 <= len(choices) <= 25 and all(1 <= len(c["name"]) <= 100 for c in choices)
    assert "normal" in [c["value"] for c in choices]
    move = assert_public_map(await slash(fake, active, "channel", "move", maneuver="normal"), record_latency)
    assert f"{active}: normal" in move.content
    assert "speed 2" in move.description
    # Moves within the turn edit the turn's message, through the interaction that posted it (its token
    # lives 15 minutes): no request of the global rate limit.
    assert speed.via == move.via == "edit_followup"
    assert speed.message_id == move.message_id == started.message_id

    # What the channel shows: the lobby message (buttons retired) and the turn message, now with the
    # latest map; no leftover "thinking…", nothing private.
    public = fake.channel_messages("channel")
    assert [m["id"] for m in public] == [lobby.message_id, started.message_id]
    assert all(not m["flags"] & (EPHEMERAL | LOADING) for m in public)
    assert public[0]["components"] == []
    turn = public[1]
    (attachment,) = turn["attachments"]
    assert attachment["description"] == move.description
    assert fake.file_bytes(turn["id"], attachment["id"]) == move.png
    assert turn["content"] == move.content
    callbacks_and_webhooks = fake.requests("callback") + fake.requests("followup")
    assert all("Authorization" not in r.headers for r in callbacks_and_webhooks)  # the token is in the URL
    assert_nothing_unexpected(fake, bot)


async def test_refusals_are_ephemeral(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)

    refused = await slash(fake, "bob", "channel", "game start")
    assert_private_refusal(refused, record_latency, "Only the host can start the game.")

    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    other = "bob" if active == "alice" else "alice"
    out_of_turn = await slash(fake, other, "channel", "speed", value="2")
    assert_private_refusal(out_of_turn, record_latency, f"It is {active}'s turn, not yours.")
    # The same through a button: acknowledged without "thinking…" (type 6), refused privately.
    pressed = await press(fake, other, "channel", started.message_id, "Speed 2")
    said = assert_private_refusal(pressed, record_latency, kind=DEFERRED_UPDATE)
    assert said.startswith(f"The table waits for {active}, not for you. Next: Round 1, {active}"), said

    # Only the refused players see the refusals; the channel keeps its two public messages.
    public = fake.channel_messages("channel")
    assert len(public) == 2 and not any("Only the host" in m["content"] or "not yours" in m["content"]
                                        for m in public)
    assert any("Only the host" in m["content"] for m in fake.channel_messages("channel", viewer="bob"))
    assert fake.message(started.message_id)["content"] == started.content  # untouched
    assert_nothing_unexpected(fake, bot)


async def test_a_thread_has_its_own_game(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency, channel="channel", seed=7)
    thread = fake.channels["thread"]

    created = await slash(fake, "carol", "thread", "new speedway", seed=8)
    assert "New Speedway game created by carol" in assert_public_map(created, record_latency).content
    assert created.payload["channel"]["type"] == 11
    assert created.payload["channel"]["parent_id"] == fake.channels["channel"].id
    joined = assert_public_map(await slash(fake, "carol", "thread", "game join"), record_latency)
    assert "carol joined" in joined.content
    assert joined.via == "edit_followup"   # through the interaction that posted the thread's lobby message
    assert fake.message(joined.message_id)["channel_id"] == thread.id  # the thread's own message

    # The host of the channel's game is not the host in the thread, and the games do not mix.
    refused = await slash(fake, "alice", "thread", "game start")
    assert_private_refusal(refused, record_latency, "Only the host can start the game.")
    channel_status = assert_public_map(await slash(fake, "bob", "channel", "game status"), record_latency)
    thread_status = assert_public_map(await slash(fake, "bob", "thread", "game status"), record_latency)
    assert "Lobby: 2 seated" in channel_status.content and "carol" not in channel_status.content
    assert "Lobby: 1 seated" in thread_status.content and "carol" in thread_status.content

    assert {m["channel_id"] for m in fake.channel_messages("thread")} == {thread.id}
    assert len(fake.channel_messages("thread")) == 2  # the thread's lobby message and its status
    with sqlite3.connect(f"file:{bot.db}?mode=ro", uri=True) as db:
        games = db.execute("SELECT channel, host, seed, status FROM games ORDER BY id").fetchall()
    assert games == [(fake.channels["channel"].id, fake.users["alice"].id, 7, "active"),
                     (thread.id, fake.users["carol"].id, 8, "active")]
    assert_nothing_unexpected(fake, bot)


async def test_the_game_survives_sigkill_and_restart(fake, bot, restart_bot, record_latency):
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    before = assert_public_map(await slash(fake, "carol", "channel", "game status"), record_latency)

    await restart_bot(sigkill=True)
    assert bot.alive and bot.starts == 2
    for _ in range(50):  # the killed process's socket closes at once; allow the fake a moment to see it
        sessions = fake.sessions()
        if sessions[0]["closed"]:
            break
        await asyncio.sleep(0.1)
    assert len(sessions) == 2 and sessions[0]["closed"] and not sessions[1]["closed"]
    assert len(fake.identifies()) == 2  # a fresh IDENTIFY, not a RESUME, after a crash

    after = assert_public_map(await slash(fake, "carol", "channel", "game status"), record_latency)
    assert after.content == before.content and f"Round 1, {active}" in after.content
    assert after.description == before.description
    assert after.png == before.png  # the same table, rendered again

    # Unchanged commands are not synced again on restart (Discord allows 200 creates a day).
    assert len(fake.command_puts()) == 1
    assert [r.path for r in fake.requests() if r.method == "GET"] == ["/users/@me", "/oauth2/applications/@me"] * 2

    # A button drawn before the crash still works (a DynamicItem keyed by game and version: the status asked
    # since, now the turn's live message, carries the very ids drawn before it) ...
    assert after.buttons == before.buttons
    # (the buttons are taken off the status asked before in the bot's own time: waited for, bounded; at load
    # ~7 they came off after the answer had settled)
    await fake.wait_for(lambda f: not buttons_of(f._messages[before.message_id]), timeout=RESPONSE_TIMEOUT,
                        what="the buttons taken off the status asked before the crash")
    pressed = assert_public_map(await press(fake, active, "channel", after.message_id, "Speed 2"),
                                record_latency, kind=DEFERRED_UPDATE)
    assert f"{active} set speed 0 -> 2" in pressed.content
    # (edited through the press's own interaction: the message it is on)
    assert pressed.via == "edit_original" and pressed.message_id == after.message_id
    # ... and play goes on by slash command too.
    move = assert_public_map(await slash(fake, active, "channel", "move", maneuver="normal"), record_latency)
    assert f"{active}: normal" in move.content
    assert_nothing_unexpected(fake, bot)


async def test_buttons_play_a_turn_and_ping_the_next_player_once(fake, bot, record_latency):
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    other = "bob" if active == "alice" else "alice"
    turn = started.message_id

    speed = assert_public_map(await press(fake, active, "channel", turn, "Speed 1"), record_latency,
                              kind=DEFERRED_UPDATE)
    assert "Moves left" in speed.content or "Move left" in speed.content
    pressed = assert_public_map(await press(fake, active, "channel", turn, "normal"), record_latency,
                                kind=DEFERRED_UPDATE)
    assert f"{active}: normal" in pressed.content
    # The turn passed: the old message loses its buttons, a new message pings the next player, once.
    assert pressed.via == "followup" and pressed.message_id != turn
    assert pressed.content.startswith(f"<@{fake.users[other].id}> your turn.")
    assert fake.message(turn)["components"] == []
    pings = [(m, u) for m, u in fake.notifications() if m != started.message_id]
    assert pings == [(pressed.message_id, fake.users[other].id)]

    # A stale button (two presses of the same version) is refused privately, the first one wins.
    buttons = buttons_of(fake.message(pressed.message_id))
    first_id = await fake.click(other, "channel", pressed.message_id, buttons["Speed 1"])
    second_id = await fake.click(other, "channel", pressed.message_id, buttons["Speed 2"])
    second = await fake.quiet(second_id, min_requests=2, settle=0.5, timeout=RESPONSE_TIMEOUT)
    first = await fake.exchange(first_id)
    assert first.callback.status == 200 and second.callback.status == 200
    assert not first.followups  # applied by editing the turn message
    (refusal,) = second.followups
    assert refusal.ephemeral and "out of date" in refusal.content
    assert f"{other} set speed 0 -> 1" in fake.message(pressed.message_id)["content"]
    assert_nothing_unexpected(fake, bot)


async def test_guild_sync_and_guild_scoped_interactions(fake, start_bot, record_latency):
    bot = start_bot(guild=True)
    (put,) = fake.command_puts()
    assert put.path == f"/applications/{fake.app_id}/guilds/{fake.guild_id}/commands"
    assert fake.synced_commands() == [] and {c["name"] for c in fake.synced_commands(guild=True)} >= {"game"}

    created = await slash(fake, "admin", "channel", "new speedway", seed=3)
    assert created.payload["data"]["guild_id"] == fake.guild_id  # discord.py looks guild commands up by it
    assert_public_map(created, record_latency)
    # A server admin (Manage Server through a role) may end anyone's game; a plain member may not.
    assert_private_refusal(await slash(fake, "carol", "channel", "game end"), record_latency)
    ended = assert_public_map(await slash(fake, "admin", "channel", "game end"), record_latency)
    assert ended.content.strip()
    assert_nothing_unexpected(fake, bot)


async def test_gateway_reconnect_resumes_the_session(fake, bot, record_latency):
    first = fake.sessions()[0]
    resumed = await fake.reconnect(timeout=RESPONSE_TIMEOUT)  # op 7, as Discord sends now and then
    assert resumed["session_id"] == first["session_id"]
    assert 6 in resumed["ops"] and 2 not in resumed["ops"]  # RESUME, no new IDENTIFY
    assert len(fake.identifies()) == 1
    exchange = await slash(fake, "alice", "channel", "new speedway", seed=1)
    assert_public_map(exchange, record_latency)
    assert_nothing_unexpected(fake, bot)


async def test_late_and_duplicate_acknowledgements_are_refused_like_discord(fake, bot, record_latency):
    # Late: with the deadline at zero every acknowledgement is late, as if the bot had stalled for 3 s.
    fake.deadline = 0.0
    late_id = await fake.send_slash("alice", "channel", "game status")
    late = await fake.quiet(late_id, min_requests=1, settle=0.5, timeout=RESPONSE_TIMEOUT)
    fake.deadline = 3.0
    assert late.callbacks and all(r.status == 404 and r.response["code"] == 10062 for r in late.callbacks), \
        late.describe()
    assert not late.followups

    # The bot keeps serving, and a second acknowledgement of the same interaction (say, a second
    # process running the same token) gets 400 code 40060.
    exchange = await slash(fake, "alice", "channel", "game status")
    assert_private_refusal(exchange, record_latency,
                           "No game is running in this channel. Create one with /new speedway "
                           f"(games: {', '.join(ruleset_ids())}).")
    url = f"{fake.url}/api/v10/interactions/{exchange.id}/{exchange.token}/callback"
    async with aiohttp.ClientSession() as session, \
            session.post(url, params={"with_response": "1"}, json={"type": 5}) as response:
        assert response.status == 400
        assert response.headers["Content-Type"] == "application/json"
        assert (await response.json())["code"] == 40060

    refused = fake.unexpected()
    assert all("10062 Unknown interaction" in line or "40060" in line for line in refused), refused
    assert any("40060" in line for line in refused)
    assert bot.alive


async def test_the_bot_and_eight_exec_processes_race_for_one_move(fake, bot, record_latency):
    """The running bot and eight `pitboss exec` processes on its database send the same move at once:
    exactly one is applied, every other is refused cleanly, and nobody sees "database is locked"."""
    import sys

    from tests.conftest import ROOT

    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    user_id, channel_id = fake.users[active].id, fake.channels["channel"].id

    async def exec_speed() -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "exec", "--db", str(bot.db), "--channel", channel_id, "--user", user_id,
            "/speed value:3", cwd=bot.workdir, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
        return proc.returncode, (out + err).decode()

    async def slash_speed() -> Exchange:
        return await slash(fake, active, "channel", "speed", value="3")

    results = await asyncio.gather(slash_speed(), *(exec_speed() for _ in range(8)))
    exchange, execs = results[0], results[1:]
    applied_by_exec = sum(code == 0 for code, _out in execs)
    applied_by_bot = int(any(not f.ephemeral for f in exchange.followups) or any(r.files for r in exchange.requests))
    assert applied_by_exec + applied_by_bot == 1, (execs, exchange.describe())
    for code, out in execs:
        assert code in (0, 1) and "locked" not in out and "Traceback" not in out, out
        if code == 1:
            assert out.startswith("refused: "), out
    if not applied_by_bot:
        (refusal,) = exchange.followups
        assert refusal.ephemeral and "locked" not in refusal.content
    status = assert_public_map(await slash(fake, "carol", "channel", "game status"), record_latency)
    assert f"{active} set speed 0 -> 3" in status.content or "speed 3" in status.description
    assert_nothing_unexpected(fake, bot)


async def test_a_previewed_plan_is_confirmed_from_its_private_message(fake, bot, record_latency):
    """`/move plan:… preview:yes` shows the path privately with Confirm and Cancel; Confirm drives it, the
    preview says so, and the move is posted to the channel."""
    await lobby_of_two(fake, record_latency)
    active = next_player(assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency))
    assert_public_map(await slash(fake, active, "channel", "speed", value="1"), record_latency)
    shown = await slash(fake, active, "channel", "move", plan="normal", preview="yes")
    # answered privately from the first moment, however late the interaction reached the bot: nothing public
    # before it, not even a "thinking…" (issue 25, item 4)
    assert shown.callback.body == {"type": DEFERRED_CHANNEL_MESSAGE, "data": {"flags": EPHEMERAL}}, shown.describe()
    assert len(shown.followups) == 1 and shown.followups[0].ephemeral, shown.describe()
    preview = shown.followups[0].message
    assert preview["flags"] & EPHEMERAL and shown.followups[0].record.files, shown.describe()
    buttons = buttons_of(preview)
    assert set(buttons) == {"Confirm", "Cancel"}, buttons
    confirmed = await fake.responses(await fake.click(active, "channel", preview, buttons["Confirm"]),
                                     timeout=RESPONSE_TIMEOUT)
    assert confirmed.callback.body["type"] == DEFERRED_UPDATE, confirmed.describe()
    assert fake.message(preview["id"])["content"] == "Plan confirmed."
    public = [m for m in fake.channel_messages("channel") if f"{active}: normal" in (m.get("content") or "")]
    assert public and not public[-1]["flags"] & EPHEMERAL
    assert_nothing_unexpected(fake, bot)


async def test_a_private_answer_leaves_no_public_trace(fake, bot, record_latency):
    """Issue 25, item 4: a query answered privately (/odds, the log, a sheet) is acknowledged privately from
    the first moment, and a refusal is answered privately in the interaction's one response; neither puts
    anything in the channel, not even a "thinking…" that is deleted later. A sheet asked for publicly is
    the channel's."""
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    active = next_player(started)
    # issue 26, item 2: the turn message says when the waited-on player is reminded, as Discord's moments
    assert re.search(rf"⏰ {active}: reminder <t:(\d+):f> \(<t:\1:R>\), no deadline\.", started.content), \
        started.content
    before = len(fake.public_history("channel"))
    for command, options in (("odds", {"weapon": "front"}), ("game log", {}), ("game sheet", {}),
                             ("game verify", {}), ("games", {}), ("help", {}), ("help", {"command": "move"}),
                             ("game catchup", {}), ("rules", {"topic": "skid"})):
        asked = await fake.responses(await fake.send_slash(active, "channel", command, options),
                                     timeout=RESPONSE_TIMEOUT)
        assert asked.callback.body == {"type": 5, "data": {"flags": 64}}, asked.describe()
        assert asked.followups and all(f.ephemeral for f in asked.followups), asked.describe()
        assert not asked.original_deleted, asked.describe()
        if command == "help":   # issue 26, item 5: what the asker can do now, or one command explained
            said = asked.followups[0].content
            assert ("You can now:" in said) if not options else said.startswith("`/move`:"), said
    other = "bob" if active == "alice" else "alice"
    assert_private_refusal(await slash(fake, other, "channel", "speed", value="2"), record_latency,
                           f"It is {active}'s turn, not yours.")
    assert_private_refusal(await slash(fake, "carol", "channel", "game end"), record_latency)
    assert len(fake.public_history("channel")) == before   # nothing public, not even for a moment
    shown = await slash(fake, active, "channel", "game sheet", public="true")
    assert shown.callback.body == {"type": 5}, shown.describe()
    assert len(fake.public_history("channel")) > before
    assert_nothing_unexpected(fake, bot)


async def test_the_turn_message_keeps_every_action_of_the_turn(fake, bot, record_latency):
    """Issue 25, item 1: each action of a turn is added to the turn's one message (the channel keeps the
    whole turn, not only its last action), which ends with what the game waits on now; the moves ping
    nobody, and a new turn starts a new message with its one ping."""
    await lobby_of_two(fake, record_latency)
    active = next_player(assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency))
    sped = assert_public_map(await slash(fake, active, "channel", "speed", value="3"), record_latency)
    pings = len(fake.notifications())
    for _ in range(2):
        assert_public_map(await slash(fake, active, "channel", "move", maneuver="normal"), record_latency)
    message = fake.message(sped.message_id)
    content = message["content"]
    assert "The game started." in content and f"{active} set speed 0 -> 3." in content, content
    assert content.count(f"{active}: normal") == 2, content
    closing = content.rstrip().splitlines()[-2:]   # what waits now, and when its player is reminded
    assert closing[0].startswith("Next: ") and closing[1].startswith("⏰ ") and content.count("Next: ") == 1, content
    assert len(fake.notifications()) == pings        # adding to the turn's message pings nobody
    assert_nothing_unexpected(fake, bot)


async def test_a_players_own_clock_and_their_pause_announced_in_each_game(fake, bot, record_latency):
    """Issue 26, item 3: /me settings offers time zones as the player types and keeps what they chose,
    privately; /me away pauses their games in the channel and in the thread, each told in its own
    channel by a message of its own, without a ping; /me back says so in both."""
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    await slash(fake, "alice", "thread", "new speedway", seed=8)
    await slash(fake, "alice", "thread", "game join")
    await slash(fake, "bob", "thread", "game join")
    assert_public_map(await slash(fake, "alice", "thread", "game start"), record_latency)

    asked = await fake.autocomplete("alice", "channel", "me settings", {"time_zone": "paris"}, focused="time_zone")
    offered = (await fake.responses(asked, timeout=RESPONSE_TIMEOUT)).callback.body["data"]["choices"]
    assert [c["value"] for c in offered] == ["Europe/Paris"]
    before = {where: len(fake.public_history(where)) for where in ("channel", "thread")}
    pings = len(fake.notifications())
    saved = await slash(fake, "alice", "channel", "me settings", time_zone="Europe/Paris", away="23-07")
    assert saved.callback.body == {"type": 5, "data": {"flags": 64}}, saved.describe()
    assert saved.followups[0].ephemeral and saved.followups[0].content.startswith("Saved. Time zone: Europe/Paris")

    away = await slash(fake, "alice", "channel", "me away", hours=24)
    assert away.followups[0].ephemeral and away.followups[0].content.startswith("You are away in 2 games")
    for where in ("channel", "thread"):
        posted = fake.public_history(where)[before[where]:]
        assert [m["content"].split(" until ")[0] for m in posted] == ["alice is away (/me away)"], posted
    back = await slash(fake, "alice", "thread", "me back")
    assert back.followups[0].content == "Welcome back: your clock runs again in 2 games."
    for where in ("channel", "thread"):
        assert fake.public_history(where)[-1]["content"] == \
            "alice is back: their reminders and deadlines in this game run again."
    assert len(fake.notifications()) == pings
    assert_nothing_unexpected(fake, bot)


async def test_a_seat_offered_to_a_member_is_taken_with_its_button(fake, bot, record_latency):
    """Issue 26, item 4: /game seat give names a member (Discord's user option); the channel's message
    pings that member alone with a "Take the seat" button; another member's press is refused privately;
    their press hands them the seat, and the game's next ping goes to them, never to the old holder."""
    await lobby_of_two(fake, record_latency)
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    mover = next_player(started)
    carol = fake.users["carol"].id
    offered = assert_public_map(await slash(fake, mover, "channel", "game seat give", to="carol"), record_latency)
    assert offered.content.startswith(f"<@{carol}> a seat is offered to you."), offered.content
    assert [str(u) for u in offered.record.body["allowed_mentions"]["users"]] == [carol]
    assert "Take the seat" in offered.buttons
    refused = await press(fake, "admin", "channel", offered.message_id, "Take the seat")
    assert_private_refusal(refused, record_latency, "No seat here is offered to you.", kind=DEFERRED_UPDATE)
    pings = len(fake.notifications())
    taken = assert_public_map(await press(fake, "carol", "channel", offered.message_id, "Take the seat"),
                              record_latency, kind=DEFERRED_UPDATE)
    assert f"takes {mover}'s seat" in taken.content
    # carol plays the seat's turn (speed 0 ends it), the other player theirs, and the next ping is carol's:
    # never the old holder's
    shown = await stand_still(fake, "carol", record_latency)
    for _ in range(6):   # the seat is still called mover; whoever the table waits on sets speed 0
        if carol in [user for _message, user in fake.notifications()[pings:]]:
            break
        waited = next_player(shown)
        shown = await stand_still(fake, "carol" if waited == mover else waited, record_latency)
    pinged = [user for _message, user in fake.notifications()[pings:]]
    assert carol in pinged and fake.users[mover].id not in pinged, pinged

    other = "bob" if mover == "alice" else "alice"
    # issue 38, item 9: each seat change answers in a message of its own, saying who holds the seat now
    handed = assert_public_map(await slash(fake, other, "channel", "game seat computer"), record_latency)
    assert handed.via == "followup" and f"{other} gives their seat to the computer" in handed.content
    assert handed.content.startswith(f"Seat change: the computer plays {other}'s seat now"), handed.content
    back = assert_public_map(await slash(fake, other, "channel", "game seat take"), record_latency)
    assert back.via == "followup" and f"{other} takes their seat back from the computer." in back.content
    # a resignation asks first, privately; its Resign for good button resigns
    asked = await slash(fake, "carol", "channel", "game resign")
    assert asked.callback_type == CHANNEL_MESSAGE and asked.original["flags"] & EPHEMERAL, asked.describe()
    assert "Nothing has changed yet" in asked.original["content"] and not asked.followups
    pressed = await fake.click("carol", "channel", asked.original, buttons_of(asked.original)["Resign for good"])
    gone = await fake.responses(pressed, timeout=RESPONSE_TIMEOUT)
    (posted,) = [r for r in gone.requests if r.files]   # the last map, and the final sheets
    said = posted.body["content"]
    assert f"{mover} resigned." in said and f"{other} wins" in said and len(posted.files) == 2, said
    assert fake.message(asked.original["id"])["content"] == "Resigned: the channel's message says so."
    assert_nothing_unexpected(fake, bot)


async def test_standing_orders_are_set_privately_with_suggestions_and_never_shown(fake, bot, record_latency):
    """Issue 27, item 1: /orders set offers the game's questions and each question's answers as the player
    types, answers privately from the first moment, and /orders show gives the owner alone their orders;
    nothing of them reaches the channel."""
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    before = len(fake.public_history("channel"))
    asked = await fake.autocomplete("bob", "channel", "orders set", {"question": ""}, focused="question")
    offered = (await fake.responses(asked, timeout=RESPONSE_TIMEOUT)).callback.body["data"]["choices"]
    assert [c["value"] for c in offered] == ["swipe", "skid", "ram"]
    asked = await fake.autocomplete("bob", "channel", "orders set", {"question": "ram", "answer": ""}, focused="answer")
    offered = (await fake.responses(asked, timeout=RESPONSE_TIMEOUT)).callback.body["data"]["choices"]
    assert [c["value"] for c in offered] == ["A", "B"]
    kept = await slash(fake, "bob", "channel", "orders set", question="skid", answer="resist:55")
    assert kept.callback.body == {"type": 5, "data": {"flags": 64}}, kept.describe()
    assert kept.followups[0].ephemeral and "skid → resist:55" in kept.followups[0].content
    shown = await slash(fake, "bob", "channel", "orders show")
    assert shown.followups[0].ephemeral and "- skid: **resist:55**" in shown.followups[0].content
    theirs = await slash(fake, "alice", "channel", "orders show")
    assert "resist:55" not in theirs.followups[0].content
    assert len(fake.public_history("channel")) == before
    assert all("resist:55" not in m["content"] for m in fake.public_history("channel"))
    assert_nothing_unexpected(fake, bot)


async def test_stats_and_standings_answer_privately_after_a_game(fake, bot, record_latency):
    """Issue 27, item 4: once a game has ended, /stats and /standings answer privately with the server's
    record; the final message gave the dice's luck (none rolled here: no line)."""
    await lobby_of_two(fake, record_latency)
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    await slash(fake, "alice", "channel", "game resign", confirm="yes")
    before = len(fake.public_history("channel"))
    mine = await slash(fake, "alice", "channel", "stats")
    assert mine.followups[0].ephemeral and "**Speedway**: 1 game, 0 won, 0 drawn" in mine.followups[0].content
    # the game was rated as it ended, in the bot's worker process (issue 40 item 3)
    rated = "rating -1.8 (μ 22.4, σ 8.1) ? provisional (1 of 5 rated games); no turn counted yet"
    assert rated in mine.followups[0].content
    board = await slash(fake, "carol", "channel", "standings", ruleset="speedway")
    said = board.followups[0].content
    assert board.followups[0].ephemeral and said.splitlines()[1].startswith("1. bob: rating 3.4?; 1 won of 1 (100%)"), \
        said
    assert len(fake.public_history("channel")) == before
    assert_nothing_unexpected(fake, bot)


async def test_a_follower_is_pinged_in_a_message_of_its_own_when_a_round_begins(fake, bot, record_latency):
    """Issue 27, item 5: /game follow (privately) brings its member one ping a round, in a message of its
    own in the game's channel; the players' turn pings stay theirs."""
    await lobby_of_two(fake, record_latency)
    shown = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    kept = await slash(fake, "carol", "channel", "game follow")
    assert kept.followups[0].ephemeral and "a ping once a round" in kept.followups[0].content
    carol = fake.users["carol"].id
    for _ in range(6):
        if carol in [user for _message, user in fake.notifications()]:
            break
        shown = await stand_still(fake, next_player(shown), record_latency)
    (message,) = [m for m in fake.public_history("channel") if m["content"].startswith(f"<@{carol}>")]
    assert "game here begins" in message["content"] and (message["id"], carol) in fake.notifications()
    assert_nothing_unexpected(fake, bot)


async def test_a_game_opens_a_thread_of_its_own_and_says_which_permission_it_lacks(fake, bot, record_latency):
    """Issue 27, item 5: /game new … thread:yes opens one public thread off the channel and plays there: the
    channel is told where, the lobby is the thread's, and the game's commands work in it; without Create
    Public Threads the asker is told privately which permission is missing, and no thread or game is made."""
    answered = await slash(fake, "alice", "channel", "new speedway", thread="yes")
    (thread,) = fake.threads_created
    assert thread.parent_id == fake.channels["channel"].id and thread.name.startswith("Speedway · alice")
    told = [m for m in fake.public_history("channel") if f"<#{thread.id}>" in m["content"]]
    assert len(told) == 1 and "/game join there" in told[0]["content"], answered.describe()
    (lobby,) = fake.channel_messages(thread)
    assert lobby["content"].startswith("New Speedway game created by alice")
    joined = assert_public_map(await slash(fake, "bob", thread, "game join"), record_latency)
    assert "bob joined" in joined.content
    assert_private_refusal(await slash(fake, "carol", "channel", "game status"), record_latency)   # no game here

    fake.bot_creates_threads = False
    refused = await slash(fake, "carol", "channel", "new track", thread="yes")
    assert_private_refusal(refused, record_latency, "I cannot open a thread here: I need the Create Public "
                                                    "Threads and Send Messages in Threads permissions in this "
                                                    "channel.")
    assert len(fake.threads_created) == 1
    # the one refused request is the thread Discord would not open for a bot without the permission
    assert [line.split(" -> ")[1] for line in fake.unexpected()] == ["403 50013 Missing Permissions"]
    assert "Traceback" not in bot.log_text(), bot.log_tail()


async def test_the_table_votes_a_rollback_with_its_buttons(fake, bot, record_latency):
    """Issue 27, item 2: /game rollback to:N asks every seated player in one public message with Yes and No
    buttons, pinging those who must answer; a stranger's press is refused privately; the last yes posts the
    rolled-back map; the set-aside actions are read privately with /game log set_aside:1."""
    await lobby_of_two(fake, record_latency)
    shown = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency)
    for _ in range(3):   # each standing still is two actions (speed 0, /end): #4 to #9 are set aside
        shown = await stand_still(fake, next_player(shown), record_latency)
    asked = await slash(fake, "alice", "channel", "game rollback", to=3)
    assert not asked.rejected, asked.describe()
    (question,) = [r for r in asked.requests if r.kind in ("followup", "channel_message_edit")]
    content = question.body["content"]
    assert content.startswith(f"<@{fake.users['bob'].id}> vote on the rollback."), content
    assert "alice proposes rolling the game back to #3, setting aside 6 actions" in content
    message_id = str(question.response["id"])
    assert set(buttons_of(fake.message(message_id))) == {"Yes, roll back", "No"}
    refused = await press(fake, "carol", "channel", message_id, "Yes, roll back")
    assert_private_refusal(refused, record_latency, kind=DEFERRED_UPDATE)
    done = assert_public_map(await press(fake, "bob", "channel", message_id, "Yes, roll back"), record_latency,
                             kind=DEFERRED_UPDATE)
    assert "The table voted to roll back to #3: 6 actions set aside" in done.content
    read = await slash(fake, "carol", "channel", "game log", set_aside=1)
    data = read.callback.body["data"] if read.kinds == ["callback"] else read.requests[-1].body
    assert data["flags"] & EPHEMERAL and data["content"].startswith("Set aside by rollback 1:\n#4 ")
    assert_nothing_unexpected(fake, bot)
