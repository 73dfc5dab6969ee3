"""Battlecars' command grammar: /speed (secret), /move, /fire, /drop, /section, /end, and its setup options."""

from __future__ import annotations

from rules.battlecars import data
from rules.battlecars.grid import FACING_NAMES, TURN_STEPS
from rules.grammar import ROUND_CAP, CommandSpec, Grammar, OptionSpec

_VEHICLE = OptionSpec("vehicle", "str", "Battlecars: your vehicle's mat", choices=tuple(data.vehicles()))

GRAMMAR = Grammar(
    commands=(
        CommandSpec("speed", "Battlecars: set this turn's speed counter, face down until all are set", (
            OptionSpec("value", "str", "0 up to your top speed, R (reverse) or 3PT (three-point turn)",
                       required=True, suggest=True),
        )),
        CommandSpec("move", "Battlecars: drive one point, turning at this point first", (
            OptionSpec("turn", "str", "ahead, left-45 .. right-135, or about", choices=tuple(TURN_STEPS)),
            OptionSpec("facing", "str", "On 3PT: the facing the three-point turn leaves you at",
                       choices=FACING_NAMES),
            OptionSpec("plan", "str", "Several points in order, e.g. ahead,left-45,ahead"),
            OptionSpec("fire", "str", "Fire at the first point of the path that allows it, e.g. A@v2"),
            OptionSpec("preview", "str", "yes: show the planned path privately first, with Confirm",
                       choices=("yes", "no")),
            OptionSpec("view", "str", "The preview's picture: full map, or closeup for a phone",
                       choices=("full", "closeup")),
        ), private_with=("preview:yes",)),   # the preview is the mover's alone from the first moment
        CommandSpec("fire", "Battlecars: fire a pod or the turret along a line", (
            OptionSpec("weapon", "str", "A pod's letter (A-F), turret, or pistol on foot", required=True,
                       suggest=True),
            OptionSpec("target", "str", "The vehicle: its id (v2), its name or its driver's", required=True,
                       suggest=True),
        )),
        CommandSpec("drop", "Battlecars: drop a passive round (oil, mine, spikes, smoke) from a pod", (
            OptionSpec("weapon", "str", "The passive pod's letter", required=True, suggest=True),
        )),
        CommandSpec("section", "Battlecars: your vehicle is hit: choose the armour section that takes it", (
            OptionSpec("choice", "str", "front, middle or rear, as the shot allows", required=True,
                       choices=("front", "middle", "rear")),
        )),
        CommandSpec("hold", "Battlecars: fired upon, let the chance to return fire go"),
        CommandSpec("leave", "Battlecars: your driver gets out on foot (at speed 0, as the whole move)"),
        CommandSpec("walk", "Battlecars: on foot, walk one point", (
            OptionSpec("direction", "str", "N, NE, E, SE, S, SW, W or NW", required=True, choices=FACING_NAMES),
        )),
        CommandSpec("board", "Battlecars: on foot, climb back into your vehicle beside you"),
        CommandSpec("reload", "Battlecars: on foot, refill your pistol from a dead driver's beside you"),
        CommandSpec("end", "End your move once every point of your speed is driven"),
        CommandSpec("odds", "Battlecars: the chance of a shot or of a skid on a turn (changes nothing)", (
            OptionSpec("weapon", "str", "A pod's letter or turret", suggest=True),
            OptionSpec("target", "str", "The vehicle: its id (v2) or name", suggest=True),
            OptionSpec("turn", "str", "A turn you are considering", choices=tuple(TURN_STEPS)),
        ), query=True),
    ),
    new_options=(
        OptionSpec("board", "str", f"The board; default {data.board_ids()[0]}", choices=data.board_ids()),
        ROUND_CAP,
    ),
    join_options=(_VEHICLE,),
    rules_topics={
        "speed": "turn-structure-and-speed", "move": "movement", "fire": "firing-and-damage",
        "drop": "passive-weapons", "section": "firing-and-damage", "hold": "return-fire", "leave": "pedestrians",
        "walk": "pedestrians", "board": "pedestrians", "reload": "pedestrians", "end": "movement"
    },
)
