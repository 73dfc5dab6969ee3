"""Where two of the SW5e race's rules meet (seed 003; rules-gaps.md section 4; rules/race/RULES.md).

Each test quotes the seed sentence (and where it stands) or the RULES.md ruling it holds the code to, and
fails on the code as it is because the code contradicts it. Dice come from the game's seeded stream, so
every test is deterministic; the few sweeps over seeds assert the branch they need occurred."""

from __future__ import annotations

from dataclasses import replace

from rules.errors import BadOption
from rules.race import checks, data
from rules.race import events as ev
from rules.race.actions import Act, Prepare, React, Throttle, TryFeature
from rules.race.ruleset import RULESET
from rules.race.state import Phase
from tests.race_helpers import (
    answer_all,
    apply,
    at_feature,
    custom_track,
    of,
    play,
    race,
    racer,
    refused,
    roll,
    saw,
    seat,
    turn_of,
)

RAIL = {"kind": "railing", "height": 1, "severity": "setback"}
NEWEST = 4    # the fixes came as rules revision 4: every race here is played under it (a stored race of
# revision 3 plays on as before: the last tests)


# --- a trampoline's lift and its price ------------------------------------------------------------
def test_a_trampoline_that_lists_only_its_altitude_still_costs_that_much_speed(monkeypatch):
    """Seed, "Features suggestions": "Trampoline. Vehicle gains listed altitude and loses the same amount
    of speed." RULES.md (Hazards and features, RECONSTRUCTION 4.2.4 rule 6): "+10 m and -10 km/h when no
    altitude is listed".

    The code (flow.py `_contact`) takes the speed from the feature's own `speed` field, which a trampoline
    that lists only its altitude (or nothing) leaves at 0 (data.py `_feature`): it lifts 10 m (or 20) and
    costs nothing."""
    track = custom_track(monkeypatch,
                         {"name": "Hop", "type": "straight", "hazard": RAIL,
                          "before": [{"kind": "trampoline", "dc": 0}]},
                         {"name": "High hop", "type": "straight", "hazard": RAIL,
                          "before": [{"kind": "trampoline", "dc": 0, "altitude": 20}]})
    for section, lift in ((0, 10), (1, 20)):
        state = at_feature(track, section, "before", 0, seat("ann", 400), seat("bob", 400), revision=NEWEST)
        after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
        assert roll(events, "Piloting check for the trampoline", "ann").total >= 0    # DC 0: contact
        ann = racer(after, "r1")
        assert ann.altitude == 1 + lift
        assert ann.speed == 400 - lift, f"gained {lift} m and lost {400 - ann.speed} km/h, not the same amount"


# --- the banthas' rejoin and the speed-loss bonus -------------------------------------------------
def test_a_racer_the_banthas_put_back_last_at_300_earns_the_speed_loss_bonus():
    """Seed, "Losing speed": "At any point, should a vehicle's speed be reduced by at least 10 km/h by any
    means, its pilot gets +1 bonus for his next Piloting check, unless otherwise noted. This bonus increases
    to +2 if their speed drops by 20 km/h or more."

    The Minefield's banthas (RECONSTRUCTION 4.2.5: "rejoin last at 300 km/h") take a 500 km/h racer to
    300, a drop of 200 km/h. RULES.md already rules this way for the ditch ("a loss of 10 km/h or more
    earns the speed-loss bonus", revision 3). The code (checks.py `hit_hazard`, the `rejoin` branch) writes
    the speed over with no bonus, so only what the damage itself cost counts (seed 1: 10 km/h, +1)."""
    seen = set()
    for seed in range(1, 11):
        state = race(seat("ann", 500, 2, hp=500), "bob", "cy", section=2, seed=seed, revision=NEWEST)
        after, events = checks.hit_hazard(state, "r1")    # 2 m: over the Minefield's 1 m railing, the banthas
        ann = racer(after, "r1")
        assert [e.hazard for e in of(events, ev.HazardHit)] == ["banthas"]
        if ann.out:
            continue
        assert ann.speed == 300 and ann.bonus == 2, f"seed {seed}: 500 -> 300 km/h earned only +{ann.bonus}"
        seen.add("rejoined")
    saw(seen, "rejoined")


# --- altitude above the ceiling -------------------------------------------------------------------
LOW_RIDER = data.vehicle_from("low_rider", {"name": "Low Rider", "str": 16, "dex": 16, "con": 10, "ceiling": 5},
                              "test vehicle")    # a canon ceiling of 5 m (the seed's first choice)


def _above_the_ceiling(phase: Phase, section: int):
    """ann on the Low Rider at 11 m, over its 5 m ceiling, as the Gap Jump's trampoline leaves a racer
    (RULES.md: "RULING: the trampoline's lift ignores the ceiling")."""
    state = race(seat("ann", 400, 11), seat("bob", 400), phase=phase, section=section, revision=NEWEST)
    state = replace(state, custom_vehicles=(LOW_RIDER,))
    return state.with_racer(replace(racer(state, "r1"), vehicle="low_rider"))


def test_a_climb_over_the_ceiling_never_turns_into_a_dive():
    """Seed, "Changing altitude": "vehicle gains altitude by spending 2 meters of speed for every 1 meter
    climbed". RULES.md (Speed and altitude): "A climb stops at the vehicle's ceiling."

    A racer the trampoline lifted over its ceiling who asks to climb 2 m is instead dropped to the
    ceiling and gains speed for the fall (speed.py `change_altitude`: the target is clamped to the
    ceiling even when that is below the racer)."""
    state = _above_the_ceiling(Phase.ACCELERATE, 1)
    state = replace(state, racers=tuple(replace(r, made_check=True) for r in state.racers))
    after, _events = apply(state, "ann", Throttle(False, 0, 2))    # /coast climb:2
    ann = racer(after, "r1")
    assert ann.altitude >= 11 and ann.speed <= 400, f"asked to climb 2 m: now {ann.altitude} m at {ann.speed} km/h"


def test_a_descent_from_over_the_ceiling_drops_what_was_asked():
    """Seed, "Changing altitude": "vehicle gains 1 meter of speed for every 2 meters of fall" and "racers
    may opt to reduce altitude before making any Piloting check".

    From 11 m, over a 5 m ceiling, `/steady descend:1` drops the racer 6 m to the ceiling and pays 3 km/h
    for it (speed.py `change_altitude`), not the 1 m asked (worth 0 km/h)."""
    state = _above_the_ceiling(Phase.PREPARE, 1)    # Gentle Curves: every racer has a check
    after, _events = apply(state, "ann", Prepare(descend=1))
    ann = racer(after, "r1")
    assert (ann.altitude, ann.speed) == (10, 400)


# --- a dive before a maneuver's check, and the maneuver's speed conditions -------------------------
def test_a_block_never_speeds_up_the_passer_it_stops():
    """Seed, "Reaction - Block": "If your result is higher, your opponent fails his pass attempt and
    instead loses speed. His speed becomes equal to your speed minus 10 km/h." With "racers may opt to
    reduce altitude before making any Piloting check" ("Changing altitude"), a blocker who dives 40 m
    gains 20 km/h and is now faster than the passer.

    The code (maneuvers.py `_pass`, the block branch: `set_speed(..., blocker's speed - 10)`) then raises
    the blocked passer from 400 to 410 km/h."""
    seen = set()
    for seed in range(1, 41):
        state = race(seat("ann", 400, 41), seat("bob", 400), seed=seed, revision=NEWEST)
        after, events = play(state, ("bob", Act("pass")), ("ann", React("block", descend=40)))
        if not [e for e in events if isinstance(e, ev.Maneuver) and e.result == "blocked"]:
            continue
        assert racer(after, "r1").speed == 420    # ann dived 40 m: +20 km/h before her check
        assert racer(after, "r2").speed < 400, f"seed {seed}: blocked bob went 400 -> {racer(after, 'r2').speed}"
        seen.add("blocked")
    saw(seen, "blocked")


def test_no_side_sweep_on_a_racer_the_sweepers_own_dive_made_slower():
    """Seed, "Action - Side Sweep": "You can't attempt to side sweep an opponent if his vehicle's speed is
    less than yours." The dive comes "before making any Piloting check" ("Changing altitude"), so before
    the sweep is attempted.

    ann and bob are both at 400 km/h; ann, at 41 m, sweeps with descend:40 and is at 420 km/h when she
    sweeps bob at 400. The code (maneuvers.py `act`) asks `why_not` before `_descend_first`, so the
    sweep goes ahead against a slower racer."""
    state = turn_of(race(seat("ann", 400, 41), seat("bob", 400), revision=NEWEST), "r1")
    refused(state, "ann", Act("sweep", descend=40), BadOption)


def test_no_side_sweep_reaction_on_a_passer_the_reactors_own_dive_made_slower():
    """Seed, "Action - Side Sweep": "You can't attempt to side sweep an opponent if his vehicle's speed is
    less than yours." (Side Sweep is a reaction to a Pass, Table 3.)

    bob passes ann at 400 km/h each; ann answers with a side sweep and descend:40, and sweeps at 420 km/h
    a passer at 400. The code (maneuvers.py `react`) asks `reaction_why_not` before `_descend_first`."""
    state, _ = apply(race(seat("ann", 400, 41), seat("bob", 400), revision=NEWEST), "bob", Act("pass"))
    assert state.phase == Phase.REACTION
    refused(state, "ann", React("sweep", descend=40), BadOption)


# --- revision 3 plays on as it was stored -----------------------------------------------------------
def test_the_fixes_are_rules_revision_4():
    assert RULESET.revision >= NEWEST
    assert RULESET.new_game_options({})["revision"] == RULESET.revision   # what a new race is stored with


def test_a_revision_3_race_keeps_the_old_trampoline_and_rejoin(monkeypatch):
    """A race stored under revision 3 plays on as it did: a trampoline listing no speed costs none, and the
    banthas' rejoin at 300 km/h is written over (no speed change told, no bonus for it)."""
    track = custom_track(monkeypatch, {"name": "Hop", "type": "straight", "hazard": RAIL,
                                       "before": [{"kind": "trampoline", "dc": 0}]})
    state = at_feature(track, 0, "before", 0, seat("ann", 400), seat("bob", 400), revision=3)
    after, _events = answer_all(state, TryFeature(True), bob=TryFeature(False))
    assert (racer(after, "r1").altitude, racer(after, "r1").speed) == (11, 400)
    state = race(seat("ann", 500, 2, hp=500), "bob", "cy", section=2, seed=1, revision=3)
    after, events = checks.hit_hazard(state, "r1")
    assert racer(after, "r1").speed == 300 and racer(after, "r1").bonus == 1
    assert not [e for e in of(events, ev.SpeedChanged) if e.after == 300]


def test_a_revision_3_race_keeps_the_old_ceiling():
    """Revision 3: a racer over its ceiling who climbs or descends is brought down to the ceiling."""
    state = _above_the_ceiling(Phase.ACCELERATE, 1)
    state = replace(state, revision=3, racers=tuple(replace(r, made_check=True) for r in state.racers))
    after, _events = apply(state, "ann", Throttle(False, 0, 2))
    assert (racer(after, "r1").altitude, racer(after, "r1").speed) == (5, 403)
    after, _events = apply(replace(_above_the_ceiling(Phase.PREPARE, 1), revision=3), "ann", Prepare(descend=1))
    assert (racer(after, "r1").altitude, racer(after, "r1").speed) == (5, 403)


def test_a_revision_3_race_keeps_the_old_dive_before_a_maneuver():
    """Revision 3: a block after a dive sets the passer to the blocker's speed - 10 (even a gain), and a
    side sweep (action or reaction) checks the speeds before the dive."""
    seen = set()
    for seed in range(1, 41):
        state = race(seat("ann", 400, 41), seat("bob", 400), seed=seed, revision=3)
        after, events = play(state, ("bob", Act("pass")), ("ann", React("block", descend=40)))
        if [e for e in events if isinstance(e, ev.Maneuver) and e.result == "blocked"]:
            assert racer(after, "r2").speed == 410, seed
            seen.add("blocked")
    saw(seen, "blocked")
    state = turn_of(race(seat("ann", 400, 41), seat("bob", 400), revision=3), "r1")
    after, _events = apply(state, "ann", Act("sweep", descend=40))
    assert racer(after, "r1").speed == 420 and after.phase == Phase.REACTION
    state, _ = apply(race(seat("ann", 400, 41), seat("bob", 400), revision=3), "bob", Act("pass"))
    after, _events = apply(state, "ann", React("sweep", descend=40))
    assert racer(after, "r1").speed == 420


def test_a_target_given_to_a_maneuver_that_takes_none_is_refused_not_ignored():
    """`/act maneuver:pass target:zed` (a racer nobody races) was taken, and the pass went at the racer just ahead:
    bad input changed the game. From revision 4 a target given to anything but an attack is refused, and nothing
    changes; a revision 3 race still takes it (its stored logs may hold one)."""
    for revision in (NEWEST, 3):
        state = race(seat("ann", 400), seat("bob", 400), seed=1, revision=revision)
        if revision >= 4:
            refused(state, "bob", Act("pass", target="zed"), BadOption, match="target:")
        else:
            play(state, ("bob", Act("pass", target="zed")))   # taken, the target ignored, as it was
