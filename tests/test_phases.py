"""Phases as data: each game's phase table admits exactly its actions before a handler runs, and
stored phases stay the plain strings they always were."""

from __future__ import annotations

import copy
import dataclasses
import re
import shutil
import sqlite3
from enum import StrEnum
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.codec import CodecError, decode_state, encode_state, from_plain, to_plain
from rules.errors import BadOption, GameOver, NotSeated, NotYourTurn, WrongPhase
from rules.phases import GAME_OVER, PhaseTable, check_phase
from rules.referee import TABLE_ACTIONS
from rules.registry import get_ruleset, ruleset_ids
from rules.speedway import ruleset as speedway
from rules.speedway.actions import ACTIONS as SPEEDWAY_ACTIONS
from rules.speedway.actions import ChooseRam, EndGame, Join, Move, SetSpeed, Start
from rules.speedway.phases import PHASES as SPEEDWAY_PHASES
from rules.speedway.phases import SpeedwayPhase
from rules.speedway.state import SpeedwayState
from rules.table import OUTSIDE_PHASES
from rules.track import ruleset as track
from rules.track.actions import ACTIONS as TRACK_ACTIONS
from rules.track.actions import Discard, PlayCard
from rules.track.phases import PHASES as TRACK_PHASES
from rules.track.phases import TrackPhase
from rules.track.state import TrackState

try:
    from speedway_fixtures import driving, lobby, upkeep
    from test_speedway_collisions import ram
    from test_track_rules import started as track_started
except ImportError:  # tests/ imported as a package
    from tests.speedway_fixtures import driving, lobby, upkeep
    from tests.test_speedway_collisions import ram
    from tests.test_track_rules import started as track_started

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLACEHOLDERS = {"str": "x", "int": 1, "bool": False}  # by annotation (the action modules defer them)


def sample(cls: type):
    """An instance of an action type with a placeholder in every required field."""
    required = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    return cls(**{f.name: PLACEHOLDERS[f.type] for f in required})


# --- a state in every phase, and who the game waits on there -----------------------------------------

def _speedway_states() -> dict[SpeedwayPhase, SpeedwayState]:
    skid, _ = speedway.apply(driving("M9", 0, speed=5), "alice", Move("turn-left"))
    rammed, _ = speedway.apply(ram(1), "alice", Move("normal"))
    over, _ = speedway.apply(driving(), "alice", EndGame())
    return {SpeedwayPhase.LOBBY: lobby(), SpeedwayPhase.UPKEEP: upkeep(), SpeedwayPhase.MOVEMENT: driving(),
            SpeedwayPhase.SKID: skid, SpeedwayPhase.RAM: rammed, SpeedwayPhase.FINISHED: over}


def _track_states() -> dict[TrackPhase, TrackState]:
    seated = track.setup({}, 5, "alice")
    for name in ("alice", "bob"):
        seated, _ = track.apply(seated, name, track.Join(name))
    playing = track_started()
    over, _ = track.apply(playing, "alice", EndGame())
    return {TrackPhase.LOBBY: seated, TrackPhase.PLAY: playing, TrackPhase.FINISHED: over}


GAMES = {
    "speedway": (speedway, SPEEDWAY_PHASES, SPEEDWAY_ACTIONS, _speedway_states),
    "track": (track, TRACK_PHASES, TRACK_ACTIONS, _track_states),
}


def waited_on(state) -> str:
    """The player the game waits on, or the host when it waits on nobody (lobby, finished)."""
    return getattr(state, "deciding_player", state.active_player) or state.host


def pairs(game: str, allowed: bool):
    module, table, actions, states = GAMES[game]
    return [(game, phase, cls) for phase in table.phases for cls in actions.classes()
            if (cls in table.allowed(phase)) == allowed and cls not in OUTSIDE_PHASES]   # test_seats, test_rollback


REFUSED = pairs("speedway", False) + pairs("track", False)
ALLOWED = pairs("speedway", True) + pairs("track", True)
_STATES = {}


def state_in(game: str, phase: StrEnum):
    if game not in _STATES:
        _STATES[game] = GAMES[game][3]()
    state = _STATES[game][phase]
    assert state.phase == phase and type(state.phase) is type(phase)
    return state


def _ids(value):
    return value.__name__ if isinstance(value, type) else str(value)


# --- the tables -------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_the_table_covers_every_phase_and_every_action(game):
    module, table, actions, _ = GAMES[game]
    assert set(table.allows) == set(table.phases)
    # the seats' actions and the rollback are the referee's own, in every phase of a running game
    # (tests/test_seats.py, tests/test_rollback.py)
    assert table.action_types == set(actions.classes()) - set(OUTSIDE_PHASES) == \
        set(module.RULESET.handlers) | set(TABLE_ACTIONS)
    assert table.turn_actions <= table.action_types
    for phase in table.phases:
        assert phase in table.over or table.expects[phase]


@pytest.mark.parametrize("game, phase, cls", REFUSED, ids=_ids)
def test_an_action_the_phase_does_not_allow_is_refused_and_changes_nothing(game, phase, cls):
    module, table, _, _ = GAMES[game]
    state = state_in(game, phase)
    before = copy.deepcopy(state)
    error = GameOver if phase in table.over else WrongPhase
    with pytest.raises(error) as refused:
        module.apply(state, waited_on(state), sample(cls))
    assert refused.value.message == table.refusal(phase, cls)
    assert state == before


@pytest.mark.parametrize("game, phase, cls", [a for a in ALLOWED if a[2] not in TABLE_ACTIONS], ids=_ids)
def test_an_action_the_phase_allows_reaches_its_handler(game, phase, cls, monkeypatch):
    module, _, _, _ = GAMES[game]
    state = state_in(game, phase)
    calls = []
    monkeypatch.setitem(module.RULESET.handlers, cls,
                        lambda s, actor, action: (calls.append((actor, action)) or (s, ())))
    action = sample(cls)
    module.apply(state, waited_on(state), action)
    assert calls == [(waited_on(state), action)]


@pytest.mark.parametrize("game, phase, cls", [a for a in ALLOWED if a[2] in TABLE_ACTIONS], ids=_ids)
def test_ending_and_taking_over_are_the_referees_in_every_phase_before_the_end(game, phase, cls):
    module, table, _, _ = GAMES[game]
    state = state_in(game, phase)
    host = state.host
    if cls is EndGame:
        ended, events = module.apply(state, host, EndGame())
        assert ended.phase in table.over and ended.ended_by and [type(e).__name__ for e in events][-1:] in \
            (["GameEnded"], ["GameWon"], ["GameDrawn"])
    else:
        taken, events = module.apply(state, "admin-9", cls(by_admin=True))
        assert taken.host == "admin-9" and type(events[0]).__name__ == "HostChanged"


def test_refusal_messages_say_what_the_phase_expects():
    states = _speedway_states()
    refused = {
        (SpeedwayPhase.LOBBY, SetSpeed): "The game has not started yet; the host uses /game start.",
        (SpeedwayPhase.UPKEEP, Move): "The game is in upkeep: set your speed with /speed.",
        (SpeedwayPhase.MOVEMENT, Join): "The game has already started; seats are closed.",
        (SpeedwayPhase.MOVEMENT, Start): "The game has already started.",
        (SpeedwayPhase.UPKEEP, ChooseRam): "There is no ramming outcome to choose.",
        (SpeedwayPhase.LOBBY, ChooseRam): "There is no ramming outcome to choose.",
        (SpeedwayPhase.FINISHED, EndGame): GAME_OVER,
    }
    for (phase, cls), message in refused.items():
        with pytest.raises((WrongPhase, GameOver), match=re.escape(message)):
            speedway.apply(states[phase], waited_on(states[phase]), sample(cls))
    with pytest.raises(WrongPhase, match="not started yet"):
        track.apply(_track_states()[TrackPhase.LOBBY], "alice", PlayCard("7H"))


def test_a_turn_action_out_of_phase_tells_anyone_else_it_is_not_their_turn():
    # Only the player the game waits on hears what the phase expects, as before phases were data.
    state = upkeep()
    with pytest.raises(NotYourTurn):
        speedway.apply(state, "bob", Move("normal"))
    with pytest.raises(NotSeated):
        speedway.apply(state, "zed", Move("normal"))
    with pytest.raises(NotSeated):
        speedway.apply(lobby(), "zed", SetSpeed(1))
    with pytest.raises(WrongPhase):  # Join is no turn action: seats are closed for everyone
        speedway.apply(state, "zed", Join("zed"))
    with pytest.raises(NotSeated):
        track.apply(_track_states()[TrackPhase.LOBBY], "zed", Discard("7H"))


def test_an_unknown_action_is_a_bad_option_and_game_over_comes_first():
    @dataclasses.dataclass(frozen=True)
    class Dance:
        pass

    with pytest.raises(BadOption):
        speedway.apply(upkeep(), "alice", Dance())
    with pytest.raises(GameOver):
        speedway.apply(_speedway_states()[SpeedwayPhase.FINISHED], "alice", Dance())


def test_a_table_missing_a_phase_is_refused_when_built():
    with pytest.raises(ValueError, match="finished"):
        PhaseTable(TrackPhase, {TrackPhase.LOBBY: (), TrackPhase.PLAY: ()},
                   {TrackPhase.LOBBY: "wait", TrackPhase.PLAY: "play"})


def test_check_phase_reads_a_phase_set_as_a_plain_string():
    state = dataclasses.replace(upkeep(), phase="movement")
    check_phase(SPEEDWAY_PHASES, state, "alice", Move("normal"))
    with pytest.raises(WrongPhase):
        check_phase(SPEEDWAY_PHASES, state, "alice", SetSpeed(1))


# --- the codec ---------------------------------------------------------------------------------------

@given(st.sampled_from(list(SpeedwayPhase) + list(TrackPhase)))
def test_a_phase_encodes_as_its_plain_string_and_decodes_to_the_member(phase):
    plain = to_plain(phase)
    assert plain == phase.value and type(plain) is str
    back = from_plain(type(phase), plain)
    assert back is phase


def test_a_snapshot_with_a_plain_string_phase_decodes_to_the_enum_and_encodes_the_same():
    state = driving()
    old = dataclasses.replace(state, phase="movement")  # as every release before phases were enums
    text = encode_state(old)
    assert '"phase":"movement"' in text and encode_state(state) == text
    decoded = decode_state(SpeedwayState, text)
    assert decoded.phase is SpeedwayPhase.MOVEMENT and decoded == state
    assert encode_state(decoded) == text


def test_an_unknown_phase_does_not_decode():
    text = encode_state(dataclasses.replace(upkeep(), phase="intermission"))
    with pytest.raises(CodecError, match="intermission"):
        decode_state(SpeedwayState, text)


@pytest.mark.parametrize("fixture", ["release8.db", "release9.db", "release11.db", "release12.db"])
def test_games_stored_by_earlier_releases_decode_to_phase_enums_byte_for_byte(fixture, tmp_path):
    for name in (fixture, fixture + "-wal", fixture + "-shm"):  # copied: opening a WAL file writes to it
        if (FIXTURES / name).exists():
            shutil.copyfile(FIXTURES / name, tmp_path / name)
    with sqlite3.connect(tmp_path / fixture) as db:
        rows = db.execute("SELECT ruleset, state FROM games").fetchall()
    types = {"speedway": (SpeedwayState, SpeedwayPhase), "track": (TrackState, TrackPhase)}
    assert rows
    for ruleset, text in rows:
        state_type, phase_type = types[ruleset]
        state = get_ruleset(ruleset).load_state(text)
        assert type(state) is state_type and type(state.phase) is phase_type
        # Byte for byte as the snapshot is written today (schema 2 dropped the last action's words).
        assert encode_state(state) == get_ruleset(ruleset).normalised_snapshot(text)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_registered_games_phase_table_covers_exactly_its_actions(ruleset_id):
    """The referee is the only way a game applies an action: every action type the game can decode is
    allowed by some phase and has a handler (or is the table's, or a seat's, which the referee takes in any
    phase of a running game), and no other."""
    ruleset = get_ruleset(ruleset_id)
    table = ruleset.phases
    assert table.action_types == set(ruleset.actions.classes()) - set(OUTSIDE_PHASES)
    assert set(ruleset.handlers) | set(TABLE_ACTIONS) == table.action_types
    assert set(table.allows) == set(table.phases) and table.over


def test_a_game_cannot_be_registered_without_its_referee():

    toy = get_ruleset("toy")
    with pytest.raises(TypeError, match="Referee"):
        class OwnReferee(type(toy)):
            def apply(self, state, actor, action):
                return state, ()


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_games_state_keeps_the_table_contract_and_the_shared_phases(ruleset_id):
    """The table reads players, host, phase, round, winner, ended_by and player() of every game's state;
    lobby and finished are the table's phases in every game (rules.table)."""
    from rules.table import TablePhase, TableState

    ruleset = get_ruleset(ruleset_id)
    state = ruleset.setup({"revision": ruleset.revision} if ruleset.revision > 1 else {}, 1, "host")
    assert isinstance(state, TableState) and state.phase == TablePhase.LOBBY
    assert TablePhase.FINISHED in ruleset.phases.over
    ended, _ = ruleset.apply(state, "host", EndGame())
    assert ended.phase == TablePhase.FINISHED and ruleset.is_finished(ended) and isinstance(ended, TableState)


async def test_a_game_without_a_round_cap_refuses_rounds_and_one_with_a_cap_keeps_it(service):
    """The Race ends at its last lap: `rounds:` is not one of its options (it was silently ignored)."""
    from bot.table.protocol.commands import parse
    from bot.table.protocol.replies import Actor

    refused = await service.execute("chan-r", Actor("a", "a"), parse("/game new ruleset:race rounds:5"))
    assert refused.outcome == "refused" and "rounds: is not an option of /game new in Race" in refused.text
    assert await service._store.latest_game("chan-r") is None
    for game_id in ("speedway", "battlecars", "track"):
        made = await service.execute(f"chan-{game_id}", Actor("a", "a"), parse(f"/game new ruleset:{game_id} rounds:5"))
        assert made.outcome == "applied", made.text
        ruleset = get_ruleset(game_id)
        assert ruleset.round_cap(ruleset.load_state((await service._store.latest_game(f"chan-{game_id}")).state)) == 5
    assert get_ruleset("race").round_cap is None
