"""Speedway's command grammar: /speed, /move, /skid, /fire, /drop, /end, /ram, /odds and its setup options."""

from __future__ import annotations

from rules.grammar import ROUND_CAP, CommandSpec, Grammar, OptionSpec
from rules.speedway import data
from rules.speedway.maneuver_words import SLIDE, maneuver_choices

WEAPON_MOUNTS = tuple(m.lower() for m in data.MOUNTS)
SKID_CHOICES = ("accept", "resist", "swipe", "continue")
RAM_OUTCOMES = ("A", "B")
_TARGET = "The target car: its id (c2), its name or its driver's name"
_CAR = OptionSpec("car", "str", "Speedway: car design", choices=tuple(data.car_designs()))

GRAMMAR = Grammar(
    commands=(
        CommandSpec("speed", "Upkeep: set your car's speed for this turn", (
            OptionSpec("value", "int", "New speed, within your Brakes and Engine", required=True,
                       min_value=0, max_value=99),
        )),
        CommandSpec("move", "One Move, or a whole turn as a plan", (
            OptionSpec("maneuver", "str", "Maneuver (slide when out of control)",
                       choices=maneuver_choices() + (SLIDE,), suggest=True),
            OptionSpec("skid", "str", "Answer skids in advance", choices=SKID_CHOICES),
            OptionSpec("plan", "str", "Several Moves in order, e.g. normal,turn-left,normal"),
            OptionSpec("fire", "str", "Fire at the first point of the path that allows it, e.g. front@bob"),
            OptionSpec("preview", "str", "yes: show the planned path privately first, with Confirm",
                       choices=("yes", "no")),
            OptionSpec("view", "str", "The preview's picture: full map, or closeup for a phone",
                       choices=("full", "closeup")),
        ), private_with=("preview:yes",)),   # the preview is the mover's alone from the first moment
        CommandSpec("skid", "Answer a skid (accept, resist) or a chance to swipe (swipe, continue)", (
            OptionSpec("choice", "str",
                       "accept: slide, stay in control; resist: Driver Roll; swipe: bump the car",
                       required=True, choices=SKID_CHOICES),
            OptionSpec("target", "str", "swipe: the car to bump, when one is in each skid hex", suggest=True),
        )),
        CommandSpec("fire", "Fire an offensive weapon at a car", (
            OptionSpec("weapon", "str", "Which mount fires", required=True, choices=WEAPON_MOUNTS,
                       suggest=True),
            OptionSpec("target", "str", _TARGET, required=True, suggest=True),
        )),
        CommandSpec("drop", "Deploy a defensive weapon (mines, oil, smoke) behind your car", (
            OptionSpec("weapon", "str", "Which mount", required=True, choices=WEAPON_MOUNTS, suggest=True),
        )),
        CommandSpec("end", "End your car's movement once its Moves are spent"),
        CommandSpec("ram", "Choose the ramming outcome after winning the roll-off", (
            OptionSpec("outcome", "str", "A: the attacker must turn next; B: the defender pivots away",
                       required=True, choices=RAM_OUTCOMES),
        )),
        CommandSpec("odds", "The chance of a shot or of resisting a skid (changes nothing)", (
            OptionSpec("weapon", "str", "Which mount would fire", choices=WEAPON_MOUNTS, suggest=True),
            OptionSpec("target", "str", _TARGET, suggest=True),
            OptionSpec("maneuver", "str", "A maneuver you are considering", choices=maneuver_choices(),
                       suggest=True),
        ), query=True),
    ),
    new_options=(
        OptionSpec("arena", "str", f"The arena; default {data.table_limits()['default_arena']}",
                   choices=data.arena_ids()),
        ROUND_CAP,
    ),
    join_options=(_CAR,),
    rules_topics={
        "speed": "player-turns-and-upkeep-phase", "move": "movement-phase", "skid": "movement-phase",
        "fire": "weapons", "drop": "defensive-weapons", "end": "movement-phase", "ram": "collisions"
    },
)
