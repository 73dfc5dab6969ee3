"""The card race at the table: hands only in private replies, never in the channel or its picture."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bot.table.protocol.commands import CommandSyntaxError, parse
from bot.table.protocol.replies import Actor
from rules.codec import decode_state, encode_state
from rules.track.ruleset import TRACK
from rules.track.state import PITS, RING, Car, TrackState

BACKENDS = ("sqlite", "postgres")  # every test here runs on both (tests/conftest.py)

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
        # A public reply offers no card: at most the one button that opens the presser's own plays privately.
        assert [b.label for b in reply.buttons] in ([], ["Your move (private)"]), reply.buttons
        assert not cards_in(reply) & (held - played_cards), reply.text
    assert replies[-1].image is not None


# --- each game its own commands --------------------------------------------------------------------

async def version_of(store, channel="chan-1") -> int:
    return (await store.active_game(channel)).version


async def seated_track_game(table, options: str = "") -> None:
    await table("alice", f"/game new ruleset:track seed:5 {options}")
    await table("alice", "/game join")
    await table("bob", "/game join")
    await table("alice", "/game start")


@pytest.mark.parametrize("line", ["/move maneuver:normal", "/speed value:3", "/odds", "/move plan:normal,normal",
                                  "/move plan:normal preview:yes", "/fire weapon:front target:bob"])
async def test_speedway_commands_are_refused_at_a_track_table(table, store, line):
    await seated_track_game(table)
    before = await version_of(store)
    reply = await table("alice", line)
    assert reply.outcome == "refused" and reply.ephemeral
    assert "not part of Track" in reply.text and "/play" in reply.text
    assert await version_of(store) == before


async def test_track_commands_are_refused_at_a_speedway_table(table, store):
    await table("alice", "/game new ruleset:speedway seed:5")
    await table("alice", "/game join car:lancer")
    for line in ("/play card:7H car:c1", "/discard card:7H", "/hand"):
        reply = await table("alice", line)
        assert reply.outcome == "refused" and "not part of Speedway" in reply.text
    assert await version_of(store) == 1


async def test_each_ruleset_takes_only_its_own_setup_options(table, store):
    refused = await table("alice", "/game new ruleset:track arena:duel")
    assert refused.outcome == "refused" and "arena: is not an option of /game new in Track" in refused.text
    refused = await table("alice", "/game new ruleset:speedway joker_forced:true")
    assert refused.outcome == "refused" and "joker_forced:" in refused.text
    assert await store.active_game("chan-1") is None
    made = await table("alice", "/game new ruleset:track seven_may_split:false first_player:host")
    assert made.outcome == "applied"
    state = await state_of(store)
    assert state.rulings.seven_may_split is False and state.rulings.first_player == "host"
    assert state.rulings.joker_forced is True  # the default (the seed's, from revision 3) stands where nothing was said
    refused = await table("bob", "/game join car:sniper")
    assert refused.outcome == "refused" and "car: is not an option of /game join in Track" in refused.text
    assert (await state_of(store)).players == ()


async def test_a_malformed_ruling_is_refused_before_anything_is_made(table, store):
    with pytest.raises(CommandSyntaxError, match="must be one of true, false"):
        parse("/game new ruleset:track seven_may_split:maybe")
    assert await store.active_game("chan-1") is None


# --- buttons for a big hand ------------------------------------------------------------------------

async def arrange(store, state: TrackState, channel: str = "chan-1") -> None:
    """Put a prepared position on the table (the ways to reach it by play would take hundreds of turns)."""
    game = await store.active_game(channel)
    async with store.transaction():
        await store.driver.execute("UPDATE games SET state = ? WHERE id = ?", (encode_state(state), game.id))


def spread_out(state: TrackState, alice: str = "alice", bob: str = "bob") -> TrackState:
    """Alice (seated first) holds 7H, JK and AS with four cars spread round the ring; Bob has three on it."""
    cars = [Car(alice, f"c{i}", RING, spot) for i, spot in enumerate((9, 17, 24, 31), 1)]
    cars += [Car(alice, "c5", PITS, 0)]
    cars += [Car(bob, f"c{i}", RING, spot) for i, spot in enumerate((4, 13, 29), 1)]
    cars += [Car(bob, f"c{i}", PITS, 0) for i in (4, 5)]
    return replace(state, cars=tuple(cars), order=(alice, bob), turn_index=0).with_hand(alice, ("7H", "JK", "AS"))


async def test_a_hand_with_more_plays_than_buttons_gets_one_menu_per_card(table, store, service):
    await seated_track_game(table)
    await arrange(store, spread_out(await state_of(store)))
    legal = TRACK.legal_actions(await state_of(store), "alice")
    assert len(legal) > 25  # more than Discord shows as buttons
    hand = await table("alice", "/hand")
    assert hand.ephemeral and len(hand.text) <= 2000  # too many plays to list: summed up per card
    assert "You can: Play 7H (38 ways); Play JK (15 ways); Play AS (6 ways)." in hand.text
    assert [b.label.split(" (")[0] for b in hand.buttons] == ["Play 7H", "Play JK", "Play AS"]
    sevens = sum(a.group == "Play 7H" for a in legal)
    assert hand.buttons[0].label == f"Play 7H ({sevens} ways)…"

    stranger = await service.press("chan-1", Actor("bob", "bob"), hand.buttons[0].custom_id)
    assert stranger.outcome == "refused" and stranger.text.startswith("The table waits for alice, not for you.")
    menu = await service.press("chan-1", Actor("alice", "alice"), hand.buttons[0].custom_id)
    assert menu.ephemeral and menu.outcome == "shown" and menu.text.startswith(f"Play 7H: {sevens} ways")
    assert 1 < len(menu.buttons) <= 25
    # opened from a private menu, it takes that menu's place, with a way back (issue 38 finding 10)
    *ways, back = menu.buttons
    assert menu.in_place and back.label == "« All your choices"
    assert all(b.command.startswith("/play card:7H") for b in ways)
    assert sevens > 25 and "autocomplete" in menu.text  # the rest are typed, with autocomplete
    returned = await service.press("chan-1", Actor("alice", "alice"), back.custom_id)
    assert returned.in_place and "Your hand: 7H JK AS." in returned.text
    assert [b.custom_id for b in returned.buttons] == [b.custom_id for b in hand.buttons]
    before = await version_of(store)
    choice = ways[-1]
    played = await service.press("chan-1", Actor("alice", "alice"), choice.custom_id)
    assert played.outcome == "applied" and not played.ephemeral
    assert await version_of(store) == before + 1
    assert "alice played 7H" in played.text
    again = await service.press("chan-1", Actor("alice", "alice"), hand.buttons[1].custom_id)
    assert again.outcome == "refused" and again.text.startswith("The table waits for bob, not for you. Next: ")


async def test_the_private_menu_shows_its_player_their_hand_and_nobody_else_any(table, store, service):
    """Issue 38 finding 10: "Your move (private)" opens a menu with the presser's hand; another's never."""
    await seated_track_game(table)
    state = await state_of(store)
    (active,) = TRACK.acting_players(state)
    other = next(p.id for p in state.players if p.id != active)
    status = await table(other, "/game status")
    assert not status.ephemeral and [b.label for b in status.buttons] == ["Your move (private)"]
    panel = await service.press("chan-1", Actor(active, active), status.buttons[0].custom_id)
    mine, theirs = set(state.hand(active).cards), set(state.hand(other).cards)
    assert panel.ephemeral and f"Your hand: {' '.join(state.hand(active).cards)}." in panel.text
    assert cards_in(panel) & theirs <= mine and not cards_in(status) & (mine | theirs)
    watcher = await service.press("chan-1", Actor(other, other), status.buttons[0].custom_id)
    assert not cards_in(watcher) & mine - theirs   # the other player's press shows none of the mover's hand
    # off turn, the press shows its presser their own hand (no buttons), as the docs say it does
    assert watcher.ephemeral and watcher.text.startswith("The table waits for") and not watcher.buttons
    assert f"Your hand: {' '.join(state.hand(other).cards)}." in watcher.text
    stranger = await service.press("chan-1", Actor("zed", "zed"), status.buttons[0].custom_id)
    assert stranger.outcome == "refused" and "Your hand" not in stranger.text


async def test_autocomplete_offers_only_the_legal_splits_and_cars(table, store, service):
    await seated_track_game(table)
    await arrange(store, spread_out(await state_of(store)))
    state = await state_of(store)
    legal = {a.command for a in TRACK.legal_actions(state, "alice")}
    alice = Actor("alice", "alice")
    splits = await service.suggest("chan-1", alice, "play", "split", "", {"card": "7H"})
    assert splits and all(f"/play card:7H split:{value}" in legal for _label, value in splits)
    cars_for_ace = await service.suggest("chan-1", alice, "play", "car", "", {"card": "AS"})
    assert {value for _l, value in cars_for_ace} == {
        c.split("car:")[1].split()[0] for c in legal if c.startswith("/play card:AS car:")}
    cards_offered = await service.suggest("chan-1", alice, "play", "card", "", {})
    assert {value for _l, value in cards_offered} == {"7H", "JK", "AS"}
    assert await service.suggest("chan-1", Actor("bob", "bob"), "play", "card", "", {}) == []
    assert await service.suggest("chan-1", alice, "move", "maneuver", "", {}) == []


async def test_a_host_chosen_seed_is_announced_as_not_secret(table, service):
    chosen = await table("alice", "/game new ruleset:track seed:5")
    assert "whoever knows it can work out what is hidden" in chosen.text
    random_seed = await service.execute("chan-2", Actor("alice", "alice"), parse("/game new ruleset:track"))
    assert random_seed.outcome == "applied" and "work out what is hidden" not in random_seed.text


async def test_game_replay_animates_a_track_game(table):
    await seated_track_game(table)
    replay = await table("carol", "/game replay")
    assert replay.outcome == "shown"
    (gif,) = replay.files
    assert gif.filename.endswith(".gif") and gif.data.startswith(b"GIF89a")
    assert not CARD.findall(replay.text)


async def test_the_public_choices_button_opens_only_the_pressers_own_plays(table, store, service):
    for user, line in (("alice", "/game new ruleset:track seed:5"), ("alice", "/game join"), ("bob", "/game join")):
        await table(user, line)
    started = await table("alice", "/game start")
    (button,) = started.buttons
    assert button.label == "Your move (private)" and not cards_in(started)
    state = await state_of(store)
    (player,) = TRACK.acting_players(state)
    other = next(p.id for p in state.players if p.id != player)
    off_turn = await service.press("chan-1", Actor(other, other), button.custom_id)   # their own hand, no plays
    assert off_turn.outcome == "shown" and off_turn.ephemeral and not off_turn.buttons
    assert "Your hand:" in off_turn.text and not cards_in(off_turn) - set(state.hand(other).cards)
    menu = await service.press("chan-1", Actor(player, player), button.custom_id)
    assert menu.ephemeral and menu.buttons and await state_of(store) == state  # nothing played yet
    played = await service.press("chan-1", Actor(player, player), menu.buttons[0].custom_id)
    assert played.outcome == "applied" and not played.ephemeral
