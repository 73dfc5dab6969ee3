"""The table's votes and agreements (rollback votes, results by agreement, rematches, seat offers) where they meet
other features: seats changing hands, resignations, pauses, deadlines, moves, /me forget, the operator's blocks."""

from __future__ import annotations

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service import rematch
from rules.registry import get_ruleset
from tests.examples import lines, third_join

CHANNEL = "votes"
SEED = 5


async def run(service, user, line, channel=CHANNEL, admin=False):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild="g")


async def press(service, user, custom_id, channel=CHANNEL):
    return await service.press(channel, Actor(user, user), custom_id)


@pytest.fixture(autouse=True)
def fixed_seed(monkeypatch):
    monkeypatch.setattr(rematch, "new_seed", lambda: 77)


async def three_of(service, game, seed=SEED):
    opening = lines(game, seed, start=False)
    for user, line in [*opening, third_join(game), lines(game, seed)[-1]]:
        assert (await run(service, user, line)).outcome == "applied", (user, line)


async def test_a_rematch_does_not_wait_forever_on_a_resigned_player_who_forgot_themselves(service, store):
    """cal resigns a Battlecars game of three, then has the bot forget him (allowed: he holds no seat now).
    The game ends; ann proposes a rematch and ben says yes. Nobody can answer for cal's pseudonym: the
    rematch must be made (cal's seat open, as /me forget's own ruling has it), not wait on 'forgotten player'."""
    await three_of(service, "battlecars")
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    forgot = await run(service, "cal", "/me forget confirm:yes")
    assert forgot.outcome != "refused", forgot.text
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    asked = await run(service, "ann", "/game rematch")
    assert asked.outcome == "shown", asked.text
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied" and "Rematch of game" in made.text, made.text


async def test_a_rematch_is_not_hosted_by_a_host_who_handed_their_seat_away_and_was_never_asked(service, store):
    """ann hosts a Battlecars game of three and hands her seat to dave, who plays it to the end. dave proposes the
    rematch (ann, seated nowhere, is not asked); cal says yes, ben says no. The new lobby waits for its host to
    start it: that must be someone who was asked and sits at it, not ann, who left and never agreed."""
    await three_of(service, "battlecars")
    assert (await run(service, "ann", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    asked = await run(service, "dave", "/game rematch")
    assert asked.outcome == "shown" and "ann" not in asked.mentions, asked.text
    assert (await run(service, "cal", "/game rematch")).outcome == "shown"
    made = await run(service, "ben", "/game rematch vote:no")
    assert made.outcome == "applied", made.text
    new = await store.active_game(CHANNEL)
    assert await run(service, "erin", "/game join vehicle:rammer") is not None
    start = await run(service, "dave", "/game start")
    assert new.host != "ann" and start.outcome == "applied", (new.host, made.text, start.text)


async def test_a_rematch_waiting_only_on_a_player_who_then_forgot_themselves_is_still_made(service, store):
    """A Battlecars game of three ends; ann proposes the rematch and ben says yes. cal, the last one asked, has the
    bot forget him instead of answering: /me forget counts that as his no (his seat opens). Everyone has then
    answered, so the rematch must be made for ann and ben; it must not sit forever waiting on nobody."""
    await three_of(service, "battlecars")
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await run(service, "ann", "/game rematch")).outcome == "shown"
    assert (await run(service, "ben", "/game rematch")).outcome == "shown"
    assert (await run(service, "cal", "/me forget confirm:yes")).outcome != "refused"
    again = await run(service, "ann", "/game rematch")
    new = await store.active_game(CHANNEL)
    assert new is not None, again.text


async def test_a_seat_the_host_offered_for_a_gone_player_is_not_taken_from_him_once_he_is_back(service, store):
    """ben is silent past the table's bound, so the host ann offers his Track seat to carol (the host's power over a
    gone player's seat). ben comes back and plays his own turn: he is no longer gone. carol's later /game seat take
    (or her Take the seat button) must not take the seat from under a player who is playing it."""
    from tests.test_seats import time_passes

    for user, line in lines("track", SEED):
        assert (await run(service, user, line)).outcome == "applied", line
    await time_passes(store, 73, channel=CHANNEL)
    offered = await run(service, "ann", "/game seat give to:carol player:ben")
    assert offered.outcome == "applied" and "carol" in offered.mentions, offered.text
    for _ in range(4):   # play until ben has played a card himself
        waiting = (await run(service, "zed", "/game status")).waiting_on[0]
        choices = await service.own_choices(CHANNEL, waiting)
        assert (await run(service, waiting, choices[0].command)).outcome == "applied"
        if waiting == "ben":
            break
    taken = await run(service, "carol", "/game seat take")
    state = get_ruleset("track").load_state((await store.active_game(CHANNEL)).state)
    assert taken.outcome == "refused" and state.player("ben") is not None, taken.text


async def test_an_offer_lapses_though_the_players_return_is_far_back_in_a_long_log(service, store, monkeypatch):
    """As above, but the table played on for long after ben came back: his own card is in the newest page of the log
    the bot reads and the host's offer is on an older one. carol's /game seat take must still find the offer lapsed
    (the log was read only until ben's action, so the offer was never seen and the seat was taken from him)."""
    from bot.table.service import seat_powers
    from tests.test_seats import time_passes

    monkeypatch.setattr(seat_powers, "_PAGE", 3)   # a long log in a few lines: the newest page holds ben's card
    for user, line in lines("track", SEED):
        assert (await run(service, user, line)).outcome == "applied", line
    await time_passes(store, 73, channel=CHANNEL)
    assert (await run(service, "ann", "/game seat give to:carol player:ben")).outcome == "applied"
    played = []
    for _ in range(4):   # ben plays, and the table plays on past a page
        waiting = (await run(service, "zed", "/game status")).waiting_on[0]
        choices = await service.own_choices(CHANNEL, waiting)
        assert (await run(service, waiting, choices[0].command)).outcome == "applied"
        played.append(waiting)
    assert played.count("ben") == 2, played
    await time_passes(store, 2, channel=CHANNEL)
    taken = await run(service, "carol", "/game seat take")
    state = get_ruleset("track").load_state((await store.active_game(CHANNEL)).state)
    assert taken.outcome == "refused" and state.player("ben") is not None, (played, taken.text)


async def test_a_rematch_does_not_wait_forever_on_a_member_the_operator_blocked(service, store):
    """A Battlecars game of three ends and the operator blocks cal (`pitboss block --user cal`): every command and
    button of his is refused, his rematch answer too. ann proposes the rematch and ben says yes: it must not ask
    (and ping) cal and then wait forever on an answer he cannot give, as the queue never matches a blocked member."""
    await three_of(service, "battlecars")
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await service.control("user", "cal", True)).outcome == "shown"
    asked = await run(service, "ann", "/game rematch")
    assert (await run(service, "cal", "/game rematch")).outcome == "refused"   # blocked: he cannot answer
    made = await run(service, "ben", "/game rematch")
    assert "cal" not in asked.mentions and await store.active_game(CHANNEL) is not None, (asked.text, made.text)


async def test_a_rematch_seats_a_member_who_took_over_a_computer_seat(service, store):
    """ann plays Speedway against a computer driver and hands its seat to carol (a seat made for the computer has
    nobody to be gone), who plays it to the end. ann proposes the rematch; carol, asked as the seat's holder, says
    yes. The rematch must be made with carol in that seat, not refused to her for a host-only command she never
    typed."""
    for line in ("/game new ruleset:speedway seed:3", "/game join car:brawler", "/game add-ai", "/game start"):
        assert (await run(service, "ann", line)).outcome == "applied", line
    robot = next(p for p in get_ruleset("speedway").load_state((await store.active_game(CHANNEL)).state).players
                 if p.id != "ann")
    assert (await run(service, "ann", f"/game seat give to:carol player:{robot.name}")).outcome == "applied"
    assert (await run(service, "carol", "/game seat take")).outcome == "applied"
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    asked = await run(service, "ann", "/game rematch")
    assert asked.mentions == ("carol",), asked.text
    made = await run(service, "carol", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("speedway").load_state((await store.active_game(CHANNEL)).state)
    assert {"ann", "carol"} <= {p.id for p in state.players}


async def test_a_game_moved_mid_vote_closes_the_question_it_leaves_behind_and_names_it(service, store):
    """ann proposes a draw in Track; before ben answers, ann moves the game to another channel by its export. The
    old channel is told the vote ended: it must name the vote it had (a proposed draw, not "the rollback vote")
    and close the question's message there (its Yes and No buttons off), as every other end of a vote does."""
    from bot.table.protocol.commands import Command

    for user, line in lines("track", SEED):
        assert (await run(service, user, line)).outcome == "applied", line
    asked = await run(service, "ann", "/game propose draw")
    assert asked.outcome == "shown" and asked.vote_proposal, asked.text
    game = await store.active_game(CHANNEL)
    await service.remember_vote_message(game.id, asked.vote_proposal, "4242")
    exported = await run(service, "ann", "/game export")
    moved = await service.execute("elsewhere", Actor("ann", "ann"),
                                  Command("game import", {"file": exported.files[0].data}), guild="g")
    assert moved.outcome == "applied", moved.text
    (told,) = [n.reply for n in moved.notices if n.channel == CHANNEL]
    assert "rollback" not in told.text and "4242" in [e.message_id for e in told.edits], (told.text, told.edits)


async def test_a_rematch_does_not_seat_a_member_blocked_before_it_was_proposed(service, store):
    """A Battlecars game of three ends; the operator blocks cal; ann proposes a rematch (cal, blocked, is not
    asked) and ben says yes. The rematch is made: cal never agreed and cannot play (every command of his is
    refused), so his seat must stay open, as a no leaves it. rematch._made seats everyone not in `declined`,
    and cal, never asked, never answered: he is seated and the game starts waiting on a member who cannot act."""
    await three_of(service, "battlecars")
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await service.control("user", "cal", True)).outcome == "shown"
    asked = await run(service, "ann", "/game rematch")
    assert "cal" not in asked.mentions, asked.text
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("battlecars").load_state((await store.active_game(CHANNEL)).state)
    assert state.player("cal") is None, (made.text, [p.id for p in state.players])


async def test_a_rematch_does_not_seat_the_pseudonym_of_a_member_who_forgot_themselves(service, store):
    """cal resigns a Battlecars game of three and has the bot forget him; the game ends and ann and ben agree to a
    rematch (cal's pseudonym is not asked). /me forget's ruling: his seat opens in the next game. _made seats every
    seat whose holder is not in `declined`, and the pseudonym never answered: the new game seats `forgotten-…`,
    an id nobody can play, and starts waiting on it."""
    await three_of(service, "battlecars")
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    assert (await run(service, "cal", "/me forget confirm:yes")).outcome != "refused"
    assert (await run(service, "ann", "/game end")).outcome == "applied"
    assert (await run(service, "ann", "/game rematch")).outcome == "shown"
    made = await run(service, "ben", "/game rematch")
    assert made.outcome == "applied", made.text
    state = get_ruleset("battlecars").load_state((await store.active_game(CHANNEL)).state)
    assert not [p.id for p in state.players if p.id.startswith("forgotten-")], [p.id for p in state.players]
