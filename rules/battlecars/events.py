"""What happens in a Battlecars game, as logged events that say themselves in words. Every roll is a
DiceRolled with its dice, faces, modifier, target and the table row it was read on."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry
from rules.table import plural, register_table_events

EVENTS = Registry()
register_table_events(EVENTS)


@EVENTS.register
@dataclass(frozen=True)
class Joined:
    player: str
    vehicle: str
    computer: bool = False

    def describe(self) -> str:
        article = "an" if self.vehicle[:1].lower() in "aeiou" else "a"
        return f"{self.player}{' (computer)' if self.computer else ''} joined with {article} {self.vehicle}."


@EVENTS.register
@dataclass(frozen=True)
class DiceRolled:
    who: str
    purpose: str   # "rolls to hit", "tests for a skid", ...
    rule: str      # the rule or table row the roll is read on
    dice: str      # "d6", "d8", "d3"
    faces: tuple[int, ...]
    total: int
    target: int | None = None
    success: bool | None = None
    modifier: int = 0

    def describe(self) -> str:
        return f"{self.brief()[:-1]} ({self.rule})."

    def brief(self) -> str:
        """The roll without the rule it is read on: who, the dice, the faces, the total, the verdict."""
        shown = " ".join(f"[{f}]" for f in self.faces)
        plus = f" {'+' if self.modifier > 0 else '-'} {abs(self.modifier)}" if self.modifier else ""
        versus = f" vs {self.target}" if self.target is not None else ""
        verdict = "" if self.success is None else (" -> yes" if self.success else " -> no")
        return f"{self.who} {self.purpose}: {len(self.faces)}{self.dice} {shown}{plus} = {self.total}{versus}{verdict}."


@EVENTS.register
@dataclass(frozen=True)
class FirstMover:
    order: tuple[str, ...]

    def describe(self) -> str:
        return f"Moving order: {', '.join(self.order)}."


@EVENTS.register
@dataclass(frozen=True)
class SpeedChosen:
    player: str  # never the speed: it stays secret until every driver has chosen

    def describe(self) -> str:
        return f"{self.player} set a speed counter, face down."


@EVENTS.register
@dataclass(frozen=True)
class SpeedsRevealed:
    speeds: tuple[str, ...]  # "alice 5", ...

    def describe(self) -> str:
        return "Speed counters revealed: " + ", ".join(self.speeds) + "."


@EVENTS.register
@dataclass(frozen=True)
class VehicleMoved:
    vehicle: str
    from_point: str
    to_point: str
    facing: str
    turn: int = 0  # degrees turned at the start point
    reverse: bool = False

    def describe(self) -> str:
        how = "reverses" if self.reverse else (f"turns {self.turn}° and drives" if self.turn else "drives")
        return f"{self.vehicle} {how} {self.from_point} -> {self.to_point}, facing {self.facing}."


@EVENTS.register
@dataclass(frozen=True)
class TurnedOnTheSpot:
    vehicle: str
    at: str
    facing: str

    def describe(self) -> str:
        return f"{self.vehicle} makes a three-point turn at {self.at}, now facing {self.facing}."


@EVENTS.register
@dataclass(frozen=True)
class Skidded:
    vehicle: str
    drift: int

    def describe(self) -> str:
        return f"{self.vehicle} skids: it does not turn and drifts {plural(self.drift, 'point', 'points')} straight on."


@EVENTS.register
@dataclass(frozen=True)
class Drifted:
    vehicle: str
    from_point: str
    to_point: str

    def describe(self) -> str:
        return f"{self.vehicle} drifts {self.from_point} -> {self.to_point}."


@EVENTS.register
@dataclass(frozen=True)
class FacingAfterSkid:
    vehicle: str
    facing: str
    why: str  # "the new direction", "the old direction", "a spin"

    def describe(self) -> str:
        return f"{self.vehicle} ends the skid facing {self.facing} ({self.why})."


@EVENTS.register
@dataclass(frozen=True)
class DriftCarried:
    vehicle: str
    points: int

    def describe(self) -> str:
        return f"{self.vehicle} carries {plural(self.points, 'point', 'points')} of drift into next turn."


@EVENTS.register
@dataclass(frozen=True)
class Crashed:
    vehicle: str
    into: str  # "a building at E2", "the board's edge"
    at: str

    def describe(self) -> str:
        return f"{self.vehicle} crashes into {self.into} and stops dead at {self.at}."


@EVENTS.register
@dataclass(frozen=True)
class Rammed:
    rammer: str
    rammed: str
    kind: str  # head-on, side, shunt
    at: str

    def describe(self) -> str:
        return f"{self.rammer} rams {self.rammed} ({self.kind}) at {self.at}."


@EVENTS.register
@dataclass(frozen=True)
class WeaponFired:
    vehicle: str
    weapon: str
    target: str
    range: int

    def describe(self) -> str:
        return f"{self.vehicle} fires {self.weapon} at {self.target}, range {self.range}."


@EVENTS.register
@dataclass(frozen=True)
class ShotFliesOn:
    vehicle: str
    target: str

    def describe(self) -> str:
        return f"{self.vehicle}'s shot misses and flies on toward {self.target}."


@EVENTS.register
@dataclass(frozen=True)
class ReturnFireOffered:
    vehicle: str
    attacker: str

    def describe(self) -> str:
        return f"{self.vehicle} may return fire at {self.attacker} (/fire, or /hold)."


@EVENTS.register
@dataclass(frozen=True)
class FireHeld:
    vehicle: str

    def describe(self) -> str:
        return f"{self.vehicle} holds its fire."


@EVENTS.register
@dataclass(frozen=True)
class ArmourHit:
    vehicle: str
    section: str
    points: int
    boxes_lost: int
    boxes_left: int
    internal_hits: int

    def describe(self) -> str:
        inside = f"; {plural(self.internal_hits, 'internal hit', 'internal hits')}" if self.internal_hits else ""
        return (f"{self.vehicle} takes {self.points} on its {self.section} armour: "
                f"{self.boxes_lost} lost, {self.boxes_left} left{inside}.")


@EVENTS.register
@dataclass(frozen=True)
class ComponentHit:
    vehicle: str
    component: str  # "engine", "pod A (Rocket, front)", ...
    result: str     # "1 of 4 squares left", "destroyed", "nothing there: rolled again"

    def describe(self) -> str:
        return f"{self.vehicle}'s {self.component}: {self.result}."


@EVENTS.register
@dataclass(frozen=True)
class CounterDropped:
    vehicle: str
    kind: str
    at: str

    def describe(self) -> str:
        return f"{self.vehicle} drops {self.kind} at {self.at}."


@EVENTS.register
@dataclass(frozen=True)
class CounterTriggered:
    vehicle: str
    kind: str
    at: str
    effect: str

    def describe(self) -> str:
        return f"{self.vehicle} runs onto the {self.kind} at {self.at}: {self.effect}."


@EVENTS.register
@dataclass(frozen=True)
class SmokeDrifted:
    from_point: str
    to_point: str

    def describe(self) -> str:
        return f"The smoke at {self.from_point} drifts to {self.to_point}."


@EVENTS.register
@dataclass(frozen=True)
class DriverLeft:
    driver: str
    at: str
    health: int

    def describe(self) -> str:
        return f"{self.driver} is out on foot at {self.at}, {plural(self.health, 'health point', 'health points')}."


@EVENTS.register
@dataclass(frozen=True)
class PedestrianWalked:
    driver: str
    from_point: str
    to_point: str

    def describe(self) -> str:
        return f"{self.driver} walks {self.from_point} -> {self.to_point}."


@EVENTS.register
@dataclass(frozen=True)
class DriverBoarded:
    driver: str
    vehicle: str

    def describe(self) -> str:
        return f"{self.driver} climbs back into {self.vehicle}'s vehicle."


@EVENTS.register
@dataclass(frozen=True)
class PedestrianDived:
    driver: str
    to_point: str

    def describe(self) -> str:
        return f"{self.driver} dives clear to {self.to_point}."


@EVENTS.register
@dataclass(frozen=True)
class PedestrianHurt:
    driver: str
    points: int
    left: str

    def describe(self) -> str:
        return f"{self.driver} is hurt ({self.points}): {self.left}."


@EVENTS.register
@dataclass(frozen=True)
class PistolReloaded:
    driver: str
    rounds: int
    at: str

    def describe(self) -> str:
        return f"{self.driver} reloads {plural(self.rounds, 'round', 'rounds')} from the pistol at {self.at}."


@EVENTS.register
@dataclass(frozen=True)
class PedestrianKilled:
    driver: str
    by: str

    def describe(self) -> str:
        return f"{self.driver} is killed ({self.by})."


@EVENTS.register
@dataclass(frozen=True)
class VehicleDestroyed:
    vehicle: str
    why: str

    def describe(self) -> str:
        return f"{self.vehicle} is destroyed ({self.why})."


@EVENTS.register
@dataclass(frozen=True)
class MoveEnded:
    vehicle: str

    def describe(self) -> str:
        return f"{self.vehicle} ends its move."


@EVENTS.register
@dataclass(frozen=True)
class GameWon:
    player: str
    on_foot: bool = False   # the last driver left is on foot (events stored before this say nothing)

    def describe(self) -> str:
        if self.on_foot:
            return f"{self.player} wins: the last driver left, on foot."
        return f"{self.player} wins: the last driver with a vehicle still running."


@EVENTS.register
@dataclass(frozen=True)
class GameDrawn:
    why: str

    def describe(self) -> str:
        return f"The game is drawn ({self.why})."


@EVENTS.register
@dataclass(frozen=True)
class SceneryDamaged:
    kind: str      # building, trees
    at: str        # the piece's first point, e.g. "D2"
    points: int
    total: int
    strength: int

    def describe(self) -> str:
        what = f"the {'building' if self.kind == 'building' else 'trees'} at {self.at}"
        if self.total >= self.strength:
            return f"The miss hits {what} for {self.points}: flattened ({self.total} of {self.strength})."
        return f"The miss hits {what} for {self.points}: {self.total} of {self.strength} damage."


def hit_size(event: dict) -> tuple[int, str] | None:
    """A logged event's hit, for the end-of-game summary: points on a vehicle's armour, or on a driver."""
    points = event.get("points")
    if type(points) is not int:
        return None
    if event.get("type") == "ArmourHit":
        return points, f"{points} points on {event.get('vehicle')}'s {event.get('section')}"
    if event.get("type") == "PedestrianHurt":
        return points, f"{points} points on {event.get('driver')}, on foot"
    return None
