"""A third game from outside the project (tests/toy, registered by PITBOSS_GAMES in conftest) plays
through the same service, command line and storage: its own /move, secret simultaneous declarations,
every waiting player served (buttons, pings, timers, computers, the deadline autopilot)."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import Command, lookup, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from images.registry import renderer
from rules.codec import decode_state
from rules.registry import get_ruleset, ruleset_ids
from tests.conftest import run_cli, run_pitboss
from tests.toy.rules import ToyState

BACKENDS = ("sqlite", "postgres")
HOUR = 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


async def run(service, user: str, line: str, channel: str = "chan-1"):
    return await service.execute(channel, Actor(user, user), parse(line))


async def toy_state(store, channel: str = "chan-1") -> ToyState:
    game = await store.active_game(channel) or await store.latest_game(channel)
    return decode_state(ToyState, game.state)


async def started(service, *seats: str) -> object:
    await run(service, "alice", "/game new ruleset:toy")
    for seat in seats:
        line = "/game add-ai" if seat == "computer" else "/game join"
        assert (await run(service, "alice" if seat == "computer" else seat, line)).outcome == "applied"
    return await run(service, "alice", "/game start")


def test_the_plug_in_is_registered_with_its_renderer_and_its_own_move():
    assert "toy" in ruleset_ids() and renderer("toy").render is not None
    move = {o.name: o for o in lookup("move").options}
    assert "direction" in move and "maneuver" in move  # one /move on Discord, both games' options
    assert not move["direction"].required and not move["maneuver"].choices or "hop" not in move["maneuver"].choices
    assert get_ruleset("toy").plans is None and get_ruleset("toy").undo_blocker is None


async def test_everyone_declares_secretly_then_all_moves_are_revealed(service, store):
    start = await started(service, "alice", "bob")
    assert start.waiting_on == ("alice", "bob") and start.mentions == ("bob",)  # the host pressed start
    assert [b.label for b in start.buttons] == ["Your move (private)"]
    timers = await store.timers((await store.active_game("chan-1")).id)
    assert sorted(t.player for t in timers) == ["alice", "bob"]

    menu = await service.press("chan-1", Actor("bob", "bob"), start.buttons[0].custom_id)
    assert menu.ephemeral and [b.label for b in menu.buttons] == ["North", "South", "East", "West"]
    first = await run(service, "alice", "/move direction:north")
    assert first.outcome == "applied" and "declared a move" in first.text
    for shown in (first.text, first.alt_text):
        assert "north" not in shown.lower()  # the choice stays secret until everyone has declared
    assert first.waiting_on == ("bob",) and not first.mentions
    assert [t.player for t in await store.timers((await store.active_game("chan-1")).id)] == ["bob"]
    again = await run(service, "alice", "/move direction:south")
    assert again.outcome == "refused" and "declared this round" in again.text

    played = await service.press("chan-1", Actor("bob", "bob"), menu.buttons[2].custom_id)  # East
    assert played.outcome == "applied" and "Revealed: alice north, bob east." in played.text
    state = await toy_state(store)
    assert [(p.x, p.y) for p in state.players] == [(0, 3), (2, 4)] and state.round == 1
    assert played.mentions == ("alice",)  # a new round waits on both again; bob just acted
    assert sorted(t.player for t in await store.timers((await store.active_game("chan-1")).id)) == ["alice", "bob"]


async def test_a_computer_among_simultaneous_players_declares_by_itself(service, store):
    await started(service, "alice", "computer")
    reply = await run(service, "alice", "/move direction:west")
    assert "Revealed: alice west, Bot2 north." in reply.text
    assert await service.replay_matches(await store.active_game("chan-1"))


async def test_a_deadline_plays_only_for_the_player_who_missed_it(db_path, store):
    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    await started(service, "alice", "bob")
    await run(service, "alice", "/game settings deadline_hours:2")
    await run(service, "alice", "/move direction:east")
    clock.now += 3 * HOUR
    notices = await service.run_due()
    assert len(notices) == 1 and "bob's deadline passed" in notices[0].reply.text
    assert "Revealed: alice east, bob north." in notices[0].reply.text
    assert (await toy_state(store)).round == 1


async def test_another_games_options_are_refused_at_each_table(service, store):
    await started(service, "alice", "bob")
    refused = await run(service, "alice", "/move maneuver:normal")
    assert refused.outcome == "refused" and "not an option of /move in Toy" in refused.text
    await run(service, "alice", "/game new ruleset:speedway", channel="chan-2")
    other = await run(service, "alice", "/move direction:north", channel="chan-2")
    assert other.outcome == "refused" and "not an option of /move in Speedway" in other.text
    missing = await service.execute("chan-1", Actor("alice", "alice"), Command("move", {}))
    assert missing.outcome == "refused" and "direction" in missing.text


@pytest.mark.slow
def test_the_toy_plays_from_the_command_line(tmp_path):
    """The plug-in named in $PITBOSS_GAMES is a game of a fresh process: its first and last commands are processes
    of their own, the steps between run through the same entry point here."""
    db = str(tmp_path / "toy.db")
    script = (("alice", "/game new ruleset:toy"), ("alice", "/game join"), ("bob", "/game join"),
              ("alice", "/game start"), ("alice", "/move direction:north"), ("bob", "/move direction:north"))
    for step, (user, line) in enumerate(script):
        runner = run_pitboss if step in (0, len(script) - 1) else run_cli
        result = runner("exec", "--db", db, "--channel", "c", "--user", user, "--out", str(tmp_path), line,
                        cwd=tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
    assert "Revealed: alice north, bob north." in result.stdout and "image:" in result.stdout


async def test_a_private_choice_goes_stale_once_its_players_turn_moved_on(service, store):
    start = await started(service, "alice", "bob")
    menu = await service.press("chan-1", Actor("alice", "alice"), start.buttons[0].custom_id)
    await run(service, "alice", "/move direction:north")
    await run(service, "bob", "/move direction:north")  # a new round: alice's old menu is not this one
    stale = await service.press("chan-1", Actor("alice", "alice"), menu.buttons[0].custom_id)
    assert stale.outcome == "refused" and "out of date" in stale.text
    assert (await toy_state(store)).declared == ()


async def test_an_export_of_a_running_game_withholds_undisclosed_declarations(service, store):
    import json

    await started(service, "alice", "bob")
    await run(service, "alice", "/move direction:west")
    exported = await run(service, "carol", "/game export")
    document = json.loads(exported.files[0].data)
    assert '"Withheld"' in exported.text
    assert document["actions"][-1] == {"seq": 4, "actor": "alice", "action": {
        "type": "Withheld", "stands_for": "a move, declared in secret"}}
    assert "west" not in exported.files[0].data.decode()
    own = json.loads((await run(service, "alice", "/game export")).files[0].data)
    assert own["actions"][-1]["action"] == {"type": "Declare", "direction": "west"}   # one's own choice
    await run(service, "bob", "/move direction:east")  # revealed: now the log may show both
    document = json.loads((await run(service, "carol", "/game export")).files[0].data)
    assert [a["action"]["direction"] for a in document["actions"] if a["action"]["type"] == "Declare"] == \
        ["west", "east"]


async def test_a_game_without_its_own_suggestions_offers_what_its_legal_actions_use(service, store):
    await started(service, "alice", "bob")
    toy = get_ruleset("toy")
    assert toy.suggest is None and toy.turn_summary is None
    offers = await service.suggest("chan-1", Actor("alice", "alice"), "move", "direction", "", {})
    assert offers == [("North", "north"), ("South", "south"), ("East", "east"), ("West", "west")]
    assert await service.suggest("chan-1", Actor("alice", "alice"), "move", "direction", "we", {}) == [("West", "west")]
    # someone the game does not wait on for a move is offered none of the declared directions: each would be refused
    assert await service.suggest("chan-1", Actor("carol", "carol"), "move", "direction", "", {}) == []
    assert toy.turn_in_words(()) == ""  # told event by event
    race = get_ruleset("race")  # no round cap at all
    assert race.round_cap is None and race.round_cap_of(race.setup({}, 1, "alice")) is None


async def test_a_game_whose_seats_keep_no_holder_refuses_seat_changes_and_shows_no_seats_line(service, store):
    """A game from outside the project may seat players its own way (the toy's Seat keeps an id and a name):
    /game seat … and /game resign are refused in words, and /game status has no "Seats:" line."""
    await started(service, "alice", "bob")
    for line in ("/game seat computer", "/game resign", "/game seat give to:carol"):
        refused = await run(service, "alice", line)
        assert refused.outcome == "refused" and refused.text.startswith("This game's seats do not change hands.")
    assert "Seats:" not in (await run(service, "carol", "/game status")).text


async def test_a_host_setting_deadlines_for_a_game_without_an_autopilot_is_told_they_only_remind(service, monkeypatch):
    monkeypatch.setattr(type(get_ruleset("toy")), "autopilot", None)
    await started(service, "bob")
    changed = await run(service, "alice", "/game settings deadline_hours:24")
    assert changed.outcome == "shown"
    assert "Toy has no autopilot: at a deadline the table reminds the player and plays for nobody." in changed.text
    monkeypatch.undo()
    told = await run(service, "alice", "/game settings deadline_hours:12")
    assert "no autopilot" not in told.text
