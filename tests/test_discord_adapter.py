"""Drive the real discord.py adapter in-process: real gateway-shaped INTERACTION_CREATE payloads in,
every interaction/webhook HTTP request recorded out, a real GameService over a real SQLite Store.

No network is used at any point:
- interactions go through discord.py's own parsing path,
  `ConnectionState.parse_interaction_create(payload)` -> `Interaction(...)` ->
  `CommandTree._from_interaction` (a task named "CommandTree-invoker") -> our command callbacks;
- every request the interaction machinery makes (the callback, follow-ups, deleting the original
  response) goes through `discord.webhook.async_.async_context.get().request(...)`, which we replace
  with a recording subclass of `AsyncWebhookAdapter` that answers like Discord would.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import discord
import pytest
from discord.webhook.async_ import AsyncWebhookAdapter, async_context
from PIL import Image

from bot.chat import adapter
from bot.chat.adapter import APOLOGY, PitbossClient, build_commands
from bot.chat.layout import (
    COMMAND_BUDGET,
    GROUPS,
    MORE_SETUP_WORDS,
    MORE_WORDS,
    OTHER_WORDS,
    RULESET_WORDS,
    Slash,
    discord_layout,
    folded,
    room,
)
from bot.storage.store import Store
from bot.table.protocol.commands import TABLE_COMMANDS, CommandSyntaxError, build_grammar, command_table, game_spec
from bot.table.protocol.replies import Notice, Reply
from bot.table.service.entry import GameService
from rules.codec import decode_state
from rules.grammar import SHARED_WORDS, CommandSpec, Grammar, OptionSpec
from rules.registry import get_ruleset, ruleset_ids, rulesets
from rules.speedway import data as speedway_data
from rules.speedway.state import SpeedwayState
from rules.track import data as track_data
from tests.e2e.fake_discord import command_problems

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EPHEMERAL = 64
DEFERRED_CHANNEL_MESSAGE = 5
CHANNEL_MESSAGE = 4

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
APP_ID = discord.utils.time_snowflake(_EPOCH)
GUILD_ID = APP_ID + 1
CHANNEL_ID = APP_ID + 2
BOT_USER_ID = APP_ID + 3
ALICE_ID = APP_ID + 10
BOB_ID = APP_ID + 11
PLAIN_PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, use_application_commands=True,
                                        attach_files=True, read_message_history=True)
assert not PLAIN_PERMISSIONS.manage_guild and not PLAIN_PERMISSIONS.administrator


# --------------------------------------------------------------------------------------------
# Recording what the adapter sends
# --------------------------------------------------------------------------------------------


@dataclass
class Upload:
    name: str  # multipart field name, e.g. "files[0]"
    filename: str
    content_type: str
    data: bytes


@dataclass
class Request:
    method: str
    path: str  # the formatted path, e.g. /webhooks/<app>/<token>
    template: str  # discord.py's route template, e.g. /webhooks/{webhook_id}/{webhook_token}
    json: dict | None
    params: dict | None
    uploads: list[Upload] = field(default_factory=list)

    @property
    def is_callback(self) -> bool:
        return self.method == "POST" and self.template.endswith("/callback")

    @property
    def is_followup(self) -> bool:
        return self.method == "POST" and self.template == "/webhooks/{webhook_id}/{webhook_token}"

    @property
    def is_delete_original(self) -> bool:
        return self.method == "DELETE" and self.path.endswith("/messages/@original")

    @property
    def flags(self) -> int:
        body = self.json or {}
        if self.is_callback:
            body = body.get("data") or {}
        return int(body.get("flags", 0))

    @property
    def content(self) -> str:
        body = self.json or {}
        if self.is_callback:
            body = body.get("data") or {}
        return body.get("content") or ""


class RecordingAdapter(AsyncWebhookAdapter):
    """An AsyncWebhookAdapter that records each request and answers like Discord, offline."""

    def __init__(self, timeline: list[tuple]):
        super().__init__()
        self.timeline = timeline
        self.requests: list[Request] = []
        self._next_message_id = APP_ID + 1_000

    async def request(self, route, session, *, payload=None, multipart=None, files=None, params=None,
                      **_ignored: Any) -> Any:
        body = payload
        uploads: list[Upload] = []
        for part in multipart or ():
            if part["name"] == "payload_json":
                body = json.loads(part["value"])
                continue
            fp = part["value"]
            position = fp.tell()
            data = fp.read()
            fp.seek(position)
            uploads.append(Upload(part["name"], part.get("filename", ""), part.get("content_type", ""), data))
        path = route.url[len(discord.http.Route.BASE):]
        request = Request(route.method, path, route.path, body, params, uploads)
        self.requests.append(request)
        self.timeline.append(("http", request))
        await asyncio.sleep(0)  # a real request yields to the loop
        if request.is_callback:
            self._next_message_id += 1
            return {"interaction": {"id": str(route.webhook_id), "type": 2,
                                    "response_message_id": str(self._next_message_id),
                                    "response_message_loading": body.get("type") == DEFERRED_CHANNEL_MESSAGE,
                                    "response_message_ephemeral": bool(request.flags & EPHEMERAL)}}
        if request.method == "DELETE":
            return None  # 204 No Content
        self._next_message_id += 1
        return _message(self._next_message_id, body or {})


def _message(message_id: int, body: dict) -> dict:
    """A Discord message object as a follow-up or edit would return it."""
    return {"id": str(message_id), "channel_id": str(CHANNEL_ID), "type": 0, "webhook_id": str(APP_ID),
            "application_id": str(APP_ID), "content": body.get("content", ""),
            "author": {"id": str(BOT_USER_ID), "username": "Pitboss", "discriminator": "0", "avatar": None,
                       "bot": True},
            "embeds": [], "attachments": [], "timestamp": "2026-01-01T00:00:00+00:00",
            "edited_timestamp": None, "mentions": [], "mention_roles": [], "pinned": False, "tts": False,
            "mention_everyone": False, "flags": int(body.get("flags", 0)), "components": []}


# --------------------------------------------------------------------------------------------
# Building gateway payloads
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    permissions: discord.Permissions = PLAIN_PERMISSIONS


ALICE = Player(ALICE_ID, "alice")
BOB = Player(BOB_ID, "bob")

_OPTION_TYPES = {str: 3, int: 4}


def _options(values: dict[str, Any]) -> list[dict]:
    return [{"type": _OPTION_TYPES[type(v)], "name": k, "value": v} for k, v in values.items()]


def _nested(parts: list[str], values: dict[str, Any]) -> list[dict]:
    """The options of a command at `parts` below its top-level name, as Discord nests them: a subcommand
    group (type 2) holds one subcommand (type 1), which holds the options given."""
    if not parts:
        return _options(values)
    kind = 2 if len(parts) == 2 else 1
    return [{"type": kind, "name": parts[0], "options": _nested(parts[1:], values)}]


def interaction_payload(player: Player, command: str, seq: int, **values: Any) -> dict:
    """The `d` of an INTERACTION_CREATE for a global CHAT_INPUT command (no data.guild_id)."""
    parts = command.split()
    options = _nested(parts[1:], values)
    interaction_id = APP_ID + 100_000 + seq
    perms = str(player.permissions.value)
    return {
        "id": str(interaction_id), "application_id": str(APP_ID), "type": 2,
        "token": f"token-{seq}-{parts[0]}", "version": 1,
        "guild_id": str(GUILD_ID), "channel_id": str(CHANNEL_ID),
        "channel": {"id": str(CHANNEL_ID), "type": 0, "guild_id": str(GUILD_ID), "name": "pit-lane",
                    "position": 0},
        "member": {"user": {"id": str(player.id), "username": player.name, "discriminator": "0",
                            "global_name": None, "avatar": None},
                   "roles": [], "flags": 0, "permissions": perms, "nick": None,
                   "joined_at": "2026-01-01T00:00:00+00:00"},
        "app_permissions": perms, "locale": "en-US", "guild_locale": "en-US", "entitlements": [],
        "authorizing_integration_owners": {"0": str(GUILD_ID)}, "context": 0,
        "attachment_size_limit": 10 * 1024 * 1024,
        "data": {"id": str(APP_ID + 50 + len(parts)), "name": parts[0], "type": 1, "options": options},
    }


# --------------------------------------------------------------------------------------------
# The harness: a real client, service, store and renderer
# --------------------------------------------------------------------------------------------


class Harness:
    def __init__(self, client: PitbossClient, store: Store, timeline: list[tuple]):
        self.client = client
        self.store = store
        self.timeline = timeline
        self.adapter = RecordingAdapter(timeline)
        self._seq = 0

    async def run(self, player: Player, command: str, **values: Any) -> list[Request]:
        """Deliver one slash command as the gateway would, wait for it, return its requests."""
        self._seq += 1
        return await self.deliver(interaction_payload(player, command, self._seq, **values))

    async def deliver(self, payload: dict) -> list[Request]:
        """Hand the client one INTERACTION_CREATE payload, wait for it, return its requests."""
        before = len(self.adapter.requests)
        known = set(asyncio.all_tasks())
        token = async_context.set(self.adapter)  # copied into the task the tree creates
        try:
            self.client._connection.parse_interaction_create(payload)
            spawned = [t for t in asyncio.all_tasks() - known if t.get_name() == "CommandTree-invoker"]
            assert len(spawned) == 1, "discord.py did not route the interaction to the command tree"
            await asyncio.wait_for(asyncio.gather(*spawned), timeout=30)
        finally:
            async_context.reset(token)
        return self.adapter.requests[before:]

    async def game(self):
        return await self.store.active_game(str(CHANNEL_ID)) or await self.store.latest_game(str(CHANNEL_ID))


def _record_rest(adapter: RecordingAdapter):
    """Stand in for discord.py's HTTPClient.request: record bot REST calls (message edits)."""

    async def request(route, *, files=None, form=None, json=None, **_ignored: Any) -> Any:
        body = json
        uploads: list[Upload] = []
        for part in form or ():
            if part["name"] == "payload_json":
                body = __import__("json").loads(part["value"])
            elif part["name"].startswith("files["):
                fp = part["value"]
                uploads.append(Upload(part["name"], part.get("filename", ""), part.get("content_type", ""), fp.read()))
        path = route.url[len(discord.http.Route.BASE):]
        recorded = Request(route.method, path, route.path, body, None, uploads)
        adapter.requests.append(recorded)
        adapter.timeline.append(("http", recorded))
        adapter._next_message_id += 1
        return _message(adapter._next_message_id, body or {})

    return request


@pytest.fixture
async def harness(tmp_path):
    async with _harness(tmp_path) as made:
        yield made


@contextlib.asynccontextmanager
async def _harness(tmp_path):
    """A real client, service, store and renderer, with every request recorded."""
    store = await Store.open(str(tmp_path / "pitboss.db"))
    timeline: list[tuple] = []
    from images import render

    def recording_render(ruleset: str, view: Any, last: tuple, turn: tuple) -> bytes:
        timeline.append(("render-start", ruleset))
        image = render(ruleset, view, last, turn)
        timeline.append(("render-end", ruleset))
        return image

    service = GameService(store, render=recording_render)
    client = PitbossClient(service=service, sync_commands=False)
    client.store = store  # so sync_if_changed can remember, and close() closes it
    await client._async_setup_hook()  # what login() does first: bind the loop
    state = client._connection
    state.application_id = APP_ID
    state.user = discord.ClientUser(state=state, data={"id": str(BOT_USER_ID), "username": "Pitboss",
                                                       "discriminator": "0", "avatar": None, "bot": True})
    await client.setup_hook()
    harness = Harness(client, store, timeline)
    client.http.request = _record_rest(harness.adapter)  # message edits go over the bot's REST API
    # the interactions here were made at _EPOCH: their tokens live for the edits, a minute on (issue 39, item 7)
    client.webhooks.now = lambda: _EPOCH + timedelta(minutes=1)
    try:
        yield harness
    finally:
        await client.close()


def _png_of(request: Request) -> Upload:
    assert len(request.uploads) == 1, request
    upload = request.uploads[0]
    assert upload.name == "files[0]"
    assert upload.data.startswith(PNG_SIGNATURE)
    with Image.open(io.BytesIO(upload.data)) as image:
        image.verify()
    return upload


def _assert_public_with_map(requests: list[Request]) -> Request:
    """An accepted action that starts a turn's message: deferral, the "thinking…" placeholder
    deleted (so the new message can notify), then one public follow-up with the PNG and alt text."""
    assert [r.method for r in requests] == ["POST", "DELETE", "POST"], requests
    defer, delete, followup = requests
    assert delete.is_delete_original
    assert defer.is_callback and defer.json == {"type": DEFERRED_CHANNEL_MESSAGE}
    assert followup.is_followup
    assert followup.path == f"/webhooks/{APP_ID}/{defer.path.split('/')[3]}"
    assert not followup.flags & EPHEMERAL
    mentions = followup.json["allowed_mentions"]
    assert mentions["parse"] == [] and len(mentions.get("users", [])) <= 1  # at most the one ping
    upload = _png_of(followup)
    (attachment,) = followup.json["attachments"]
    assert attachment["id"] == 0 and attachment["filename"] == upload.filename == "table.png"
    assert attachment["description"].strip()
    return followup


def _assert_private_refusal(requests: list[Request], text: str) -> None:
    """A refusal: deferral, delete the public "thinking" message, then an ephemeral follow-up."""
    assert [(r.method, r.is_callback, r.is_delete_original, r.is_followup) for r in requests] == [
        ("POST", True, False, False), ("DELETE", False, True, False), ("POST", False, False, True)], requests
    defer, delete, followup = requests
    assert defer.json == {"type": DEFERRED_CHANNEL_MESSAGE}
    token = defer.path.split("/")[3]
    assert delete.path == f"/webhooks/{APP_ID}/{token}/messages/@original"
    assert followup.path == f"/webhooks/{APP_ID}/{token}"
    assert followup.flags & EPHEMERAL
    assert followup.content == text
    assert not followup.uploads and not followup.json.get("attachments")


# --------------------------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------------------------


async def test_game_new_defers_before_rendering_then_posts_map_with_alt_text(harness):
    requests = await harness.run(ALICE, "new speedway", seed=7)

    assert requests[0].is_callback and requests[0].json == {"type": DEFERRED_CHANNEL_MESSAGE}
    assert requests[0].params == {"with_response": "1"}
    followup = _assert_public_with_map(requests)
    assert "New Speedway game created by alice" in followup.content
    assert "/game join" in followup.content
    description = followup.json["attachments"][0]["description"]
    assert "Speedway" in description and len(description) <= 1024

    kinds = [entry[0] if entry[0] != "http" else entry[1] for entry in harness.timeline]
    defer_at, followup_at = kinds.index(requests[0]), kinds.index(followup)
    render_at = kinds.index("render-start")
    assert defer_at < render_at < kinds.index("render-end") < followup_at

    game = await harness.game()
    assert (game.ruleset, game.seed, game.host, game.version) == ("speedway", 7, str(ALICE_ID), 0)


async def test_refusal_deletes_the_deferral_and_answers_ephemerally(harness):
    await harness.run(ALICE, "new speedway", seed=7)
    await harness.run(ALICE, "game join")
    await harness.run(BOB, "game join")
    before = await harness.game()
    renders_before = sum(1 for entry in harness.timeline if entry[0] == "render-start")

    requests = await harness.run(BOB, "game start")

    _assert_private_refusal(requests, "Only the host can start the game.")
    after = await harness.game()
    assert (after.version, after.state, after.status) == (before.version, before.state, before.status)
    assert len(await harness.store.actions(after.id)) == before.version
    assert sum(1 for entry in harness.timeline if entry[0] == "render-start") == renders_before


async def test_mini_game_over_the_adapter(harness):
    """One message per turn: the first action of a turn posts it, later ones edit it in place."""
    versions = []

    async def accepted(player: Player, command: str, **values: Any) -> Request:
        requests = await harness.run(player, command, **values)
        # A new turn takes the buttons off the previous turn's message first, and its closing Next: and clock
        # lines (issue 38, item 5)
        retired = [r for r in requests if r.method == "PATCH"]
        assert all(r.json.get("components") == [] and "Next: " not in r.json["content"] and "<t:" not in
                   r.json["content"] for r in retired), retired
        assert len(retired) <= 1
        followup = _assert_public_with_map([r for r in requests if r.method != "PATCH"])
        versions.append((await harness.game()).version)
        return followup

    async def edited(player: Player, command: str, **values: Any) -> Request:
        requests = await harness.run(player, command, **values)
        defer, edit, delete = requests
        assert defer.is_callback and defer.json == {"type": DEFERRED_CHANNEL_MESSAGE}
        # through the webhook of the interaction that posted the turn's message (its token lives)
        assert edit.method == "PATCH"
        assert edit.template == "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"
        assert edit.uploads and edit.uploads[0].data.startswith(PNG_SIGNATURE)
        assert edit.json["attachments"][0]["description"]  # the alt text travels with the edit
        assert delete.is_delete_original  # the "thinking…" placeholder goes away
        versions.append((await harness.game()).version)
        return edit

    await accepted(ALICE, "new speedway", seed=7)
    joined = await edited(ALICE, "game join")
    assert "alice joined" in joined.json["content"]
    await edited(BOB, "game join")
    started = await accepted(ALICE, "game start")  # a new turn: a new message, with one ping
    assert "The game started" in started.content

    game = await harness.game()
    ruleset = get_ruleset(game.ruleset)
    (acting_id,) = ruleset.acting_players(decode_state(ruleset.state_type, game.state))
    active, other = (ALICE, BOB) if acting_id == str(ALICE_ID) else (BOB, ALICE)
    assert started.content.startswith(f"<@{acting_id}>")
    assert started.json["allowed_mentions"]["parse"] == []
    assert [str(u) for u in started.json["allowed_mentions"]["users"]] == [acting_id]
    labels = [b["label"] for row in started.json["components"] for b in row["components"]]
    assert labels[:2] == ["Speed 0", "Speed 1"]

    out_of_turn = await harness.run(other, "speed", value=3)
    (refusal,) = [r for r in out_of_turn if r.is_followup]
    _assert_private_refusal(out_of_turn, refusal.content)
    assert f"{active.name}'s turn" in refusal.content
    assert (await harness.game()).version == versions[-1]

    speed = await edited(active, "speed", value=3)
    assert f"{active.name} set speed 0 -> 3" in speed.json["content"]
    move = await edited(active, "move", maneuver="normal")
    assert f"{active.name}: normal" in move.json["content"]
    assert "speed 3" in move.json["attachments"][0]["description"]

    assert versions == [0, 1, 2, 3, 4, 5]
    game = await harness.game()
    assert game.status == "active" and len(await harness.store.actions(game.id)) == 5


async def test_service_exception_becomes_a_private_generic_apology(harness, monkeypatch, caplog):
    await harness.run(ALICE, "new speedway", seed=7)
    before = await harness.game()

    async def boom(*_args: Any, **_kwargs: Any):
        raise RuntimeError("secret internals: db handle 0xdeadbeef")

    monkeypatch.setattr(harness.client.service, "execute", boom)
    requests = await harness.run(ALICE, "game join")

    _assert_private_refusal(requests, APOLOGY)
    for request in requests:
        visible = json.dumps(request.json or {})
        for leak in ("Traceback", "RuntimeError", "secret internals", "0xdeadbeef", 'File "'):
            assert leak not in visible
    assert "secret internals" in caplog.text  # the operator still gets the traceback in the log
    assert (await harness.game()).version == before.version


async def test_exception_before_deferral_apologises_in_the_initial_response(harness, monkeypatch):
    async def boom(*_args: Any, **_kwargs: Any):
        raise RuntimeError("boom before defer")

    monkeypatch.setattr(harness.client, "run_command", boom)
    (request,) = await harness.run(ALICE, "game status")

    assert request.is_callback
    assert request.json["type"] == CHANNEL_MESSAGE
    assert request.flags & EPHEMERAL and request.content == APOLOGY


def _characters(node: Any) -> int:
    """Discord's per-command budget: name + description + value of the command, options, choices."""
    total = 0
    if isinstance(node, dict):
        for key in ("name", "description", "value"):
            if key in node and node[key] is not None:
                total += len(str(node[key]))
        for child in node.get("options") or ():
            total += _characters(child)
        for choice in node.get("choices") or ():
            total += _characters(choice)
    return total


def _walk_options(command: dict):
    for option in command.get("options") or ():
        yield option
        yield from _walk_options(option)


async def test_commands_sync_per_application_and_guild_and_when_forced(harness, monkeypatch):
    """The "commands unchanged" digest names the application and the guild: the same commands under
    another application (a database restored into a staging bot), or for another guild, sync again."""
    client = harness.client
    synced: list[object] = []

    async def sync(*, guild=None):
        synced.append(guild)
        return []

    monkeypatch.setattr(client.tree, "sync", sync)
    assert await client.sync_if_changed() and not await client.sync_if_changed()
    client._connection.application_id = APP_ID + 1   # the same database, another application
    assert await client.sync_if_changed() and not await client.sync_if_changed()
    client.guild_id = 4242   # the same application, synced to one guild
    assert await client.sync_if_changed() and not await client.sync_if_changed()
    assert await client.sync_if_changed(force=True)   # pitboss run --sync
    assert len(synced) == 4 and synced[2].id == 4242


async def test_no_command_hides_itself_behind_a_default_permission(harness):
    """Discord's default_member_permissions applies to a top-level command as a whole, and every one holds
    commands players use (/game join beside /game takeover): none declares one, the service checks admins
    itself (docs/operating.md, "Admin commands")."""
    for command in harness.client.command_payload():
        assert command.get("default_member_permissions") is None, command["name"]
        assert all("default_member_permissions" not in node for node in _walk_options(command))
    game = {o["name"] for o in next(c for c in harness.client.command_payload() if c["name"] == "game")["options"]}
    assert {"takeover", "settings", "import"} <= game and {"join", "status"} <= game


def _leaves(payload: list[dict]) -> dict[tuple[str, ...], dict]:
    """Every command a player can send, by its path: a top-level command, a subcommand, one in a group."""
    leaves = {}

    def walk(node: dict, path: tuple[str, ...]) -> None:
        nested = [o for o in node.get("options") or () if o["type"] in (1, 2)]
        for child in nested:
            walk(child, (*path, child["name"]))
        if not nested:
            leaves[path] = node
    for command in payload:
        walk(command, (command["name"],))
    return leaves


def _reachability_problems(payload: list[dict], commands, games) -> list[str]:
    """What of the grammar a player cannot reach on Discord: a command missing, an option of it missing,
    a fixed choice offered only as text or suggestions; and a game's setup that is not `/new <game>` or
    `/newN <game>`, or gave up a fixed choice. Empty when everything is reachable as declared."""
    leaves, problems = _leaves(payload), []
    setup = {path[-1]: node for path, node in leaves.items() if path[0].startswith("new") and len(path) == 2}
    for spec in commands:
        node = leaves.get(spec.path)
        declared = [(spec.path, node, o) for o in spec.options if spec.name != "game new"]
        if spec.name == "game new":
            if node is not None:
                problems.append("/game new is on Discord beside /new")
            for ruleset in games:
                own = game_spec(ruleset, "game new")
                room_node = setup.get(ruleset.id)
                declared += [(("new", ruleset.id), room_node, o) for o in own.options if o.name != "ruleset"]
        elif node is None:
            problems.append(f"/{spec.name} is not on Discord")
        for path, at, option in declared:
            shown = {o["name"]: o for o in (at or {}).get("options") or ()}.get(option.name)
            if shown is None:
                problems.append(f"/{' '.join(path)} {option.name}: not reachable")
            elif option.choices and not option.suggest and ([c["value"] for c in shown.get("choices") or ()]
                                                             != list(option.choices) or shown.get("autocomplete")):
                problems.append(f"/{' '.join(path)} {option.name}: its fixed choices became text or suggestions")
    return problems


async def test_command_payload_respects_discord_limits(harness):
    """Every command of the grammar and every option each game declares is reachable on Discord with its
    fixed choices; each game is set up by /new <game> (not /game new); the table's groups hold theirs."""
    payload = harness.client.command_payload()
    assert _reachability_problems(payload, command_table().commands, rulesets()) == []
    assert set(_leaves(payload)) == {spec.path for spec in command_table().commands if spec.name != "game new"} | \
        {("new", r) for r in ruleset_ids()}
    game = next(c for c in payload if c["name"] == "game")
    subcommands = {o["name"]: o for o in game["options"]}
    assert {name: o["type"] for name, o in subcommands.items() if o["type"] != 1} == {"seat": 2}  # groups
    seat = {o["name"]: o for o in subcommands["seat"]["options"]}
    assert set(seat) == {"give", "take", "computer"}
    assert {o["name"]: o["type"] for o in seat["give"]["options"]}["to"] == 6   # a member: Discord's user option
    me = next(c for c in payload if c["name"] == "me")
    assert {o["name"]: o["type"] for o in me["options"]} == {"settings": 1, "away": 1, "back": 1, "forget": 1}

    for command in payload:
        nodes = [command, *_walk_options(command)]
        for node in nodes:
            name = node["name"]
            assert name == name.lower() and 1 <= len(name) <= 32, name
            assert 1 <= len(node["description"]) <= 100, node
            assert len(node.get("options") or ()) <= 25, name
            choices = node.get("choices") or ()
            assert len(choices) <= 25, name
            for choice in choices:
                assert 1 <= len(choice["name"]) <= 100 and len(str(choice["value"])) <= 100
        assert _characters(command) < 4000, command["name"]


def _by_name(node: dict) -> dict[str, dict]:
    return {o["name"]: o for o in node.get("options") or ()}


async def test_each_game_has_its_own_room_for_its_setup(harness):
    """/new <game>: one subcommand per game, each with only that game's options."""
    new = next(c for c in harness.client.command_payload() if c["name"] == "new")
    rooms = _by_name(new)
    assert list(rooms) == list(ruleset_ids()) and all(o["type"] == 1 for o in rooms.values())
    speedway = _by_name(rooms["speedway"])
    assert list(speedway) == ["seed", "thread", "public", "arena", "rounds"]
    assert speedway["seed"]["type"] == 4 and (speedway["seed"]["min_value"], speedway["seed"]["max_value"]) == \
        (0, 2**53 - 1)
    assert [c["value"] for c in speedway["arena"]["choices"]] == ["classic", "duel", "junkyard"]
    assert set(_by_name(rooms["track"])) == {"seed", "thread", "public", "rounds", *track_data.ruling_defaults()}
    race = _by_name(rooms["race"])
    assert set(race) == {"seed", "thread", "public", "track", "gm", "tuning"}  # no rounds: the race has no round cap
    assert (race["tuning"]["type"], race["tuning"]["min_value"], race["tuning"]["max_value"]) == (4, 0, 3)
    assert set(_by_name(rooms["battlecars"])) == {"seed", "thread", "public", "board", "rounds"}


def _declared_texts() -> set[str]:
    """Every description the grammar, the games and the layout declare (so none may be cut or merged)."""
    specs = [*TABLE_COMMANDS, *(spec for r in rulesets() for spec in r.grammar.commands)]
    options = [o for spec in specs for o in spec.options]
    options += [o for r in rulesets() for o in r.grammar.new_options + r.grammar.join_options]
    texts = {spec.description for spec in specs} | {o.description for o in options}
    texts |= set(GROUPS.values()) | {MORE_WORDS, OTHER_WORDS, RULESET_WORDS, MORE_SETUP_WORDS} | \
        set(SHARED_WORDS.values())
    return texts | {f"A new game of {r.title} in this channel" for r in rulesets()}


async def test_every_description_is_declared_never_cut_or_merged(harness):
    declared = _declared_texts()
    for command in harness.client.command_payload():
        for node in [command, *_walk_options(command)]:
            assert len(node["description"]) <= 100 and node["description"] in declared, (command["name"], node)


async def test_options_are_typed_as_their_game_declares(harness):
    payload = {c["name"]: c for c in harness.client.command_payload()}
    # /speed value: a number in Speedway, N, R or 3PT in Battlecars: text the channel's game suggests.
    value = _by_name(payload["speed"])["value"]
    assert (value["type"], value.get("autocomplete"), value.get("choices")) == (3, True, None)
    assert value["description"] == SHARED_WORDS["speed value"]
    assert payload["speed"]["description"] == SHARED_WORDS["speed"]
    # One game's own option keeps its type, range, choices and words.
    to = _by_name(payload["brake"])["to"]
    assert (to["type"], to["min_value"], to["max_value"]) == (4, 1, 2000)
    skid = _by_name(payload["move"])["skid"]
    assert [c["value"] for c in skid["choices"]] == ["accept", "resist", "swipe", "continue"]
    # /game join stays one command (the channel already has its game): each game's own options as it
    # declares them, a shared one that differs (vehicle) suggested from the channel's game.
    join = _by_name(_by_name(payload["game"])["join"])
    assert [c["value"] for c in join["car"]["choices"]] == list(speedway_data.car_designs())
    assert join["vehicle"].get("autocomplete") and join["vehicle"]["description"] == SHARED_WORDS["game join vehicle"]


def _toy_game(ruleset_id: str, options: tuple[OptionSpec, ...], seat: OptionSpec | None = None):
    grammar = Grammar(new_options=options, join_options=(seat,) if seat else ())
    return get_ruleset("track").variant(id=ruleset_id, title=ruleset_id.title(), grammar=grammar, round_cap=None)


def _many_games() -> tuple:
    """The four games, one with 20 setup rulings of long words, and thirty more with a few options each."""
    words = "a ruling with many words to it, as long as a game may make it; default false"
    rulings = tuple(OptionSpec(f"ruling_{i}", "str", f"{words} ({i})", choices=("true", "false")) for i in range(20))
    small = tuple(_toy_game(f"small{i}", (OptionSpec("board", "str", "The board", choices=("a", "b")),
                                          OptionSpec("laps", "int", "Laps", min_value=1, max_value=9)),
                            OptionSpec(f"seat{i}", "str", f"Your seat in small{i}"))
                  for i in range(30))
    return (*rulesets(), _toy_game("rulings", rulings), *small)


async def test_many_games_and_many_setup_options_still_fit_discords_limits(harness):
    games = _many_games()
    layout = discord_layout(build_grammar(games), games)
    tree = harness.client.tree
    tree.clear_commands(guild=None)
    build_commands(tree, harness.client, layout)  # the tree discord.py would sync
    payload = [command.to_dict(tree) for command in tree.get_commands()]
    for command in payload:
        assert command_problems(command, total_limit=COMMAND_BUDGET) == [], command["name"]
    # Every game is set up in its own room, with every option it declares as it declares it: the rooms
    # fill /new, then /new2, /new3 and (with every game's public: since issue 40) /new4.
    rooms = {s.path[-1]: s for s in layout if s.fixed}
    assert set(rooms) == {r.id for r in games}
    assert {s.path[0] for s in rooms.values()} == {"new", "new2", "new3", "new4"}
    seats = ("/game join ", "/game add-ai ")   # thirty games' seats: more than 25 options (below)
    assert [p for p in _reachability_problems(payload, build_grammar(games), games) if not p.startswith(seats)] == []
    # /game join: thirty seats are more than Discord's 25 options; the rest are written in more:.
    join = next(s for s in layout if s.path == ("game", "join"))
    assert len(join.options) == 25 and join.more == "more"
    assert {o.name for o in join.options + join.folded} >= {f"seat{i}" for i in range(30)}


async def test_five_more_copies_of_the_largest_setup_keep_every_fixed_choice_within_budget(harness):
    """Issue 37 item 3: the synced commands leave room for ten games. Five renamed copies of the game
    with the most setup beside the registered games: every command within the budget, no fixed-choice
    option turned into text or suggestions, and the first games' setup where it was (/new <game>)."""
    largest = max(rulesets(), key=lambda r: room(r).characters())
    games = (*rulesets(), *(largest.variant(id=f"{largest.id}{i}", title=f"{largest.title} {i}") for i in range(2, 7)))
    tree = harness.client.tree
    tree.clear_commands(guild=None)
    build_commands(tree, harness.client, discord_layout(build_grammar(games), games))
    payload = [command.to_dict(tree) for command in tree.get_commands()]
    for command in payload:
        assert command_problems(command, total_limit=COMMAND_BUDGET) == [], command["name"]
    assert _reachability_problems(payload, build_grammar(games), games) == []
    assert {("new", r) for r in ruleset_ids()} <= set(_leaves(payload))


def test_more_top_level_commands_than_discord_takes_stop_the_build_with_the_reason():
    """Discord takes 100 top-level slash commands; past that no layout can fit, so the build says why."""
    def verbs(prefix: str, count: int) -> tuple[CommandSpec, ...]:
        return tuple(CommandSpec(f"{prefix}{i}", f"Verb {i}") for i in range(count))
    fits = _toy_game("fits", ()).variant(grammar=Grammar(commands=verbs("v", 100 - len(_roots()))))
    assert len({s.path[0] for s in discord_layout(build_grammar((fits,)), (fits,))}) == 100
    wordy = _toy_game("wordy", ()).variant(grammar=Grammar(commands=verbs("w", 80)))
    small = _toy_game("small", ()).variant(grammar=Grammar(commands=verbs("s", 30)))
    with pytest.raises(ValueError, match=r"top-level slash commands, past Discord's 100: .*wordy 80, small 30"):
        discord_layout(build_grammar((wordy, small)), (wordy, small))


def _roots() -> set[str]:
    """The table's own top-level commands, and /new for the one game's setup."""
    return {s.path[0] for s in discord_layout(build_grammar(()), ())} | {"new"}


def _rulings_room() -> Slash:
    return folded(room(_toy_game("rulings", tuple(
        OptionSpec(f"ruling_{i}", "str", f"Ruling {i}", choices=("true", "false")) for i in range(3)))))


def test_more_reads_name_value_pairs_and_suggests_the_next():
    slash = _rulings_room()
    assert [o.name for o in slash.options] == ["more"] and [o.name for o in slash.folded][:1] == ["seed"]
    assert slash.values({"more": "ruling_1:TRUE seed:4"}) == {"ruling_1": "TRUE", "seed": "4", "ruleset": "rulings"}
    for written, words in (("ruling_1:true ruling_1:false", "given twice"), ("colour:red", "not one of its options"),
                           ("ruling_1", "write name:value"), ('ruling_1:"true', "Could not read")):
        with pytest.raises(CommandSyntaxError, match=words):
            slash.values({"more": written})
    offers = slash.more_offers("ruling_1:true rul")
    assert [value for _label, value in offers] == ["ruling_1:true ruling_0:true", "ruling_1:true ruling_0:false",
                                                   "ruling_1:true ruling_2:true", "ruling_1:true ruling_2:false"]
    assert all(len(label) <= 100 for label, _value in offers)
    assert slash.more_offers("")[0] == ("seed:  (Dice seed (random if left out))", "seed:")


@pytest.fixture
async def folded_harness(tmp_path, monkeypatch):
    """The harness, with Track's setup options written in more: (as if the budget had run out)."""
    laid_out = discord_layout()
    monkeypatch.setattr(adapter, "discord_layout",
                        lambda: tuple(folded(s) if s.path == ("new", "track") else s for s in laid_out))
    async with _harness(tmp_path) as made:
        yield made


async def test_a_game_set_up_through_more_and_a_malformed_one_refused(folded_harness):
    requests = await folded_harness.run(ALICE, "new track", more="seven_may_split:false seed:3")
    _assert_public_with_map(requests)
    game = await folded_harness.game()
    assert (game.ruleset, game.seed, json.loads(game.options)["seven_may_split"]) == ("track", 3, "false")
    await folded_harness.run(ALICE, "game end")
    requests = await folded_harness.run(ALICE, "new track", more="seven_may_split")
    _assert_private_refusal(requests, "'seven_may_split' is not an option; write name:value.")


async def test_sync_if_changed_syncs_once_then_skips(harness, monkeypatch):
    calls: list[Any] = []

    async def fake_sync(*, guild=None):
        calls.append(guild)
        return []

    client = harness.client
    monkeypatch.setattr(client.tree, "sync", fake_sync)

    assert await client.sync_if_changed() is True
    assert calls == [None]
    assert await harness.store.get_meta("discord_commands_hash")
    assert await client.sync_if_changed() is False
    assert calls == [None]

    # Scoping the commands to a guild is a different payload: it syncs there once, then skips.
    client.guild_id = GUILD_ID
    assert await client.sync_if_changed() is True
    assert len(calls) == 2 and calls[1].id == GUILD_ID
    assert await client.sync_if_changed() is False
    assert len(calls) == 2


async def test_the_same_interaction_delivered_twice_is_applied_once(harness):
    """A gateway replay (or a second process on the token) hands the bot one interaction twice."""
    await harness.run(ALICE, "new speedway", seed=7)
    version = (await harness.game()).version
    payload = interaction_payload(ALICE, "game join", 999)
    await harness.deliver(payload)
    again = await harness.deliver(payload)
    assert (await harness.game()).version == version + 1
    (refusal,) = [r for r in again if r.is_followup]
    assert refusal.flags & EPHEMERAL and "already carried out" in refusal.content


class _Channel:
    """A text channel that records what the scheduler posts in it."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, content: str, **_kwargs: Any) -> Any:
        self.sent.append(content)
        return discord.Object(APP_ID + 7)


async def test_the_scheduler_ticks_at_the_configured_interval_survives_errors_and_stops_on_close(
        harness, monkeypatch, caplog):
    client = harness.client
    assert client.scheduler.is_running() and client.scheduler.seconds == 30  # started, waiting for READY
    first = client.scheduler.get_task()
    client.scheduler.cancel()
    await asyncio.wait([first], timeout=5)

    rounds: list[int] = []
    channel = _Channel()

    async def run_due() -> list[Notice]:
        rounds.append(len(rounds))
        if len(rounds) == 1:
            raise RuntimeError("database hiccup")
        if len(rounds) == 2:
            return [Notice("404", Reply("shown", "lost")), Notice(str(CHANNEL_ID), Reply("shown", "Reminder!"))]
        return []

    async def fetch_channel(channel_id: int) -> _Channel:
        if channel_id == 404:
            raise RuntimeError("no such channel")
        return channel

    online = asyncio.Event()
    monkeypatch.setattr(client.service, "run_due", run_due)
    monkeypatch.setattr(client, "fetch_channel", fetch_channel)
    monkeypatch.setattr(client, "gateway_connected", online.is_set)
    monkeypatch.setenv("PITBOSS_TICK_SECONDS", "0.02")
    client.start_scheduler()
    await asyncio.sleep(0.1)
    assert rounds == []  # nothing is posted before the gateway is READY
    client._ready.set()
    await asyncio.sleep(0.1)
    assert rounds == []  # nor claimed while the gateway is down: it would be lost (issue 39, item 9)
    online.set()
    for _ in range(200):
        if len(rounds) >= 4:
            break
        await asyncio.sleep(0.01)

    assert len(rounds) >= 4 and client.scheduler.seconds == 0.02
    assert channel.sent == ["Reminder!"]  # the unreachable channel spoiled neither the round nor the next
    assert "scheduler round failed" in caplog.text and "database hiccup" in caplog.text
    assert "could not post a notice in channel 404" in caplog.text
    task = client.scheduler.get_task()
    await client.close()
    await asyncio.wait([task], timeout=5)
    assert task.done() and not client.scheduler.is_running()


def _autocomplete(player: Player, command: str, seq: int, focused: str, **values: Any) -> dict:
    """An APPLICATION_COMMAND_AUTOCOMPLETE (type 4) for `command`, the option `focused` being typed."""
    payload = interaction_payload(player, command, seq, **values)
    payload["type"] = 4
    options = payload["data"]["options"]
    while options and options[0]["type"] in (1, 2):
        options = options[0]["options"]
    next(o for o in options if o["name"] == focused)["focused"] = True
    return payload


async def test_more_is_suggested_as_you_type_without_a_game(folded_harness):
    requests = await folded_harness.deliver(_autocomplete(ALICE, "new track", 1, "more",
                                                          more="seven_may_split:false jok"))
    (answer,) = requests
    assert answer.json["type"] == 8
    assert [c["value"] for c in answer.json["data"]["choices"]] == [
        "seven_may_split:false joker_forced:true", "seven_may_split:false joker_forced:false"]


async def test_a_shared_option_is_suggested_by_the_channels_game(harness):
    await harness.run(ALICE, "new battlecars", seed=3)
    await harness.run(ALICE, "game join", vehicle="interceptor")
    await harness.run(BOB, "game join", vehicle="rammer")
    await harness.run(ALICE, "game start")
    (answer,) = await harness.deliver(_autocomplete(ALICE, "speed", 50, "value", value=""))
    offered = [c["value"] for c in answer.json["data"]["choices"]]
    assert offered and all(v.isdigit() or v in ("R", "3PT") for v in offered), offered


async def test_a_full_turn_message_goes_on_in_a_new_one(harness):
    """Issue 25, item 1: an action is added to its turn's message while Discord's 2,000 characters allow;
    past that the turn goes on in a new message (the full one keeps its words and loses its buttons),
    which pings nobody."""
    await harness.run(ALICE, "new speedway", seed=7)
    await harness.run(ALICE, "game join")
    await harness.run(BOB, "game join")
    await harness.run(ALICE, "game start")
    game = await harness.game()
    shown = await harness.store.turn_message(game.id)
    state = decode_state(SpeedwayState, game.state)
    mover = ALICE if state.active_player == str(ALICE_ID) else BOB
    await harness.store.set_turn_message(game.id, shown.turn_key, shown.message_id, "x" * 1950)

    requests = await harness.run(mover, "speed", value="2")

    retired = [r for r in requests if r.method == "PATCH"]
    assert len(retired) == 1 and retired[0].json.get("components") == [] and retired[0].json["content"] == "x" * 1950
    followup = _assert_public_with_map([r for r in requests if r.method != "PATCH"])
    assert followup.json["content"].startswith(f"{mover.name} set speed") and "x" * 10 not in followup.content
    assert followup.json["allowed_mentions"] == {"parse": []}      # going on pings nobody
    again = await harness.store.turn_message(game.id)
    assert again.turn_key == shown.turn_key and again.message_id != shown.message_id
    assert again.body == followup.json["content"].rsplit("\nNext: ", 1)[0]


async def test_a_stop_lets_the_scheduler_round_under_way_post_what_it_claimed_and_starts_no_other(
        harness, monkeypatch):
    """The round's reminders were claimed (cleared in the database) before they are posted: a stop that
    cancelled the round there lost them for good, and could cancel the claim in its COMMIT."""
    client = harness.client
    first = client.scheduler.get_task()
    client.scheduler.cancel()
    await asyncio.wait([first], timeout=5)
    rounds: list[int] = []
    claimed, posting = asyncio.Event(), asyncio.Event()
    channel = _Channel()

    async def run_due() -> list[Notice]:
        rounds.append(len(rounds))
        claimed.set()
        await posting.wait()   # the stop comes while the round is under way
        return [Notice(str(CHANNEL_ID), Reply("shown", "Reminder!"))]

    async def fetch_channel(channel_id: int) -> _Channel:
        return channel

    monkeypatch.setattr(client.service, "run_due", run_due)
    monkeypatch.setattr(client, "fetch_channel", fetch_channel)
    monkeypatch.setattr(client, "gateway_connected", lambda: True)
    touched: list[str] = []
    monkeypatch.setattr(client, "_touch_boards", lambda: touched.append("boards"))
    monkeypatch.setenv("PITBOSS_TICK_SECONDS", "0.02")
    client.start_scheduler()
    client._ready.set()
    await asyncio.wait_for(claimed.wait(), timeout=10)
    stopping = asyncio.ensure_future(client.shut_down(wait=10))
    await asyncio.sleep(0.1)
    assert not stopping.done()   # it waits for the round
    posting.set()
    await asyncio.wait_for(stopping, timeout=10)
    assert channel.sent == ["Reminder!"] and rounds == [0]
    assert touched == []   # no board or role work started while closing
    assert not client.scheduler.is_running()
