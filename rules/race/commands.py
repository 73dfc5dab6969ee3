"""The race's command grammar: /tune, /brake, /steady, /accelerate, /coast, /feature, /act, /react,
/stabilize, the GM's /gm, and its setup options."""

from __future__ import annotations

from rules.grammar import CommandSpec, Grammar, OptionSpec
from rules.names import NOTE_LIMIT
from rules.race import data
from rules.race.action_words import MANEUVERS, REACTIONS

_METRES = "Metres of altitude"
GRAMMAR = Grammar(
    commands=(
        CommandSpec("tune", "Race: before the start, fine-tune the vehicle (or ready: no more tuning)", (
            OptionSpec("ability", "str", "str (engine), dex (handling), con (hull), or ready",
                       required=True, choices=("str", "dex", "con", "ready")),
        )),
        CommandSpec("brake", "Race: brake before the section's check (a Dexterity vehicle roll x 10)", (
            OptionSpec("to", "int", "Brake no lower than this speed in km/h (default 300)", min_value=1,
                       max_value=2000),
            OptionSpec("descend", "int", _METRES + " to drop first", min_value=1, max_value=1000),
            OptionSpec("climb", "int", _METRES + " to climb, 2 km/h a metre", min_value=1, max_value=1000),
        )),
        CommandSpec("steady", "Race: keep the speed for the section's check", (
            OptionSpec("descend", "int", _METRES + " to drop first", min_value=1, max_value=1000),
        )),
        CommandSpec("accelerate", "Race: made the check: accelerate (a Strength vehicle roll x 10)", (
            OptionSpec("to", "int", "Stop at this speed in km/h", min_value=1, max_value=2000),
            OptionSpec("climb", "int", _METRES + " to climb, 2 km/h a metre", min_value=1, max_value=1000),
        )),
        CommandSpec("coast", "Race: made the check: keep the speed", (
            OptionSpec("climb", "int", _METRES + " to climb, 2 km/h a metre", min_value=1, max_value=1000),
        )),
        CommandSpec("feature", "Race: try for the feature ahead (contact a boost, avoid mines), or not", (
            OptionSpec("attempt", "str", "yes: try; no: leave it", required=True, choices=("yes", "no")),
            OptionSpec("descend", "int", _METRES + " to drop before the check", min_value=1, max_value=1000),
        )),
        CommandSpec("act", "Race: your action this section (pass, ram, side sweep, boost...)", (
            OptionSpec("maneuver", "str", "What you do", required=True, choices=MANEUVERS),
            OptionSpec("then", "str", "After a feint: pass or sweep", choices=("pass", "sweep")),
            OptionSpec("target", "str", "An attack's target: the racer just ahead or behind", suggest=True),
            OptionSpec("descend", "int", _METRES + " to drop before the check", min_value=1, max_value=1000),
        )),
        CommandSpec("react", "Race: answer the racer who targets you", (
            OptionSpec("reaction", "str", "Your reaction", required=True, choices=REACTIONS),
            OptionSpec("brake", "str", "Dodge: brake too, for a bonus", choices=("yes", "no")),
            OptionSpec("descend", "int", _METRES + " to drop before the check", min_value=1, max_value=1000),
        )),
        CommandSpec("stabilize", "Race: side swept: brake 20 km/h to stabilize, or take the hazard", (
            OptionSpec("attempt", "str", "yes: brake and roll; no: take the hazard", required=True,
                       choices=("yes", "no")),
        )),
        CommandSpec("gm", "Race: the game master readies a section or rules on an action", (
            OptionSpec("change", "int", "Change the next section's DC by this much", min_value=-20, max_value=20),
            OptionSpec("reveal", "str", "yes: reveal the next section", choices=("yes",)),
            OptionSpec("condition", "str", "Add a condition to the next section (wind, fog, ...), or -KIND to remove"),
            OptionSpec("altitude", "int", "The condition's altitude in metres (0: everywhere)", min_value=0,
                       max_value=1000),
            OptionSpec("approve", "str", "Approve (yes) or refuse (no) the action waiting", choices=("yes", "no")),
            OptionSpec("racer", "str", "The racer a reward or a note goes to", suggest=True),
            OptionSpec("reward", "str", "An off-track reward for a show off, in words"),
            OptionSpec("tell", "str", "A private note to that racer: only they read it", max_length=NOTE_LIMIT),
            OptionSpec("thread", "str", "yes: open your private GM thread off this channel", choices=("yes",)),
        ), private_with=("change", "condition", "tell", "thread")),
        CommandSpec("custom", "Race: your group's own vehicles, racers or track, from a TOML or JSON file (host)", (
            OptionSpec("file", "file", "[vehicles.ID], [racers.ID] or [track] tables, as in the game's data files",
                       required=True),
        )),
        CommandSpec("dcs", "Race: the DCs of the section and its features (the game master only)", query=True),
        CommandSpec("notes", "Race: the GM's private notes to you (the GM: all they sent)", query=True),
    ),
    new_options=(
        OptionSpec("track", "str", f"The track; default {data.track_ids()[0]}", choices=data.track_ids()),
        OptionSpec("gm", "str", "yes: you are the game master (default: the bot)",
                   choices=("yes", "no")),
        OptionSpec("tuning", "int", "Fine-tuning attempts before the start; default "
                   f"{data.table()['fine_tune_attempts']}", min_value=0, max_value=3),
    ),
    join_options=(
        OptionSpec("pilot", "str", f"Race: {', '.join(data.racers())}, or your own", suggest=True),
        OptionSpec("vehicle", "str", f"Race: your vehicle: {', '.join(data.vehicles())} or your group's own"),
    ),
    rules_topics={
        "tune": "before-the-race-and-the-start", "brake": "speed-and-altitude", "steady": "speed-and-altitude",
        "accelerate": "speed-and-altitude", "coast": "speed-and-altitude", "feature": "hazards-and-features",
        "act": "actions-and-reactions", "react": "actions-and-reactions", "stabilize": "actions-and-reactions",
        "gm": "the-game-master", "notes": "the-game-master"
    },
)
