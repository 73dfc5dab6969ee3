"""A sentence-by-sentence audit of the SW5e race's seed (seed 003) against rules/race/ at the newest rules
revision (RULESET.setup() alone gives revision 1, so every race here names the newest). Each test quotes the
seed sentence (or the RULES.md ruling) it holds the code to, and fails on the code as it is because the code
does something the sentence forbids or omits something it requires. Dice come from the game's seeded stream
(fixed seeds)."""

from __future__ import annotations

from rules.race import events as ev
from rules.race.actions import Act, GmChange, GmCondition, GmReveal, GmRule, React, Throttle, TryFeature
from rules.race.ruleset import REVISION
from rules.race.state import Phase
from tests.race_helpers import (
    GM,
    answer_all,
    apply,
    custom_track,
    named,
    of,
    play,
    race,
    racer,
    roll,
    rolls,
    seat,
    turn_of,
)

NEWEST = REVISION    # 4 when this was written
RAIL = {"kind": "railing", "height": 1, "severity": "setback"}


# --- Features suggestions: a gap with a DC to avoid it --------------------------------------------
def test_a_gap_with_an_avoid_dc_lets_racers_try_to_avoid_it(monkeypatch):
    """Racers are never asked about a gap the track gives an avoid DC, and fall out of the race, disqualified.

    Seed, "Features suggestions": "Gap. Unless a vehicle has a listed amount of speed it falls down and is
    disqualified from the race. Make DC to avoid this feature sufficiently high, so it is hard to avoid, or
    make it unavoidable". And, "Describing the terrain": "If the feature is negative, then the listed DC is to
    avoid contact with it." A gap that lists a DC is avoidable; only one without is unavoidable. The code
    (flow.py `next_feature`) asks nobody about any gap and drops the DC the track lists (data.py `_feature`
    accepts it without a word)."""
    track = custom_track(monkeypatch, {"name": "Broken bridge", "type": "straight", "hazard": RAIL,
                                       "after": [{"kind": "gap", "dc": 2, "speed": 400}]})
    state = race("ann", "bob", track=track, revision=NEWEST)      # both at 300 km/h; bob, last, acts first
    after, events = play(state, ("bob", Act("none")), ("ann", Act("none")))
    fell = [e.name for e in of(events, ev.Out)]
    assert not fell and after.phase == Phase.FEATURE, \
        f"nobody was asked to avoid the DC 2 gap, and {fell} fell out of the race"


# --- Boost trap: "a Piloting check as at the beginning of the section" ------------------------------
def test_a_boost_traps_check_on_a_straight_with_no_condition_ignores_the_gms_private_dc(monkeypatch):
    """On a straight with no condition, a boost trap throws a racer at the wall by a DC only the GM's private
    change made, and the public "missed at 4" tells every racer the GM raised the DC.

    Seed, "Features suggestions": "Boost trap ... the racer must immediately make a Piloting check as at the
    beginning of the section at the new speed with a Disadvantage." "Section types": "If there are no special
    conditions making it difficult to navigate ..., a straight section should not prompt a piloting check to
    pass." RULES.md (revision 2): "the conditions decide, never a seated GM's private change to the DC, which
    counts only in a check the conditions bring (a check that appeared because the GM raised the DC would tell
    the racers so)"; "racers never learn it was made". Here the GM removes the Boost Trap's fog (no condition at
    1 m: no section check, RULES.md's straight ruling) and adds +10: the trap's check (flow.py `_contact`) takes
    `checks.section_dc`, the GM's +10 included, where the section's own check at the beginning took none."""
    state = race("ann", "bob", track="cloud_city", section=1, gm=True, phase=Phase.GM, seed=4, revision=NEWEST)
    state, _ = play(state, (GM, GmCondition("fog", remove=True)), (GM, GmChange(10)), (GM, GmReveal()))
    assert state.phase == Phase.ACCELERATE      # as the seed says: no check at the beginning of this straight
    state, _ = answer_all(state, Throttle(accelerate=False))
    after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))    # ann goes for the "boost strip"
    again = roll(events, "Piloting check again", "ann")
    assert again.total >= 0 and not of(events, ev.HazardHit), \
        f"ann's trap check of {again.total} was '{again.verdict}' on a straight with no condition: " \
        f"{[e.hazard for e in of(events, ev.HazardHit)]} hit by the GM's private +10"


# --- Changing altitude: a dive only before a Piloting check ------------------------------------------
def test_a_dive_before_a_ram_the_gm_refuses_is_not_kept_without_a_check(monkeypatch):
    """A racer dives "before a ram", the seated GM refuses the ram, and the racer keeps the 40 m dive and its
    20 km/h although no Piloting check follows (and could dive, ask and be refused again).

    Seed, "Changing altitude": "racers may opt to reduce altitude before making any Piloting check". RULES.md:
    "`descend:` goes with anything that leads to a Piloting check ... Elsewhere it is refused." maneuvers.py
    `act` makes the dive before it asks a seated GM about an "ask" ram; `gm_rule` refusing it hands the racer
    back the action with the dive kept, and the racer then takes no action, which makes no check."""
    track = custom_track(monkeypatch, {"name": "Ask", "type": "curved", "hazard": RAIL}, ram="ask")
    state = race("ann", seat("bob", 350, altitude=41), track=track, gm=True, revision=NEWEST)
    asked, _ = apply(state, "bob", Act("ram", descend=40))
    assert asked.phase == Phase.APPROVAL
    after, events = play(asked, (GM, GmRule(False)), ("bob", Act("none")))
    bob = racer(after, "r2")
    assert not rolls(events, "Piloting")
    assert (bob.altitude, bob.speed) == (41, 350), \
        f"bob made no Piloting check, yet dropped to {bob.altitude} m and gained {bob.speed - 350} km/h"


# --- Pass and the weapon reaction: a wreck does not pass -------------------------------------------
def test_a_passer_wrecked_by_the_weapon_reaction_does_not_pass():
    """The channel reads "Bob is wrecked", then "Bob passes Ann" and the places swap.

    Seed, "Action - Weapon Attacks": "Weapon Attacks can be used as a reaction to being passed ... Using this
    reaction does not prevent you from being passed." RULES.md (RULING 4.2.4 rule 10): "At 0 HP the vehicle is
    wrecked and out". A wrecked vehicle is out of the race and passes nobody. maneuvers.py `_pass` swaps the
    places and says "passes" after the shot whatever it did to the passer."""
    state = race("ann", seat("bob", 310, hp=1), track="outlaw_gauntlet", seed=1, revision=NEWEST)  # weapons legal
    after, events = play(state, ("bob", Act("pass")), ("ann", React("attack")))
    assert racer(after, "r2").out == "wrecked"      # the hold-out blaster hit (seed 1) and took bob's last HP
    assert not named(events, "passes") and not of(events, ev.PlacesSwapped), \
        "a wrecked racer is told to have passed: " + "; ".join(
            f"{e.name} {e.kind} {e.target}" for e in named(events, "passes"))


# --- what revision 5 does beyond the above, and races stored before it ----------------------------
def _broken_bridge(monkeypatch, revision: int):
    """ann and bob (300 km/h) on a straight whose gap needs 400 km/h and lists an avoid DC of 2."""
    track = custom_track(monkeypatch, {"name": "Broken bridge", "type": "straight", "hazard": RAIL,
                                       "after": [{"kind": "gap", "dc": 2, "speed": 400}]})
    return play(race("ann", "bob", track=track, revision=revision), ("bob", Act("none")), ("ann", Act("none")))


def test_making_a_gaps_avoid_dc_avoids_it_and_leaving_it_needs_the_speed(monkeypatch):
    """Seed: "If the feature is negative, then the listed DC is to avoid contact with it. Racers can opt not
    to try to avoid". ann tries and makes DC 2 (any d20 + 4 does): she is spared the gap at 300 km/h; bob
    rides into it and, short of its 400 km/h, falls and is disqualified."""
    state, _ = _broken_bridge(monkeypatch, NEWEST)
    after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
    assert roll(events, "Piloting check for the gap", "ann").verdict == "made it"
    assert not rolls(events, "Piloting check for the gap", "bob")
    assert (racer(after, "r1").out, racer(after, "r2").out) == ("", "disqualified")


def test_a_revision_4_race_keeps_every_gap_unavoidable(monkeypatch):
    """Revision 4: nobody is asked about a gap, whatever DC it lists; both racers, too slow, fall."""
    after, events = _broken_bridge(monkeypatch, 4)
    assert sorted(e.name for e in of(events, ev.Out)) == ["ann", "bob"] and not rolls(events, "Piloting")


def test_a_revision_4_race_keeps_the_gms_change_in_a_boost_traps_check():
    """Revision 4: the boost trap's check on a straight with no condition takes the GM's +10 (ann's 4 misses
    and she meets the hazard)."""
    state = race("ann", "bob", track="cloud_city", section=1, gm=True, phase=Phase.GM, seed=4, revision=4)
    state, _ = play(state, (GM, GmCondition("fog", remove=True)), (GM, GmChange(10)), (GM, GmReveal()))
    state, _ = answer_all(state, Throttle(accelerate=False))
    _after, events = answer_all(state, TryFeature(True), bob=TryFeature(False))
    assert roll(events, "Piloting check again", "ann").verdict == "missed" and of(events, ev.HazardHit)


def _asked_to_ram(monkeypatch, revision: int):
    track = custom_track(monkeypatch, {"name": "Ask", "type": "curved", "hazard": RAIL}, ram="ask")
    state = race("ann", seat("bob", 350, altitude=41), track=track, gm=True, revision=revision)
    return apply(state, "bob", Act("ram", descend=40))


def test_a_dive_before_a_ram_the_gm_approves_is_made_then(monkeypatch):
    """The held dive is made once the GM approves, before the ram's check: bob rams at 370 km/h from 1 m
    (+7 over ann's 300 km/h)."""
    asked, events = _asked_to_ram(monkeypatch, NEWEST)
    assert asked.pending.descend == 40 and not of(events, ev.SpeedChanged)
    after, events = play(asked, (GM, GmRule(True)), ("ann", React("dodge")))
    assert (racer(after, "r2").altitude, racer(after, "r2").speed) == (1, 370)
    assert dict(roll(events, "Piloting (ram)", "bob").modifiers)["speed over"] == 7


def test_a_revision_4_race_keeps_the_dive_before_a_refused_ram(monkeypatch):
    """Revision 4: the dive is made when the ram is asked for, and a refusal keeps it."""
    asked, _events = _asked_to_ram(monkeypatch, 4)
    after, _events = apply(asked, GM, GmRule(False))
    assert (racer(after, "r2").altitude, racer(after, "r2").speed) == (1, 370)


def test_a_revision_4_race_lets_a_wrecked_passer_pass():
    """Revision 4: the passer wrecked by the weapon reaction is still told to pass, and the places swap."""
    state = race("ann", seat("bob", 310, hp=1), track="outlaw_gauntlet", seed=1, revision=4)
    after, events = play(state, ("bob", Act("pass")), ("ann", React("attack")))
    assert racer(after, "r2").out == "wrecked" and named(events, "passes") and of(events, ev.PlacesSwapped)


# --- a ram's or sweep's speed bonus, as declared -------------------------------------------------
def test_a_dodgers_dive_leaves_the_ram_and_sweep_speed_bonus_as_declared():
    """RULES.md (Dodge): "the ram's or sweep's '+1 for every 10 km/h' is the speed difference when it was
    declared". bob (350 km/h) rams ann (300 km/h, at 41 m): +5. ann dodges with a 40 m dive (320 km/h), which
    leaves bob +5, not +3. ann (300) sweeps bob (350, at 41 m), who dodges with the dive (370): +5, not +7.
    Revision 4 measured both after the dive."""
    for revision, ram, sweep in ((NEWEST, 5, 5), (4, 3, 7)):
        state = race(seat("ann", 300, 41), seat("bob", 350), revision=revision)
        _after, events = play(state, ("bob", Act("ram")), ("ann", React("dodge", descend=40)))
        assert dict(roll(events, "Piloting (ram)", "bob").modifiers)["speed over"] == ram, revision
        state = turn_of(race(seat("ann", 300), seat("bob", 350, 41), revision=revision), "r1")
        _after, events = play(state, ("ann", Act("sweep")), ("bob", React("dodge", descend=40)))
        assert dict(roll(events, "Piloting (side sweep)", "ann").modifiers)["speed over"] == sweep, revision
