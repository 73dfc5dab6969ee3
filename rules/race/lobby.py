"""Seats and the start: a pilot and a vehicle a racer, computer racers, a seated GM, fine-tuning, and the
GO signal (seed, "Starting the race": initiative, ties by Strength then Piloting, everyone at 300 km/h)."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from typing import Any

from rules.errors import BadOption, NotHost, TableFull, WrongPhase
from rules.race import checks, data, flow
from rules.race.actions import AddComputer, AddCustom, BecomeGm, Join, Start
from rules.race.events import CustomAdded, GmSeated, Joined, MoveOrder, TuningOpened
from rules.race.rolls import d20
from rules.race.state import Phase, Player, Racer, RaceState
from rules.table import computer_seat, name_key, unique_name

MAX_NAME_LENGTH = 32


def _pick(text: str, known: dict, what: str, custom: tuple = ()):
    """A spec by id or name, any letter case; empty: the first."""
    pool = dict(known) | {s.id: s for s in custom}
    wanted = text.strip().casefold().replace(" ", "_")
    if not wanted:
        return next(iter(pool.values()))
    for spec in pool.values():
        if wanted in (spec.id.casefold(), spec.name.casefold().replace(" ", "_")):
            return spec
    raise BadOption(f"No {what} called '{text.strip()[:40]}'. {what.capitalize()}s: "
                    f"{', '.join(s.id for s in pool.values())}.")


def _check_seat_free(state: RaceState) -> None:
    """A place on the grid is left (the phase table has kept seats to the lobby)."""
    limit = data.table()["max_racers"]
    if len(state.seats) >= limit:
        raise TableFull(f"The grid is full ({limit} racers).")


def _seat(state: RaceState, player: Player, pilot: str, vehicle: str) -> RaceState:
    return replace(state, players=state.players + (player,), seats=state.seats + ((player.id, pilot, vehicle),))


def _taken(state: RaceState) -> set[str]:
    return {name_key(p.name) for p in state.players}


def join(state: RaceState, actor: str, action: Join) -> tuple[RaceState, tuple]:
    """Take a place on the grid with a pilot and a vehicle."""
    _check_seat_free(state)
    if state.player(actor) is not None:
        raise BadOption("You are already seated." if actor != state.gm else "The game master does not race.")
    pilot = _pick(action.pilot, data.racers(), "pilot", state.custom_pilots)
    vehicle = _pick(action.vehicle, data.vehicles(), "vehicle", state.custom_vehicles)
    name = unique_name(action.name.strip()[:MAX_NAME_LENGTH] or actor[:MAX_NAME_LENGTH], _taken(state), MAX_NAME_LENGTH)
    return _seat(state, Player(actor, name), pilot.id, vehicle.id), (Joined(name, pilot.name, vehicle.name),)


def add_computer(state: RaceState, actor: str, action: AddComputer) -> tuple[RaceState, tuple]:
    """The host seats a computer racer."""
    if actor != state.host:
        raise NotHost("Only the host can add a computer racer.")
    _check_seat_free(state)
    pilot = _pick(action.pilot, data.racers(), "pilot", state.custom_pilots)
    vehicle = _pick(action.vehicle, data.vehicles(), "vehicle", state.custom_vehicles)
    ident, name = computer_seat({p.id for p in state.players}, _taken(state))
    return _seat(state, Player(ident, name, ai=True), pilot.id, vehicle.id), (Joined(name, pilot.name, vehicle.name,
                                                                                    computer=True),)


CUSTOM_LIMIT = 16_000     # characters of a custom file
CUSTOM_EACH = 8           # vehicles, and racers, a race may add
_ID = re.compile(r"[a-z][a-z0-9_]{0,23}")


def add_custom(state: RaceState, actor: str, action: AddCustom) -> tuple[RaceState, tuple]:
    """The host adds the group's own vehicles and racers (a TOML or JSON file), each checked as the
    data files are; a file with any fault changes nothing and says which field."""
    if actor != state.host:
        raise NotHost("Only the host adds vehicles and racers.")
    if state.phase != Phase.LOBBY:
        raise WrongPhase("Vehicles and racers are added before the start.")
    strict = state.revision >= 2   # revision 1 games replay their files as they were read then
    raw = _parse(action.text, strict)
    vehicles, racers, track = raw.get("vehicles", {}), raw.get("racers", {}), raw.get("track")
    if not isinstance(vehicles, dict) or not isinstance(racers, dict) or not (vehicles or racers or track):
        raise BadOption("The file needs [vehicles.ID], [racers.ID] or [track] tables.")
    known_v = set(data.vehicles()) | {v.id for v in state.custom_vehicles}
    known_r = set(data.racers()) | {r.id for r in state.custom_pilots}
    if len(vehicles) + len(state.custom_vehicles) > CUSTOM_EACH or len(racers) + len(state.custom_pilots) > CUSTOM_EACH:
        raise BadOption(f"At most {CUSTOM_EACH} vehicles and {CUSTOM_EACH} racers of your own.")
    for ident, known in [(i, known_v) for i in vehicles] + [(i, known_r) for i in racers]:
        if not isinstance(ident, str) or not _ID.fullmatch(ident):
            raise BadOption("An id is lower-case letters, digits and _, at most 24, starting with a letter.")
        if ident in known:
            raise BadOption(f"'{ident}' is taken: give your own a new id.")
    try:
        new_v = tuple(data.vehicle_from(i, v, f"vehicles.{i}") for i, v in vehicles.items())
        new_r = tuple(data.racer_from(i, r, f"racers.{i}") for i, r in racers.items())
        new_t = data.track_from("custom", track, "track", strict) if track is not None else None
    except data.DataError as error:
        raise BadOption(str(error)) from None
    if strict:
        _names_unlike_any_other(tuple(data.vehicles().values()) + state.custom_vehicles, new_v, "vehicles")
        _names_unlike_any_other(tuple(data.racers().values()) + state.custom_pilots, new_r, "racers")
    state = replace(state, custom_vehicles=state.custom_vehicles + new_v, custom_pilots=state.custom_pilots + new_r,
                    custom_track=state.custom_track if new_t is None else new_t)
    named = new_t.name if new_t is not None else ""
    return state, (CustomAdded(tuple(v.name for v in new_v), tuple(r.name for r in new_r), named),)


def has_track(action: AddCustom) -> bool:
    """Whether a group's own file holds a track (read as leniently as any revision did; a file that cannot
    be read at all is counted as holding one, to err on the side of the secret)."""
    try:
        return _parse(action.text, strict=False).get("track") is not None
    except BadOption:
        return True


def _names_unlike_any_other(known: tuple, added: tuple, what: str) -> None:
    """Two grid choices may not look alike: a name of the group's own is unlike every other's."""
    seen = {spec.name.casefold(): spec.id for spec in known}
    for spec in added:
        other = seen.setdefault(spec.name.casefold(), spec.id)
        if other != spec.id:
            raise BadOption(f"{what}.{spec.id}: the name '{spec.name}' is already {other}'s; give yours another.")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object whose keys are each given once (TOML refuses a repeated key by itself)."""
    made: dict = {}
    for key, value in pairs:
        if key in made:
            raise _DuplicateKey(f"'{key}' is given twice in one table")
        made[key] = value
    return made


def _parse(text: str, strict: bool = True) -> dict:
    """TOML, or JSON when it starts with '{' (after any byte-order mark); BadOption when it is neither,
    too long, or (strict) names one key twice."""
    if len(text) > CUSTOM_LIMIT:
        raise BadOption(f"The file is too long (at most {CUSTOM_LIMIT} characters).")
    if strict:
        text = text.removeprefix("\ufeff")
    try:
        if text.lstrip().startswith("{"):
            raw = json.loads(text, object_pairs_hook=_unique_keys if strict else None)
        else:
            raw = tomllib.loads(text)
    except _DuplicateKey as error:
        raise BadOption(f"The file is refused: {error}.") from None
    except (ValueError, RecursionError) as error:
        raise BadOption(f"The file is not TOML or JSON: {str(error)[:120]}") from None
    if not isinstance(raw, dict):
        raise BadOption("The file needs [vehicles.ID] or [racers.ID] tables.")
    return raw


def become_gm(state: RaceState, actor: str, action: BecomeGm, name: str = "") -> tuple[RaceState, tuple]:
    """The host seats a human game master (who does not race) before the start, by `name` (their id when none
    is known)."""
    if actor != state.host:
        raise NotHost("Only the host seats the game master.")
    if state.phase != Phase.LOBBY:
        raise WrongPhase("The game master is seated before the start.")
    if state.player(action.player) is not None and any(s[0] == action.player for s in state.seats):
        raise BadOption("A racer cannot also be the game master.")
    player = state.player(action.player) or Player(action.player, (name or action.player)[:MAX_NAME_LENGTH])
    players = state.players if state.player(action.player) else state.players + (player,)
    return replace(state, gm=action.player, players=players), (GmSeated(player.name),)


def start(state: RaceState, actor: str, _action: Start) -> tuple[RaceState, tuple]:
    """Put the racers on the grid; fine-tuning first when the table allows it (seed: "if there is time
    available"), then the GO signal."""
    if actor != state.host:
        raise NotHost("Only the host can start the race.")
    if state.phase != Phase.LOBBY:
        raise WrongPhase("The race has already started.")
    least = data.table()["min_racers"]
    if len(state.seats) < least:
        raise WrongPhase(f"At least {least} racers are needed to start.")
    start_speed, hover = data.table()["start_speed"], data.table()["hover_altitude"]
    racers = []
    for n, (player, pilot, vehicle) in enumerate(state.seats):
        spec = next((v for v in state.custom_vehicles if v.id == vehicle), None) or data.vehicles()[vehicle]
        racers.append(Racer(f"r{n + 1}", player, state.seat(player).name, pilot, vehicle, n, spec.hp,
                            speed=start_speed, altitude=hover, tunes_left=state.tune_attempts))
    state = replace(state, racers=tuple(racers), order=tuple(r.id for r in racers))
    if state.tune_attempts > 0:   # said, so the start's message is never blank
        return replace(state, phase=Phase.TUNE), (TuningOpened(state.tune_attempts),)
    return go(state)


def go(state: RaceState) -> tuple[RaceState, tuple]:
    """Seed: initiative as normal (found: d20 + Dex modifier; the stat block's bonus), the move order by
    it, ties to the stronger vehicle, then Piloting checks until the tie breaks; all at 300 km/h."""
    events: tuple = ()
    scores = {}
    starting = [r for r in state.racers if not r.out]   # one who resigned while tuning starts no race
    for racer in starting:
        state, total, rolled = d20(state, racer.name, "initiative",
                                   (("initiative", state.pilot_spec(racer).initiative),))
        scores[racer.id] = (total, state.vehicle_spec(racer).str)
        events += (rolled,)
    ordered = sorted(starting, key=lambda r: scores[r.id], reverse=True)
    tiebreak: dict[str, tuple] = {}
    for _ in range(data.table()["max_roll_offs"]):
        tied = [r for r in ordered if sum(scores[r.id] == scores[o.id] and tiebreak.get(r.id) == tiebreak.get(o.id)
                                          for o in ordered) > 1]
        if not tied:
            break
        for racer in tied:
            state, total, rolled = checks.piloting(state, racer.id, "Piloting to break the tie")
            tiebreak[racer.id] = tiebreak.get(racer.id, ()) + (total,)
            events += (rolled,)
        ordered = sorted(starting, key=lambda r: (scores[r.id], tiebreak.get(r.id, ())), reverse=True)
    state = replace(state, order=tuple(r.id for r in ordered) + tuple(r.id for r in state.racers if r.out))
    events += (MoveOrder(tuple(r.name for r in ordered), data.table()["start_speed"]),)
    state, more = flow.open_section(state)
    return state, events + more
