"""End to end: a race on the fake Discord. Both racers answer the simultaneous steps through the public
"Your move (private)" button and the private menu it opens; the racer passed is asked for its own
reaction; no public message names a DC."""

from __future__ import annotations

import sqlite3

import pytest

from rules.race.ruleset import RULESET
from rules.race.state import Phase, RaceState
from tests.e2e.fake_discord import EPHEMERAL, DiscordError
from tests.e2e.menus import press_in_menu, private_menu
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, assert_nothing_unexpected, assert_public_map, slash
from tests.e2e.test_e2e_long_games import all_buttons, poll
from tests.e2e.test_e2e_track import public_text


def read_state(db_path) -> RaceState:
    with sqlite3.connect(db_path) as db:
        (state,) = db.execute("SELECT state FROM games").fetchone()
    return RULESET.load_state(state)


async def choose(fake, player: str, message: dict, wanted: str) -> None:
    """Press the public choices button, then the first private choice whose label starts with `wanted`."""
    menu, buttons = await private_menu(fake, player, message)
    assert menu.ephemeral, menu
    label = next((k for k in buttons if k.startswith(wanted)), None)
    assert label is not None, (wanted, list(buttons))
    played = await press_in_menu(fake, player, menu, buttons[label])
    assert not played.rejected, played.describe()


def latest(fake) -> dict:
    return [m for m in fake.channel_messages("channel") if all_buttons(m)][-1]


async def test_a_race_is_played_through_private_menus_and_no_dc_is_public(fake, bot, record_latency):
    made = assert_public_map(await slash(fake, "alice", "channel", "new race",
                                         track="outlaw_gauntlet", tuning=0, seed=7), record_latency, title="Race")
    assert "New Race" in made.content
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join", pilot="rookie", vehicle="racing_swoop"),
                          record_latency, title="Race")
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency, title="Race")
    names = {str(fake.users[name].id): name for name in ("alice", "bob")}
    passed = False
    for _ in range(80):
        state = read_state(bot.db)
        if state.phase == Phase.FINISHED or passed:
            break
        waiting = RULESET.acting_players(state)
        labels = [a.label for a in RULESET.legal_actions(state, waiting[0])]
        wanted = next((label for label in labels if label.startswith("Pass (")), None)
        if state.phase == Phase.ACTION and wanted:
            await choose(fake, names[waiting[0]], latest(fake), "Pass (")
            state = await poll(lambda: (s := read_state(bot.db)).phase == Phase.REACTION and s, RESPONSE_TIMEOUT,
                               "the passed racer asked")
            (target,) = RULESET.acting_players(state)
            assert target != waiting[0]                       # the racer passed answers for itself
            await choose(fake, names[target], latest(fake), "Block")
            await poll(lambda: read_state(bot.db).phase != Phase.REACTION, RESPONSE_TIMEOUT, "the block played")
            passed = True
            continue
        pick = next((label for label in labels if not label.startswith("Pass (")), labels[0])
        await choose(fake, names[waiting[0]], latest(fake), pick)
        await poll(lambda before=state: read_state(bot.db) != before, RESPONSE_TIMEOUT, "the choice stored")
    assert passed, "no pass came up"
    shown = public_text(fake, "channel")
    assert "Minefield" in shown and "Piloting against" in shown and "DC" not in shown
    assert_nothing_unexpected(fake, bot)


async def test_a_gms_private_ruling_leaves_no_trace_in_the_channel(fake, bot, record_latency):
    """Issue 23, item 7: `/gm change` answered in the channel with an empty line. It is acknowledged
    privately from the first moment (nobody else sees "thinking…" or who used a command), answered to
    the GM alone, and the channel's messages are not touched; the reveal that follows is public."""
    assert_public_map(await slash(fake, "carol", "channel", "new race", gm="yes", tuning=0, seed=4),
                      record_latency, title="Race")
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join", pilot="rookie", vehicle="racing_swoop"),
                          record_latency, title="Race")
    assert_public_map(await slash(fake, "carol", "channel", "game start"), record_latency, title="Race")
    before = fake.channel_messages("channel", viewer="alice")
    for options in ({"change": 3}, {"condition": "fog", "altitude": 3}):
        ruled = await slash(fake, "carol", "channel", "gm", **options)
        assert ruled.callback.body == {"type": 5, "data": {"flags": 64}}, ruled.describe()   # private at once
        assert [f.ephemeral for f in ruled.followups] == [True] and "Only you see this" in ruled.followups[0].content
        assert not [r for r in ruled.requests if r.kind.startswith("channel_")], ruled.describe()
    assert fake.channel_messages("channel", viewer="alice") == before       # not a word, not an edit
    refused = await slash(fake, "alice", "channel", "gm", change=2)         # a racer is refused privately too
    assert refused.callback.body == {"type": 5, "data": {"flags": 64}} and refused.followups[0].ephemeral
    revealed = assert_public_map(await slash(fake, "carol", "channel", "gm", reveal="yes"), record_latency,
                                 title="Race")
    assert "DC" not in revealed.content and "fog below 3 m" in revealed.content   # conditions: public at the reveal
    assert_nothing_unexpected(fake, bot)


async def test_a_step_three_racers_answer_together_is_one_public_message(fake, bot, record_latency):
    """Issue 25, item 3: while a simultaneous step waits on three racers, each answer edits the step's one
    public message (no new message, no new picture posted, no second ping); the next step starts the next."""
    assert_public_map(await slash(fake, "alice", "channel", "new race", track="dune_sea", tuning=0, seed=4),
                      record_latency, title="Race")
    names = ("alice", "bob", "carol")
    for name in names:
        assert_public_map(await slash(fake, name, "channel", "game join"), record_latency, title="Race")
    assert_public_map(await slash(fake, "alice", "channel", "game start"), record_latency, title="Race")
    by_id = {str(fake.users[name].id): name for name in names}
    state = read_state(bot.db)
    waiting = RULESET.acting_players(state)
    assert state.phase in (Phase.PREPARE, Phase.ACCELERATE, Phase.FEATURE) and len(waiting) == 3, state.phase
    step = latest(fake)
    messages, pings = len(fake.public_history("channel")), len(fake.notifications())
    for number, player in enumerate(waiting, start=1):
        labels = [a.label for a in RULESET.legal_actions(read_state(bot.db), player)]
        await choose(fake, by_id[player], latest(fake), labels[0])
        if number < len(waiting):
            await poll(lambda n=number: len(RULESET.acting_players(read_state(bot.db))) == 3 - n, RESPONSE_TIMEOUT,
                       f"answer {number} stored")
            assert len(fake.public_history("channel")) == messages, "an answer posted a new public message"
            assert latest(fake)["id"] == step["id"]
    await poll(lambda: read_state(bot.db).phase != state.phase or read_state(bot.db).section != state.section,
               RESPONSE_TIMEOUT, "the next step")
    assert len(fake.public_history("channel")) == messages + 1    # the next step's message, once
    assert len(fake.notifications()) > pings
    assert_nothing_unexpected(fake, bot)


def _privately(exchange) -> str:
    """The words of a reply only its asker sees: in the one response, or in the follow-up after a private
    deferral."""
    data = exchange.callback.body.get("data") or {}
    if exchange.callback.body["type"] == 4:
        assert data["flags"] & EPHEMERAL, exchange.describe()
        return data["content"]
    assert exchange.followups and exchange.followups[0].ephemeral, exchange.describe()
    return exchange.followups[0].content


def _seen_by(fake, viewer: str, channel) -> str:
    """Every word a member can read in a channel: its messages, private ones to them included."""
    return "\n".join(m["content"] for m in fake.read_messages(channel, viewer))


async def test_a_gms_private_thread_and_a_note_only_its_racer_reads(fake, bot, record_latency):
    """Issue 27, item 5: `/gm thread:yes` opens one private thread (type 12, nobody may invite) whose members
    are exactly the GM and the bot; a /dcs typed there is answered there, out of every racer's sight, and a
    command the thread does not take is refused. `/gm racer: tell:` pings the racer in the channel with one
    public line; the note's words reach the racer (`/notes`) and the GM, and nobody else. Without Create
    Private Threads the GM is told which permission is missing, and no thread is made."""
    assert_public_map(await slash(fake, "carol", "channel", "new race", gm="yes", tuning=0, seed=4),
                      record_latency, title="Race")
    for name in ("alice", "bob"):
        assert_public_map(await slash(fake, name, "channel", "game join", pilot="rookie", vehicle="racing_swoop"),
                          record_latency, title="Race")
    assert_public_map(await slash(fake, "carol", "channel", "game start"), record_latency, title="Race")

    refused = await slash(fake, "alice", "channel", "gm", thread="yes")   # a racer opens no GM thread
    assert "Only the game master" in _privately(refused)
    opened = await slash(fake, "carol", "channel", "gm", thread="yes")
    (thread,) = fake.threads_created
    assert thread.type == 12 and not thread.invitable and thread.parent_id == fake.channels["channel"].id
    assert set(fake.thread_members[thread.id]) == {fake.users["carol"].id, fake.bot_user.id}
    assert f"<#{thread.id}>" in _privately(opened)
    assert "private GM thread" in _seen_by(fake, "carol", thread)
    for racer in ("alice", "bob"):
        with pytest.raises(DiscordError) as shut:
            fake.read_messages(thread, racer)
        assert shut.value.code == 50001

    await slash(fake, "carol", thread, "dcs")
    assert "DC" in _seen_by(fake, "carol", thread)
    assert "DC" not in public_text(fake, "channel")
    stray = await slash(fake, "carol", thread, "game status")
    assert "play /game status in" in _privately(stray)

    secret = "watch the left wall at the bend"
    told = await slash(fake, "carol", "channel", "gm", racer="alice", tell=secret)
    assert "only they and you read it" in _privately(told)
    alice, bob = fake.users["alice"].id, fake.users["bob"].id
    (line,) = [m for m in fake.public_history("channel") if "The GM told alice something" in m["content"]]
    assert (line["id"], alice) in fake.notifications() and (line["id"], bob) not in fake.notifications()
    read = await slash(fake, "alice", "channel", "notes")
    assert secret in _privately(read)
    assert "no note" in _privately(await slash(fake, "bob", "channel", "notes"))
    assert secret in _seen_by(fake, "alice", "channel")
    assert secret not in _seen_by(fake, "bob", "channel") and secret not in public_text(fake, "channel")
    assert secret not in "\n".join(m["content"] for m in fake.public_history("channel"))

    fake.bot_creates_private_threads = False
    denied = await slash(fake, "carol", "channel", "gm", thread="yes")
    assert "I need the Create Private Threads" in _privately(denied)
    assert len(fake.threads_created) == 1
    assert [line.split(" -> ")[1] for line in fake.unexpected()] == ["403 50013 Missing Permissions"]
    assert "Traceback" not in bot.log_text(), bot.log_tail()
