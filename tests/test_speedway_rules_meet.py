"""Speedway: where two rules meet, checked against the seed text.

Seed: shared/seeds/000_19b6432e8d04d7f9.txt (Speedway v1.0). Each test builds one situation with the
project's own builders (tests/speedway_fixtures.py, and the collision/combat builders the Speedway
tests share) and states what the seed sentence it quotes (or the RULES.md ruling) requires. Every
test is deterministic: the dice stream is restarted at a fixed seed, or no dice are rolled.
"""

from __future__ import annotations

from dataclasses import replace

from rules.hexgrid import label, parse_label
from rules.speedway.actions import AnswerSkid, ChooseRam, Drop, Move, SetSpeed
from rules.speedway.events import HazardLaid
from rules.speedway.ruleset import REVISION, legal_actions
from rules.speedway.state import WHERE_RULES_MEET, Hazard

try:
    from tests import speedway_fixtures as fx
    from tests.test_speedway_combat import NE, SE, E, W, act, car_of, game, moving, of, put
    from tests.test_speedway_combat import upkeep as upkeep_of
except ImportError:  # tests/ on sys.path directly
    import speedway_fixtures as fx
    from test_speedway_combat import NE, SE, E, W, act, car_of, game, moving, of, put
    from test_speedway_combat import upkeep as upkeep_of


def commands(state, player: str) -> list[str]:
    return [a.command for a in legal_actions(state, player)]


def rev(state, revision: int = WHERE_RULES_MEET):
    """The state under a rules revision: these fixes are revision 5's; revision 4 keeps the old play."""
    return replace(state, revision=revision)


def test_the_fixes_are_revision_5_which_every_new_game_has():
    assert WHERE_RULES_MEET == 5 and REVISION >= WHERE_RULES_MEET


# --- 2./3. A Turn that rams, outcome B --------------------------------------------------------------

def turn_into_bob(must_turn: bool, revision: int = WHERE_RULES_MEET):
    """Alice (speed 3, M9 facing E) takes turn-left into Bob (front M8, facing W, speed 0).
    Dice seed 3: the ram costs nobody a point of speed, Alice wins the roll-off and picks B."""
    state = rev(game("brawler", "brawler", "brawler"), revision)
    state = put(state, "alice", "M9", E, speed=3, must_turn=must_turn)
    state = put(state, "bob", "M8", W, speed=0)
    state = put(state, "carol", "D3", SE)
    state = moving(state, 3, 3)
    state, _ = act(state, "alice", Move("turn-left"))
    assert state.phase == "ram" and state.pending_ram.chooser == "alice"
    state, _ = act(state, "alice", ChooseRam("B"))
    alice = car_of(state, "alice")
    assert (label(alice.front), alice.facing, state.moves_left) == ("M8", NE, 2)   # the Turn is made
    return state


def test_the_turn_owed_after_a_ram_is_paid_by_a_turn_that_rams_and_pushes_through():
    """Seed 000, Ramming Collisions step 4: "(A) the Attacking car must take a turn maneuver on its
    next move" -- one Move, the next one.

    Alice owes a Turn (an earlier ram's outcome A). Her next Move is that Turn; it rams Bob, she wins
    and picks B, and her car moves into the vacated hex, turned. The debt is paid, but the code leaves
    `must_turn` set (collisions.py resolve_ram, outcome B, never clears it), so her following Move
    must be a Turn again."""
    state = turn_into_bob(must_turn=True)
    assert not car_of(state, "alice").must_turn
    assert "/move maneuver:normal" in commands(state, "alice")
    old = turn_into_bob(must_turn=True, revision=4)
    assert car_of(old, "alice").must_turn                            # revision 4: still owed


def test_a_turn_completed_by_ram_outcome_b_earns_its_inertia():
    """Seed 000, Movement Phase / In Control: "Car moves are selected from the following list. Each
    one has a cost in how many Inertia Tokens it earns its driver" (Turn: 2 Inertia Tokens).

    Alice's Turn rams Bob; with outcome B she "moves forward into the hex vacated by the rotation"
    and ends the Move turned 60 degrees, exactly as the Turn places her. She took a Turn, yet the
    code adds none of its inertia (movement.py maneuver returns at the ram before adding
    spec.inertia; resolve_ram B places her without it)."""
    state = turn_into_bob(must_turn=False)
    assert car_of(state, "alice").inertia == 2
    assert car_of(turn_into_bob(must_turn=False, revision=4), "alice").inertia == 0   # revision 4: none


# --- 4. A wreck's smoke when its player still drives ------------------------------------------------

def test_smoke_of_a_wrecked_car_stays_until_its_players_next_turn_when_they_still_drive():
    """Seed 000, Smokescreens: "They remain on the map until the beginning of the driver's next
    turn." Upkeep step 5: "Remove any smoke tokens from the board that they deployed on the previous
    turn." RULES.md ruling: "smoke of a wrecked car (whose owner has no Upkeep left) blows away at the
    next player's step 5".

    Alice drives two cars. Her Sniper laid smoke this turn and is now a wreck; her second car still
    runs, so she has a next turn (and an Upkeep). The code clears every wreck's smoke at whoever's
    Upkeep comes next (hazards.py clear_smoke_of adds `c.out` cars of any owner), so the smoke is gone
    at Bob's Upkeep, before Alice's next turn."""
    state = rev(fx.started(("alice", "bob", "alice"), ("sniper", "brawler", "brawler")))
    sniper = state.car("c1")
    assert (sniper.owner, state.car("c3").owner) == ("alice", "alice")
    state = state.with_car(replace(sniper, out=True, speed=0))
    smoke = tuple(Hazard(i, "smoke", parse_label(h), "c1") for i, h in enumerate(("J12", "K12", "L12"), 1))
    state = replace(state, hazards=smoke, next_hazard_id=4)
    before = state = upkeep_of(state, "bob")
    state, _ = fx.apply(state, "bob", SetSpeed(0))
    assert state.operable_cars_of("alice"), "alice still has a car running, so a next turn"
    assert [hz.kind for hz in state.hazards] == ["smoke"] * 3, "the smoke blew away at Bob's Upkeep"
    old, _ = fx.apply(rev(before, 4), "bob", SetSpeed(0))
    assert not old.hazards                                           # revision 4: gone at Bob's Upkeep
    alone = before.with_car(replace(before.car("c3"), out=True, speed=0))
    alone, _ = fx.apply(alone, "bob", SetSpeed(0))
    assert not alone.hazards, "with no car left running alice has no Upkeep: the next one clears it"


# --- 5. An out-of-control defender rammed to a standstill ------------------------------------------

def rammed_to_a_standstill(revision: int = WHERE_RULES_MEET):
    state = rev(game("brawler", "brawler", "brawler"), revision)
    state = put(state, "alice", "M9", E, speed=3)
    state = put(state, "bob", "N9", W, speed=1, in_control=False, skid=NE)
    state = put(state, "carol", "D3", SE)
    state, _ = act(moving(state, 3, 1), "alice", Move("normal"))
    return car_of(state, "bob")


def test_an_out_of_control_defender_rammed_to_speed_0_is_back_in_control():
    """RULES.md, Out Of Control: "RULING: a car that reaches speed 0 stops and is In Control, whether a
    slide or its Brakes bring it there." Seed 000, Ramming step 2: "Both cars lose speed equal to the
    damage it takes."; "Stopped cars ... begin their next turn at Speed 0."

    Bob is skidding (Out Of Control, speed 1) when Alice rams him head-on; the ram's damage takes his
    last point of speed. The code lowers his speed (collisions.py _lose_speed) but leaves him Out Of
    Control with his skid indicator: a car at speed 0 still skidding, who must slide as soon as he
    sets any speed next turn."""
    bob = rammed_to_a_standstill()
    assert bob.speed == 0
    assert bob.in_control and bob.skid is None
    old = rammed_to_a_standstill(4)
    assert old.speed == 0 and not old.in_control and old.skid == NE  # revision 4: still skidding


# --- 6. Oil's four Moves and a Swipe's extra Move ---------------------------------------------------

def oil_laid_on(revision: int = WHERE_RULES_MEET) -> list[int]:
    state = rev(game("torch", "brawler"), revision)
    state = put(state, "alice", "M9", E, speed=3)
    state = put(state, "bob", "N9", W)
    state = moving(state, 5, 1)
    state, _ = act(state, "alice", Drop("back"))
    state, _ = act(state, "alice", Move("turn-right"))
    state, _ = act(state, "alice", AnswerSkid("swipe"))
    laid_on = []
    for move in (3, 4, 5):
        state, events = act(state, "alice", Move("normal"))
        if of(events, HazardLaid):
            laid_on.append(move)
    return laid_on


def test_oil_flows_for_the_next_four_moves_counting_a_swipes_move():
    """Seed 000, Oil Slicks: "When fired, an oil counter is placed directly behind the car, and does
    the same for each of its next four moves." Movement Phase: "the active player may expend an
    additional Move to Swipe that car".

    Alice (Torch) lays oil, then Move 1 is a Turn with Bob in a skid hex and Move 2 the Swipe it
    spends; Moves 3-5 are Normal Moves. The seed's four Moves are over after Move 4, so Move 5 lays
    nothing. The code counts the Turn and its Swipe as one (hazards.after_move runs once, from
    ruleset._resolve_skid), so oil still flows on Move 5."""
    state = rev(game("torch", "brawler"))
    state = put(state, "alice", "M9", E, speed=3)
    state = put(state, "bob", "N9", W)
    state = moving(state, 5, 1)
    state, _ = act(state, "alice", Drop("back"))                     # the first counter, behind her now
    state, _ = act(state, "alice", Move("turn-right"))               # Move 1
    assert state.phase == "skid" and "/skid choice:swipe" in commands(state, "alice")
    state, _ = act(state, "alice", AnswerSkid("swipe"))              # Move 2: the Swipe
    assert state.moves_left == 3
    laid_on = []
    for move in (3, 4, 5):
        state, events = act(state, "alice", Move("normal"))
        if of(events, HazardLaid):
            laid_on.append(move)
    assert 5 not in laid_on, f"oil was still laid on Moves {laid_on}"
    assert laid_on == oil_laid_on() == [3, 4]
    assert oil_laid_on(4) == [3, 4, 5]                               # revision 4: the Swipe's Move uncounted

