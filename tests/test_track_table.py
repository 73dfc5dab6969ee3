"""The card race at the table: hands only in private replies, never in the channel or its picture."""

from __future__ import annotations

import re

from bot.replies import Actor
from rules.codec import decode_state
from rules.track.ruleset import TRACK
from rules.track.state import TrackState

CARD = re.compile(r"\b(?:10|[2-9AJQK])[SHDC]\b|\bJK\b")
PLAYED = re.compile(r"(?:played|discarded) (\S+?)[ .(]")


async def state_of(store, channel="chan-1") -> TrackState:
    game = await store.active_game(channel) or await store.latest_game(channel)
    return decode_state(TrackState, game.state)


def cards_in(reply) -> set[str]:
    """Every card named anywhere a channel member could see it: text, alt text, buttons."""
    seen = reply.text + " " + reply.alt_text + " " + " ".join(b.label + " " + b.command for b in reply.buttons)
    return set(CARD.findall(seen))


async def test_a_track_game_keeps_hands_private(table, store, service):
    replies = [await table("alice", "/game new ruleset:track seed:5"),
               await table("alice", "/game join"), await table("bob", "/game join"),
               await table("alice", "/game start")]
    state = await state_of(store)
    assert all(len(state.hand(p.id).cards) == 3 for p in state.players)
    for _ in range(12):  # a dozen turns, each played with the first button of the private hand
        (player,) = TRACK.acting_players(state)
        private = await table(player, "/hand")
        assert private.ephemeral and private.outcome == "shown"
        assert all(card in private.text for card in state.hand(player).cards)  # your own cards, privately
        assert private.buttons, "the player's legal plays come as private buttons"
        played = await service.press("chan-1", Actor(player, player), private.buttons[0].custom_id)
        assert played.outcome == "applied" and not played.ephemeral
        replies.append(played)
        state = await state_of(store)
        if state.phase == "finished":
            break
    replies.append(await table("carol", "/game status"))
    held = {card for p in state.players for card in state.hand(p.id).cards}
    played_cards = {card for reply in replies for card in PLAYED.findall(reply.text)}
    assert played_cards, "the played cards are public"
    for reply in replies:
        assert not reply.buttons, "a public reply must not offer card buttons"
        assert not cards_in(reply) & (held - played_cards), reply.text
    assert replies[-1].image is not None
