"""A member's data forgotten (`/me forget`, `pitboss forget`), and the operator's controls at the door
(`pitboss block`, `unblock`, `blocks`, `disable-command`, `enable-command`).

Rulings:
- Forgetting deletes the member's personal rows on every server (bot.storage.privacy.PERSONAL) and replaces
  their shown name in every game they played with a neutral one (bot.table.trust.renaming); the games stay,
  play on and verify. Their numeric id stays on the seats and the log's actors: it is how a game says which
  seat made which move, and it names nobody without Discord.
- A member who holds a seat in a running game (or hosts one) is refused, naming the games: their seat needs
  them (the turn, the pings, the clock), and a neutral name on a seat they go on playing would mislead the
  table. They resign (/game resign) or let the game end, then forget.
- A member entered in a running tournament is refused the same way, naming it: its next rounds seat them.
  Before a tournament starts, forgetting takes them off its list; after it ends (or is cancelled), its course
  names them by the alias their games got and a neutral name.
- A game the new name would not re-run to its snapshot (a name the game also uses as another word, an old
  game that never verified) is left as it is and counted in the answer.
- Blocked members and servers, and commands turned off, are read from the database at most every
  CONTROLS_SECONDS, so a change made by `pitboss block` in another process takes hold within that.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import time
from collections.abc import Callable

from bot.storage import privacy as stored
from bot.storage import rank_roles, tournaments
from bot.storage.privacy import CONTROL_KINDS, Control
from bot.storage.store import GameRecord, VersionConflict
from bot.table.jobs import heavy_jobs
from bot.table.league import tournament as course
from bot.table.protocol.commands import SPELLINGS, TABLE_COMMANDS
from bot.table.protocol.replies import MESSAGE_LIMIT, Reply, clip, refusal
from bot.table.service.shared import Table, channel_mention
from bot.table.trust.guards import is_person_id, plain_name
from bot.table.trust.renaming import neutral_name, own_names, pseudonym, replaced, replacements, rewritten
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.table import plural

CONTROLS_SECONDS = 10.0

log = logging.getLogger("pitboss.privacy")
REASON_LIMIT = 200
ALWAYS_ON = frozenset({"me forget"})   # a member may always have their data deleted
FORGET_CONFIRM = "/me forget confirm:yes"


def checked_id(kind: str, target: str) -> str:
    """A member's or server's id as the operator typed it, or a GameError saying why it is none."""
    target = target.strip()
    if not is_person_id(target):
        raise GameError(f"{target!r} is not a {'member' if kind == 'user' else 'server'} id: a Discord id is its "
                        f"number (Developer Mode, Copy ID).")
    return target


def command_name(typed: str) -> str:
    """A table command's full name as the operator may type it ('/game replay', 'replay', 'new'), or a
    GameError naming the ones that may be turned off."""
    words = " ".join(typed.strip().lstrip("/").casefold().split())
    words = SPELLINGS.get(words, words)
    names = {spec.name for spec in TABLE_COMMANDS}
    found = words if words in names else next((n for n in names if n == f"game {words}"), None)
    if found is None:
        raise GameError(f"{typed!r} is not one of the table's commands (a game's own moves cannot be turned off: "
                        f"that would stall its games). They are: {', '.join(sorted(names - set(ALWAYS_ON)))}.")
    if found in ALWAYS_ON:
        raise GameError(f"/{found} stays on: it is how a member has their data deleted.")
    return found


class Controls:
    """The operator's controls as the door reads them: cached for CONTROLS_SECONDS."""

    def __init__(self, table: Table, clock: Callable[[], float] = time.monotonic):
        self._table, self._clock = table, clock
        self._known: dict[tuple[str, str], str] | None = None
        self._read_at = 0.0

    def changed(self) -> None:
        """Read them again at the next command (this process changed them)."""
        self._known = None

    async def _current(self) -> dict[tuple[str, str], str]:
        if self._known is None or self._clock() - self._read_at > CONTROLS_SECONDS:
            self._known = {(c.kind, c.target): c.reason for c in await stored.controls(self._table.store)}
            self._read_at = self._clock()
        return self._known

    async def refusal(self, user: str, guild: str, command: str = "") -> Reply | None:
        """The short private refusal of a blocked member or server, or of a command turned off; None: go on (a
        command always on, as a member's /me forget, passes every control)."""
        if command in ALWAYS_ON:
            return None
        known = await self._current()
        if not known:
            return None
        if ("user", user) in known:
            return refusal("The operator of this bot has blocked you from using it; nothing was changed.")
        if guild and ("server", guild) in known:
            return refusal("The operator of this bot has blocked this server from using it; nothing was changed.")
        if command and ("command", command) in known:
            return refusal(turned_off(command))
        return None

    async def turned_off(self) -> frozenset[str]:
        """The commands the operator turned off (what /help and its suggestions leave out)."""
        return frozenset(target for kind, target in await self._current() if kind == "command")


def turned_off(command: str) -> str:
    """The refusal of a command (or its button) the operator turned off."""
    return f"The operator of this bot turned /{command} off; nothing was changed."


def _declined(rematch: tuple[str, str], names: dict[str, str], player: str, alias: str) -> str:
    """A rematch's answers (JSON) with `names` replaced and the forgotten member's answer a no, if they were asked:
    a seat in the next game is never kept for a pseudonym nobody plays (their seat opens in its lobby), and the
    rematch never waits on them."""
    asked, answers = json.loads(rematch[0]), replaced(json.loads(rematch[1]), names)
    if player in asked and isinstance(answers, dict):
        answers[alias] = False
    return json.dumps(answers, sort_keys=True)


class Privacy:
    """Forgetting a member, and the operator's controls."""

    def __init__(self, table: Table, controls: Controls):
        self._table, self._controls = table, controls

    async def forget(self, player: str, confirm: bool, operator: bool = False) -> Reply:
        """Forget `player` (both doors: the member's /me forget, the `operator`'s `pitboss forget`): without
        `confirm`, say what it would do and how to confirm it; refused while they hold a seat in a running game."""
        player = checked_id("user", player)
        who, whose = (f"Member {player}", "their") if operator else ("You", "your")
        typed = f"pitboss forget --user {player} --yes" if operator else FORGET_CONFIRM
        store = self._table.store
        # the database judges the seats (no snapshot decoded): a member of many long games holds no loop
        seats = await stored.running_seats(store, player)
        running = seats.first + [(game.id, game.channel) for game in (await asyncio.to_thread(
            lambda: [game for game in seats.unjudged if self._holds(game, player)]) if seats.unjudged else [])]
        if running:
            where = ", ".join(channel_mention(channel) for _, channel in sorted(running)[:stored.CHANNELS_NAMED])
            count = seats.count + len(running) - len(seats.first)
            raise GameError(f"{who} still {'plays' if operator else 'play'} in "
                            f"{plural(count, 'running game', 'running games')} ({where}): {whose} seat is "
                            f"needed while it runs. Resign it (/game resign) or let the game end, then forget. "
                            f"Nothing was changed.")
        entered = [t for t in await tournaments.naming(store, player)
                   if t.status == "running" and player in course.load(t.course).entrants]
        if entered:
            where = ", ".join(f"tournament {t.id} ({channel_mention(t.channel)})" for t in entered[:3])
            raise GameError(f"{who} {'is' if operator else 'are'} entered in {where}, still running: {whose} place "
                            f"in its rounds is needed. Forget once it has finished or been cancelled. "
                            f"Nothing was changed.")
        rows = await stored.personal_rows(store, player)
        kept = sum(rows.values())
        if not confirm:
            played = await stored.games_count(store, player)
            return Reply("shown", clip(
                f"Forgetting deletes what this bot keeps about {'them' if operator else 'you'}: "
                f"{plural(kept, 'personal record', 'personal records')} ({whose} /me settings on every server: time "
                f"zone, away hours, reminders, view, notify; {whose} digest and notice records; the games "
                f"{'they' if operator else 'you'} follow; {whose} standing orders; a GM thread's link; {whose} "
                f"ratings and turn counts; {whose} rank roles (taken off on Discord); {whose} places in queues and "
                f"seasons; {whose} sign-ups for tournaments not started, and {whose} name in the others), and in the "
                f"{plural(played, 'game', 'games')} {'they' if operator else 'you'} played, replaces {whose} name "
                f"with \"forgotten player\" and {whose} id with a random one (the games stay, and still verify). "
                f"It cannot be undone. Nothing changed yet: {typed} does it.",
                MESSAGE_LIMIT), ephemeral=True)
        games = await stored.games_of(store, player)
        async with store.transaction():
            await rank_roles.forget_member_tx(store, player)   # their rank roles are taken off on Discord
            await stored.delete_personal_tx(store, player)
        alias, left = pseudonym(), []
        await self._rename_tournaments(player, alias)
        for game in games:
            if not await self._rename(game, player, alias):
                left.append(str(game.id))
        self._table.heavy.kept.clear()   # a kept replay's frames may name them, though no later question asks it
        renamed = len(games) - len(left)
        unchanged = (f" {plural(len(left), 'game keeps', 'games keep')} {whose} name, as the neutral one would "
                     f"not re-run to its snapshot (game {', '.join(left[:10])})." if left else "")
        return Reply("shown", clip(f"Forgotten: {plural(kept, 'personal record', 'personal records')} deleted, and "
                                   f"{whose} name and id replaced in {plural(renamed, 'game', 'games')}.{unchanged}",
                                   MESSAGE_LIMIT), ephemeral=True)

    async def _rename_tournaments(self, player: str, alias: str) -> None:
        """Take a forgotten member off the tournaments they signed up for, and rename them (and a creator) in
        the rest: the same alias as in their games."""
        store = self._table.store
        for _ in range(3):   # another writer moved a tournament on meanwhile: read them again
            try:
                async with store.transaction():
                    for record in await tournaments.naming(store, player):
                        plan = course.load(record.course)
                        course.forget(plan, player, alias, neutral_name(plan.names.values()))
                        await tournaments.save_tx(store, record, record.status, course.dump(plan),
                                                  alias if record.creator == player else None)
                return
            except VersionConflict:
                continue
        log.warning("a forgotten member's tournaments kept changing: left as they were")

    @staticmethod
    def _holds(game: GameRecord, player: str) -> bool:
        """Whether `player` hosts a running game or holds a seat in it (not resigned)."""
        if game.host == player:
            return True
        seat = get_ruleset(game.ruleset).load_state(game.state).player(player)
        return seat is not None and not getattr(seat, "resigned", False)

    async def _rename(self, game: GameRecord, player: str, alias: str) -> bool:
        """Replace `player`'s id by `alias` and their name by a neutral one in one game: True when done, False
        when the renamed game would not re-run to its snapshot (then nothing of it changed)."""
        store = self._table.store
        log = await stored.log_with_events(store, game.id)
        aside = await stored.set_aside_rows(store, game.id)
        told, turn_body = await stored.message_bodies(store, game.id)
        line_ends = await store.line_ends(game.id)

        def rewrite() -> tuple[dict[str, str], stored.Rewritten]:
            """The game's records with the member renamed (a whole log's worth of text: on a thread)."""
            own, others = own_names(game, log, player)
            state = get_ruleset(game.ruleset).load_state(game.state)
            neutral = neutral_name([*others, *(seat.name for seat in state.players)])
            # a name another seat was given too is not theirs alone to lose; the other seats' names stay whole
            kept = (others | {seat.name for seat in state.players}) - own - {player}
            names = replacements(player, alias, own - others, neutral, kept)
            return names, rewritten(game, log, aside, line_ends, told, turn_body, names, player, neutral)
        names, records = await asyncio.to_thread(rewrite)
        if not await self._replays(dataclasses.replace(game, host=records.host, options=records.options,
                                                       state=records.state), log, aside, records):
            return False
        approvals, rematch = await stored.vote_rows(store, game.id)
        try:
            async with store.transaction():
                await stored.rewrite_game_tx(store, game, records, player, alias)
                await stored.set_vote_rows_tx(
                    store, game.id, json.dumps(replaced(json.loads(approvals), names)) if approvals else None,
                    (json.dumps(replaced(json.loads(rematch[0]), names)),
                     _declined(rematch, names, player, alias)) if rematch else None)
        except VersionConflict:   # it moved on meanwhile: left as it is, counted
            return False
        return True

    async def _replays(self, game: GameRecord, log, aside, records: stored.Rewritten) -> bool:
        """Whether the renamed game re-runs from its seed to its renamed snapshot, and each line a rollback
        set aside to the snapshot it ended at."""
        rows = [(r.seq, *records.actions.get(r.seq, (r.actor, r.action))[:2], "") for r in log]
        heavy = self._table.heavy
        try:
            if not await heavy.run(heavy_jobs.snapshot_matches, game.ruleset, game, rows, items=len(rows)):
                return False
            if not aside:
                return True
            lines: dict[int, list[tuple[int, str, str, str]]] = {}
            for rollback, r in aside:
                actor, action = records.set_aside.get((rollback, r.seq), (r.actor, r.action))[:2]
                lines.setdefault(rollback, []).append((r.seq, actor, action, ""))
            return bool(await heavy.run(heavy_jobs.set_aside_replays, game.ruleset, game, rows, lines,
                                        records.line_ends, items=len(rows) * (len(lines) + 1)))
        except (GameError, ValueError, LookupError, TypeError, AttributeError):
            return False

    async def control(self, kind: str, target: str, on: bool, reason: str = "") -> Reply:
        """Block or unblock a member or server, or turn a command off or on (`pitboss block` and the rest)."""
        if kind not in CONTROL_KINDS:
            raise GameError(f"Controls are {', '.join(CONTROL_KINDS)}.")
        target = command_name(target) if kind == "command" else checked_id(kind, target)
        what = f"/{target}" if kind == "command" else f"{'member' if kind == 'user' else 'server'} {target}"
        if on:
            why = plain_name(reason, fallback="", limit=REASON_LIMIT)
            if not why:   # set again without a reason: the note given before stays
                why = next((c.reason for c in await stored.controls(self._table.store)
                            if c.kind == kind and c.target == target), "")
            await stored.set_control(self._table.store, Control(kind, target, why))
            said = "turned off" if kind == "command" else "blocked"
        else:
            if not await stored.drop_control(self._table.store, kind, target):
                raise GameError(f"{what} was not {'turned off' if kind == 'command' else 'blocked'}; nothing changed.")
            said = "turned on again" if kind == "command" else "unblocked"
        self._controls.changed()
        return Reply("shown", f"{what} {said} (running bots take it within {CONTROLS_SECONDS:.0f} s).")

    async def listed(self) -> Reply:
        """Every control the operator set, one a line."""
        found = await stored.controls(self._table.store)
        if not found:
            return Reply("shown", "Nothing is blocked or turned off.")
        names = {"user": "member", "server": "server", "command": "command off"}
        return Reply("shown", "\n".join(f"{names[c.kind]} {'/' if c.kind == 'command' else ''}{c.target}"
                                        + (f": {c.reason}" if c.reason else "") for c in found))
