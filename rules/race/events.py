"""What happens in a race, as logged events that say themselves in words. Every roll is a DiceRolled with
its dice, the faces, the one kept under advantage or disadvantage, the modifiers and the verdict. No event
says a section's or a feature's DC: racers get hints only (seed), the DCs are the GM's."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry
from rules.table import register_table_events

EVENTS = Registry()
register_table_events(EVENTS)


@EVENTS.register
@dataclass(frozen=True)
class Joined:
    player: str
    pilot: str
    vehicle: str
    computer: bool = False

    def describe(self) -> str:
        return f"{self.player}{' (computer)' if self.computer else ''} joined: {self.pilot} on a {self.vehicle}."


@EVENTS.register
@dataclass(frozen=True)
class CustomAdded:
    vehicles: tuple[str, ...]
    racers: tuple[str, ...]
    track: str = ""

    def describe(self) -> str:
        parts = [f"vehicles {', '.join(self.vehicles)}" if self.vehicles else "",
                 f"racers {', '.join(self.racers)}" if self.racers else ""]
        said = f"The group's own {' and '.join(p for p in parts if p)} join the grid's choices." if any(parts) else ""
        track = f"The race will be run on the group's own track, {self.track}." if self.track else ""
        return " ".join(p for p in (said, track) if p)


@EVENTS.register
@dataclass(frozen=True)
class GmSeated:
    player: str

    def describe(self) -> str:
        return f"{self.player} is the game master."


@EVENTS.register
@dataclass(frozen=True)
class SectionChanged:
    """A seated GM's private change to the next section, told to the GM alone (racers never see the
    action: rules.race.ruleset.unseen)."""

    section: str
    change: str   # "DC +3 (+5 in all)", "fog from 3 m added", "strong wind removed"

    def describe(self) -> str:
        return f"The GM readies {self.section}: {self.change}."


@EVENTS.register
@dataclass(frozen=True)
class Rewarded:
    name: str
    reward: str

    def describe(self) -> str:
        return f"The GM rewards {self.name}: {self.reward}."


@EVENTS.register
@dataclass(frozen=True)
class DiceRolled:
    who: str
    purpose: str          # "Piloting check", "Vehicle Roll (Strength)", ...
    dice: str             # "d20", "d10", "3d6"
    faces: tuple[int, ...]
    total: int
    modifiers: tuple[tuple[str, int], ...] = ()   # ("Piloting", 4), ("speed", -2), ...
    edge: int = 0         # 1 advantage (the higher d20 kept), -1 disadvantage (the lower)
    verdict: str = ""     # "made it", "missed", "wins", ...

    def describe(self) -> str:
        shown = " ".join(f"[{f}]" for f in self.faces)
        kept = {1: " (advantage: higher kept)", -1: " (disadvantage: lower kept)"}.get(self.edge, "")
        mods = "".join(f" {'+' if v >= 0 else '-'} {abs(v)} {k}" for k, v in self.modifiers if v)
        verdict = f" -> {self.verdict}" if self.verdict else ""
        return f"{self.who}'s {self.purpose}: {self.dice} {shown}{kept}{mods} = {self.total}{verdict}."


@EVENTS.register
@dataclass(frozen=True)
class MoveOrder:
    names: tuple[str, ...]
    speed: int

    def describe(self) -> str:
        return f"GO! The move order: {', '.join(self.names)}. Everyone at {self.speed} km/h."


@EVENTS.register
@dataclass(frozen=True)
class TuningOpened:
    """The grid is set and the racers may fine-tune before the start (the table's tuning option)."""

    attempts: int

    def describe(self) -> str:
        tries = "one attempt" if self.attempts == 1 else f"up to {self.attempts} attempts"
        return f"The racers are on the grid: each may fine-tune their vehicle first ({tries}, /tune), then GO."


@EVENTS.register
@dataclass(frozen=True)
class Tuned:
    name: str
    ability: str
    success: bool

    def describe(self) -> str:
        if self.success:
            return f"{self.name} fine-tunes the vehicle's {self.ability}: +1 to that vehicle roll this race."
        return f"{self.name} fails to fine-tune the vehicle's {self.ability}."


@EVENTS.register
@dataclass(frozen=True)
class SectionBegan:
    lap: int
    laps: int
    number: int
    name: str
    kind: str
    hint: str
    conditions: tuple[str, ...] = ()   # in words, e.g. "strong wind at 5 m and above"

    def describe(self) -> str:
        weather = f" Conditions: {', '.join(self.conditions)}." if self.conditions else ""
        return f"Lap {self.lap}/{self.laps}, section {self.number}: {self.name} ({self.kind}). {self.hint}{weather}"


@EVENTS.register
@dataclass(frozen=True)
class SpeedChanged:
    name: str
    why: str          # "brakes", "accelerates", "boost strip", ...
    before: int
    after: int
    altitude: int | None = None   # the new altitude when it changed too

    def describe(self) -> str:
        at = f", altitude {self.altitude} m" if self.altitude is not None else ""
        return f"{self.name} {self.why}: {self.before} -> {self.after} km/h{at}."


@EVENTS.register
@dataclass(frozen=True)
class FellBehind:
    name: str
    passed_by: str
    speed: int

    def describe(self) -> str:
        return f"{self.name} drops below {self.speed} km/h: {self.passed_by} passes, and {self.name} is back at " \
               f"{self.speed} km/h."


@EVENTS.register
@dataclass(frozen=True)
class HazardHit:
    name: str
    hazard: str

    def describe(self) -> str:
        return f"{self.name} hits the {self.hazard}."


@EVENTS.register
@dataclass(frozen=True)
class Damaged:
    name: str
    points: int
    hp: int
    speed_lost: int = 0

    def describe(self) -> str:
        slow = f", and loses {self.speed_lost} km/h" if self.speed_lost else ""
        return f"{self.name} takes {self.points} damage ({self.hp} HP left){slow}."


@EVENTS.register
@dataclass(frozen=True)
class PlacesLost:
    name: str
    places: int
    position: int

    def describe(self) -> str:
        return f"{self.name} loses {self.places} place{'s' if self.places != 1 else ''}: now {self.position}."


@EVENTS.register
@dataclass(frozen=True)
class Out:
    name: str
    why: str          # "wrecked", "disqualified", "fell"

    def describe(self) -> str:
        return {"wrecked": f"{self.name}'s vehicle is wrecked: out of the race.",
                "disqualified": f"{self.name} is disqualified.",
                "fell": f"{self.name} falls off the track: out of the race."}.get(self.why, f"{self.name} is out.")


@EVENTS.register
@dataclass(frozen=True)
class FeatureMet:
    name: str
    feature: str
    result: str

    def describe(self) -> str:
        return f"{self.name}, {self.feature}: {self.result}."


@EVENTS.register
@dataclass(frozen=True)
class Chose:
    name: str
    choice: str

    def describe(self) -> str:
        return f"{self.name} {self.choice}."


@EVENTS.register
@dataclass(frozen=True)
class Maneuver:
    name: str
    kind: str       # what the racer does, as words before the target: "passes", "fails to ram", "feints at"
    target: str = ""
    result: str = ""

    def describe(self) -> str:
        at = f" {self.target}" if self.target else ""
        return f"{self.name} {self.kind}{at}{': ' + self.result if self.result else ''}."


@EVENTS.register
@dataclass(frozen=True)
class Reacted:
    name: str
    reaction: str     # block, sweep, dodge, attack, none

    def describe(self) -> str:
        words = {"block": "blocks", "sweep": "answers with a side sweep", "dodge": "dodges",
                 "attack": "answers with a weapon", "none": "does not react"}
        return f"{self.name} {words.get(self.reaction, self.reaction)}."


@EVENTS.register
@dataclass(frozen=True)
class PlacesSwapped:
    ahead: str
    behind: str

    def describe(self) -> str:
        return f"{self.ahead} is now ahead of {self.behind}."


@EVENTS.register
@dataclass(frozen=True)
class RaceFinished:
    standings: tuple[str, ...]
    out: tuple[str, ...] = ()   # why each racer in the standings went out ("" finished); older logs: none

    def describe(self) -> str:
        why = self.out or ("",) * len(self.standings)
        return "The race is over. " + ", ".join(f"{n}. {name}" + (f" ({reason})" if reason else "")
                                                for n, (name, reason) in enumerate(zip(self.standings, why), 1)) + "."


def hit_size(event: dict) -> tuple[int, str] | None:
    """A logged event's hit, for the end-of-game summary: the damage a racer took."""
    points = event.get("points")
    if event.get("type") != "Damaged" or type(points) is not int:
        return None
    return points, f"{points} damage to {event.get('name')}"
