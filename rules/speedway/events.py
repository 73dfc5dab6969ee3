"""Speedway's events: what happened, in the past tense, each able to describe itself to players."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry

EVENTS = Registry()


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
class TurnBegan:
    player: str
    round: int

    def describe(self) -> str:
        return f"Round {self.round + 1}: {self.player}'s turn."


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

    def describe(self) -> str:
        return (f"{self.car} is at speed {self.speed} (skid speed {self.skid_speed}): "
                f"accept the skid {self.direction} or resist it.")


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

    def describe(self) -> str:
        shown = " ".join(f"[{f}]" for f in self.faces) or "no dice"
        verdict = "success" if self.success else "failure"
        return (f"{self.car} {self.purpose}: {len(self.faces)} {self.dice} {shown} = {self.total} "
                f"vs {self.target} -> {verdict} ({self.rule}).")


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
class GameEnded:
    by: str

    def describe(self) -> str:
        return f"The game was ended by {self.by}."
