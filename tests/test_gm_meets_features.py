"""The seated GM where the GM meets the table's other features: a private note, a GM seat handed on, a refused seat
change."""

from __future__ import annotations

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.race.ruleset import RULESET


async def _do(service, user: str, line: str, channel: str = "c", admin: bool = False):
    return await service.execute(channel, Actor(user, user, admin), parse(line))


async def _state(service, channel: str = "c"):
    game = await service._store.active_game(channel) or await service._store.latest_game(channel)
    return RULESET.load_state(game.state)


async def _gm_race(service, channel: str = "c", seed: int = 7):
    for user, line in (("gina", f"/game new ruleset:race gm:yes tuning:0 seed:{seed}"), ("alice", "/game join"),
                       ("bob", "/game join"), ("gina", "/game start")):
        assert (await _do(service, user, line, channel)).outcome == "applied", line


async def _to_action_phase(service, channel: str = "c"):
    """The GM reveals; racers answer with their first choice until one racer alone acts (the action phase);
    the reveal's public reply (it carries the public 'your move' button)."""
    revealed = await _do(service, "gina", "/gm reveal:yes", channel)
    for _ in range(40):
        state = await _state(service, channel)
        if state.phase == "action":
            return revealed
        for player in RULESET.acting_players(state):
            assert (await _do(service, player, RULESET.legal_actions(state, player)[0].command, channel)).outcome \
                == "applied"
    raise AssertionError("never reached the action phase")


async def test_a_gms_private_note_does_not_spoil_the_acting_racers_own_buttons(service):
    """/gm tell 'takes no turn and changes nothing else' (steps.gm_tell), yet the racer whose turn it is finds
    the private buttons they just opened refused as 'out of date: your turn has moved on'."""
    await _gm_race(service)
    revealed = await _to_action_phase(service)
    (racer,) = RULESET.acting_players(await _state(service))
    other = "alice" if racer == "bob" else "bob"
    menu = await service.press("c", Actor(racer, racer), revealed.buttons[0].custom_id)   # "Your move (private)"
    assert menu.outcome == "shown" and menu.buttons
    told = await _do(service, "gina", f"/gm racer:{other} tell:careful")
    assert told.outcome == "applied"
    pressed = await service.press("c", Actor(racer, racer), menu.buttons[-1].custom_id)   # "No action"
    assert pressed.outcome == "applied", pressed.text


async def test_a_rematch_names_the_gm_seat_after_the_member_who_holds_it(service):
    """gina hands the GM's seat to dave mid-race; the rematch seats dave as GM (and host) but names him
    'gina', so the channel reads 'Waiting on gina' and 'gina is the GM' while pinging dave. A racer's seat
    taken by another member is re-joined by its holder's own name (rematch._held)."""
    await _gm_race(service)
    assert (await _do(service, "gina", "/game seat give to:dave")).outcome == "applied"
    assert (await _do(service, "dave", "/game seat take")).outcome == "applied"
    assert (await _do(service, "gina", "/game end")).outcome == "applied"
    for user in ("alice", "bob", "dave"):
        assert (await _do(service, user, "/game rematch")).outcome in ("shown", "applied")
    state = await _state(service)
    assert state.gm == "dave"
    assert state.player("dave").name == "dave", state.player("dave")
    assert "gina" not in RULESET.prompt(state), RULESET.prompt(state)


async def test_a_refused_seat_change_does_not_tell_a_racer_when_the_gm_last_ruled_privately(store):
    """bob races and is a server admin. gina, the GM, has been silent in the channel for 80 h, then rules
    privately (/gm change). bob's /game seat give for the GM's seat is refused with 'gina is still playing
    (they last acted 1 min ago)': a racer learns that, and when, the GM made a private ruling (RULES.md:
    racers never learn it was made)."""
    from bot.table.service.entry import GameService

    now = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: now[0])
    await _gm_race(service)
    now[0] += 80 * 3600
    assert (await _do(service, "gina", "/gm change:2")).ephemeral
    now[0] += 60
    refused = await _do(service, "bob", "/game seat give player:gina to:dave", admin=True)
    assert "1 min ago" not in refused.text, refused.text
