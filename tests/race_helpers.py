"""Races for the SW5e race rules tests: a grid seated and started through the rules, then racers placed
by hand (speed, altitude, hull, place), the phase and section set, and the dice stream restarted from
a fixed seed so every face a test reads is the one the rules rolled."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from functools import cache

import pytest

from rules.dice import DiceState, roll_faces
from rules.errors import GameError
from rules.race import ai, checks, data
from rules.race.actions import Act, AddComputer, Join, React, Start
from rules.race.events import Damaged, DiceRolled, HazardHit, Maneuver
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
    """A race under way: racers r1..rN (owned by the seats' players) in the given move order (or
    `order`) with the given speeds and altitudes, at `section` of `lap` in `phase`, fresh for that step,
    dice from `seed`. The action phase's order is last to first; `fields` replace anything else."""
    seats = tuple(_seat(s) for s in seats)
    state, _ = grid(*seats, seed=seed, gm=gm)
    racers = []
    for n, (s, started) in enumerate(zip(seats, state.racers)):
        fresh = Racer(started.id, s.player, s.player, started.pilot, started.vehicle, n,
                      state.vehicle_spec(started).hp, speed=s.speed, altitude=s.altitude)
        racers.append(replace(fresh, **s.marks))
    fields = {"order": tuple(r.id for r in racers), "pending": None, "feature_stage": "", "feature": 0,
              "dc_changes": (), **fields}
    state = replace(state, track=track, racers=tuple(racers), phase=phase, section=section, lap=lap,
                    dice=DiceState(seed), step=max(r.out_order for r in racers), **fields)
    if "action_order" not in fields and phase not in TOGETHER:
        state = replace(state, action_order=tuple(reversed(state.order)))
    return state


def at_feature(track: str, section: int, stage: str, index: int, *seats: Seat | str, seed: int = 1,
               **fields) -> RaceState:
    """A race waiting on every racer to choose whether to try for a feature ('before' or 'after' the actions)."""
    return race(*seats, track=track, section=section, seed=seed, phase=Phase.FEATURE, feature_stage=stage,
                feature=index, **fields)


def hit(track: str = "dune_sea", section: int = 0, altitude: int = 1, seed: int = 1) -> tuple:
    """ann (r1, first of three, 500 km/h, 500 HP) meets the section's hazard: the state before, after, events."""
    state = race(seat("ann", 500, altitude, hp=500), "bob", "cy", track=track, section=section, seed=seed)
    return (state,) + checks.hit_hazard(state, "r1")


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


def refused(state: RaceState, player: str, action, error: type = GameError, match: str | None = None) -> None:
    """The rules refuse the action with `error` (a GameError) and the race stays as it was."""
    assert issubclass(error, GameError)
    before = copy.deepcopy(state)
    with pytest.raises(error, match=match):
        apply(state, player, action)
    assert state == before


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


def named(events: tuple, kind: str) -> list[Maneuver]:
    """The Maneuver events of one kind ("rams", "passes", "feints at", ...)."""
    return [e for e in events if isinstance(e, Maneuver) and e.kind == kind]


def damage_to(events: tuple, name: str) -> int:
    """The hull points a racer lost in these events."""
    return sum(e.points for e in of(events, Damaged, name))


def adds_up(rolled: DiceRolled) -> bool:
    """A check's total is the face it kept plus its modifiers."""
    return rolled.total == kept(rolled) + sum(v for _k, v in rolled.modifiers)


def branch(ours: int, theirs: int) -> str:
    """An opposed roll's outcome for the one who rolled `ours`."""
    return "higher" if ours > theirs else "tie" if ours == theirs else "lower"


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


def made_at(ok: bool, total: int) -> str:
    """A branch's name for `saw`: 'made at 15', 'missed at 14'."""
    return f"{'made' if ok else 'missed'} at {total}"


def saw(seen: set, *wanted: str) -> None:
    """Every branch a parametrised sweep claims to cover occurred at least once."""
    missing = set(wanted) - seen
    assert not missing, f"no seed reached the branch(es) {sorted(missing)}; saw {sorted(seen)}"


# --- the maneuvers and checks several tests share ------------------------------------------------

def assert_damage_slows(events: tuple, after, hurt, extra: int = 0, speed: int = 500) -> None:
    """r1 (500 HP, at `speed`) lost the damage roll from its hull, and from its speed the damage minus a Con
    roll, rounded down to tens (+ `extra`)."""
    con = rolls(events, "Vehicle Roll (Constitution)")[0]
    assert racer(after, "r1").hp == 500 - hurt.total
    assert racer(after, "r1").speed == speed - max(0, (hurt.total - con.total) // 10 * 10) - extra


# Found: the DMG's damage severity dice (d10s) by tier, the league naming the row (rules-gaps.md 4.1, 4.2.1).
SEVERITY_DICE = {"rookie": {"setback": 1, "dangerous": 2, "deadly": 4},
                 "pro": {"setback": 2, "dangerous": 4, "deadly": 10},
                 "champion": {"setback": 4, "dangerous": 10, "deadly": 18},
                 "legend": {"setback": 10, "dangerous": 18, "deadly": 24}}


def every_section() -> list[tuple[str, int, data.Section]]:
    """(track, index, section) for every section of the three sample tracks."""
    return [(t, n, s) for t in data.track_ids() for n, s in enumerate(data.track(t).sections)]


def met_hazard(track: str, section: int, altitude: int, what: str, severity: str = "", speed_die: int = 0,
               then: str = "") -> None:
    """ann (r1 of three, 500 km/h, 500 HP) meets the hazard at `altitude` on a track's own section, for five
    seeds: it is `what`; the league's `severity` dice of damage (slowing as damage does), `speed_die` x 10
    km/h more lost, and `then` "last" (back in last place at 300 km/h) or "out" (fallen out of the race)."""
    for seed in range(1, 6):
        _before, after, events = hit(track, section, altitude, seed)
        ann = racer(after, "r1")
        assert [e.hazard for e in of(events, HazardHit)] == [what]
        assert [e.purpose for e in rolls(events, "") if e.purpose.endswith(" damage")] == (
            [f"{severity} damage"] if severity else [])
        if then == "out":
            assert (ann.out, ann.hp, places(after)) == ("fell", 500, ("r2", "r3"))
            continue
        extra = 0
        if speed_die:
            lost = roll(events, "speed lost")
            assert lost.dice == f"d{speed_die} x 10" and 1 <= lost.faces[0] <= speed_die
            extra = 10 * lost.faces[0]
        if not severity:
            assert (ann.hp, ann.speed) == (500, 500 - extra) and not of(events, Damaged)
            continue
        hurt = roll(events, f"{severity} damage")
        count = SEVERITY_DICE[data.track(track).league][severity]
        assert hurt.dice == f"{count}d10" and len(hurt.faces) == count and hurt.total == sum(hurt.faces)
        if then == "last":
            assert (ann.hp, ann.speed, places(after)) == (500 - hurt.total, 300, ("r2", "r3", "r1"))
        else:
            assert_damage_slows(events, after, hurt, extra)
            assert places(after) == ("r1", "r2", "r3")


def show_off(seed: int, place: int, shift: int | None = None):
    """The racer in `place` of three shows off on the Boost Run (DC 0 at 1 m, moved by `shift`)."""
    state = turn_of(race("ann", "bob", "cy", seed=seed), f"r{place}")
    if shift is not None:
        state = replace(state, dc_changes=((0, shift),))
    return state, *apply(state, ("ann", "bob", "cy")[place - 1], Act("show_off"))


@cache
def pass_sweep(reaction: str = "block") -> tuple:
    """bob (440 km/h) tries to pass ann (400) who answers, over 150 seeds: (after, bob's roll, ann's roll)."""
    runs = []
    for seed in range(1, 151):
        after, events = play(race(seat("ann", 400), seat("bob", 440), seed=seed), ("bob", Act("pass")),
                             ("ann", React(reaction)))
        runs.append((after, roll(events, "Piloting (pass)"), roll(events, "Piloting against")))
    return tuple(runs)


def ramming(seed: int, track: str = "dune_sea", reaction: str = "none", brake: bool = False, ahead: int = 300,
            behind: int = 350, rammer: str = "rookie"):
    """bob (r2, a racing swoop) rams ann (r1, a landspeeder) who answers with `reaction`."""
    state = race(seat("ann", ahead, vehicle="landspeeder", hp=200), seat("bob", behind, pilot=rammer, hp=200),
                 track=track, seed=seed)
    return play(state, ("bob", Act("ram")), ("ann", React(reaction, brake)))
