"""Battlecars at the table (issue 14): the secret speed counter never reaches anything public before the
reveal, a whole game played through `pitboss exec` one command at a time, and the other games
playing on beside it."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from rules.battlecars import data
from rules.battlecars.ruleset import RULESET
from rules.battlecars.state import BattlecarsState
from rules.codec import decode_state
from tests.conftest import exec_in, run_pitboss, stored_state


async def run(service, user: str, line: str, channel: str):
    return await service.execute(channel, Actor(user, user), parse(line))


async def two_drivers(service, channel: str, alice: str = "interceptor", bob: str = "tank"):
    for user, line in (("alice", "/game new ruleset:battlecars seed:11 board:town"),
                       ("alice", f"/game join vehicle:{alice}"), ("bob", f"/game join vehicle:{bob}"),
                       ("alice", "/game start")):
        reply = await run(service, user, line, channel)
        assert reply.outcome == "applied", (line, reply.text)
    return reply


async def public_after(service, channel: str, value: str) -> tuple:
    """Everything a watcher sees once alice has set `value`: her reply, the status, the log, an export."""
    await two_drivers(service, channel)
    mover = RULESET.load_state((await service._store.active_game(channel)).state).order[0]
    declared = await run(service, mover, f"/speed value:{value}", channel)
    assert declared.outcome == "applied" and not declared.ephemeral
    status = await run(service, "carol", "/game status", channel)
    log = await run(service, "carol", "/game log", channel)
    export = await run(service, "carol", "/game export", channel)
    document = json.loads(export.files[0].data)
    return (declared.text, declared.image, declared.alt_text, status.text, status.image, log.text,
            [a for a in document["actions"] if a["action"]["type"] == "SetSpeed"])


async def test_a_speed_counter_reaches_nothing_public_before_the_reveal(service):
    """Found: speed counters are placed secretly and revealed together. The public reply, the map, the
    status, the log and an export are the same whichever speed was set."""
    slow = await public_after(service, "chan-slow", "1")
    fast = await public_after(service, "chan-fast", "3")
    assert slow == fast
    assert slow[6] == []                                             # the export leaves the secret out
    assert "face down" in slow[0]


async def test_a_face_down_counter_stays_out_of_exports_after_a_takeover(service):
    """Issue 23, item 2: a takeover (accepted in any phase) after a declaration left the counter in every
    export, since the export dropped a count of actions from the log's tail. Withheld by what it is, the
    counter reaches no other driver's export, whoever took the table over; its driver still reads it."""
    for user, line in (("alice", "/game new ruleset:battlecars seed:5"), ("alice", "/game join vehicle:interceptor"),
                       ("bob", "/game join vehicle:rammer"), ("carol", "/game join vehicle:gunwagon"),
                       ("alice", "/game start"), ("alice", "/speed value:3PT")):
        assert (await run(service, user, line, "chan-t")).outcome == "applied", line
    taken = await service.execute("chan-t", Actor("bob", "bob", is_admin=True), parse("/game takeover"))
    assert taken.outcome == "applied", taken.text
    for viewer in ("bob", "carol", "dave"):
        document = json.loads((await run(service, viewer, "/game export", "chan-t")).files[0].data)
        assert not [a for a in document["actions"] if a["action"]["type"] == "SetSpeed"], viewer
        withheld = {"type": "Withheld", "stands_for": "a speed counter, face down"}
        assert {"seq": 5, "actor": "alice", "action": withheld} in document["actions"]
        assert document["actions"][-1]["action"]["type"] == "TakeOver"
    own = json.loads((await run(service, "alice", "/game export", "chan-t")).files[0].data)
    assert {"type": "SetSpeed", "speed": -2} in [a["action"] for a in own["actions"]]
    for user in ("bob", "carol"):   # revealed: now every export shows every counter
        assert (await run(service, user, "/speed value:1", "chan-t")).outcome == "applied"
    document = json.loads((await run(service, "dave", "/game export", "chan-t")).files[0].data)
    assert [a["actor"] for a in document["actions"] if a["action"]["type"] == "SetSpeed"] == ["alice", "bob", "carol"]


async def test_the_reveal_shows_every_counter_and_the_first_driver_moves(service, store):
    started = await two_drivers(service, "chan-1")
    assert started.buttons[0].label == "Your move (private)"          # speeds are chosen in private
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    await run(service, order[0], "/speed value:2", "chan-1")
    revealed = await run(service, order[1], "/speed value:1", "chan-1")
    assert "Speed counters revealed:" in revealed.text and revealed.outcome == "applied"
    state = RULESET.load_state((await store.active_game("chan-1")).state)
    assert state.phase == "move" and state.active == order[0]
    refused = await run(service, order[1], "/move turn:ahead", "chan-1")
    assert refused.outcome == "refused" and "move, not yours" in refused.text


async def test_speedway_plays_on_beside_a_battlecars_game(service):
    await two_drivers(service, "chan-bc")
    for user, line in (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start"), ("alice", "/speed value:3"),
                       ("alice", "/move maneuver:normal")):
        assert (await run(service, user, line, "chan-sw")).outcome == "applied", line
    other = await run(service, "alice", "/move turn:ahead", "chan-sw")
    assert other.outcome == "refused" and "not an option of /move in Speedway" in other.text
    malformed = await run(service, "alice", "/speed value:fast", "chan-sw")
    assert malformed.outcome == "refused" and malformed.malformed


async def _by_first_legal(service, channel: str, setup: tuple, actions: int) -> tuple[list[str], str]:
    """Set a game up, then play its first legal action `actions` times, yielding to the loop between;
    return every reply's words and the final snapshot."""
    from rules.registry import get_ruleset

    texts = []
    for user, line in setup:
        texts.append((await run(service, user, line, channel)).text)
    for _ in range(actions):
        await asyncio.sleep(0)
        game = await service._store.active_game(channel)
        if game is None:
            break
        ruleset = get_ruleset(game.ruleset)
        state = ruleset.load_state(game.state)
        player = ruleset.acting_players(state)[0]
        reply = await run(service, player, ruleset.legal_actions(state, player)[0].command, channel)
        assert reply.outcome == "applied", reply.text
        texts.append(reply.text)
    game = await service._store.active_game(channel) or (await service._store.all_games())[-1]
    return texts, game.state


SPEEDWAY = (("alice", "/game new ruleset:speedway seed:2"), ("alice", "/game join car:brawler"),
            ("bob", "/game join car:torch"), ("alice", "/game start"))
TRACK = (("carol", "/game new ruleset:track seed:5"), ("carol", "/game join"), ("dave", "/game join"),
         ("carol", "/game start"))
BATTLECARS = (("erin", "/game new ruleset:battlecars seed:7 board:town"), ("erin", "/game join vehicle:tank"),
              ("frank", "/game join vehicle:bike2"), ("erin", "/game start"))


@pytest.mark.parametrize(("alice", "bob"), [("bike1", "hauler"), ("rammer", "tank")])
def test_a_whole_game_through_exec_one_command_at_a_time(tmp_path, alice, bob):
    """Two humans, each command through `pitboss exec`'s entry point (a fresh service and store each
    time; tests/test_cli.py starts a process per command); each picks its first legal action (a
    speed, a step, a shot, a drop) as a player reading the choices would. The game ends (a win, or a
    draw at its 3-turn cap) and `pitboss verify` replays it exactly. Between them the two games seat
    every vehicle type: a bike and a truck, a car and a tank."""
    db = str(tmp_path / "bc.db")

    exec_ = exec_in(db, tmp_path)
    for user, line in (("alice", "/game new ruleset:battlecars rounds:3 board:open"),
                       ("alice", f"/game join vehicle:{alice}"), ("bob", f"/game join vehicle:{bob}"),
                       ("alice", "/game start")):
        exec_(user, line)
    for _ in range(120):
        state = stored_state(RULESET, db)
        if RULESET.is_finished(state):
            break
        player = RULESET.acting_players(state)[0]
        legal = RULESET.legal_actions(state, player)
        pick = next((a for a in legal if a.command.startswith("/fire")), None) or \
            next((a for a in legal if a.command.startswith("/speed")), None) or legal[0]
        exec_(player, pick.command)
    final = stored_state(RULESET, db)
    assert RULESET.is_finished(final)
    verified = run_pitboss("verify", "--db", db, cwd=tmp_path)
    assert verified.returncode == 0 and "0 mismatches" in verified.stdout
    designs = data.vehicles()
    assert {v.spec.type for v in final.vehicles} == {designs[alice].type, designs[bob].type}


def test_a_state_round_trips_through_the_snapshot_codec():
    from rules.battlecars.actions import AddComputer, Start
    from rules.codec import encode_state

    state = RULESET.setup({"board": "town"}, 3, "host")
    for mat in ("tank", "bike2", "war_rig", "firebrand"):
        state, _ = RULESET.apply(state, "host", AddComputer(mat))
    state, _ = RULESET.apply(state, "host", Start())
    for _ in range(60):
        if RULESET.is_finished(state):
            break
        player = RULESET.acting_players(state)[0]
        state, _ = RULESET.apply(state, player, RULESET.computer.choose(state, player))
        assert decode_state(BattlecarsState, encode_state(state)) == state


async def test_a_deadline_sets_a_speed_only_for_the_driver_who_missed_it(store):
    """The deadline's autopilot keeps the absent driver's speed (here 0) and the counters are revealed."""
    from bot.table.service.entry import GameService
    from tests.test_plugin_toy import HOUR, Clock

    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    await two_drivers(service, "chan-1")
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    assert "2 h" in (await run(service, "alice", "/game settings deadline_hours:2", "chan-1")).text
    await run(service, order[0], "/speed value:2", "chan-1")
    clock.now += 3 * HOUR
    notices = await service.run_due()
    assert len(notices) == 1 and "deadline passed" in notices[0].reply.text
    assert "Speed counters revealed:" in notices[0].reply.text
    state = RULESET.load_state((await store.active_game("chan-1")).state)
    assert (state.vehicle_of(order[0]).speed, state.vehicle_of(order[1]).speed) == (2, 0)


async def test_a_plan_drives_point_by_point_is_checked_first_and_may_be_previewed(service, store):
    from bot.table.protocol.replies import Actor as _Actor

    await two_drivers(service, "chan-1", alice="interceptor", bob="tank")
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    for player, value in zip(order, ("3", "1")):
        await run(service, player, f"/speed value:{value}", "chan-1")
    mover = order[0]
    version = (await store.active_game("chan-1")).version
    for plan, why in (("ahead,flying", "'flying' is not a turn"), ("ahead,ahead,ahead,ahead", "the plan has 4")):
        refused = await run(service, mover, f"/move plan:{plan}", "chan-1")
        assert refused.outcome == "refused" and why in refused.text, refused.text
    assert (await store.active_game("chan-1")).version == version            # nothing was driven
    preview = await run(service, mover, "/move plan:ahead,ahead preview:yes", "chan-1")
    assert preview.outcome == "shown" and preview.ephemeral and preview.image is not None
    assert [b.label for b in preview.buttons] == ["Confirm", "Cancel"] and "Ends at" in preview.text
    assert (await store.active_game("chan-1")).version == version
    done = await service.confirm_plan("chan-1", _Actor(mover, mover), preview.buttons[0].custom_id)
    assert done.outcome == "applied" and "Path: " in done.text and done.text.count(" drives ") == 2
    path = next(line for line in done.text.splitlines() if line.startswith("Path: "))
    assert path.count("→") == 2          # from where the vehicle stood, two points on (issue 25, item 16)
    moves = [json.loads(r.action) for r in await store.actions((await store.active_game("chan-1")).id)
             if json.loads(r.action)["type"] == "Move"]
    assert [m["turn"] for m in moves] == ["ahead", "ahead"]


async def test_every_illegal_input_is_refused_clearly_and_changes_nothing(service, store):
    """The issue: "a move through a building, a speed beyond the mat's limits, a weapon out of arc or
    already fired, a pedestrian leaving a truck ... are clear and change nothing"; a Track race goes on
    in another channel at the same time."""
    for user, line in (("alice", "/game new ruleset:track"), ("alice", "/game join"), ("bob", "/game join"),
                       ("alice", "/game start")):
        assert (await run(service, user, line, "chan-track")).outcome == "applied"
    for user, line in (("alice", "/game new ruleset:battlecars seed:11 board:town"),
                       ("alice", "/game join vehicle:hauler"), ("bob", "/game join vehicle:rammer"),
                       ("alice", "/game start")):
        assert (await run(service, user, line, "chan-1")).outcome == "applied"
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    first, second = order
    checks = [(first, "/speed value:9", "out of reach"), (first, "/speed value:fast", "R (reverse) or 3PT"),
              ("carol", "/speed value:1", "not playing"), (first, "/move turn:ahead", "to set a speed counter")]
    for user, line, why in checks:
        before = await store.active_game("chan-1")
        refused = await run(service, user, line, "chan-1")
        assert refused.outcome == "refused" and why in refused.text, (line, refused.text)
        assert await store.active_game("chan-1") == before, line
    await run(service, first, "/speed value:2", "chan-1")
    await run(service, second, "/speed value:0", "chan-1")
    assert first == "alice"                         # seed 11: alice's Hauler moves first
    more = [("alice", "/leave", "truck's driver cannot leave"),
            ("alice", "/fire weapon:Z target:v2", "no weapon 'Z'"),
            ("alice", "/fire weapon:A target:zed", "No single target 'zed'"),
            ("bob", "/move turn:ahead", "not yours"),
            ("alice", "/move turn:left-135", "cannot drive into the board's edge"),
            ("alice", "/drop weapon:A", "a missile: use /fire"),
            ("alice", "/walk direction:N", "in the vehicle"),
            ("alice", "/section choice:rear", "No hit waits")]
    for user, line, why in more:
        before = await store.active_game("chan-1")
        refused = await run(service, user, line, "chan-1")
        assert refused.outcome == "refused" and why in refused.text, (line, refused.text)
        assert await store.active_game("chan-1") == before, line
    assert (await run(service, "alice", "/hand", "chan-track")).outcome == "shown"


async def test_a_battlecars_game_replays_as_a_gif_and_verifies(service, store):
    await two_drivers(service, "chan-1")
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    await run(service, order[0], "/speed value:1", "chan-1")
    await run(service, order[1], "/speed value:1", "chan-1")
    await run(service, order[0], "/move turn:ahead", "chan-1")
    replay = await run(service, "carol", "/game replay", "chan-1")
    assert replay.outcome == "shown" and replay.files and replay.files[0].data[:6] in (b"GIF89a", b"GIF87a")
    verified = await run(service, "carol", "/game verify", "chan-1")
    assert verified.outcome == "shown" and "rebuilds the table exactly" in verified.text


async def test_a_plans_shot_is_taken_at_the_first_point_that_allows_it(service, store):
    """As in Speedway's plans: the shot waits for the first point of the path where it is legal, and a
    shot no point allows is refused before anything is driven."""
    from rules.battlecars import plans

    for user, line in (("alice", "/game new ruleset:battlecars seed:11 board:open"),
                       ("alice", "/game join vehicle:firebrand"), ("bob", "/game join vehicle:tank"),
                       ("alice", "/game start")):
        assert (await run(service, user, line, "chan-1")).outcome == "applied"
    order = RULESET.load_state((await store.active_game("chan-1")).state).order
    speeds = {"alice": "3", "bob": "0"}
    for player in order:
        await run(service, player, f"/speed value:{speeds[player]}", "chan-1")
    while RULESET.load_state((await store.active_game("chan-1")).state).active != "alice":
        mover = RULESET.load_state((await store.active_game("chan-1")).state).active
        await run(service, mover, "/end", "chan-1")
    version = (await store.active_game("chan-1")).version
    never = await run(service, "alice", "/move plan:ahead fire:C@v2", "chan-1")   # C drops oil behind
    assert never.outcome == "refused" and "drop it behind" in never.text
    assert (await store.active_game("chan-1")).version == version
    # The flamethrower reaches 3: from A5 the tank at M5 is 12 away, so nothing along 3 points allows it.
    far = await run(service, "alice", "/move plan:ahead,ahead,ahead fire:A@v2", "chan-1")
    assert far.outcome == "refused" and "nowhere on the plan's path" in far.text
    assert plans.decode(plans.encode({"plan": "ahead,left-45", "fire": "A@v2"},
                                     plans.PathPreview("v1", (), (), fire_option="A@v2"))) == {
        "plan": "ahead,left-45", "fire": "A@v2"}


async def test_joining_suggests_the_mats_as_you_type(service):
    """/game join vehicle: is shared with the Race (free text there), so Discord asks the channel's game."""
    assert (await run(service, "alice", "/game new ruleset:battlecars seed:11", "bc-join")).outcome == "applied"
    carol = Actor("carol", "carol")
    offers = await service.suggest("bc-join", carol, "game join", "vehicle", "", {})
    assert [value for _label, value in offers] == list(data.vehicles())[:25]
    typed = await service.suggest("bc-join", carol, "game join", "vehicle", "ram", {})
    assert [value for _label, value in typed] == ["rammer"]
    # a computer's vehicle for the host, who alone adds one (to carol, any would be refused)
    alice = Actor("alice", "alice")
    assert await service.suggest("bc-join", alice, "game add-ai", "vehicle", "gun", {}) == [("gunwagon", "gunwagon")]
    assert await service.suggest("bc-join", carol, "game add-ai", "vehicle", "gun", {}) == []


async def test_a_vehicle_fired_on_by_a_driver_on_foot_is_told_it_may_return_fire(service):
    """The prompt named a pedestrian attacker as a vehicle and failed (KeyError 'd1'), so the move that
    opened the return fire was refused with an apology. Seed 1032 of the bench's policy gets there (1004
    did until rules revision 5, 1003 until a driver on foot was no longer offered a shot at their own
    vehicle)."""
    from bot.cli.bench_games import PEOPLE, script

    ann, ben = PEOPLE[:2]
    opening = [(ann, "/game new ruleset:battlecars seed:1032"), (ann, "/game join"), (ben, "/game join"),
               (ann, "/game start")]
    for actor, line in opening:
        assert (await service.execute("bc-foot", actor, parse(line))).outcome == "applied"
    for actor, line in script(RULESET, 1032, 15, opening):
        reply = await service.execute("bc-foot", actor, parse(line))
        assert reply.outcome == "applied", (line, reply.text)
    assert "ann may return fire at ben's driver: /fire weapon:... target:d2, or /hold." in reply.text
    elsewhere = await service.execute("bc-foot", Actor("ann", "ann"), parse("/fire weapon:a target:v2"))
    assert elsewhere.outcome == "refused"
    assert elsewhere.text == "Return fire goes back at ben's driver only. See /rules topic:firing-and-damage."


async def test_refusals_name_what_the_table_takes_and_a_spectator_has_nothing_to_undo(service):
    """Issue 25, item 16: another game's option is refused naming this game's own options for the
    command; a spectator's /undo is told they have nothing to undo, not that someone acted since."""
    await two_drivers(service, "bc-words")
    moved = await run(service, "alice", "/move maneuver:normal", "bc-words")
    assert moved.outcome == "refused"
    assert moved.text == ("maneuver: is not an option of /move in Battlecars. "
                          "Its options there: turn:, facing:, plan:, fire:, preview:, view:.")
    undo = await run(service, "carol", "/undo", "bc-words")
    assert undo.outcome == "refused"
    assert undo.text == "You are not playing in this game: there is nothing of yours to undo."


async def test_pressing_a_speed_again_says_the_counter_is_down_and_what_the_table_waits_for(service):
    """Issue 25, item 16: alice sets her counter, then presses another speed on her private menu: the
    refusal says the table waits for bob to set his, not "It is bob's turn" (nobody has a turn while the
    counters go down). Typed, the rules' own words say her counter is already down."""
    await two_drivers(service, "chan-again")
    menu = await service.press("chan-again", Actor("alice", "alice"), (await run(
        service, "alice", "/game status", "chan-again")).buttons[0].custom_id)
    assert menu.ephemeral and len(menu.buttons) > 1
    assert (await service.press("chan-again", Actor("alice", "alice"), menu.buttons[0].custom_id)).outcome == "applied"
    again = await service.press("chan-again", Actor("alice", "alice"), menu.buttons[1].custom_id)
    assert again.outcome == "refused" and again.ephemeral
    assert again.text.startswith("The table waits for bob, not for you. Next: Turn 1: bob to set a speed counter")
    typed = await run(service, "alice", "/speed value:2", "chan-again")   # to her alone: which counter is down
    pressed = menu.buttons[0].label.removeprefix("Speed ")
    assert typed.ephemeral and typed.text == f"Your speed counter is down for this turn: {pressed}, face down until " \
                                             f"all are set."
