"""End to end (issue 39, item 7): Discord's request budget for play over hours.

A game played over days makes nearly every move more than 15 minutes after its turn's message was
posted, when no interaction token can edit that message any more. Each game here is played with every
token dead before each step (the fake's `advance`, which the bot's clock sees too), by slash command and
by button, and a move spends at most BUDGET requests of Discord's global limit (the per-kind counts are
printed: run with -s). Only the live turn message's buttons act (issue 38, item 6): an earlier message
left with its buttons answers a press privately and loses them through that press's own response.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

from rules.registry import get_ruleset
from tests.e2e.fake_discord import Exchange, FakeDiscord
from tests.e2e.fake_limits import Spent, credential, is_global_bound
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, buttons_of

TOKEN_DEAD = 16 * 60.0   # seconds Discord's clock moves on before each step: past a token's 15 minutes
BUDGET = 0.25            # global-bound requests a move, at most (the goal)
MOVES = 4                # moves measured in each game (Speedway: a turn begun by button, one by slash command)
SETUPS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {   # each game's options, and its players' join options
    "speedway": ({"seed": 7}, {}),
    "battlecars": ({"seed": 11}, {"vehicle": "interceptor"}),
    "track": ({"seed": 5}, {}),
    "race": ({"track": "outlaw_gauntlet", "tuning": 0, "seed": 7}, {"pilot": "rookie", "vehicle": "racing_swoop"}),
}


def players(table: str) -> tuple[str, str]:
    """Each table's own two players (one member's commands at every table at once would meet the flood guard)."""
    return f"{table}-a", f"{table}-b"


class Rounds:
    """The four games play at once, one step each a round; between rounds, with nothing in flight, Discord's
    clock moves on past every token made so far."""

    def __init__(self, fake: FakeDiscord, playing: int):
        self.fake, self.playing, self.waiting = fake, playing, 0
        self.round = asyncio.Event()

    async def step(self) -> None:
        """Wait for the next round (every token older than it dead)."""
        self.waiting += 1
        began = self.round
        self._maybe_advance()
        await began.wait()

    def leave(self) -> None:
        self.playing -= 1
        self._maybe_advance()

    def _maybe_advance(self) -> None:
        if self.playing and self.waiting == self.playing:
            self.fake.advance(TOKEN_DEAD)
            self.waiting = 0
            self.round.set()
            self.round = asyncio.Event()


async def answered(fake: FakeDiscord, interaction_id: str) -> Exchange:
    exchange = await fake.responses(interaction_id, timeout=RESPONSE_TIMEOUT)
    assert not exchange.rejected, exchange.describe()
    return exchange


async def slash(fake: FakeDiscord, user: str, table: str, command: str, **options: Any) -> Exchange:
    return await answered(fake, await fake.send_slash(user, table, command, options))


async def press(fake: FakeDiscord, user: str, table: str, message: dict, label: str) -> Exchange:
    buttons = buttons_of(message)
    assert label in buttons, (label, sorted(buttons))
    return await answered(fake, await fake.click(user, table, message["id"], buttons[label]))


def game_row(bot, fake: FakeDiscord, table: str) -> tuple[int, str, Any, str]:
    """The table's game: its version, its ruleset, its state and the id of its turn's message."""
    with sqlite3.connect(f"file:{bot.db}?mode=ro", uri=True) as db:
        version, ruleset, state, message_id = db.execute(
            "SELECT g.version, g.ruleset, g.state, t.message_id FROM games g JOIN turn_messages t ON t.game_id = g.id"
            " WHERE g.channel = ? AND g.status = 'active'", (fake.channels[table].id,)).fetchone()
    return version, ruleset, get_ruleset(ruleset).load_state(state), message_id


def live_message(bot, fake: FakeDiscord, table: str) -> dict:
    """The turn's one live message: the latest with buttons, and the one the bot holds as the turn's."""
    latest = [m for m in fake.channel_messages(table) if m.get("components")][-1]
    assert latest["id"] == game_row(bot, fake, table)[3], latest["content"][:200]
    return latest


def player_to_act(bot, fake: FakeDiscord, table: str) -> str:
    _version, ruleset, state, _message = game_row(bot, fake, table)
    ids = {fake.users[name].id: name for name in players(table)}
    return ids[get_ruleset(ruleset).acting_players(state)[0]]


async def set_up(fake: FakeDiscord, table: str) -> None:
    options, joins = SETUPS[table]
    host, guest = players(table)
    await slash(fake, host, table, f"new {table}", **options)
    for name in (host, guest):
        await slash(fake, name, table, "game join", **joins)
    await slash(fake, host, table, "game start")


async def play_speedway(bot, fake: FakeDiscord, rounds: Rounds) -> tuple[int, dict]:
    """Turns of Speed 1 and `normal`, the two moves of each by button and by slash command in turn (the
    requests of each way printed); the moves made, and the message the first slash command's move within
    a turn left behind."""
    moves, left = 0, None
    ways: dict[str, list] = {"button": [], "slash command": []}
    while moves < MOVES:
        for step, by_button in (("speed", moves % 4 == 0), ("move", moves % 4 != 0)):
            await rounds.step()
            mark = fake.mark()
            player, live = player_to_act(bot, fake, "speedway"), live_message(bot, fake, "speedway")
            if by_button:
                await press(fake, player, "speedway", live, "Speed 1" if step == "speed" else "normal")
            elif step == "speed":
                await slash(fake, player, "speedway", "speed", value="1")
                left = left or live   # the turn goes on in a new message; this one keeps its words
            else:
                await slash(fake, player, "speedway", "move", maneuver="normal")
            ways["button" if by_button else "slash command"] += fake.requests_since(mark, "speedway")
            moves += 1
    for way, records in ways.items():
        print(f"\nspeedway, moves by {way}, every token dead: {Spent.of(records, MOVES // 2)}")
    assert left is not None
    return moves, left


async def play_privately(bot, fake: FakeDiscord, rounds: Rounds, table: str) -> int:
    """Moves through the public "Your move (private)" button and the private menu it opens (a group's
    menu opens in place, then its choice is pressed), each press a round later. The moves made."""
    moves = 0
    while moves < MOVES:
        await rounds.step()
        version = game_row(bot, fake, table)[0]
        player = player_to_act(bot, fake, table)
        opened = await press(fake, player, table, live_message(bot, fake, table), "Your move (private)")
        (menu,) = opened.followups
        assert menu.ephemeral, opened.describe()
        panel = menu.message
        for _ in range(4):   # a group's menu, then its choice
            await rounds.step()   # the menu's token dies too: the press's own answers it
            buttons = [b for row in panel["components"] for b in row["components"]]
            act = [b for b in buttons if b["custom_id"].startswith("qb:")]
            chosen = (act or [b for b in buttons if b["custom_id"].startswith("qm:")])[0]
            await answered(fake, await fake.click(player, table, panel["id"], chosen["custom_id"]))
            if game_row(bot, fake, table)[0] != version:
                break
            panel = fake.message(panel["id"])
        else:
            raise AssertionError(f"{table}: no move made from {player}'s menu")
        moves += 1
    return moves


def spent_by(fake: FakeDiscord, mark: int, moves: int, table: str) -> Spent:
    records = fake.requests_since(mark, table)
    assert all((credential(r) == "bot token") == is_global_bound(r.kind) for r in records), \
        [(r.kind, credential(r)) for r in records]
    spent = Spent.of(records, moves)
    print(f"\n{table}, every token dead: {spent}")
    return spent


async def test_a_move_spends_at_most_a_quarter_of_a_global_request_with_every_token_dead(fake, start_bot):
    for table in SETUPS:
        fake.add_channel(table)
        for name in players(table):
            fake.add_user(name)
    bot = start_bot()
    await asyncio.gather(*(set_up(fake, table) for table in SETUPS))

    mark, rounds = fake.mark(), Rounds(fake, len(SETUPS))

    async def play(table: str) -> Any:
        try:
            if table == "speedway":
                return await play_speedway(bot, fake, rounds)
            return await play_privately(bot, fake, rounds, table), None
        finally:
            rounds.leave()

    played = dict(zip(SETUPS, await asyncio.gather(*(play(table) for table in SETUPS)), strict=True))
    spent = {table: spent_by(fake, mark, moves, table) for table, (moves, _left) in played.items()}
    for table, each in spent.items():
        assert each.global_bound <= BUDGET, (table, str(each))
        assert each.refused == 0, (table, str(each))   # the bot knew the tokens were dead: no 401s

    # The message a slash command's move left behind keeps its words, and its buttons act on nothing: a
    # press there is told so privately and takes them off through its own response.
    left = played["speedway"][1]
    version = game_row(bot, fake, "speedway")[0]
    assert fake.message(left["id"])["components"]
    pressed = await press(fake, "carol", "speedway", fake.message(left["id"]), "Speed 2")
    (told,) = pressed.followups
    assert told.ephemeral and "out of date" in told.content, pressed.describe()
    assert fake.message(left["id"])["components"] == [] and "⏰" not in fake.message(left["id"])["content"]
    assert not any(is_global_bound(r.kind) for r in pressed.requests), pressed.describe()
    assert game_row(bot, fake, "speedway")[0] == version
    for table in SETUPS:   # one live turn message in each channel, the one the bot plays on
        live_message(bot, fake, table)
    assert_nothing_unexpected(fake, bot)
