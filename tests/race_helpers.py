"""Races for the SW5e race rules tests: a grid seated and started through the rules, then racers placed
by hand (speed, altitude, hull, place), the phase and section set, and the dice stream restarted from
a fixed seed so every face a test reads is the one the rules rolled."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rules.dice import DiceState, roll_faces
from rules.race import ai, data
from rules.race.actions import AddComputer, Join, Start
from rules.race.events import Damaged, DiceRolled
from rules.race.ruleset import RULESET
from rules.race.state import TOGETHER, Phase, Racer, RaceState

GM = "gm"   # the seated game master's (and host's) player id, when a race has one
apply = RULESET.apply


@dataclass(frozen=True)
class Seat:
    """A racer to place: its player, where it stands, its stat block and vehicle, other Racer fields."""

    player: str
    speed: int = 300
    altitude: int = 1
    pilot: str | data.RacerSpec = "rookie"
    vehicle: str = "racing_swoop"
    marks: dict = field(default_factory=dict)   # hp, out, out_order, bonus, reacted, ...


def seat(player: str, speed: int = 300, altitude: int = 1, pilot: str | data.RacerSpec = "rookie",
         vehicle: str = "racing_swoop", **marks) -> Seat:
    return Seat(player, speed, altitude, pilot, vehicle, marks)


def _seat(raw: Seat | str) -> Seat:
    return raw if isinstance(raw, Seat) else Seat(raw)


def pilot(pid: str = "custom", **stats) -> data.RacerSpec:
    """A group's own pilot, checked as the data files are (unset skills are 0, Piloting the Int mod)."""
    return data.racer_from(pid, {"name": pid, **stats}, "test pilot")


def grid(*seats: Seat | str, track: str = "dune_sea", seed: int = 1, tuning: int = 0,
         gm: bool = False) -> tuple[RaceState, tuple]:
    """Racers joined in the lobby and the race started by the host (the GO signal, or tuning first)."""
    seats = tuple(_seat(s) for s in seats)
    host = GM if gm else seats[0].player
    state = RULESET.setup({"track": track, "tuning": tuning, "gm": "yes" if gm else "no"}, seed, host)
    state = replace(state, custom_pilots=tuple(s.pilot for s in seats if isinstance(s.pilot, data.RacerSpec)))
    for s in seats:
        state, _ = apply(state, s.player, Join(s.player, getattr(s.pilot, "id", s.pilot), s.vehicle))
    return apply(state, host, Start())


def race(*seats: Seat | str, track: str = "dune_sea", seed: int = 1, phase: Phase = Phase.ACTION, section: int = 0,
         lap: int = 0, gm: bool = False, **fields) -> RaceState:
    """A race under way: racers r1..rN (owned by the seats' players) in the given move order with the
    given speeds and altitudes, at `section` of `lap` in `phase`, fresh for that step, dice from `seed`.
    A phase of the action phase gets the action order last to first; `fields` replace anything else."""
    seats = tuple(_seat(s) for s in seats)
    state, _ = grid(*seats, seed=seed, gm=gm)
    racers = []
    for n, (s, started) in enumerate(zip(seats, state.racers)):
        fresh = Racer(started.id, s.player, s.player, started.pilot, started.vehicle, n,
                      state.vehicle_spec(started).hp, speed=s.speed, altitude=s.altitude)
        racers.append(replace(fresh, **s.marks))
    order = tuple(r.id for r in racers)
    state = replace(state, track=track, racers=tuple(racers), order=order, phase=phase, section=section, lap=lap,
                    pending=None, feature_stage="", feature=0, dc_changes=(), dice=DiceState(seed),
                    step=max((r.out_order for r in racers), default=0),
                    action_order=tuple(reversed(order)) if phase in (Phase.ACTION, Phase.REACTION) else ())
    return replace(state, **fields)


def turn_of(state: RaceState, racer_id: str) -> RaceState:
    """The action phase with `racer_id` acting now (the others keep their turn, after it)."""
    return replace(state, phase=Phase.ACTION, action_order=(racer_id,) + tuple(
        r for r in state.action_order or reversed(state.order) if r != racer_id))


def play(state: RaceState, *moves: tuple[str, object]) -> tuple[RaceState, tuple]:
    """Apply (player, action) moves in turn; the last state and every event."""
    events: tuple = ()
    for player, action in moves:
        state, more = apply(state, player, action)
        events += more
    return state, events


def answer_all(state: RaceState, action, **by_player) -> tuple[RaceState, tuple]:
    """A simultaneous step: each waiting player answers (`by_player` for some, `action` for the rest)."""
    events: tuple = ()
    phase, step = state.phase, (state.section, state.feature_stage, state.feature)
    assert phase in TOGETHER
    while state.phase == phase and (state.section, state.feature_stage, state.feature) == step \
            and RULESET.acting_players(state):
        player = RULESET.acting_players(state)[0]
        state, more = apply(state, player, by_player.get(player, action))
        events += more
    return state, events


def rolls(events: tuple, purpose: str, who: str | None = None) -> list[DiceRolled]:
    """The DiceRolled events whose purpose starts with `purpose` (and made by `who`)."""
    return [e for e in events if isinstance(e, DiceRolled) and e.purpose.startswith(purpose)
            and who in (None, e.who)]


def roll(events: tuple, purpose: str, who: str | None = None) -> DiceRolled:
    """The one DiceRolled for `purpose` (by `who`)."""
    found = rolls(events, purpose, who)
    assert len(found) == 1, (purpose, who, found)
    return found[0]


def of(events: tuple, kind: type, name: str | None = None) -> list:
    """The events of a kind (about the racer called `name`)."""
    return [e for e in events if isinstance(e, kind) and name in (None, getattr(e, "name", None))]


def damage_to(events: tuple, name: str) -> int:
    """The hull points a racer lost in these events."""
    return sum(e.points for e in of(events, Damaged, name))


def kept(rolled: DiceRolled) -> int:
    """The d20 face a check kept (the higher under advantage, the lower under disadvantage)."""
    return max(rolled.faces) if rolled.edge > 0 else min(rolled.faces)


def mod(rolled: DiceRolled, name: str) -> int | None:
    """A roll's modifier by name, or None when it has none."""
    return dict(rolled.modifiers).get(name)


def next_faces(dice: DiceState, die: int, count: int = 1) -> tuple[int, ...]:
    """What the game's stream shows next for `count` dice of `die` sides (a check kept outside the rules)."""
    return roll_faces(dice, tuple(range(1, die + 1)), count)[1]


def racer(state: RaceState, racer_id: str) -> Racer:
    return state.racer(racer_id)


def places(state: RaceState) -> tuple[str, ...]:
    """The racing racers' ids, first place first."""
    return tuple(r.id for r in state.racing())


def custom_track(monkeypatch, *sections: dict, **raw) -> str:
    """A group's own track, checked by the data rules and served as the built-in ones are; its id."""
    made = data.track_from("custom", {"name": "Test Track", "sections": list(sections), **raw}, "test track")
    real = data.track
    monkeypatch.setattr(data, "track", lambda tid: made if tid == "custom" else real(tid))
    return "custom"


def computer_race(track: str, seed: int, vehicles: tuple[str, ...], limit: int = 5000) -> tuple[RaceState, tuple]:
    """A whole race of computer racers, each playing what `ai.computer_action` chooses; the end and every event."""
    state = RULESET.setup({"track": track, "tuning": 1}, seed, "host")
    for n, vehicle in enumerate(vehicles):
        state, _ = apply(state, "host", AddComputer(tuple(data.racers())[n % 3], vehicle))
    state, events = apply(state, "host", Start())
    for _ in range(limit):
        if state.phase == Phase.FINISHED:
            return state, events
        player = RULESET.acting_players(state)[0]
        state, more = apply(state, player, ai.computer_action(state, player))
        events += more
    raise AssertionError("the computer race did not finish")


def saw(seen: set, *wanted: str) -> None:
    """Every branch a parametrised sweep claims to cover occurred at least once."""
    missing = set(wanted) - seen
    assert not missing, f"no seed reached the branch(es) {sorted(missing)}; saw {sorted(seen)}"
