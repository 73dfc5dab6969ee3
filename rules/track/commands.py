"""Track's command grammar: /play, /discard, /hand, and each ruling as an option of /game new."""

from __future__ import annotations

from rules.grammar import ROUND_CAP, CommandSpec, Grammar, OptionSpec
from rules.track import data

# The non-boolean rulings and their values; every other ruling is true or false.
RULING_CHOICES = {"overshoot_own_corner": ("lane_only", "go_round"), "first_player": ("cut", "host")}
_RULING_HELP = {
    "exact_count_into_finish": "Exact count into the finish lane (false: stop short)",
    "overshoot_own_corner": "Past your corner: lane_only forbids it, go_round laps",
    "may_pass_own_cars": "May pass your own cars",
    "start_spot_safe": "Own start spot is safe",
    "seven_split_into_finish": "A split 7 may enter the finish lane",
    "seven_may_split": "A 7 may split between two cars",
    "joker_forced": "A Joker that can move must be played",
    "first_player": "Who starts: cut (random) or host",
}


def _ruling_option(key: str, default: object) -> OptionSpec:
    choices = RULING_CHOICES.get(key, ("true", "false"))
    return OptionSpec(key, "str", f"{_RULING_HELP[key]}; default {str(default).lower()}", choices=choices)


GRAMMAR = Grammar(
    commands=(
        CommandSpec("play", "Track: play a card from your hand (see /hand for what you can play)", (
            OptionSpec("card", "str", "The card, e.g. 7H, AS, 10D, JK for a joker", required=True, suggest=True),
            OptionSpec("car", "str", "Which car: c1..c5, or pits to come out", suggest=True),
            OptionSpec("move", "str", "out, 1 or 11 for an Ace, 10 for a face card, swap for a Joker",
                       suggest=True),
            OptionSpec("split", "str", "Split a 7 between two cars, e.g. c1:4,c3:3", suggest=True),
            OptionSpec("target", "str", "The opponent's car a Joker swaps with, e.g. c4", suggest=True),
        )),
        CommandSpec("discard", "Track: no card can move a car: discard one and draw", (
            OptionSpec("card", "str", "The card to discard", required=True, suggest=True),
        )),
        CommandSpec("hand", "Track: your cards and what you can play, privately", query=True),
    ),
    new_options=(*(_ruling_option(key, default) for key, default in data.ruling_defaults().items()), ROUND_CAP),
    rules_topics={"play": "card-values", "discard": "a-turn"},
)
