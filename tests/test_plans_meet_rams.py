"""Speedway's whole-turn plans (`/move plan:… [fire:] [skid:] [preview:yes]`) where they meet rams, skids, swipes,
hazards, a Turn owed after outcome A, an Out Of Control car and a deadline.

Each test states what a player is promised (RULES.md "Table, odds and computer drivers", "Grace and the time
bank"; docs/commands.md) and checks it against the real rules (tests/speedway_fixtures.py) or the real service on
SQLite. The preview "works the path out without dice": what involves no dice (a counter's inertia, a skid
answered `accept` in advance, a Turn the car must make) it must tell as it will be played.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest

from bot.table.clock.settings import TableSettings
from rules.errors import GameError
from rules.registry import get_ruleset
from rules.speedway.actions import Move
from rules.speedway.odds import resist_chance
from rules.speedway.preview import preview_text
from rules.speedway.ruleset import plan_preview
from rules.speedway.state import Hazard

try:
    from tests import speedway_fixtures as fx
    from tests.test_grace_and_bank import deadline_notices, duel, kinds
except ImportError:  # tests/ on sys.path directly
    import speedway_fixtures as fx
    from test_grace_and_bank import deadline_notices, duel, kinds

pytestmark = pytest.mark.sqlite_only


def with_counter(state, kind: str, at):
    """`state` with a counter of `kind` laid by nobody (as the arena's own) at hex `at`."""
    return replace(state, hazards=state.hazards + (Hazard(state.next_hazard_id, kind, at, ""),),
                   next_hazard_id=state.next_hazard_id + 1)


# --- 1. the preview's skid odds leave out the inertia a counter on the path adds (no dice involved) -----------------

def test_the_previews_skid_odds_count_the_oil_the_maneuver_lands_on():
    """Alice (speed 5, Driver 4) plans turn-left; the Turn lands on an oil counter. Oil adds 1 inertia on entry,
    before the skid check (hazards.car_entered), so resisting needs 5 + 2 + 1 = 8, not 7. The preview even lists
    "oil at M8" on the way, yet promises the odds of a road without it, and the end inertia of one."""
    state = fx.driving(speed=5, inertia=0)
    landing = parse("M8")
    state = with_counter(state, "oil", landing)
    preview = plan_preview(state, "alice", ["turn-left"], None)
    played, _ = fx.apply(state, "alice", Move("turn-left"))
    assert played.phase == "skid"
    true_chance = resist_chance(fx.active(played))
    text = preview_text(state, preview)
    assert "On the way: oil at M8." in text
    assert f"#1 turn-left {true_chance:.0%}" in text, text            # 58%, the preview says 71%
    assert f"inertia {fx.active(played).inertia}." in text, text       # 3, the preview says 2


def test_a_plan_accepting_its_skids_previews_the_slide_it_will_make():
    """Alice (speed 5) plans turn-left,normal with skid:accept: the Turn skids and accepting slides her car one hex,
    no dice. The preview must end where the plan will (it drew the unslid path) and say the skid is accepted,
    not offer odds to resist a skid she will not resist."""
    state = fx.driving(speed=5, inertia=0)
    preview = plan_preview(state, "alice", ["turn-left", "normal"], None, accept=True)
    played = state
    for maneuver in ("turn-left", "normal"):
        played, _ = fx.apply(played, "alice", Move(maneuver, skid="accept"))
    end = fx.car_of(played, "alice")
    assert (preview.end.front, preview.end.facing) == (end.front, end.facing)
    text = preview_text(state, preview)
    assert "chance to resist" not in text and "#1 turn-left" in text and "accepted" in text, text


def test_a_plan_accepting_a_skid_into_a_car_says_the_skid_stops_there():
    """The same plan with Bob's car parked where the slide goes: accepting slides Alice into him (a collision that
    stops her car). The preview must say the accepted skid runs into Bob's car there, not draw a clean path on."""
    state = fx.driving(speed=5, inertia=0)
    unslid = plan_preview(state, "alice", ["turn-left"], None).end
    slid = plan_preview(state, "alice", ["turn-left"], None, accept=True).end
    into = next(h for h in slid.hexes if h not in unslid.hexes)
    state = fx.place(state, "bob", _label(into), unslid.facing)
    played, events = fx.apply(state, "alice", Move("turn-left", skid="accept"))
    assert any(type(e).__name__ == "Collided" for e in events), events
    text = preview_text(state, plan_preview(state, "alice", ["turn-left", "normal"], None, accept=True))
    assert f"Move #1 (turn-left) skids into {fx.car_of(state, 'bob').name}" in text, text


# --- 3. a skid answer the grammar offers but the plan's Confirm cannot carry -------------------------------------

async def test_a_plan_answering_skids_with_swipe_is_previewed_or_refused_not_crashed(table):
    """/move's skid option offers accept, resist, swipe and continue (commands.SKID_CHOICES); a plain plan takes
    skid:swipe. Its preview crashes on encoding the Confirm button (plans._SKIDS knows only accept and resist):
    a KeyError, not a preview nor a refusal."""
    await _duel_table(table)
    reply = await table("alice", "/move plan:turn-left,normal skid:swipe preview:yes")
    assert reply.outcome in ("shown", "refused"), reply


# --- 5. (below) a preview of shots: smoke the path drives through ------------------------------------------------

def test_a_plan_whose_path_clears_smoke_may_fire_through_where_the_smoke_was():
    """Smoke lies at N9, between alice (M9 facing E) and bob (Q9). `/move maneuver:normal` drives into N9, which
    takes the smoke away ("alice drove through"), and `/fire weapon:front target:bob` is then legal. The plan
    `/move plan:normal fire:front@bob` is refused before its first Move: "cannot fire at bob anywhere on the plan's
    path (at its end: No clear line of sight …)": the preview's path keeps every counter where it lies."""
    from rules.speedway.actions import Fire
    from rules.speedway.ruleset import plan_check

    state = fx.driving(speed=3, bob=("Q9", "E"))
    state = replace(state, hazards=state.hazards + (Hazard(state.next_hazard_id, "smoke", parse("N9"), "c2"),),
                    next_hazard_id=state.next_hazard_id + 1)
    typed, _ = fx.apply(state, "alice", Move("normal"))
    fx.apply(typed, "alice", Fire("front", "bob"))                 # legal, typed one command at a time
    plan_check(state, "alice", ["normal"], ("front", "bob"))       # refused: IllegalShot


# --- 4. a preview of Moves the car may not make: a Turn owed after outcome A, an Out Of Control car -------------------

def test_the_preview_refuses_a_plan_that_ignores_a_turn_owed_after_a_ram():
    """A car that lost a ram with outcome A must Turn on its next Move ("this Move must be turn-left or
    turn-right"). The preview of normal,normal draws a path the game will refuse at once; its Confirm fails."""
    state = fx.driving(speed=3, must_turn=True)
    with pytest.raises(GameError):
        fx.apply(state, "alice", Move("normal"))
    with pytest.raises(GameError, match="Turn|turn"):
        plan_preview(state, "alice", ["normal", "normal"], None)


def test_the_preview_refuses_maneuvers_for_an_out_of_control_car():
    """Out Of Control, the only Move is a slide; the preview of normal,normal shows a driven path nonetheless."""
    state = fx.driving(speed=3, in_control=False, skid=0)
    with pytest.raises(GameError):
        fx.apply(state, "alice", Move("normal"))
    with pytest.raises(GameError, match="out of control|slide"):
        plan_preview(state, "alice", ["normal", "normal"], None)


async def _inject(store, db_path: str, change) -> None:
    """Rewrite the channel's stored game state in place (as a position the game reaches in play)."""
    game = await store.active_game("chan-1")
    ruleset = get_ruleset("speedway")
    from rules.codec import encode_state

    state = change(ruleset.load_state(game.state))
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE games SET state = ? WHERE id = ?", (encode_state(state), game.id))


@pytest.mark.parametrize("bad", ["must_turn", "out_of_control"])
async def test_a_previewed_plan_the_game_refuses_at_its_first_move_does_not_stall_the_deadline(store, db_path, bad):
    """RULES.md: a previewed plan is played at the deadline "when the game still takes it as written …; otherwise
    the autopilot plays", and "whatever a deadline did" the game goes on. alice's car must Turn (outcome A on her
    last Move) or is Out Of Control; she previews normal,normal (shown, kept) and is away. At her deadline the
    kept plan passes the plan check, its first Move is refused, and the GameError escapes Deadlines._deadline:
    nothing is played, nothing is said, the clock restarts, and every later deadline does the same."""
    service, clock, table = await duel(store, "/game settings deadline_hours:6")

    def bad_position(state):
        car = state.current_car
        changed = replace(car, must_turn=True) if bad == "must_turn" \
            else replace(car, in_control=False, skid=car.facing)
        return state.with_car(changed)
    await _inject(store, db_path, bad_position)
    preview = await table("alice", "/move plan:normal,normal preview:yes")
    if preview.outcome == "refused":      # the fixed preview refuses it: then nothing is kept for the deadline
        return
    assert TableSettings.from_json((await store.active_game("chan-1")).settings).previewed
    notices = await deadline_notices(service, clock, 6.5)
    assert notices, "the deadline played nothing and said nothing"
    assert await kinds(store), "nothing was played for alice"


# --- 6. a plan stopped by a ram whose roll-off the defender won says the turn passed --------------------------------

async def test_a_plan_stopped_by_the_defenders_ram_choice_does_not_say_the_turn_passed(store, db_path):
    """alice's plan normal,normal rams bob (parked nose-out at E6, right ahead); with dice seed 0 bob wins the
    roll-off, so the game waits on bob's /ram outcome, and then on alice again for her last Moves. The reply says
    "The plan ended after step 1: the turn passed." (acting.py _played_steps reads "the actor is no longer asked"
    as "the turn passed"): alice is told her turn is over while it is not."""
    from rules.dice import DiceState
    from rules.hexgrid import parse_label

    service, clock, table = await duel(store, "/game settings deadline_hours:6")

    def bob_ahead(state):
        bob = state.cars_of("bob")[0]
        return replace(state.with_car(replace(bob, front=parse_label("E6"), facing=0)), dice=DiceState(0, 0))
    await _inject(store, db_path, bob_ahead)
    reply = await table("alice", "/move plan:normal,normal")
    assert reply.outcome == "applied", reply.text
    assert "bob won the ramming roll-off and picks /ram outcome:A or /ram outcome:B." in reply.text
    assert "the turn passed" not in reply.text, reply.text


# --- helpers -------------------------------------------------------------------------------------------------------

def _label(at) -> str:
    from rules.hexgrid import label

    return label(at)


def parse(text: str):
    from rules.hexgrid import parse_label

    return parse_label(text)


async def _duel_table(table) -> None:
    for user, line in (("alice", "/game new ruleset:speedway seed:2 arena:duel"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start"), ("alice", "/speed value:3")):
        assert (await table(user, line)).outcome == "applied", line
