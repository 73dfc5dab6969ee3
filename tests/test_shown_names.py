"""Members are named by their shown names, and numbers are the channel's (issue 36, item 13), with Discord's
numeric ids (the command line's ids are names, which hides the fault): a race's seated GM is named, never
counted as a racer in /stats or /standings; the GM's /game log gives the channel's numbers that /game
rollback to: takes; a seat that changed hands counts under its name in a ping's note, not its old holder's id."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from types import SimpleNamespace

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor, Reply
from bot.table.service.standings import records
from rules.codec import encode_state
from rules.race.state import Phase
from rules.registry import get_ruleset
from tests.race_helpers import race

GINA, ALICE, BOB, DAVE = "1191168914227200007", "1191168914227200005", "1191168914227200006", "1191168914227200008"
NAMES = {GINA: "Gina", ALICE: "Alice", BOB: "Bob", DAVE: "Dave"}
RAW = re.compile(r"(?<![<@\d])\d{17,20}")   # an id not inside a mention


async def run(service, user: str, line: str) -> Reply:
    return await service.execute("names", Actor(user, NAMES[user]), parse(line))


async def must(service, user: str, line: str) -> Reply:
    reply = await run(service, user, line)
    assert reply.outcome in ("applied", "shown"), (line, reply.text)
    return reply


def _said(reply: Reply) -> str:
    return "\n".join([reply.text, reply.alt_text or "", reply.next_line or ""])


async def _race(service) -> list[Reply]:
    replies = [await must(service, GINA, "/game new ruleset:race gm:yes tuning:0 seed:7"),
               await must(service, ALICE, "/game join pilot:rookie vehicle:racing_swoop"),
               await must(service, BOB, "/game join pilot:champion vehicle:podracer"),
               await must(service, GINA, "/game start")]
    return replies


async def test_a_seated_gm_is_named_by_their_shown_name_everywhere(service, store):
    replies = await _race(service)
    assert "Gina is the GM." in replies[0].text and "⏰ Gina: reminder" in replies[-1].text
    replies.append(await must(service, GINA, "/gm change:2"))
    replies.append(await must(service, GINA, "/gm reveal:yes"))
    for user in (ALICE, BOB, GINA):
        replies += [await must(service, user, "/game status"), await must(service, user, "/game catchup")]
    state = get_ruleset("race").load_state((await store.active_game("names")).state)
    assert state.player(GINA).name == "Gina"
    for reply in replies:
        assert not RAW.search(_said(reply)), _said(reply)


async def test_the_gms_log_gives_the_channels_numbers_that_a_rollback_takes(service, store):
    await _race(service)
    await must(service, GINA, "/gm change:2")
    await must(service, GINA, "/gm change:-1")
    await must(service, GINA, "/gm reveal:yes")
    ruleset, rng = get_ruleset("race"), random.Random(3)
    for _ in range(4):
        state = ruleset.load_state((await store.active_game("names")).state)
        player = rng.choice(ruleset.acting_players(state))
        await must(service, player, rng.choice(ruleset.legal_actions(state, player)).command)
    gm = (await must(service, GINA, "/game log count:100")).text
    racer = (await must(service, ALICE, "/game log count:100")).text
    assert gm.startswith("Your numbers count the actions only you know of; the channel's, which /game rollback "
                         "to: takes, are in brackets.")
    assert gm.count("(only you know of it)") == 2
    last_gm, last_racer = gm.splitlines()[-1], racer.splitlines()[-1]
    channel_number = int(re.match(r"#\d+ \[#(\d+)\]", last_gm).group(1))
    assert last_racer.startswith(f"#{channel_number} ") and last_gm.split("] ", 1)[1] == last_racer.split(" ", 1)[1]
    proposed = await run(service, GINA, f"/game rollback to:{channel_number - 1}")
    assert "setting aside 1 action " in proposed.text, proposed.text


def test_a_seated_gm_is_no_racer_in_stats_or_standings():
    ruleset = get_ruleset("race")
    finished = race("ann", "bob", gm=True)
    finished = replace(finished, phase=Phase.FINISHED, winner="ann")
    game = SimpleNamespace(id=1, ruleset="race", state=encode_state(finished))
    assert ruleset.load_state(game.state).gm == "gm"   # (stats and standings both read records)
    assert set(records([game])["race"]) == {"ann", "bob"}


async def test_a_seat_that_changed_hands_counts_under_its_name_in_a_ping(service, store):
    for user, line in ((ALICE, "/game new ruleset:speedway seed:5 arena:duel"), (ALICE, "/game join car:brawler"),
                       (BOB, "/game join car:torch"), (ALICE, "/game start")):
        await must(service, user, line)
    ruleset, rng = get_ruleset("speedway"), random.Random(2)
    said: list[str] = []
    for step in range(60):
        state = ruleset.load_state((await store.active_game("names")).state)
        player = ruleset.acting_players(state)[0]
        if step == 6:   # the seat waited on changes hands (its holder gone)
            await must(service, player, f"/game seat give to:{DAVE}")
            await must(service, DAVE, "/game seat take")
            continue
        legal = [a for a in ruleset.legal_actions(state, player) if a.action is not None]
        said.append(_said(await must(service, player, rng.choice(legal).command)))
    notes = [line for text in said for line in text.splitlines() if "actions since your last one" in line]
    assert notes, said[-3:]
    for line in notes:
        assert not RAW.search(line), line
