"""End to end: the card race through an unmodified `pitboss run` and the fake Discord, played from
private hands (the /hand reply and its buttons), with every hand kept out of the channel."""

from __future__ import annotations

import re
import sqlite3

import pytest

from rules.codec import decode_state
from rules.track.ruleset import TRACK
from rules.track.state import TrackState
from tests.e2e.fake_discord import DEFERRED_UPDATE, EPHEMERAL, UPDATE_MESSAGE
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, assert_public_map, slash
from tests.e2e.test_e2e_long_games import all_buttons, poll

SEED = 5
TURNS = 16  # enough for a hand with more plays than buttons and 8 cards played; never exhausts the pile
CARD = re.compile(r"(?<![\w:])(?:10|[2-9AJQK])[SHDC](?!\w)|(?<![\w:])JK(?!\w)")
PLAYED = re.compile(r"\b(?:played|discarded) (10[SHDC]|[2-9AJQK][SHDC]|JK)\b")


def read_state(db_path) -> tuple[int, str, TrackState]:
    with sqlite3.connect(db_path) as db:
        version, status, state = db.execute("SELECT version, status, state FROM games").fetchone()
    return version, status, decode_state(TrackState, state)


def public_text(fake, channel: str) -> str:
    """Everything a channel member who is not playing can read: contents, alt texts, button labels and ids."""
    parts = []
    for message in fake.channel_messages(channel):
        parts.append(message.get("content") or "")
        parts += [a.get("description") or "" for a in message.get("attachments") or []]
        parts += [f"{b.get('label', '')} {b.get('custom_id', '')}" for b in all_buttons(message)]
    return "\n".join(parts)


async def test_a_track_game_is_played_from_private_hands(fake, bot, record_latency):
    made = assert_public_map(await slash(fake, "alice", "channel", "new track", seed=SEED),
                             record_latency, title="Track")
    assert "New Track (the card race) game created by alice" in made.content
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join"), record_latency, title="Track")
    started = assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency, title="Track")
    # A public message never offers the cards of a hand: only one button that opens the presser's own.
    assert list(started.buttons) == ["Your move (private)"], started.buttons
    names = {fake.users[n].id: n for n in ("alice", "bob")}
    played: set[str] = set()
    menus = 0
    for turn in range(TURNS):
        version, status, state = read_state(bot.db)
        if status == "finished":
            break
        (player_id,) = TRACK.acting_players(state)
        player = names[player_id]
        hand = state.hand(player_id).cards

        asked = await slash(fake, player, "channel", "hand")
        (private,) = asked.followups
        # private from the first moment: the channel never sees a "thinking…" for it (issue 25, item 4)
        assert asked.callback.body == {"type": 5, "data": {"flags": 64}} and private.ephemeral, asked.describe()
        assert all(card in private.content for card in hand), (hand, private.content)
        message = private.message
        buttons = [b for row in private.components for b in row["components"]]
        assert buttons and len(buttons) <= 25
        if buttons[0]["custom_id"].startswith("qm:"):  # more plays than buttons: first choose the card
            menus += 1
            clicked = await fake.click(player, "channel", message["id"], buttons[0]["custom_id"])
            assert not (await fake.responses(clicked, timeout=RESPONSE_TIMEOUT)).followups   # shown in place
            message = fake.message(message["id"])
            buttons = [b for row in message["components"] for b in row["components"]][:-1]   # not the way back
        other = names[next(p for p in names if p != player_id)]
        with pytest.raises(ValueError, match="cannot see ephemeral message"):  # the hand is for its owner only
            await fake.click(other, "channel", message["id"], buttons[0]["custom_id"])
        clicked = await fake.click(player, "channel", message["id"], buttons[-1]["custom_id"])
        exchange = await fake.responses(clicked, timeout=RESPONSE_TIMEOUT)
        assert not exchange.rejected, exchange.describe()
        assert not any(f.ephemeral for f in exchange.followups), exchange.describe()
        await poll(lambda: read_state(bot.db)[0] > version, RESPONSE_TIMEOUT, f"turn {turn + 1} stored")

        text = public_text(fake, "channel")
        played |= set(PLAYED.findall(text))
        _, _, after = read_state(bot.db)
        never_shown = {c for p in after.players for c in after.hand(p.id).cards} - played
        leaked = set(CARD.findall(text)) & never_shown
        assert not leaked, f"turn {turn + 1}: held cards {leaked} appear in the channel"
    print(f"track e2e: {turn + 1} turns, {menus} card menus, played {sorted(played)}")
    assert len(played) >= 8, played
    assert_nothing_unexpected(fake, bot)


async def test_a_hand_with_many_plays_opens_a_private_menu_per_card(fake, bot, record_latency):
    """Arranged position (written to the bot's database between commands): 7H, JK and AS with four cars
    spread round the ring make 59 legal plays, more than the 25 buttons Discord shows."""
    from rules.codec import encode_state
    from tests.test_track_table import spread_out

    assert_public_map(await slash(fake, "alice", "channel", "new track", seed=SEED),
                      record_latency, title="Track")
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join"), record_latency, title="Track")
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency, title="Track")
    version, _, state = read_state(bot.db)
    arranged = spread_out(state, fake.users["alice"].id, fake.users["bob"].id)
    with sqlite3.connect(bot.db) as db:
        db.execute("UPDATE games SET state = ?", (encode_state(arranged),))

    asked = await slash(fake, "alice", "channel", "hand")
    (private,) = asked.followups
    labels = [b["label"] for row in private.components for b in row["components"]]
    assert [label.split(" (")[0] for label in labels] == ["Play 7H", "Play JK", "Play AS"], labels
    assert "Your hand: 7H JK AS." in private.content
    panel = private.message["id"]

    async def press(custom_id: str) -> tuple[dict, list[dict]]:
        """Press a button of alice's private message: the message as it then stands, its buttons."""
        clicked = await fake.click("alice", "channel", panel, custom_id)
        exchange = await fake.responses(clicked, timeout=RESPONSE_TIMEOUT)
        assert not exchange.rejected and not exchange.followups, exchange.describe()   # no new message
        assert exchange.callback_type in (DEFERRED_UPDATE, UPDATE_MESSAGE), exchange.describe()
        shown = fake.message(panel)
        return shown, [b for row in shown.get("components") or [] for b in row["components"]]

    # each card's menu, and the way back, take the same private message's place (issue 38 finding 10)
    menu_id = private.components[0]["components"][0]["custom_id"]
    assert menu_id.startswith("qm:")
    menu, choices = await press(menu_id)
    assert "Play 7H" in menu["content"] and "autocomplete" in menu["content"]
    *ways, back = choices
    assert len(choices) == 25 and all(b["label"].startswith("7H") for b in ways), choices
    cards, _buttons = await press(back["custom_id"])
    assert "Your hand: 7H JK AS." in cards["content"]
    jokers, buttons = await press(next(b["custom_id"] for b in _buttons if b["label"].startswith("Play JK")))
    assert "Play JK" in jokers["content"] and buttons[-1]["custom_id"] == back["custom_id"]
    await press(back["custom_id"])
    menu, choices = await press(menu_id)
    assert [m["id"] for m in fake.channel_messages("channel", "alice") if m["flags"] & EPHEMERAL] == [panel]
    played = await fake.responses(await fake.click("alice", "channel", panel, choices[0]["custom_id"]),
                                  timeout=RESPONSE_TIMEOUT)
    assert not played.rejected and not any(f.ephemeral for f in played.followups), played.describe()
    await poll(lambda: read_state(bot.db)[0] == version + 1, RESPONSE_TIMEOUT, "the 7 played")
    assert "alice played 7H" in public_text(fake, "channel")
    assert_nothing_unexpected(fake, bot)
