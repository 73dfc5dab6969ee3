"""The action phase (seed, "Racer Actions and Reactions"): the ten actions, the reactions of the racer an
action targets (chosen by that racer), opposed checks with the speed-difference bonuses, side sweeps and
stabilizing, weapon attacks, and the judges who watch for illegal rams and weapons.

Rulings: the opposing Piloting check is part of a reaction, so a racer who does not (or may no longer)
react does not oppose, and the action succeeds; a tie fails the action as each text says; one action
and one reaction a racer a section."""

from __future__ import annotations

from dataclasses import replace

from rules.errors import BadOption, NotYourTurn, WrongPhase
from rules.race import checks, data, flow
from rules.race.action_words import MANEUVERS
from rules.race.actions import Act, GmRule, React, Stabilize
from rules.race.events import Chose, DiceRolled, Maneuver, Reacted
from rules.race.rolls import d20, damage_dice, dice, vehicle_roll
from rules.race.speed import change_altitude, damage, gain, go_out, lose, set_speed, swapped
from rules.race.state import Pending, Phase, Racer, RaceState
from rules.table import required

NEEDS_TARGET_AHEAD = ("pass", "ram")
NEEDS_TARGET_BEHIND = ("sweep", "emergency_brake")
REACTIONS_TO = {"pass": ("block", "sweep", "attack", "none"), "forced_pass": ("block", "sweep", "attack", "none"),
                "ram": ("dodge", "none"), "sweep": ("dodge", "none"), "attack_back": ("attack", "none")}


def d20_faces(edge: int) -> dict[int, float]:
    """The chance of each kept d20 face: plain, or the higher (1) or lower (-1) of two."""
    if edge == 0:
        return {f: 1 / 20 for f in range(1, 21)}
    return {f: ((f * f - (f - 1) ** 2) if edge > 0 else ((21 - f) ** 2 - (20 - f) ** 2)) / 400 for f in range(1, 21)}


def beat_chance(ours: int, theirs: int, our_edge: int = 0, their_edge: int = 0) -> float:
    """The chance that d20 + `ours` beats (strictly) d20 + `theirs`: an opposed check's odds."""
    mine, other = d20_faces(our_edge), d20_faces(their_edge)
    return sum(p * q for a, p in mine.items() for b, q in other.items() if a + ours > b + theirs)


def opposed_odds(state: RaceState, racer: Racer, maneuver: str) -> float | None:
    """The chance of winning a pass, ram or side sweep against an opposing Piloting check (the target
    may not oppose at all, which only helps); None for another action."""
    if maneuver not in ("pass", "ram", "sweep"):
        return None
    other = opponent(state, racer.id, maneuver)

    def check(r: Racer) -> int:
        return state.pilot_spec(r).piloting + data.speed_penalty(r.speed) + r.bonus - r.penalty

    return beat_chance(check(racer) + maneuver_edge(maneuver, racer, other), check(other))


def caught_chance(state: RaceState, racer: Racer, kind: str) -> float | None:
    """The chance the judges catch `racer` at an illegal ram or weapon attack on this track (a failed
    Deception check against its DC, with disadvantage for a loud weapon: the first that bears); None
    where it is legal, or a seated GM rules on it ("ask"; with the bot as GM, "ask" is illegal)."""
    if not _judged_here(state, kind):
        return None
    weapons = [w for way in ("ahead", "behind") for w in armed(state, racer, way)] if kind == "attack" else []
    return _caught(state, racer, bool(weapons) and weapons[0].loud)


def reaction_caught_chance(state: RaceState) -> float | None:
    """The chance the judges catch the racer answering with a weapon (the one that bears on the racer who
    targets it) and disqualify it: as `_resolve` and `_pass` judge it, a shot where weapons are legal, one
    the GM approved, or one a seated GM rules on first (a shot at a passer) is never judged; None then."""
    pending = state.the_pending
    target = state.racer(pending.target)
    arms = armed(state, target, way_to(state, target.id, pending.actor, pending.kind))
    if legality(state, "attack") == "legal" or pending.approved or not arms or \
            pending.kind in ("pass", "forced_pass") and state.gm is not None:
        return None
    return _caught(state, target, arms[0].loud)


def _caught(state: RaceState, racer: Racer, loud: bool) -> float:
    """Seed: a failed Deception check against the track's DC, with disadvantage for a loud weapon."""
    need = state.the_track.judges_dc - state.pilot_spec(racer).deception   # a d20 this high is unseen
    unseen = min(1.0, max(0.0, (21 - need) / 20))
    return 1 - (unseen * unseen if loud else unseen)


def illegal_here(state: RaceState) -> str:
    """What this track forbids, for the racers' prompt: '' when rams and weapons are allowed."""
    banned = [words for kind, words in (("ram", "rams"), ("attack", "weapon attacks")) if _judged_here(state, kind)]
    return " and ".join(banned)


def _judged_here(state: RaceState, kind: str) -> bool:
    """Whether the judges watch for this maneuver on this track with no GM to ask first."""
    legal = legality(state, kind)
    return legal == "illegal" or (legal == "ask" and state.gm is None)


def opponent(state: RaceState, racer_id: str, maneuver: str) -> Racer:
    """The racer a pass or ram (just ahead) or another maneuver (just behind) is aimed at, once `why_not` allows it."""
    other = state.ahead_of(racer_id) if maneuver in NEEDS_TARGET_AHEAD else state.behind(racer_id)
    return required(other, f"nobody for {racer_id} to {maneuver}")


def speed_edge(faster: Racer, slower: Racer) -> int:
    """Seed: +1 for every 10 km/h one racer has over the other."""
    return max(0, (faster.speed - slower.speed) // 10)


def maneuver_edge(maneuver: str, mover: Racer, other: Racer) -> int:
    """Seed: a pass's or ram's +1 for every 10 km/h the mover has over its target; a side sweep's for every
    10 km/h the target has over the sweeper."""
    return speed_edge(other, mover) if maneuver == "sweep" else speed_edge(mover, other)


def _the_actor(state: RaceState, actor: str) -> Racer:
    racer = state.racer_of(actor)
    current = flow.actor(state)
    if racer is None or current is None or racer.id != current.id:
        name = current.name if current else "nobody"
        raise NotYourTurn(f"It is {name}'s action, not yours.")
    return racer


def legality(state: RaceState, maneuver: str) -> str:
    """'legal', 'illegal' or 'ask' for a ram or a weapon attack on this track; others are always legal."""
    track = state.the_track
    if maneuver == "ram":
        return track.ram
    if maneuver == "attack":
        return track.weapons
    return "legal"


def why_not(state: RaceState, racer: Racer, maneuver: str, then: str = "") -> str | None:
    """Why `racer` may not take `maneuver` now, or None."""
    ahead, behind = state.ahead_of(racer.id), state.behind(racer.id)
    kind = then if maneuver == "feint" else maneuver
    if maneuver == "feint" and kind not in ("pass", "sweep"):
        return "A feint leads into a pass or a side sweep (then:pass or then:sweep)."
    if kind in NEEDS_TARGET_AHEAD:
        if ahead is None:
            return "Nobody is ahead of you."
        if racer.speed < ahead.speed:
            return f"You are slower than {ahead.name} ({racer.speed} < {ahead.speed} km/h)."
    if kind in NEEDS_TARGET_BEHIND:
        if behind is None:
            return "Nobody is behind you."
        if kind == "sweep" and behind.speed < racer.speed:
            return f"{behind.name} is slower than you ({behind.speed} < {racer.speed} km/h)."
        if kind == "emergency_brake" and behind.speed > racer.speed:
            return f"{behind.name} is faster than you: braking cannot bring you up to them."
    if kind == "attack" and not any(armed(state, racer, way) for way, other in (("ahead", ahead), ("behind", behind))
                                    if other is not None):
        return "No weapon of yours bears on the racer just ahead or behind." if ahead or behind else \
            "Nobody is near enough to attack."
    if kind == "savvy" and _next_section(state) is None:
        return "This is the last section: there is no next one to study."
    if kind == "patch" and state.pilot_spec(racer).kit == "none":
        return "You must have a mechanic's kit on hand to patch (seed)."
    return None


def _next_section(state: RaceState) -> int | None:
    track = state.the_track
    if state.section + 1 < len(track.sections):
        return state.section + 1
    return 0 if state.lap + 1 < track.laps else None


def act(state: RaceState, actor: str, action: Act) -> tuple[RaceState, tuple]:
    """The racer whose action it is takes one (or none)."""
    racer = _the_actor(state, actor)
    maneuver = action.maneuver.strip().lower().replace("-", "_").replace(" ", "_")
    if maneuver not in MANEUVERS:
        raise BadOption(f"/act takes one of: {', '.join(MANEUVERS)}.")
    then = action.then.strip().lower()
    why = why_not(state, racer, maneuver, then)
    if why:
        raise BadOption(why)
    kind = then if maneuver == "feint" else maneuver
    if action.target and kind != "attack" and state.revision >= 4:   # taken and ignored before: say so
        raise BadOption(f"target: names an attack's target; a {kind.replace('_', ' ')} is aimed by the rules at the "
                        f"racer just ahead or behind: leave target: out.")
    dived, dropped = _dive(state, racer.id, maneuver, then, action.descend)
    if state.gm is not None and (legality(state, kind) == "ask" or
                                 kind == "patch" and state.pilot_spec(racer).kit == "other"):
        # From revision 5 the dive, checked above, waits on the approval: a refused action makes no check.
        held = action.descend if state.revision >= 5 else 0
        pending = Pending("approve", racer.id, racer.id, then=f"{maneuver}:{then}:{action.target}",
                          weapon=action.weapon, descend=held)
        asked = Chose(racer.name, f"asks the GM to {kind}")
        return replace(state if held else dived, phase=Phase.APPROVAL, pending=pending), \
            (() if held else dropped) + (asked,)
    state, events = _take(dived, dived.racer(racer.id), maneuver, then, action.target, approved=False,
                          weapon=action.weapon)
    return state, dropped + events


def _dive(state: RaceState, racer_id: str, maneuver: str, then: str, metres: int) -> tuple[RaceState, tuple]:
    """A dive before an action's Piloting check; from revision 4 the action's conditions hold after it."""
    kind = then if maneuver == "feint" else maneuver
    state, dropped = _descend_first(state, racer_id, metres, kind in PILOTING_MANEUVERS)
    if dropped and state.revision >= 4:
        # The dive comes before the check (seed), so the maneuver's conditions hold after it.
        why = why_not(state, state.racer(racer_id), maneuver, then)
        if why:
            raise BadOption(f"After dropping {metres} m: {why}")
    return state, dropped


def _take(state: RaceState, racer: Racer, maneuver: str, then: str, target: str,
          approved: bool, weapon: str = "") -> tuple[RaceState, tuple]:
    state = state.with_racer(replace(racer, acted=True))
    if maneuver in SOLO:
        state, events = SOLO[maneuver](state, racer.id)
        return _done(state, events)
    if maneuver == "attack":
        return _attack(state, racer.id, target, approved, weapon)
    if maneuver == "emergency_brake":
        return _emergency_brake(state, racer.id)
    events = ()
    feint = ""
    if maneuver == "feint":
        state, feint, events = _feint(state, racer.id, then)
        maneuver = then
    other = opponent(state, racer.id, maneuver)
    pending = Pending(maneuver, racer.id, other.id, feint=feint, approved=approved)
    return _ask_reaction(state, pending, events + (Maneuver(racer.name, _WORDS[maneuver], other.name),))


_WORDS = {"pass": "tries to pass", "ram": "tries to ram", "sweep": "tries to side sweep",
          "forced_pass": "is forced to pass"}
_CHECK = {"pass": "pass", "forced_pass": "forced pass", "ram": "ram", "sweep": "side sweep"}


def _ask_reaction(state: RaceState, pending: Pending, events: tuple) -> tuple[RaceState, tuple]:
    """The target chooses its reaction; one that may no longer react does not oppose (ruling)."""
    target = state.racer(pending.target)
    if target.reacted or target.out:
        return _resolve(replace(state, pending=pending), "none", False, events)
    return replace(state, phase=Phase.REACTION, pending=pending), events


def reaction_why_not(state: RaceState, reaction: str) -> str | None:
    """Why the targeted racer may not answer with `reaction` now, or None."""
    pending = state.the_pending
    target = state.racer(pending.target)
    allowed = REACTIONS_TO[pending.kind]
    if reaction not in allowed:
        return f"Against this you may: {', '.join(allowed)}."
    if reaction == "attack" and not armed(state, target, way_to(state, target.id, pending.actor, pending.kind)):
        return "No weapon of yours bears on that racer."
    if reaction == "attack" and pending.refused:
        return "The GM refused a weapon reaction to this pass: choose another."
    if reaction == "sweep" and state.racer(pending.actor).speed < target.speed:
        return "You cannot side sweep a slower racer."
    return None


def react(state: RaceState, actor: str, action: React) -> tuple[RaceState, tuple]:
    """The targeted racer answers: block, side sweep, dodge (braking for a bonus), attack, or none."""
    pending = state.the_pending
    target = state.racer(pending.target)
    if target.owner != actor:
        raise NotYourTurn(f"{target.name} chooses the reaction, not you.")
    reaction = action.reaction.strip().lower()
    why = reaction_why_not(state, reaction)
    if why:
        raise BadOption(why)
    if reaction == "attack" and pending.kind in ("pass", "forced_pass") and state.gm is not None:
        # Seed: "Subject to GM's approval, Weapon Attacks can be used as a reaction to being passed."
        asking = Pending("approve", target.id, target.id, then="react", waiting=pending)
        return replace(state, phase=Phase.APPROVAL, pending=asking), (Chose(target.name, "asks the GM to shoot"),)
    # Ruling: a ram's or sweep's speed bonus is the difference as declared; from revision 5 the target's dive
    # below leaves it so, as its dodge's brake does.
    declared = maneuver_edge(pending.kind, state.racer(pending.actor), target) if state.revision >= 5 else None
    state, dropped = _descend_first(state, target.id, action.descend, reaction in ("block", "sweep", "dodge"))
    if dropped and state.revision >= 4:
        # The dive comes before the check (seed), so the reaction's conditions hold after it.
        why = reaction_why_not(state, reaction)
        if why:
            raise BadOption(f"After dropping {action.descend} m: {why}")
    state = state.with_racer(replace(state.racer(target.id), reacted=reaction != "none"))
    return _resolve(state, reaction, action.brake and reaction == "dodge", dropped + (Reacted(target.name, reaction),),
                    declared)


PILOTING_MANEUVERS = ("pass", "ram", "sweep", "show_off")   # the actions that make a Piloting check


def _descend_first(state: RaceState, racer_id: str, metres: int, checks_next: bool) -> tuple[RaceState, tuple]:
    """Seed: "racers may opt to reduce altitude before making any Piloting check"."""
    if not metres:
        return state, ()
    if not checks_next:
        raise BadOption("Altitude is dropped before a Piloting check: this makes none.")
    return change_altitude(state, racer_id, -metres)


def _resolve(state: RaceState, reaction: str, brake: bool, events: tuple,
             edge: int | None = None) -> tuple[RaceState, tuple]:
    """The reaction chosen, the action resolves; `edge` is a ram's or sweep's speed bonus as declared (None:
    measured now)."""
    pending = state.the_pending
    state = replace(state, phase=Phase.ACTION, pending=None)
    if pending.kind in ("pass", "forced_pass"):
        return _pass(state, pending, reaction, events)
    if pending.kind == "ram":
        return _ram(state, pending, reaction, brake, events, edge)
    if pending.kind == "sweep":
        return _sweep(state, pending, reaction, brake, events, edge)
    # attack_back
    if reaction == "attack":
        weapon = _weapon_toward(state, pending.target, pending.actor, "attack_back")
        state, more = _shoot(state, pending.target, pending.actor, weapon)
        state, judged = _judge(state, pending.target, "attack", pending.approved, weapon.loud)
        return _done(state, events + more + judged)
    return _done(state, events + (Chose(state.racer(pending.target).name, "does not shoot back"),))


def _opposed(state: RaceState, pending: Pending, actor_edge: int, target_edge: int, actor_adv: bool = False,
             actor_dis: bool = False) -> tuple[RaceState, int, int, tuple]:
    """Both Piloting checks of an opposed maneuver; a feint gives one side advantage (seed)."""
    mover, other = state.racer(pending.actor), state.racer(pending.target)
    state, ours, rolled = checks.piloting(state, mover.id, f"Piloting ({_CHECK[pending.kind]})",
                                          extra=(("speed over", actor_edge),),
                                          advantage=actor_adv or pending.feint == "won", disadvantage=actor_dis)
    state, theirs, answered = checks.piloting(state, other.id, f"Piloting against {mover.name}",
                                              extra=(("speed over", target_edge),),
                                              advantage=pending.feint == "lost")
    return state, ours, theirs, (rolled, answered)


def _pass(state: RaceState, pending: Pending, reaction: str, events: tuple,
          approved: bool = False) -> tuple[RaceState, tuple]:
    """Seed, Pass: higher passes and the two switch places; a tie does not pass; lower suffers the
    reaction's consequences. Block: a win slows the passer to the blocker's speed - 10; a tie matches
    the blocker to the passer's speed. Forced by an emergency brake: with disadvantage."""
    mover, other = state.racer(pending.actor), state.racer(pending.target)
    forced = pending.kind == "forced_pass"
    if reaction == "none" or reaction == "attack":
        if reaction == "attack":   # the seed: this reaction "does not prevent you from being passed"
            weapon = _weapon_toward(state, other.id, mover.id, pending.kind)
            state, more = _shoot(state, other.id, mover.id, weapon, penalty=2, advantage=pending.feint == "lost")
            state, judged = _judge(state, other.id, "attack", approved, weapon.loud)
            events += more + judged
            if state.racer(mover.id).out and state.revision >= 5:   # a wreck passes nobody
                return _done(state, events + (Maneuver(mover.name, "fails to pass", other.name,
                                                       "the pass ends in the wreck"),))
        state, more = swapped(state, mover.id, other.id)
        return _done(state, events + (Maneuver(mover.name, "passes", other.name),) + more)
    edge = speed_edge(mover, other)
    if reaction == "sweep":
        sweeper_edge = speed_edge(mover, other)   # the sweeper gains for the speed the passer has over it
        state, ours, theirs, rolled = _opposed(state, pending, edge, sweeper_edge, actor_dis=forced)
        events += rolled
        if ours > theirs:
            state, more = swapped(state, mover.id, other.id)
            events += (Maneuver(mover.name, "passes", other.name),) + more
            return _swept(state, other.id, mover.id, ours, events)   # the sweeper's own lower roll (seed)
        if ours == theirs:
            tie = Maneuver(mover.name, "fails to pass", other.name, "a tie, and no harm done")
            return _done(state, events + (tie,))
        return _swept(state, mover.id, other.id, theirs, events + (Maneuver(mover.name, "fails to pass", other.name,
                                                                            "swept aside"),))
    state, ours, theirs, rolled = _opposed(state, pending, edge, 0, actor_dis=forced)
    events += rolled
    if ours > theirs:
        state, more = swapped(state, mover.id, other.id)
        return _done(state, events + (Maneuver(mover.name, "passes", other.name),) + more)
    if ours == theirs:
        state, more = set_speed(state, other.id, state.racer(mover.id).speed, "matches the passer's speed")
        return _done(state, events + (Maneuver(mover.name, "fails to pass", other.name, "blocked, a tie"),) + more)
    blocker = state.racer(other.id).speed
    if state.revision >= 4:
        # Seed: the passer "instead loses speed": from revision 4 a blocker whose dive made it faster
        # than the passer counts at the passer's speed, so the block never speeds him up.
        blocker = min(blocker, state.racer(mover.id).speed)
    state, more = set_speed(state, mover.id, blocker - 10, "is blocked")
    return _done(state, events + (Maneuver(mover.name, "fails to pass", other.name, "blocked"),) + more)


def _ram(state: RaceState, pending: Pending, reaction: str, brake: bool, events: tuple,
         edge: int | None = None) -> tuple[RaceState, tuple]:
    """Seed, Ram: a higher roll rams. Both make a Vehicle Roll (Constitution); the lower takes the
    difference, and the rammed racer 1 more plus the rammer's speed bonus."""
    mover, other = state.racer(pending.actor), state.racer(pending.target)
    # ruling: as the ram was declared; a dodge's brake earns its bonus only
    edge = maneuver_edge("ram", mover, other) if edge is None else edge
    hit = True
    if reaction == "dodge":
        if brake:
            state, more = _dodge_brake(state, other.id)
            events += more
        state, ours, theirs, rolled = _opposed(state, pending, edge, 0)
        events += rolled
        hit = ours > theirs
    if not hit:
        return _judged(state, pending, events + (Maneuver(mover.name, "fails to ram", other.name, "dodged"),))
    state, mine, a = vehicle_roll(state, mover, "con", state.vehicle_spec(mover))
    state, theirs, b = vehicle_roll(state, other, "con", state.vehicle_spec(other))
    events += (Maneuver(mover.name, "rams", other.name), a, b)
    if mine < theirs:
        state, more = damage(state, mover.id, theirs - mine)
        events += more
    target_damage = (mine - theirs if mine > theirs else 0) + 1 + edge
    state, more = damage(state, other.id, target_damage)
    return _judged(state, pending, events + more)


def _dodge_brake(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: a dodging racer may brake for a bonus (the speed-loss bonus of the check it makes)."""
    racer = state.racer(racer_id)
    state, roll, rolled = vehicle_roll(state, racer, "dex", state.vehicle_spec(racer))
    state, more = lose(state, racer_id, min(roll * 10, max(0, racer.speed - data.table()["start_speed"])),
                       "brakes to dodge")
    return state, (rolled,) + more


def _sweep(state: RaceState, pending: Pending, reaction: str, brake: bool, events: tuple,
           edge: int | None = None) -> tuple[RaceState, tuple]:
    """Seed, Side Sweep: higher sweeps the other into the section's hazard, a tie harms nobody, lower
    sweeps the sweeper. +1 for every 10 km/h the opponent has over the sweeper (as declared: `edge`)."""
    mover, other = state.racer(pending.actor), state.racer(pending.target)
    edge = maneuver_edge("sweep", mover, other) if edge is None else edge
    if reaction != "dodge":
        state, ours, check = checks.piloting(state, mover.id, "Piloting (side sweep)", extra=(("speed under", edge),),
                                             advantage=pending.feint == "won")
        return _swept(state, other.id, mover.id, ours, events + (check,))
    if brake:
        state, more = _dodge_brake(state, other.id)
        events += more
    state, ours, theirs, rolled = _opposed(state, pending, edge, 0)
    events += rolled
    if ours > theirs:
        return _swept(state, other.id, mover.id, ours, events)
    if ours == theirs:
        return _done(state, events + (Maneuver(mover.name, "fails to side sweep", other.name, "a tie, nobody harmed"),))
    return _swept(state, mover.id, other.id, theirs, events + (Maneuver(mover.name, "fails to side sweep", other.name,
                                                                        "dodged, and swept instead"),))


def _swept(state: RaceState, swept_id: str, by_id: str, roll: int, events: tuple) -> tuple[RaceState, tuple]:
    """A racer side swept into the hazard may first try to stabilize by braking (seed)."""
    swept = state.racer(swept_id)
    events += (Maneuver(state.racer(by_id).name, "side sweeps", swept.name),)
    pending = Pending("stabilize", by_id, swept_id, roll=roll)
    return replace(state, phase=Phase.STABILIZE, pending=pending), events


def stabilize(state: RaceState, actor: str, action: Stabilize) -> tuple[RaceState, tuple]:
    """Seed: lose 20 km/h at once and make a Vehicle Roll (Dexterity); at or above the Piloting roll that
    swept, the vehicle stabilizes and misses the hazard (ruling: against the total that beat you)."""
    pending = state.the_pending
    swept = state.racer(pending.target)
    if swept.owner != actor:
        raise NotYourTurn(f"{swept.name} decides whether to stabilize, not you.")
    state = replace(state, phase=Phase.ACTION, pending=None)
    events: tuple = ()
    if action.attempt:
        state, more = lose(state, swept.id, 20, "brakes hard to stabilize")
        swept = state.racer(swept.id)
        state, roll, rolled = vehicle_roll(state, swept, "dex", state.vehicle_spec(swept))
        events += more + (rolled,)
        if roll >= pending.roll:
            return _done(state, events + (Chose(swept.name, "stabilizes and misses the hazard"),))
    state, more = checks.hit_hazard(state, swept.id)
    return _done(state, events + more)


def _emergency_brake(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: your speed becomes that of the racer behind you, who must pass you with disadvantage."""
    racer, behind = state.racer(racer_id), opponent(state, racer_id, "emergency_brake")
    state, events = set_speed(state, racer_id, behind.speed, "brakes hard")
    pending = Pending("forced_pass", behind.id, racer_id)
    return _ask_reaction(state, pending, (Maneuver(racer.name, "brakes hard in front of", behind.name),) + events)


def _feint(state: RaceState, racer_id: str, then: str) -> tuple[RaceState, str, tuple]:
    """Seed: Charisma (Deception) against Wisdom (Insight); winning gives advantage on the maneuver's
    check, losing gives the opponent advantage on its reaction (ruling: a tie is a loss)."""
    racer = state.racer(racer_id)
    other = opponent(state, racer_id, then)
    state, ours, a = d20(state, racer.name, "Deception (feint)", (("Deception", state.pilot_spec(racer).deception),))
    state, theirs, b = d20(state, other.name, "Insight", (("Insight", state.pilot_spec(other).insight),))
    won = ours > theirs
    return state, "won" if won else "lost", (a, b, Maneuver(racer.name, "feints at", other.name,
                                                            "fooled" if won else "seen through"))


def _attack(state: RaceState, racer_id: str, target: str, approved: bool, weapon: str = "") -> tuple[RaceState, tuple]:
    """Seed: a weapon attack on the racer ahead or behind; the one attacked may shoot back."""
    racer = state.racer(racer_id)
    near = attack_targets(state, racer)
    wanted = target.strip().casefold()
    chosen = next(((way, r) for way, r in near if wanted in (r.id, r.name.casefold(), r.owner.casefold())), None)
    if chosen is None:
        if wanted or len(near) > 1:
            raise BadOption(f"Attack the racer just ahead or behind: {', '.join(r.name for _w, r in near)}.")
        chosen = near[0]
    way, other = chosen
    arms = armed(state, racer, way)
    arm = next((a for a in arms if a.name.casefold() == weapon.strip().casefold()
                or (weapon.strip().lower() == "sidearm" and a.facing == "hand")), None) if weapon.strip() else arms[0]
    if arm is None:
        raise BadOption(f"Weapons that bear {way}: {', '.join(a.name for a in arms)}.")
    state, events = _shoot(state, racer_id, other.id, arm)
    state, judged = _judge(state, racer_id, "attack", approved, arm.loud)
    pending = Pending("attack_back", racer_id, other.id, approved=approved)
    events += judged
    if state.racer(racer_id).out or state.racer(other.id).out or state.racer(other.id).reacted \
            or not armed(state, state.racer(other.id), way_to(state, other.id, racer_id, "attack_back")):
        return _done(state, events)
    return replace(state, phase=Phase.REACTION, pending=pending), events


def attack_targets(state: RaceState, racer: Racer) -> list[tuple[str, Racer]]:
    """The racers `racer` may attack, each with the way it shoots ('ahead', 'behind'): just ahead or behind,
    where a weapon bears."""
    near = (("ahead", state.ahead_of(racer.id)), ("behind", state.behind(racer.id)))
    return [(way, r) for way, r in near if r is not None and armed(state, racer, way)]


def armed(state: RaceState, racer: Racer, way: str) -> tuple[data.Weapon, ...]:
    """The weapons `racer` can bring to bear `way` ('ahead', 'behind' or 'beside', a passer): the vehicle's
    that face that way first (seed: "You can't attack backwards with forward facing vehicle weapons and vice
    versa"; beside a passer, those that "can attack sideways"), then the pilot's sidearm."""
    faces = {"ahead": ("forward", "any"), "behind": ("backward", "any"), "beside": ("sideways", "any")}[way]
    own = tuple(w for w in state.vehicle_spec(racer).weapons if w.facing in faces)
    sidearm = state.pilot_spec(racer).sidearm
    return own + ((sidearm,) if sidearm else ())


def way_to(state: RaceState, shooter_id: str, target_id: str, kind: str) -> str:
    if kind in ("pass", "forced_pass"):
        return "beside"
    return "ahead" if state.position(target_id) < state.position(shooter_id) else "behind"


def _weapon_toward(state: RaceState, shooter_id: str, target_id: str, kind: str) -> data.Weapon:
    return armed(state, state.racer(shooter_id), way_to(state, shooter_id, target_id, kind))[0]


def _shoot(state: RaceState, shooter_id: str, target_id: str, arm: data.Weapon, penalty: int | None = None,
           advantage: bool = False) -> tuple[RaceState, tuple]:
    """One weapon's attack roll against the target's AC, +1 AC for every 10 km/h of speed difference
    (seed). A hand weapon costs -2 on the shooter's next Piloting check forwards, -5 backwards, and a
    vehicle's weapon nothing; `penalty` is a reaction to a pass's, "still -2" whatever the weapon."""
    shooter, target = state.racer(shooter_id), state.racer(target_id)
    spread = abs(shooter.speed - target.speed) // 10
    if penalty is None and arm.facing == "hand":
        penalty = 2 if state.position(target_id) < state.position(shooter_id) else 5
    if penalty:
        state = state.with_racer(replace(shooter, penalty=shooter.penalty + penalty))
    if arm.save:
        return _blast(state, shooter, target, arm, spread)
    ac = state.vehicle_spec(target).ac + spread
    state, total, rolled = d20(state, shooter.name, f"attack with the {arm.name}", (("attack", arm.attack),),
                               advantage=advantage, verdict=lambda t: "hit" if t >= ac else "miss")
    events: tuple = (Maneuver(shooter.name, f"shoots the {arm.name} at", target.name), rolled)
    if total < ac:
        return state, events
    state, points, hurt = damage_dice(state, shooter.name, f"{arm.name} damage", arm.dice, arm.die, arm.bonus)
    state, more = damage(state, target_id, points)
    return state, events + (hurt,) + more


def _blast(state: RaceState, shooter: Racer, target: Racer, arm: data.Weapon, spread: int) -> tuple[RaceState, tuple]:
    """An explosive: no attack roll; the target's pilot makes a Dexterity saving throw against its DC, +1
    for every 10 km/h of speed difference (seed); FOUND (5e): a save takes half the damage, rounded down."""
    pilot = state.pilot_spec(target)
    state, total, saved = d20(state, target.name, f"Dexterity save against the {arm.name}",
                              (("Dex save", pilot.dex_save), ("speed apart", spread)),
                              verdict=lambda t: "half" if t >= arm.save else "full")
    state, points, hurt = damage_dice(state, shooter.name, f"{arm.name} damage", arm.dice, arm.die, arm.bonus)
    dealt = points // 2 if total >= arm.save else points
    state, more = damage(state, target.id, dealt)
    return state, (Maneuver(shooter.name, f"throws the {arm.name} at", target.name), saved, hurt) + more


def _judged(state: RaceState, pending: Pending, events: tuple) -> tuple[RaceState, tuple]:
    """The acting racer's ram before the judges, then on to the next action."""
    state, judged = _judge(state, pending.actor, "ram", pending.approved)
    return _done(state, events + judged)


def _judge(state: RaceState, racer_id: str, kind: str, approved: bool, loud: bool = False) -> tuple[RaceState, tuple]:
    """Seed: an illegal ram or weapon attack (a reaction's too), hit or miss, faces the judges: a Charisma
    (Deception) check against the track's DC, with disadvantage for a `loud` weapon; a failure
    disqualifies. An action a seated GM approved is not judged."""
    racer = state.racer(racer_id)
    if legality(state, kind) == "legal" or approved or racer.out:
        return state, ()
    dc = state.the_track.judges_dc
    state, total, rolled = d20(state, racer.name, "Deception against the judges",
                               (("Deception", state.pilot_spec(racer).deception),), disadvantage=loud,
                               verdict=lambda t: "unseen" if t >= dc else "caught")
    if total >= dc:
        return state, (rolled,)
    state, more = go_out(state, racer.id, "disqualified")
    return state, (rolled,) + more


def gm_rule(state: RaceState, actor: str, action: GmRule) -> tuple[RaceState, tuple]:
    """A seated GM approves the action (taken as legal, no judges) or refuses it (the racer chooses again)."""
    if actor != state.gm:
        raise NotYourTurn("Only the game master approves actions.")
    pending = state.the_pending
    racer = state.racer(pending.actor)
    if pending.then == "react":
        return _rule_on_reaction(state, pending, action.approve)
    maneuver, then, target = pending.then.split(":", 2)
    state = replace(state, phase=Phase.ACTION, pending=None)
    if not action.approve:
        return state, (Chose("The GM", f"refuses {racer.name}'s {then or maneuver}"),)
    if why_not(state, racer, maneuver, then):
        raise WrongPhase("That action is no longer possible.")
    state, dropped = _dive(state, racer.id, maneuver, then, pending.descend)   # revision 5: held till now
    state, events = _take(state, state.racer(racer.id), maneuver, then, target, approved=True, weapon=pending.weapon)
    return state, (Chose("The GM", f"approves {racer.name}'s {then or maneuver}"),) + dropped + events


def _rule_on_reaction(state: RaceState, asking: Pending, approve: bool) -> tuple[RaceState, tuple]:
    """The GM's ruling on a weapon reaction to a pass: approved, the shot is taken (and not judged);
    refused, the racer passed chooses another reaction."""
    racer, waiting = state.racer(asking.actor), required(asking.waiting, "no pass waits on the GM's ruling")
    if not approve:
        said = (Chose("The GM", f"refuses {racer.name}'s weapon reaction"),)
        return replace(state, phase=Phase.REACTION, pending=replace(waiting, refused=True)), said
    state = replace(state, pending=waiting)
    state = state.with_racer(replace(racer, reacted=True))
    approved = (Chose("The GM", f"approves {racer.name}'s weapon reaction"), Reacted(racer.name, "attack"))
    return _pass(replace(state, phase=Phase.ACTION, pending=None), waiting, "attack", approved, approved=True)


def _done(state: RaceState, events: tuple) -> tuple[RaceState, tuple]:
    """The action (and its reactions) are over: on to the next racer's action."""
    state, more = flow.skip_to_actor(replace(state, phase=Phase.ACTION, pending=None))
    return state, events + more


# --- the actions a racer takes alone --------------------------------------------------------------

def _none(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    return state, (Chose(state.racer(racer_id).name, "takes no action"),)


def _show_off(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: a Piloting check against the section's DC plus your place; in first place, a Performance
    check too. The rewards are off the track, the GM's to give."""
    racer = state.racer(racer_id)
    place = state.position(racer_id)
    dc = checks.section_dc(state, state.section, racer.altitude) + place
    state, total, rolled = checks.piloting(state, racer_id, "Piloting (show off)", dc)
    events: tuple = (rolled, Maneuver(racer.name, "shows off", result="the crowd roars" if total >= dc else "fumbles"))
    if place == 1:   # seed: "If you occupy the first place ..., you may attempt a Performance check"
        state, _total, more = d20(state, racer.name, "Performance (show off)",
                                  (("Performance", state.pilot_spec(racer).performance),))
        events += (more,)
    return state, events


def _savvy(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: an Intelligence check against the next section's DC; success gives advantage on its
    Piloting check. "Force users can attempt to make Wisdom or Charisma check, instead of Intelligence":
    ruling, a racer the data marks a force user uses the best of the three."""
    racer = state.racer(racer_id)
    pilot = state.pilot_spec(racer)
    dc = checks.section_dc(state, required(_next_section(state), "no next section to study"), racer.altitude)
    abilities = (("Int", pilot.int), ("Wis", pilot.wis), ("Cha", pilot.cha)) if pilot.force_user else \
        (("Int", pilot.int),)
    name, score = max(abilities, key=lambda a: a[1])
    full = {"Int": "Intelligence", "Wis": "Wisdom", "Cha": "Charisma"}[name]
    state, total, rolled = d20(state, racer.name, f"{full} (savvy)", ((name, data.modifier(score)),),
                               verdict=lambda t: "a better line" if t >= dc else "no better line")
    state = state.with_racer(replace(state.racer(racer_id), advantage=total >= dc))
    return state, (rolled,)


def _patch(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: Intelligence (Mechanic's Kit) against 15 + the vehicle's tier; success rolls the vehicle's
    Hit Die back onto its hit points (ruling: not above its maximum). Every default racer carries the kit;
    "other kits and tools" need a seated GM's approval (with the bot as GM they serve)."""
    racer = state.racer(racer_id)
    spec = state.vehicle_spec(racer)
    dc = 15 + spec.tier
    state, total, rolled = d20(state, racer.name, "Mechanic's kit (patch)",
                               (("Mechanic", state.pilot_spec(racer).mechanic),),
                               verdict=lambda t: "patched" if t >= dc else "no luck")
    if total < dc:
        return state, (rolled,)
    state, (face,) = dice(state, 1, spec.hull_die)
    rolled_die = DiceRolled(racer.name, "Hit Die (patch)", f"d{spec.hull_die}", (face,), face)
    hp = min(spec.hp, state.racer(racer_id).hp + face)
    state = state.with_racer(replace(state.racer(racer_id), hp=hp))
    return state, (rolled, rolled_die, Maneuver(racer.name, "patches the hull", result=f"{hp} HP"))


def _turbo(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: Vehicle Rolls (Strength) and (Constitution); the speed rises by the first x 10 (ruling: past
    the maximum), and the vehicle takes the first minus the second as damage, which does not slow it."""
    racer = state.racer(racer_id)
    spec = state.vehicle_spec(racer)
    state, push, a = vehicle_roll(state, racer, "str", spec)
    state, hold, b = vehicle_roll(state, racer, "con", spec)
    state, more = gain(state, racer_id, push * 10, "turbo boosts", capped=False)
    events: tuple = (a, b) + more
    state, hurt = damage(state, racer_id, push - hold, slows=False)
    return state, events + hurt


SOLO = {"none": _none, "show_off": _show_off, "savvy": _savvy, "patch": _patch, "turbo": _turbo}
