"""A turn's buttons over a long game, where they meet other features: a double click on a private menu, a
seat that changed hands, a game moved away, a seat offered while the game goes on."""

from __future__ import annotations

import asyncio

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import CHOICES_PREFIX, Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.examples import lines
from tests.table_model import Clock

HOUR = 3600.0


async def run(service, user, line, channel="c", admin=False):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild="g")


async def press(service, user, custom_id, channel="c", delivery=None):
    return await service.press(channel, Actor(user, user), custom_id, delivery=delivery, guild="g")


async def test_a_double_click_on_a_private_move_button_plays_one_move(service, store):
    """Battlecars offers every move in a private menu (private_actions): its buttons carry a digest of the turn
    and the choices, not the version. One double click on "Ahead" must drive one square, not two."""
    for user, line in [*lines("battlecars", 3), ("ann", "/speed value:3"), ("ben", "/speed value:R"),
                       ("ann", "/move turn:left-90")]:
        assert (await run(service, user, line)).outcome == "applied", line
    game = await store.active_game("c")
    menu = await press(service, "ann", f"{CHOICES_PREFIX}:{game.id}:0:0")
    ahead = next(b for b in menu.buttons if b.label == "Ahead")
    # the two deliveries of one double click, arriving together
    first, second = await asyncio.gather(press(service, "ann", ahead.custom_id, delivery="click-1"),
                                         press(service, "ann", ahead.custom_id, delivery="click-2"))
    assert first.outcome == "applied" and "A4 -> A3" in first.text
    assert second.outcome == "refused", second.text   # not a second square
    assert (await store.active_game("c")).version == game.version + 1


async def test_a_resign_button_for_your_own_seat_never_resigns_its_next_holder(store):
    """ann (the host) asks to resign her seat and gets "Resign your seat for good?" with its button, then hands
    the seat to dan instead. Once dan is gone (the autopilot played for him), ann's old button must not resign
    dan's seat: it was drawn for her own, and a resignation is final."""
    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    for user, line in (("ann", "/game new ruleset:track seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start"), ("ann", "/game settings deadline_hours:1")):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    asked = await run(service, "ann", "/game resign")
    assert "Resign your seat for good?" in asked.text
    (resign,) = asked.buttons
    assert (await run(service, "ann", "/game seat give to:dan")).outcome == "applied"
    assert (await run(service, "dan", "/game seat take")).outcome == "applied"
    ruleset = get_ruleset("track")
    for _ in range(8):   # dan stays away: the autopilot plays his turns at their deadlines, and he is gone
        clock.now += 1.01 * HOUR
        await service.run_due()
        if (await run(service, "ann", "/game resign player:dan")).outcome == "shown":   # asked only: nothing changes
            break
    else:
        raise AssertionError("dan never counted as gone")
    pressed = await press(service, "ann", resign.custom_id)
    state = ruleset.load_state((await store.active_game("c") or await store.latest_game("c")).state)
    dan = state.player("dan")
    assert pressed.outcome == "refused", pressed.text
    assert dan is not None and not dan.resigned


async def test_a_button_left_in_a_game_s_old_channel_says_where_it_went(service, store):
    """A running game moved by export and import: its old turn message keeps its buttons (nothing edits it).
    A press there must say where the game went (as /game status there does), not invite a new game."""
    from bot.table.protocol.commands import Command

    for user, line in (("ann", "/game new ruleset:speedway seed:5"), ("ann", "/game join car:brawler"),
                       ("ben", "/game join car:brawler")):
        assert (await run(service, user, line, "before")).outcome == "applied", line
    started = await run(service, "ann", "/game start", "before")
    assert started.buttons
    mover = started.waiting_on[0]
    exported = await run(service, "ann", "/game export", "before")
    moved = await service.execute("after", Actor("ann", "ann"),
                                  Command("game import", {"file": exported.files[0].data}), guild="g")
    assert moved.outcome == "applied", moved.text
    assert "moved to after" in (await run(service, mover, "/game status", "before")).text
    pressed = await press(service, mover, started.buttons[0].custom_id, channel="before")
    assert pressed.outcome == "refused"
    assert "after" in pressed.text, pressed.text   # not "No game is running here"


class _Sent:
    def __init__(self, message_id: str) -> None:
        self.id = int(message_id)


class _Webhook:
    """An interaction's follow-up webhook: posts and edits, each recorded as the message's live buttons."""

    def __init__(self, views: dict) -> None:
        self.views = views

    async def send(self, content, *, files=None, view=None, allowed_mentions=None, wait=False, **_):
        message_id = str(100 + len(self.views))
        self.views[message_id] = _labels(view)
        return _Sent(message_id)

    async def edit_message(self, message_id, *, view=None, **_):
        self.views[str(message_id)] = _labels(view)


def _labels(view) -> list[str]:
    """The labels of a message's buttons (none without a view)."""
    return [] if view is None or not hasattr(view, "children") else \
        [getattr(item, "item", item).label for item in view.children]


class _Typed:
    """A typed command's interaction (no message pressed), as the adapter's publish uses it."""

    def __init__(self, views: dict) -> None:
        import datetime

        self.message = None
        self.followup = _Webhook(views)
        self.created_at = datetime.datetime.now(datetime.UTC)

    async def delete_original_response(self) -> None:
        return None


async def test_the_take_the_seat_button_stays_while_the_offer_stands(service, store):
    """ann offers her seat to dan: the message pings dan with "Take the seat". ann then plays on (her seat is
    hers until dan takes it). The offer still stands, so dan must still find a Take the seat button on the
    channel's live messages; the next move's edit (or its retiring of the offer's message) takes it away."""
    from bot.chat.routes import InteractionWebhooks
    from bot.chat.views import publish

    for user, line in lines("speedway", 5):
        assert (await run(service, user, line)).outcome == "applied", line
    mover = (await run(service, "zed", "/game status")).waiting_on[0]
    views: dict[str, list[str]] = {}
    webhooks = InteractionWebhooks()
    offered = await run(service, mover, "/game seat give to:dan")
    assert "Take the seat" in [b.label for b in offered.buttons] and "dan" in offered.mentions
    await publish(service, _Typed(views), offered, from_button=False, webhooks=webhooks)
    assert any("Take the seat" in labels for labels in views.values())
    moved = await run(service, mover, offered.legal[0].command)   # ann plays on, dan has not taken it yet
    assert moved.outcome == "applied", moved.text
    await publish(service, _Typed(views), moved, from_button=False, webhooks=webhooks)
    state = get_ruleset("speedway").load_state((await store.active_game("c")).state)
    assert state.player(mover).offered_to == "dan"   # the offer stands
    assert any("Take the seat" in labels for labels in views.values()), views
