"""The Discord front door: slash commands that defer, call the service, and post the map.

Only bot/chat imports discord (this module, its views, its request pacing and routes). This module
parses interactions into the shared command grammar, runs them through the GameService, and presents
replies: public messages with the PNG attached (alt text set) for accepted actions, ephemeral messages
for refusals, a generic apology for bugs.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

import aiohttp
import discord
from discord import app_commands
from discord.ext import tasks

from bot.chat import logs
from bot.chat.boards import BoardKeeper
from bot.chat.layout import MORE_LENGTH, Slash, discord_layout, group_words
from bot.chat.pacing import GlobalPacer, global_rate, pace
from bot.chat.rank_roles import RoleKeeper
from bot.chat.routes import InteractionWebhooks
from bot.chat.views import (
    ActionButton,
    CancelPlanButton,
    ConfirmPlanButton,
    answer_privately,
    content_and_mentions,
    edit_earlier,
    files_of,
    post_notice,
    present_status,
    publish,
    retired,
    send_private,
    shows_live_turn,
    view_for,
)
from bot.heartbeat import BEAT_SECONDS, beat_seconds, heartbeat_path, write_heartbeat
from bot.storage.errors import StoreUnavailable
from bot.storage.store import Store, StoreBusy
from bot.table.jobs.drawing import RenderProcesses
from bot.table.jobs.heavy import HeavyWork
from bot.table.jobs.memory import settle_memory
from bot.table.protocol.commands import (
    MAX_OPTION_LENGTH,
    Command,
    CommandSyntaxError,
    OptionSpec,
    coerce,
    command_table,
)
from bot.table.protocol.replies import RESIGN_PREFIX, Direct, Notice, Reply, refusal
from bot.table.service.entry import Actor, GameService
from bot.table.service.league import board_channel_of
from bot.table.service.queue import ThreadRefused
from bot.table.service.rank_roles import problem_words
from bot.table.trust.guards import RateLimit, plain_name
from bot.table.trust.importer import MAX_IMPORT_BYTES
from rules.errors import GameError
from rules.registry import get_ruleset

log = logging.getLogger("pitboss.discord")

APOLOGY = "Sorry, something went wrong on my side. Nothing was changed; please try again."
NO_DATABASE = "Sorry, my database is not answering just now. Nothing was changed; please try again in a minute."
# A command is carried out before it is acknowledged only while Discord's 3 seconds leave room: the
# interaction must be this fresh when it arrives, and the answer come this soon (else it is deferred).
FRESH_SECONDS = 1.0
QUICK_ANSWER_SECONDS = 1.2
OWN_DEFAULTS_SECONDS = 0.3   # a player's own settings, read before an answer that they may make private
DEFAULT_TICK_SECONDS = 30.0
SYNC_HASH_KEY = "discord_commands_hash"
# On SIGTERM the commands in flight get this long to finish: with the closing after it, the bot is
# gone well within the 3 s a redeploy allows (docker stop kills at 10 s).
IN_FLIGHT_SECONDS = 2.0
SETTLE_SECONDS = 0.5   # how long a stop waits for the ratings the last games' ends left running
STOPPING = "I am restarting; please try again in a few seconds. Nothing was changed."
MOVED_ON = "That button is out of date: the game has moved on. Use the buttons on the latest message."
# Said once to a member whose direct messages are closed to the bot (bot.table.service.away routes their pings).
DMS_CLOSED = ("(Your direct messages are closed to me, so your pings come here instead. Allow direct messages "
              "from this server's members to get them privately, or choose /me settings notify:channel. I say "
              "this once.)")


def _failed(message: str, *args: Any) -> None:
    """Log the exception being handled, with its traceback, unless it is the database out of reach: the
    storage driver says an outage once when it begins and once when it ends, not once a failed request."""
    if not isinstance(sys.exc_info()[1], StoreUnavailable):
        log.exception(message, *args)


def _apology(error: BaseException) -> str:
    """What a member is told when their command failed (`error`)."""
    return NO_DATABASE if isinstance(error, StoreUnavailable) else APOLOGY


def tick_seconds() -> float:
    """How often the scheduler looks for due reminders and deadlines (env PITBOSS_TICK_SECONDS)."""
    return float(os.environ.get("PITBOSS_TICK_SECONDS", DEFAULT_TICK_SECONDS))


def actor_of(interaction: discord.Interaction) -> Actor:
    """The acting user, with Manage Server (or Administrator) counting as admin."""
    perms = interaction.permissions
    is_admin = bool(perms and (perms.manage_guild or perms.administrator))
    user = interaction.user
    return Actor(str(user.id), plain_name(user.display_name), is_admin=is_admin)


def _age_seconds(interaction: discord.Interaction) -> float:
    """How long ago Discord made the interaction (its id's timestamp against this machine's clock)."""
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


def channel_key(interaction: discord.Interaction) -> str:
    """Games are per channel or thread; a thread has its own id."""
    return str(interaction.channel_id)


def in_private_thread(interaction: discord.Interaction) -> bool:
    """Whether the interaction comes from a private thread (which may be a GM's: bot.table.service.gm_thread)."""
    channel = interaction.channel
    return isinstance(channel, discord.Thread) and channel.type == discord.ChannelType.private_thread


class PitbossBehaviour(discord.Client):
    """What a Pitboss client does, whether it runs every shard of the bot or a range of them (the
    sharded client puts discord.AutoShardedClient between this and discord.Client)."""

    def __init__(self, db_path: str | None = None, *, service: GameService | None = None,
                 guild_id: int | None = None, sync_commands: bool = True, force_sync: bool = False,
                 **options: Any):
        super().__init__(intents=discord.Intents.default(), **options)
        self.db_path = db_path
        self._service = service
        self.store: Store | None = None
        self.render_processes: RenderProcesses | None = None
        self.heavy: HeavyWork | None = None
        self.stopping = False   # set by shut_down: no new command is taken
        self._in_flight: set[asyncio.Task] = set()
        self._between_rounds = asyncio.Event()   # the scheduler is not in a round (shut_down waits for this)
        self._between_rounds.set()
        self.guild_id = guild_id
        self.sync_commands = sync_commands
        self.force_sync = force_sync
        self.webhooks = InteractionWebhooks()   # which interaction posted each turn message (tokens: memory only)
        shards, count = options.get("shard_ids"), options.get("shard_count")
        share = len(shards) / count if shards and count else 1.0   # this process's part of the bot's shards
        self.pacer = GlobalPacer(global_rate(share))   # every request outside the interaction routes waits here
        pace(self.http, self.pacer)
        self.boards = BoardKeeper(lambda: self.service, self._game_channel)   # each server's board of open tables
        self.rank_roles = RoleKeeper(self, lambda: self.service.rank_roles, self.send_direct)   # issue 40 item 4
        self.tree = app_commands.CommandTree(self)
        self.tree.error(self.on_app_command_error)
        build_commands(self.tree, self)

    async def setup_hook(self) -> None:
        if self._service is None:
            if self.db_path is None:
                raise ValueError("a Pitboss client needs a database path or a service")
            self.store = await Store.open(self.db_path)
            # the worker processes a busy bot draws and re-runs logs in, started when the work asks for
            # them (bot.table.jobs.drawing): until one is warm, a picture is drawn here, at once
            self.render_processes = RenderProcesses.configured()
            self.heavy = HeavyWork(process=True)
            self._service = GameService(self.store, rate_limit=RateLimit(),
                                        render_processes=self.render_processes, heavy=self.heavy)
        # this process's own drawing warmed on a thread while the rest starts, and waited for before the
        # gateway connects: the first picture after a start is drawn warm (issue 39, item 6)
        warming = self.render_processes.warm_at_start() if self.render_processes is not None else None
        self.service.set_thread_opener(self.open_queue_thread)
        self.add_dynamic_items(ActionButton, ConfirmPlanButton, CancelPlanButton)
        settle_memory()
        self.start_scheduler()
        if (path := heartbeat_path()) is not None:
            write_heartbeat(path, connected=False)   # not yet: a file left by an earlier run says nothing now
            self.heartbeat.change_interval(seconds=beat_seconds())
            self.heartbeat.start()
        if self.sync_commands:
            await self.sync_if_changed(force=self.force_sync)
            await self.post_unposted()
            await self.look_at_boards()
        if warming is not None:
            await warming

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A thread was deleted: a game played there ends (GameService.channel_gone)."""
        await self._gone(payload.thread_id)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        """A channel was deleted: a game played there ends (GameService.channel_gone)."""
        await self._gone(channel.id)

    async def _gone(self, channel_id: int) -> None:
        try:
            if await self.service.channel_gone(str(channel_id)):
                log.info("channel %s was deleted: its game ended", channel_id)
        except Exception:
            _failed(f"could not end the game of deleted channel {channel_id}")

    async def post_unposted(self) -> None:
        """The turns of games whose last move a crash kept from the channel (GameService.unposted), posted
        before the gateway connects: no command of this process can be in flight yet, so none is taken for
        one. Only the process with shard 0 looks."""
        try:
            await self.post_notices(await self.service.unposted())
        except Exception:
            _failed("could not look for moves left unposted by a crash")

    async def look_at_boards(self) -> None:
        """Each server's board of open tables looked at once (edited only if a change went unshown before a
        restart). Only the process with shard 0 looks."""
        try:
            self.boards.touch(await self.service.boards_kept())
        except Exception:
            _failed("could not look at the boards of open tables")

    @property
    def service(self) -> GameService:
        """The service every command goes through (made in setup_hook unless one was given)."""
        if self._service is None:
            raise RuntimeError("the client is not set up yet: setup_hook has not run")
        return self._service

    def start_scheduler(self) -> None:
        """Run the scheduler every PITBOSS_TICK_SECONDS, from the gateway's READY on."""
        self.scheduler.change_interval(seconds=tick_seconds())
        self.scheduler.start()

    @tasks.loop(seconds=DEFAULT_TICK_SECONDS)
    async def scheduler(self) -> None:
        """One round: post the reminders and autopilot turns that fell due, then send the daily digests due.

        Each is claimed in the database before it is posted, so a restart never sends one twice. A
        failure is logged and the loop goes on; one notice that cannot be posted spoils no other. While
        the gateway is down (Discord out of reach) nothing is claimed: what fell due waits for its return,
        where a claimed reminder would be lost. A stop lets a round under way post what it claimed, and
        starts no other.
        """
        if not self.gateway_connected() or self.stopping:
            return
        self._between_rounds.clear()
        try:
            await self._scheduler_round()
        finally:
            self._between_rounds.set()

    async def _scheduler_round(self) -> None:
        """The reminders, autopilot turns and digests due, each posted; the boards and rank roles touched."""
        rounds: tuple[tuple[Any, Any], ...] = ((self.service.run_due, self.post_notices),
                                               (self.service.due_digests, self.send_direct))
        for take, send in rounds:
            try:
                due = await take()
            except Exception:
                _failed("scheduler round failed")
                continue
            await send(due)
        if self.stopping:   # no board or role work started while closing: the next start looks at them
            return
        self._touch_boards()
        try:   # the servers whose ratings changed (a game ended, a rebuild, a member forgotten)
            self.rank_roles.touch(await self.service.rank_roles.due_guilds())
        except Exception:
            _failed("could not look for rank roles to update")

    def _touch_boards(self) -> None:
        """The boards of the servers whose lobbies changed are looked at (coalesced: bot.chat.boards)."""
        if self._service is not None:
            self.boards.touch(self._service.boards_changed())
            self.rank_roles.touch(self._service.rank_roles.take_touched())

    async def post_notices(self, notices: Sequence[Notice]) -> None:
        """Post each notice in its channel (and send its direct messages); one that cannot be posted is logged
        and spoils no other."""
        for notice in notices:
            try:
                await post_notice(self.service, await self._game_channel(notice.channel), notice.reply,
                                  fold=notice.fold)
            except Exception:
                _failed("could not post a notice in channel %s", notice.channel)
            await self.send_direct(notice.reply.direct)

    async def _game_channel(self, channel_id: str) -> Any:
        """A channel games are played in, by id (TypeError for one that takes no messages)."""
        channel = self.get_channel(int(channel_id)) or await self.fetch_channel(int(channel_id))
        if isinstance(channel, (discord.CategoryChannel, discord.ForumChannel, discord.abc.PrivateChannel)):
            raise TypeError(f"channel {channel_id} takes no messages")   # no game is played there
        return channel

    async def send_direct(self, messages: Sequence[Direct]) -> None:
        """Send each direct message (`/me settings notify:dm`, a digest); a member who accepts none from the
        bot (Discord's 403, 50007 Cannot send messages to this user) is pinged in the game's channel instead,
        and told why there the first time. One that fails is logged and spoils no other."""
        for message in messages:
            try:
                inbox = await self.create_dm(discord.Object(int(message.player)))
                await inbox.send(message.text, allowed_mentions=discord.AllowedMentions.none())
            except discord.Forbidden as exc:
                log.info("direct messages to %s are closed (%s); pinging in channel %s", message.player, exc.code,
                         message.channel)
                await self._ping_instead(message)
            except Exception:
                _failed("could not send a direct message to %s", message.player)

    async def _ping_instead(self, message: Direct) -> None:
        """A direct message the member refused, as a ping in the game's channel (why, the first time)."""
        try:
            why = DMS_CLOSED if await self.service.dms_closed(message.guild, message.player) else ""
            content, mentions = content_and_mentions(Reply("shown", why, mentions=(message.player,),
                                                           ping_words=message.fallback))
            await (await self._game_channel(message.channel)).send(content.rstrip(), allowed_mentions=mentions)
        except Exception:
            _failed("could not ping %s in channel %s instead of a direct message", message.player,
                          message.channel)

    @scheduler.before_loop
    async def _scheduler_waits_for_ready(self) -> None:
        await self.wait_until_ready()

    def gateway_connected(self) -> bool:
        """Whether every gateway connection this process runs (one, or each of its shards) is open."""
        if self.is_closed() or not self.is_ready():
            return False
        shards = getattr(self, "shards", None)   # a sharded client's ShardInfo by id
        if isinstance(shards, dict):
            return bool(shards) and not any(shard.is_closed() for shard in shards.values())
        return self.ws is not None and self.ws.open

    @tasks.loop(seconds=BEAT_SECONDS)
    async def heartbeat(self) -> None:
        """Write the heartbeat file (PITBOSS_HEARTBEAT) `pitboss health` reads; a failure is logged once a beat."""
        path = heartbeat_path()
        try:
            if path is not None:
                write_heartbeat(path, connected=self.gateway_connected())
        except OSError:
            log.exception("could not write the heartbeat %s", path)

    @heartbeat.before_loop
    async def _heartbeat_waits_for_ready(self) -> None:
        await self.wait_until_ready()

    async def shut_down(self, wait: float = IN_FLIGHT_SECONDS) -> None:
        """A graceful stop (SIGTERM, SIGINT): take no new command, let the ones in flight and a scheduler round
        under way finish (for at most `wait` seconds), then close the connection, the workers and the database."""
        self.stopping = True
        waiting: set[asyncio.Future] = set(self._in_flight)
        if self._in_flight:
            log.info("stopping: waiting for %d commands in flight", len(self._in_flight))
        round_ended = None
        if not self._between_rounds.is_set():   # a scheduler round under way posts what it claimed
            round_ended = asyncio.ensure_future(self._between_rounds.wait())
            waiting.add(round_ended)
        if waiting:
            await asyncio.wait(waiting, timeout=wait)
        if round_ended is not None:
            round_ended.cancel()
        await self.close()

    def _taken(self) -> bool:
        """Count the running task as a command in flight (shut_down waits for it); False when stopping."""
        task = asyncio.current_task()
        if self.stopping or task is None:
            return not self.stopping
        self._in_flight.add(task)
        task.add_done_callback(self._in_flight.discard)
        return True

    async def _refuse_while_stopping(self, interaction: discord.Interaction) -> None:
        with contextlib.suppress(discord.HTTPException):
            await interaction.response.send_message(STOPPING, ephemeral=True)

    async def close(self) -> None:
        self.scheduler.cancel()
        self.heartbeat.cancel()
        path = heartbeat_path()
        if path is not None:
            with contextlib.suppress(OSError):
                write_heartbeat(path, connected=False)
        await super().close()
        if self._service is not None:   # a game's rating left running by its last move ends before its store
            await self._service.settled(SETTLE_SECONDS)
        pools = [workers for workers in (self.render_processes, self.heavy) if workers is not None]
        # every pool at once, each stopping its workers together: one short wait in all
        await asyncio.gather(*(asyncio.to_thread(workers.close) for workers in pools))
        if self.store is not None:
            await self.store.close()

    def _sync_scope(self) -> discord.Object | None:
        return discord.Object(self.guild_id) if self.guild_id else None

    def command_payload(self) -> list[dict]:
        """The JSON Discord receives for our commands (used to skip unchanged syncs)."""
        guild = self._sync_scope()
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        return [cmd.to_dict(self.tree) for cmd in self.tree.get_commands(guild=guild)]

    def sync_digest(self) -> str:
        """What a sync is compared by: the commands, the application they belong to and the guild they go
        to (none: global). A database restored under another application (a staging bot) therefore syncs."""
        payload = json.dumps(self.command_payload(), sort_keys=True)
        return hashlib.sha256(f"{self.application_id}:{self.guild_id}:{payload}".encode()).hexdigest()

    async def sync_if_changed(self, *, force: bool = False) -> bool:
        """Sync the command tree when its digest differs from the last synced one, or always (`force`:
        `pitboss run --sync`)."""
        digest = self.sync_digest()
        store = self.store
        if not force and store is not None and await store.get_meta(SYNC_HASH_KEY) == digest:
            log.info("commands unchanged for application %s; not syncing (pitboss run --sync forces it)",
                     self.application_id)
            return False
        await self.tree.sync(guild=self._sync_scope())
        if store is not None:
            await store.set_meta(SYNC_HASH_KEY, digest)
        log.info("commands synced")
        return True

    @staticmethod
    async def acknowledge(interaction: discord.Interaction, *, thinking: bool, private: bool = False) -> bool:
        """Defer the response (`private`: seen by the user alone, from the first moment); False when
        Discord refuses, and then nothing may be carried out."""
        try:
            await interaction.response.defer(thinking=thinking, ephemeral=private)
            return True
        except discord.NotFound:  # 10062: Discord gave up on this interaction; nothing was changed
            log.warning("interaction %s expired before it could be acknowledged", interaction.id)
        except discord.HTTPException as exc:  # 40060: acknowledged already (a second delivery of it)
            log.warning("interaction %s could not be acknowledged: %s", interaction.id, exc)
        return False

    async def run_command(self, interaction: discord.Interaction, slash: Slash, raw: dict[str, Any]) -> None:
        """Carry out a slash command and present its reply, showing the channel nothing of a private one.

        A command whose answer is always private (a hand, the log, a GM's ruling) is acknowledged privately
        at once. Any other is carried out before it is acknowledged when there is time (a fresh
        interaction, an answer within QUICK_ANSWER_SECONDS): a refusal is then answered privately with no
        public "thinking…" before it; an accepted action, or one that takes longer, is deferred publicly
        and shown on the turn's message."""
        if not self._taken():
            await self._refuse_while_stopping(interaction)
            return
        try:
            await self._run_command(interaction, slash, raw)
        finally:
            self._touch_boards()

    async def _run_command(self, interaction: discord.Interaction, slash: Slash, raw: dict[str, Any]) -> None:
        # a command some option makes private may be made so by the user's own settings (a close-up)
        if slash.is_private(raw) or slash.private_with and slash.is_private(
                await self._with_own_defaults(interaction, raw)):
            if not await self.acknowledge(interaction, thinking=True, private=True):
                return
            reply = await self._carried_out(interaction, slash, raw)
            if not reply.ephemeral:
                # Answered in the channel after all: the private placeholder takes a word, and the public
                # answer follows as a message of its own (a private deferral cannot turn public).
                await send_private(interaction, Reply("shown", "Done: the channel's message shows it.",
                                                      ephemeral=True), deferred_public=False)
            await self.present(interaction, reply, from_button=True)
            return
        work = asyncio.ensure_future(self._carried_out(interaction, slash, raw))
        if _age_seconds(interaction) < FRESH_SECONDS:
            await asyncio.wait({work}, timeout=QUICK_ANSWER_SECONDS)
        if work.done() and not work.cancelled() and work.exception() is None and work.result().ephemeral:
            await answer_privately(interaction, work.result())
            await edit_earlier(interaction, work.result(), self.webhooks, from_button=False)
            return
        if not await self.acknowledge(interaction, thinking=True):
            if work.done() and work.exception() is None and work.result().outcome == "applied":
                log.warning("interaction %s was carried out but could not be shown", interaction.id)
            return
        await self.present(interaction, await work, from_button=False)

    async def _with_own_defaults(self, interaction: discord.Interaction, raw: dict[str, Any]) -> dict[str, Any]:
        """`raw` with the options the user's own settings choose where it leaves them out (a close-up by their
        /me settings view:): read within OWN_DEFAULTS_SECONDS, else as typed (the acknowledgement waits on it)."""
        try:
            own = await asyncio.wait_for(self.service.own_defaults(str(interaction.guild_id or ""),
                                                                   str(interaction.user.id)), OWN_DEFAULTS_SECONDS)
        except (TimeoutError, StoreBusy):
            return raw
        return {**own, **{k: v for k, v in raw.items() if v is not None}}

    async def _carried_out(self, interaction: discord.Interaction, slash: Slash, raw: dict[str, Any]) -> Reply:
        """The service's reply to a slash command (a malformed one is refused here, privately)."""
        try:
            values = slash.values(raw)
            for key, value in list(values.items()):
                if isinstance(value, discord.Attachment):
                    if value.size > MAX_IMPORT_BYTES:
                        raise CommandSyntaxError(f"{key}: that file is too big ({value.size} bytes).")
                    values[key] = await value.read()
                elif isinstance(value, (discord.User, discord.Member)):
                    if value.bot:
                        raise CommandSyntaxError(f"{key}: a bot cannot take a seat.")
                    values[key] = str(value.id)
            command = coerce(command_table().by_name[slash.command], values)
        except CommandSyntaxError as exc:
            return Reply("refused", str(exc), ephemeral=True, malformed=True)
        if (refused := await self.service.door(actor_of(interaction), str(interaction.guild_id or ""),
                                               command.name)) is not None:
            return refused   # before a thread is opened for it
        if command.name == "game new" and command.options.get("thread") == "yes":
            return await self._in_a_new_thread(interaction, command)
        if command.name == "gm" and command.options.get("thread") == "yes" and not in_private_thread(interaction):
            return await self._gm_thread(interaction)
        if command.name == "league board" and command.options.get("channel") is not None and \
                (refused := self._board_channel_refusal(interaction, str(command.options["channel"]))) is not None:
            return refused
        if command.name == "league roles" and command.options.get("set") == "on" and \
                (refused := self._rank_roles_refusal(interaction, str(command.options.get("ruleset") or ""))):
            return refused
        return await self.service.execute(channel_key(interaction), actor_of(interaction), command,
                                          guild=str(interaction.guild_id or ""), delivery=str(interaction.id),
                                          private_thread=in_private_thread(interaction))

    def _board_channel_refusal(self, interaction: discord.Interaction, typed: str) -> Reply | None:
        """`/league board channel:` names a text channel of the server it is typed in, where the bot may post; a
        refusal saying so otherwise."""
        try:
            channel = self.get_channel(int(board_channel_of(typed)))
        except GameError as exc:
            return refusal(exc.message)
        except ValueError:   # a name, not an id: Discord's #name gives the id
            channel = None
        if not isinstance(channel, discord.TextChannel) or channel.guild.id != interaction.guild_id:
            return refusal("channel: name a text channel of this server (#name).")
        me = channel.guild.me
        if me is not None and not channel.permissions_for(me).send_messages:
            return refusal(f"I cannot post in {channel.mention}: I need the Send Messages permission there.")
        return None

    @staticmethod
    def _rank_roles_refusal(interaction: discord.Interaction, ruleset: str) -> Reply | None:
        """`/league roles set:on` needs the bot's Manage Roles permission on the server: a refusal naming it when
        the bot lacks it (nothing is turned on), else None."""
        guild = interaction.guild
        me = guild.me if guild is not None else None
        if guild is None or me is None or me.guild_permissions.manage_roles or not ruleset:
            return None
        return refusal(problem_words("manage_roles", ruleset) + " Nothing was turned on.")

    async def _gm_thread(self, interaction: discord.Interaction) -> Reply:
        """`/gm thread:yes`: open a private thread off the game's channel (off the text channel of a game played in
        a thread; nobody may invite others), add the GM as its one member besides the bot, and link it to the
        game. Only a seated GM may; a permission the bot lacks is named, and nothing is made."""
        channel, actor = interaction.channel, actor_of(interaction)
        parent = channel.parent if isinstance(channel, discord.Thread) else channel
        if channel is None or not isinstance(parent, discord.TextChannel):
            return refusal("thread:yes opens a private thread off the game's text channel: use it there.")
        if (refused := await self.service.gm_thread_refusal(str(channel.id), actor)) is not None:
            return refused
        try:
            thread = await parent.create_thread(name=f"GM · {actor.name}"[:100], invitable=False,
                                                 type=discord.ChannelType.private_thread, auto_archive_duration=10080)
        except discord.Forbidden:
            return refusal("I cannot open a private thread here: I need the Create Private Threads and Send "
                           "Messages in Threads permissions in this channel.")
        try:
            await thread.add_user(interaction.user)
        except discord.HTTPException:
            with contextlib.suppress(discord.HTTPException):
                await thread.delete()
            return refusal("I cannot add you to a private thread here: I need the Send Messages in Threads "
                           "permission in this channel.")
        return await self.service.link_gm_thread(str(channel.id), actor, str(thread.id))

    async def _in_a_new_thread(self, interaction: discord.Interaction, command: Command) -> Reply:
        """`/new … thread:yes`: open a public thread off this channel and create the game there; the
        channel is told where it is, and the lobby is posted in the thread. A permission the bot lacks is
        named."""
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            return refusal("thread:yes opens a thread off a server's text channel; here, leave thread: out.")
        title = get_ruleset(str(command.options["ruleset"])).title

        async def open_thread() -> str:
            try:
                thread = await channel.create_thread(
                    name=f"{title} · {plain_name(interaction.user.display_name)}"[:100],
                    type=discord.ChannelType.public_thread, auto_archive_duration=10080)
            except discord.Forbidden:
                raise ThreadRefused("I cannot open a thread here: I need the Create Public Threads and Send Messages "
                                    "in Threads permissions in this channel.") from None
            return str(thread.id)

        thread, reply = await self.service.new_game_in_thread(actor_of(interaction), command,
                                                              str(interaction.guild_id or ""), str(interaction.id),
                                                              open_thread)
        if thread is None or reply.outcome != "applied":
            return reply
        return Reply("shown", f"A new {title} game is in <#{thread}>: /game join there.",
                     notices=(Notice(thread, reply),))

    async def open_queue_thread(self, parent: str, title: str, muster: int) -> str:
        """The public thread a queued game is played in, off `parent` (a thread's own channel when the queue was
        joined in a thread); ThreadRefused names the permission the bot lacks."""
        channel = await self._game_channel(parent)
        if isinstance(channel, discord.Thread) and isinstance(channel.parent, discord.TextChannel):
            channel = channel.parent
        if not isinstance(channel, discord.TextChannel):
            raise ThreadRefused("I can open its thread only off a server's text channel.")
        try:
            thread = await channel.create_thread(name=title[:100], type=discord.ChannelType.public_thread,
                                                 auto_archive_duration=10080)
        except discord.Forbidden:
            raise ThreadRefused("I cannot open its thread: I need the Create Public Threads and Send Messages in "
                                "Threads permissions there.") from None
        return str(thread.id)

    async def run_button(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A button press: acknowledge at once, then run the action it stands for."""
        resigned = "Resigned: the channel's message says so." if custom_id.startswith(f"{RESIGN_PREFIX}:") else ""
        await self._pressed(interaction, custom_id, self.service.press, done=resigned)   # the private ask closes

    async def run_plan(self, interaction: discord.Interaction, custom_id: str) -> None:
        """Confirm on a private preview: drive the plan, then close the preview."""
        await self._pressed(interaction, custom_id, self.service.confirm_plan, done="Plan confirmed.")

    async def _pressed(self, interaction: discord.Interaction, custom_id: str, run, done: str = "") -> None:
        """A component press: acknowledge at once, `run` it through the service, and present the reply
        (`done`: the words the pressed message then shows, once the press was applied)."""
        if not self._taken():
            await self._refuse_while_stopping(interaction)
            return
        if not await self.acknowledge(interaction, thinking=False):
            return
        try:
            await self._run_press(interaction, custom_id, run, done)
        finally:
            self._touch_boards()

    async def _run_press(self, interaction: discord.Interaction, custom_id: str, run, done: str) -> None:
        try:
            if await self._moved_on(interaction):
                return
            reply = await run(channel_key(interaction), actor_of(interaction), custom_id, delivery=str(interaction.id),
                              guild=str(interaction.guild_id or ""))
            if done and reply.outcome == "applied":
                await interaction.edit_original_response(content=done, view=None, attachments=[])
            if reply.in_place:   # a private menu's next page: the pressed message shows it, no new message
                await interaction.edit_original_response(content=reply.text, view=view_for(reply),
                                                         allowed_mentions=discord.AllowedMentions.none())
                return
            await self.present(interaction, reply, from_button=True)
            if reply.panel is not None:   # the private menu pressed shows the next choices in place
                await interaction.edit_original_response(content=reply.panel.text, view=view_for(reply.panel),
                                                         allowed_mentions=discord.AllowedMentions.none())
        except Exception as exc:  # a bug: log it, apologise privately, never show a traceback
            _failed("press %s failed", custom_id)
            await interaction.followup.send(_apology(exc), ephemeral=True)

    async def _moved_on(self, interaction: discord.Interaction) -> bool:
        """A press on an earlier turn's message that no free route could retire when its turn moved on
        (InteractionWebhooks.supersede): retired now through the press's own response, and its presser
        told privately; nothing is run. False for any other press."""
        pressed = interaction.message
        body = self.webhooks.superseded(str(pressed.id)) if pressed is not None else None
        if body is None:
            return False
        await interaction.edit_original_response(**retired(body))
        await interaction.followup.send(MOVED_ON, ephemeral=True)
        return True

    async def present(self, interaction: discord.Interaction, reply: Reply, *, from_button: bool) -> None:
        """Private replies privately; accepted actions on the turn's message; then the earlier messages the
        reply rewrites, and the notices it brings to other channels."""
        if reply.ephemeral:
            await send_private(interaction, reply, deferred_public=not from_button)
        elif reply.outcome == "applied":
            await publish(self.service, interaction, reply, from_button=from_button, webhooks=self.webhooks)
        else:   # a public answer that changes no game (a rollback's vote): it may ask for a press and ping
            content, mentions = content_and_mentions(reply)
            if reply.mentions and not from_button:
                # a follow-up would fill in the "thinking…" placeholder, whose edit never notifies
                await interaction.delete_original_response()
            message = await interaction.followup.send(content, files=files_of(reply), wait=True,
                                                      view=view_for(reply) or discord.utils.MISSING,
                                                      allowed_mentions=mentions)
            if reply.vote_proposal and reply.game_id is not None:   # the vote's question: edited as it goes on
                self.webhooks.remember(str(message.id), interaction)
                await self.service.remember_vote_message(reply.game_id, reply.vote_proposal, str(message.id))
            if shows_live_turn(reply):   # a public status with the live buttons: the turn's message from now on
                self.webhooks.remember(str(message.id), interaction)
                await present_status(self.service, interaction, reply, str(message.id), self.webhooks,
                                     from_button=from_button)
        await edit_earlier(interaction, reply, self.webhooks, from_button=from_button)
        await self.send_direct(reply.direct)
        await self.post_notices(reply.notices)

    async def on_app_command_error(self, interaction: discord.Interaction,
                                   error: app_commands.AppCommandError) -> None:
        cause = getattr(error, "original", error)   # what the command raised, inside discord.py's wrapper
        if not isinstance(cause, StoreUnavailable):
            log.error("command failed", exc_info=error)
        try:
            if interaction.response.is_done():
                # As in present(): the first follow-up after a public deferral would replace the
                # public "thinking" message, so delete it first to keep the apology private.
                with contextlib.suppress(discord.HTTPException):
                    await interaction.delete_original_response()
                await interaction.followup.send(_apology(cause), ephemeral=True)
            else:
                await interaction.response.send_message(_apology(cause), ephemeral=True)
        except discord.HTTPException:
            log.exception("could not send the apology")


def _annotation(option: OptionSpec, length: int = MAX_OPTION_LENGTH) -> Any:
    """The discord.py parameter type for an option, with its range or length limits."""
    if option.kind == "file":
        base: Any = discord.Attachment
        return base if option.required else base | None
    if option.kind == "user":
        base = discord.User
        return base if option.required else base | None
    if option.kind == "int":
        low = option.min_value if option.min_value is not None else -(2**53)
        high = option.max_value if option.max_value is not None else 2**53
        base = app_commands.Range[int, low, high]
    elif option.choices:
        base = str
    else:
        base = app_commands.Range[str, 1, length]
    return base if option.required else base | None


def make_command(slash: Slash, client: PitbossBehaviour) -> app_commands.Command:
    """A slash command generated from the shared grammar's layout (bot.chat.layout), so Discord and the
    command line never drift apart."""
    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    annotation=discord.Interaction)]
    for option in slash.options:
        length = MORE_LENGTH if option.name == slash.more else option.max_length or MAX_OPTION_LENGTH
        parameters.append(inspect.Parameter(
            option.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=_annotation(option, length),
            default=inspect.Parameter.empty if option.required else None))

    async def callback(interaction: discord.Interaction, **values: Any) -> None:
        await client.run_command(interaction, slash, values)

    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    choices = {o.name: [app_commands.Choice(name=c, value=c) for c in o.choices]
               for o in slash.options if o.choices and not o.suggest}
    if choices:
        callback = app_commands.choices(**choices)(callback)
    if slash.options:
        callback = app_commands.describe(**{o.name: o.description for o in slash.options})(callback)
    command: app_commands.Command[Any, ..., None] = app_commands.Command(
        name=slash.path[-1], description=slash.description, callback=callback)
    for option in slash.options:
        if option.suggest:
            command.autocomplete(option.name)(_suggester(client, slash, option.name))
    return command


def _suggester(client: PitbossBehaviour, slash: Slash, option: str):
    """An autocomplete callback (autocomplete cannot defer): an option's own choices where there is no
    game to ask (a new game's setup), name:value pairs for `more`, else only what is legal now in the
    channel's game, with the odds."""

    async def suggest(interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        if option in slash.listed:
            offers = slash.listed_offers(option, current)
        elif option == slash.more:
            offers = slash.more_offers(current)
        else:
            chosen = slash.chosen(dict(vars(interaction.namespace)))
            try:
                offers = await client.service.suggest(channel_key(interaction), actor_of(interaction),
                                                      slash.command, option, current, chosen,
                                                      private_thread=in_private_thread(interaction),
                                                      guild=str(interaction.guild_id or ""))
            except StoreUnavailable:   # said once by the storage driver; no suggestion meanwhile
                offers = []
        return [app_commands.Choice(name=label, value=value) for label, value in offers]

    return suggest


def build_commands(tree: app_commands.CommandTree, client: PitbossBehaviour,
                   layout: tuple[Slash, ...] | None = None) -> None:
    """Register every command of the layout (default: the registered games'): top-level commands, and
    groups (/game, /new) holding their subcommands."""
    groups: dict[tuple[str, ...], app_commands.Group] = {}

    def group(path: tuple[str, ...]) -> app_commands.Group:
        if path not in groups:
            groups[path] = app_commands.Group(name=path[-1], description=group_words(path))
            (group(path[:-1]).add_command if len(path) > 1 else tree.add_command)(groups[path])
        return groups[path]

    for slash in discord_layout() if layout is None else layout:
        command = make_command(slash, client)
        (group(slash.path[:-1]).add_command if len(slash.path) > 1 else tree.add_command)(command)


class PitbossClient(PitbossBehaviour):
    """A discord.py client whose command tree routes every command through the GameService."""


class ShardedPitbossClient(PitbossBehaviour, discord.AutoShardedClient):
    """The same, running a range of the bot's Discord shards in this process."""


OUT_OF_REACH = ("stopping on a signal while Discord is out of reach: every move made is stored, and a turn "
                "whose message could not be posted is posted at the next start")
EXIT_UNREACHABLE = 1   # the token refused, or Discord not reached: said in one line, no traceback


def run_bot(token: str, db_path: str, guild_id: str | None = None,
            shards: tuple[tuple[int, ...], int] | None = None, *, force_sync: bool = False) -> int:
    """Run the bot until SIGTERM or SIGINT, then stop gracefully (shut_down) and return 0; discord.py
    handles reconnects.

    `shards` (ids, count) runs those Discord shards in this process: several processes sharing one
    database (PostgreSQL for real scale) serve one bot. Only the process with shard 0 syncs the
    commands (`force_sync`: even when they look unchanged); every process runs the scheduler, whose due
    timers are claimed in the database so each is sent once, and an interaction delivered to two
    processes is carried out once.
    """
    guild = int(guild_id) if guild_id else None
    if shards is None:
        client: PitbossBehaviour = PitbossClient(db_path, guild_id=guild, force_sync=force_sync)
    else:
        ids, count = shards
        client = ShardedPitbossClient(db_path, guild_id=guild, sync_commands=0 in ids, force_sync=force_sync,
                                      shard_ids=list(ids), shard_count=count)
    logs.set_up(token, db_path)
    log.info(logs.start_line(db_path))
    try:
        return asyncio.run(serve(client, token))
    except discord.LoginFailure:
        log.error("Discord refused the token: copy the bot's token from the developer portal into DISCORD_TOKEN.")
    except (aiohttp.ClientConnectorError, discord.GatewayNotFound) as exc:
        log.error("Discord cannot be reached from here (%s): check the network and DNS of this host.", exc)
    return EXIT_UNREACHABLE


async def serve(client: PitbossBehaviour, token: str) -> int:
    """Run `client` until it fails (its exception raised here) or a SIGTERM or SIGINT comes: then the
    graceful stop, and 0. Python's default for SIGTERM would kill the bot mid-command, and as a
    container's PID 1 it ignores the signal until docker kills it."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with client:
        running = asyncio.ensure_future(client.start(token))
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if not stop.is_set():
            stopped.cancel()
            running.result()   # start() ended by itself: its failure (a refused token) is raised
            return 0
        reached = client.gateway_connected()
        log.info("stopping on a signal" if reached else OUT_OF_REACH)
        await client.shut_down()
        # Out of reach, start() waits out a reconnect's back-off (or a connection that never answers):
        # it is cancelled at once, which is all there is to do with it (TimeoutError says so)
        with contextlib.suppress(asyncio.CancelledError, discord.ConnectionClosed, TimeoutError):
            await asyncio.wait_for(running, 1.0 if reached else 0)
    return 0
