"""A plan's `fire:` (issue 13): the shot is taken at the first point of the path where it is legal,
the same in the plain plan, its preview and the preview's Confirm; a shot no point allows is refused
before the first Move, with the reason.

The Duel Pit, seed 2: alice's Torch at C6 facing E, bob's Brawler at M6 facing W. Torch's front
Flamethrower reaches 9 hexes and bob is 10 away, so it first bears after one Move east.
"""

from __future__ import annotations

import json

from bot.table.protocol.replies import Actor, parse_plan_id
from rules.speedway import plans
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.preview import TurnPreview


async def duel(table, alice_car: str = "torch", bob_car: str = "brawler"):
    for user, line in (("alice", "/game new ruleset:speedway seed:2 arena:duel"),
                       ("alice", f"/game join car:{alice_car}"), ("bob", f"/game join car:{bob_car}"),
                       ("alice", "/game start"), ("alice", "/speed value:3")):
        assert (await table(user, line)).outcome == "applied", line


async def logged(store) -> list[dict]:
    """alice's logged Moves and shots, as written in the log."""
    game = await store.active_game("chan-1")
    return [a for r in await store.actions(game.id) if r.actor == "alice"
            and (a := json.loads(r.action))["type"] in ("Move", "Fire")]


def kinds(actions: list[dict]) -> list[str]:
    return [a["maneuver"] if a["type"] == "Move" else a["type"].lower() for a in actions]


async def test_the_plain_plan_fires_at_the_first_point_of_the_path_that_allows_it(table, store):
    await duel(table)
    reply = await table("alice", "/move plan:normal,normal fire:front@bob")
    assert reply.outcome == "applied", reply.text
    assert kinds(await logged(store)) == ["normal", "fire", "normal"]        # after Move 1, not at the end
    lines = reply.text.splitlines()
    assert lines[0] == "alice: normal C6 -> D6, facing E."
    assert lines[1] == "alice fires Flamethrower (Front) at bob, range 9."


async def test_a_shot_legal_before_the_first_move_is_taken_there(table, store):
    await duel(table, alice_car="brawler", bob_car="torch")           # the Vulcan reaches bob at once
    reply = await table("alice", "/move plan:normal fire:front@c2")
    assert reply.outcome == "applied", reply.text
    assert kinds(await logged(store)) == ["fire", "normal"]
    assert reply.text.startswith("alice fires Vulcan Machine Gun (Front) at bob, range 10.")


async def test_the_preview_says_where_the_shot_is_taken_and_its_confirm_carries_it(table, store, service):
    await duel(table)
    version = (await store.active_game("chan-1")).version
    preview = await table("alice", "/move plan:normal,normal fire:front@bob preview:yes")
    assert preview.outcome == "shown" and preview.ephemeral
    assert "Fires Flamethrower (Front) at bob after Move #1: 91% to hit." in preview.text
    assert (await store.active_game("chan-1")).version == version        # a preview changes nothing
    confirm = preview.buttons[0].custom_id
    assert len(confirm) <= 100 and parse_plan_id(confirm)[2] == "-:n.n:front@c2"
    done = await service.confirm_plan("chan-1", Actor("alice", "alice"), confirm)
    assert done.outcome == "applied", done.text
    assert kinds(await logged(store)) == ["normal", "fire", "normal"]


async def test_a_shot_no_point_of_the_path_allows_is_refused_before_the_first_move(table, store):
    await duel(table)
    version = (await store.active_game("chan-1")).version
    for line, why in (
            ("/move plan:normal fire:right@bob",
             "10mm Chaingun (Right) cannot fire at bob anywhere on the plan's path (at its end: "
             "bob is not in alice's Right arc)."),
            ("/move plan:normal fire:back@bob", "Oil Slick is a defensive weapon"),
            ("/move plan:normal fire:front@zed", "No car"),
            ("/move plan:normal fire:wing@bob", "has no single weapon 'wing'"),
            ("/move plan:normal fire:front@bob preview:yes", None)):
        reply = await table("alice", line)
        if why is None:
            assert reply.outcome == "shown"
            continue
        assert reply.outcome == "refused" and why in reply.text, (line, reply.text)
        assert (await store.active_game("chan-1")).version == version, line


async def test_a_shot_the_plan_never_reached_says_why(table, store):
    await duel(table)
    reply = await table("alice", "/move plan:tight-turn-left,tight-turn-right,normal fire:front@bob")
    assert reply.outcome == "applied"
    assert "The plan paused before step 2: The game is in a skid" in reply.text
    assert "\n/fire was not played: the plan stopped first.\nNext: " in reply.text
    assert kinds(await logged(store)) == ["tight-turn-left"]


async def test_a_shot_alone_waits_for_nothing_and_is_refused_when_not_legal_now(table, store):
    await duel(table)
    alone = await table("alice", "/move fire:front@bob")
    assert alone.outcome == "refused"
    assert "Flamethrower (Front) cannot fire at bob anywhere on the plan's path" in alone.text
    await table("alice", "/move maneuver:normal")
    fired = await table("alice", "/move fire:front@bob")
    assert fired.outcome == "applied" and fired.text.startswith("alice fires Flamethrower (Front) at bob")


def test_the_shot_is_not_ready_once_the_cars_moves_are_over():
    from rules.speedway.ruleset import plan_fire_ready
    from tests.test_speedway_combat import E, W, game, moving, put

    state = moving(put(put(game("torch", "brawler"), "alice", "F9", E, speed=2), "bob", "K9", W), 2)
    ready = plan_fire_ready(state, "alice", ("front", "bob"))
    assert ready(state) is None
    assert ready(state.__class__(**{**state.__dict__, "phase": SpeedwayPhase.UPKEEP})) \
        == "the car's Moves were over first"
    assert plan_fire_ready(state, "bob", ("front", "alice"))(state) == "the car's Moves were over first"
    far = put(state, "bob", "V9", W)
    assert "hexes away" in ready(far)


def test_a_confirm_code_round_trips_with_and_without_a_shot():
    empty = TurnPreview("c1", (), None, ())
    shot = TurnPreview("c1", (), None, (), None, "front@c2")
    for options, preview in (({"plan": "normal,turn-left", "skid": "resist"}, empty),
                             ({"plan": "tight-turn-right", "fire": "front@c2"}, shot),
                             ({"fire": "back@c3"}, TurnPreview("c1", (), None, (), None, "back@c3"))):
        assert plans.decode(plans.encode(options, preview)) == options
