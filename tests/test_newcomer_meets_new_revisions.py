"""A newcomer meets today's rules revisions (Speedway 6, Battlecars 6): what the bot tells them, what it asks
of them, and whom the game waits on, at the moments the new rules change."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.battlecars.actions import ChooseSection, Fire
from rules.battlecars.actions import Move as DriveOnePoint
from rules.battlecars.ai import autopilot_action, computer_action
from rules.battlecars.events import ArmourHit, GameDrawn, Rammed
from rules.battlecars.orders import ORDERS
from rules.battlecars.ruleset import RULESET as BATTLECARS
from rules.battlecars.state import Phase
from rules.battlecars.turns import acting_players
from rules.codec import encode_state
from rules.hexgrid import label, parse_label, step
from rules.speedway.actions import ChooseRam, Move
from rules.speedway.events import SkidPending
from rules.speedway.ruleset import legal_actions
from tests.battlecars_helpers import act as drive
from tests.battlecars_helpers import table as battlecars_table
from tests.test_speedway_combat import NW, SE, E, act, game, moving, put

SPEEDWAY_6 = {"revision": 6}


async def run(service, channel: str, user: str, line: str):
    return await service.execute(channel, Actor(user, user), parse(line))


# --- Speedway ----------------------------------------------------------------------------------------------

def test_a_skid_answered_in_advance_is_asked_again_after_ram_outcome_b():
    """A driver who typed `/move maneuver:tight-turn-left skid:accept` is asked the skid again after outcome B."""
    # The same position as test_speedway_seed_audit's tight_turn_pushed_through: a Tight Turn at speed 5 rams bob
    # and outcome B completes it, at its skid speed (revision 6 asks the skid then).
    state = game("brawler", "brawler", "brawler", options=SPEEDWAY_6)
    state = put(state, "alice", "M9", E, speed=5)
    state = put(state, "bob", label(step(parse_label("M8"), NW)), NW, speed=4)
    state = put(state, "carol", "D3", SE)
    state, _ = act(moving(state, 5, 1), "alice", Move("tight-turn-left", "accept"))   # the answer, in advance
    assert state.phase == "ram"
    state, events = act(state, "alice", ChooseRam("B"))
    assert any(isinstance(e, SkidPending) for e in events)   # the skid procedure came, as revision 6 says
    # "An answer given in advance applies when it fits": accept fits this skid, yet the game waits on alice again
    assert state.phase != "skid", \
        f"alice already answered skid:accept, yet is asked: {[a.command for a in legal_actions(state, 'alice')]}"


def test_a_skid_answered_in_advance_is_kept_out_of_a_revision_5_games_ram():
    """Revision 5 asks no skid after outcome B, so its pending ram keeps no answer: its snapshot is as stored."""
    state = game("brawler", "brawler", "brawler", options={"revision": 5})
    state = put(state, "alice", "M9", E, speed=5)
    state = put(state, "bob", label(step(parse_label("M8"), NW)), NW, speed=4)
    state = put(state, "carol", "D3", SE)
    state, _ = act(moving(state, 5, 1), "alice", Move("tight-turn-left", "accept"))
    assert state.phase == "ram" and state.pending_ram.skid == ""
    assert "skid" not in json.loads(encode_state(state))["state"]["pending_ram"]


async def test_the_rules_of_revision_6_read_without_stray_punctuation(service):
    """/rules shows Speedway's new revision as '(; each test cited below ...', '";; a computer' and 'hex's,; no:'."""
    assert (await run(service, "sw-rules", "ann", "/game new ruleset:speedway")).outcome == "applied"
    page = await run(service, "sw-rules", "ann", "/rules topic:rules-revisions page:2")
    sixth = page.text[page.text.index("**6**"):]
    orders = (await run(service, "sw-rules", "ann", "/rules topic:standing-orders-not-in-the-seed")).text
    # what is left where RULES.md's developer citations were cut out: an opening '(;', a doubled ';;', a ',;',
    # and a reference to tests the player is never shown
    stray = re.compile(r".{0,25}(?:\(\s*;|;\s*;|,\s*;|tests? cited below).{0,15}")
    assert [m.group(0) for m in stray.finditer(sixth + "\n" + orders)] == [], sixth


# --- Battlecars --------------------------------------------------------------------------------------------

async def test_a_refused_mid_move_fire_points_to_a_rules_topic_that_explains_it(service):
    """A /fire refused mid-move says 'See /rules topic:firing-and-damage', a topic silent on when to fire."""
    channel = "bc-why"
    for user, line in (("ann", "/game new ruleset:battlecars seed:3"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("ann", "/game start"),
                       ("ann", "/speed value:3"), ("ben", "/speed value:3"), ("ann", "/move turn:ahead")):
        assert (await run(service, channel, user, line)).outcome == "applied", line
    refused = await run(service, channel, "ann", "/fire weapon:A target:v2")
    assert refused.outcome == "refused" and "move has started" in refused.text
    topic = re.search(r"See /rules topic:([\w-]+)\.", refused.text).group(1)
    shown = await run(service, channel, "ann", f"/rules topic:{topic}")
    pages = [shown.text]
    for page in range(2, 10):
        more = await run(service, channel, "ann", f"/rules topic:{topic} page:{page}")
        if more.outcome == "refused":
            break
        pages.append(more.text)
    text = "\n".join(pages)
    # the rule it refused by: Turn Structure's "all movement must be completed once started" (revision 6)
    assert "once started" in text or "before the first point" in text, \
        f"the refusal points to topic {topic!r}, which does not say when a vehicle may fire"


def _frail(state, player: str):
    """A vehicle one internal hit from the end: no armour, one box of engine, fuel tank and driver left, and
    nothing else to hit."""
    vehicle = state.vehicle_of(player)
    spec = vehicle.spec
    return state.with_vehicle(replace(
        vehicle, armour=(0, 0, 0), driver_lost=spec.driver - 1, engine_lost=spec.engine - 1,
        fuel_lost=spec.fuel - 1, tyres_lost=spec.tyres, equipment_lost=spec.equipment,
        pods=tuple(replace(p, destroyed=True) for p in vehicle.pods)))


def test_a_side_ram_that_wrecks_the_rammer_ends_the_game_before_the_rammed_car_takes_its_share():
    """Alice side-rams bob and her share kills her: bob is declared the winner and his share of the ram never lands."""
    # Seed: "Ramming ... Both vehicles take full damage" (the side ram's damage is shared, RULES.md Rams). From
    # revision 6 the rammed driver picks the section, so the rammer's share lands first and the game's victory check
    # runs while bob's section question is still open: it ends the game and drops bob's damage.
    state = battlecars_table(("alice", "interceptor", "D5", "E", 1), ("bob", "interceptor", "E5", "N", 0), seed=2)
    state = _frail(_frail(replace(state, revision=6), "alice"), "bob")
    state, events = drive(state, "alice", DriveOnePoint("ahead"))
    assert [e.kind for e in events if isinstance(e, Rammed)] == ["side"]
    assert state.vehicle_of("alice").destroyed and "alice" not in BATTLECARS.still_in(state)
    hits_on_bob = [e for e in events if isinstance(e, ArmourHit) and e.vehicle == "bob"]
    assert hits_on_bob or state.phase != Phase.FINISHED, \
        f"the game ended ({state.winner} wins) with bob's share of the ram never landing: {events}"


def test_the_game_is_judged_once_the_rammed_driver_has_placed_their_share():
    """The ram that wrecked alice waits on bob's section (the computer, the deadline and a standing order answer
    it); his share then lands, and the game is judged on both: here it wrecks bob too, a draw."""
    state = battlecars_table(("alice", "interceptor", "D5", "E", 1), ("bob", "interceptor", "E5", "N", 0), seed=2)
    state = _frail(_frail(replace(state, revision=6), "alice"), "bob")
    state, _ = drive(state, "alice", DriveOnePoint("ahead"))
    assert state.phase == Phase.SECTION and acting_players(state) == ("bob",) and state.pending_hit.ram
    assert computer_action(state, "bob") == autopilot_action(state, "bob") == ChooseSection("front")
    order = next(q for q in ORDERS.questions if q.name == "hit_section")
    assert order.asked(state, "bob")
    state, events = drive(state, "bob", ChooseSection("front"))
    assert [e.vehicle for e in events if isinstance(e, ArmourHit)] == ["bob"]
    assert state.phase == Phase.FINISHED and state.winner is None and any(isinstance(e, GameDrawn) for e in events)


def _shot_at_carols_empty_car(revision: int):
    """Alice hits carol's empty car abeam (any section may take it); carol is out of the game."""
    state = battlecars_table(("alice", "interceptor", "C5", "E", 0), ("bob", "tank", "K12", "W", 0),
                             ("carol", "interceptor", "E5", "N", 0), seed=1)
    state = replace(state, revision=revision).with_vehicle(replace(state.vehicle_of("carol"), driver_out=True))
    return drive(state, "alice", Fire("A", "v3"))


def test_a_shot_at_an_eliminated_players_empty_car_lands_unasked_from_revision_6():
    """Revision 6: nobody defends the car, so the hit lands on the section facing the shot, as a ram's on it
    would; a revision 5 game asks carol where, as it always did."""
    state, events = _shot_at_carols_empty_car(6)
    assert [(e.vehicle, e.section) for e in events if isinstance(e, ArmourHit)] == [("carol", "middle")]
    assert state.phase == Phase.MOVE and acting_players(state) == ("alice",)
    old, _ = _shot_at_carols_empty_car(5)
    assert old.phase == Phase.SECTION and acting_players(old) == ("carol",)


def test_a_ram_on_an_eliminated_players_empty_car_waits_on_that_player():
    """Carol was killed on foot; alice rams carol's empty car and the game waits on carol to pick its section."""
    state = battlecars_table(("alice", "rammer", "C5", "E", 2), ("bob", "tank", "K12", "W", 0),
                             ("carol", "interceptor", "E5", "N", 0), seed=3)
    # carol's driver got out and was killed on foot: her car stands empty where it is, and she is out of the game
    state = replace(state, revision=6).with_vehicle(replace(state.vehicle_of("carol"), driver_out=True))
    assert BATTLECARS.still_in(state) == ("alice", "bob")
    state, _ = drive(state, "alice", DriveOnePoint("ahead"))
    state, events = drive(state, "alice", DriveOnePoint("ahead"))      # into carol's empty car, from its side
    assert [e.rammed for e in events if isinstance(e, Rammed)] == ["carol"]
    waiting = acting_players(state)
    assert set(waiting) <= set(BATTLECARS.still_in(state)), \
        f"the game waits on {waiting} ({BATTLECARS.prompt(state)}), out of the game since her driver died"
