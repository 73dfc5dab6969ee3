"""Animated replays: a real game's states become a small, deterministic, looping GIF of the map."""

from __future__ import annotations

import io
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from bot.table.jobs.heavy_jobs import replayed_states
from bot.table.protocol.commands import parse
from images.registry import renderer
from images.replay import HOLD_MS, MIN_FRAMES, WIDTH, Step, render_frame, render_replay, sample
from rules.engine import parse_command
from rules.registry import get_ruleset
from rules.track.ruleset import TRACK
from rules.track.ruleset import computer_command as track_computer_command

DUEL = Path(__file__).resolve().parent.parent / "examples" / "duel.txt"
SPEEDWAY = get_ruleset("speedway")


def duel_states(commands: int) -> list[Step]:
    """Each step of the duel script's first `commands` commands (the setup counts as one): the state
    after it, who acted and the events."""
    lines = [line for line in DUEL.read_text().splitlines() if line and not line.startswith("#")]
    states = []
    for line in lines[:commands]:
        who, command = line.split("> ", 1)
        parsed = parse(command)
        if parsed.name == "game new":
            # The rules revision `/game new` records (today's), as the script was written under.
            options = SPEEDWAY.new_game_options({"arena": parsed.options["arena"]})
            states.append(Step(SPEEDWAY.setup(options, parsed.options["seed"], who), who))
            continue
        if parsed.name == "game status":
            continue
        options = {**parsed.options, "name": who} if parsed.name == "game join" else parsed.options
        state, events = SPEEDWAY.apply(states[-1].view, who, SPEEDWAY.command_to_action(parsed.name, options))
        states.append(Step(state, who, events))
    return states


def frames(data: bytes) -> list[Image.Image]:
    """Every frame of an animation, composited, as RGB."""
    image = Image.open(io.BytesIO(data))
    out = []
    for index in range(image.n_frames):
        image.seek(index)
        out.append(image.convert("RGB"))
    return out


def changed(a: Image.Image, b: Image.Image) -> float:
    """The share of pixels that differ by more than palette rounding (a different picture there)."""
    mask = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 48 else 0)
    return mask.histogram()[255] / (a.width * a.height)


@pytest.fixture(scope="module")
def states() -> list:
    return duel_states(60)


@pytest.fixture(scope="module")
def replay(states) -> tuple[bytes, str]:
    return render_replay("speedway", states, max_frames=24)


def test_sample_spreads_evenly_and_keeps_both_ends():
    assert sample(5, 10) == [0, 1, 2, 3, 4]
    picks = sample(234, 120)
    assert len(picks) == 120 and picks[0] == 0 and picks[-1] == 233
    gaps = {b - a for a, b in pairwise(picks)}
    assert gaps <= {1, 2}
    assert sample(60, 2) == [0, 59]


def test_replay_is_an_animated_gif_with_the_sampled_frames(states, replay):
    data, kind = replay
    assert kind == "image/gif"
    assert data[:6] == b"GIF89a"
    image = Image.open(io.BytesIO(data))
    assert image.is_animated
    assert image.n_frames == len(sample(len(states), 24)) == 24
    assert image.width == WIDTH
    assert image.info["loop"] == 0
    image.seek(image.n_frames - 1)
    assert image.info["duration"] == HOLD_MS
    image.seek(1)
    assert image.info["duration"] < HOLD_MS


def test_every_state_is_a_frame_when_under_max_frames():
    states = duel_states(12)
    data, _ = render_replay("speedway", states)
    assert Image.open(io.BytesIO(data)).n_frames == len(states)


def test_replay_is_deterministic(states, replay):
    assert render_replay("speedway", states, max_frames=24) == replay


def test_first_and_last_frames_differ_and_the_last_shows_the_final_state(states, replay):
    shown = frames(replay[0])
    assert changed(shown[0], shown[-1]) > 0.01
    final = render_frame("speedway", states[-1])
    assert shown[-1].size == final.size
    # Only palette rounding separates the GIF from the full-colour frame; the state before is far off.
    assert changed(shown[-1], final) < 0.001
    assert changed(shown[-1], render_frame("speedway", states[-2])) > 0.01
    assert changed(shown[0], render_frame("speedway", states[0])) < 0.001


def test_too_big_drops_frames_first(states, replay):
    data, _ = replay
    assert len(data) <= 8_000_000
    sixteen, _ = render_replay("speedway", states, max_frames=MIN_FRAMES)
    budget = (len(data) + len(sixteen)) // 2
    smaller, kind = render_replay("speedway", states, max_bytes=budget, max_frames=24)
    image = Image.open(io.BytesIO(smaller))
    assert kind == "image/gif" and len(smaller) <= budget
    assert MIN_FRAMES <= image.n_frames < 24 and image.width == WIDTH


def test_then_shrinks_until_it_fits_keeping_the_final_state(states, replay):
    budget = len(render_replay("speedway", states, max_frames=MIN_FRAMES, width=400)[0])
    small, _ = render_replay("speedway", states, max_bytes=budget, max_frames=24)
    image = Image.open(io.BytesIO(small))
    assert len(small) <= budget and image.is_animated
    assert image.width < WIDTH and image.n_frames == MIN_FRAMES
    image.seek(image.n_frames - 1)
    final = render_frame("speedway", states[-1], image.width)
    assert changed(image.convert("RGB"), final) < 0.002
    # Past the smallest width, frames go again, down to the first and the last.
    least, _ = render_replay("speedway", states, max_bytes=len(small) // 3, max_frames=24)
    assert 2 <= Image.open(io.BytesIO(least)).n_frames < MIN_FRAMES


def test_a_budget_nothing_fits_is_refused(states):
    with pytest.raises(ValueError, match="does not fit"):
        render_replay("speedway", states[:3], max_bytes=1_000)


def test_caption_names_who_acted_and_the_game_over():
    steps = duel_states(400)
    final = steps[-1].view
    assert final.phase == "finished"
    caption = renderer("speedway").captioner
    head, who, colour, text = caption(final, steps[-1].actor, steps[-1].events)
    winner = final.player(final.winner).name
    assert head == f"Game over · {winner} wins" and who == winner and colour is not None
    assert text.startswith("fires ")
    assert caption(steps[0].view, steps[0].actor, ())[:2] == ("Lobby", "alice")
    assert caption(steps[0].view, steps[0].actor, ())[3] == "new game"
    assert caption(steps[2].view, steps[2].actor, steps[2].events)[1:4:2] == ("bob", "joined with a Torch.")


def test_a_caption_counts_the_games_steps_in_its_own_words():
    """Issue 37, item 12: a race's replay said "Round 7", a word the seed never uses: a track is laps of
    sections. It says "Lap 2 · section 3" now; Battlecars' says "Turn N" as its own header does."""
    from tests.race_helpers import race
    from tests.test_render_battlecars import game

    racing = race("ann", "bob", section=2, lap=1)
    assert renderer("race").captioner(racing, "ann", ())[0] == "Lap 2 · section 3"
    driving = game("open", 2)
    assert renderer("battlecars").captioner(driving, driving.active, ())[0] == f"Turn {driving.round + 1}"
    assert renderer("speedway").captioner(duel_states(40)[-1].view, "alice", ())[0].startswith("Round ")


def test_a_frame_shows_its_own_actions_shot():
    """A frame is drawn from its step's events: the shot line is there only with the shot's events."""
    steps = duel_states(400)
    shot = next(s for s in reversed(steps) if any(type(e).__name__ == "WeaponFired" for e in s.events))
    with_shot = render_frame("speedway", shot)
    without = render_frame("speedway", replace(shot, events=()))
    assert changed(with_shot, without) > 0.002


def test_unknown_rulesets_and_empty_games_are_refused():
    with pytest.raises(ValueError):
        render_replay("chess", [object()])
    with pytest.raises(ValueError):
        render_replay("speedway", [])



def track_states(actions: int = 60) -> list[Step]:
    """A card race between a person (who plays the first legal card) and a computer: every step, hands in."""
    states = [Step(TRACK.setup({}, 9, "alice"), "alice")]
    for line in ("/game join", "/game add-ai", "/game start"):
        name, options = parse_command(line)
        action = TRACK.command_to_action(name, {**options, "name": "alice"})
        states.append(Step(*_applied(states[-1].view, "alice", action)))
    while len(states) < actions and states[-1].view.phase == "play":
        state = states[-1].view
        player = state.active_player
        line = track_computer_command(state, player) or TRACK.legal_actions(state, player)[0].command
        name, options = parse_command(line)
        states.append(Step(*_applied(state, player, TRACK.command_to_action(name, options))))
    return states


def _applied(state, actor, action) -> tuple:
    after, events = TRACK.apply(state, actor, action)
    return after, actor, events


def test_a_track_replay_animates_the_public_table_only():
    states = track_states()
    views = [replace(s, view=TRACK.view(s.view, None)) for s in states]
    data, kind = render_replay("track", views, max_frames=20)
    assert kind == "image/gif"
    gif = Image.open(io.BytesIO(data))
    assert gif.n_frames == 20 and gif.width == 640
    # Other hands in the same positions give the very same animation: no hand reaches a frame.
    swapped = [replace(s, view=TRACK.view(replace(s.view, hands=tuple(replace(h, cards=tuple(reversed(h.cards)))
                                                                      for h in s.view.hands)), None))
               for s in states]
    assert render_replay("track", swapped, max_frames=20)[0] == data
    head, who, colour, text = renderer("track").captioner(states[-1].view, states[-1].actor, states[-1].events)
    assert head.startswith("Round ") and who in ("alice", "Robo1") and colour is not None and text


async def test_a_replay_has_a_frame_per_turn_and_none_for_the_lobby(store):
    """The service's frames: the start, then the table each time the turn passes, then the end; the
    joins of the lobby make none. A turn of several actions is captioned by the game's summary."""
    from bot.table.jobs.replays import turn_frames
    from bot.table.protocol.replies import Actor
    from bot.table.service.entry import GameService

    service = GameService(store, render=None)
    for user, line in (("alice", "/game new ruleset:speedway seed:5 arena:duel rounds:3"),
                       ("alice", "/game join car:brawler"), ("alice", "/game add-ai car:torch"),
                       ("alice", "/game add-ai car:sniper"), ("alice", "/game start"), ("alice", "/speed value:2"),
                       ("alice", "/move maneuver:normal"), ("alice", "/move maneuver:normal"), ("alice", "/end")):
        reply = await service.execute("chan-r", Actor(user, user), parse(line))
        assert reply.outcome == "applied", (line, reply.text)
    game, records = await store.game_and_actions((await store.active_game("chan-r")).id)
    states = replayed_states(SPEEDWAY, game, records)
    frames = turn_frames(SPEEDWAY, game.host, states, records)
    keys = [SPEEDWAY.turn_key(s) for s in states]
    changes = sum(1 for a, b in pairwise(keys) if a != b)
    assert len(frames) == changes + (keys[-1] == keys[-2])          # one per turn passed, and the last
    assert all(f.view.phase != "lobby" for f in frames) and frames[0].view.phase != "lobby"
    assert frames[-1].view == SPEEDWAY.view(states[-1], None)
    computer = next(f for f in frames if f.actor.startswith("ai-") and len(f.events) > 2)
    assert computer.words and "Move" in computer.words               # a computer's whole turn, summed up
    replay = await service.execute("chan-r", Actor("bob", "bob"), parse("/game replay"))
    (gif,) = replay.files
    assert gif.description.startswith("An animation of Speedway game") and "one frame per turn" in replay.text
