"""A local fake Discord on 127.0.0.1 for end-to-end tests of an unmodified `pitboss run` process.

It speaks just enough of Discord for discord.py 2.7 (see /work/shared/notes/discord-facts.md):

- REST under /api/v10: login (`/users/@me`, `/oauth2/applications/@me`), `/gateway[/bot]`, application
  command sync (global and guild), interaction callbacks (3-second deadline, one acknowledgement),
  follow-up webhooks (multipart `payload_json` + `files[n]`), editing and deleting responses, channel
  messages, direct messages (`POST /users/@me/channels` opens a DM channel; a member set to refuse them,
  `refuse_dms`, answers a message there 403 with code 50007); everything else is recorded as unexpected
  and answered 404.
- Discord's rate limits (tests/e2e/fake_limits.py): per-route buckets and their `X-RateLimit-*` headers,
  the global limit of 50 requests a second outside the interaction routes, their 429s with
  `retry_after`, and a count of requests by route kind; an interaction token lives 15 minutes on the
  fake's clock, which `advance` moves on without waiting. Discord's clock is the bot's too: an
  interaction's id holds the moment it was made on that clock, and with `clock_path` set the e2e shim
  shows the bot's discord.utils.utcnow() the same offset, so the bot knows a token's age as it would;
  `expire_tokens` kills every token so far without the bot knowing (it learns from a 401).
- the gateway websocket at /gateway: HELLO, heartbeat ACKs, IDENTIFY -> READY + GUILD_CREATE, RESUME.
- a Python API for tests: `send_slash`, `click`, `autocomplete` build INTERACTION_CREATE payloads the
  way Discord does (checked against the commands the bot synced) and `responses` waits for what the
  bot did with them.

The server runs on its own thread and event loop, so it keeps time and answers the bot even while a
test blocks; the async API methods bridge to that loop. Every response body is JSON with the exact
`Content-Type: application/json` discord.py requires. Nothing here imports discord.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import email.message
import email.parser
import itertools
import json
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from tests.e2e.fake_limits import Limited, RateLimits

API = "/api/v10"
# How often a wait for the bot to go quiet looks again when nothing happens: a settle of 0.25 s was
# 0.25-0.75 s when it looked every 0.5 s (the settle itself, the bound on quiet, is unchanged).
SETTLE_RECHECK = 0.05
DISCORD_EPOCH_MS = 1_420_070_400_000
BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: all fake snowflakes are minted from here
TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"

# Permission bits (discord.com/developers/docs/topics/permissions).
ADMINISTRATOR = 1 << 3
MANAGE_GUILD = 1 << 5
MANAGE_ROLES = 1 << 28
MANAGE_THREADS = 1 << 34   # sees every private thread
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
SEND_MESSAGES_IN_THREADS = 1 << 38
EVERYONE_PERMISSIONS = (VIEW_CHANNEL | SEND_MESSAGES | SEND_MESSAGES_IN_THREADS | EMBED_LINKS | ATTACH_FILES
                        | READ_MESSAGE_HISTORY | ADD_REACTIONS | USE_APPLICATION_COMMANDS)
ALL_PERMISSIONS = (1 << 51) - 1

# Gateway intents that need switching on in the developer portal (close code 4014 otherwise).
PRIVILEGED_INTENTS = {"GUILD_MEMBERS": 1 << 1, "GUILD_PRESENCES": 1 << 8, "MESSAGE_CONTENT": 1 << 15}

# Message flags.
SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_VOICE_MESSAGE = 1 << 13
IS_COMPONENTS_V2 = 1 << 15
SENDABLE_FLAGS = SUPPRESS_EMBEDS | EPHEMERAL | SUPPRESS_NOTIFICATIONS | IS_VOICE_MESSAGE | IS_COMPONENTS_V2

# Interaction types and callback types.
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
CALLBACKS_FOR = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
    MESSAGE_COMPONENT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, MODAL},
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}

# Limits (discord-facts.md sections 1-3).
INTERACTION_DEADLINE = 3.0
# The deadline the test fixture's fake enforces: a bound, not an expectation. A bot that never
# acknowledges still fails; one that a starved machine makes late is judged on what it did, and each
# acknowledgement past Discord's 3 s is counted in the run's latency summary (tests that are about the
# deadline set `fake.deadline` to Discord's own).
STARVED_MACHINE_DEADLINE = 60.0
TOKEN_LIFETIME = 15 * 60.0
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
CONTENT_LIMIT = 2000
EMBED_LIMIT = 10
FILE_LIMIT = 10
ALT_TEXT_LIMIT = 1024
AUTOCOMPLETE_CHOICES_LIMIT = 25
COMMAND_TOTAL_CHARS_LIMIT = 8000  # Discord's current limit; the tests hold the bot to the older 4000

# Option types.
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER = 1, 2, 3, 4, 5, 6
CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 7, 8, 9, 10, 11

NAME_RE = re.compile(r"^[-_'\w\u0900-\u097F\u0E00-\u0E7F]{1,32}$")
_SNOWFLAKES = itertools.count(1)


def snowflake(offset_ms: int = 0) -> str:
    """A unique Discord id string (a real snowflake layout: ms since the Discord epoch << 22)."""
    return str(((BASE_MS + offset_ms - DISCORD_EPOCH_MS) << 22) | (next(_SNOWFLAKES) & 0x3FFFFF))


class DiscordError(Exception):
    """A Discord-style JSON error answer: HTTP status, error code, message."""

    def __init__(self, status: int, code: int, message: str, errors: Any = None):
        super().__init__(f"{status} {code} {message}")
        self.status, self.code, self.message, self.errors = status, code, message, errors

    def body(self) -> dict:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.errors is not None:
            body["errors"] = self.errors
        return body


def unknown_interaction() -> DiscordError:
    return DiscordError(404, 10062, "Unknown interaction")


def already_acknowledged() -> DiscordError:
    return DiscordError(400, 40060, "Interaction has already been acknowledged.")


def unknown_webhook() -> DiscordError:
    return DiscordError(404, 10015, "Unknown Webhook")


def unknown_message() -> DiscordError:
    return DiscordError(404, 10008, "Unknown Message")


def invalid_form(*problems: str) -> DiscordError:
    return DiscordError(400, 50035, "Invalid Form Body", {"_errors": [{"code": "BASE_TYPE_INVALID",
                                                                      "message": p} for p in problems]})


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """JSON with exactly `Content-Type: application/json` (discord.py parses nothing else as JSON)."""
    response = web.Response(status=status, body=json.dumps(body).encode(), headers=headers)
    response.headers["Content-Type"] = "application/json"
    return response


# --------------------------------------------------------------------------------------------
# Command limit checks (shared by the fake, which rejects like Discord, and by the tests)
# --------------------------------------------------------------------------------------------


def command_characters(command: dict) -> int:
    """Discord's per-command character count: names, descriptions and choice names/values, nested."""
    def of_option(option: dict) -> int:
        total = len(option.get("name", "")) + len(option.get("description", ""))
        for choice in option.get("choices") or ():
            total += len(str(choice.get("name", ""))) + len(str(choice.get("value", "")))
        return total + sum(of_option(o) for o in option.get("options") or ())

    return of_option(command)


def command_problems(command: dict, total_limit: int = COMMAND_TOTAL_CHARS_LIMIT) -> list[str]:
    """Every way a CHAT_INPUT command payload breaks Discord's documented limits (empty when valid)."""
    problems: list[str] = []

    def check_named(thing: dict, where: str) -> None:
        name = thing.get("name", "")
        if not NAME_RE.match(name) or name != name.lower():
            problems.append(f"{where}: name {name!r} must match {NAME_RE.pattern} and be lower case")
        description = thing.get("description", "")
        if not 1 <= len(description) <= 100:
            problems.append(f"{where}: description must be 1-100 characters, got {len(description)}")

    def check_options(options: list[dict], where: str, depth: int) -> None:
        if len(options) > 25:
            problems.append(f"{where}: {len(options)} options, at most 25")
        names = [o.get("name") for o in options]
        if len(set(names)) != len(names):
            problems.append(f"{where}: duplicate option names {names}")
        kinds = {o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in options}
        if len(kinds) > 1:
            problems.append(f"{where}: subcommands cannot be mixed with plain options")
        seen_optional = False
        for option in options:
            here = f"{where} {option.get('name')}"
            check_named(option, here)
            kind = option.get("type")
            if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
                if kind == SUB_COMMAND_GROUP and depth > 0 or kind == SUB_COMMAND and depth > 1:
                    problems.append(f"{here}: nested too deep")
                check_options(option.get("options") or [], here, depth + 1)
                continue
            if option.get("required"):
                if seen_optional:
                    problems.append(f"{here}: required options must come before optional ones")
            else:
                seen_optional = True
            choices = option.get("choices") or []
            if len(choices) > 25:
                problems.append(f"{here}: {len(choices)} choices, at most 25")
            if choices and option.get("autocomplete"):
                problems.append(f"{here}: choices and autocomplete are exclusive")
            for choice in choices:
                if not 1 <= len(str(choice.get("name", ""))) <= 100:
                    problems.append(f"{here}: choice name {choice.get('name')!r} must be 1-100 characters")
                if isinstance(choice.get("value"), str) and len(choice["value"]) > 100:
                    problems.append(f"{here}: choice value longer than 100 characters")
            for bound in ("min_value", "max_value"):
                value = option.get(bound)
                if value is not None and not -(2**53) <= value <= 2**53:
                    problems.append(f"{here}: {bound} {value} outside -2^53..2^53")
            if option.get("min_length") is not None and not 0 <= option["min_length"] <= 6000:
                problems.append(f"{here}: min_length outside 0..6000")
            if option.get("max_length") is not None and not 1 <= option["max_length"] <= 6000:
                problems.append(f"{here}: max_length outside 1..6000")

    where = f"/{command.get('name')}"
    if command.get("type", 1) != 1:
        return problems  # only CHAT_INPUT commands are checked here
    check_named(command, where)
    check_options(command.get("options") or [], where, 0)
    total = command_characters(command)
    if total > total_limit:
        problems.append(f"{where}: {total} characters in total, at most {total_limit}")
    return problems


# --------------------------------------------------------------------------------------------
# The world: users, channels, records
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeUser:
    name: str
    id: str
    roles: tuple[str, ...] = ()
    bot: bool = False

    def user_object(self) -> dict:
        return {"id": self.id, "username": self.name, "discriminator": "0", "global_name": None,
                "avatar": None, "bot": self.bot, "system": False, "public_flags": 0, "flags": 0}


@dataclass(frozen=True)
class FakeChannel:
    name: str
    id: str
    type: int  # 0 text channel, 11 public thread, 12 private thread
    guild_id: str
    parent_id: str | None = None
    owner_id: str | None = None
    invitable: bool = True   # a private thread: whether non-moderators may invite others

    def channel_object(self) -> dict:
        """The channel as Discord describes it (also the `channel` object of an interaction)."""
        if self.type in (11, 12):
            metadata = {"invitable": self.invitable} if self.type == 12 else {}
            return {"id": self.id, "type": self.type, "guild_id": self.guild_id, "name": self.name,
                    "parent_id": self.parent_id, "owner_id": self.owner_id, "last_message_id": None,
                    "rate_limit_per_user": 0, "message_count": 0, "member_count": 3, "total_message_sent": 0,
                    "flags": 0,
                    "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                        "archive_timestamp": TIMESTAMP, "locked": False,
                                        "create_timestamp": TIMESTAMP, **metadata}}
        return {"id": self.id, "type": self.type, "guild_id": self.guild_id, "name": self.name, "position": 0,
                "permission_overwrites": [], "parent_id": None, "topic": None, "nsfw": False,
                "rate_limit_per_user": 0, "last_message_id": None, "flags": 0}


@dataclass
class FilePart:
    field: str  # the multipart field name, e.g. "files[0]"
    filename: str
    content_type: str
    data: bytes


@dataclass
class HttpRecord:
    """One HTTP request the bot made, and what the fake answered."""

    at: float  # time.monotonic() when it arrived
    method: str
    path: str  # without the /api/v10 prefix and without the query
    query: dict[str, str]
    headers: dict[str, str]
    content_type: str
    body: Any  # the JSON body, or the decoded payload_json of a multipart body
    files: list[FilePart] = field(default_factory=list)
    kind: str = ""  # route name: callback, followup, edit_original, commands_put, unknown, ...
    interaction_id: str | None = None
    status: int = 0
    response: Any = None
    error: str | None = None  # set when the fake refused the request (status >= 400)

    @property
    def json(self) -> Any:
        return self.body


@dataclass
class Followup:
    """A follow-up message as the bot sent it and as Discord would show it."""

    record: HttpRecord
    message: dict  # the resulting message object (what channel members see)
    replaced_original: bool  # Discord turned it into an edit of the deferred "thinking" message

    @property
    def content(self) -> str:
        return (self.record.body or {}).get("content") or ""

    @property
    def requested_flags(self) -> int:
        return int((self.record.body or {}).get("flags") or 0)

    @property
    def flags(self) -> int:
        """The flags of the resulting message (ephemerality follows the deferral when it replaced it)."""
        return int(self.message.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def attachments(self) -> list[dict]:
        return list((self.record.body or {}).get("attachments") or [])

    @property
    def files(self) -> list[FilePart]:
        return self.record.files

    @property
    def components(self) -> list[dict]:
        return list((self.record.body or {}).get("components") or [])

    @property
    def notified(self) -> list[str]:
        """User ids this follow-up pinged (none when it only filled in the deferred message: an edit)."""
        return [] if self.replaced_original else list(self.message.get("_notified") or [])

    @property
    def allowed_mentions(self) -> dict | None:
        return (self.record.body or {}).get("allowed_mentions")


@dataclass
class Exchange:
    """Everything that happened to one interaction, as a snapshot."""

    id: str
    token: str
    type: int
    user: str
    channel_id: str
    command: str
    payload: dict
    dispatched_at: float
    requests: list[HttpRecord]
    followups: list[Followup]
    original: dict | None
    original_deleted: bool

    @property
    def callbacks(self) -> list[HttpRecord]:
        return [r for r in self.requests if r.kind == "callback"]

    @property
    def callback(self) -> HttpRecord | None:
        return self.callbacks[0] if self.callbacks else None

    @property
    def callback_type(self) -> int | None:
        return (self.callback.body or {}).get("type") if self.callback else None

    @property
    def latency(self) -> float | None:
        """Seconds from the fake sending INTERACTION_CREATE to the bot's first callback arriving."""
        return self.callback.at - self.dispatched_at if self.callback else None

    @property
    def kinds(self) -> list[str]:
        return [r.kind for r in self.requests]

    @property
    def rejected(self) -> list[HttpRecord]:
        return [r for r in self.requests if r.status >= 400]

    def describe(self) -> str:
        lines = [f"interaction {self.id} /{self.command} by {self.user} in {self.channel_id}"]
        for r in self.requests:
            lines.append(f"  +{r.at - self.dispatched_at:.3f}s {r.method} {r.path} [{r.kind}] -> {r.status}"
                         f"{' ' + r.error if r.error else ''} body={json.dumps(r.body)[:300]}"
                         f"{' files=' + str([(f.field, f.filename, len(f.data)) for f in r.files]) if r.files else ''}")
        return "\n".join(lines)


@dataclass
class _Interaction:
    """Server-side state of one interaction."""

    id: str
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    command: str
    payload: dict
    attachment_size_limit: int
    dispatched_at: float = 0.0
    born: float = 0.0  # on the fake's clock (FakeDiscord.now): when its token's life began
    ack_type: int | None = None
    invalid: bool = False  # the deadline passed without an acknowledgement
    original_id: str | None = None
    original_loading: bool = False
    original_deleted: bool = False
    requests: list[HttpRecord] = field(default_factory=list)
    followups: list[Followup] = field(default_factory=list)
    last_activity: float = 0.0


@dataclass
class GatewaySession:
    conn: int
    ws: web.WebSocketResponse
    query: dict[str, str]
    opened_at: float
    seq: int = 0
    session_id: str | None = None
    identify: dict | None = None
    ready: bool = False  # READY and GUILD_CREATE were sent
    closed: bool = False
    close_code: int | None = None
    heartbeats: int = 0
    received: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# The fake
# --------------------------------------------------------------------------------------------


class FakeDiscord:
    """Start with `start()` (own thread and loop), stop with `stop()`. See the module docstring."""

    def __init__(self, *, token: str | None = None, deadline: float = INTERACTION_DEADLINE,
                 token_lifetime: float = TOKEN_LIFETIME, attachment_size_limit: int = ATTACHMENT_SIZE_LIMIT,
                 privileged_intents: Iterable[str] = (), heartbeat_interval_ms: int = 41_250,
                 clock_path: Path | None = None):
        self.token = token or f"fake.{secrets.token_urlsafe(18)}.bot-token"
        self.deadline = deadline
        self.token_lifetime = token_lifetime
        self.attachment_size_limit = attachment_size_limit
        self.privileged_intents = {name: PRIVILEGED_INTENTS[name] for name in privileged_intents}
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.limits = RateLimits()
        self.clock_offset = 0.0  # how far `advance` moved the fake's clock past time.monotonic()
        # where the bot reads that offset (PITBOSS_E2E_DISCORD_CLOCK: its utcnow() is Discord's time, moved on)
        self.clock_path = clock_path
        if clock_path is not None:
            clock_path.write_text("0.0")
        # how long ago each interaction was made when it reaches the bot (a gateway under load delivers late)
        self.interaction_delay_ms = 0

        self.app_id = snowflake()
        self.bot_role = snowflake()   # the bot's own role (what Discord makes when the bot joins), Manage Roles
        self.bot_user = FakeUser("Pitboss", self.app_id, roles=(self.bot_role,), bot=True)  # user id == app id
        self.owner = FakeUser("owner", snowflake())
        self.guild_id = snowflake()
        self.moderator_role = snowflake()
        self.role_permissions = {self.guild_id: EVERYONE_PERMISSIONS,
                                 self.moderator_role: EVERYONE_PERMISSIONS | MANAGE_GUILD,
                                 self.bot_role: MANAGE_ROLES}
        # each role's name, position and flags, by id (permissions in role_permissions): the guild's role list
        self.roles: dict[str, dict] = {
            self.guild_id: {"name": "@everyone", "position": 0},
            self.moderator_role: {"name": "Moderators", "position": 1},
            self.bot_role: {"name": "Pitboss", "position": 2, "managed": True,
                            "tags": {"bot_id": self.app_id}}}
        self.users: dict[str, FakeUser] = {
            name: FakeUser(name, snowflake(), roles=(self.moderator_role,) if name == "admin" else ())
            for name in ("alice", "bob", "carol", "admin")}
        channel_id = snowflake()
        self.channels: dict[str, FakeChannel] = {
            "channel": FakeChannel("pit-lane", channel_id, 0, self.guild_id),
            "thread": FakeChannel("rematch", snowflake(), 11, self.guild_id, parent_id=channel_id,
                                  owner_id=self.users["alice"].id),
        }

        self.hold: dict[str, float] = {}   # route kind -> seconds the next such request waits for its answer
        self.bot_creates_threads = True     # the bot's Create Public Threads permission
        self.bot_creates_private_threads = True   # the bot's Create Private Threads permission
        self.threads_created: list[FakeChannel] = []
        self.dm_channels: dict[str, FakeChannel] = {}   # user id -> the DM channel the bot opened with them
        self.dms_refused_by: set[str] = set()   # user ids of members who accept no direct messages from the bot
        self.thread_members: dict[str, list[str]] = {}   # private thread id -> its members' user ids, in order
        self.loop: asyncio.AbstractEventLoop | None = None
        self.port: int | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._changed: asyncio.Event | None = None

        # Records (mutated only on the fake's loop; read them through the snapshot methods).
        self._requests: list[HttpRecord] = []
        self._commands: dict[str | None, list[dict]] = {}  # scope (None global, guild id) -> commands
        self._command_ids: dict[tuple[str | None, str], str] = {}
        self._interactions: dict[str, _Interaction] = {}
        self._by_token: dict[str, _Interaction] = {}
        self._messages: dict[str, dict] = {}
        self._uploads: dict[str, bytes] = {}  # attachment id -> bytes a user attached to a slash command
        self._message_viewer: dict[str, str] = {}  # ephemeral message id -> the one user who sees it
        self._sessions: list[GatewaySession] = []
        self._problems: list[str] = []  # protocol violations seen outside HTTP records

    # ----------------------------------------------------------------------------------------
    # Lifecycle and thread bridging
    # ----------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    def start(self, timeout: float = 10.0) -> FakeDiscord:
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self.loop = loop
            try:
                loop.run_until_complete(self._serve())
            except BaseException as exc:  # report start-up failures to start()
                failure.append(exc)
                started.set()
                return
            started.set()
            loop.run_forever()
            loop.run_until_complete(self._shutdown())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-discord", daemon=True)
        self._thread.start()
        if not started.wait(timeout):
            raise TimeoutError("the fake Discord did not start")
        if failure:
            raise failure[0]
        return self

    def stop(self, timeout: float = 10.0) -> None:
        if self.loop is None or self._thread is None:
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout)

    async def _serve(self) -> None:
        self._changed = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_route("*", API + "/{path:.*}", self._rest)
        app.router.add_get("/attachments/{message}/{attachment}/{filename}", self._cdn)
        app.router.add_route("*", "/{path:.*}", self._outside_api)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._site = site

    async def _shutdown(self) -> None:
        for session in self._sessions:
            if not session.closed:
                with contextlib.suppress(Exception):
                    await session.ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    def _on_loop(self, coro) -> asyncio.Future[Any]:
        assert self.loop is not None, "start() the fake first"
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def _blocking(self, coro, timeout: float = 30.0) -> Any:
        return self._on_loop(coro).result(timeout)

    async def _bridge(self, coro) -> Any:
        return await asyncio.wrap_future(self._on_loop(coro))

    def _notify(self) -> None:
        assert self._changed is not None
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_until(self, predicate: Callable[[], Any], timeout: float, what: str,
                          recheck: float = 0.5) -> Any:
        """Check `predicate` after every change, and every `recheck` seconds: a predicate that waits for
        quiet (a settle time) turns true with no change, so it passes `recheck` near its own grain."""
        deadline = time.monotonic() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"fake Discord: timed out after {timeout:.1f}s waiting for {what}")
            assert self._changed is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, recheck))

    # ----------------------------------------------------------------------------------------
    # Snapshots for tests (safe from any thread)
    # ----------------------------------------------------------------------------------------

    async def _snapshot(self, fn: Callable[[], Any]) -> Any:
        return copy.deepcopy(fn())

    def snapshot(self, fn: Callable[[FakeDiscord], Any]) -> Any:
        """Run `fn(self)` on the fake's loop and return a deep copy of its result."""
        return self._blocking(self._snapshot(lambda: fn(self)))

    def now(self) -> float:
        """The fake's clock: time.monotonic() moved on by `advance` (interaction tokens age by it)."""
        return time.monotonic() + self.clock_offset

    def advance(self, seconds: float) -> None:
        """Move Discord's clock on, as if `seconds` had passed (e.g. past an interaction token's life): the
        fake's, and the bot's view of it when it reads `clock_path`."""
        def move(f: FakeDiscord) -> None:
            f.clock_offset += seconds
            if f.clock_path is not None:
                spare = f.clock_path.with_name(f.clock_path.name + ".next")
                spare.write_text(repr(f.clock_offset))
                spare.replace(f.clock_path)   # whole: the bot never reads half a number
        self.snapshot(move)

    def expire_tokens(self) -> None:
        """Kill every interaction token made so far, the bot's clock unmoved: it finds out from the 401."""
        def kill(f: FakeDiscord) -> None:
            for state in f._interactions.values():
                state.born = -float("inf")
        self.snapshot(kill)

    def mark(self) -> int:
        """A place in the record of requests: `requests_since` it tells what the bot sent after it."""
        return self.snapshot(lambda f: len(f._requests))

    def requests_since(self, mark: int, channel: str | FakeChannel | None = None) -> list[HttpRecord]:
        """The requests the bot made after `mark`; with `channel`, those for it: on its messages, or through
        an interaction made there."""
        channel_id = self._channel(channel).id if channel is not None else None

        def where(f: FakeDiscord, record: HttpRecord) -> str | None:
            if record.interaction_id is not None:
                return f._interactions[record.interaction_id].channel.id
            found = re.match(r"/channels/(\d+)", record.path)
            return found.group(1) if found else None

        return self.snapshot(lambda f: [r for r in f._requests[mark:]
                                        if channel_id is None or where(f, r) == channel_id])

    def request_counts(self) -> dict[str, int]:
        """Every request the bot made so far, counted by route kind (refused ones too)."""
        return self.snapshot(lambda f: dict(f.limits.counts))

    def rate_limited(self) -> dict[str, int]:
        """The 429s the fake answered so far, by scope: "global" and "user" (a route's bucket)."""
        return self.snapshot(lambda f: dict(f.limits.limited))

    def requests(self, kind: str | None = None) -> list[HttpRecord]:
        return self.snapshot(lambda f: [r for r in f._requests if kind is None or r.kind == kind])

    def command_puts(self) -> list[HttpRecord]:
        return self.requests("commands_put")

    def synced_commands(self, guild: bool | None = None) -> list[dict]:
        """The commands Discord now holds (global, or this guild's when guild=True)."""
        scope = self.guild_id if guild else None
        return self.snapshot(lambda f: f._commands.get(scope, []))

    def identifies(self) -> list[dict]:
        return self.snapshot(lambda f: [s.identify for s in f._sessions if s.identify is not None])

    def sessions(self) -> list[dict]:
        return self.snapshot(lambda f: [
            {"conn": s.conn, "query": s.query, "session_id": s.session_id, "ready": s.ready, "closed": s.closed,
             "close_code": s.close_code, "heartbeats": s.heartbeats,
             "ops": [m.get("op") for m in s.received]} for s in f._sessions])

    def unexpected(self) -> list[str]:
        """Unknown routes, refused requests and gateway protocol problems, as readable lines."""
        def collect(f: FakeDiscord) -> list[str]:
            lines = list(f._problems)
            for r in f._requests:
                if r.kind == "unknown":
                    lines.append(f"unknown route {r.method} {r.path} body={json.dumps(r.body)[:200]}")
                elif r.status >= 400:
                    lines.append(f"refused {r.method} {r.path} [{r.kind}] -> {r.status} {r.error}")
            return lines
        return self.snapshot(collect)

    def channel_messages(self, channel: str | FakeChannel, viewer: str | FakeUser | None = None) -> list[dict]:
        """The messages a member sees in a channel, oldest first (ephemeral ones only for `viewer`)."""
        channel_id = self._channel(channel).id
        viewer_id = self._user(viewer).id if viewer is not None else None

        def collect(f: FakeDiscord) -> list[dict]:
            out = []
            for message in f._messages.values():
                if message["channel_id"] != channel_id or message.get("deleted"):
                    continue
                if message["flags"] & EPHEMERAL and f._message_viewer.get(message["id"]) != viewer_id:
                    continue
                out.append(message)
            return out
        return self.snapshot(collect)

    def edit_role(self, role_id: str, *, permissions: int | None = None, position: int | None = None) -> None:
        """A member with the rights edits a role in the server's settings (its permissions, or drags it to
        another place in the list): GUILD_ROLE_UPDATE tells the bot."""
        async def edit() -> None:
            if permissions is not None:
                self.role_permissions[role_id] = permissions
            if position is not None:
                self.roles[role_id]["position"] = position
            await self._send_dispatch(self._active_session(), "GUILD_ROLE_UPDATE",
                                      {"guild_id": self.guild_id, "role": self.role_object(role_id)})
        self._blocking(edit())

    def delete_role_by_hand(self, role_id: str) -> None:
        """A member with the rights deletes a role in the server's settings: GUILD_ROLE_DELETE tells the bot."""
        async def delete() -> None:
            self.delete_role(role_id)
            await self._send_dispatch(self._active_session(), "GUILD_ROLE_DELETE",
                                      {"guild_id": self.guild_id, "role_id": role_id})
        self._blocking(delete())

    def refuse_dms(self, user: str | FakeUser) -> None:
        """The member accepts no direct messages from the bot (their privacy settings): a message sent them is
        answered 403, code 50007 Cannot send messages to this user."""
        member = self._user(user)
        self.snapshot(lambda f: f.dms_refused_by.add(member.id))

    def direct_messages(self, user: str | FakeUser) -> list[dict]:
        """The direct messages the bot sent a member, oldest first."""
        member = self._user(user)

        def collect(f: FakeDiscord) -> list[dict]:
            inbox = f.dm_channels.get(member.id)
            return [] if inbox is None else [m for m in f._messages.values() if m["channel_id"] == inbox.id]
        return self.snapshot(collect)

    def public_history(self, channel: str | FakeChannel) -> list[dict]:
        """Every message anyone in a channel could ever see there, oldest first: deleted ones too (a
        "thinking…" placeholder that showed for a moment), private ones never."""
        channel_id = self._channel(channel).id
        return self.snapshot(lambda f: [m for m in f._messages.values()
                                        if m["channel_id"] == channel_id and not m["flags"] & EPHEMERAL])

    def notifications(self) -> list[tuple[str, str]]:
        """(message id, user id) for every ping Discord would have delivered, oldest first."""
        return self.snapshot(lambda f: [(m["id"], u) for m in f._messages.values() for u in m.get("_notified", [])])

    def message(self, message_id: str) -> dict:
        """A message as the fake holds it now (with private keys: _files, _notified, deleted)."""
        return self.snapshot(lambda f: f._messages[message_id])

    def file_bytes(self, message_id: str, attachment_id: str) -> bytes:
        return self.snapshot(lambda f: f._messages[message_id]["_files"][attachment_id])

    # ----------------------------------------------------------------------------------------
    # Waiting for the bot
    # ----------------------------------------------------------------------------------------

    async def _wait_ready(self, after: int, timeout: float) -> dict:
        def ready() -> dict | None:
            identified = [s for s in self._sessions if s.identify is not None]
            if len(identified) > after and identified[-1].ready and not identified[-1].closed:
                return {"conn": identified[-1].conn, "session_id": identified[-1].session_id}
            return None
        return await self._wait_until(ready, timeout, f"IDENTIFY number {after + 1} and READY")

    def wait_ready_blocking(self, after: int = 0, timeout: float = 20.0) -> dict:
        """Block until the (after+1)-th IDENTIFY got READY and GUILD_CREATE (for sync fixtures)."""
        return self._blocking(self._wait_ready(after, timeout), timeout + 5)

    async def wait_ready(self, after: int = 0, timeout: float = 20.0) -> dict:
        return await self._bridge(self._wait_ready(after, timeout))

    def identify_count(self) -> int:
        return len(self.identifies())

    async def _reconnect(self, timeout: float) -> dict:
        old = self._active_session()
        await self._send(old, {"op": 7, "s": None, "t": None, "d": None})  # RECONNECT

        def resumed() -> dict | None:
            newer = [s for s in self._sessions if s.conn > old.conn and s.ready and not s.closed]
            if newer:
                return {"conn": newer[-1].conn, "session_id": newer[-1].session_id,
                        "ops": [m.get("op") for m in newer[-1].received]}
            return None
        return await self._wait_until(resumed, timeout, "the bot to reconnect after op 7")

    async def _offline(self) -> None:
        if self._site is not None:
            await self._site.stop()   # connecting is refused from now on
            self._site = None
        if self._runner is not None and self._runner.server is not None:
            await self._runner.server.shutdown(0.5)   # every open connection dropped, the gateway's too

    def offline(self) -> None:
        """Discord out of reach, for good: every connection dropped without a word (as a network that goes
        away), and every new one refused."""
        self._blocking(self._offline())

    async def reconnect(self, timeout: float = 15.0) -> dict:
        """Ask the bot to reconnect (gateway op 7, as Discord does routinely) and wait until it is back."""
        return await self._bridge(self._reconnect(timeout))

    # ----------------------------------------------------------------------------------------
    # Sending interactions
    # ----------------------------------------------------------------------------------------

    def add_user(self, name: str) -> FakeUser:
        """Another member of the guild (before the bot connects: GUILD_CREATE lists it)."""
        user = self.users[name] = FakeUser(name, snowflake())
        return user

    def add_channel(self, name: str) -> FakeChannel:
        """Another text channel of the guild (before the bot connects: GUILD_CREATE lists it)."""
        channel = self.channels[name] = FakeChannel(name, snowflake(), 0, self.guild_id)
        return channel

    def _user(self, user: str | FakeUser) -> FakeUser:
        return user if isinstance(user, FakeUser) else self.users[user]

    def _channel(self, channel: str | FakeChannel) -> FakeChannel:
        if isinstance(channel, FakeChannel):
            return channel
        if channel in self.channels:
            return self.channels[channel]
        for candidate in self.channels.values():
            if channel in (candidate.id, candidate.name):
                return candidate
        raise KeyError(f"no channel {channel!r}")

    def permissions_of(self, user: str | FakeUser) -> int:
        member = self._user(user)
        if member.id == self.owner.id:
            return ALL_PERMISSIONS
        value = self.role_permissions[self.guild_id]
        for role in member.roles:
            value |= self.role_permissions[role]
        return ALL_PERMISSIONS if value & ADMINISTRATOR else value

    def role_object(self, role_id: str) -> dict:
        """A role as Discord describes it (GET /guilds/{id}/roles, GUILD_CREATE)."""
        info = self.roles[role_id]
        return {"id": role_id, "name": info["name"], "color": 0, "hoist": info.get("hoist", False), "icon": None,
                "unicode_emoji": None, "position": info["position"], "permissions": str(self.role_permissions[role_id]),
                "managed": info.get("managed", False), "mentionable": info.get("mentionable", False), "flags": 0,
                "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
                **({"tags": info["tags"]} if "tags" in info else {})}

    def role_named(self, name: str) -> str | None:
        """The id of the role of this name, or None."""
        return next((role_id for role_id, info in self.roles.items() if info["name"] == name), None)

    def holders_of(self, role_id: str) -> list[str]:
        """The names of the members holding a role."""
        return sorted(u.name for u in self.users.values() if role_id in u.roles)

    def member_object(self, user: str | FakeUser, with_permissions: bool = False) -> dict:
        member = self._user(user)
        out = {"user": member.user_object(), "roles": list(member.roles), "flags": 0, "nick": None,
               "avatar": None, "joined_at": TIMESTAMP, "premium_since": None, "deaf": False, "mute": False,
               "pending": False, "communication_disabled_until": None}
        if with_permissions:
            out["permissions"] = str(self.permissions_of(member))
        return out

    def _interaction_payload(self, kind: int, user: FakeUser, channel: FakeChannel, data: dict,
                             message: dict | None = None) -> dict:
        # As Discord's: the id holds the moment the interaction was made (a bot may read its age there).
        made = (time.time() + self.clock_offset) * 1000 - self.interaction_delay_ms   # on Discord's clock
        interaction_id = snowflake(round(made) - BASE_MS)
        payload = {
            "id": interaction_id, "application_id": self.app_id, "type": kind,
            "token": f"itok.{interaction_id}.{secrets.token_urlsafe(24)}", "version": 1,
            "guild_id": self.guild_id, "channel_id": channel.id,
            "channel": {**channel.channel_object(), "permissions": str(self.permissions_of(user))},
            "guild": {"id": self.guild_id, "locale": "en-US", "features": []},
            "member": self.member_object(user, with_permissions=True),
            "app_permissions": str(EVERYONE_PERMISSIONS), "locale": "en-US", "guild_locale": "en-US",
            "entitlements": [], "authorizing_integration_owners": {"0": self.guild_id}, "context": 0,
            "attachment_size_limit": self.attachment_size_limit,
            "data": data,
        }
        if message is not None:
            payload["message"] = message
        return payload

    def _find_command(self, name: str) -> dict:
        for scope in (self.guild_id, None):  # a guild command shadows a global one of the same name
            for command in self._commands.get(scope, []):
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        synced = sorted(c["name"] for cmds in self._commands.values() for c in cmds)
        raise LookupError(f"/{name} is not a synced command (synced: {synced})")

    def _option_values(self, schema: list[dict], values: dict[str, Any], focused: str | None,
                       resolved: dict) -> list[dict]:
        by_name = {o["name"]: o for o in schema}
        out = []
        for name, value in values.items():
            spec = by_name.get(name)
            if spec is None:
                raise ValueError(f"no option {name!r}; options are {sorted(by_name)}")
            kind = spec["type"]
            option: dict[str, Any] = {"type": kind, "name": name}
            if name == focused:
                if not spec.get("autocomplete"):
                    raise ValueError(f"option {name!r} has no autocomplete; Discord would not ask")
                option.update(value=str(value), focused=True)
                out.append(option)
                continue
            if kind == STRING:
                if not isinstance(value, str):
                    raise TypeError(f"{name}: expects a string, got {value!r}")
                if "min_length" in spec and len(value) < spec["min_length"] or \
                        "max_length" in spec and len(value) > spec["max_length"]:
                    raise ValueError(f"{name}: length outside {spec.get('min_length')}..{spec.get('max_length')}")
            elif kind == INTEGER:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError(f"{name}: expects an integer, got {value!r}")
            elif kind == NUMBER:
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise TypeError(f"{name}: expects a number, got {value!r}")
            elif kind == BOOLEAN:
                if not isinstance(value, bool):
                    raise TypeError(f"{name}: expects a boolean, got {value!r}")
            elif kind == USER:
                member = self._user(value)
                value = member.id
                resolved.setdefault("users", {})[member.id] = member.user_object()
                member_data = self.member_object(member, with_permissions=True)
                member_data.pop("user")
                resolved.setdefault("members", {})[member.id] = member_data
            elif kind == ATTACHMENT:
                filename, data = value  # (name, bytes): a file the user attaches to the command
                if len(data) > self.attachment_size_limit:
                    raise ValueError(f"{name}: {len(data)} bytes is over the upload limit")
                value = snowflake()
                self._uploads[value] = bytes(data)
                resolved.setdefault("attachments", {})[value] = {
                    "id": value, "filename": filename, "size": len(data), "content_type": "application/json",
                    "url": f"{self.url}/attachments/uploads/{value}/{filename}",
                    "proxy_url": f"{self.url}/attachments/uploads/{value}/{filename}"}
            else:
                raise NotImplementedError(f"option type {kind} is not supported by the fake yet")
            if kind in (INTEGER, NUMBER) and ("min_value" in spec and value < spec["min_value"]
                                              or "max_value" in spec and value > spec["max_value"]):
                raise ValueError(f"{name}: {value} outside {spec.get('min_value')}..{spec.get('max_value')}")
            if spec.get("choices") and value not in [c["value"] for c in spec["choices"]]:
                raise ValueError(f"{name}: {value!r} is not one of {[c['value'] for c in spec['choices']]}")
            option["value"] = value
            out.append(option)
        if focused is None:
            missing = [o["name"] for o in schema if o.get("required") and o["name"] not in values]
            if missing:
                raise ValueError(f"missing required options {missing}")
        return out

    def _command_data(self, command: str, options: dict[str, Any], focused: str | None) -> dict:
        """The `data` of an APPLICATION_COMMAND(_AUTOCOMPLETE) interaction, checked against the sync."""
        parts = command.lstrip("/").split()
        synced = self._find_command(parts[0])
        data: dict[str, Any] = {"id": synced["id"], "name": parts[0], "type": 1}
        if synced.get("guild_id"):
            data["guild_id"] = synced["guild_id"]
        resolved: dict = {}
        container, schema = data, synced.get("options") or []
        for part in parts[1:]:
            sub = next((o for o in schema if o["name"] == part and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)),
                       None)
            if sub is None:
                raise LookupError(f"/{' '.join(parts)}: no subcommand {part!r}")
            nested = {"type": sub["type"], "name": part, "options": []}
            container["options"] = [nested]
            container, schema = nested, sub.get("options") or []
        if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in schema):
            raise LookupError(f"/{' '.join(parts)} needs a subcommand")
        values = self._option_values(schema, options, focused, resolved)
        if values or container is not data:
            container["options"] = values
        if resolved:
            data["resolved"] = resolved
        return data

    async def _dispatch_interaction(self, kind: int, user: FakeUser, channel: FakeChannel, command: str,
                                    build: Callable[[], tuple[dict, dict | None]]) -> str:
        data, message = build()
        payload = self._interaction_payload(kind, user, channel, data, message)
        state = _Interaction(payload["id"], payload["token"], kind, user, channel, command, payload,
                             self.attachment_size_limit)
        session = self._active_session()
        self._interactions[state.id] = state
        self._by_token[state.token] = state
        # The clock starts before the frame is written: the bot may answer before send_str returns.
        state.dispatched_at = state.last_activity = time.monotonic()
        state.born = self.now()
        await self._send_dispatch(session, "INTERACTION_CREATE", payload)
        self._notify()
        return state.id

    async def send_slash(self, user: str | FakeUser, channel: str | FakeChannel, command: str,
                         options: dict[str, Any] | None = None) -> str:
        """Deliver a slash command ("game new", "speed", ...) as Discord would; returns the interaction id."""
        member, where = self._user(user), self._channel(channel)
        return await self._bridge(self._dispatch_interaction(
            APPLICATION_COMMAND, member, where, command.lstrip("/"),
            lambda: (self._command_data(command, dict(options or {}), None), None)))

    async def autocomplete(self, user: str | FakeUser, channel: str | FakeChannel, command: str,
                           options: dict[str, Any], focused: str) -> str:
        """Deliver an APPLICATION_COMMAND_AUTOCOMPLETE for option `focused` (must have autocomplete)."""
        member, where = self._user(user), self._channel(channel)
        return await self._bridge(self._dispatch_interaction(
            AUTOCOMPLETE, member, where, command.lstrip("/"),
            lambda: (self._command_data(command, dict(options), focused), None)))

    async def click(self, user: str | FakeUser, channel: str | FakeChannel | None, message: dict | str,
                    custom_id: str, values: list[str] | None = None) -> str:
        """Click a button (or choose select `values`) on a message the bot posted; the interaction carries
        the message with its components, as Discord's does (DynamicItems need them)."""
        member = self._user(user)
        message_id = message if isinstance(message, str) else message["id"]

        def build() -> tuple[dict, dict]:
            current = self._messages[message_id]
            component = _find_component(current.get("components") or [], custom_id)
            if component is None:
                raise LookupError(f"message {message_id} has no component {custom_id!r}")
            if component.get("disabled"):
                raise ValueError(f"component {custom_id!r} is disabled")
            data: dict[str, Any] = {"custom_id": custom_id, "component_type": component["type"]}
            if values is not None:
                data["values"] = list(values)
            return data, _public_message(current)

        async def go() -> str:
            current = self._messages.get(message_id)
            if current is None or current.get("deleted"):
                raise LookupError(f"no message {message_id}")
            where = self._channel(current["channel_id"])
            if channel is not None and self._channel(channel).id != where.id:
                raise ValueError(f"message {message_id} is in channel {where.name}, not {channel}")
            if current["flags"] & EPHEMERAL and self._message_viewer.get(message_id) != member.id:
                raise ValueError(f"{member.name} cannot see ephemeral message {message_id}")
            return await self._dispatch_interaction(MESSAGE_COMPONENT, member, where, f"click {custom_id}", build)
        return await self._bridge(go())

    async def _responses(self, interaction_id: str, timeout: float, settle: float) -> Exchange:
        state = self._interactions[interaction_id]

        def complete() -> bool:
            ok = [r for r in state.requests if r.status < 400]
            callback = next((r for r in ok if r.kind == "callback"), None)
            if callback is None:
                return False
            quiet_for = time.monotonic() - state.last_activity
            if (callback.body or {}).get("type") in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE):
                kinds = {r.kind for r in ok}
                if kinds & {"followup", "edit_original"}:
                    return quiet_for >= settle
                if "delete_original" in kinds:  # a follow-up may still come: wait a little longer
                    return quiet_for >= max(settle, 0.5)
                if callback.body.get("type") == DEFERRED_UPDATE:  # a button may just edit the message
                    return quiet_for >= max(settle, 1.0) and len(self._channel_records(state)) > 0
                return False
            return quiet_for >= settle

        try:
            await self._wait_until(complete, timeout, f"the bot's answer to interaction {interaction_id}",
                                   recheck=SETTLE_RECHECK)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\n{self._exchange(state).describe()}") from None
        return self._exchange(state)

    async def responses(self, interaction_id: str, timeout: float = 10.0, settle: float = 0.25) -> Exchange:
        """Wait until the bot answered (a final callback, or a deferral resolved by a follow-up, an edit
        or a deletion of the original) and then went quiet for `settle` seconds; return what it sent,
        including its channel-message requests made while handling the interaction."""
        return await self._bridge(self._responses(interaction_id, timeout, settle))

    async def _quiet(self, interaction_id: str, min_requests: int, settle: float, timeout: float) -> Exchange:
        state = self._interactions[interaction_id]

        def quiet() -> bool:
            return len(state.requests) >= min_requests and time.monotonic() - state.last_activity >= settle

        try:
            await self._wait_until(quiet, timeout, f"{min_requests} requests for interaction {interaction_id}",
                                   recheck=SETTLE_RECHECK)
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\n{self._exchange(state).describe()}") from None
        return self._exchange(state)

    async def quiet(self, interaction_id: str, min_requests: int = 0, settle: float = 0.5,
                    timeout: float = 10.0) -> Exchange:
        """Wait until the bot made at least `min_requests` requests for an interaction and then nothing
        for `settle` seconds (for answers that are not a normal success, e.g. refused callbacks)."""
        return await self._bridge(self._quiet(interaction_id, min_requests, settle, timeout))

    async def wait_for(self, fn: Callable[[FakeDiscord], Any], timeout: float = 10.0,
                       what: str = "a condition") -> Any:
        """Wait until `fn(self)` (run on the fake's loop after every change) returns something truthy,
        and return a deep copy of it. No settle time: for tests that know exactly what to expect."""
        async def until() -> Any:
            return copy.deepcopy(await self._wait_until(lambda: fn(self), timeout, what))
        return await self._bridge(until())

    async def until(self, interaction_id: str, predicate: Callable[[Exchange], Any], timeout: float = 10.0,
                    what: str = "") -> Exchange:
        """Wait until `predicate(exchange so far)` holds for an interaction; return that exchange (without
        waiting for the bot to go quiet, unlike `responses`)."""
        def check(f: FakeDiscord) -> Exchange | None:
            exchange = f._exchange(f._interactions[interaction_id])
            return exchange if predicate(exchange) else None
        try:
            return await self.wait_for(check, timeout, what or f"the bot's answer to interaction {interaction_id}")
        except TimeoutError as exc:
            raise TimeoutError(f"{exc}\n{(await self.exchange(interaction_id)).describe()}") from None

    async def exchange(self, interaction_id: str) -> Exchange:
        """What happened to an interaction so far, without waiting."""
        async def now() -> Exchange:
            return self._exchange(self._interactions[interaction_id])
        return await self._bridge(now())

    def _channel_records(self, state: _Interaction) -> list[HttpRecord]:
        """Bot requests on channel messages, or on messages through another interaction's webhook (the turn
        message its follow-up posted), while this interaction was the latest one dispatched (the tests send
        one interaction at a time, so these are the bot's work for it)."""
        later = [i.dispatched_at for i in self._interactions.values() if i.dispatched_at > state.dispatched_at]
        until = min(later, default=float("inf"))
        return [r for r in self._requests if _on_others_behalf(r, state.id) and state.dispatched_at <= r.at < until]

    def _exchange(self, state: _Interaction) -> Exchange:
        original = self._messages.get(state.original_id) if state.original_id else None
        requests = sorted([*state.requests, *self._channel_records(state)], key=lambda r: r.at)
        return copy.deepcopy(Exchange(
            state.id, state.token, state.type, state.user.name, state.channel.id, state.command, state.payload,
            state.dispatched_at, requests, list(state.followups), original, state.original_deleted))

    # ----------------------------------------------------------------------------------------
    # Gateway
    # ----------------------------------------------------------------------------------------

    def _owns_guild(self, session: GatewaySession) -> bool:
        """Whether a session's shard carries the guild, as Discord routes it: (guild_id >> 22) % count."""
        shard = (session.identify or {}).get("shard")
        if not shard:
            return True
        shard_id, count = shard
        return (int(self.guild_id) >> 22) % int(count) == int(shard_id)

    def _active_session(self) -> GatewaySession:
        """The newest open, READY session whose shard carries the guild (events go to that shard only)."""
        for session in reversed(self._sessions):
            if session.ready and not session.closed and self._owns_guild(session):
                return session
        raise RuntimeError("the bot has no open, READY gateway session for the guild's shard")

    async def _send(self, session: GatewaySession, message: dict) -> None:
        await session.ws.send_str(json.dumps(message))

    async def _send_dispatch(self, session: GatewaySession, event: str, data: dict) -> None:
        session.seq += 1
        await self._send(session, {"op": 0, "t": event, "s": session.seq, "d": data})

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        session = GatewaySession(len(self._sessions) + 1, ws, dict(request.query), time.monotonic())
        self._sessions.append(session)
        self._notify()
        if request.query.get("v") != "10" or request.query.get("encoding") != "json":
            self._problems.append(f"gateway connection {session.conn} with query {dict(request.query)}")
        await self._send(session, {"op": 10, "s": None, "t": None,
                                   "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._on_gateway_message(session, json.loads(msg.data))
                elif msg.type == WSMsgType.BINARY:
                    self._problems.append(f"gateway connection {session.conn}: unexpected binary frame")
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            session.closed = True
            session.close_code = ws.close_code
            self._notify()
        return ws

    async def _on_gateway_message(self, session: GatewaySession, message: dict) -> None:
        session.received.append(message)
        op, data = message.get("op"), message.get("d")
        if op == 1:  # HEARTBEAT
            session.heartbeats += 1
            await self._send(session, {"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:  # IDENTIFY
            await self._identify(session, data or {})
        elif op == 6:  # RESUME
            previous = next((s for s in self._sessions if s.session_id and s.session_id == data.get("session_id")),
                            None)
            if previous is None or data.get("token") != self.token:
                await self._send(session, {"op": 9, "s": None, "t": None, "d": False})
                return
            session.session_id, session.identify, session.seq = previous.session_id, None, int(data.get("seq") or 0)
            await self._send_dispatch(session, "RESUMED", {})
            session.ready = True
            self._notify()
        elif op == 8:  # REQUEST_GUILD_MEMBERS
            await self._send_dispatch(session, "GUILD_MEMBERS_CHUNK", {
                "guild_id": self.guild_id, "members": [self.member_object(u) for u in self.users.values()],
                "chunk_index": 0, "chunk_count": 1, "nonce": (data or {}).get("nonce"), "not_found": []})
        elif op == 3:  # PRESENCE_UPDATE
            pass
        else:
            self._problems.append(f"gateway connection {session.conn}: unexpected op {op}: {message}")

    async def _identify(self, session: GatewaySession, data: dict) -> None:
        session.identify = data
        self._notify()
        if data.get("token") != self.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = int(data.get("intents") or 0)
        missing = [name for name, bit in PRIVILEGED_INTENTS.items()
                   if intents & bit and name not in self.privileged_intents]
        if missing:
            self._problems.append(f"IDENTIFY asked for privileged intents {missing} that are not enabled")
            await session.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        session.session_id = secrets.token_hex(16)
        ready: dict[str, Any] = {
            "v": 10, "user": {**self.bot_user.user_object(), "verified": True, "mfa_enabled": False},
            "guilds": [{"id": self.guild_id, "unavailable": True}],
            "session_id": session.session_id, "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": self.app_id, "flags": 0},
            "private_channels": [], "relationships": [], "presences": [], "user_settings": {},
            "geo_ordered_rtc_regions": [], "guild_join_requests": [], "auth": {}, "_trace": ["fake-discord"],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        owns_guild = self._owns_guild(session)
        if not owns_guild:  # the guild lives on another shard: this session hears nothing of it
            ready["guilds"] = []
        await self._send_dispatch(session, "READY", ready)
        if owns_guild:
            await self._send_dispatch(session, "GUILD_CREATE", self.guild_object())
        session.ready = True
        self._notify()

    def guild_object(self) -> dict:
        role = {"color": 0, "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
                "hoist": False, "icon": None, "unicode_emoji": None, "managed": False, "mentionable": False,
                "flags": 0}
        members = [self.member_object(u) for u in (*self.users.values(), self.bot_user)]
        channels = [{k: v for k, v in c.channel_object().items() if k != "guild_id"}
                    for c in self.channels.values() if c.type == 0]   # every text channel (add_channel's too)
        return {
            "id": self.guild_id, "name": "Pit Lane Club", "unavailable": False, "owner_id": self.owner.id,
            "member_count": len(members), "large": False, "joined_at": TIMESTAMP, "icon": None, "splash": None,
            "discovery_splash": None, "banner": None, "description": None, "features": [], "emojis": [],
            "stickers": [], "roles": [{**role, **self.role_object(role_id)} for role_id in self.roles],
            "channels": channels,
            "threads": [self.channels["thread"].channel_object()],
            "members": members, "voice_states": [], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [], "premium_tier": 0,
            "premium_subscription_count": 0, "preferred_locale": "en-US", "system_channel_id": None,
            "system_channel_flags": 0, "rules_channel_id": None, "public_updates_channel_id": None,
            "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0,
            "max_members": 500000, "vanity_url_code": None, "application_id": None, "lazy": True,
        }

    # ----------------------------------------------------------------------------------------
    # REST
    # ----------------------------------------------------------------------------------------

    async def _read_body(self, request: web.Request) -> tuple[Any, list[FilePart], str]:
        content_type = request.headers.get("Content-Type", "")
        raw = await request.read()
        if content_type.startswith("multipart/"):
            return *parse_multipart(content_type, raw), content_type
        if not raw:
            return None, [], content_type
        try:
            return json.loads(raw), [], content_type
        except ValueError:
            return raw.decode(errors="replace"), [], content_type

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        record = HttpRecord(time.monotonic(), request.method, "/" + request.match_info["path"],
                            dict(request.query),
                            {k: v for k, v in request.headers.items()
                             if k.lower() in ("authorization", "user-agent", "content-type", "x-audit-log-reason")},
                            "", None)
        self._requests.append(record)
        try:
            record.body, record.files, record.content_type = await self._read_body(request)
        except Exception as exc:  # a malformed body is the bot's bug; record and refuse it
            record.kind = "malformed"
            return self._answer(record, DiscordError(400, 50109, f"The request body contains invalid JSON: {exc}"))
        headers: dict[str, str] = {}
        try:
            handler, args = self._route(record)
            if (held := self.hold.pop(record.kind, 0.0)) > 0:   # a slow Discord: the bot waits on this answer
                await asyncio.sleep(held)
            headers, limited = self.limits.admit(record.kind, _major(args))
            if limited is not None:
                return self._limited(record, limited)
            result = await handler(record, *args)
        except DiscordError as exc:
            return self._answer(record, exc, headers)
        except Exception as exc:  # a bug in the fake: answer 500 and make it visible
            self._problems.append(f"fake Discord crashed on {record.method} {record.path}: {exc!r}")
            return self._answer(record, DiscordError(500, 0, f"fake Discord error: {exc!r}"))
        if _on_others_behalf(record, None):
            self._touch_latest_interaction(record.at)
        if result is None:
            record.status = 204
            self._notify()
            return web.Response(status=204, headers=headers)
        status, body = result if isinstance(result, tuple) else (200, result)
        record.status, record.response = status, body
        self._notify()
        return json_response(body, status, headers)

    def _limited(self, record: HttpRecord, limited: Limited) -> web.Response:
        scope = limited.headers.get("X-RateLimit-Scope", "")
        record.status, record.response = 429, limited.body
        record.error = f"429 {scope} rate limit, retry after {limited.body['retry_after']}s"
        self._notify()
        return json_response(limited.body, 429, limited.headers)

    def _touch_latest_interaction(self, at: float) -> None:
        latest = max((i for i in self._interactions.values() if i.dispatched_at <= at),
                     key=lambda i: i.dispatched_at, default=None)
        if latest is not None:
            latest.last_activity = max(latest.last_activity, time.monotonic())

    def _answer(self, record: HttpRecord, error: DiscordError, headers: dict[str, str] | None = None) -> web.Response:
        record.status, record.error, record.response = error.status, f"{error.code} {error.message}", error.body()
        self._notify()
        return json_response(error.body(), error.status, headers)

    async def _outside_api(self, request: web.Request) -> web.StreamResponse:
        record = HttpRecord(time.monotonic(), request.method, request.path, dict(request.query),
                            dict(request.headers), request.headers.get("Content-Type", ""), None, kind="unknown")
        self._requests.append(record)
        return self._answer(record, DiscordError(404, 0, "404: Not Found"))

    async def _cdn(self, request: web.Request) -> web.StreamResponse:
        if request.match_info["message"] == "uploads":
            data = self._uploads.get(request.match_info["attachment"])
        else:
            message = self._messages.get(request.match_info["message"])
            data = (message or {}).get("_files", {}).get(request.match_info["attachment"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    _ROUTES: list[tuple[str, str, str]] = [
        ("GET", r"/gateway", "gateway"),
        ("GET", r"/gateway/bot", "gateway_bot"),
        ("GET", r"/users/@me", "me"),
        ("POST", r"/users/@me/channels", "dm_open"),
        ("GET", r"/oauth2/applications/@me", "application"),
        ("GET", r"/applications/@me", "application"),
        ("PUT", r"/applications/(?P<app>\d+)/commands", "commands_put"),
        ("GET", r"/applications/(?P<app>\d+)/commands", "commands_get"),
        ("POST", r"/applications/(?P<app>\d+)/commands", "command_upsert"),
        ("PUT", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands", "commands_put"),
        ("GET", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands", "commands_get"),
        ("POST", r"/applications/(?P<app>\d+)/guilds/(?P<guild>\d+)/commands", "command_upsert"),
        ("POST", r"/interactions/(?P<iid>\d+)/(?P<token>[^/]+)/callback", "callback"),
        ("POST", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)", "followup"),
        ("GET", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original", "get_original"),
        ("PATCH", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original", "edit_original"),
        ("DELETE", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/@original", "delete_original"),
        ("GET", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>\d+)", "get_followup"),
        ("PATCH", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>\d+)", "edit_followup"),
        ("DELETE", r"/webhooks/(?P<app>\d+)/(?P<token>[^/]+)/messages/(?P<mid>\d+)", "delete_followup"),
        ("GET", r"/channels/(?P<cid>\d+)", "channel_get"),
        ("POST", r"/channels/(?P<cid>\d+)/threads", "thread_create"),
        ("PUT", r"/channels/(?P<cid>\d+)/thread-members/(?P<uid>\d+)", "thread_member_add"),
        ("GET", r"/channels/(?P<cid>\d+)/thread-members", "thread_members_get"),
        ("POST", r"/channels/(?P<cid>\d+)/messages", "channel_post"),
        ("GET", r"/channels/(?P<cid>\d+)/messages", "channel_history"),
        ("GET", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "channel_message_get"),
        ("PATCH", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "channel_message_edit"),
        ("DELETE", r"/channels/(?P<cid>\d+)/messages/(?P<mid>\d+)", "channel_message_delete"),
        ("GET", r"/guilds/(?P<gid>\d+)/roles", "roles_get"),
        ("POST", r"/guilds/(?P<gid>\d+)/roles", "role_create"),
        ("DELETE", r"/guilds/(?P<gid>\d+)/roles/(?P<rid>\d+)", "role_delete"),
        ("PUT", r"/guilds/(?P<gid>\d+)/members/(?P<uid>\d+)/roles/(?P<rid>\d+)", "member_role_add"),
        ("DELETE", r"/guilds/(?P<gid>\d+)/members/(?P<uid>\d+)/roles/(?P<rid>\d+)", "member_role_remove"),
    ]

    def _route(self, record: HttpRecord) -> tuple[Callable, tuple]:
        for method, pattern, kind in self._ROUTES:
            match = re.fullmatch(pattern, record.path)
            if match and method == record.method:
                record.kind = kind
                return getattr(self, f"_h_{kind}"), (match.groupdict(),)
        record.kind = "unknown"

        async def not_found(_record: HttpRecord) -> Any:
            raise DiscordError(404, 0, "404: Not Found")
        return not_found, ()

    # --- authentication ------------------------------------------------------------------------

    def _require_bot_auth(self, record: HttpRecord) -> None:
        if record.headers.get("Authorization") != f"Bot {self.token}":
            raise DiscordError(401, 0, "401: Unauthorized")

    def _check_app(self, app: str) -> None:
        if app != self.app_id:
            raise unknown_webhook()

    # --- login and gateway discovery -------------------------------------------------------------

    async def _h_gateway(self, record: HttpRecord, _m: dict) -> Any:
        return {"url": self.gateway_url}

    async def _h_gateway_bot(self, record: HttpRecord, _m: dict) -> Any:
        self._require_bot_auth(record)
        return {"url": self.gateway_url, "shards": 1,
                "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 14_400_000,
                                        "max_concurrency": 1}}

    async def _h_me(self, record: HttpRecord, _m: dict) -> Any:
        self._require_bot_auth(record)
        return {**self.bot_user.user_object(), "verified": True, "mfa_enabled": False, "locale": "en-US",
                "email": None, "premium_type": 0}

    async def _h_application(self, record: HttpRecord, _m: dict) -> Any:
        self._require_bot_auth(record)
        return {"id": self.app_id, "name": "Pitboss", "description": "", "icon": None, "bot_public": True,
                "bot_require_code_grant": False, "owner": self.owner.user_object(), "team": None,
                "verify_key": "00" * 32, "flags": 0, "summary": "", "rpc_origins": [], "tags": [],
                "bot": self.bot_user.user_object(), "approximate_guild_count": 1,
                "interactions_endpoint_url": None, "redirect_uris": [], "integration_types_config": {"0": {}}}

    # --- application commands ------------------------------------------------------------------

    def _scope(self, app: str, guild: str | None) -> str | None:
        if app != self.app_id:
            raise DiscordError(403, 50001, "Missing Access")
        if guild is not None and guild != self.guild_id:
            raise DiscordError(403, 50001, "Missing Access")
        return guild

    def _store_command(self, scope: str | None, command: dict, version: str) -> dict:
        key = (scope, command.get("name", ""))
        command_id = self._command_ids.setdefault(key, snowflake())
        stored = {"type": 1, "description": "", "options": [], "default_member_permissions": None,
                  "nsfw": False, "contexts": None, "integration_types": [0], "dm_permission": True,
                  **copy.deepcopy(command), "id": command_id, "application_id": self.app_id, "version": version}
        if scope is not None:
            stored["guild_id"] = scope
        return stored

    async def _h_commands_put(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        scope = self._scope(m["app"], m.get("guild"))
        commands = record.body
        if not isinstance(commands, list):
            raise invalid_form("body must be a list of commands")
        if len([c for c in commands if c.get("type", 1) == 1]) > 100:
            raise invalid_form("at most 100 CHAT_INPUT commands")
        problems = [p for c in commands for p in command_problems(c)]
        names = [(c.get("type", 1), c.get("name")) for c in commands]
        if len(set(names)) != len(names):
            problems.append(f"duplicate command names {names}")
        if problems:
            raise invalid_form(*problems)
        version = snowflake()
        self._commands[scope] = [self._store_command(scope, c, version) for c in commands]
        return self._commands[scope]

    async def _h_commands_get(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        return self._commands.get(self._scope(m["app"], m.get("guild")), [])

    async def _h_command_upsert(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        scope = self._scope(m["app"], m.get("guild"))
        command = record.body or {}
        problems = command_problems(command)
        if problems:
            raise invalid_form(*problems)
        stored = self._store_command(scope, command, snowflake())
        existing = [c for c in self._commands.get(scope, []) if c["name"] != stored["name"]]
        created = len(existing) == len(self._commands.get(scope, []))
        self._commands[scope] = existing + [stored]
        return (201 if created else 200), stored

    # --- interactions --------------------------------------------------------------------------

    def _interaction_for_callback(self, record: HttpRecord, m: dict) -> _Interaction:
        state = self._interactions.get(m["iid"])
        if state is None or state.token != m["token"]:
            raise unknown_interaction()
        record.interaction_id = state.id
        state.requests.append(record)
        state.last_activity = record.at
        return state

    def _interaction_for_webhook(self, record: HttpRecord, m: dict) -> _Interaction:
        self._check_app(m["app"])
        state = self._by_token.get(m["token"])
        if state is None:
            raise unknown_webhook()
        record.interaction_id = state.id
        state.requests.append(record)
        state.last_activity = record.at
        if self.now() - state.born > self.token_lifetime:
            raise DiscordError(401, 50027, "Invalid Webhook Token")
        if state.ack_type is None:
            raise unknown_webhook()  # no initial response (yet, or ever): the token is not usable
        return state

    def _validate_message(self, body: dict, files: list[FilePart], size_limit: int, *, new: bool) -> None:
        problems = []
        content = body.get("content")
        if content is not None and len(content) > CONTENT_LIMIT:
            problems.append(f"content: {len(content)} characters, at most {CONTENT_LIMIT}")
        if len(body.get("embeds") or []) > EMBED_LIMIT:
            problems.append(f"embeds: at most {EMBED_LIMIT}")
        if len(files) > FILE_LIMIT:
            problems.append(f"files: at most {FILE_LIMIT}")
        flags = int(body.get("flags") or 0)
        if flags & ~SENDABLE_FLAGS:
            problems.append(f"flags: {flags} has bits that cannot be sent")
        attachments = body.get("attachments") or []
        file_fields = {f.field for f in files}
        for attachment in attachments:
            # New uploads are referenced by the integer n of their files[n] part; kept ones by their id.
            if isinstance(attachment.get("id"), int) and f"files[{attachment['id']}]" not in file_fields:
                problems.append(f"attachments: id {attachment['id']} has no files[{attachment['id']}] part")
            if len(attachment.get("description") or "") > ALT_TEXT_LIMIT:
                problems.append(f"attachments: description longer than {ALT_TEXT_LIMIT}")
        for part in files:
            if not re.fullmatch(r"files\[\d+\]", part.field):
                problems.append(f"multipart field {part.field!r} is not files[n]")
        if new and not (content or body.get("embeds") or files or body.get("components") or body.get("poll")
                        or body.get("sticker_ids")):
            problems.append("Cannot send an empty message")
        if problems:
            raise invalid_form(*problems)
        for part in files:
            if len(part.data) > size_limit:
                raise DiscordError(413, 40005, "Request entity too large")

    def _new_message(self, state: _Interaction | None, channel_id: str, body: dict, files: list[FilePart],
                     *, flags: int, kind: int, viewer: str | None) -> dict:
        message_id = snowflake()
        message = {
            "id": message_id, "channel_id": channel_id, "guild_id": self.guild_id, "type": kind,
            "author": self.bot_user.user_object(), "content": "", "embeds": [], "attachments": [],
            "components": [], "mentions": [], "mention_roles": [], "mention_everyone": False, "pinned": False,
            "tts": False, "timestamp": TIMESTAMP, "edited_timestamp": None, "flags": flags, "_files": {},
        }
        if state is not None:
            message["webhook_id"] = self.app_id
            message["application_id"] = self.app_id
        self._messages[message_id] = message
        # Only a new message notifies the users it mentions (edits never do), as allowed_mentions allows.
        message["_notified"] = [] if flags & (EPHEMERAL | SUPPRESS_NOTIFICATIONS) else _notified(body)
        if flags & EPHEMERAL and viewer is not None:
            self._message_viewer[message_id] = viewer
        self._apply_edit(message, body, files)
        return message

    def _apply_edit(self, message: dict, body: dict, files: list[FilePart]) -> None:
        for key in ("content", "embeds", "components", "allowed_mentions", "tts", "poll"):
            if key in body and body[key] is not None:
                message[key] = copy.deepcopy(body[key])
        by_field = {f.field: f for f in files}
        if "attachments" in body or files:
            kept, new_files = [], {}
            for attachment in body.get("attachments") or []:
                part = by_field.get(f"files[{attachment.get('id')}]")
                if part is None:  # keeping an existing attachment by its id
                    old = next((a for a in message["attachments"] if a["id"] == str(attachment.get("id"))), None)
                    if old is not None:
                        kept.append(old)
                        new_files[old["id"]] = message["_files"].get(old["id"], b"")
                    continue
                attachment_id = snowflake()
                url = f"{self.url}/attachments/{message['id']}/{attachment_id}/{part.filename}"
                kept.append({"id": attachment_id, "filename": attachment.get("filename") or part.filename,
                             "description": attachment.get("description"), "size": len(part.data),
                             "url": url, "proxy_url": url, "content_type": _sniff(part.data),
                             **_png_size(part.data)})
                new_files[attachment_id] = part.data
            message["attachments"], message["_files"] = kept, new_files

    async def _h_callback(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_callback(record, m)
        if state.invalid or record.at - state.dispatched_at > self.deadline:
            state.invalid = True
            raise unknown_interaction()
        if state.ack_type is not None:
            raise already_acknowledged()
        body = record.body if isinstance(record.body, dict) else {}
        kind = body.get("type")
        if kind not in CALLBACKS_FOR.get(state.type, set()):
            raise invalid_form(f"type: callback type {kind} is not valid for interaction type {state.type}")
        data = body.get("data") or {}
        message: dict | None = None
        if kind == AUTOCOMPLETE_RESULT:
            choices = data.get("choices")
            if not isinstance(choices, list) or len(choices) > AUTOCOMPLETE_CHOICES_LIMIT:
                raise invalid_form(f"data.choices: a list of at most {AUTOCOMPLETE_CHOICES_LIMIT}")
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            flags = int(data.get("flags") or 0)
            if flags & ~EPHEMERAL:
                raise invalid_form("data.flags: only EPHEMERAL is allowed with a deferral")
            message = self._new_message(state, state.channel.id, {}, [], flags=flags | LOADING, kind=20,
                                        viewer=state.user.id)
            state.original_id, state.original_loading = message["id"], True
        elif kind == CHANNEL_MESSAGE:
            self._validate_message(data, record.files, state.attachment_size_limit, new=True)
            flags = int(data.get("flags") or 0)
            message = self._new_message(state, state.channel.id, data, record.files, flags=flags, kind=20,
                                        viewer=state.user.id)
            state.original_id = message["id"]
        elif kind in (UPDATE_MESSAGE, DEFERRED_UPDATE):
            target = self._messages.get(state.payload.get("message", {}).get("id", ""))
            if target is None:
                raise unknown_message()
            if kind == UPDATE_MESSAGE:
                self._validate_message(data, record.files, state.attachment_size_limit, new=False)
                self._apply_edit(target, data, record.files)
                target["edited_timestamp"] = TIMESTAMP
            state.original_id, message = target["id"], target
        elif kind == MODAL and (not data.get("custom_id") or not 1 <= len(data.get("title") or "") <= 45):
            raise invalid_form("data: a modal needs custom_id and a 1-45 character title")
        state.ack_type = kind
        if record.query.get("with_response") not in ("1", "true", "True"):
            return None  # 204 No Content
        interaction: dict[str, Any] = {"id": state.id, "type": state.type}
        if message is not None:
            interaction.update(response_message_id=message["id"],
                               response_message_loading=bool(message["flags"] & LOADING),
                               response_message_ephemeral=bool(message["flags"] & EPHEMERAL))
        resource: dict[str, Any] = {"type": kind}
        if message is not None:
            resource["message"] = _public_message(message)
        return {"interaction": interaction, "resource": resource}

    async def _h_followup(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        body = record.body if isinstance(record.body, dict) else {}
        self._validate_message(body, record.files, state.attachment_size_limit, new=True)
        original = self._messages.get(state.original_id or "")
        replaced = bool(original and state.original_loading and not original.get("deleted"))
        if replaced:
            # Discord: the first follow-up after a deferral edits the "thinking" message, whose
            # ephemerality was fixed by the deferral (the follow-up's own EPHEMERAL flag is ignored).
            assert original is not None
            self._apply_edit(original, body, record.files)
            original["flags"] = (original["flags"] & EPHEMERAL) | (int(body.get("flags") or 0) & ~EPHEMERAL)
            state.original_loading = False
            message = original
        else:
            message = self._new_message(state, state.channel.id, body, record.files,
                                        flags=int(body.get("flags") or 0), kind=0, viewer=state.user.id)
        state.followups.append(Followup(record, copy.deepcopy(message), replaced))
        if record.query.get("wait") not in ("1", "true", "True"):
            return None
        return _public_message(message)

    def _webhook_message(self, state: _Interaction, message_id: str | None) -> dict:
        if message_id is None:
            message_id = state.original_id
        else:
            owned = {f.message["id"] for f in state.followups} | {state.original_id}
            if message_id not in owned:
                raise unknown_message()
        message = self._messages.get(message_id or "")
        if message is None or message.get("deleted"):
            raise unknown_message()
        return message

    async def _h_get_original(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        return _public_message(self._webhook_message(state, None))

    async def _h_edit_original(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        message = self._webhook_message(state, None)
        body = record.body if isinstance(record.body, dict) else {}
        self._validate_message(body, record.files, state.attachment_size_limit, new=False)
        self._apply_edit(message, body, record.files)
        message["flags"] &= ~LOADING
        message["edited_timestamp"] = TIMESTAMP
        state.original_loading = False
        return _public_message(message)

    async def _h_delete_original(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        message = self._webhook_message(state, None)
        message["deleted"] = True
        state.original_deleted = True
        state.original_loading = False
        return None

    async def _h_get_followup(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        return _public_message(self._webhook_message(state, m["mid"]))

    async def _h_edit_followup(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        message = self._webhook_message(state, m["mid"])
        body = record.body if isinstance(record.body, dict) else {}
        self._validate_message(body, record.files, state.attachment_size_limit, new=False)
        self._apply_edit(message, body, record.files)
        message["edited_timestamp"] = TIMESTAMP
        return _public_message(message)

    async def _h_delete_followup(self, record: HttpRecord, m: dict) -> Any:
        state = self._interaction_for_webhook(record, m)
        message = self._webhook_message(state, m["mid"])
        message["deleted"] = True
        if message["id"] == state.original_id:
            state.original_deleted = True
        return None

    # --- channels --------------------------------------------------------------------------------

    def _known_channel(self, channel_id: str) -> FakeChannel:
        for channel in (*self.channels.values(), *self.dm_channels.values()):
            if channel.id == channel_id:
                return channel
        raise DiscordError(404, 10003, "Unknown Channel")

    async def _h_dm_open(self, record: HttpRecord, _m: dict) -> Any:
        """Create DM (POST /users/@me/channels {recipient_id}): the bot's DM channel with a member (type 1),
        the same one each time."""
        self._require_bot_auth(record)
        body = record.body if isinstance(record.body, dict) else {}
        recipient = str(body.get("recipient_id", ""))
        if recipient not in {u.id for u in self.users.values()}:
            raise DiscordError(400, 50035, "Invalid Form Body", {"recipient_id": "Unknown User"})
        inbox = self.dm_channels.get(recipient)
        if inbox is None:
            inbox = self.dm_channels[recipient] = FakeChannel(f"dm-{recipient}", snowflake(), 1, "",
                                                              owner_id=recipient)
        return {"id": inbox.id, "type": 1, "last_message_id": None, "flags": 0,
                "recipients": [self._member_by_id(recipient).user_object()]}

    def _channel_message(self, channel_id: str, message_id: str) -> dict:
        message = self._messages.get(message_id)
        if message is None or message["channel_id"] != channel_id or message.get("deleted") or \
                message["flags"] & EPHEMERAL:
            raise unknown_message()
        return message

    async def _h_thread_create(self, record: HttpRecord, m: dict) -> Any:
        """Start a thread without a message (POST /channels/{id}/threads), as Discord does: a public (11) or
        private (12, with `invitable`) thread of a text channel, named 1-100 characters, the bot its owner
        and, for a private one, its first member; THREAD_CREATE follows on the gateway. Without Create Public
        (or Private) Threads the bot gets 50013 Missing Permissions."""
        self._require_bot_auth(record)
        parent = self._known_channel(m["cid"])
        body = record.body if isinstance(record.body, dict) else {}
        if parent.type != 0:
            raise invalid_form("a thread starts from a text channel")
        kind = body.get("type", 12)   # Discord's default, for a thread with no message, is a private one
        if kind not in (11, 12):
            raise invalid_form("type: a thread of a text channel is public (11) or private (12)")
        if not (self.bot_creates_threads if kind == 11 else self.bot_creates_private_threads):
            raise DiscordError(403, 50013, "Missing Permissions")
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise invalid_form("name: 1-100 characters")
        # `invitable` counts only for a private thread (discord.py sends it for every thread)
        thread = FakeChannel(name, snowflake(), kind, self.guild_id, parent_id=parent.id, owner_id=self.bot_user.id,
                             invitable=bool(body.get("invitable", True)))
        self.channels[f"thread-{thread.id}"] = thread
        if kind == 12:
            self.thread_members[thread.id] = [self.bot_user.id]
        self.threads_created.append(thread)
        session = self._active_session()
        await self._send_dispatch(session, "THREAD_CREATE", {**thread.channel_object(), "newly_created": True})
        return thread.channel_object()

    # --- roles (discord.com/developers/docs/resources/guild, .../topics/permissions#permission-hierarchy) -------

    def _bot_may_manage(self, role_id: str | None = None) -> None:
        """Discord's checks on the bot managing roles: 50013 Missing Permissions without Manage Roles (or
        Administrator), or for a role not below the bot's highest role."""
        if not self.permissions_of(self.bot_user) & (MANAGE_ROLES | ADMINISTRATOR):
            raise DiscordError(403, 50013, "Missing Permissions")
        if role_id is not None:
            top = max((self.roles[r]["position"] for r in self.bot_user.roles if r in self.roles), default=0)
            if self.roles[role_id]["position"] >= top:
                raise DiscordError(403, 50013, "Missing Permissions")

    def _known_role(self, guild: str, role_id: str) -> str:
        if guild != self.guild_id:
            raise DiscordError(404, 10004, "Unknown Guild")
        if role_id not in self.roles:
            raise DiscordError(404, 10011, "Unknown Role")
        return role_id

    def _set_roles(self, user: FakeUser, roles: tuple[str, ...]) -> None:
        for key, known in self.users.items():
            if known.id == user.id:
                self.users[key] = FakeUser(known.name, known.id, roles, known.bot)

    async def _h_roles_get(self, record: HttpRecord, m: dict) -> Any:
        """Get Guild Roles: every role of the guild."""
        self._require_bot_auth(record)
        if m["gid"] != self.guild_id:
            raise DiscordError(404, 10004, "Unknown Guild")
        return [self.role_object(role_id) for role_id in self.roles]

    async def _h_role_create(self, record: HttpRecord, m: dict) -> Any:
        """Create Guild Role: made at position 1 (the others above it move up), with no more permissions than
        the bot has; GUILD_ROLE_CREATE follows on the gateway."""
        self._require_bot_auth(record)
        if m["gid"] != self.guild_id:
            raise DiscordError(404, 10004, "Unknown Guild")
        self._bot_may_manage()
        body = record.body if isinstance(record.body, dict) else {}
        name = body.get("name", "new role")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            raise invalid_form("name: 1-100 characters")
        permissions = int(body.get("permissions") or 0)
        if permissions & ~self.permissions_of(self.bot_user):
            raise DiscordError(403, 50013, "Missing Permissions")
        for info in self.roles.values():
            if info["position"] >= 1:
                info["position"] += 1
        role_id = snowflake()
        self.roles[role_id] = {"name": name, "position": 1, "hoist": bool(body.get("hoist")),
                               "mentionable": bool(body.get("mentionable"))}
        self.role_permissions[role_id] = permissions
        await self._send_dispatch(self._active_session(), "GUILD_ROLE_CREATE",
                                  {"guild_id": self.guild_id, "role": self.role_object(role_id)})
        return self.role_object(role_id)

    async def _h_role_delete(self, record: HttpRecord, m: dict) -> Any:
        """Delete Guild Role: 204; its holders lose it."""
        self._require_bot_auth(record)
        role_id = self._known_role(m["gid"], m["rid"])
        self._bot_may_manage(role_id)
        self.delete_role(role_id)
        return None

    def delete_role(self, role_id: str) -> None:
        """A role gone (deleted by the bot, or by hand in the server's settings: then the bot hears nothing)."""
        del self.roles[role_id]
        del self.role_permissions[role_id]
        for user in list(self.users.values()):
            if role_id in user.roles:
                self._set_roles(user, tuple(r for r in user.roles if r != role_id))

    def _role_member(self, m: dict) -> tuple[FakeUser, str]:
        role_id = self._known_role(m["gid"], m["rid"])
        member = next((u for u in self.users.values() if u.id == m["uid"]), None)
        if member is None:
            raise DiscordError(404, 10007, "Unknown Member")
        self._bot_may_manage(role_id)
        return member, role_id

    async def _h_member_role_add(self, record: HttpRecord, m: dict) -> Any:
        """Add Guild Member Role: 204."""
        self._require_bot_auth(record)
        member, role_id = self._role_member(m)
        if role_id not in member.roles:
            self._set_roles(member, (*member.roles, role_id))
        return None

    async def _h_member_role_remove(self, record: HttpRecord, m: dict) -> Any:
        """Remove Guild Member Role: 204."""
        self._require_bot_auth(record)
        member, role_id = self._role_member(m)
        self._set_roles(member, tuple(r for r in member.roles if r != role_id))
        return None

    async def _h_thread_member_add(self, record: HttpRecord, m: dict) -> Any:
        """Add Thread Member (PUT /channels/{thread}/thread-members/{user}): 204, and THREAD_MEMBERS_UPDATE
        on the gateway. The bot must be in a private thread to add anyone to it."""
        self._require_bot_auth(record)
        thread = self._known_channel(m["cid"])
        if thread.type not in (11, 12):
            raise invalid_form("not a thread")
        if m["uid"] not in {u.id for u in self.users.values()} | {self.bot_user.id}:
            raise DiscordError(404, 10013, "Unknown User")
        members = self.thread_members.setdefault(thread.id, [self.bot_user.id] if thread.type == 12 else [])
        if thread.type == 12 and self.bot_user.id not in members:
            raise DiscordError(403, 50001, "Missing Access")
        if m["uid"] not in members:
            members.append(m["uid"])
            await self._send_dispatch(self._active_session(), "THREAD_MEMBERS_UPDATE", {
                "id": thread.id, "guild_id": self.guild_id, "member_count": len(members),
                "added_members": [{"id": thread.id, "user_id": m["uid"], "join_timestamp": TIMESTAMP, "flags": 0,
                                   "member": self.member_object(self._member_by_id(m["uid"]))}]})
        return None

    async def _h_thread_members_get(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        thread = self._known_channel(m["cid"])
        return [{"id": thread.id, "user_id": uid, "join_timestamp": TIMESTAMP, "flags": 0}
                for uid in self.thread_members.get(thread.id, [])]

    def _member_by_id(self, user_id: str) -> FakeUser:
        return next(u for u in (*self.users.values(), self.bot_user) if u.id == user_id)

    def may_read(self, channel: str | FakeChannel, viewer: str | FakeUser) -> bool:
        """Whether a member can read a channel, as Discord decides: a private thread only its members and
        those with Manage Threads; anything else everyone here."""
        thread = self._channel(channel)
        if thread.type != 12:
            return True
        member = self._user(viewer)
        members = self.snapshot(lambda f: list(f.thread_members.get(thread.id, [])))
        return member.id in members or bool(self.permissions_of(member) & MANAGE_THREADS)

    def read_messages(self, channel: str | FakeChannel, viewer: str | FakeUser) -> list[dict]:
        """What GET /channels/{id}/messages answers a member: the messages they see, or, in a private thread
        they are not in, 403 50001 Missing Access."""
        if not self.may_read(channel, viewer):
            raise DiscordError(403, 50001, "Missing Access")
        return self.channel_messages(channel, viewer)

    async def _h_channel_get(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        return self._known_channel(m["cid"]).channel_object()

    async def _h_channel_post(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        channel = self._known_channel(m["cid"])
        body = record.body if isinstance(record.body, dict) else {}
        self._validate_message(body, record.files, ATTACHMENT_SIZE_LIMIT, new=True)
        if int(body.get("flags") or 0) & EPHEMERAL:
            raise invalid_form("flags: channel messages cannot be ephemeral")
        if channel.type == 1 and channel.owner_id in self.dms_refused_by:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        message = self._new_message(None, channel.id, body, record.files, flags=int(body.get("flags") or 0), kind=0,
                                    viewer=None)
        if channel.type == 1:   # a direct message: no server's, and it notifies its one reader
            message.pop("guild_id")
            message["_notified"] = [channel.owner_id]
        return _public_message(message)

    async def _h_channel_history(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        channel = self._known_channel(m["cid"])
        limit = int(record.query.get("limit", 50))
        visible = [_public_message(x) for x in self._messages.values()
                   if x["channel_id"] == channel.id and not x.get("deleted") and not x["flags"] & EPHEMERAL]
        return list(reversed(visible))[:limit]

    async def _h_channel_message_get(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        self._known_channel(m["cid"])
        return _public_message(self._channel_message(m["cid"], m["mid"]))

    async def _h_channel_message_edit(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        self._known_channel(m["cid"])
        message = self._channel_message(m["cid"], m["mid"])
        if message["author"]["id"] != self.bot_user.id:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        body = record.body if isinstance(record.body, dict) else {}
        self._validate_message(body, record.files, ATTACHMENT_SIZE_LIMIT, new=False)
        self._apply_edit(message, body, record.files)
        message["edited_timestamp"] = TIMESTAMP
        return _public_message(message)

    async def _h_channel_message_delete(self, record: HttpRecord, m: dict) -> Any:
        self._require_bot_auth(record)
        self._known_channel(m["cid"])
        self._channel_message(m["cid"], m["mid"])["deleted"] = True
        return None


def parse_multipart(content_type: str, raw: bytes) -> tuple[Any, list[FilePart]]:
    """Split a multipart/form-data body into the decoded `payload_json` and the file parts."""
    header = email.message.Message()
    header["Content-Type"] = content_type
    boundary = header.get_param("boundary")
    if not boundary:
        raise ValueError("multipart body without a boundary")
    body: Any = None
    files: list[FilePart] = []
    chunks = raw.split(b"--" + str(boundary).encode())
    if len(chunks) < 3 or not chunks[-1].startswith(b"--"):
        raise ValueError("multipart body is not terminated by its closing boundary")
    for chunk in chunks[1:-1]:
        if not chunk.startswith(b"\r\n") or not chunk.endswith(b"\r\n"):
            raise ValueError("multipart part is not delimited by CRLF")
        head, separator, data = chunk[2:-2].partition(b"\r\n\r\n")
        if not separator:
            raise ValueError("multipart part without a blank line after its headers")
        headers = email.parser.HeaderParser().parsestr(head.decode("utf-8"))
        name = headers.get_param("name", header="content-disposition")
        filename = headers.get_param("filename", header="content-disposition")
        if name == "payload_json":
            body = json.loads(data.decode("utf-8"))
        else:
            files.append(FilePart(str(name or ""), str(filename or ""), headers.get("Content-Type", ""), data))
    return body, files


def _notified(body: dict) -> list[str]:
    """The user ids a new message pings: <@id> mentions in its content that allowed_mentions permits."""
    mentioned = list(dict.fromkeys(re.findall(r"<@!?(\d+)>", body.get("content") or "")))
    allowed = body.get("allowed_mentions")
    if allowed is None or "users" in (allowed.get("parse") or []):
        return mentioned
    permitted = {str(u) for u in allowed.get("users") or []}
    return [u for u in mentioned if u in permitted]


def _major(args: tuple) -> str:
    """A request's major parameters (what its route bucket is kept per): channel, webhook token, interaction."""
    found = args[0] if args else {}
    return "/".join(str(found[k]) for k in ("cid", "gid", "token", "iid") if k in found)


def _on_others_behalf(record: HttpRecord, interaction_id: str | None) -> bool:
    """A request on a message made for whichever interaction came latest: a channel route, or an edit through
    an earlier interaction's webhook (the turn message its follow-up posted)."""
    return record.kind.startswith("channel_") or (
        record.kind in ("edit_followup", "delete_followup") and record.interaction_id != interaction_id)


def _public_message(message: dict) -> dict:
    """A message object as the API returns it (without the fake's private keys)."""
    return {k: copy.deepcopy(v) for k, v in message.items() if not k.startswith("_") and k != "deleted"}


def _find_component(components: list[dict], custom_id: str) -> dict | None:
    for component in components:
        if component.get("custom_id") == custom_id:
            return component
        for key in ("components", "accessory"):
            nested = component.get(key)
            if isinstance(nested, dict):
                nested = [nested]
            if nested:
                found = _find_component(nested, custom_id)
                if found is not None:
                    return found
    return None


def _sniff(data: bytes) -> str:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    return "application/octet-stream"


def _png_size(data: bytes) -> dict:
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return {"width": int.from_bytes(data[16:20], "big"), "height": int.from_bytes(data[20:24], "big")}
    return {}
