"""Standing orders (/orders), the deadline's autopilot and the computer seat where they meet seats changing hands:
a resignation, a seat given away or to the computer, a deadline that plays for an absent player. Each test drives
the real service on a real SQLite store, with seeded play, and checks what a player would see."""

from __future__ import annotations

import json
import random

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from rules.registry import get_ruleset
from tests.conftest import TABLE_TIME
from tests.examples import lines, third_join
from tests.test_orders import play_one

CHANNEL = "orders-seats"
HOUR = 3600


class Clock:
    """The table's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = TABLE_TIME

    def __call__(self) -> float:
        return self.now


async def run(service, user, line):
    return await service.execute(CHANNEL, Actor(user, user), parse(line))


async def _three(service, game: str, seed: int, settings: str = "") -> None:
    """ann, ben and cal at `game`'s example table (the example's joins, a third like the last), started; the
    table's settings (`/game settings …`) set first when given."""
    extra = [("ann", f"/game settings {settings}")] if settings else []
    for user, line in lines(game, seed, start=False) + [third_join(game)] + extra + lines(game, seed)[-1:]:
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line


def _asked(ruleset, state) -> list[tuple[str, str]]:
    """(player, question) for each standing-order question put to someone now."""
    return [(p, q.name) for p in ruleset.acting_players(state) for q in ruleset.orders.questions if q.asked(state, p)]


async def _play_until(service, store, game: str, seed: int, wanted, moves: int = 200):
    """Seeded legal play (attacks mostly, as tests/test_orders.py plays) by whoever the game waits on, until
    `wanted(ruleset, state)` holds; that state."""
    ruleset = get_ruleset(game)
    rng = random.Random(seed)
    for _ in range(moves):
        record = await store.active_game(CHANNEL)
        assert record is not None, "the game ended first"
        state = ruleset.load_state(record.state)
        if wanted(ruleset, state):
            return state
        await play_one(service, ruleset, state, rng, CHANNEL)
    raise AssertionError("never came")


async def _log(store):
    game = await store.active_game(CHANNEL) or await store.latest_game(CHANNEL)
    return (await store.game_and_actions(game.id))[1]


# --- 1. an order nobody will ever carry out is accepted, and promised -------------------------------------------

async def test_a_resigned_player_is_not_told_the_table_will_answer_by_their_standing_order(service, store):
    """cal resigns a three-seat Speedway game (it goes on for ann and ben). His seat is never asked anything again
    by him: what the game still asks it, the table answers by the computer's choice (rules.seats.for_resigned),
    which comes before any order. Yet /orders set takes his order and promises 'When the question comes, the
    table answers it at once in your name.' It must be refused, as /game pause refuses a resigned player."""
    await _three(service, "speedway", 1)
    assert (await run(service, "cal", "/game resign confirm:yes")).outcome == "applied"
    assert (await store.active_game(CHANNEL)) is not None   # ann and ben play on
    kept = await run(service, "cal", "/orders set question:skid answer:resist")
    assert kept.outcome == "refused", kept.text


async def test_a_seated_race_gm_is_not_told_the_table_will_answer_by_their_standing_order(service, store):
    """The same promise to a seated Race GM: both questions (reaction, stabilize) are put only to a racer's owner,
    and the GM races no racer, so `/orders set question:reaction answer:dodge` is kept, shown back by /orders show
    and promised to answer 'at once in your name', though no question can ever come to the GM."""
    race = get_ruleset("race")
    for user, line in lines("race", 1, race.more_examples[0]):
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    state = race.load_state((await store.active_game(CHANNEL)).state)
    assert state.gm == "gina" and all(r.owner != "gina" for r in state.racers)
    kept = await run(service, "gina", "/orders set question:reaction answer:dodge")
    assert kept.outcome == "refused", kept.text


# --- 2. the order the player set for the very question at hand is ignored at their deadline ----------------------

async def test_an_order_set_while_its_question_is_asked_is_not_overruled_by_the_autopilot(store):
    """ann's car skids; she is asked accept or resist. She sets `/orders set question:skid answer:resist` (told
    'It is asked of you now: answer it this time') and then misses her 12 h deadline. The table knows her answer,
    yet the autopilot accepts the skid for her ('ann slid W ... (skid accepted)'): the opposite of what she kept.
    A plan she had previewed would have been played instead of the autopilot's choice; her order is not."""
    clock = Clock()
    service = GameService(store, clock=clock)
    speedway = get_ruleset("speedway")
    await _three(service, "speedway", 1, "deadline_hours:12")
    state = await _play_until(service, store, "speedway", 1, lambda r, s: ("ann", "skid") in _asked(r, s))
    assert speedway.orders.question("skid").choose(state, "ann", "resist", speedway.legal_actions(state, "ann")) \
        is not None   # resisting is open to her now
    kept = await run(service, "ann", "/orders set question:skid answer:resist")
    assert kept.outcome == "shown" and "skid → resist" in kept.text, kept.text
    clock.now += 13 * HOUR
    assert await service.run_due()
    answered = next(r for r in await _log(store) if r.actor == "ann" and '"AnswerSkid"' in r.action)
    assert json.loads(answered.action)["choice"] == "resist", (answered.action, answered.events)


# --- 3. a standing order set in advance, overruled by the autopilot when a previewed plan is played -----------

async def test_a_skid_in_a_previewed_plan_played_at_the_deadline_is_answered_by_the_standing_order(store):
    """ben keeps `skid: resist` (83% to resist here). On his turn he sets speed 3 and previews a tight turn
    (`/move plan:tight-turn-left preview:yes`, which says 'A skid on the way will stop the plan to ask'), then
    misses his deadline. The table plays his plan, the skid comes, and the question is one his order covers: had he
    confirmed the plan himself, the order would have resisted. At the deadline the autopilot answers it instead
    and accepts the skid ('skid accepted', marked as the autopilot's): his standing order is silently overruled."""
    clock = Clock()
    service = GameService(store, clock=clock)
    every = lines("speedway", 1)
    for user, line in every[:-1] + [("ann", "/game settings deadline_hours:12")] + every[-1:]:
        assert (await run(service, user, line)).outcome in ("applied", "shown"), line
    assert (await run(service, "ben", "/orders set question:skid answer:resist")).outcome == "shown"
    assert (await run(service, "ben", "/speed value:3")).outcome == "applied"
    preview = await run(service, "ben", "/move plan:tight-turn-left preview:yes")
    assert "chance to resist: #1 tight-turn-left 83%" in preview.text, preview.text
    clock.now += 13 * HOUR
    assert await service.run_due()
    answered = next(r for r in await _log(store) if r.actor == "ben" and '"AnswerSkid"' in r.action)
    assert json.loads(answered.action)["choice"] == "resist", (answered.action, answered.events)
    assert '"ByStandingOrder"' in answered.events, answered.events


# --- 4. the ping for an order carried out names the seat's old holder, not the member now playing it ----------

async def test_the_ping_for_a_taken_seats_standing_order_names_its_holder(service, store):
    """cal gives his Race seat to dave, who takes it and keeps orders (reaction: none, stabilize: yes). When ben's
    maneuver is answered by dave's orders and the game then waits on ann, the channel's message pings ann and dave
    with 'your turn. cal: your standing order answered (below).': it names cal, who no longer plays and set no
    order, and not dave. Words addressed to a seat's player name its holder ("cal's seat (dave)", as the same
    message's catch-up line and every reminder do)."""
    await _three(service, "race", 3)
    assert (await run(service, "cal", "/game seat give to:dave")).outcome == "applied"
    assert (await run(service, "dave", "/game seat take")).outcome == "applied"
    for line in ("/orders set question:reaction answer:none", "/orders set question:stabilize answer:yes"):
        assert (await run(service, "dave", line)).outcome == "shown", line
    race = get_ruleset("race")
    rng = random.Random(3)
    for _ in range(60):
        state = race.load_state((await store.active_game(CHANNEL)).state)
        player = race.acting_players(state)[0]
        legal = [a for a in race.legal_actions(state, player) if a.action is not None]
        attacks = [a for a in legal if a.primary]
        reply = await run(service, player, rng.choice(attacks if attacks and rng.random() < 0.8 else legal).command)
        if "standing order answered" in reply.ping_words and reply.mentions != ("dave",):
            break
    else:
        raise AssertionError("no order of dave's was answered while another player was pinged")
    assert "dave" in reply.mentions and "ann" in reply.mentions, reply.mentions
    assert "cal: your standing order" not in reply.ping_words, reply.ping_words
    assert "cal's seat (dave): your standing order answered" in reply.ping_words, reply.ping_words


# --- 5. the deadline's lead line credits the autopilot with an answer the player's own order gave ---------------

async def test_the_deadline_says_the_standing_order_answered_when_the_autopilot_played_nothing(store):
    """ann keeps `reaction: block`; a racer passes her and she misses her deadline to react. Her own order answers
    and that is all the turn needed, yet the notice opened "ann's deadline passed: the autopilot plays for them
    (… takes no action and defends)": the table told her rivals the computer played her, in a manner she did not
    choose. The lead line must say her standing order answered."""
    clock = Clock()
    service = GameService(store, clock=clock)
    race = get_ruleset("race")
    await _three(service, "race", 1, "deadline_hours:12")
    state = await _play_until(service, store, "race", 1, lambda r, s: ("ann", "reaction") in _asked(r, s))
    assert race.orders.question("reaction").choose(state, "ann", "block", race.legal_actions(state, "ann")) \
        is not None
    assert (await run(service, "ann", "/orders set question:reaction answer:block")).outcome == "shown"
    clock.now += 13 * HOUR
    notices = await service.run_due()
    text = next(n.reply.text for n in notices if "deadline passed" in n.reply.text)
    lead = text.splitlines()[0]
    assert lead == "ann's deadline passed: their standing order answers for them.", text
