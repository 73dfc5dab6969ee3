"""What the drawing draws to warm itself: a few pictures of every built-in game, so what each game's pictures
share (its board's layers at both sizes, fonts at every size, word masks, chips) is built before a player
waits on it. The render zygote draws many before it forks, for every render process forked from it
(bot.table.jobs.zygote); the bot's own process draws each game's opening, as it starts and after a lull
(bot.table.jobs.drawing.warm_settled), and as it starts passes it through the rules' codec once (warm_rules)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import images
from images.registry import is_built_in, renderer
from rules.codec import encode_state
from rules.engine import Ruleset
from rules.registry import rulesets

MOVES = 60      # moves played into each game (seeded, any legal one)
PICTURES = 2    # a channel picture every PICTURES moves
CLOSEUPS = 4    # a close-up every CLOSEUPS moves
SHEETS = 20     # the car sheets (games that have them) every SHEETS moves
SEED = 7


def opening(ruleset: Ruleset, seed: int) -> tuple[Any, tuple]:
    """The state after the game's example opening (rules.engine.ExampleOpening) made with `seed`, and the
    last events of it."""
    from bot.table.protocol.commands import parse

    lines = ruleset.example.lines(ruleset.id, seed)
    host, made = lines[0][0], parse(lines[0][1]).options
    state = ruleset.setup(ruleset.new_game_options({k: v for k, v in made.items() if k not in ("ruleset", "seed")}),
                          seed, host)
    events: Any = ()
    for player, line in lines[1:]:
        command = parse(line)
        action = ruleset.command_to_action(command.name, {**command.options, "name": player})
        state, events = ruleset.apply(state, player, action)[:2]
    return state, tuple(events)


def played(ruleset: Ruleset, seed: int, moves: int) -> Iterator[tuple[Any, tuple]]:
    """The public view and last events after the game's example opening and after each of up to `moves`
    legal moves picked at random from `seed`."""
    state, events = opening(ruleset, seed)
    rng = random.Random(seed)
    yield ruleset.view(state, None), events
    for _ in range(moves):
        if ruleset.is_finished(state):
            return
        player = ruleset.acting_players(state)[0]
        legal = [option for option in ruleset.legal_actions(state, player) if option.action is not None]
        if not legal:
            return
        state, events = ruleset.apply(state, player, rng.choice(legal).action)[:2]
        yield ruleset.view(state, None), tuple(events)


def warm_pictures(moves: int = MOVES, seed: int = SEED, closeups: bool = True) -> int:
    """Draw channel pictures and (unless not `closeups`) close-ups and car sheets of a seeded game of every
    built-in game (their bytes let go); how many were drawn. A game whose pictures fail here is skipped: its
    first real picture will say why."""
    drawn = 0
    for ruleset in rulesets():
        if not is_built_in(ruleset.id):
            continue
        try:
            for index, (view, last) in enumerate(played(ruleset, seed, moves)):
                if index % PICTURES == 0:
                    images.render(ruleset.id, view, last, ())
                    drawn += 1
                if not closeups:
                    continue
                if index % CLOSEUPS == 0:
                    images.render_closeup(ruleset.id, view, last, (), None)
                    drawn += 1
                if index % SHEETS == 0 and renderer(ruleset.id).render_sheets is not None:
                    images.render_sheets(ruleset.id, view, "")
                    drawn += 1
        except Exception:   # noqa: BLE001 - a warm-up never stops the zygote
            continue
    return drawn


def draw_openings() -> int:
    """Each built-in game's channel picture after its example opening (its lobby), drawn and let go: the
    first picture a new game shows then finds its board's layers, fonts and chips made (issue 39, item 6).
    A few MB for the four games once their warm-ups let go what they let go (warm_settled), where
    warm_pictures' close-ups and sheets would hold 24."""
    return warm_pictures(moves=0, closeups=False)


def warm_rules(seed: int = SEED) -> None:
    """Each built-in game's opening through its state codec both ways, and described: what the first command
    after a start would otherwise build (the codec's decoders, which read the state's type hints; the rules'
    words), about 1.5 ms of the first `/game new` (issue 39, item 6). A game that fails here is skipped."""
    for ruleset in rulesets():
        if not is_built_in(ruleset.id):
            continue
        try:
            state = opening(ruleset, seed)[0]
            ruleset.load_state(encode_state(state))
            ruleset.describe(state)
        except Exception:   # noqa: BLE001 - a warm-up never stops the bot
            continue
