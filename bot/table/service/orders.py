"""`/orders`: a player's standing orders in this channel's game, answers given in advance to the questions
the game asks off their turn (rules.engine.StandingOrders); private to their owner, kept per game, and
carried out by the acting part of the service (Acting.play_computers) when their question comes."""

from __future__ import annotations

from typing import Any

from bot.storage.store import GameRecord
from bot.table.protocol.refusals import NoGame
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor, Reply, clip
from bot.table.service.shared import Table
from rules.engine import Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.seats import is_resigned


class StandingOrders:
    """Set, show and clear one player's standing orders in the channel's running game."""

    def __init__(self, table: Table):
        self._table = table

    async def _game(self, channel: str, actor: Actor, seated: bool = True) -> tuple[GameRecord, Ruleset, Any]:
        """The channel's running game, its rules and state, for a game that has questions; with `seated`,
        only for a player seated in it."""
        game = await self._table.store.active_game(channel)
        if game is None:
            raise NoGame()
        ruleset = get_ruleset(game.ruleset)
        if ruleset.orders is None:
            raise GameError(f"{ruleset.title} asks no question a standing order could answer.")
        state = self._table.snapshots.load(ruleset, game.state)
        if seated and (why := unkept(ruleset, state, actor.id)):
            raise GameError(why)
        return game, ruleset, state

    async def set(self, channel: str, actor: Actor, question_name: str, answer_given: str) -> Reply:
        """/orders set: keep an answer to one question, given when the question comes."""
        game, ruleset, state = await self._game(channel, actor)
        assert ruleset.orders is not None
        if why := unkept(ruleset, state, actor.id, setting=True):
            raise GameError(why)
        question = ruleset.orders.question(question_name)
        answer = question.kept(answer_given)
        await self._table.store.set_standing_order(game.id, actor.id, question.name, answer)
        now = " It is asked of you now: answer it this time." if question.asked(state, actor.id) else ""
        if ruleset.is_computer(state, actor.id):
            now += (" The computer plays your seat now and answers for it: your orders act once you take the seat "
                    "back (/game seat take).")
        return Reply("shown", f"Standing order kept (only you see it): {question.name} → {answer}. When the "
                              f"question comes, the table answers it at once in your name.{now} "
                              f"/orders clear drops it.", ephemeral=True)

    async def clear(self, channel: str, actor: Actor, question_name: str | None) -> Reply:
        """/orders clear: drop one standing order, or every one in this game."""
        game, ruleset, _state = await self._game(channel, actor)
        assert ruleset.orders is not None
        dropped = ruleset.orders.question(question_name).name if question_name else ""
        await self._table.store.set_standing_order(game.id, actor.id, dropped, None)
        return Reply("shown", f"Dropped your standing order for {dropped}." if dropped
                     else "Dropped all your standing orders in this game.", ephemeral=True)

    async def show(self, channel: str, actor: Actor) -> Reply:
        """/orders show: one's orders; to a player not seated, what a player could settle in advance (for
        one deciding to join)."""
        game, ruleset, state = await self._game(channel, actor, seated=False)
        if state.player(actor.id) is None:
            return Reply("shown", _shown(ruleset, {}, seated=False), ephemeral=True)
        return Reply("shown", _shown(ruleset, (await self._table.store.standing_orders(game.id)).get(actor.id, {})),
                     ephemeral=True)


def _shown(ruleset: Ruleset, mine: dict[str, str], seated: bool = True) -> str:
    """A player's orders, and every question the game lets them settle in advance with its answers."""
    assert ruleset.orders is not None
    lines = [f"Your standing orders in this {ruleset.title} game (only you see them):" if seated else
             f"The questions a player of this {ruleset.title} game may answer in advance:"]
    lines += [f"- {q.name}: **{mine[q.name]}**" if q.name in mine else f"- {q.name}: "
              f"{'none (answers: ' if seated else ''}{', '.join(q.answers)}{')' if seated else ''}"
              for q in ruleset.orders.questions]
    lines.append("/orders set question:NAME answer:WORD keeps one; /orders clear drops one, or all.")
    return clip("\n".join(lines), MESSAGE_LIMIT)


def unkept(ruleset: Ruleset, state: Any, player: str, setting: bool = False) -> str:
    """Why `player` keeps no standing orders in this game ("" when they may): they hold no seat in it; and, for
    one `setting` an order, no question comes to them (their seat resigned, or they are the game master)."""
    if state.player(player) is None:
        return "Only a player seated in this game keeps standing orders here."
    if setting and is_resigned(state, player):
        return "You resigned from this game: no question comes to your seat, so no order would act."
    if setting and ruleset.game_master is not None and ruleset.game_master.seat(state) == player:
        return "The game master is asked none of these questions: standing orders are the players'."
    return ""


def offers(ruleset: Ruleset, state: Any, player: str, command: str, option: str,
           chosen: dict) -> list[tuple[str, str]]:
    """Autocomplete for /orders: the game's questions, or the answers of the question chosen; nothing for one
    the command would refuse (`unkept`)."""
    if ruleset.orders is None or unkept(ruleset, state, player, setting=command == "orders set"):
        return []
    if option == "question":
        return [(q.name, q.name) for q in ruleset.orders.questions]
    try:
        return [(a, a) for a in ruleset.orders.question(str(chosen.get("question", ""))).answers]
    except GameError:
        return []
