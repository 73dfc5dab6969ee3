"""The Battlecars speed step (every driver sets a counter in secret, all waited on at once) where it meets the
table's features: simultaneous deadlines, the private menu, a seat that changes hands mid-step."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.test_scheduler import Clock

CARS = get_ruleset("battlecars")
CHANNEL = "speed-step"


async def three_drivers(store, settings: str = "/game settings deadline_hours:6"):
    """ann, ben and cal's Battlecars game, started: the speed step of turn 1 waits on all three."""
    clock = Clock()
    service = GameService(store, render=None, clock=clock)

    async def run(user, line):
        return await service.execute(CHANNEL, Actor(user, user), parse(line), guild="g1")
    for user, line in (("ann", "/game new ruleset:battlecars seed:9"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("cal", "/game join vehicle:gunwagon"),
                       ("ann", settings), ("ann", "/game start")):
        reply = await run(user, line)
        assert reply.outcome in ("applied", "shown"), (line, reply.text)
    state = CARS.load_state((await store.active_game(CHANNEL)).state)
    assert CARS.acting_players(state) == ("ann", "ben", "cal")
    return service, clock, run


async def test_a_deadline_notice_never_tells_the_other_late_drivers_they_have_no_deadline(store):
    """All three drivers miss the same 6 h deadline of the speed step (their clocks started together). The
    scheduler claims the three deadlines at once, then plays them one by one. The first notice, ann's, shows the
    channel "ben, cal: reminder <hours away>, no deadline": their claimed timers read as if they had no deadline at
    all, though theirs passed too and the autopilot plays for them the next instant."""
    service, clock, run = await three_drivers(store)
    clock.advance(6.5)
    notices = [n.reply.text for n in await service.run_due() if "deadline passed" in n.reply.text]
    assert len(notices) == 3, notices
    first = notices[0]
    assert first.startswith("ann's deadline passed"), first
    assert "no deadline" not in first, first


async def test_a_counter_set_from_the_private_menu_is_confirmed_privately(store):
    """ann opens "Your move (private)" and presses a speed. The channel reads only "ann set a speed counter,
    face down"; her private panel says "Done: the channel's message shows your move", which it does not, and
    nothing she alone reads names the counter she set (a misclick goes unnoticed until the reveal)."""
    service, clock, run = await three_drivers(store)
    status = await run("ann", "/game status")
    menu = await service.press(CHANNEL, Actor("ann", "ann"), status.buttons[0].custom_id)
    button = menu.buttons[1]
    assert button.label.startswith("Speed "), [b.label for b in menu.buttons]
    value = button.label.removeprefix("Speed ")
    pressed = await service.press(CHANNEL, Actor("ann", "ann"), button.custom_id)
    assert pressed.outcome == "applied" and not pressed.ephemeral
    assert "face down" in pressed.text and f"ann {value}" not in pressed.text   # public: the secret kept
    panel = pressed.panel.text if pressed.panel is not None else ""
    assert "channel's message shows your move" not in panel, panel
    assert value in panel, panel


async def test_the_member_who_takes_a_seat_mid_step_can_read_the_counter_it_holds(store):
    """ben sets speed 1 face down and hands his seat to dave, who takes it: the counter is now dave's (RULES.md
    "Seats that change hands": "its turns, pings, clock, face-down counter"), and he will drive at it. His
    private catch-up of the seat says only "ben set a speed counter, face down", and /speed only "Your speed
    counter is already down": dave never learned the speed he is committed to. /speed now names it to him."""
    service, clock, run = await three_drivers(store)
    assert (await run("ben", "/speed value:1")).outcome == "applied"
    assert (await run("ben", "/game seat give to:dave")).outcome == "applied"
    assert (await run("dave", "/game seat take")).outcome == "applied"
    again = await run("dave", "/speed value:2")   # the seat's counter, told to its holder alone, privately
    assert again.outcome == "refused" and "down for this turn: 1, face down" in again.text, again.text
    assert "down for this turn: 1" not in (await run("ann", "/speed value:2")).text
