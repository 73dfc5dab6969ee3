"""The read-only doors meeting secrets and permissions: autocomplete, /help, /rules, /game status, log, catch-up,
review, /lfg and the board. Each shows a viewer only what they may see, offers only what the command then takes,
and never fails with an internal error."""

from __future__ import annotations

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor, Reply
from rules.codec import decode_state
from rules.speedway.ruleset import SPEEDWAY
from rules.speedway.state import SpeedwayState

G = "g1"


async def do(service, channel: str, user: str, line: str, *, guild: str = G, admin: bool = False,
             private_thread: bool = False) -> Reply:
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild,
                                 private_thread=private_thread)


async def must(service, channel: str, user: str, line: str, **kw) -> Reply:
    reply = await do(service, channel, user, line, **kw)
    assert reply.outcome == "applied", (line, reply.text)
    return reply


async def offered(service, channel: str, user: str, command: str, option: str, chosen: dict | None = None,
                  **kw) -> list[tuple[str, str]]:
    return await service.suggest(channel, Actor(user, user), command, option, "", chosen or {}, guild=G, **kw)


# --- autocomplete that fails, or leads where the command refuses ------------------------------------------------

async def test_seat_suggestions_in_a_game_whose_seats_keep_no_resigned_mark_do_not_crash(service):
    """In the toy plug-in game, typing /game resign player: makes the autocomplete raise AttributeError (Discord
    shows 'Loading options failed'): the framework promises games whose seats keep to themselves work."""
    for user, line in (("ann", "/game new ruleset:toy seed:3"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start")):
        await must(service, "toy", user, line)
    for command in ("game resign", "game seat give", "game seat computer"):
        try:
            offers = await offered(service, "toy", "ann", command, "player")
        except AttributeError as exc:   # the bug: an internal error instead of suggestions
            raise AssertionError(f"/{command} player: autocomplete raised {exc!r}") from None
        assert isinstance(offers, list)


async def test_speedway_drop_suggests_no_gun_once_nothing_may_be_dropped(service, store):
    """A Speedway driver who has dropped their mines this turn types /drop weapon: and is offered every mount, the
    front Vulcan gun included; each one sent is refused ('an offensive weapon: use /fire', 'already been used')."""
    for user, line in (("alice", "/game new ruleset:speedway seed:7"), ("alice", "/game join car:brawler"),
                       ("bob", "/game join car:torch"), ("alice", "/game start")):
        await must(service, "sw", user, line)
    state = decode_state(SpeedwayState, (await store.active_game("sw")).state)
    mover = state.active_player
    await must(service, "sw", mover, "/speed value:3")
    state = decode_state(SpeedwayState, (await store.active_game("sw")).state)
    (drop,) = [a.command for a in SPEEDWAY.legal_actions(state, mover) if a.command.startswith("/drop")]
    await must(service, "sw", mover, drop)
    state = decode_state(SpeedwayState, (await store.active_game("sw")).state)
    assert state.active_player == mover and not [a for a in SPEEDWAY.legal_actions(state, mover)
                                                 if a.command.startswith("/drop")]   # nothing left to drop
    offers = await offered(service, "sw", mover, "drop", "weapon")
    refused = []
    for _label, value in offers:
        reply = await service.execute("sw", Actor(mover, mover), Command("drop", {"weapon": value}), guild=G)
        if reply.outcome == "refused":
            refused.append((value, reply.text))
    assert "front" not in {value for _label, value in offers}, offers   # never a gun's mount
    assert not refused, refused


async def test_a_started_game_suggests_no_vehicle_to_join_with(service):
    """A newcomer watching a started Battlecars or Race game types /game join vehicle: (or pilot:) and is offered
    every vehicle; whichever they pick is refused ('seats are closed', 'the grid is closed')."""
    games = {"bc": ("/game new ruleset:battlecars seed:5", "/game join vehicle:interceptor",
                    "/game join vehicle:tank"),
             "rc": ("/game new ruleset:race seed:5", "/game join pilot:rookie", "/game join pilot:veteran")}
    dead_ends = []
    for channel, (new, first, second) in games.items():
        await must(service, channel, "ann", new)
        await must(service, channel, "ann", first)
        await must(service, channel, "ben", second)
        await must(service, channel, "ann", "/game start")
        for option in ("vehicle", "pilot"):
            for _label, value in await offered(service, channel, "zed", "game join", option):
                reply = await service.execute(channel, Actor("zed", "zed"), Command("game join", {option: value}),
                                              guild=G)
                if reply.outcome == "refused":
                    dead_ends.append((channel, option, value, reply.text))
    assert not dead_ends, sorted({(c, o, text) for c, o, _v, text in dead_ends})


async def test_a_spectator_is_not_offered_seats_to_resign_or_hand_to_the_computer(service):
    """zed, only watching a Track game, types /game resign player: and is offered ann's and ben's seats; sending
    either is refused ('Only the host or a server admin can do that for another player's seat')."""
    for user, line in (("ann", "/game new ruleset:track seed:5"), ("ann", "/game join"), ("ben", "/game join"),
                       ("ann", "/game start")):
        await must(service, "tr", user, line)
    dead_ends = []
    for command in ("game resign", "game seat computer"):
        for _label, value in await offered(service, "tr", "zed", command, "player"):
            options = {"player": value, "confirm": "yes"} if command == "game resign" else {"player": value}
            reply = await service.execute("tr", Actor("zed", "zed"), Command(command, options), guild=G)
            if reply.outcome == "refused":
                dead_ends.append((command, value, reply.text))
    assert not dead_ends, dead_ends


# --- /lfg and the board: a lobby nobody else can open -------------------------------------------------------------

async def test_a_lobby_moved_into_a_private_thread_is_not_listed(service):
    """A public lobby exported and imported into a private thread stays on /lfg (and the board) with a Join button,
    though nobody else can open that thread; a lobby opened there is unlisted unless public:yes."""
    await must(service, "old", "ann", "/new speedway")
    await must(service, "old", "ann", "/game join")
    exported = await do(service, "old", "ann", "/game export")
    moved = await service.execute("secret-thread", Actor("ann", "ann"),
                                  Command("game import", {"file": exported.files[0].data}), guild=G,
                                  private_thread=True)
    assert moved.outcome == "applied", moved.text
    listing = await do(service, "x", "zed", "/lfg")
    assert "secret-thread" not in listing.text and not listing.buttons, listing.text


async def test_standing_order_questions_are_not_offered_to_whom_no_question_comes(service):
    """In a Race with a seated GM, the GM (and a member only watching) typing /orders set question: is offered
    reaction and stabilize; sending one is refused ('The game master is asked none of these questions', 'Only a
    player seated in this game keeps standing orders here')."""
    for user, line in (("gm", "/game new ruleset:race seed:4 gm:yes"), ("ann", "/game join pilot:rookie"),
                       ("ben", "/game join pilot:veteran"), ("gm", "/game start")):
        await must(service, "rc", user, line)
    dead_ends = []
    for user in ("gm", "zed"):
        for _label, question in await offered(service, "rc", user, "orders set", "question"):
            answers = await offered(service, "rc", user, "orders set", "answer", {"question": question})
            options = {"question": question, "answer": answers[0][1] if answers else "x"}
            reply = await service.execute("rc", Actor(user, user), Command("orders set", options), guild=G)
            if reply.outcome == "refused":
                dead_ends.append((user, question, reply.text))
    assert not dead_ends, dead_ends
