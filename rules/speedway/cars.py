"""Builds car sheets from designs and answers questions about a car's condition."""

from __future__ import annotations

from rules.speedway.data import CarDesign, TrackSpec, defensive_weapons
from rules.speedway.state import Car, DamageTrack, Systems, Weapon


def _track(spec: TrackSpec) -> DamageTrack:
    return DamageTrack(boxes=spec.boxes, after=spec.after)


def new_car(design: CarDesign, car_id: str, owner: str, name: str, colour: int) -> Car:
    """A fresh, undamaged car of `design`, not yet placed on the map."""
    systems = Systems(**{key: _track(spec) for key, spec in design.systems.items()})
    weapons = tuple(
        Weapon(w.name, w.mount, DamageTrack(boxes=w.boxes),
               charges=defensive_weapons()[w.name].charges if w.name in defensive_weapons() else None)
        for w in design.weapons
    )
    return Car(
        id=car_id, owner=owner, name=name, design=design.id, colour=colour,
        systems=systems, weapons=weapons,
    )
