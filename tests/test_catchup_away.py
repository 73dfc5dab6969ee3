"""Catch-up for a player the table played for, and for a seat's new holder (issue 38, findings 1 and 4), on a
controlled clock: the autopilot's deadlines ping the player it played for, the catch-up counts from their own
last play and tells what the autopilot and the computer played in their name; a member who takes a seat over
reads the seat's story, and the reminders and notes addressed to them name them."""

from __future__ import annotations

import re

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.test_plugin_toy import HOUR, Clock

BACKENDS = ("sqlite", "postgres")   # the deadlines are timers: both stores (tests/conftest.py)


async def run(service, user: str, line: str):
    return await service.execute("away", Actor(user, user), parse(line))


async def waiting_on(service) -> str:
    ruleset = get_ruleset("track")
    return ruleset.acting_players(ruleset.load_state((await service._store.active_game("away")).state))[0]


async def play(service, player: str):
    """`player` plays their first listed choice; the reply."""
    assert await waiting_on(service) == player
    choice = (await service.own_choices("away", player))[0]
    played = await run(service, player, choice.command)
    assert played.outcome == "applied", played.text
    return played


async def track_duel(store, clock: Clock) -> GameService:
    """ann and ben at Track with 12-hour deadlines, each having played once; ann's turn."""
    service = GameService(store, render=None, clock=clock)
    for user, line in (("ann", "/game new ruleset:track seed:9"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game settings deadline_hours:12 reminder_hours:6"), ("ann", "/game start")):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    await play(service, "ann")
    await play(service, "ben")
    return service


async def missed(service, clock: Clock, player: str):
    """`player`'s deadline passes: the autopilot's notice."""
    clock.now += 12.5 * HOUR
    (notice,) = [n.reply for n in await service.run_due() if "deadline passed" in n.reply.text]
    assert notice.text.startswith(f"{player}'s deadline passed"), notice.text
    return notice


async def test_a_player_back_reads_all_since_their_own_play_and_what_was_played_for_them(store):
    clock = Clock()
    service = await track_duel(store, clock)
    own = int(re.findall(r"#(\d+)", (await run(service, "ben", "/game log count:1")).text)[-1])   # ben's last play
    for _ in range(2):   # ben is away: the autopilot plays his turns, and pings him as well as ann
        await play(service, "ann")
        notice = await missed(service, clock, "ben")
        assert notice.mentions == ("ann", "ben") and "ben, the autopilot played for you" in notice.ping_words
    pinged = await play(service, "ann")   # ben's turn: the note counts from his own play, not the autopilot's
    note = re.search(r"ben: (\d+) actions since your last one \(ann 3, the autopilot for you 2\)", pinged.text)
    assert pinged.mentions == ("ben",) and note, pinged.text
    caught = (await run(service, "ben", "/game catchup")).text
    assert caught.startswith(f"Since your last action ({note.group(1)} actions; 2 of them played for you: "
                             f"the autopilot 2):\n#{own + 1} "), caught
    assert caught.count("The autopilot plays for ben:") == 2
    await missed(service, clock, "ben")
    given = await run(service, "ann", "/game seat computer player:ben")   # gone: the computer plays for him
    assert given.outcome == "applied", given.text
    await play(service, "ann")   # the computer plays ben's turn at once
    assert (await run(service, "ben", "/game seat take")).outcome == "applied"
    caught = (await run(service, "ben", "/game catchup")).text
    head = r"Since your last action \(\d+ actions; 4 of them played for you: the autopilot 3, the computer 1\)"
    assert re.match(head, caught), caught
    assert "The computer plays for ben: ben " in caught, caught
    watcher = (await run(service, "zed", "/game catchup")).text   # for others it is the channel's view
    assert "played for you" not in watcher and "The computer plays for" not in watcher


async def test_a_member_who_takes_a_seat_reads_its_story_and_is_named_as_its_holder(store):
    clock = Clock()
    service = await track_duel(store, clock)
    assert (await run(service, "ben", "/game seat give to:dave")).outcome == "applied"
    taken = await run(service, "dave", "/game seat take")
    assert taken.outcome == "applied", taken.text
    story = (await run(service, "dave", "/game catchup")).text
    assert story.startswith("ben's seat, yours since #"), story   # not "Nothing has happened since your last action"
    assert ": what happened to it since the game began (" in story.split("\n")[0]
    ben_played = [line for line in (await run(service, "ann", "/game log count:20")).text.splitlines()
                  if re.match(r"#\d+ ben ", line)]
    assert ben_played and all(line[:200] in story for line in ben_played), (ben_played, story)
    pinged = await play(service, "ann")   # dave's turn now: pinged, named, pointed to the seat's story
    assert pinged.mentions == ("dave",)
    assert "ben's seat (dave): you play ben's seat now; /game catchup tells you what happened to it." in pinged.text
    assert "⏰ ben's seat (dave): deadline" in pinged.text
    clock.now += 6.5 * HOUR
    (reminder,) = [n.reply for n in await service.run_due()]
    assert reminder.mentions == ("dave",)
    assert reminder.text.startswith("Reminder: the game is waiting for ben's seat (dave). "), reminder.text
    notice = await missed(service, clock, "dave")
    assert notice.text.startswith("dave's deadline passed (ben's seat): the autopilot plays for them")
    assert notice.mentions == ("ann", "dave") and "The autopilot plays for ben:" in notice.text   # the game's words
    later = (await run(service, "dave", "/game catchup")).text
    assert later.startswith("ben's seat, yours since #") and "1 of them played for you: the autopilot 1" in later
    await play(service, "ann")
    await play(service, "dave")   # his own play: from now on the catch-up counts from it
    await play(service, "ann")
    assert (await run(service, "dave", "/game catchup")).text.startswith("Since your last action (1 action):")


def test_an_answer_given_by_standing_order_is_told_as_played_for_its_owner():
    """The third who plays in a player's name: their standing order (the log's words say so; the head counts it)."""
    from bot.storage.store import ActionRecord
    from bot.table.service.catchup import catch_up
    from bot.table.trust.seen import SeenAction
    from rules.table import ByStandingOrder, Player

    class Said:
        def __init__(self, words: str) -> None:
            self.words = words

        def describe(self) -> str:
            return self.words

    log = [("ann", (Said("ann moves."),)), ("ben", (Said("ben shoots at ann."),)),
           ("ann", (ByStandingOrder("ann", "return_fire"), Said("ann fires back."))), ("ben", (Said("ben moves."),))]
    seen = [SeenAction(n, ActionRecord(n, actor, "{}", "[]")) for n, (actor, _events) in enumerate(log, 1)]
    caught = catch_up(seen, "ann", "ann", lambda s: log[s.number - 1][1], lambda p: p, seat=Player("ann", "ann"))
    head = "Since your last action (3 actions; 1 of them played for you: a standing order 1):"
    told = "#3 ann answers by standing order (return fire): ann fires back."
    assert caught.startswith(f"{head}\n#2 ben shoots at ann.\n{told}"), caught


async def test_a_standing_order_that_answers_in_the_autopilots_turn_pings_its_owner(store):
    """Finding 8 at a deadline (seed 1): the autopilot plays cid's turn, the computer's turn after it draws
    ben's standing order, and the notice pings ben too, saying why; the line says it was his order."""
    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    for user, line in (("ann", "/game new ruleset:battlecars seed:1"), ("ann", "/game join vehicle:interceptor"),
                       ("ben", "/game join vehicle:rammer"), ("cid", "/game join vehicle:interceptor"),
                       ("ann", "/game add-ai vehicle:rammer"), ("ann", "/game settings deadline_hours:1"),
                       *((user, f"/orders set question:{order}") for user in ("ann", "ben", "cid")
                         for order in ("return_fire answer:attacker", "hit_section answer:front")),
                       ("ann", "/game start")):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    notices = []
    for _ in range(5):   # five rounds of deadlines: at the last the computer's shot draws ben's order
        clock.now += 1.01 * HOUR
        notices += [n.reply for n in await service.run_due()]
    (notice,) = [n for n in notices if "'s standing order" in n.text]
    assert notice.text.startswith("cid's deadline passed") and "ben's standing order (return fire): " in notice.text
    assert "ben" in notice.mentions and "ben: your standing order answered (below)." in notice.ping_words, notice
    own = dict(notice.own_ping_words)   # what a direct message tells each: their own news, not the others'
    assert own["ben"] == "your standing order answered (below)."
    assert own["cid"].startswith("the autopilot played for you")
    assert set(own) == set(notice.mentions) and all(own[p] == "your turn." for p in set(own) - {"ben", "cid"}), own
