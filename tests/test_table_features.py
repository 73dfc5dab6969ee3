"""Table features around the rules: buttons, pings, undo, the dice commitment, log, export, /games."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.trust.commitment import commitment
from rules.codec import decode_state
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState
from tests.conftest import Table

BACKENDS = ("sqlite", "postgres")  # every test here runs on both (tests/conftest.py)


async def started(table, seed: int = 7) -> None:
    await table("alice", f"/game new ruleset:speedway seed:{seed}")
    await table("alice", "/game join car:brawler")
    await table("bob", "/game join car:torch")
    await table("alice", "/game start")


async def state_of(store, channel="chan-1") -> SpeedwayState:
    game = await store.active_game(channel) or await store.latest_game(channel)
    return decode_state(SpeedwayState, game.state)


def press(service, user: str, custom_id: str, channel: str = "chan-1"):
    return service.press(channel, Actor(user, user), custom_id)


async def test_buttons_name_game_version_and_action(table, store):
    await started(table)
    reply = await table("carol", "/game status")
    game = await store.active_game("chan-1")
    assert [b.custom_id for b in reply.buttons] == [f"pb:{game.id}:{game.version}:{i}" for i in range(4)]
    assert [b.label for b in reply.buttons] == ["Speed 0", "Speed 1", "Speed 2", "Speed 3"]
    assert all(len(b.custom_id) <= 100 and len(b.label) <= 80 for b in reply.buttons)


async def test_pressing_a_button_plays_its_action(table, store, service):
    await started(table)
    player = (await state_of(store)).active_player
    status = await table(player, "/game status")
    reply = await press(service, player, status.buttons[2].custom_id)  # Speed 2
    assert reply.outcome == "applied" and "set speed 0 -> 2" in reply.text
    assert (await state_of(store)).car((await state_of(store)).active_car).speed == 2


async def test_stale_foreign_and_out_of_turn_presses_are_refused_and_change_nothing(table, store, service):
    await started(table)
    player = (await state_of(store)).active_player
    other = "bob" if player == "alice" else "alice"
    old = (await table(player, "/game status")).buttons[1].custom_id
    await table(player, "/speed value:3")
    before = await store.active_game("chan-1")

    stale = await press(service, player, old)
    assert stale.outcome == "refused" and stale.ephemeral and "out of date" in stale.text
    fresh = (await table(player, "/game status")).buttons[0].custom_id
    out_of_turn = await press(service, other, fresh)
    assert out_of_turn.outcome == "refused"
    assert out_of_turn.text.startswith(f"The table waits for {player}, not for you.")
    bystander = await press(service, "carol", fresh)
    assert bystander.outcome == "refused" and "not playing" in bystander.text
    game_id = before.id
    foreign = await press(service, player, f"pb:{game_id + 99}:{before.version}:0")
    assert foreign.outcome == "refused" and "no longer running" in foreign.text
    forged = await press(service, player, "pb:1:2:three")
    assert forged.outcome == "refused"
    assert await store.active_game("chan-1") == before


async def test_exactly_one_ping_when_the_turn_passes(table, store):
    await table("alice", "/game new ruleset:speedway seed:7")
    await table("alice", "/game join")
    joined = await table("bob", "/game join")
    assert joined.mention is None  # nobody is waited on in the lobby
    start = await table("alice", "/game start")
    first = (await state_of(store)).active_player
    assert start.mention == (first if first != "alice" else None)
    speed = await table(first, "/speed value:0")  # speed 0: the car may still drop what it carries behind
    assert (await state_of(store)).active_player == first and speed.mention is None
    ended = await table(first, "/end")
    second = (await state_of(store)).active_player
    assert second != first and ended.mention == second
    again = await table(second, "/speed value:1")
    assert again.mention is None  # still the same player's turn: no ping


async def test_undo_takes_back_your_own_last_action_only(table, store):
    await table("alice", "/game new ruleset:speedway seed:7")
    await table("alice", "/game join")
    await table("bob", "/game join")
    refused = await table("alice", "/undo")
    assert refused.outcome == "refused" and "your own last action" in refused.text
    before = await store.active_game("chan-1")
    undone = await table("bob", "/undo")
    assert undone.outcome == "applied" and "Undone: bob joined" in undone.text
    after = await store.active_game("chan-1")
    assert after.version == before.version + 1  # versions only go forward: old buttons go stale
    assert [p.id for p in (await state_of(store)).players] == ["alice"]
    assert len(await store.actions(after.id)) == 1
    rejoin = await table("bob", "/game join")
    assert rejoin.outcome == "applied"


async def test_undo_refused_once_dice_were_rolled(table, store, service):
    await started(table)  # the start shuffled the seats with the dice
    reply = await table("alice", "/undo")
    assert reply.outcome == "refused" and "dice were rolled" in reply.text
    game = await store.active_game("chan-1")
    assert await service.replay_matches(game)


async def test_dice_commitment_published_then_revealed_and_verified(table, store):
    created = await table("alice", "/game new ruleset:speedway seed:424242")
    digest = hashlib.sha256(b"pitboss-dice-seed:424242").hexdigest()
    assert f"sha256 {digest[:16]}" in created.text and "424242" not in created.text
    await table("alice", "/game join")
    await table("bob", "/game join")
    hidden = await table("bob", "/game verify")
    assert "replaying all 2 actions" in hidden.text and "424242" not in hidden.text
    ended = await table("alice", "/game end")
    assert "Dice seed revealed: 424242" in ended.text
    shown = await table("bob", "/game verify")
    assert "rebuilds the table exactly" in shown.text and "Dice seed revealed: 424242" in shown.text


async def test_log_lists_recent_events_with_dice(table, store):
    await started(table)
    player = (await state_of(store)).active_player
    await table(player, "/speed value:3")
    log = await table("carol", "/game log count:2")
    assert log.outcome == "shown" and log.ephemeral
    lines = log.text.splitlines()
    assert lines[0].startswith("#3 The game started")
    assert "set speed 0 -> 3" in lines[1] and lines[-1] == "Earlier: /game log before:3"


async def test_export_hides_the_seed_until_the_game_ends(table, store):
    await started(table, seed=31337)
    running = await table("carol", "/game export")
    (attachment,) = running.files
    document = json.loads(attachment.data)
    assert document["format"] == "pitboss-game-log" and "seed" not in document
    assert [a["action"]["type"] for a in document["actions"]] == ["Join", "Join", "Start"]
    assert "31337" not in attachment.data.decode()
    await table("alice", "/game end")
    finished = json.loads((await table("carol", "/game export")).files[0].data)
    assert finished["seed"] == 31337 and finished["status"] == "finished"


async def test_games_lists_my_running_games_on_this_server(service, store):
    here = Table(service, "chan-1")
    there = Table(service, "chan-2")
    for table in (here, there):
        await service.execute(table.channel, Actor("alice", "alice"), parse(
            "/game new ruleset:speedway seed:2"), guild="g1")
        await table("alice", "/game join")
    await service.execute("chan-3", Actor("bob", "bob"), parse(
        "/game new ruleset:speedway"), guild="g2")
    mine = await service.execute("chan-9", Actor("alice", "alice"), parse(
        "/games"), guild="g1")
    assert mine.ephemeral and mine.text.count("<#chan-") == 2
    assert "<#chan-1>" in mine.text and "<#chan-2>" in mine.text and "chan-3" not in mine.text
    nobody = await service.execute("chan-9", Actor("carol", "carol"), parse(
        "/games"), guild="g1")
    assert "not playing in any running game" in nobody.text


async def test_replay_posts_an_animated_gif_of_the_game(table, store):
    import io

    from PIL import Image

    await started(table)
    player = (await state_of(store)).active_player
    await table(player, "/speed value:2")
    reply = await table("carol", "/game replay")
    assert reply.outcome == "shown" and not reply.ephemeral
    (gif,) = reply.files
    assert gif.filename.endswith(".gif") and len(gif.data) < 8_000_000
    with Image.open(io.BytesIO(gif.data)) as image:
        assert image.format == "GIF" and 2 <= image.n_frames <= 6  # up to the setup and five actions


async def movement_phase(table, store, speed: int):
    await started(table, seed=7)
    player = (await state_of(store)).active_player
    await table(player, f"/speed value:{speed}")
    return player


async def test_a_plan_drives_a_whole_turn_one_logged_move_at_a_time(table, store):
    player = await movement_phase(table, store, 3)
    game = await store.active_game("chan-1")
    reply = await table(player, "/move plan:normal,normal,sideslip-left")
    assert reply.outcome == "applied"
    assert reply.text.count(f"{player}: normal") == 2 and f"{player}: sideslip-left" in reply.text
    assert "Path: " in reply.text and reply.text.count("→") == 3   # from where the car stood (issue 25, item 16)
    after = await store.active_game("chan-1")
    assert after.version == game.version + 3
    assert [json.loads(r.action)["maneuver"] for r in (await store.actions(after.id))[-3:]] == [
        "normal", "normal", "sideslip-left"]


async def test_a_plan_stops_where_the_game_needs_a_decision(table, store):
    player = await movement_phase(table, store, 3)
    # Tight turns skid at speed 3: the plan pauses at the first one to ask accept or resist.
    reply = await table(player, "/move plan:tight-turn-left,normal,normal")
    assert "The plan paused before step 2" in reply.text and "/skid choice" in reply.text
    state = await state_of(store)
    assert state.phase == "skid" and state.moves_left == 2


async def test_a_bad_first_step_refuses_the_plan_and_changes_nothing(table, store):
    player = await movement_phase(table, store, 2)
    before = await store.active_game("chan-1")
    reply = await table(player, "/move plan:fly,normal")
    assert reply.outcome == "refused" and "'fly' is not a maneuver. Choose one of: normal" in reply.text
    assert await store.active_game("chan-1") == before
    empty = await table(player, "/move skid:resist")
    assert empty.outcome == "refused" and "plan" in empty.text


async def test_preview_then_confirm_or_a_stale_confirm(table, store, service):
    player = await movement_phase(table, store, 2)
    before = await store.active_game("chan-1")
    preview = await table(player, "/move plan:normal,turn-left preview:yes")
    assert preview.outcome == "shown" and preview.ephemeral
    assert [b.label for b in preview.buttons] == ["Confirm", "Cancel"]
    after = await store.active_game("chan-1")   # a preview changes nothing of the game; the table keeps the plan
    assert replace(after, settings=before.settings) == before   # for the deadline (issue 38 finding 12)
    confirm = preview.buttons[0].custom_id
    assert len(confirm) <= 100
    stale_copy = confirm
    done = await service.confirm_plan("chan-1", Actor(player, player), confirm)
    assert done.outcome == "applied" and f"{player}: turn-left" in done.text
    again = await service.confirm_plan("chan-1", Actor(player, player), stale_copy)
    assert again.outcome == "refused" and "moved on" in again.text


async def test_autocomplete_offers_only_legal_choices_with_odds(table, store, service):
    player = await movement_phase(table, store, 3)
    actor = Actor(player, player)
    offers = await service.suggest("chan-1", actor, "move", "maneuver", "", {})
    labels = {value: label for label, value in offers}
    assert set(labels) == {"normal", "sideslip-left", "sideslip-right", "turn-left", "turn-right",
                           "tight-turn-left", "tight-turn-right"}
    assert labels["normal"] == "normal" and labels["turn-left"] == "turn-left"  # turns skid from speed 5
    assert "skid: resist" in labels["tight-turn-left"] and "%" in labels["tight-turn-left"]
    typed = await service.suggest("chan-1", actor, "move", "maneuver", "tight", {})
    assert [v for _l, v in typed] == ["tight-turn-left", "tight-turn-right"]
    other = "bob" if player == "alice" else "alice"
    assert await service.suggest("chan-1", Actor(other, other), "move", "maneuver", "", {}) == []


async def test_a_server_admin_can_take_over_a_game_players_cannot(table, store):
    await table("alice", "/game new ruleset:speedway seed:7")
    await table("alice", "/game join")
    await table("bob", "/game join")
    refused = await table("bob", "/game takeover")
    assert refused.outcome == "refused" and "Manage Server" in refused.text
    took = await table("mod", "/game takeover", admin=True)
    assert took.outcome == "applied" and "took over as host" in took.text
    assert (await table("alice", "/game start")).outcome == "refused"  # alice is no longer the host
    assert (await table("mod", "/game start", admin=True)).outcome == "applied"


async def export_of(table) -> bytes:
    return (await table("carol", "/game export")).files[0].data


async def test_a_finished_game_is_re_played_from_its_export_elsewhere(table, store, service):
    await started(table, seed=99)
    player = (await state_of(store)).active_player
    await table(player, "/speed value:2")
    await table("alice", "/game end")
    data = await export_of(table)
    elsewhere = Table(service, "chan-2")
    reply = await service.execute("chan-2", Actor("dave", "dave"), Command("game import", {"file": data}))
    assert reply.outcome == "applied" and "re-played here" in reply.text
    copy = await store.latest_game("chan-2")
    original = await store.latest_game("chan-1")
    assert copy.status == "finished" and copy.state == original.state
    assert await service.replay_matches(copy)
    assert (await elsewhere("dave", "/game status")).text == (await table("dave", "/game status")).text


async def test_a_running_game_moves_and_never_forks(table, store, service):
    await started(table, seed=5)
    data = await export_of(table)
    refused = await service.execute("chan-2", Actor("bob", "bob"), Command("game import", {"file": data}))
    assert refused.outcome == "refused" and "host" in refused.text
    moved = await service.execute("chan-2", Actor("alice", "alice"), Command("game import", {"file": data}))
    assert moved.outcome == "applied" and "moved here" in moved.text
    assert await store.active_game("chan-1") is None  # the old channel stops: no fork
    player = (await state_of(store, "chan-2")).active_player
    assert (await Table(service, "chan-2")(player, "/speed value:1")).outcome == "applied"
    again = await service.execute("chan-3", Actor("alice", "alice"), Command("game import", {"file": data}))
    assert again.outcome == "refused"  # the source is no longer running: it cannot move twice


async def test_hostile_imports_are_refused_and_write_nothing(table, store, service):
    await started(table, seed=5)
    await table("alice", "/game end")
    good = {**json.loads(await export_of(table)), "game_id": 987_654}  # as if from another bot: re-played
    cases = {
        b"not json at all": "not a readable JSON",
        json.dumps({"format": "something-else"}).encode(): "not a Pitboss game log",
        json.dumps({**good, "seed": good["seed"] + 1}).encode(): "does not match its commitment",
        json.dumps({**good, "actions": [{"actor": "x", "action": {"type": "Explode"}}]}).encode(): "damaged",
        json.dumps({**good, "actions": good["actions"][:2] + [{"actor": "mallory", "action": {"type": "Start"}}]}
                   ).encode(): "does not replay",
        b"{" + b" " * 8_100_000 + b"}": "too big",
        # A seed too big for the database, with a matching commitment (anyone can compute one).
        json.dumps({**good, "seed": 2**64, "seed_commitment": commitment(2**64)}).encode(): "not a valid seed",
        json.dumps({**good, "seed": -1, "seed_commitment": commitment(-1)}).encode(): "not a valid seed",
    }
    for data, reason in cases.items():
        reply = await service.execute("chan-7", Actor("eve", "eve"), Command("game import", {"file": data}))
        assert reply.outcome == "refused" and reason in reply.text, (reason, reply.text)
    assert await store.latest_game("chan-7") is None


async def test_autocomplete_for_a_drop_offers_only_what_may_be_dropped(table, store, service):
    """/drop shares its weapon option with Battlecars: Speedway offers its droppable mounts, never a gun's."""
    player = await movement_phase(table, store, 3)
    actor = Actor(player, player)
    state = await state_of(store)
    droppable = {a.command.split(":")[-1] for a in SPEEDWAY.legal_actions(state, player)
                 if a.command.startswith("/drop")}
    offers = await service.suggest("chan-1", actor, "drop", "weapon", "", {})
    assert droppable and {value for _label, value in offers} == droppable
    assert all(label.startswith("Drop ") for label, _value in offers)
    assert "front" not in {value for _label, value in offers}
    assert await service.suggest("chan-1", actor, "fire", "weapon", "", {}) == []  # nobody in any arc yet


async def test_a_speed_that_is_no_choice_is_set_by_the_table(table, store):
    """Issue 25, item 5: a car with no engine left, standing still, can only choose speed 0: the table sets
    it and says so, and the game waits on that player for what is a choice (a ruling: a choice of one is
    no choice)."""
    from dataclasses import replace

    from rules.codec import encode_state

    await started(table, seed=7)
    state = await state_of(store)
    mover = state.active_player
    other = next(p.id for p in state.players if p.id != mover)
    car = next(c for c in state.cars if c.owner == other)
    dead = replace(car, speed=0, systems=replace(car.systems, engine=replace(car.systems.engine,
                                                                          crossed=len(car.systems.engine.boxes))))
    state = replace(state, cars=tuple(dead if c.id == car.id else c for c in state.cars))
    assert SPEEDWAY.forced_action(state, other) is None                  # not in its upkeep yet
    game = await store.active_game("chan-1")
    await store.driver.execute("UPDATE games SET state = ? WHERE id = ?", (encode_state(state), game.id))
    await table(mover, "/speed value:0")
    sped = await table(mover, "/end")               # at 0 the mover had only its drop to make
    assert sped.outcome == "applied", sped.text
    assert f"{other} had no choice: {other} keeps speed 0." in sped.text, sped.text
    after = await state_of(store)                   # standing still, it may drop what it carries, or /end
    assert after.phase == "movement" and after.active_player == other and sped.waiting_on == (other,)
    log = [r.actor for r in await store.actions(game.id)]
    assert other in log[-2:]                                         # logged as the player's own action
