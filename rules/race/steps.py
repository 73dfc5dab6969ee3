"""The answers racers give together: fine-tuning before the race, braking or changing altitude before a
section's check, accelerating after it, trying for a feature; and a seated GM readying a section. The
last answer of a step runs the race on."""

from __future__ import annotations

from dataclasses import replace

from rules.errors import BadOption, NotYourTurn
from rules.names import NOTE_LIMIT, plain_name
from rules.race import data, flow, lobby, speed
from rules.race.actions import GmChange, GmCondition, GmReveal, GmReward, GmTell, Prepare, Throttle, TryFeature, Tune
from rules.race.events import Chose, Rewarded, SectionChanged, Tuned
from rules.race.rolls import ABILITY_NAMES, d20, vehicle_roll
from rules.race.speed import gain, lose
from rules.race.state import GmNote, Phase, Racer, RaceState
from rules.seats import answer_first
from rules.table import NoteSent


def _answering(state: RaceState, actor: str):
    racer = state.racer_of(actor)
    if racer is None or racer.out:
        raise NotYourTurn("You have no racer in this race.")
    if racer.answered:
        raise NotYourTurn("You have answered this step; the others are still choosing.")
    return racer


def _answered(state: RaceState, racer_id: str) -> RaceState:
    return state.with_racer(replace(state.racer(racer_id), answered=True))


def tune(state: RaceState, actor: str, action: Tune) -> tuple[RaceState, tuple]:
    """Seed: an Intelligence (Technology, Mechanic's Kit) check against 5 + the ability score; success
    adds +1 to that Vehicle Roll for the race. Each racer has the table's number of attempts."""
    racer = _answering(state, actor)
    ability = action.ability.strip().lower()[:3]
    if not ability:
        state, events = _answered(state, racer.id), (Chose(racer.name, "is ready to race"),)
        return _tuning_done(state, events)
    if ability not in ABILITY_NAMES:
        raise BadOption("Fine-tune str, dex or con (or /tune with nothing to be ready).")
    if ability in racer.tuned:
        raise BadOption(f"The {ABILITY_NAMES[ability]} is fine-tuned already.")
    spec = state.vehicle_spec(racer)
    dc = 5 + getattr(spec, ability)
    pilot = state.pilot_spec(racer)
    state, total, rolled = d20(state, racer.name, f"Technology check to fine-tune {ABILITY_NAMES[ability]}",
                               (("Technology", pilot.technology),), verdict=lambda t: "tuned" if t >= dc else "no luck")
    racer = state.racer(racer.id)
    left = racer.tunes_left - 1
    racer = replace(racer, tunes_left=left, tuned=racer.tuned + ((ability,) if total >= dc else ()),
                    answered=left <= 0)
    state = state.with_racer(racer)
    return _tuning_done(state, (rolled, Tuned(racer.name, ABILITY_NAMES[ability], total >= dc)))


def _tuning_done(state: RaceState, events: tuple) -> tuple[RaceState, tuple]:
    if flow.waiting(state):
        return state, events
    state, more = lobby.go(state)
    return state, events + more


def prepare(state: RaceState, actor: str, action: Prepare) -> tuple[RaceState, tuple]:
    """Seed: racers may brake before the section's check (a Vehicle Roll (Dexterity) x 10, the speed cut
    by up to that much) and may gain altitude when they brake, or drop altitude before any check."""
    racer = _answering(state, actor)
    if action.climb and action.descend:
        raise BadOption("Climb or descend, not both.")
    if action.climb and not action.brake:
        raise BadOption("Altitude is gained only with a brake or an acceleration (seed).")
    events: tuple = ()
    if action.brake:
        state, rolled_events = _brake(state, racer.id, action.to)
        events += rolled_events
    state, more = flow.climb_or_descend(state, racer.id, action.climb, action.descend)
    events += more or (() if action.brake else (Chose(racer.name, "holds the speed"),))
    state = _answered(state, racer.id)
    if flow.waiting(state):
        return state, events
    state, more = flow.run_checks(state)
    return state, events + more


def _brake(state: RaceState, racer_id: str, floor: int) -> tuple[RaceState, tuple]:
    """Brake: the Dexterity roll x 10 is the most the speed drops; down to `floor` (0: not below 300)."""
    racer = state.racer(racer_id)
    state, roll, rolled = vehicle_roll(state, racer, "dex", state.vehicle_spec(racer))
    lowest = floor or data.table()["start_speed"]
    cut = max(0, min(roll * 10, racer.speed - lowest))
    state, more = lose(state, racer_id, cut, "brakes")
    return state, (rolled,) + (more or (Chose(racer.name, "brakes but keeps the speed"),))


def throttle(state: RaceState, actor: str, action: Throttle) -> tuple[RaceState, tuple]:
    """Seed: a racer who made the check may accelerate: a Vehicle Roll (Strength) x 10, the speed raised
    by up to that much (ruling: not past the vehicle's maximum); altitude may be bought with speed."""
    racer = _answering(state, actor)
    events: tuple = ()
    if action.accelerate:
        state, roll, rolled = vehicle_roll(state, racer, "str", state.vehicle_spec(racer))
        top = action.to or state.vehicle_spec(racer).max_speed
        state, more = gain(state, racer.id, max(0, min(roll * 10, top - racer.speed)), "accelerates", capped=True)
        events += (rolled,) + more
    else:
        events += (Chose(racer.name, "keeps the speed"),)
    state, more = flow.climb_or_descend(state, racer.id, action.climb, 0)
    state = _answered(state, racer.id)
    events += more
    if flow.waiting(state):
        return state, events
    state, more = flow.start_features(state, "before")
    return state, events + more


def try_feature(state: RaceState, actor: str, action: TryFeature) -> tuple[RaceState, tuple]:
    """Seed: a racer may decline to contact a positive feature, or to avoid a negative one."""
    racer = _answering(state, actor)
    feature = flow.stage_features(state)[state.feature]
    name = flow.FEATURE_NAMES[feature.kind]
    said = (f"goes for the {name}" if action.attempt else f"leaves the {name}") if feature.positive else \
        (f"tries to avoid the {name}" if action.attempt else f"rides into the {name}")
    if action.descend and not action.attempt:
        raise BadOption("Altitude is dropped before a Piloting check: leaving the feature makes none.")
    state, dropped = flow.climb_or_descend(state, racer.id, 0, action.descend)
    state = state.with_racer(replace(state.racer(racer.id), trying=action.attempt, answered=True))
    told = (Chose(racer.name, said),) + dropped
    if flow.waiting(state):
        return state, told
    state, events = flow.resolve_feature(state)
    state, more = flow.next_feature(state)
    return state, told + events + more


def gm_change(state: RaceState, actor: str, action: GmChange) -> tuple[RaceState, tuple]:
    """A seated GM changes the next section's DC before it is revealed (privately: no event says how)."""
    _gm_only(state, actor)
    if not -20 <= action.delta <= 20:
        raise BadOption("Change a DC by -20 to +20.")
    changes = tuple((s, d) for s, d in state.dc_changes if s != state.section)
    total = sum(d for s, d in state.dc_changes if s == state.section) + action.delta
    told = (SectionChanged(state.the_section.name, f"DC {action.delta:+d} ({total:+d} in all)"),) \
        if state.revision >= 2 else ()
    return replace(state, dc_changes=changes + ((state.section, total),)), told


def gm_condition(state: RaceState, actor: str, action: GmCondition) -> tuple[RaceState, tuple]:
    """A seated GM changes the next section's conditions before it is revealed. The track as changed is
    the race's own from then on; conditions are public (the racers see them when it is revealed), the
    DCs they make are not."""
    _gm_only(state, actor)
    kinds = data.table()["conditions"]
    kind = action.kind.strip().lower().replace(" ", "_")
    if kind not in kinds:
        raise BadOption(f"condition: one of {', '.join(kinds)}.")
    if not 0 <= action.altitude <= 1000:
        raise BadOption("altitude: 0 to 1000 metres.")
    section = state.the_section
    if action.remove:
        if not any(c.kind == kind for c in section.conditions):
            raise BadOption(f"{section.name} has no {kind.replace('_', ' ')}.")
        conditions = tuple(c for c in section.conditions if c.kind != kind)
    else:
        strike = kinds[kind].get("strike", {})
        added = data.Condition(kind, action.altitude, strike.get("dice", 0), strike.get("die", 0),
                               strike.get("save", 0), strike.get("what", kind.replace("_", " ")))
        conditions = tuple(c for c in section.conditions if c.kind != kind) + (added,)
    track = state.the_track
    sections = tuple(replace(s, conditions=conditions) if n == state.section else s
                     for n, s in enumerate(track.sections))
    where = f" from {action.altitude} m" if action.altitude else ""
    change = f"{kind.replace('_', ' ')}{where} {'removed' if action.remove else 'added'}"
    told = (SectionChanged(section.name, change),) if state.revision >= 2 else ()
    return replace(state, custom_track=replace(track, sections=sections)), told


def gm_reveal(state: RaceState, actor: str, _action: GmReveal) -> tuple[RaceState, tuple]:
    _gm_only(state, actor)
    return flow.reveal(state)


def gm_reward(state: RaceState, actor: str, action: GmReward) -> tuple[RaceState, tuple]:
    """A seated GM rewards a racer (a Show off's off-track rewards), at any point of the race; the words
    are cleaned as every name is."""
    _gm_only(state, actor)
    racer = named_racer(state, action.racer)
    reward = plain_name(action.reward, "", 120)
    if not reward:
        raise BadOption("Say what the reward is, e.g. reward:a sponsor's credit chip.")
    return state, (Rewarded(racer.name, reward),)


def gm_tell(state: RaceState, actor: str, action: GmTell) -> tuple[RaceState, tuple]:
    """A seated GM's private note to one racer, at any point of the race (a table feature, not a rule): kept
    in the state for that racer's player to read (/notes), its words cleaned as every free text is; the
    channel is told only that the GM told them something. It takes no turn and changes nothing else."""
    _gm_only(state, actor)
    racer = named_racer(state, action.racer)
    seat = state.player(racer.owner)
    if seat is not None and seat.ai:
        raise BadOption(f"{racer.name} is raced by the computer: nobody would read the note.")
    text = note_words(action.text)
    if not text:
        raise BadOption("Say what the note says, e.g. tell:watch the left wall.")
    note = GmNote(racer.id, text, state.lap, state.section)
    return replace(state, notes=state.notes + (note,)), (NoteSent(racer.name, racer.owner),)


def note_words(text: str) -> str:
    """A note's words as they are kept and shown: cleaned as every free text is (no markup, no mention)."""
    return plain_name(text, "", NOTE_LIMIT)


def named_racer(state: RaceState, typed: str) -> Racer:
    """The racer a GM names (by name, racer id or player id), or a short refusal listing the racers."""
    wanted = typed.strip().casefold()
    racer = next((r for r in state.racers if wanted in (r.id, r.owner.casefold(), r.name.casefold())), None)
    if racer is None:
        raise BadOption(f"No racer '{typed.strip()[:40]}'. Racers: {', '.join(r.name for r in state.racers)}.")
    return racer


def _gm_only(state: RaceState, actor: str) -> None:
    if actor != state.gm:
        raise NotYourTurn("Only the game master does that.")



def _features_on(state: RaceState) -> tuple[RaceState, tuple]:
    state, events = flow.resolve_feature(state)
    state, more = flow.next_feature(state)
    return state, events + more


# What ends each step racers answer together, once the last of them has answered.
_STEP_DONE = {Phase.TUNE: lobby.go, Phase.PREPARE: flow.run_checks,
              Phase.ACCELERATE: lambda state: flow.start_features(state, "before"), Phase.FEATURE: _features_on}


def resign(state: RaceState, player: str, _action: object) -> tuple[RaceState, tuple]:
    """Ruling (the seed is silent): a racer who resigns retires at once, out of the race like a wreck
    (ranked among those out by when); the race finishes when nobody is left racing, a step everyone
    answers goes on once the others have answered, and an action that was theirs passes to the next
    racer. A seated GM does not resign (their seat is handed on, or the host ends the race), and nobody
    resigns while an exchange of theirs waits on an answer."""
    if player == state.gm:
        raise BadOption("The GM does not resign: give the seat to another member (/game seat give) or the "
                        "host ends the race (/game end).")
    racer = state.racer_for(player)
    pending = state.pending
    if pending is not None and racer.id in (pending.actor, pending.target):
        raise answer_first(state, player, "finish the exchange under way (its answer or the GM's ruling)")
    state, events = speed.go_out(state, racer.id, "retired")
    if not state.racing():
        state, more = flow.finish(state)
        return state, events + more
    if state.phase in _STEP_DONE and not flow.waiting(state):
        state, more = _STEP_DONE[Phase(state.phase)](state)
        return state, events + more
    if state.phase == Phase.ACTION:
        state, more = flow.skip_to_actor(state)
        return state, events + more
    return state, events
