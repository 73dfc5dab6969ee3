"""The SW5e race's rules (seed 003; rules-gaps.md section 4), one test per rule sentence. Dice come from
the game's seeded stream: each test reads the faces the rules rolled and asserts the outcome the seed's
rule gives for them; sweeps over seeds assert that every branch they claim occurred."""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import pytest

from rules.dice import DiceState
from rules.errors import BadOption, GameOver, NotSeated, NotYourTurn, WrongPhase
from rules.race import checks, data, flow, speed
from rules.race import events as ev
from rules.race.actions import Act, GmChange, GmReveal, GmRule, Prepare, React, Stabilize, Throttle, TryFeature, Tune
from rules.race.rolls import d20, edge, vehicle_roll
from rules.race.ruleset import RULESET
from rules.race.state import Pending, Phase
from tests.race_helpers import (
    GM,
    SEVERITY_DICE,
    adds_up,
    answer_all,
    apply,
    assert_damage_slows,
    at_feature,
    branch,
    computer_race,
    custom_track,
    damage_to,
    every_section,
    grid,
    hit,
    made_at,
    met_hazard,
    mod,
    named,
    next_faces,
    of,
    pass_sweep,
    pilot,
    places,
    play,
    race,
    racer,
    ramming,
    refused,
    roll,
    rolls,
    saw,
    seat,
    show_off,
    turn_of,
)

SEEDS = range(1, 41)
RAIL = {"kind": "railing", "height": 2, "severity": "setback"}
BLIND = pilot("blind", int=14, piloting=4, perception=2)    # passive Perception 12: misses a DC 13 trap


# --- vehicles ------------------------------------------------------------------------------------
@pytest.mark.parametrize("score, die", [(9, None), (10, 4), (11, 4), (12, 6), (13, 6), (14, 8), (15, 8), (16, 10),
                                        (17, 10), (18, 12), (19, 12), (20, 20), (25, 20)])
def test_vehicle_rolls_follow_table_1(score, die):
    """Seed, Table 1: "20+ d20, 18..19 d12, 16..17 d10, 14..15 d8, 12..13 d6, 10..11 d4"."""
    assert data.vehicle_die(score) == die
    if die:
        spec = data.vehicle_from("v", {"str": score, "dex": 10, "con": 10}, "test")
        state = race("ann", "bob", seed=score)
        _state, total, rolled = vehicle_roll(state, racer(state, "r1"), "str", spec)
        assert rolled.dice == f"d{die}" and rolled.faces == next_faces(state.dice, die) and total == rolled.faces[0]


@pytest.mark.parametrize("ability", ["str", "dex", "con"])
def test_a_vehicle_with_a_physical_score_below_10_is_not_qualified(ability):
    """Seed: "If any of the vehicle's physical Ability scores are less than 10, the vehicle is ... not qualified"."""
    scores = {"str": 12, "dex": 12, "con": 12}
    assert getattr(data.vehicle_from("ok", {**scores, ability: 10}, "test"), ability) == 10
    with pytest.raises(data.DataError, match=rf"^test: {ability} 9 is below 10: .*not qualified"):
        data.vehicle_from("bad", {**scores, ability: 9}, "test")


@pytest.mark.parametrize("vid, max_speed, ceiling, hp, ac, hull_die", [
    ("racing_swoop", 525, 100, 14, 13, 6), ("speeder_bike", 450, 75, 17, 13, 6),
    ("landspeeder", 425, 100, 38, 11, 8), ("podracer", 575, 150, 39, 12, 8)])
def test_max_speed_ceiling_hull_and_ac_follow_the_formulas(vid, max_speed, ceiling, hp, ac, hull_die):
    """Seed: "50 + (Strength Score + Dexterity Modifier - Constitution Modifier) x 25"; ceiling 25 + Str mod x 25."""
    spec = data.vehicles()[vid]
    assert (spec.max_speed, spec.ceiling, spec.hp, spec.ac, spec.hull_die) == (max_speed, ceiling, hp, ac, hull_die)
    canon = data.vehicle_from("canon", {"str": spec.str, "dex": spec.dex, "con": spec.con, "max_speed": 610,
                                         "ceiling": 30}, "test")    # "look it up in any canon source"
    assert (canon.max_speed, canon.ceiling) == (610, 30)


def test_fine_tuning_is_a_technology_check_against_5_plus_the_score_and_adds_1():
    """Seed: "Intelligence (Technology ...) check vs. DC equal to 5 + Vehicle's ... Score", success: "+1 bonus"."""
    seen = set()
    for seed in range(1, 61):
        state, _ = grid("ann", "bob", seed=seed, tuning=1)
        state, events = apply(state, "ann", Tune("con"))    # a racing swoop's Con 10: DC 15
        check = roll(events, "Technology check")
        made = check.total >= 15
        assert mod(check, "Technology") == 4 and adds_up(check) and of(events, ev.Tuned)[0].success is made
        assert racer(state, "r1").tuned == (("con",) if made else ())
        seen.add(made_at(made, check.total))
        if made:
            state, _ = apply(state, "bob", Tune(""))    # ready: the GO signal
            r1, spec = racer(state, "r1"), state.vehicle_spec(racer(state, "r1"))
            _s, total, tuned = vehicle_roll(state, r1, "con", spec)
            assert tuned.modifiers == (("fine-tuned", 1),) and total == tuned.faces[0] + 1
            assert vehicle_roll(state, r1, "dex", spec)[2].modifiers == ()    # only the respective roll
    saw(seen, "made at 15", "missed at 14")
    assert grid("ann", "bob", tuning=0)[0].phase != Phase.TUNE    # "GM decides how many attempts"
    state, _ = apply(grid("ann", "bob", tuning=2)[0], "ann", Tune("str"))
    assert RULESET.acting_players(state) == ("ann", "bob")


# --- the start -----------------------------------------------------------------------------------
def test_initiative_orders_the_racers_ties_to_strength_then_piloting():
    """Seed: the move order by "initiative"; a tie: "higher strength gets the lead", then "Piloting checks"."""
    seats = (seat("ann"), seat("bob", vehicle="speeder_bike"), seat("cy"), seat("dee", vehicle="speeder_bike"))
    seen = set()
    for seed in range(1, 121):
        state, events = grid(*seats, seed=seed)
        init = {e.who: e.total for e in rolls(events, "initiative")}
        assert all(e.total == e.faces[0] + 2 for e in rolls(events, "initiative"))    # d20 + the Rookie's +2
        strength = {r.name: state.vehicle_spec(r).str for r in state.racers}
        offs = {n: tuple(e.total for e in rolls(events, "Piloting to break the tie", n)) for n in init}
        key = {n: (init[n], strength[n], offs[n]) for n in init}
        expected = tuple(sorted(init, key=key.get, reverse=True))
        assert of(events, ev.MoveOrder)[0].names == expected == tuple(r.name for r in state.racing())
        for n in init:
            tied = [o for o in init if o != n and key[o][:2] == key[n][:2]]
            assert bool(offs[n]) is bool(tied)    # only racers tied on initiative and Strength roll off
            if any(init[o] == init[n] and o != n for o in init):
                seen.add("piloting" if tied else "strength")
    saw(seen, "strength", "piloting")


def test_all_racers_start_at_300_kmh():
    """Seed: "All racers accelerate to 300 km/h speed." (4.2.4 rule 3: hovering at 1 m)"""
    for tuning in (0, 1):
        state, events = grid(*(seat(p, vehicle=v) for p, v in zip(("ann", "bob", "cy", "dee"), data.vehicles())),
                             tuning=tuning)
        if tuning:
            state, events = answer_all(state, Tune(""))
        assert of(events, ev.MoveOrder)[0].speed == 300
        assert {(r.speed, r.altitude) for r in state.racers} == {(300, 1)}


# --- sections and checks -------------------------------------------------------------------------
@pytest.mark.parametrize("track", data.track_ids())
def test_the_section_is_told_with_hints_never_a_dc(track):
    """Seed: "GM describes the next section, without revealing actual DC values, just hinting at how difficult"."""
    state, events = computer_race(track, 7, tuple(data.vehicles()))
    told = of(events, ev.SectionBegan)
    sections = data.track(track).sections
    assert told and all(e.hint == sections[e.number - 1].hint and e.hint in e.describe() for e in told)
    if state.racing():
        assert len(told) == data.track(track).laps * len(sections)
    assert [e.describe() for e in events if "DC" in e.describe()] == []
    assert "DC" not in RULESET.describe(state)


@pytest.mark.parametrize("altitude", [1, 5])
def test_a_straight_with_no_condition_needs_no_check(altitude):
    """Seed: with no special conditions "a straight section should not prompt a piloting check to pass"."""
    state = race("ann", seat("bob", altitude=altitude), gm=True, phase=Phase.GM)
    state, events = apply(state, GM, GmReveal())
    if altitude == 1:
        assert state.phase == Phase.ACCELERATE and not rolls(events, "Piloting")
        assert all(r.made_check for r in state.racers)
        return
    assert state.phase == Phase.PREPARE
    state, events = answer_all(state, Prepare())
    assert [e.who for e in rolls(events, "Piloting check for the section")] == ["bob"]
    assert racer(state, "r1").made_check


@pytest.mark.parametrize("revision", [1, 2])
def test_a_gms_raised_dc_makes_no_check_appear_on_a_straight_from_revision_2(revision):
    """Seed: "If there are no special conditions making it difficult to navigate ..., a straight section
    should not prompt a piloting check". From revision 2 the conditions alone decide (issue 23, item 7: a
    check that appeared because the GM raised the DC told the racers so); the raised DC still counts for
    a check the conditions bring. Revision 1 keeps its reading: any DC above 0 asks a check."""
    state = race("ann", "bob", gm=True, phase=Phase.GM, revision=revision)
    state, _ = apply(state, GM, GmChange(4))
    state, events = apply(state, GM, GmReveal())
    if revision == 1:
        assert state.phase == Phase.PREPARE
        return
    assert state.phase == Phase.ACCELERATE and not rolls(events, "Piloting")
    assert all(r.made_check for r in state.racers)
    windy = race("ann", seat("bob", altitude=5), gm=True, phase=Phase.GM, revision=revision)
    windy, _ = apply(windy, GM, GmChange(4))
    assert checks.section_dc(windy, 0, 5) == 0 + 5 + 4   # straight, strong wind from 5 m, the GM's +4
    windy, _ = apply(windy, GM, GmReveal())
    assert windy.phase == Phase.PREPARE
    windy, events = answer_all(windy, Prepare())
    assert [e.who for e in rolls(events, "Piloting check for the section")] == ["bob"]


class Sample(NamedTuple):
    """One of the seed's "Sample sections" as the three tracks use it (rules-gaps.md 4.2.5)."""

    type: str
    conditions: dict          # altitude (m): what the section's conditions add to its and its features' DCs there
    hazards: dict             # altitude (m): the hazard a failed check meets there
    before: tuple = ()        # the features before the action phase
    after: tuple = ()         # the features after it
    strike: tuple = ()        # a storm's: (from altitude, what, damage die, Dexterity save DC)


F = data.Feature
SAMPLES = {
    "Boost Run": Sample("straight", {1: 0, 4: 0, 5: 5, 10: 5}, {1: "railing", 3: "railing"},
                        (F("boost", dc=5, speed=50), F("boost", dc=10, speed=50))),    # strong wind from 5 m
    "Boost Trap": Sample("straight", {1: 2, 2: 2, 3: 5, 10: 5}, {1: "coarse wall", 4: "coarse wall"},
                         (F("boost_trap", dc=5, speed=80, detect=13), F("boost", dc=10, speed=50))),  # fog, wind 3 m
    "Gap Jump": Sample("straight", {1: 0, 9: 0, 10: 5}, {1: "railing", 2: "the deep"}, (F("boost", dc=7, speed=100),),
                       (F("trampoline", dc=10, speed=10, altitude=10), F("gap", speed=400)),
                       (10, "lightning", 8, 15)),    # storm from 10 m
    "Gentle Curves": Sample("curved", {1: 0, 2: 0, 3: 5, 10: 5}, {1: "coarse wall", 4: "coarse wall"}, (),
                            (F("magnetic", dc=5, speed=30),)),    # strong wind from 3 m
    "Hard Curves": Sample("twisted", {1: 0, 17: 0, 18: 2}, {1: "jungle", 19: "jungle"}),    # wind from 18 m
    "Minefield": Sample("straight", {1: 0, 2: 5, 10: 5}, {1: "railing", 2: "banthas"},
                        (F("mines", dc=7, dice=3, die=6),), (), (2, "flying debris", 6, 12)),    # sandstorm from 2 m
}
TRACKS = {    # rules-gaps.md 4.2.5: league, laps, ram, weapons, the sections in order
    "cloud_city": ("pro", 2, "illegal", "illegal", ("Boost Run", "Boost Trap", "Gap Jump", "Gentle Curves")),
    "dune_sea": ("rookie", 3, "legal", "illegal", ("Boost Run", "Gentle Curves", "Minefield", "Hard Curves")),
    "outlaw_gauntlet": ("rookie", 1, "legal", "legal", ("Minefield", "Hard Curves", "Boost Trap", "Gap Jump",
                                                        "Boost Run")),
}
WALKED_HAZARDS = ("railing", "coarse wall", "jungle", "banthas", "the deep")    # each has its test below
WALKED_FEATURES = ("boost", "boost_trap", "trampoline", "gap", "mines", "magnetic")


def sections_walk() -> list:
    """Every (track, section, name) of the sample tracks."""
    return [pytest.param(t, n, s.name, id=f"{t}-{s.name}") for t, n, s in every_section()]


def hazards_walk(what: str) -> list:
    """Every (track, section, altitude) where a failed check meets the hazard `what`."""
    return [pytest.param(t, n, alt, id=f"{t}-{s.name}-{alt}m") for t, n, s in every_section()
            for alt, met in SAMPLES[s.name].hazards.items() if met == what]


def features_walk(kind: str) -> list:
    """Every (track, section, stage, index, feature, sample section) of a kind on the sample tracks, as the
    seed gives them."""
    return [pytest.param(t, n, stage, index, feature, SAMPLES[s.name], id=f"{t}-{s.name}-{stage}{index}")
            for t, n, s in every_section() for stage in ("before", "after")
            for index, feature in enumerate(getattr(SAMPLES[s.name], stage)) if feature.kind == kind]


def feature_dcs(feature: data.Feature, sample: Sample) -> dict[int, int]:
    """A feature's DC at hover height and high up (10 m), its section's conditions added (seed)."""
    return {alt: feature.dc + sample.conditions[alt] for alt in (1, 10)}


@pytest.mark.parametrize("track", sorted(TRACKS))
def test_the_sample_tracks_are_built_of_the_seeds_sample_sections(track):
    """Seed, "Sample sections": Boost Run, Boost Trap, Gap Jump, Gentle Curves, Hard Curves, Minefield (4.2.5)."""
    league, laps, ram, weapons, names = TRACKS[track]
    built = data.track(track)
    assert (built.league, built.laps, built.ram, built.weapons) == (league, laps, ram, weapons)
    assert tuple(s.name for s in built.sections) == names
    for section in built.sections:
        sample = SAMPLES[section.name]
        assert (section.type, section.before, section.after) == (sample.type, sample.before, sample.after)
        assert [(c.altitude, c.what, c.damage_die, c.save_dc) for c in section.conditions if c.damage_dice] == (
            [sample.strike] if sample.strike else [])
        assert set(sample.hazards.values()) <= set(WALKED_HAZARDS)    # each hazard and feature has its walk
        assert {f.kind for f in sample.before + sample.after} <= set(WALKED_FEATURES)


@pytest.mark.parametrize("track, section, name", sections_walk())
def test_conditions_raise_the_dc_above_or_below_their_altitude(track, section, name):
    """Seed: wind +2, strong wind and storm +5 "above a certain altitude", fog +2 "below" it (4.2.4 rule 3)."""
    state = race("ann", "bob", track=track, section=section)
    sample = SAMPLES[name]
    base = data.table()["section_types"][sample.type]
    assert {alt: checks.section_dc(state, section, alt) for alt in sample.conditions} == {
        alt: base + more for alt, more in sample.conditions.items()}
    for feature in sample.before + sample.after:
        assert {alt: checks.feature_dc(state, feature, alt) for alt in sample.conditions} == {
            alt: feature.dc + more for alt, more in sample.conditions.items()}


def test_section_types_and_light_set_the_dc(monkeypatch):
    """Seed: "Straight ... 0, Curved ... 5, Twisted ... 10, Maze ... 15"; dim light +2, darkness +4, brightness +2."""
    sections = [{"name": kind, "type": kind, "hazard": RAIL} for kind in ("straight", "curved", "twisted", "maze")]
    sections += [{"name": light, "type": "maze", "hazard": RAIL, "conditions": [{"kind": light}]}
                 for light in ("dim_light", "darkness", "brightness")]
    state = race("ann", "bob", track=custom_track(monkeypatch, *sections))
    for altitude in (1, 50):
        assert [checks.section_dc(state, n, altitude) for n in range(7)] == [0, 5, 10, 15, 17, 19, 17]


def test_checks_run_first_to_last_a_miss_meets_the_hazard_and_meeting_the_dc_succeeds():
    """Seed: checks "from first to last"; "below the section's DC ... the section's hazard" (4.2.4 rule 1)."""
    start = race(*(seat(p, hp=200) for p in ("ann", "bob", "cy", "dee")), section=1, phase=Phase.PREPARE,
                 order=("r2", "r4", "r1", "r3"), seed=3)    # Gentle Curves: DC 5 at 1 m

    def checked(state):
        state, events = answer_all(state, Prepare())
        return state, events, {e.who: e for e in rolls(events, "Piloting check for the section")}

    state, events, made = checked(start)
    assert list(made) == ["bob", "dee", "ann", "cy"]
    for r in start.racers:
        ok = made[r.name].total >= 5
        assert racer(state, r.id).made_check is ok and bool(of(events, ev.HazardHit, r.name)) is not ok
    assert state.phase == Phase.ACCELERATE
    assert set(RULESET.acting_players(state)) == {r.owner for r in state.racers if r.made_check}
    first = made["bob"].total
    for delta, ok in ((0, True), (1, False)):    # the DC moved to bob's total, then one above it
        state, events, again = checked(replace(start, dc_changes=((1, first - 5 + delta),)))
        assert again["bob"].total == first and racer(state, "r2").made_check is ok
        assert bool(of(events, ev.HazardHit, "bob")) is not ok


# --- speed ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("km_h, penalty", [(300, 0), (349, 0), (350, -1), (399, -1), (400, -2), (449, -2),
                                           (450, -3), (799, -9), (800, -10), (2000, -10)])
def test_table_2_speed_penalty(km_h, penalty):
    """Seed, Table 2: "349 km/h or less: No penalty ... 800 km/h or more: -10" (4.2.6 rule 2: the table caps)."""
    assert data.speed_penalty(km_h) == penalty
    _state, total, check = checks.piloting(race(seat("ann", km_h), "bob"), "r1", "test")
    assert mod(check, "speed") == penalty and total == check.faces[0] + 4 + penalty


def test_speed_lost_gives_plus_1_at_10_and_plus_2_at_20_on_the_next_check_not_for_climbing():
    """Seed: a drop of "at least 10 km/h" gives "+1 ... for his next Piloting check", 20 km/h +2; climbs do not."""
    state = race(seat("ann", 400), "bob")
    for loss, bonus in ((9, 0), (10, 1), (19, 1), (20, 2), (60, 2)):
        assert racer(speed.lose(state, "r1", loss, "test")[0], "r1").bonus == bonus
    assert racer(speed.change_altitude(state, "r1", 10)[0], "r1").bonus == 0    # 20 km/h spent climbing
    for seed in range(1, 11):
        state = race(seat("ann", 450, hp=200), seat("bob", 450, hp=200), section=1, phase=Phase.PREPARE, seed=seed)
        state, events = answer_all(state, Prepare(brake=True), bob=Prepare(brake=True, to=450, climb=1))
        cut = 10 * roll(events, "Vehicle Roll (Dexterity)", "ann").total
        assert mod(roll(events, "Piloting check for the section", "ann"), "speed lost") == (2 if cut >= 20 else 1)
        assert mod(roll(events, "Piloting check for the section", "bob"), "speed lost") == 0
        if not of(events, ev.HazardHit, "ann"):
            assert racer(state, "r1").bonus == 0    # used up by that check


def test_below_300_the_racer_is_passed_by_the_next_and_restored_to_300():
    """Seed: below 300 km/h "it is passed by the next vehicle in the move order and its speed is restored"."""
    state = race(seat("ann", 310), seat("bob", out="wrecked", out_order=1), seat("cy", 320), "dee")
    after, events = speed.lose(state, "r1", 20, "test")
    assert places(after) == ("r3", "r1", "r4") and racer(after, "r1").speed == 300
    assert of(events, ev.FellBehind)[0].passed_by == "cy"
    for rid, loss in (("r1", 10), ("r4", 10)):    # down to exactly 300; the last, with nobody behind
        after, _ = speed.lose(state, rid, loss, "test")
        assert places(after) == places(state) and racer(after, rid).speed == 300


@pytest.mark.parametrize("points, losses", [(5, {0}), (13, {0, 10}), (24, {10, 20}), (37, {20, 30})])
def test_damage_costs_speed_the_con_roll_off_rounded_down_to_tens(points, losses):
    """Seed: "subtract that amount from the damage received and round ... down to a nearest 10" (4.2.4 rule 9)."""
    seen = set()
    for seed in range(1, 21):
        state = race(seat("ann", 450, vehicle="landspeeder"), "bob", seed=seed)
        after, events = speed.damage(state, "r1", points)
        con = roll(events, "Vehicle Roll (Constitution)")
        lost = max(0, (points - con.total) // 10 * 10)
        assert con.dice == "d8" and racer(after, "r1").hp == 38 - points and racer(after, "r1").speed == 450 - lost
        seen.add(lost)
    assert seen == losses


def test_a_vehicle_brought_to_0_hp_is_wrecked_and_out():
    """Ruling 4.2.4 rule 10: "0 HP wrecks the vehicle and takes it out of the race"."""
    after, events = speed.damage(race(seat("ann", hp=6), "bob", "cy"), "r1", 9)
    assert (racer(after, "r1").hp, racer(after, "r1").out) == (0, "wrecked") and places(after) == ("r2", "r3")
    assert of(events, ev.Out)[0].why == "wrecked"


def test_accelerating_is_the_strength_roll_times_10_capped_at_the_maximum():
    """Seed: "Vehicle Roll (Strength), multiply the result by 10 and increase ... up to that amount" (4.2.4 rule 11)."""
    seen = set()
    for seed in range(1, 21):
        state = race("ann", seat("bob", 500), seat("cy", vehicle="podracer"), "dee", phase=Phase.ACCELERATE,
                     seed=seed)
        state, events = play(state, ("ann", Throttle()), ("bob", Throttle()), ("cy", Throttle(to=320)))
        face = {e.who: e.total for e in rolls(events, "Vehicle Roll (Strength)")}
        assert roll(events, "Vehicle Roll (Strength)", "cy").dice == "d20"
        assert [racer(state, r).speed for r in ("r1", "r2", "r3")] == [
            300 + 10 * face["ann"], min(525, 500 + 10 * face["bob"]), min(320, 300 + 10 * face["cy"])]
        seen.add("capped" if 500 + 10 * face["bob"] > 525 else "under")
    saw(seen, "capped", "under")


def test_braking_is_the_dexterity_roll_times_10():
    """Seed: "Vehicle Roll (Dexterity), multiply the result by 10. You can opt to reduce the ... speed up to that"."""
    for seed in range(1, 11):
        state = race(seat("ann", 500), seat("bob", 320), seat("cy", 450, vehicle="landspeeder"), "dee", section=1,
                     phase=Phase.PREPARE, seed=seed)
        state, events = play(state, ("ann", Prepare(brake=True)), ("bob", Prepare(brake=True)),
                             ("cy", Prepare(brake=True, to=420)))
        dex = {e.who: e for e in rolls(events, "Vehicle Roll (Dexterity)")}
        assert (dex["ann"].dice, dex["cy"].dice) == ("d10", "d6")
        assert [racer(state, r).speed for r in ("r1", "r2", "r3")] == [
            500 - 10 * dex["ann"].total, max(300, 320 - 10 * dex["bob"].total), max(420, 450 - 10 * dex["cy"].total)]


def test_climbing_costs_2_a_metre_falling_gains_1_per_2_metres_and_altitude_changes_only_when_allowed():
    """Seed: "2 meters of speed for every 1 meter climbed", "1 meter of speed for every 2 meters of fall"."""
    state = race(seat("ann", 400), seat("bob", 400, altitude=9), seat("cy", 400, 70, vehicle="speeder_bike"), "dee",
                 section=1, phase=Phase.PREPARE)
    refused(state, "ann", Prepare(climb=5), BadOption)    # no brake, no climb
    state, _ = play(state, ("ann", Prepare(brake=True, to=400, climb=5)), ("bob", Prepare(descend=5)),
                    ("cy", Prepare(brake=True, to=400, climb=20)))
    assert [(racer(state, r).altitude, racer(state, r).speed) for r in ("r1", "r2", "r3")] == [
        (6, 390), (4, 402), (75, 390)]    # the speeder bike's ceiling is 75 m
    assert racer(state, "r1").bonus == 0
    state, _ = apply(race(seat("ann", 400), "bob", phase=Phase.ACCELERATE), "ann", Throttle(False, climb=3))
    assert (racer(state, "r1").altitude, racer(state, "r1").speed) == (4, 394)
    refused(race("ann", seat("bob", altitude=5)), "bob", Prepare(descend=4), WrongPhase)


def test_altitude_may_drop_before_any_piloting_check_and_only_before_one():
    """Seed: "racers may opt to reduce altitude before making any Piloting check": a feature's, an action's
    and a reaction's too (1 km/h gained a 2 m fall); with no check to follow it is refused."""
    state = at_feature("dune_sea", 0, "before", 0, seat("ann", 400, altitude=9), seat("bob", 400, altitude=9))
    refused(state, "ann", TryFeature(False, descend=4), BadOption)
    state, events = play(state, ("ann", TryFeature(True, descend=4)), ("bob", TryFeature(True)))
    assert racer(state, "r1").altitude == 5 and racer(state, "r2").altitude == 9
    assert roll(events, "Piloting check for the boost strip", "ann")
    state = turn_of(race(seat("ann", 400, altitude=7), seat("bob", 420, altitude=11)), "r2")
    refused(state, "bob", Act("turbo", descend=4), BadOption)
    state, events = apply(state, "bob", Act("pass", descend=4))
    assert racer(state, "r2").altitude == 7 and racer(state, "r2").speed == 422
    refused(state, "ann", React("none", descend=2), BadOption)
    state, events = apply(state, "ann", React("block", descend=6))
    assert racer(state, "r1").altitude == 1 and roll(events, "Piloting against", "ann")


def test_a_weapon_reaction_to_a_pass_waits_on_a_seated_gms_approval():
    """Seed: "Subject to GM's approval, Weapon Attacks can be used as a reaction to being passed." A refusal
    sends the racer back to choose another reaction; an approved shot is not judged, even where illegal."""
    state = turn_of(race(seat("ann", 400), seat("bob", 420), track="cloud_city", gm=True), "r2")   # weapons illegal
    state, _ = apply(state, "bob", Act("pass"))
    asked, events = apply(state, "ann", React("attack"))
    assert asked.phase == Phase.APPROVAL and RULESET.acting_players(asked) == (GM,) and of(events, ev.Chose)
    refused_once, _ = apply(asked, GM, GmRule(False))
    assert refused_once.phase == Phase.REACTION and RULESET.acting_players(refused_once) == ("ann",)
    assert "attack" not in {a.action.reaction for a in RULESET.legal_actions(refused_once, "ann")}
    refused(refused_once, "ann", React("attack"), BadOption)
    shot, events = apply(asked, GM, GmRule(True))
    assert roll(events, "attack with", "ann") and not rolls(events, "Deception against the judges")
    assert places(shot)[0] == "r2" and racer(shot, "r1").penalty == 2     # the pass still happens


def armed_vehicle(*weapons: dict) -> data.VehicleSpec:
    """A group's own speeder bike with the given vehicle weapons."""
    return data.vehicle_from("gunbike", {"name": "Gun bike", "str": 14, "dex": 16, "con": 12,
                                         "weapons": list(weapons)}, "test")


FRONT_GUN = {"name": "nose cannon", "facing": "forward", "attack": 5, "dice": 2, "die": 6, "bonus": 0, "loud": True}
TAIL_GUN = {"name": "tail dart", "facing": "backward", "attack": 3, "dice": 1, "die": 4, "bonus": 1, "loud": False}
SIDE_GUN = {"name": "side gun", "facing": "sideways", "attack": 4, "dice": 1, "die": 6, "bonus": 0, "loud": True}


def on_gunbike(state, *racer_ids: str, bike: data.VehicleSpec):
    """The racers ride the group's own gun bike, with no sidearm (a pilot whose only weapons are the bike's)."""
    plain = pilot("plain", piloting=4)
    state = replace(state, custom_vehicles=(bike,), custom_pilots=(plain,))
    for rid in racer_ids:
        state = state.with_racer(replace(racer(state, rid), vehicle=bike.id, pilot=plain.id))
    return state


def test_vehicle_weapons_bear_only_the_way_they_face_and_cost_no_piloting_penalty():
    """Seed: "You can't attack backwards with forward facing vehicle weapons and vice versa"; the -2/-5
    penalty is for hand weapons; a reaction to being passed may use weapons that "can attack sideways"."""
    bike = armed_vehicle(FRONT_GUN, TAIL_GUN, SIDE_GUN)
    state = turn_of(on_gunbike(race(seat("ann", 400), seat("bob", 400), seat("cy", 400), track="outlaw_gauntlet"),
                               "r2", bike=bike), "r2")
    refused(state, "bob", Act("attack", target="r1", weapon="tail dart"), BadOption, "bear ahead")
    ahead, events = apply(state, "bob", Act("attack", target="r1"))
    assert roll(events, "attack with the nose cannon", "bob") and racer(ahead, "r2").penalty == 0
    behind, events = apply(state, "bob", Act("attack", target="r3"))
    assert roll(events, "attack with the tail dart", "bob") and racer(behind, "r2").penalty == 0
    no_gun = on_gunbike(race(seat("ann", 400), seat("bob", 400), track="outlaw_gauntlet"), "r2",
                        bike=armed_vehicle())
    refused(turn_of(no_gun, "r2"), "bob", Act("attack"), BadOption, "No weapon")
    passing = on_gunbike(race(seat("ann", 420), seat("bob", 420), track="outlaw_gauntlet"), "r1", bike=bike)
    passing, _ = apply(turn_of(passing, "r2"), "bob", Act("pass"))
    passed, events = apply(passing, "ann", React("attack"))
    assert roll(events, "attack with the side gun", "ann") and racer(passed, "r1").penalty == 2   # "still -2"


def test_a_loud_vehicle_weapon_faces_the_judges_at_disadvantage_a_quiet_one_does_not():
    """Seed: "If the attacks were made with loud weapons ... Deception check is made with disadvantage"."""
    bike = armed_vehicle(FRONT_GUN, {**TAIL_GUN, "facing": "forward", "name": "quiet dart"})
    for weapon, loud in (("nose cannon", True), ("quiet dart", False)):
        state = turn_of(on_gunbike(race(seat("ann", 400), seat("bob", 400), track="dune_sea"), "r2", bike=bike), "r2")
        _after, events = apply(state, "bob", Act("attack", target="r1", weapon=weapon))
        assert roll(events, "Deception against the judges", "bob").edge == (-1 if loud else 0)


def test_a_force_user_may_study_the_line_with_wisdom_or_charisma():
    """Seed, Savvy: "force users can attempt to make Wisdom or Charisma check, instead of Intelligence"
    (ruling: a force user the data marks uses the best of the three)."""
    sage = pilot("sage", int=10, wis=18, cha=12, force_user=True)
    plain = pilot("plain", int=10, wis=18, cha=12)
    for spec, expected in ((sage, ("Wisdom (savvy)", ("Wis", 4))), (plain, ("Intelligence (savvy)", ("Int", 0)))):
        state = race("ann", "bob", custom_pilots=(spec,))
        state = state.with_racer(replace(racer(state, "r2"), pilot=spec.id))
        _after, events = apply(state, "bob", Act("savvy"))
        (rolled,) = [e for e in events if isinstance(e, ev.DiceRolled) and e.purpose.endswith("(savvy)")]
        assert (rolled.purpose, rolled.modifiers[0]) == expected


def test_patching_needs_a_kit_and_another_kit_a_seated_gms_approval():
    """Seed, Patch: "You must have Mechanic's kit on hand ... Other kits and tools may serve for the purpose
    of this action, subject to GM's approval"."""
    for kit in ("none", "other"):
        spec = pilot(kit, kit=kit)
        for gm in (False, True):
            state = race("ann", "bob", custom_pilots=(spec,), gm=gm)
            state = state.with_racer(replace(racer(state, "r2"), pilot=spec.id))
            if kit == "none":
                refused(state, "bob", Act("patch"), BadOption, "mechanic's kit")
                continue
            after, events = apply(state, "bob", Act("patch"))
            if gm:
                assert after.phase == Phase.APPROVAL and RULESET.acting_players(after) == (GM,)
                after, events = apply(after, GM, GmRule(True))
            assert roll(events, "Mechanic's kit (patch)", "bob")


def test_an_explosive_is_a_dexterity_save_with_1_per_10_kmh_apart_and_counts_as_loud_by_its_data():
    """Seed: "the opponent gains +1 to Armor Class and Dexterity saving throws against your attacks" for
    each 10 km/h; "Explosives count as loud weapons if they produce a visible effect" (the data's `loud`).
    FOUND (5e): a made save halves the damage."""
    grenade = {"name": "thermal charge", "facing": "any", "dice": 3, "die": 6, "save": 13, "loud": True}
    bike = armed_vehicle(grenade)
    seen = set()
    for seed in range(1, 41):
        state = turn_of(on_gunbike(race(seat("ann", 430, hp=500), seat("bob", 400), track="dune_sea", seed=seed),
                                   "r2", bike=bike), "r2")
        after, events = apply(state, "bob", Act("attack", target="r1"))
        saved = roll(events, "Dexterity save against the thermal charge", "ann")
        assert saved.modifiers == (("Dex save", 4), ("speed apart", 3)) and not rolls(events, "attack with")
        hurt = roll(events, "thermal charge damage")
        made = saved.total >= 13
        assert damage_to(events, "ann") == (hurt.total // 2 if made else hurt.total)
        assert roll(events, "Deception against the judges", "bob").edge == -1    # loud, on an illegal track
        seen.add(made_at(made, saved.total))
    saw(seen, "made at 13", "missed at 12")


# --- hazards -------------------------------------------------------------------------------------
@pytest.mark.parametrize("league, dice", [("rookie", 1), ("pro", 2), ("champion", 4), ("legend", 10)])
def test_railing_does_setback_damage_by_the_leagues_row(monkeypatch, league, dice):
    """Seed: railing: "damage as appropriate for Setback for a particular tier of play" (4.2.1: the league's row)."""
    _before, after, events = hit(custom_track(monkeypatch, {"name": "Rail", "type": "curved", "hazard": RAIL},
                                              league=league))
    hurt = roll(events, "setback damage")
    assert hurt.dice == f"{dice}d10" and len(hurt.faces) == dice and hurt.total == sum(hurt.faces)
    assert [e.hazard for e in of(events, ev.HazardHit)] == ["railing"]
    assert_damage_slows(events, after, hurt)


def test_a_spiked_wall_does_deadly_damage(monkeypatch):
    """Seed: spiked wall: "Vehicle suffers damage as appropriate for Deadly for a particular tier of play"."""
    spikes = {"name": "Spikes", "type": "curved", "hazard": {"kind": "spiked_wall", "severity": "deadly"}}
    _before, after, events = hit(custom_track(monkeypatch, spikes))
    hurt = roll(events, "deadly damage")
    assert hurt.dice == "4d10"
    assert_damage_slows(events, after, hurt)


@pytest.mark.parametrize("track, section, altitude", hazards_walk("railing"))
def test_a_railing_on_a_sample_track_does_the_leagues_setback_damage(track, section, altitude):
    """Seed: "Railing ... Vehicle suffers damage as appropriate for Setback" (4.2.5: the track league's row)."""
    met_hazard(track, section, altitude, "railing", "setback")


@pytest.mark.parametrize("track, section, altitude", hazards_walk("coarse wall"))
def test_a_coarse_wall_does_dangerous_damage_and_d4_x_10_speed(track, section, altitude):
    """Seed: coarse wall: damage "for Dangerous ... and loses some extra d4 x 10 km/h of speed"."""
    met_hazard(track, section, altitude, "coarse wall", "dangerous", speed_die=4)


@pytest.mark.parametrize("track, section, altitude", hazards_walk("jungle"))
def test_difficult_terrain_costs_the_die_x_10_speed(track, section, altitude):
    """Seed: difficult terrain: "Vehicle loses d6 to d12 x 10 km/h of speed" (Hard Curves: jungle, d8)."""
    met_hazard(track, section, altitude, "jungle", speed_die=8)


def test_a_ditch_costs_d8_places_at_the_speed_of_the_racer_ahead(monkeypatch):
    """Seed: ditch: "loses d8 positions ... with speed equal to that of the vehicle it is set after"."""
    track = custom_track(monkeypatch, {"name": "Ditch", "type": "curved", "hazard": {"kind": "ditch"}})
    speeds = (500, 480, 460, 440, 420)
    seen = set()
    for seed in range(1, 21):
        state = race(*(seat(p, s) for p, s in zip(("ann", "bob", "cy", "dee", "eve"), speeds)), track=track,
                     seed=seed)
        after, events = checks.hit_hazard(state, "r1")
        lost = roll(events, "places lost").faces[0]
        place = min(1 + lost, 5)
        others = ("r2", "r3", "r4", "r5")
        assert places(after) == others[:place - 1] + ("r1",) + others[place - 1:]
        assert racer(after, "r1").speed == speeds[place - 1]
        seen.add("to the last" if 1 + lost >= 5 else "d8 places")
    saw(seen, "to the last", "d8 places")


@pytest.mark.parametrize("track, section, altitude", hazards_walk("the deep"))
def test_a_deep_trench_ends_the_race(track, section, altitude):
    """Seed: deep trench: "Even if the racer survives the fall, they are out of the race"."""
    met_hazard(track, section, altitude, "the deep", then="out")


@pytest.mark.parametrize("track, section, altitude", hazards_walk("banthas"))
def test_traffic_is_deadly_and_rejoins_last_at_300(track, section, altitude):
    """Seed: traffic "should be deadly"; 4.2.5 Minefield: banthas 4d10, "then rejoin last at 300 km/h"."""
    met_hazard(track, section, altitude, "banthas", "deadly", then="last")


@pytest.mark.parametrize("track, section, name", sections_walk())
def test_above_the_hazard_height_the_secondary_hazard_applies(track, section, name):
    """Ruling 4.2.4 rule 4: above the hazard's height the secondary hazard listed, else the wall hazard."""
    assert {alt: [e.hazard for e in of(hit(track, section, alt)[2], ev.HazardHit)]
            for alt in SAMPLES[name].hazards} == {alt: [what] for alt, what in SAMPLES[name].hazards.items()}


STORMS = [pytest.param(t, n, SAMPLES[s.name].strike, id=f"{t}-{s.name}") for t, n, s in every_section()
          if SAMPLES[s.name].strike]


@pytest.mark.parametrize("track, section, strike", STORMS)
def test_a_storm_strikes_those_inside_it_who_fail_a_dexterity_save(track, section, strike):
    """Seed: "Storm involves ... lightning strikes or flying debris" (Dex save DC 15 for 1d8; 4.2.4 rules 7, 8)."""
    altitude, what, die, dc = strike
    seen = set()
    for seed in range(1, 21):
        state = race(seat("ann", 400, altitude, hp=100), seat("bob", 400, altitude - 1, hp=100), track=track,
                     section=section, seed=seed)
        after, events = flow.close_section(state)
        save = roll(events, "Dexterity save", "ann")
        struck = save.total < dc
        assert mod(save, "Dex save") == 4 and not rolls(events, "Dexterity save", "bob")
        strikes = rolls(events, f"{what} damage")
        assert len(strikes) == struck and racer(after, "r2").hp == 100
        if struck:
            assert strikes[0].dice == f"1d{die}" and racer(after, "r1").hp == 100 - strikes[0].total
        seen.add("struck" if struck else "saved")
    saw(seen, "struck", "saved")


# --- features ------------------------------------------------------------------------------------
FEATURE = "track, section, stage, index, feature, sample"


@pytest.mark.parametrize(FEATURE, features_walk("boost"))
def test_a_boost_strip_adds_its_speed_on_contact(track, section, stage, index, feature, sample):
    """Seed: "Boost strip. This beneficial feature increases a vehicle's speed by a set amount" (4.2.6 rule 6)."""
    seen = set()
    for altitude, dc in feature_dcs(feature, sample).items():
        for seed in SEEDS:
            state = at_feature(track, section, stage, index, seat("ann", 525, altitude), seat("bob", altitude=altitude),
                               seed=seed)
            after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
            check = roll(events, "Piloting check for the boost strip", "ann")
            contact = check.total >= dc
            assert check.total == check.faces[0] and not rolls(events, "Piloting", "bob")    # +4, and -4 at 525
            assert racer(after, "r1").speed == 525 + feature.speed * contact and racer(after, "r2").speed == 300
            seen.add(f"{'made' if contact else 'missed'} at {altitude} m")
    saw(seen, "made at 1 m", "missed at 1 m", "made at 10 m", "missed at 10 m")


@pytest.mark.parametrize(FEATURE, features_walk("boost_trap"))
def test_a_boost_trap_is_seen_by_passive_perception_and_throws_at_the_hazard_with_disadvantage(
        track, section, stage, index, feature, sample):
    """Seed: a boost trap: "Piloting check as at the beginning of the section at the new speed with a Disadvantage"."""
    state = race("ann", seat("bob", pilot=BLIND), track=track, section=section, gm=True, phase=Phase.GM)
    state, _ = apply(state, GM, GmReveal())
    seen_by = (f"{section}:{index}",)    # the Rookie's passive Perception 13 meets detect 13; 12 does not
    assert (racer(state, "r1").sees_traps, racer(state, "r2").sees_traps) == (seen_by, ())
    dangerous = SEVERITY_DICE[data.track(track).league]["dangerous"]
    seen = set()
    for altitude, dc in feature_dcs(feature, sample).items():
        for seed in SEEDS:
            state = at_feature(track, section, stage, index, seat("ann", 700, altitude, hp=500),
                               seat("bob", altitude=altitude), seed=seed)
            after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
            if roll(events, "Piloting check for the boost strip", "ann").total < dc:
                assert racer(after, "r1").speed == 700 and not rolls(events, "Piloting check again")
                seen.add(f"missed at {altitude} m")
                continue
            boost = [e for e in of(events, ev.SpeedChanged, "ann") if e.why == "hits a boost trap"][0]
            again = roll(events, "Piloting check again", "ann")
            assert (boost.before, boost.after) == (700, 700 + feature.speed) and mod(again, "speed") == -9
            assert len(again.faces) == 2 and again.edge == -1 and adds_up(again)
            thrown = again.total < sample.conditions[altitude]    # the straight's DC 0 and its conditions
            assert [e.hazard for e in of(events, ev.HazardHit)] == (["coarse wall"] if thrown else [])
            if thrown:
                hurt = roll(events, "dangerous damage")
                assert hurt.dice == f"{dangerous}d10" and roll(events, "speed lost").dice == "d4 x 10"
                assert_damage_slows(events, after, hurt, roll(events, "speed lost").total, speed=780)
            else:
                assert (racer(after, "r1").speed, racer(after, "r1").hp) == (780, 500)
            seen.add(f"{'thrown' if thrown else 'held'} at {altitude} m")
    saw(seen, *(f"{b} at {alt} m" for b in ("missed", "thrown", "held") for alt in (1, 10)))


@pytest.mark.parametrize(FEATURE, features_walk("boost_trap"))
def test_a_racer_who_sees_a_boost_trap_reads_it_on_their_own_button(track, section, stage, index, feature, sample):
    """Seed: "Pilots with high enough passive perception might see the foul": the racer who sees it reads it on
    their own button (Race's choices are offered only privately); one who does not reads a boost strip."""
    state = at_feature(track, section, stage, index, seat("ann"), seat("bob"))
    key = flow.trap_key(state.section, flow.feature_index(state))
    state = replace(state, racers=tuple(replace(r, sees_traps=(key,)) if r.id == "r1" else r for r in state.racers))
    labels = {player: RULESET.legal_actions(state, player)[0].label for player in ("ann", "bob")}
    assert labels == {"ann": "Go for the boost strip: you see it is a trap", "bob": "Go for the boost strip"}


@pytest.mark.parametrize(FEATURE, features_walk("trampoline"))
def test_a_trampoline_lifts_costs_speed_and_halves_the_gap(track, section, stage, index, feature, sample):
    """Seed: "gains listed altitude and loses the same amount of speed ... the gap's speed requirement is halved"."""
    _from, what, _die, save_dc = sample.strike
    seen = set()
    for altitude, dc in feature_dcs(feature, sample).items():
        for seed in SEEDS:
            state = at_feature(track, section, stage, index, seat("ann", 390, altitude, hp=500), seat("bob", 500),
                               seed=seed)
            after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
            made = roll(events, "Piloting check for the trampoline", "ann").total >= dc
            bounce = [(e.before, e.after) for e in of(events, ev.SpeedChanged, "ann") if e.why.startswith("bounces")]
            ann = racer(after, "r1")
            assert not racer(after, "r2").out    # bob left it: 500 km/h clears the whole 400
            if made:    # 380 clears the halved 200; 10 m up is in the storm from 10 m (ruling 4.2.4 rule 6)
                assert bounce == [(390, 390 - feature.speed)] and (ann.altitude, ann.out) == (
                    altitude + feature.altitude, "")
                struck = roll(events, "Dexterity save", "ann").total < save_dc
                assert ann.hp == 500 - (roll(events, f"{what} damage").total if struck else 0)
                assert struck or ann.bonus == 0    # ruling 4.2.6 rule 6: a climb earns no bonus
            else:    # 390 is short of 400
                assert not bounce and ann.out == "disqualified" and not rolls(events, "Dexterity save", "ann")
            seen.add(f"{'bounced' if made else 'missed'} at {altitude} m")
    saw(seen, "bounced at 1 m", "missed at 1 m", "bounced at 10 m", "missed at 10 m")


@pytest.mark.parametrize(FEATURE, features_walk("gap"))
def test_a_gap_needs_its_speed_or_the_racer_falls(track, section, stage, index, feature, sample):
    """Seed: "Gap. Unless a vehicle has a listed amount of speed it falls down and is disqualified from the race"."""
    need = feature.speed    # 400, or half after the trampoline
    state = at_feature(track, section, stage, index, seat("ann", need + 50), seat("bob", need), seat("cy", need - 1),
                       seat("dee", 300, sprung=True), seat("eve", 300))
    after, events = answer_all(state, TryFeature(False))
    assert {r.name: r.out for r in after.racers} == {"ann": "", "bob": "", "cy": "disqualified", "dee": "",
                                                     "eve": "disqualified"}
    assert [e.name for e in of(events, ev.FeatureMet) if e.feature == "the gap"] == ["ann", "bob", "cy", "dee", "eve"]


@pytest.mark.parametrize(FEATURE, features_walk("mines"))
def test_mines_damage_those_who_do_not_avoid_them(track, section, stage, index, feature, sample):
    """Seed: mines "can subject vehicles to damage"; "Racers can opt not to try to avoid a negative feature"."""
    seen = set()
    for altitude, dc in feature_dcs(feature, sample).items():
        for seed in range(1, 21):
            state = at_feature(track, section, stage, index, seat("ann", altitude=altitude, hp=100),
                               seat("bob", hp=100), seed=seed)
            after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
            avoided = roll(events, "Piloting check for the mines", "ann").total >= dc
            blasts = {e.who: e for e in rolls(events, "mine damage")}
            assert blasts["bob"].dice == f"{feature.dice}d{feature.die}"
            assert racer(after, "r2").hp == 100 - blasts["bob"].total
            assert not rolls(events, "Piloting", "bob") and ("ann" in blasts) is not avoided
            assert racer(after, "r1").hp == 100 - (0 if avoided else blasts["ann"].total)
            seen.add(f"{'avoided' if avoided else 'hit'} at {altitude} m")
    saw(seen, "avoided at 1 m", "hit at 1 m", "avoided at 10 m", "hit at 10 m")


@pytest.mark.parametrize(FEATURE, features_walk("magnetic"))
def test_magnetic_rubble_drags_speed_away(track, section, stage, index, feature, sample):
    """Seed: magnetic rubble can "reduce their speed and might force them to be passed" (Gentle Curves: 30 km/h)."""
    seen = set()
    for altitude, dc in feature_dcs(feature, sample).items():
        for seed in range(1, 21):
            state = at_feature(track, section, stage, index, seat("ann", 400, altitude), seat("bob", 310),
                               seat("cy", 400), seed=seed)
            after, events = answer_all(state, TryFeature(True), bob=TryFeature(False), cy=TryFeature(False))
            avoided = roll(events, "Piloting check for the magnetic rubble", "ann").total >= dc
            dragged = (400 - feature.speed, 2)    # 30 km/h lost: +2 on the next check
            assert (racer(after, "r1").speed, racer(after, "r1").bonus) == ((400, 0) if avoided else dragged)
            assert (racer(after, "r3").speed, racer(after, "r3").bonus) == dragged
            assert racer(after, "r2").speed == 300 and of(events, ev.FellBehind, "bob")[0].passed_by == "cy"
            seen.add(f"{'avoided' if avoided else 'dragged'} at {altitude} m")
    saw(seen, "avoided at 1 m", "dragged at 1 m", "avoided at 10 m", "dragged at 10 m")


def test_features_resolve_first_to_last_and_racers_may_decline():
    """Seed: "racers resolve those features in the move order from first to last"; one may decline."""
    state = at_feature("dune_sea", 0, "before", 0, "ann", "bob", "cy", order=("r3", "r1", "r2"))
    after, events = answer_all(state, TryFeature(True), ann=TryFeature(False))
    named = [getattr(e, "who", getattr(e, "name", None)) for e in events]
    assert sorted(set(named), key=named.index) == ["cy", "ann", "bob"]
    assert [e.who for e in rolls(events, "Piloting")] == ["cy", "bob"]
    assert of(events, ev.FeatureMet, "ann")[0].result == "stays clear" and racer(after, "r1").speed == 300
    assert (after.phase, after.feature, set(RULESET.acting_players(after))) == (Phase.FEATURE, 1, {"ann", "bob", "cy"})


# --- the action phase ----------------------------------------------------------------------------
def test_the_action_phase_runs_last_to_first_in_an_order_fixed_at_its_start():
    """Seed: "Racers act in the move order from last to first" (4.2.4 rule 12: fixed at the phase's start)."""
    state = race("ann", "bob", seat("cy", 350), section=1, phase=Phase.ACCELERATE)    # Gentle Curves: no feature
    state, _ = answer_all(state, Throttle(False))
    assert (state.phase, state.action_order, RULESET.acting_players(state)) == (Phase.ACTION, ("r3", "r2", "r1"),
                                                                                ("cy",))
    state, _ = play(state, ("cy", Act("pass")), ("bob", React("none")))
    assert places(state) == ("r1", "r3", "r2") and RULESET.acting_players(state) == ("bob",)
    state, _ = apply(state, "bob", Act("none"))
    assert RULESET.acting_players(state) == ("ann",)


def test_show_off_is_piloting_against_the_dc_plus_place_and_performance_only_in_first():
    """Seed: "Piloting check vs. DC equal section DC plus your position"; first place may try "a Performance check"."""
    for seed in (1, 2, 3):
        for place in (1, 2, 3):
            total = roll(show_off(seed, place)[2], "Piloting (show off)").total
            for shift, verdict in ((total - place, "made it"), (total - place + 1, "missed")):
                before, after, events = show_off(seed, place, shift)
                assert roll(events, "Piloting (show off)").verdict == verdict
                if place > 1 or verdict == "made it":
                    assert bool(rolls(events, "Performance")) is (place == 1)
                assert places(after) == places(before)
                assert [(r.speed, r.hp) for r in after.racers] == [(r.speed, r.hp) for r in before.racers]


def test_show_off_in_first_place_may_try_performance_even_after_a_missed_check():
    """Seed: "If you occupy the first place in your move order, you may attempt a Performance check"."""
    total = roll(show_off(1, 1)[2], "Piloting (show off)").total
    _before, _after, events = show_off(1, 1, total)    # DC one above the total: missed
    assert roll(events, "Piloting (show off)").verdict == "missed"
    assert rolls(events, "Performance")


def test_savvy_gives_advantage_on_the_next_sections_check():
    """Seed: "Intelligence check vs. DC of the next section. If you succeed, you get Advantage" on its check."""
    seen = set()
    for seed in range(1, 61):
        state = race("ann", "bob", seed=seed, dc_changes=((1, 10),))    # Gentle Curves next, at DC 15
        state, events = apply(state, "bob", Act("savvy"))
        check = roll(events, "Intelligence (savvy)")
        made = check.total >= 15
        assert check.modifiers == (("Int", 2),) and racer(state, "r2").advantage is made
        state, _ = apply(state, "ann", Act("none"))
        assert (state.section, state.phase) == (1, Phase.PREPARE)
        state, events = answer_all(state, Prepare())
        assert roll(events, "Piloting check for the section", "bob").edge == int(made)
        assert roll(events, "Piloting check for the section", "ann").edge == 0
        assert not racer(state, "r2").advantage
        seen.add(made_at(made, check.total))
    saw(seen, "made at 15", "missed at 14")


def test_savvy_advantage_does_not_outlive_the_next_section():
    """Seed: Savvy gives "Advantage on Piloting check to pass the next section" (that one, not a later one)."""
    state = race("ann", "bob", section=3)    # Hard Curves; next the Boost Run, no check at 1 m
    state, events = apply(state, "bob", Act("savvy"))
    made = roll(events, "Intelligence (savvy)").total >= 0
    assert racer(state, "r2").advantage is made
    state, _ = apply(state, "ann", Act("none"))
    assert not racer(state, "r2").advantage and state.phase == Phase.ACCELERATE   # unused on the Boost Run
    state, _ = answer_all(state, Throttle(False))
    for _ in range(2):
        state, _ = answer_all(state, TryFeature(False))
    state, _ = play(state, ("bob", Act("none")), ("ann", Act("none")))
    state, events = answer_all(state, Prepare())    # Gentle Curves, two sections after the Savvy
    assert roll(events, "Piloting check for the section", "bob").edge == 0


def test_patch_is_against_15_plus_tier_and_adds_the_hull_die():
    """Seed: "vs. a DC equal to 15 plus vehicle's Tier. On success, roll vehicle's Hit Die and add it" to its HP."""
    seen = set()
    for seed in range(1, 61):
        for vehicle, dc, die, top in (("racing_swoop", 15, 6, 14), ("podracer", 16, 8, 39)):
            for hp in (3, top - 1):
                state = turn_of(race(seat("ann", vehicle=vehicle, hp=hp), "bob", seed=seed), "r1")
                after, events = apply(state, "ann", Act("patch"))
                check = roll(events, "Mechanic's kit (patch)")
                made = check.total >= dc
                heal = next_faces(DiceState(seed, 1), die)[0] if made else 0    # the roll after the d20
                assert mod(check, "Mechanic") == 4 and racer(after, "r1").hp == min(top, hp + heal)
                seen.add(f"{vehicle} {'made' if made else 'missed'} at {check.total}")
    saw(seen, "racing_swoop made at 15", "racing_swoop missed at 14", "podracer made at 16", "podracer missed at 15")


def test_turbo_boost_adds_strength_x_10_and_damages_by_strength_minus_con_without_slowing():
    """Seed: Strength roll x 10 to speed, "Subtract the latter from the former" as damage that "does not slow"."""
    seen = set()
    for seed in range(1, 21):
        after, events = apply(turn_of(race(seat("ann", 525), "bob", seed=seed), "r1"), "ann", Act("turbo"))
        push, hold = roll(events, "Vehicle Roll (Strength)"), roll(events, "Vehicle Roll (Constitution)")
        assert (push.dice, hold.dice) == ("d10", "d4")
        assert racer(after, "r1").speed == 525 + 10 * push.total
        assert racer(after, "r1").hp == 14 - max(0, push.total - hold.total)
        seen.add("hurt" if push.total > hold.total else "unhurt")
    saw(seen, "hurt", "unhurt")


def test_emergency_brake_matches_the_speed_behind_and_forces_a_pass_with_disadvantage():
    """Seed: "speed becomes equal to that of the next one after you"; it must "Pass ... with Disadvantage"."""
    seen = set()
    for seed in SEEDS:
        state = turn_of(race(seat("ann", 400), seat("bob", 350), "cy", seed=seed), "r1")
        state, _ = apply(state, "ann", Act("emergency_brake"))
        assert (racer(state, "r1").speed, racer(state, "r1").bonus, state.pending.kind) == (350, 2, "forced_pass")
        assert RULESET.acting_players(state) == ("ann",)
        if seed == 1:    # unopposed, the forced pass passes
            unopposed, events = apply(state, "ann", React("none"))
            assert places(unopposed) == ("r2", "r1", "r3") and not rolls(events, "Piloting")
        state, events = apply(state, "ann", React("block"))
        forced, blocker = roll(events, "Piloting (forced pass)", "bob"), roll(events, "Piloting against bob", "ann")
        assert len(forced.faces) == 2 and forced.edge == -1 and adds_up(forced)
        assert (mod(forced, "speed over"), mod(blocker, "speed lost")) == (0, 2)
        outcome = branch(forced.total, blocker.total)
        # higher passes; a tie: bob does not pass and ann matches his 350; lower: bob drops to ann's 350 - 10
        assert (places(state), racer(state, "r1").speed, racer(state, "r2").speed) == {
            "higher": (("r2", "r1", "r3"), 350, 350), "tie": (("r1", "r2", "r3"), 350, 350),
            "lower": (("r1", "r2", "r3"), 350, 340)}[outcome]
        assert racer(state, "r2").bonus == (outcome == "lower")
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")
    for state, who in ((turn_of(race("ann", seat("bob", 350)), "r1"), "ann"), (race("ann", "bob"), "bob")):
        refused(state, who, Act("emergency_brake"), BadOption)    # the racer behind is faster; nobody behind


def test_a_pass_gains_1_per_10_kmh_higher_passes_a_tie_does_not_and_no_pass_on_a_faster_racer():
    """Seed: "higher, you pass"; "equal ... you do not pass"; +1 per 10 km/h; "can't ... pass" a faster one."""
    seen = set()
    for after, ours, theirs in pass_sweep():
        assert (mod(ours, "speed over"), mod(theirs, "speed over")) == (4, 0)
        assert places(after) == (("r2", "r1") if ours.total > theirs.total else ("r1", "r2"))
        seen.add(branch(ours.total, theirs.total))
    saw(seen, "higher", "tie", "lower")
    state, events = play(race(seat("ann", 400), seat("bob", 440)), ("bob", Act("pass")), ("ann", React("none")))
    assert places(state) == ("r2", "r1") and not rolls(events, "Piloting")    # ruling: unopposed, it passes
    refused(race(seat("ann", 410), seat("bob", 400)), "bob", Act("pass"), BadOption, match="slower")


def test_block_slows_a_failed_passer_to_the_blockers_speed_minus_10_and_a_tie_matches_speeds():
    """Seed, Block: "His speed becomes equal to your speed minus 10 km/h"; on a tie "you match his speed"."""
    seen = set()
    for after, ours, theirs in pass_sweep():
        outcome = branch(ours.total, theirs.total)
        expected = {"higher": (400, 440), "tie": (440, 440), "lower": (400, 390)}[outcome]
        assert (racer(after, "r1").speed, racer(after, "r2").speed) == expected
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")


def test_a_side_sweep_answering_a_pass_sweeps_whoever_rolls_lower():
    """Seed: a passed racer may "Side Sweep": higher sweeps the other into the hazard, a tie harms nobody."""
    seen = set()
    for after, ours, theirs in pass_sweep("sweep"):
        assert (mod(ours, "speed over"), mod(theirs, "speed over")) == (4, 4)
        outcome = branch(ours.total, theirs.total)
        assert places(after) == (("r2", "r1") if outcome == "higher" else ("r1", "r2"))
        if outcome == "tie":    # "don't suffer any negative consequences": nobody swept, slowed or hurt
            assert (after.phase, after.pending) == (Phase.ACTION, None)
            assert [(r.speed, r.hp, r.bonus) for r in after.racers] == [(400, 14, 0), (440, 14, 0)]
        else:    # the sweeper lost its own sweep, or swept the passer aside
            swept, beaten_by = ("r1", ours.total) if outcome == "higher" else ("r2", theirs.total)
            assert (after.phase, after.pending.target, after.pending.roll) == (Phase.STABILIZE, swept, beaten_by)
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")


def test_a_ram_hurts_by_the_con_rolls_difference_plus_1_and_the_speed_bonus():
    """Seed, Ram: the lower Constitution roll takes the difference; the rammed "1 point ... plus" the speed bonus."""
    seen = set()
    for seed in SEEDS:
        _after, events = ramming(seed)    # 50 km/h faster: +5; ann does not dodge, so it rams
        mine, theirs = rolls(events, "Vehicle Roll (Constitution)")[:2]
        assert named(events, "rams") and not rolls(events, "Piloting")
        assert (mine.who, mine.dice, theirs.who, theirs.dice) == ("bob", "d4", "ann", "d8")
        assert damage_to(events, "bob") == max(0, theirs.total - mine.total)
        assert damage_to(events, "ann") == max(0, mine.total - theirs.total) + 1 + 5    # a tie: just 1 + 5
        seen.add(branch(mine.total, theirs.total))
    saw(seen, "higher", "tie", "lower")
    refused(race(seat("ann", 410), seat("bob", 400)), "bob", Act("ram"), BadOption, match="slower")


@pytest.mark.parametrize("brake", [False, True])
def test_a_dodge_may_brake_for_a_bonus_and_a_dodged_ram_does_nothing(brake):
    """Seed, Ram: "If your Piloting roll is higher, you ram"; Dodge: "You can opt to break ... to gain a bonus"."""
    seen = set()
    for seed in range(1, 121):
        after, events = ramming(seed, reaction="dodge", brake=brake, ahead=400, behind=420)
        ours, theirs = roll(events, "Piloting (ram)"), roll(events, "Piloting against")
        dex = rolls(events, "Vehicle Roll (Dexterity)", "ann")
        assert bool(dex) is brake
        braked = dex[0].total if brake else 0    # 10 km/h a face
        assert mod(theirs, "speed lost") == (0 if not brake else 2 if braked >= 2 else 1)
        assert mod(ours, "speed over") == 2    # ruling: the speed bob had over ann when he rammed
        outcome = branch(ours.total, theirs.total)
        assert bool(named(events, "rams")) is (outcome == "higher")
        if outcome != "higher":    # a tie fails the ram too: nobody hurt
            assert named(events, "fails to ram") and not rolls(events, "Vehicle Roll (Constitution)")
            assert [r.hp for r in after.racers] == [200, 200]
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")


def test_a_side_sweep_throws_into_the_hazard_and_stabilizing_brakes_20_and_rolls_dex():
    """Seed: a sweep throws "into the section's hazard"; stabilize: "lose 20 km/h ... Vehicle Roll (Dexterity)"."""
    seen = set()
    for seed in range(1, 151):
        state = turn_of(race(seat("ann", 300), seat("bob", 350), seed=seed), "r1")
        state, events = play(state, ("ann", Act("sweep")), ("bob", React("dodge")))
        ours, theirs = roll(events, "Piloting (side sweep)"), roll(events, "Piloting against")
        outcome = branch(ours.total, theirs.total)
        assert mod(ours, "speed over") == 5    # bob is 50 km/h faster
        if outcome == "tie":
            assert (state.phase, state.pending) == (Phase.ACTION, None) and not of(events, ev.HazardHit)
        else:
            swept, beaten_by = ("r2", ours.total) if outcome == "higher" else ("r1", theirs.total)
            assert (state.phase, state.pending.target, state.pending.roll) == (Phase.STABILIZE, swept, beaten_by)
            assert RULESET.acting_players(state) == (racer(state, swept).owner,)
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")
    for seed in range(1, 6):    # undodged, the sweep throws bob, against ann's own total
        state = turn_of(race(seat("ann", 300), seat("bob", 350), seed=seed), "r1")
        state, events = play(state, ("ann", Act("sweep")), ("bob", React("none")))
        ours = roll(events, "Piloting (side sweep)")
        assert not rolls(events, "Piloting against") and mod(ours, "speed under") == 5
        assert (state.phase, state.pending.target, state.pending.roll) == (Phase.STABILIZE, "r2", ours.total)
    for seed in range(1, 11):
        face = next_faces(DiceState(seed), 10)[0]    # bob's Vehicle Roll (Dexterity): a racing swoop's d10
        for needed, held in ((face, True), (face + 1, False)):    # "higher or equal ... stabilizes"
            state = race("ann", seat("bob", 350, hp=100), seed=seed, phase=Phase.STABILIZE,
                         pending=Pending("stabilize", "r1", "r2", roll=needed))
            after, events = apply(state, "bob", Stabilize(True))
            braked = of(events, ev.SpeedChanged, "bob")[0]
            assert roll(events, "Vehicle Roll (Dexterity)", "bob").total == face
            assert (braked.before, braked.after) == (350, 330) and bool(of(events, ev.HazardHit, "bob")) is not held
            assert racer(after, "r2").hp == (100 if held else 100 - roll(events, "setback damage").total)
        after, events = apply(state, "bob", Stabilize(False))
        assert of(events, ev.HazardHit, "bob") and not rolls(events, "Vehicle Roll (Dexterity)")
    refused(turn_of(race(seat("ann", 350), "bob"), "r1"), "ann", Act("sweep"), BadOption, match="slower")


def test_a_dodgers_brake_earns_its_bonus_and_leaves_the_speed_edge_as_declared():
    """Dodge: "You can opt to break ... to gain a bonus"; ruling: the sweeper's "+1 for every 10 km/h" is the
    speed difference when the sweep was declared, so the brake gives the dodger its speed-loss bonus only."""
    for seed in range(1, 6):
        state = turn_of(race(seat("ann", 300), seat("bob", 350), seed=seed), "r1")
        _state, events = play(state, ("ann", Act("sweep")), ("bob", React("dodge", True)))
        braked = min(50, 10 * roll(events, "Vehicle Roll (Dexterity)", "bob").total)    # not below 300
        assert mod(roll(events, "Piloting (side sweep)"), "speed over") == 5
        assert mod(roll(events, "Piloting against"), "speed lost") == (2 if braked >= 20 else 1 if braked else 0)


def test_weapon_attacks_add_1_ac_per_10_kmh_cost_a_hand_weapon_penalty_and_may_be_answered():
    """Seed: "+1 to Armor Class" a 10 km/h; "-2 if you shoot forward and -5 if you shoot backward"; shot back."""
    seen = set()
    for seed in range(1, 101):
        state = race("ann", seat("bob", 350), track="outlaw_gauntlet", seed=seed)    # weapons legal
        state, events = apply(state, "bob", Act("attack"))
        shot = roll(events, "attack with", "bob")
        hit = shot.total >= 13 + 5    # a racing swoop's AC 13, +5 for 50 km/h
        assert shot.verdict == ("hit" if hit else "miss") and racer(state, "r2").penalty == 2
        assert damage_to(events, "ann") == (roll(events, "hold-out blaster damage").total if hit else 0)
        assert state.phase == Phase.REACTION and RULESET.acting_players(state) == ("ann",)
        seen.add(f"{'hit' if hit else 'miss'} at {shot.total}")
        if seed == 1:
            assert not rolls(apply(state, "ann", React("none"))[1], "attack with")    # he may not answer
        state, events = apply(state, "ann", React("attack"))
        back = roll(events, "attack with", "ann")
        answered = back.total >= 18
        assert back.verdict == ("hit" if answered else "miss") and racer(state, "r1").penalty == 5
        assert damage_to(events, "bob") == (roll(events, "hold-out blaster damage").total if answered else 0)
        seen.add(f"answered: {'hit' if answered else 'miss'}")
        _state, _total, check = checks.piloting(state, "r2", "the next check")
        assert mod(check, "hand weapon") == -2 and racer(_state, "r2").penalty == 0
    saw(seen, "hit at 18", "miss at 17", "answered: hit", "answered: miss")


def test_a_weapon_reaction_to_being_passed_costs_2_on_the_next_check():
    """Seed: "You still get -2 penalty check ... Using this reaction does not prevent you from being passed"."""
    seen = set()
    for seed in SEEDS:
        state, events = play(race("ann", seat("bob", 350), track="outlaw_gauntlet", seed=seed), ("bob", Act("pass")),
                             ("ann", React("attack")))
        shot = roll(events, "attack with", "ann")
        hit = shot.total >= 13 + 5
        assert shot.verdict == ("hit" if hit else "miss") and not rolls(events, "Piloting")
        assert damage_to(events, "bob") == (roll(events, "hold-out blaster damage").total if hit else 0)
        assert places(state) == ("r2", "r1") and racer(state, "r1").penalty == 2
        seen.add("hit" if hit else "miss")
    saw(seen, "hit", "miss")


@pytest.mark.parametrize("then", ["pass", "sweep"])
def test_a_feint_gives_advantage_or_hands_it_to_the_opponent(then):
    """Seed: Deception vs Insight: success "Advantage on your Piloting check", else "your opponent gains Advantage"."""
    seen = set()
    for seed in SEEDS:    # the veteran feints: ahead of him at a pass, behind him at a side sweep
        start = race("ann", seat("bob", pilot="veteran"), seed=seed) if then == "pass" else \
            turn_of(race(seat("ann", pilot="veteran"), seat("bob", 310), seed=seed), "r1")
        feinter, target, answer = ("bob", "ann", "block") if then == "pass" else ("ann", "bob", "dodge")
        state, events = play(start, (feinter, Act("feint", then)), (target, React(answer)))
        lie, insight = roll(events, "Deception (feint)"), roll(events, "Insight")
        assert (mod(lie, "Deception"), mod(insight, "Insight")) == (4, 3)
        outcome = branch(lie.total, insight.total)
        won = outcome == "higher"    # ruling: a tie is a failed feint
        assert named(events, "feints at")[0].result == ("fooled" if won else "seen through")
        ours, theirs = rolls(events, "Piloting (")[0], roll(events, "Piloting against")
        assert (ours.edge, theirs.edge) == ((1, 0) if won else (0, 1)) and adds_up(ours) and adds_up(theirs)
        seen.add(outcome)
    saw(seen, "higher", "tie", "lower")
    refused(turn_of(race("ann", "bob"), "r1"), "ann", Act("feint", "pass"), BadOption)    # nobody ahead to pass
    refused(race("ann", "bob"), "bob", Act("feint", "ram"), BadOption)    # 4.2.6 rule 4: a pass or a side sweep


def test_a_lost_feint_gives_the_opponent_advantage_on_an_attack_reaction():
    """Seed: after a failed feint "your opponent gains Advantage on his Piloting checks (or attack rolls)"."""
    for seed in SEEDS:
        state, events = apply(race("ann", "bob", track="outlaw_gauntlet", seed=seed), "bob", Act("feint", "pass"))
        if named(events, "feints at")[0].result == "seen through":
            break
    _state, events = apply(state, "ann", React("attack"))
    assert roll(events, "attack with", "ann").edge == 1


def test_an_illegal_ram_or_weapon_faces_the_judges_loud_weapons_at_disadvantage():
    """Seed: "Charisma (Deception) check vs. DC", failed: "disqualified"; loud weapons "with disadvantage"."""
    seen = set()
    for seed in SEEDS:
        state, events = apply(race("ann", seat("bob", 350), seed=seed), "bob", Act("attack"))
        judged = roll(events, "Deception against the judges", "bob")
        caught = judged.total < 12
        assert len(judged.faces) == 2 and judged.edge == -1 and adds_up(judged)    # a loud blaster
        assert racer(state, "r2").out == ("disqualified" if caught else "")
        seen.add("shot caught" if caught else "shot unseen")
        state, events = ramming(seed, track="cloud_city", reaction="dodge", rammer="veteran")
        judged = roll(events, "Deception against the judges", "bob")
        assert judged.edge == 0 and racer(state, "r2").out == ("disqualified" if judged.total < 15 else "")
        seen.add("rammed" if named(events, "rams") else "dodged")
        seen.add("ram caught" if judged.total < 15 else "ram unseen")
    saw(seen, "shot caught", "shot unseen", "rammed", "dodged", "ram caught", "ram unseen")
    quiet = pilot("quiet", int=14, piloting=4, sidearm={"name": "vibroknife", "attack": 4, "dice": 1, "die": 4,
                                                       "bonus": 2, "loud": False})
    _state, events = apply(race("ann", seat("bob", 350, pilot=quiet)), "bob", Act("attack"))
    assert roll(events, "Deception against the judges", "bob").edge == 0    # not a loud weapon
    assert not rolls(ramming(1)[1], "Deception against the judges")    # the Dune Sea allows ramming


@pytest.mark.parametrize("provoked_by", ["attack", "pass"])
def test_a_weapon_reaction_on_an_illegal_track_faces_the_judges_too(provoked_by):
    """Seed: illegal weapons: "If a racer attempts it anyway, regardless if they succeed or fail, they must make" it."""
    for seed in SEEDS:
        state, _ = apply(race("ann", seat("bob", 350), seed=seed), "bob", Act(provoked_by))    # the Dune Sea
        if state.phase == Phase.REACTION:    # bob was not disqualified: ann may answer
            break
    _state, events = apply(state, "ann", React("attack"))
    assert rolls(events, "Deception against the judges", "ann")


# --- dice, reactions, the finish -----------------------------------------------------------------
@pytest.mark.parametrize("adv, dis, count, keep", [(False, False, 1, max), (True, False, 2, max),
                                                   (False, True, 2, min), (True, True, 1, max)])
def test_advantage_and_disadvantage_never_stack_and_cancel(adv, dis, count, keep):
    """Found (5e, rules-gaps.md 4.1): advantage and disadvantage don't stack, and one of each cancels."""
    assert edge(adv, dis) == (0 if adv == dis else 1 if adv else -1)
    for seed in range(1, 11):
        state = race("ann", "bob", seed=seed)
        _state, total, rolled = d20(state, "ann", "test", (("bonus", 3),), adv, dis)
        assert rolled.faces == next_faces(state.dice, 20, count) and total == keep(rolled.faces) + 3


def test_the_target_chooses_its_own_reaction():
    """Seed, Pass: the passed racer "can attempt Block, Ram or Side Sweep reactions (his choice)"; Table 3."""
    state, _ = apply(race("ann", seat("bob", 310)), "bob", Act("pass"))
    assert state.phase == Phase.REACTION and RULESET.acting_players(state) == ("ann",)
    refused(state, "bob", React("none"), NotYourTurn)
    assert RULESET.legal_actions(state, "bob") == ()
    assert {a.action.reaction for a in RULESET.legal_actions(state, "ann")} == {"block", "sweep", "attack", "none"}
    assert apply(state, "ann", React("block"))[0].phase == Phase.ACTION
    for start, actor, action, answerer, allowed in (    # Table 3: the reactions each action allows
            (race("ann", seat("bob", 310)), "bob", Act("ram"), "ann", {"dodge", "none"}),
            (turn_of(race("ann", seat("bob", 310)), "r1"), "ann", Act("sweep"), "bob", {"dodge", "none"}),
            (race("ann", seat("bob", 310), track="outlaw_gauntlet"), "bob", Act("attack"), "ann", {"attack", "none"})):
        state, _ = apply(start, actor, action)
        assert RULESET.acting_players(state) == (answerer,)
        assert {a.action.reaction for a in RULESET.legal_actions(state, answerer)} == allowed
        refused(state, answerer, React("block"), BadOption)


def test_a_racer_reacts_once_a_section():
    """Ruling 4.2.4 rule 13: one action and one reaction per racer per section."""
    state, events = apply(race(seat("ann", reacted=True), seat("bob", 310)), "bob", Act("pass"))
    assert places(state) == ("r2", "r1") and not rolls(events, "Piloting") and state.phase == Phase.ACTION
    refused(state, "bob", Act("none"), NotYourTurn)    # bob has had his action


def test_the_finish_ranks_finishers_by_order_then_those_out_later_higher():
    """Ruling 4.2.4 rule 16: finishers in move order, then those out, "the later they went out, the higher"."""
    seats = ("ann", seat("bob", out="wrecked", out_order=1), "cy", seat("dee", out="fell", out_order=2))
    state, events = play(race(*seats, track="outlaw_gauntlet", section=4, order=("r3", "r2", "r1", "r4")),
                         ("ann", Act("none")), ("cy", Act("none")))
    assert state.phase == Phase.FINISHED and state.winner == "cy"
    assert of(events, ev.RaceFinished)[0].standings == ("cy", "ann", "dee", "bob")
    for lap, done in ((1, False), (2, True)):    # the Dune Sea Sprint is three laps
        state, _ = play(race("ann", "bob", section=3, lap=lap), ("bob", Act("none")), ("ann", Act("none")))
        assert (state.phase == Phase.FINISHED) is done


# --- the game master -----------------------------------------------------------------------------
def test_a_seated_gm_sees_the_dcs_racers_do_not():
    """Seed: sections are told "without revealing actual DC values": the DCs are the GM's, a trap its seer's."""
    state = race("ann", "bob", track="cloud_city", section=1, gm=True, phase=Phase.GM)
    state, _ = play(state, (GM, GmChange(3)), (GM, GmReveal()))
    dcs = RULESET.queries["dcs"]
    assert "ann at 1 m: DC 5" in dcs(state, GM, {})    # fog +2, and the GM's +3
    for player in ("ann", "bob"):
        with pytest.raises(NotSeated):
            dcs(state, player, {})
    assert RULESET.view(state, GM).dc_changes == ((1, 3),) and RULESET.view(state, "ann").dc_changes == ()
    ann_sees = RULESET.view(state, "ann")
    assert (racer(ann_sees, "r1").sees_traps, racer(ann_sees, "r2").sees_traps) == (("1:0",), ())


def test_a_seated_gm_may_change_a_sections_dc_before_revealing_it_and_rules_on_ask_actions(monkeypatch):
    """Seed: the GM sets the hidden DCs; Ram and Weapon Attacks are "subject to GM's approval"."""
    state = race("ann", "bob", gm=True, phase=Phase.GM)    # the Boost Run: no check at 1 m
    refused(state, "ann", GmChange(5), NotYourTurn)
    changed, events = apply(state, GM, GmChange(5))
    assert events == () and checks.section_dc(changed, 0, 1) == 5
    assert apply(state, GM, GmReveal())[0].phase == Phase.ACCELERATE
    revealed, _ = apply(changed, GM, GmReveal())
    assert revealed.phase == Phase.PREPARE
    refused(revealed, GM, GmChange(1), NotYourTurn)   # the race waits on the racers now, not the GM
    track = custom_track(monkeypatch, {"name": "Ask", "type": "curved", "hazard": RAIL}, ram="ask")
    state, _ = apply(race("ann", seat("bob", 350), track=track, gm=True), "bob", Act("ram"))
    assert state.phase == Phase.APPROVAL and RULESET.acting_players(state) == (GM,)
    refused(state, "bob", GmRule(True), NotYourTurn)
    declined, _ = apply(state, GM, GmRule(False))
    assert RULESET.acting_players(declined) == ("bob",) and not racer(declined, "r2").acted
    approved, events = play(state, (GM, GmRule(True)), ("ann", React("none")))
    assert named(events, "rams") and not rolls(events, "Deception against the judges")


ILLEGAL = ["wrong player", "wrong phase", "unknown maneuver", "pass with nobody ahead", "tune twice", "not seated",
           "after the finish", "gm step by a racer"]


def illegal(case: str):
    acting = race("ann", "bob")    # bob, last, acts first
    tuned = apply(grid("ann", "bob", tuning=1)[0], "ann", Tune("con"))[0]
    return {"wrong player": (acting, "ann", Act("none"), NotYourTurn),
            "wrong phase": (acting, "bob", Throttle(), WrongPhase),
            "unknown maneuver": (acting, "bob", Act("wheelie"), BadOption),
            "pass with nobody ahead": (turn_of(acting, "r1"), "ann", Act("pass"), BadOption),
            "tune twice": (tuned, "ann", Tune("dex"), NotYourTurn),
            "not seated": (acting, "zed", Act("none"), NotSeated),
            "after the finish": (replace(acting, phase=Phase.FINISHED), "bob", Act("none"), GameOver),
            "gm step by a racer": (race("ann", "bob", gm=True, phase=Phase.GM), "ann", GmReveal(), NotYourTurn),
            }[case]


@pytest.mark.parametrize("case", ILLEGAL)
def test_illegal_inputs_are_refused_and_change_nothing(case):
    """The referee refuses what the rules do not allow with a GameError, and the race stays as it was."""
    refused(*illegal(case))    # a GameError subclass; the state compared with a deep copy taken before


@pytest.mark.parametrize("revision", [2, 3])
def test_a_step_every_racer_answers_keeps_one_turn_key_from_revision_3(revision):
    """One public message and one clock per simultaneous step (issue 25, item 3): from revision 3 the turn
    key of a step every racer answers stays the same while they answer; a stored race of revision 2
    keeps the key it had, which named who was still waited on."""
    state = at_feature("dune_sea", 0, "before", 0, "ann", "bob", "cy", revision=revision)
    keys = []
    while state.phase == Phase.FEATURE and state.feature == 0 and RULESET.acting_players(state):
        keys.append(RULESET.turn_key(state))
        state, _ = apply(state, RULESET.acting_players(state)[0], TryFeature(False))
    assert len(keys) == 3
    assert len(set(keys)) == (1 if revision >= 3 else 3)
    assert RULESET.turn_key(state) not in keys              # the next step is a new turn


def test_a_ditch_earns_the_speed_loss_bonus_from_revision_3(monkeypatch):
    """Seed: the ditched vehicle is "back on track with speed equal to that of the vehicle it is set after",
    and a speed "reduced by at least 10 km/h by any means" gives +1 (+2 for 20 or more): from revision 3
    the ditch's new speed is such a reduction (issue 25, item 11); revision 2 and before wrote it over."""
    track = custom_track(monkeypatch, {"name": "Ditch", "type": "curved", "hazard": {"kind": "ditch"}})
    speeds = (500, 495, 485, 460, 420)
    seen = set()
    for seed in range(1, 25):
        seats = tuple(seat(p, s) for p, s in zip(("ann", "bob", "cy", "dee", "eve"), speeds))
        for revision in (2, 3):
            state = race(*seats, track=track, seed=seed, revision=revision)
            after, events = checks.hit_hazard(state, "r1")
            place = min(1 + roll(events, "places lost").faces[0], 5)
            lost = 500 - speeds[place - 1]
            assert racer(after, "r1").speed == speeds[place - 1]
            earned = 2 if lost >= 20 else 1 if lost >= 10 else 0
            assert racer(after, "r1").bonus == (earned if revision >= 3 else 0), (seed, revision, lost)
            if revision >= 3:
                assert [e.why for e in of(events, ev.SpeedChanged)] == ["back on the track"]
                seen.add({0: "none", 1: "+1", 2: "+2"}[earned])
    saw(seen, "none", "+1", "+2")


def test_the_final_standings_say_why_a_racer_went_out():
    """Issue 25, item 10: the standings' words name a disqualified or wrecked racer as such, as the
    picture does; an old log's event without reasons still reads."""
    state = race("ann", "bob", "cy")
    state = state.with_racer(replace(racer(state, "r2"), out="disqualified", out_order=1))
    _done, (finished,) = flow.finish(state)
    assert finished.describe() == "The race is over. 1. ann, 2. cy, 3. bob (disqualified)."
    assert ev.RaceFinished(("ann", "cy")).describe() == "The race is over. 1. ann, 2. cy."


def test_an_illegal_ram_says_so_with_the_judges_odds_before_it_is_taken():
    """Issue 25, item 10: on Cloud City rams and weapons are illegal (judges' DC 15). The Ram button says
    so with the chance of being caught (a rookie's Deception +0: a d20 under 15, 70%), and the action's
    prompt warns that a racer caught is disqualified."""
    state = turn_of(race(seat("ann", 400), seat("bob", 450), track="cloud_city"), "r2")
    labels = {a.command: a.label for a in RULESET.legal_actions(state, "bob")}
    assert labels["/act maneuver:ram"].endswith(" · illegal: judges catch 70%"), labels
    assert "illegal" not in labels["/act maneuver:pass"]
    assert RULESET.prompt(state).endswith(
        "(rams and weapon attacks are illegal on this track: a racer the judges catch is disqualified).")
    legal = turn_of(race(seat("ann", 400), seat("bob", 450), track="outlaw_gauntlet"), "r2")
    assert "illegal" not in RULESET.prompt(legal)
    assert all("illegal" not in a.label for a in RULESET.legal_actions(legal, "bob"))


def test_an_illegal_weapon_reaction_says_so_before_it_is_taken():
    """Issue 37, item 11: on the Dune Sea weapons are illegal (judges' DC 12). Passed, ann may shoot at the
    passer (seed: "Weapon Attacks can be used as a reaction to being passed"), but her Attack button now
    says that the judges may catch her, with the chance (her sidearm is loud: Deception at disadvantage),
    and the typed prompt warns that a racer caught is disqualified; where weapons are legal, neither."""
    from rules.race import maneuvers

    state, _ = apply(race("ann", seat("bob", 350)), "bob", Act("pass"))
    assert state.phase == Phase.REACTION
    unseen = (21 - (12 - state.pilot_spec(racer(state, "r1")).deception)) / 20
    sidearm = state.pilot_spec(racer(state, "r1")).sidearm
    chance = 1 - (unseen * unseen if sidearm.loud else unseen)
    labels = {a.command: a.label for a in RULESET.legal_actions(state, "ann")}
    assert labels["/react reaction:attack"] == f"Attack · illegal: judges catch {chance:.0%}"
    assert labels["/react reaction:block"] == "Block"
    assert maneuvers.reaction_caught_chance(state) == pytest.approx(chance)
    assert RULESET.prompt(state) == ("Waiting on ann: react to the racer who targets you: /react reaction:… (weapon "
                                     "attacks are illegal on this track: a racer the judges catch is disqualified).")
    legal, _ = apply(race("ann", seat("bob", 350), track="outlaw_gauntlet"), "bob", Act("pass"))
    assert all("illegal" not in a.label for a in RULESET.legal_actions(legal, "ann"))
    assert "illegal" not in RULESET.prompt(legal)


@pytest.mark.parametrize("track, seed", [("cloud_city", 15), ("cloud_city", 21), ("cloud_city", 22)])
def test_computer_racers_never_risk_the_judges(track, seed):
    """Issue 37, item 11: where rams and weapons are illegal the computer rammed anyway (Robo3 on Cloud
    City, caught and disqualified in these races); now no computer racer ever faces the judges."""
    _state, events = computer_race(track, seed, tuple(data.vehicles()))
    assert not rolls(events, "Deception against the judges")


def test_the_computer_and_the_autopilot_do_not_shoot_back_where_weapons_are_illegal():
    """Issue 37, item 11: shot at on the Dune Sea, where weapons are illegal, the computer and a deadline's
    autopilot used to shoot back and face the judges; now they let it be. Where weapons are legal, both
    shoot back."""
    from rules.race import ai

    for track, answer in (("dune_sea", React("none")), ("outlaw_gauntlet", React("attack"))):
        for seed in SEEDS:
            state, _ = apply(race("ann", seat("bob", 350), track=track, seed=seed), "bob", Act("attack"))
            if state.phase == Phase.REACTION:    # bob was not disqualified: ann may shoot back
                break
        assert state.the_pending.kind == "attack_back"
        assert ai.computer_action(state, "ann") == answer and ai.autopilot_action(state, "ann") == answer


def test_a_features_prompt_says_what_each_answer_does():
    """Issue 25, item 10: on a hazard the typed prompt says that yes tries to avoid it and no rides through."""
    section, stage, index = next((n, stage, i) for n, s in enumerate(data.track("dune_sea").sections)
                                 for stage, features in (("before", s.before), ("after", s.after))
                                 for i, f in enumerate(features) if not f.positive)
    state = at_feature("dune_sea", section, stage, index, "ann", "bob")
    name = flow.FEATURE_NAMES[flow.stage_features(state)[index].kind]
    assert RULESET.prompt(state).endswith(
        f"try to avoid the {name} (/feature attempt:yes) or ride through it (/feature attempt:no).")
