"""End to end, as a newcomer plays: the first command of a game typed with Discord's suggestions, and the
suggestion taken as offered. Each test is what a new player sees on the fake Discord through an unmodified
`pitboss run`: the suggestions Discord shows while typing, and the answer to the command they lead to."""

from __future__ import annotations

from tests.e2e.fake_discord import EPHEMERAL
from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT, buttons_of, slash
from tests.e2e.test_e2e_long_games import all_buttons


async def suggested(fake, user: str, command: str, options: dict, focused: str) -> list[dict]:
    """What Discord shows `user` typing option `focused` of `command` in the game's channel."""
    asked = await fake.autocomplete(user, "channel", command, options, focused=focused)
    answer = await fake.responses(asked, timeout=RESPONSE_TIMEOUT)
    assert answer.callback is not None and answer.callback.body["type"] == 8, answer.describe()
    return answer.callback.body["data"]["choices"]


def waited_on(fake, message: dict, names: tuple[str, ...]) -> str:
    """The player a turn message pings first ("<@id> your turn.")."""
    first = message["content"].split("\n")[0]
    (who,) = [n for n in names if f"<@{fake.users[n].id}>" in first]
    return who


def said_to(exchange) -> tuple[str, bool]:
    """The words the command's answer shows, and whether only its author sees them."""
    data = exchange.callback.body.get("data") or {}
    if exchange.callback.body["type"] == 4:
        return data.get("content") or "", bool(int(data.get("flags") or 0) & EPHEMERAL)
    (first,) = exchange.followups[:1]
    return first.content, first.ephemeral


async def test_speedway_suggests_the_speeds_a_newcomer_may_set(fake, bot):
    """The first thing a Speedway player types is /speed. On Discord `value:` is an autocomplete text option
    (shared with Battlecars), and README promises "the channel's own game fills it in as you type". The turn's
    buttons offer Speed 0-3, yet typing /speed value: suggests nothing at all in Speedway (Battlecars does)."""
    await slash(fake, "alice", "channel", "new speedway", arena="duel", seed=7)
    await slash(fake, "alice", "channel", "game join", car="brawler")
    await slash(fake, "bob", "channel", "game join", car="torch")
    await slash(fake, "alice", "channel", "game start")
    (turn,) = [m for m in fake.channel_messages("channel") if all_buttons(m)]
    mover = waited_on(fake, turn, ("alice", "bob"))
    offered = sorted(label.removeprefix("Speed ") for label in buttons_of(turn))
    assert offered == ["0", "1", "2", "3"], buttons_of(turn)

    choices = await suggested(fake, mover, "speed", {"value": ""}, "value")
    assert sorted(c["value"] for c in choices) == offered, choices


async def test_track_a_suggested_king_comes_out_as_its_suggestion_says(fake, bot):
    """At the start every car is in the pits. Typing /play card:, Discord suggests "KD, move:out" (the value
    filled in is KD alone). A newcomer takes it and sends /play card:KD: the bot refuses with "alice c1 is in
    the pits: it needs a come-out card (A, J, Q, K, or a Joker)", telling a player holding a King that a King
    is needed. The only play KD has here is to come out (a Joker typed the same way does come out)."""
    await slash(fake, "alice", "channel", "new track", seed=5, first_player="host")
    await slash(fake, "alice", "channel", "game join")
    await slash(fake, "bob", "channel", "game join")
    await slash(fake, "alice", "channel", "game start")

    choices = await suggested(fake, "alice", "play", {"card": ""}, "card")
    king = next(c for c in choices if c["value"][0] in "KQ")   # seed 5, host first: alice holds KD JD JK
    assert king["name"] == f"{king['value']}, move:out", choices
    played = await slash(fake, "alice", "channel", "play", card=king["value"])
    words, private = said_to(played)
    assert "needs a come-out card" not in words, words
    assert "came out of the pits" in words or (private and "move:out" in words), words


async def test_battlecars_odds_suggests_the_weapon_of_the_open_shot(fake, bot):
    """`/odds weapon:` is declared with suggestions ("A pod's letter or turret"), and /fire's suggestions show the
    shot open now ("Fire A at bob (3%)"), yet typing /odds weapon: suggests nothing, ever: Battlecars' suggestions
    come from its legal actions, and /odds is a question, never a legal action."""
    await slash(fake, "alice", "channel", "new battlecars", seed=11)
    await slash(fake, "alice", "channel", "game join", vehicle="interceptor")
    await slash(fake, "bob", "channel", "game join", vehicle="gunwagon")
    await slash(fake, "alice", "channel", "game start")
    await slash(fake, "alice", "channel", "speed", value="4")
    await slash(fake, "bob", "channel", "speed", value="3")      # seed 11: alice rolled 6 to bob's 3, she moves first

    shots = await suggested(fake, "alice", "fire", {"weapon": "A", "target": ""}, "target")
    assert [c["value"] for c in shots] == ["v2"], shots       # "Fire A at bob (3%)": a shot is open with pod A
    weapons = await suggested(fake, "alice", "odds", {"weapon": ""}, "weapon")
    assert "A" in [c["value"] for c in weapons], weapons


async def test_race_a_racer_trying_gm_is_told_only_the_gm_may(fake, bot):
    """/help lists `/gm: the game master readies a section`. In a race the bot referees (no gm:yes), a racer who
    tries /gm change:3 or /gm reveal:yes is answered with the race's waiting line ("Waiting on alice, bob: made the
    check: /accelerate or /coast."), as if it were only the wrong moment, while /gm tell: answers "Only the game
    master does that." and /gm thread: "This game has no seated GM": the phase is checked before who is the GM."""
    await slash(fake, "alice", "channel", "new race", tuning=0, seed=4)
    await slash(fake, "alice", "channel", "game join")
    await slash(fake, "bob", "channel", "game join")
    await slash(fake, "alice", "channel", "game start")
    for options in ({"change": 3}, {"reveal": "yes"}):
        refused = await slash(fake, "alice", "channel", "gm", **options)
        words, private = said_to(refused)
        assert private, refused.describe()
        told = words.split(" See /rules")[0]
        assert "game master" in told or "GM" in told, (options, words)
