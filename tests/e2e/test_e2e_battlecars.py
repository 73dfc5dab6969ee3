"""End to end: a Battlecars game on the fake Discord. Each driver sets a speed through the public "Your
move (private)" button and the private menu it opens; nothing public shows a counter before the reveal,
and the reveal names them all."""

from __future__ import annotations

import re
import sqlite3

from rules.battlecars.ruleset import RULESET
from rules.battlecars.state import BattlecarsState
from tests.e2e.fake_discord import EPHEMERAL
from tests.e2e.menus import press_in_menu, private_menu
from tests.e2e.test_e2e_discord import (
    RESPONSE_TIMEOUT,
    assert_nothing_unexpected,
    assert_private_refusal,
    assert_public_map,
    slash,
)
from tests.e2e.test_e2e_long_games import all_buttons, poll
from tests.e2e.test_e2e_track import public_text


def read_state(db_path) -> BattlecarsState:
    with sqlite3.connect(db_path) as db:
        (state,) = db.execute("SELECT state FROM games").fetchone()
    return RULESET.load_state(state)


async def set_speed(fake, player: str, public_message: dict, label: str) -> None:
    """Press the public choices button, then the speed in the private menu it opens."""
    menu, buttons = await private_menu(fake, player, public_message)
    assert menu.ephemeral and "only you see this" in menu.content
    assert label in buttons, list(buttons)
    played = await press_in_menu(fake, player, menu, buttons[label])
    assert not played.rejected and not any(f.ephemeral for f in played.followups), played.describe()


async def test_speed_counters_are_set_in_private_and_revealed_together(fake, bot, record_latency):
    made = assert_public_map(await slash(fake, "alice", "channel", "new battlecars"),
                             record_latency, title="Battlecars")
    assert "New Battlecars game" in made.content
    for name, mat in (("alice", "sentinel"), ("bob", "tank")):
        assert_public_map(await slash(fake, name, "channel", "game join", vehicle=mat), record_latency,
                          title="Battlecars")
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency,
                                title="Battlecars")
    assert list(started.buttons) == ["Your move (private)"]

    names = {str(fake.users[name].id): name for name in ("alice", "bob")}
    first, second = read_state(bot.db).order                  # the die decides: either may move first
    chosen = {p: 3 if names[p] == "alice" else 1 for p in (first, second)}   # the tank reaches 1 only
    await set_speed(fake, names[first], fake.message(started.message_id), f"Speed {chosen[first]}")
    await poll(lambda: len(read_state(bot.db).declared) == 1, RESPONSE_TIMEOUT, "the first counter stored")
    shown = public_text(fake, "channel")
    assert "face down" in shown and not re.search(rf"\b(speed|counter)\D{{0,12}}{chosen[first]}\b", shown, re.I), shown

    latest = [m for m in fake.channel_messages("channel") if all_buttons(m)][-1]
    await set_speed(fake, names[second], latest, f"Speed {chosen[second]}")
    await poll(lambda: read_state(bot.db).phase == "move", RESPONSE_TIMEOUT, "the counters revealed")
    assert "Speed counters revealed:" in public_text(fake, "channel")
    state = read_state(bot.db)
    assert (state.vehicle_of(first).speed, state.vehicle_of(second).speed) == (chosen[first], chosen[second])

    # Speedway's /move options are refused at this table, privately.
    refused = await slash(fake, names[first], "channel", "move", maneuver="normal")
    assert "not an option" in assert_private_refusal(refused, record_latency)
    assert_nothing_unexpected(fake, bot)


async def test_a_move_is_one_press_a_point_in_a_menu_that_updates_in_place(fake, bot, record_latency):
    """Issue 25, item 2: once a driver has opened their private menu, every point of their move is one
    press in it: the menu shows the next choices in place after each press, and no press is answered
    "out of date"."""
    assert_public_map(await slash(fake, "alice", "channel", "new battlecars", seed=11), record_latency,
                      title="Battlecars")
    for name, vehicle in (("alice", "interceptor"), ("bob", "rammer")):
        assert_public_map(await slash(fake, name, "channel", "game join", vehicle=vehicle), record_latency,
                          title="Battlecars")
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency,
                                title="Battlecars")
    names = {str(fake.users[name].id): name for name in ("alice", "bob")}
    first, second = read_state(bot.db).order
    await set_speed(fake, names[first], fake.message(started.message_id), "Speed 3")
    latest = [m for m in fake.channel_messages("channel") if all_buttons(m)][-1]
    await set_speed(fake, names[second], latest, "Speed 3")
    state = await poll(lambda: (s := read_state(bot.db)).phase == "move" and s, RESPONSE_TIMEOUT, "the reveal")
    mover = names[state.active]
    latest = [m for m in fake.channel_messages("channel") if all_buttons(m)][-1]
    menu, buttons = await private_menu(fake, mover, latest)
    panel_id = menu.message["id"]
    for driven in range(1, 4):
        point = next((label for label in buttons if not label.startswith(("Fire", "End", "Drop", "Leave", "Odds"))),
                     None)
        assert point is not None, list(buttons)
        pressed = await press_in_menu(fake, mover, menu, buttons[point])
        assert not pressed.rejected and not any(f.ephemeral for f in pressed.followups), pressed.describe()
        await poll(lambda n=driven: read_state(bot.db).vehicle_for(state.active).moved == n, RESPONSE_TIMEOUT,
                   f"point {driven} driven")
        panel = fake.message(panel_id)       # the same private message, now with the next choices
        assert panel["flags"] & EPHEMERAL and "only you see this" in panel["content"], panel
        buttons = {b["label"]: b["custom_id"] for b in all_buttons(panel)}
    seen = "\n".join(m.get("content") or "" for m in fake.channel_messages("channel", viewer=mover))
    assert "out of date" not in seen
    assert_nothing_unexpected(fake, bot)
