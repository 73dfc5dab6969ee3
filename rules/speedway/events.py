"""Speedway's events: what happened, in the past tense, each able to describe itself to players."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry, added_field
from rules.table import GameEnded as GameEnded  # shared
from rules.table import HostChanged as HostChanged
from rules.table import TurnBegan as TurnBegan
from rules.table import register_table_events

# What a damage die's face strikes (data/dice.toml): a system, a weapon, a fire chip, or nothing.
FACE_NAMES = {"A": "Armor", "E": "Engine", "B": "Brakes", "S": "Suspension", "D": "Driver",
              "T": "Targeting", "W": "Weapon", "F": "Fire", "-": "blank"}

EVENTS = Registry()
register_table_events(EVENTS)


@EVENTS.register
@dataclass(frozen=True)
class PlayerJoined:
    player: str
    design: str

    def describe(self) -> str:
        return f"{self.player} joined with a {self.design}."


@EVENTS.register
@dataclass(frozen=True)
class GameStarted:
    order: tuple[str, ...]

    def describe(self) -> str:
        return "The game started. Turn order: " + ", ".join(self.order) + "."



@EVENTS.register
@dataclass(frozen=True)
class InertiaShed:
    car: str
    removed: int
    inertia: int
    reason: str

    def describe(self) -> str:
        return f"{self.car} shed {self.removed} inertia ({self.reason}); inertia now {self.inertia}."


@EVENTS.register
@dataclass(frozen=True)
class SpeedSet:
    car: str
    old: int
    new: int

    def describe(self) -> str:
        if self.old == self.new:
            return f"{self.car} keeps speed {self.new}."
        return f"{self.car} set speed {self.old} -> {self.new}."


@EVENTS.register
@dataclass(frozen=True)
class CarManeuvered:
    car: str
    maneuver: str
    from_hex: str
    to_hex: str
    facing: str
    inertia_added: int

    def describe(self) -> str:
        gained = f", +{self.inertia_added} inertia" if self.inertia_added else ""
        return f"{self.car}: {self.maneuver} {self.from_hex} -> {self.to_hex}, facing {self.facing}{gained}."


@EVENTS.register
@dataclass(frozen=True)
class SkidPending:
    car: str
    speed: int
    skid_speed: int
    direction: str
    skid_applies: bool = True
    swipe_target: str = ""

    def describe(self) -> str:
        parts = []
        if self.skid_applies:
            parts.append(f"{self.car} is at speed {self.speed} (skid speed {self.skid_speed}): "
                         f"accept the skid {self.direction} or resist it")
        if self.swipe_target:
            parts.append(f"{self.car} may spend a Move to swipe {self.swipe_target}")
        return "; ".join(parts) + "."


@EVENTS.register
@dataclass(frozen=True)
class DiceRolled:
    car: str
    purpose: str
    rule: str
    dice: str
    faces: tuple[int, ...]
    total: int
    target: int
    success: bool
    modifier: int = 0
    car_id: str = added_field("")  # the roller's id (logs written before it name the car only)

    @property
    def verdict(self) -> str:
        """How the roll came out in a word: a hit or a miss for a shot, else a success or a failure."""
        if self.dice == "d6":
            return "hit" if self.success else "miss"
        return "success" if self.success else "failure"

    def describe(self) -> str:
        shown = " ".join(f"[{f}]" for f in self.faces) or "no dice"
        plus = f" + {self.modifier}" if self.modifier else ""
        return (f"{self.car} {self.purpose}: {len(self.faces)} {self.dice} {shown}{plus} = {self.total} "
                f"vs {self.target} -> {self.verdict} ({self.rule}).")


@EVENTS.register
@dataclass(frozen=True)
class CarSlid:
    car: str
    direction: str
    to_hex: str
    reason: str

    def describe(self) -> str:
        return f"{self.car} slid {self.direction} to {self.to_hex} ({self.reason})."


@EVENTS.register
@dataclass(frozen=True)
class ControlLost:
    car: str
    direction: str

    def describe(self) -> str:
        return f"{self.car} is OUT OF CONTROL, skidding {self.direction}."


@EVENTS.register
@dataclass(frozen=True)
class ControlRegained:
    car: str

    def describe(self) -> str:
        return f"{self.car} is back in control."


@EVENTS.register
@dataclass(frozen=True)
class SpeedLost:
    car: str
    speed: int

    def describe(self) -> str:
        return f"{self.car} lost 1 speed; speed now {self.speed}."


@EVENTS.register
@dataclass(frozen=True)
class CarStopped:
    car: str
    at_hex: str
    reason: str

    def describe(self) -> str:
        return f"{self.car} stopped at {self.at_hex}: {self.reason}. It moves no further this turn."



@EVENTS.register
@dataclass(frozen=True)
class DamageRolled:
    car: str
    source: str
    dice: tuple[str, ...]
    faces: tuple[str, ...]

    def describe(self) -> str:
        shown = ", ".join(f"{c} {f} ({FACE_NAMES.get(f, f)})" for c, f in zip(self.dice, self.faces))
        return f"Damage to {self.car} ({self.source}): {shown}."


@EVENTS.register
@dataclass(frozen=True)
class ArmorDisregarded:
    car: str
    results: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.car}'s Armor disregards {' '.join(self.results)}."


@EVENTS.register
@dataclass(frozen=True)
class DamageTaken:
    car: str
    effects: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.car} takes: {', '.join(self.effects)}."


@EVENTS.register
@dataclass(frozen=True)
class CarWrecked:
    car: str

    def describe(self) -> str:
        return f"{self.car} is OUT: no longer operable."


@EVENTS.register
@dataclass(frozen=True)
class WeaponFired:
    car: str
    weapon: str
    target: str
    range_hexes: int
    car_id: str = added_field("")  # the firer's and target's ids (logs written before them name the cars only)
    target_id: str = added_field("")

    def describe(self) -> str:
        return f"{self.car} fires {self.weapon} at {self.target}, range {self.range_hexes}."


@EVENTS.register
@dataclass(frozen=True)
class HazardLaid:
    car: str
    kind: str
    at_hex: str

    def describe(self) -> str:
        return f"{self.car} lays {self.kind} at {self.at_hex}."


@EVENTS.register
@dataclass(frozen=True)
class SmokeUnseen:
    car: str
    player: str

    def describe(self) -> str:
        return (f"Note: {self.car}'s smoke blows away at {self.player}'s next Upkeep, before any other car "
                f"moves: it will block nothing.")


@EVENTS.register
@dataclass(frozen=True)
class HazardRemoved:
    kind: str
    at_hex: str
    reason: str

    def describe(self) -> str:
        return f"The {self.kind} at {self.at_hex} is gone ({self.reason})."


@EVENTS.register
@dataclass(frozen=True)
class InertiaGained:
    car: str
    amount: int
    reason: str

    def describe(self) -> str:
        return f"{self.car} gains {self.amount} inertia ({self.reason})."


@EVENTS.register
@dataclass(frozen=True)
class CarPainted:
    car: str
    targeting_loss: int

    def describe(self) -> str:
        return f"{self.car} drives through paint: Targeting -{self.targeting_loss} until the end of its turn."


@EVENTS.register
@dataclass(frozen=True)
class MustTurnBlocked:
    car: str

    def describe(self) -> str:
        return f"{self.car} must Turn after the ram, but no Turn is open."


@EVENTS.register
@dataclass(frozen=True)
class MineExploded:
    at_hex: str

    def describe(self) -> str:
        return f"The mine at {self.at_hex} EXPLODES."


@EVENTS.register
@dataclass(frozen=True)
class Collided:
    kind: str  # ram, swipe, slide, strike, glance
    car: str
    other: str
    at_hex: str
    collision_speed: int

    def describe(self) -> str:
        if self.kind == "ram":
            return f"CRASH: {self.car} rams {self.other} at {self.at_hex} (collision speed {self.collision_speed})."
        if self.kind == "swipe":
            return f"{self.car} swipes {self.other}."
        if self.kind == "slide":
            return f"{self.car} slides into {self.other} at {self.at_hex} and stops."
        if self.kind == "strike":
            where = "" if self.at_hex in self.other else f" at {self.at_hex}"
            return f"{self.car} hits {self.other} head-on{where} (speed {self.collision_speed})."
        return f"{self.car} glances off {self.other} at {self.at_hex}."


@EVENTS.register
@dataclass(frozen=True)
class SpeedLostInCrash:
    car: str
    lost: int
    speed: int

    def describe(self) -> str:
        return f"{self.car} loses {self.lost} speed; speed now {self.speed}."


@EVENTS.register
@dataclass(frozen=True)
class CarRotated:
    car: str
    front: str
    back: str
    reason: str

    def describe(self) -> str:
        return f"{self.car} is turned to {self.front}-{self.back} ({self.reason})."


@EVENTS.register
@dataclass(frozen=True)
class FireChipsRemoved:
    car: str
    faces: tuple[str, ...]
    removed: int
    remaining: int

    def describe(self) -> str:
        shown = " ".join(f"[{f}]" for f in self.faces)
        chips = "chip" if self.removed == 1 else "chips"
        return (f"{self.car} fights the fire: red dice {shown}, each blank [-] puts a chip out: {self.removed} "
                f"{chips} out, {self.remaining} left.")


@EVENTS.register
@dataclass(frozen=True)
class GameWon:
    player: str

    def describe(self) -> str:
        return f"{self.player} WINS: the last car running."


@EVENTS.register
@dataclass(frozen=True)
class GameDrawn:
    reason: str

    def describe(self) -> str:
        return f"The game is a draw: {self.reason}."


def hit_size(event: dict) -> tuple[int, str] | None:
    """A logged event's hit, for the end-of-game summary: the damage effects a car took at once."""
    if event.get("type") != "DamageTaken" or not isinstance(event.get("effects"), list):
        return None
    effects = [str(e) for e in event["effects"]]
    return len(effects), f"{event.get('car')} took {len(effects)} at once ({', '.join(effects)})"
