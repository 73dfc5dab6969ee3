"""The `pitboss` command: run the Discord bot, play a local table, execute one command, verify."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Coroutine, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from bot.cli.checks import health, unwritable_database
from bot.cli.errorlog import ErrorLog, error_log_path, where_said
from bot.storage.errors import BackupFailed, NewerDatabase, StoreUnavailable
from bot.storage.store import Store, is_postgres
from bot.storage.target import masked, split_password
from bot.table.plugins import load_plugins
from bot.version import VERSION

# The service, the grammar and the games are imported by the modes that use them: `pitboss health` (Docker's
# HEALTHCHECK, every 30 s), `--version`, `--help` and `invite` need none of them, and verify, backup and tick
# load only the games their database holds (~0.3 s of CPU a process for every game's rules and the service).
if TYPE_CHECKING:
    from bot.table.protocol.replies import Direct, Reply
    from bot.table.service.entry import Actor, GameService

log = logging.getLogger("pitboss.cli")

EXIT_OK, EXIT_REFUSED, EXIT_SYNTAX = 0, 1, 2
DEFAULT_DB = "pitboss.db"


def _db_path(args: argparse.Namespace) -> str:
    return args.db or os.environ.get("PITBOSS_DB") or DEFAULT_DB


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:40] or "x"


MAPS = "pitboss-maps"


def maps_folder(db: str) -> Path:
    """Where `pitboss play` puts its maps: pitboss-maps/ for the default database, and a folder of its own
    in it for any other (named by the database and a hash of where it is), so two databases' maps of the
    same channel and game number never overwrite each other."""
    if db == DEFAULT_DB:
        return Path(MAPS)
    where = split_password(db)[0] if is_postgres(db) else os.path.abspath(db)
    name = "postgres" if is_postgres(db) else Path(db).stem
    return Path(MAPS) / f"{_safe(name)}-{hashlib.sha256(where.encode()).hexdigest()[:8]}"


def _read_file(path: str) -> bytes:
    """A file named on the command line where Discord would take an attachment."""
    from bot.table.protocol.commands import CommandSyntaxError
    from bot.table.trust.importer import MAX_IMPORT_BYTES

    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_IMPORT_BYTES + 1)
    except OSError as exc:
        raise CommandSyntaxError(f"Could not read {path}: {exc.strerror}.") from None


def present(reply: Reply, channel: str, out_dir: Path | None, stream: TextIO) -> int:
    """Print a reply as the command line shows it; return the exit status it means."""
    from bot.table.clock.moments import plain_moments

    prefix = "refused: " if reply.outcome == "refused" else "private: " if reply.ephemeral else ""
    if reply.mentions:
        print(f"ping: {', '.join(reply.mentions)}", file=stream)
    print(prefix + plain_moments(reply.text), file=stream)
    if reply.legal:  # what Discord shows as buttons
        print("choices: " + " | ".join(action.command for action in reply.legal), file=stream)
    if out_dir is not None and (reply.image is not None or reply.files):
        out_dir.mkdir(parents=True, exist_ok=True)
        if reply.image is not None:
            # A private picture (a plan's preview) never takes the name of the table's own map.
            private = "-private" if reply.ephemeral else ""
            path = out_dir / f"{_safe(channel)}-game{reply.game_id}-v{reply.version:04d}{private}.png"
            path.write_bytes(reply.image)
            print(f"image: {path}", file=stream)
        for attachment in reply.files:
            path = out_dir / attachment.filename
            path.write_bytes(attachment.data)
            print(f"file: {path}", file=stream)
    if out_dir is None and reply.files:
        names = ", ".join(attachment.filename for attachment in reply.files)
        print(f"(not written: {names}; give --out FOLDER to write it)", file=stream)
    for notice in reply.notices:   # what the reply says in other channels
        pinged = f" (ping: {', '.join(notice.reply.mentions)})" if notice.reply.mentions else ""
        print(f"[channel {notice.channel}] {plain_moments(notice.reply.text)}{pinged}", file=stream)
        show_direct(notice.reply.direct, stream)
    show_direct(reply.direct, stream)
    if reply.malformed:
        return EXIT_SYNTAX
    return EXIT_REFUSED if reply.outcome == "refused" else EXIT_OK


def show_direct(messages: Sequence[Direct], stream: TextIO) -> None:
    """The direct messages a reply sends (`/me settings notify:dm` or `digest`), as Discord would deliver them:
    'dm to NAME: ...', the first line, then the message's other lines indented."""
    from bot.table.clock.moments import plain_moments

    for message in messages:
        first, *rest = plain_moments(message.text).split("\n")
        print(f"dm to {message.player}: {first}", file=stream)
        for line in rest:
            print(f"  {line}", file=stream)


async def _run_one(service: GameService, channel: str, actor: Actor, line: str,
                   out_dir: Path | None, stream: TextIO) -> tuple[int, Reply | None]:
    """Run one typed line and print its reply: the exit status it means, and the reply (None when the
    line did not parse or the command failed)."""
    from bot.table.protocol.commands import CommandSyntaxError, parse

    try:
        command = parse(line, read_file=_read_file)
    except CommandSyntaxError as exc:
        print(f"error: {exc}", file=stream)
        return EXIT_SYNTAX, None
    try:
        reply = await service.execute(channel, actor, command)
    except Exception:  # a bug, not a refusal: log it, never show a traceback to the player
        log.exception("command failed: %s", line)
        print("Sorry, something went wrong on my side. Nothing was changed.", file=stream)
        return EXIT_REFUSED, None
    status = present(reply, channel, out_dir, stream)
    # private choices (hands), after an action and after the asker's own look at the table
    shows_table = reply.outcome == "applied" or command.name == "game status" and reply.outcome != "refused"
    if shows_table and not reply.legal and reply.game_id is not None:
        await show_own_choices(service, channel, actor.id, stream)
    return status, reply


async def show_own_choices(service: GameService, channel: str, player: str, stream: TextIO) -> None:
    """A player's own choices in a game that offers them privately, as a private line (what their
    "Your move (private)" menu shows on Discord); nothing when the game does not wait on them."""
    own = await service.own_choices(channel, player)
    if own:
        print(f"private: choices for {player}: " + " | ".join(action.command for action in own), file=stream)


def _exec_line(args: argparse.Namespace) -> int:
    """`pitboss exec`: one command, exactly as a player would type it."""
    if not args.command:
        print("error: give a command, e.g. /game status", file=sys.stderr)
        return EXIT_SYNTAX
    return asyncio.run(_exec(args))


async def _exec(args: argparse.Namespace) -> int:
    from bot.table.service.entry import Actor, GameService
    from bot.table.trust.guards import plain_name

    # Either the whole command as one argument, or its words as the shell split them.
    line = args.command[0] if len(args.command) == 1 else shlex.join(args.command)
    store = await Store.open(_db_path(args))
    try:
        # without --out no picture is written or shown: none is drawn (a drawn one cost ~0.15 s of CPU)
        service = GameService(store) if args.out else GameService(store, render=None)
        actor = Actor(args.user, plain_name(args.user), is_admin=args.admin)
        status, _reply = await _run_one(service, args.channel, actor, line, Path(args.out) if args.out else None,
                                        sys.stdout)
        return status
    finally:
        await store.close()


_PLAY_LINE = re.compile(r"^\s*([A-Za-z0-9_.-]{1,32})\s*[>:]\s*(/.*)$")

def play_help() -> str:
    """The prompt's help: how lines are written, and each game's own commands (from the registry)."""
    from bot.table.protocol.commands import TABLE_COMMANDS, setup_line
    from rules.registry import rulesets

    games = rulesets()
    lines = ["Each line is NAME> /command, e.g.",
             f"  alice> {setup_line(games[0].id)}        (games: {', '.join(g.id for g in games)})",
             "  alice> /game join", "  bob> /game join", "  alice> /game start",
             "A line that starts with / acts as the player the game now waits on (hot-seat play), or else "
             "as the last named one. 'help' shows this, 'quit' leaves."]
    for game in games:
        lines.append(f"{game.title}: " + ", ".join(f"/{spec.name}" for spec in game.grammar.commands)
                     + (" (private replies are printed as \"private:\")" if game.private_actions else "") + ".")
    lines.append("Every game: " + ", ".join(f"/{spec.name}" for spec in TABLE_COMMANDS)
                 + ". Maps are written to the --out folder.")
    return "\n".join(lines)


def _next_at_the_keyboard(reply: Reply | None, current: str) -> str:
    """Hot-seat play: the one person the game now waits on takes the keyboard (a computer seat never
    does); otherwise whoever typed last keeps it."""
    from bot.table.trust.guards import COMPUTER_ID_PREFIX

    if reply is None or reply.outcome == "refused" or reply.ephemeral:
        return current
    people = [p for p in reply.waiting_on if not p.startswith(COMPUTER_ID_PREFIX)]
    return people[0] if len(people) == 1 else current


async def _play(args: argparse.Namespace, stdin: TextIO | None = None) -> int:
    from bot.table.protocol.commands import setup_line
    from bot.table.service.entry import Actor, GameService
    from rules.registry import ruleset_ids

    stdin = stdin or sys.stdin   # read when called (a test swaps sys.stdin), not when this module was imported
    store = await Store.open(_db_path(args))
    out_dir = Path(args.out) if args.out else maps_folder(_db_path(args))
    interactive = stdin.isatty()
    print(f"Pitboss local table — database {masked(_db_path(args))}, channel {args.channel}, maps in {out_dir}/")
    print(play_help())
    actor_name = None
    try:
        service = GameService(store)
        while True:
            if interactive:
                print(f"{actor_name or 'name'}> ", end="", flush=True)
            line = stdin.readline()
            if not line:
                break
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line in ("quit", "exit"):
                break
            if line == "help":
                print(play_help())
                continue
            match = _PLAY_LINE.match(line)
            if match:
                actor_name, line = match.group(1), match.group(2)
            elif line.startswith("/") and len(waiting := await service.waiting_people(args.channel)) == 1:
                actor_name = waiting[0]   # a bare line is played by the one person the game waits on now
            elif not line.startswith("/") or actor_name is None:
                print(f"error: write NAME> /command (e.g. alice> {setup_line(ruleset_ids()[0])})")
                continue
            if not interactive:
                print(f"{actor_name}> {line}")
            _status, reply = await _run_one(service, args.channel, Actor(actor_name, actor_name), line, out_dir,
                                            sys.stdout)
            next_name = _next_at_the_keyboard(reply, actor_name)
            if reply is not None and reply.outcome == "applied" and not reply.legal and next_name != actor_name:
                await show_own_choices(service, args.channel, next_name, sys.stdout)   # the shared keyboard's next
            actor_name = next_name
    finally:
        await store.close()
    return EXIT_OK


async def _tick(args: argparse.Namespace) -> int:
    """Send what is due once (reminders, deadline autopilot) and print it: a cron-friendly scheduler."""
    from bot.table.service.entry import GameService

    store = await Store.open(_db_path(args))
    try:
        service = GameService(store)
        notices = await service.run_due()
        for notice in notices:
            print(f"[channel {notice.channel}]")
            present(notice.reply, notice.channel, Path(args.out) if args.out else None, sys.stdout)
        digests = await service.due_digests()
        show_direct(digests, sys.stdout)
        print(f"{len(notices)} notices sent" + (f", {len(digests)} digests" if digests else ""))
        return EXIT_OK
    finally:
        await store.close()


def _same_file(path: str, database: str) -> bool:
    """Whether `path` is the database file (or its -wal or -shm beside it), however either is reached."""
    real = os.path.realpath(path)
    return any(real == os.path.realpath(database + tail) for tail in ("", "-wal", "-shm"))


def _existing(mode: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A mode that reads or changes a database that must already be there: a mistyped --db is refused in one
    line instead of answering from (and leaving behind) a new, empty file."""

    def checked(args: argparse.Namespace) -> int:
        path = _db_path(args)
        if not is_postgres(path) and not os.path.exists(path):
            print(f"error: no database at {path}: name the bot's with --db or PITBOSS_DB", file=sys.stderr)
            return EXIT_REFUSED
        return mode(args)

    return checked


async def _backup(args: argparse.Namespace) -> int:
    """A consistent copy of the database while the bot may be writing to it, then checked."""
    source = _db_path(args)
    if os.path.isdir(args.path):
        print(f"error: {args.path} is a folder: name the backup's file, e.g. {os.path.join(args.path, 'pitboss.db')}",
              file=sys.stderr)
        return EXIT_SYNTAX
    if not is_postgres(source) and _same_file(args.path, source):
        print("error: the backup must go to another file than the database itself", file=sys.stderr)
        return EXIT_SYNTAX
    store = await Store.open(source)
    try:
        await store.backup(args.path)
    except BackupFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    finally:
        await store.close()
    if is_postgres(source):
        print(f"backup: {args.path}: pg_dump custom format, {os.path.getsize(args.path)} bytes "
              f"(restore with pg_restore)")
        return EXIT_OK
    copy = await Store.open(args.path)
    try:
        games, problems = await copy.all_games(), await copy.integrity_problems()
    finally:
        await copy.close()
    print(f"backup: {args.path}: {len(games)} games, database integrity: {'ok' if not problems else problems[0]}")
    return EXIT_OK if not problems else EXIT_REFUSED


NOT_REPLAYING, UNREADABLE = "DOES NOT REPLAY", "CANNOT BE READ"


async def _game_problem(service: GameService, game) -> tuple[str, str] | None:
    """What is wrong with one stored game, (NOT_REPLAYING or UNREADABLE, why); None when it is sound."""
    try:
        json.loads(game.state)
    except ValueError as exc:
        return UNREADABLE, f"its snapshot is not valid JSON ({exc})"
    try:
        replays = await service.replay_matches(game)
    except Exception as exc:  # a damaged log, options or ruleset: this game only, the others still count
        log.warning("game %s cannot be replayed", game.id, exc_info=True)
        return UNREADABLE, f"{type(exc).__name__}: {exc}"
    if replays:
        return None
    return NOT_REPLAYING, "its log replayed from the seed ends in another state than its snapshot"


async def _verify(args: argparse.Namespace) -> int:
    """Check every game (each on its own, so one damaged game hides no other) and the database itself."""
    from bot.table.service.entry import GameService

    store = await Store.open(_db_path(args))
    try:
        service = GameService(store)
        found = {NOT_REPLAYING: 0, UNREADABLE: 0}
        try:
            games = await store.all_games()
        except Exception as exc:
            log.warning("the games cannot be listed", exc_info=True)
            print(f"the games cannot be listed: {type(exc).__name__}: {exc}")
            games, found[UNREADABLE] = [], 1
        for game in games:
            problem = await _game_problem(service, game)
            if problem is not None:
                found[problem[0]] += 1
            print(f"game {game.id} channel {game.channel} {game.ruleset} v{game.version} {game.status}: "
                  + (f"{problem[0]}: {problem[1]}" if problem else "replays to its snapshot"))
        try:
            problems = await store.integrity_problems()
        except Exception as exc:
            log.warning("the integrity check failed", exc_info=True)
            problems = [f"the check itself failed: {type(exc).__name__}: {exc}"]
        unreadable = f", {found[UNREADABLE]} cannot be read" if found[UNREADABLE] else ""
        print(f"{len(games)} games checked, {found[NOT_REPLAYING]} mismatches{unreadable}; database integrity: "
              f"{'ok' if not problems else '; '.join(problems[:10])}")
        return EXIT_OK if not any(found.values()) and not problems else EXIT_REFUSED
    finally:
        await store.close()


async def _operator(args: argparse.Namespace, call: Callable[[GameService], Coroutine[Any, Any, Reply]]) -> int:
    """One of the operator's commands (forget, block, the commands turned off), through the service's own door;
    its answer printed, a refusal on stderr with exit status 1."""
    from bot.table.service.entry import GameService

    store = await Store.open(_db_path(args))
    try:
        reply = await call(GameService(store))
    finally:
        await store.close()
    if reply.outcome == "refused":
        print(f"refused: {reply.text}", file=sys.stderr)
        return EXIT_REFUSED
    print(reply.text)
    return EXIT_OK


def _target(args: argparse.Namespace) -> tuple[str, str]:
    """The control `--user ID` or `--server ID` names."""
    return ("user", args.user) if args.user is not None else ("server", args.server)


async def _forget(args: argparse.Namespace) -> int:
    return await _operator(args, lambda service: service.forget(args.user, args.yes))


async def _block(args: argparse.Namespace) -> int:
    return await _operator(args, lambda service: service.control(*_target(args), on=True, reason=args.reason))


async def _unblock(args: argparse.Namespace) -> int:
    return await _operator(args, lambda service: service.control(*_target(args), on=False))


async def _blocks(args: argparse.Namespace) -> int:
    return await _operator(args, lambda service: service.controls())


async def _command_switch(args: argparse.Namespace) -> int:
    name = " ".join(args.name)
    return await _operator(args, lambda service: service.control("command", name, on=args.mode == "disable-command",
                                                                 reason=getattr(args, "reason", "")))


def _operator_commands(sub: Any, with_db: Callable[[argparse.ArgumentParser], argparse.ArgumentParser]) -> None:
    """The operator's privacy and owner controls (docs/operating.md, Privacy and owner controls)."""
    forget = with_db(sub.add_parser("forget", help="delete one member's data (settings, follows, orders) and make "
                                                   "their name in games neutral; without --yes, says what it would do"))
    forget.add_argument("--user", required=True, help="the member's Discord id")
    forget.add_argument("--yes", action="store_true", help="do it (it cannot be undone)")
    forget.set_defaults(func=_local(_existing(_in_loop(_forget))))
    for name, run, helped in (("block", _block, "refuse a member's or a server's commands and presses"),
                              ("unblock", _unblock, "lift a block")):
        parser = with_db(sub.add_parser(name, help=helped))
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--user", help="a member's Discord id")
        target.add_argument("--server", help="a server's Discord id")
        if name == "block":
            parser.add_argument("--reason", default="", help="a note for yourself, shown by `pitboss blocks`")
        parser.set_defaults(func=_local(_existing(_in_loop(run))))
    with_db(sub.add_parser("blocks", help="list the blocked members and servers and the commands turned off")
            ).set_defaults(func=_local(_existing(_in_loop(_blocks))))
    for name, helped in (("disable-command", "turn a table command off for the whole bot (e.g. game replay)"),
                         ("enable-command", "turn a command turned off on again")):
        parser = with_db(sub.add_parser(name, help=helped))
        parser.add_argument("name", nargs="+", help="the command, e.g. game replay (or /game replay)")
        if name == "disable-command":
            parser.add_argument("--reason", default="", help="a note for yourself, shown by `pitboss blocks`")
        parser.set_defaults(func=_local(_existing(_in_loop(_command_switch))))


async def _ratings(args: argparse.Namespace) -> int:
    """Each server's ratings (`pitboss ratings`), recomputed first from the stored games with --rebuild."""
    from bot.cli.ratings import ratings_command

    store = await Store.open(_db_path(args))
    try:
        print(await ratings_command(store, args.rebuild))
    finally:
        await store.close()
    return EXIT_OK


class _Playable(Sequence[str]):
    """The games selfplay can play (`--ruleset`'s choices), read from the registry only when argparse checks a
    choice or lists them: building the parser loads no game."""

    def __getitem__(self, index: Any) -> Any:
        from bot.cli.selfplay import selfplay_games

        return selfplay_games()[index]

    def __len__(self) -> int:
        from bot.cli.selfplay import selfplay_games

        return len(selfplay_games())

    def __iter__(self) -> Iterator[str]:
        from bot.cli.selfplay import selfplay_games

        return iter(selfplay_games())


def _selfplay(args: argparse.Namespace) -> int:
    from bot.cli.selfplay import selfplay, selfplay_games

    ruleset = args.ruleset or selfplay_games()[0]   # the first game that plays itself, by default
    if args.db:
        return asyncio.run(selfplay(args.db, ruleset, args.games, args.seed))
    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(selfplay(str(Path(folder) / "selfplay.db"), ruleset, args.games, args.seed))


def _bench(args: argparse.Namespace) -> int:
    from bot.cli.bench import bench
    from bot.cli.bench_stall import BENCH, FULL, Size, stall_bench
    from bot.table.jobs.memory import limit_arenas

    limit_arenas()   # as `pitboss run`

    with tempfile.TemporaryDirectory() as folder:
        if args.stall:
            size = FULL if args.stall_size is None else Size.of(args.stall_size, args.stall_rounds or FULL.rounds)
            return asyncio.run(stall_bench(args.db or str(Path(folder) / "stall.db"), size=size))
        games = BENCH.running if args.stall_size is None else args.stall_size
        stall = Size.of(games, args.stall_rounds or BENCH.rounds) if games > 0 else None
        return asyncio.run(bench(args.db or str(Path(folder) / "bench.db"), args.channels, args.moves,
                                 args.single, args.seed, game_moves=args.game_moves, idle_wait=args.idle_wait,
                                 stall=stall))


async def _opens(target: str) -> None:
    """Open the database once (migrating it) and close it: a database the bot cannot use is refused
    here, in one line, rather than by a traceback from inside the Discord client's start-up."""
    store = await Store.open(target)
    await store.close()


def _run(args: argparse.Namespace) -> int:
    from bot.table.jobs.memory import limit_arenas

    limit_arenas()   # before any thread starts
    shards = None
    if args.shards:
        match = re.fullmatch(r"(\d+)(?:-(\d+))?/(\d+)", args.shards)
        first, last, count = (int(match.group(1)), int(match.group(2) or match.group(1)),
                              int(match.group(3))) if match else (0, -1, 0)
        if not match or not first <= last < count:
            print("error: --shards is FIRST[-LAST]/COUNT with LAST below COUNT, e.g. 0-1/4", file=sys.stderr)
            return EXIT_SYNTAX
        shards = (tuple(range(first, last + 1)), count)
    target = _db_path(args)
    problem = unwritable_database(target)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_SYNTAX
    try:
        asyncio.run(_opens(target))
    except (NewerDatabase, StoreUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    token = os.environ.get("DISCORD_TOKEN")
    if not token:
        print("error: set DISCORD_TOKEN to the bot's token (see README: Running on Discord).", file=sys.stderr)
        return EXIT_SYNTAX
    from bot.chat.adapter import run_bot
    from bot.chat.pacing import global_rate

    try:
        global_rate()
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_SYNTAX

    return run_bot(token, target, guild_id=args.guild, shards=shards, force_sync=args.sync)


def _client_id(text: str) -> int:
    """An application's client id: the number the developer portal shows (a Discord snowflake)."""
    if not text.isdigit() or not 0 < int(text) < 2**64:
        raise argparse.ArgumentTypeError(f"{text!r} is not a client id: copy the application's number "
                                         f"from the Discord developer portal (General Information)")
    return int(text)


def _channel(text: str) -> str:
    """A channel as `--channel` names it: an id, <#id> as Discord copies it, or one word (the name of a local
    table); the same reading as `/league board channel:`."""
    from bot.table.trust.guards import channel_of

    channel = channel_of(text)
    if channel is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a channel: give its id, <#id>, or one word")
    return channel


def _invite(args: argparse.Namespace) -> int:
    """`pitboss invite`: the URL that adds the bot to a server, and what each permission it asks for is for."""
    from bot.chat.invite import PERMISSIONS, SCOPES, invite_url

    print(invite_url(args.client_id))
    print(f"scopes: {', '.join(SCOPES)}")
    for name, _bit, why in PERMISSIONS:
        print(f"  {name}: {why}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pitboss", description="A game master for vehicle board games.")
    parser.add_argument("--version", action="version", version=f"pitboss {VERSION}")
    sub = parser.add_subparsers(dest="mode", required=True)

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--db", help=f"SQLite database file (env PITBOSS_DB, default {DEFAULT_DB})")
        return p

    run = with_db(sub.add_parser("run", help="run the Discord bot (token from DISCORD_TOKEN)"))
    run.set_defaults(func=_run)
    run.add_argument("--guild", help="sync commands to this guild id only (instant, for testing)")
    run.add_argument("--sync", action="store_true",
                     help="sync the slash commands at start even when they look unchanged")
    run.add_argument("--shards", default=os.environ.get("PITBOSS_SHARDS"),
                     help="run these Discord shards of COUNT in this process, e.g. 0-1/4 or 2/4 "
                          "(env PITBOSS_SHARDS); give every process the same database")

    check = with_db(sub.add_parser("health", help="exit 0 while the running bot is connected to Discord and its "
                                                  "database answers (Docker's HEALTHCHECK; env PITBOSS_HEARTBEAT)"))
    check.set_defaults(func=lambda args: health(_db_path(args)))

    invite = sub.add_parser("invite", help="print the URL that adds the bot to a server, with the permissions "
                                           "it needs")
    invite.set_defaults(func=_invite)
    invite.add_argument("--client-id", type=_client_id, required=True,
                        help="the application's client id (developer portal, General Information)")

    play = with_db(sub.add_parser("play", help="a local interactive table"))
    play.set_defaults(func=_local(_in_loop(_play)))
    play.add_argument("--channel", type=_channel, default="local", help="channel id for the local game")
    play.add_argument("--out", help=f"folder for the rendered maps (default {MAPS}/, and for a database other than "
                                    f"{DEFAULT_DB} a folder of its own in it)")

    exe = with_db(sub.add_parser("exec", help="run one command as a player would type it"))
    exe.set_defaults(func=_local(_exec_line))
    exe.add_argument("--channel", type=_channel, required=True, help="channel id (or <#id>)")
    exe.add_argument("--user", required=True, help="the acting player's name")
    exe.add_argument("--admin", action="store_true", help="act as a server admin")
    exe.add_argument("--out", help="folder for the rendered map (printed as 'image: PATH')")
    exe.add_argument("command", nargs=argparse.REMAINDER, help="e.g. /game status")

    verify = with_db(sub.add_parser("verify",
                                    help="replay every stored game, compare with its snapshot, check the file"))
    verify.set_defaults(func=_local(_existing(_in_loop(_verify))))
    backup = with_db(sub.add_parser("backup", help="a consistent copy of the database, safe while the bot runs"))
    backup.set_defaults(func=_local(_existing(_in_loop(_backup))))
    backup.add_argument("path", help="where to write the copy (replaced atomically if it exists)")
    tick = with_db(sub.add_parser("tick", help="send due reminders and play turns past their deadline, once"))
    tick.add_argument("--out", help="folder for the rendered maps")
    tick.set_defaults(func=_local(_in_loop(_tick)))

    _operator_commands(sub, with_db)
    ratings = with_db(sub.add_parser("ratings", help="each server's ratings per game; --rebuild recomputes them from "
                                                     "the stored finished games first"))
    ratings.add_argument("--rebuild", action="store_true", help="recompute every server's ratings, in the order the "
                                                                "games were rated")
    ratings.set_defaults(func=_local(_existing(_in_loop(_ratings))))

    selfplay = sub.add_parser("selfplay", help="computer drivers play whole games (fuzz test, benchmark)")
    selfplay.set_defaults(func=_local(_selfplay))
    selfplay.add_argument("--db", help="database file (default: a fresh temporary file)")
    # choices set after add_argument, which lists them (to check a metavar) and would load every game
    selfplay.add_argument("--ruleset", help="which game").choices = _Playable()
    selfplay.add_argument("--games", type=int, default=10, help="how many games")
    selfplay.add_argument("--seed", type=int, default=1, help="seed for dice and seating")
    bench = sub.add_parser("bench", help="measure a move end to end (Speedway in detail, then every game): "
                                         "latency, render, load, throughput")
    bench.set_defaults(func=_local(_bench))
    bench.add_argument("--db", help="a new database file to use (default: a temporary one)")
    bench.add_argument("--channels", type=int, default=100, help="channels played at once (default 100)")
    bench.add_argument("--moves", type=int, default=10, help="moves per channel in the load test (default 10)")
    bench.add_argument("--single", type=int, default=400, help="moves on one channel, cold and warm each (default 400)")
    bench.add_argument("--game-moves", type=int, default=200,
                       help="warm moves timed in each game for its line (default 200)")
    bench.add_argument("--seed", type=int, default=1, help="dice seed of the first game")
    bench.add_argument("--idle-wait", type=float, default=600.0,
                       help="seconds to idle after the load before the last memory figure (default 600)")
    bench.add_argument("--stall", action="store_true",
                       help="instead: how long each command the bot has holds the event loop, on a "
                            "10,000-action game and a server of many games, and what other channels wait")
    bench.add_argument("--stall-size", type=int, metavar="GAMES",
                       help="the loop-hold pass's server (running games) and long game (actions): 2,000 at the end of "
                            "the bench (0: no pass), 10,000 with --stall")
    bench.add_argument("--stall-rounds", type=int, help="runs of each command in that pass (1; 3 with --stall)")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def _main(argv: list[str] | None) -> int:
    load_plugins()   # the games named in $PITBOSS_GAMES register before any command (or --ruleset choice) sees the list
    args = build_parser().parse_args(argv)
    return args.func(args)


def _log_to_file(args: argparse.Namespace) -> Path | None:
    """Bugs go with their traceback to a log file (created only when needed, where it can be written:
    bot.cli.errorlog); players see an apology. The file's path, None when none can be written."""
    from bot.table.trust.guards import redacting_handler

    target = _db_path(args) if hasattr(args, "db") else ""
    path = error_log_path(target)
    to_file = ErrorLog(path, delay=True) if path is not None else logging.NullHandler()
    _url, db_password = split_password(target)
    handler = redacting_handler(os.environ.get("DISCORD_TOKEN", ""), db_password or "", handler=to_file)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])
    return path


def _local(mode: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A mode that runs here and now, without Discord: its log goes to a file, a failure is one line on stderr."""

    def handle(args: argparse.Namespace) -> int:
        error_log = _log_to_file(args)
        try:
            return mode(args)
        except KeyboardInterrupt:
            return EXIT_REFUSED
        except BrokenPipeError:
            raise  # the reader left: main() ends quietly
        except NewerDatabase as exc:  # not a bug: the database belongs to a later release
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_REFUSED
        except Exception as exc:  # e.g. a database that cannot be opened: say so, log the traceback
            log.exception("pitboss %s failed", args.mode)
            print(f"error: {type(exc).__name__}: {exc} ({where_said(error_log)})", file=sys.stderr)
            return EXIT_REFUSED
    return handle


def _in_loop(mode: Callable[[argparse.Namespace], Coroutine[Any, Any, int]]) -> Callable[[argparse.Namespace], int]:
    """A mode that runs on an event loop, as a plain function."""
    return lambda args: asyncio.run(mode(args))
