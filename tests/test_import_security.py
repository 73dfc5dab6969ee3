"""/game import and the table around it under attack: moved games, stolen games, forged logs, forks,
hostile files and names, and the rate limit's table budget (security issue, items 1-10)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from bot.table.trust.commitment import commitment
from bot.table.trust.guards import RateLimit, plain_name
from bot.table.trust.importer import MAX_IMPORT_BYTES, MAX_REPLAY_ACTIONS
from rules.codec import decode_state, decode_tagged
from rules.engine import replay_states
from rules.registry import get_ruleset
from tests.conftest import ROOT

BACKENDS = ("sqlite", "postgres")


async def run(service, channel: str, user: str, line: str, *, admin: bool = False, guild: str = "g1"):
    return await service.execute(channel, Actor(user, user, admin), parse(line), guild=guild)


async def import_file(service, channel: str, user: str, data: bytes, *, admin: bool = False, guild: str = "g1"):
    return await service.execute(channel, Actor(user, user, admin), Command("game import", {"file": data}),
                                 guild=guild)


async def track_game(service, channel: str = "chan-a") -> None:
    """A running Track game with a secret seed: 111 hosts, 222 joins, started."""
    for user, line in (("111", "/game new ruleset:track"), ("111", "/game join"), ("222", "/game join"),
                       ("111", "/game start")):
        assert (await run(service, channel, user, line)).outcome == "applied"


async def export(service, channel: str, user: str = "111") -> bytes:
    reply = await run(service, channel, user, "/game export")
    assert reply.outcome == "shown", reply.text
    return reply.files[0].data


async def play_first_legal(service, store, channel: str, count: int) -> None:
    """Play the game's first legal action `count` times, whoever is waiting."""
    for _ in range(count):
        game = await store.active_game(channel)
        ruleset = get_ruleset(game.ruleset)
        state = decode_state(ruleset.state_type, game.state)
        (player,) = ruleset.acting_players(state)[:1]
        legal = ruleset.legal_actions(state, player)
        assert (await run(service, channel, player, legal[0].command)).outcome == "applied"


FOREIGN_GAME_ID = 987_654  # a game id this bot does not hold: the file is from another installation


def from_elsewhere(document: dict) -> bytes:
    """A finished game's export as if made by another bot, so importing it re-plays the file's own log
    (a game this bot holds is copied from its own store instead)."""
    return json.dumps({**document, "game_id": FOREIGN_GAME_ID}).encode()


async def all_rows(store) -> tuple:
    games = await store.driver.fetchall("SELECT id, channel, status, version, state, moved_to FROM games ORDER BY id")
    actions = await store.driver.fetchall("SELECT game_id, seq, actor, action, events FROM actions ORDER BY 1, 2")
    return games, actions


# --- 1. a moved game never reveals its seed where it no longer runs, and runs once -------------------

async def test_a_moved_game_reveals_no_seed_in_its_old_channel(service, store):
    await track_game(service)
    data = await export(service, "chan-a")
    moved = await import_file(service, "chan-b", "111", data)
    assert moved.outcome == "applied" and "moved here" in moved.text
    seed = (await store.active_game("chan-b")).seed
    for line in ("/game verify", "/game export", "/game log", "/game replay"):
        reply = await run(service, "chan-a", "999", line)
        assert reply.outcome == "refused" and "moved to chan-b" in reply.text, (line, reply.text)
        assert str(seed) not in reply.text and not reply.files
    status = await run(service, "chan-a", "999", "/game status")
    assert status.outcome == "shown" and "moved to chan-b" in status.text and str(seed) not in status.text
    assert not status.buttons and not status.waiting_on  # nothing to press or ping where it left
    # The leaked file cannot start a second copy anywhere, by anyone.
    for channel in ("chan-c", "chan-a"):
        again = await import_file(service, channel, "111", data)
        assert again.outcome == "refused" and "already moved to chan-b" in again.text
    assert [g.channel for g in await store.active_games_after(0, 10)] == ["chan-b"]


async def test_a_seed_bearing_log_of_an_unfinished_game_cannot_start_a_copy(service, store):
    await track_game(service)
    game = await store.active_game("chan-a")
    document = json.loads(await export(service, "chan-a"))
    document["seed"] = game.seed  # as if the seed had leaked
    reply = await import_file(service, "chan-z", "999", json.dumps(document).encode())
    assert reply.outcome == "refused" and "Only a finished game" in reply.text
    assert await store.latest_game("chan-z") is None


async def test_a_game_moved_by_the_previous_release_keeps_its_seed_secret(release8_store):
    """Release 8 retired a moved game as plain 'finished': its old channel must not reveal the seed."""
    store = release8_store
    service = GameService(store, render=None)
    old = await store.latest_game("chan-move-a")
    assert old.status == "finished" and old.moved_to is None
    for line in ("/game verify", "/game export"):
        reply = await run(service, "chan-move-a", "mallory", line, guild="guild-1")
        assert reply.outcome == "refused" and str(old.seed) not in reply.text and not reply.files
    # The game that really ended there still reveals its seed, and every game still verifies.
    over = await run(service, "chan-over", "mallory", "/game verify", guild="guild-1")
    assert "Dice seed revealed: 42" in over.text
    for game in await store.all_games():
        assert await service.replay_matches(game), game.channel
    # ...and plays on: the running duel takes its next move.
    await play_first_legal(service, store, "chan-duel", 1)


# --- 2. only the host, or an admin of the game's own server, moves a running game -------------------

async def test_a_game_cannot_be_stolen_from_another_server(service, store):
    await track_game(service)
    data = await export(service, "chan-a", user="999")  # export is open to anyone: it has no secret
    stolen = await import_file(service, "chan-x", "999", data, admin=True, guild="g2")
    assert stolen.outcome == "refused" and "host" in stolen.text
    assert (await store.active_game("chan-a")) is not None and await store.latest_game("chan-x") is None
    by_admin = await import_file(service, "chan-c", "333", data, admin=True, guild="g1")
    assert by_admin.outcome == "applied"
    # The host may take their own game to another server.
    data = await export(service, "chan-c")
    assert (await import_file(service, "chan-y", "111", data, guild="g2")).outcome == "applied"


# --- 3. a move copies the stored log; a re-play never echoes another player's refusal --------------

async def test_a_move_copies_the_stored_log_whatever_the_file_says(service, store):
    await track_game(service)
    await play_first_legal(service, store, "chan-a", 4)
    source = await store.active_game("chan-a")
    stored = await store.actions(source.id)
    document = json.loads(await export(service, "chan-a"))
    document["actions"] = document["actions"][:3]  # cut back past a deal...
    document["actions"][-1]["actor"] = "222"       # ...and play another player's turn
    document["host"] = "999"
    moved = await import_file(service, "chan-b", "111", json.dumps(document).encode())
    assert moved.outcome == "applied"
    copy = await store.active_game("chan-b")
    assert (copy.state, copy.version, copy.host, copy.seed) == (source.state, source.version, "111", source.seed)
    assert await store.actions(copy.id) == stored  # events included
    assert await service.replay_matches(copy)


async def test_a_failing_re_play_does_not_show_anyones_hand(service, store):
    await track_game(service)
    await play_first_legal(service, store, "chan-a", 6)
    for _ in range(60):   # the seed is secret (random): a deal may open with discards, so play on to a card
        if any('"PlayCard"' in a.action for a in await store.actions((await store.active_game("chan-a")).id)):
            break
        await play_first_legal(service, store, "chan-a", 1)
    assert (await run(service, "chan-a", "111", "/game end")).outcome == "applied"
    document = json.loads(await export(service, "chan-a"))
    # The last card played becomes one its player did not hold then: the rules would answer with
    # that player's hand.
    game, track = await store.latest_game("chan-a"), get_ruleset("track")
    index = max(i for i, a in enumerate(document["actions"]) if a["action"]["type"] == "PlayCard")
    before = replay_states(track, json.loads(game.options), game.seed, game.host,
                           [(a["actor"], decode_tagged(track.actions, a["action"]))
                            for a in document["actions"][:index]])[-1]
    held = set(before.hand(document["actions"][index]["actor"]).cards)
    document["actions"][index]["action"]["card"] = next(
        rank + suit for rank in "A 2 3 4 5 6 7 8 9 10 J Q K".split() for suit in "SHDC" if rank + suit not in held)
    reply = await import_file(service, "chan-b", "999", from_elsewhere(document))
    assert reply.outcome == "refused" and "does not replay: action #" in reply.text
    assert "hand" not in reply.text.lower() and "hold" not in reply.text.lower()
    assert await store.latest_game("chan-b") is None


# --- 4. parallel moves of one export: exactly one wins --------------------------------------------

async def test_parallel_moves_never_fork_a_game(service, store):
    await track_game(service)
    data = await export(service, "chan-a")
    for round_ in range(3):
        results = await asyncio.gather(*(import_file(service, f"chan-{round_}-{i}", "111", data) for i in range(3)))
        assert sorted(r.outcome for r in results) == ["applied", "refused", "refused"]
        running = [g.channel for g in await store.active_games_after(0, 20)]
        assert len(running) == 1, running
        data = await export(service, running[0])


@pytest.mark.slow
async def test_two_processes_moving_one_game_never_fork_it(service, store, db_path, tmp_path):
    await track_game(service)
    path = tmp_path / "export.json"
    path.write_bytes(await export(service, "chan-a"))
    await store.close()
    procs = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "exec", "--db", db_path, "--channel", f"chan-p{i}", "--user", "111",
        f"/game import file:{path}", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT) for i in range(2)]
    codes = [await p.wait() for p in procs]
    assert sorted(codes) == [0, 1], [await p.stdout.read() for p in procs]
    reopened = await Store.open(db_path)
    try:
        assert len(await reopened.active_games_after(0, 10)) == 1
    finally:
        await reopened.close()


# --- 5. bounded work: long logs, and the game's own export always comes back -----------------------

async def test_a_re_play_longer_than_the_bound_is_refused_before_any_work(service, store):
    await track_game(service)
    assert (await run(service, "chan-a", "111", "/game end")).outcome == "applied"
    document = json.loads(await export(service, "chan-a"))
    document["actions"] = document["actions"] * (MAX_REPLAY_ACTIONS // len(document["actions"]) + 1)
    reply = await import_file(service, "chan-b", "999", from_elsewhere(document))
    assert reply.outcome == "refused" and "too long" in reply.text
    # The same file naming the game this bot holds is a copy of the stored game: any length comes back.
    copy = await import_file(service, "chan-c", "999", json.dumps(document).encode())
    assert copy.outcome == "applied" and (await store.latest_game("chan-c")).status == "finished"


async def test_a_whole_computer_game_exports_compactly_and_re_plays(service, store):
    for line in ("/game new ruleset:speedway seed:8", "/game add-ai car:torch", "/game add-ai car:lancer",
                 "/game start"):
        assert (await run(service, "chan-a", "host", line)).outcome == "applied"
    game = await store.latest_game("chan-a")
    assert game.status == "finished" and game.version > 100
    data = await export(service, "chan-a", user="host")
    per_action = len(data) / game.version
    assert per_action * MAX_REPLAY_ACTIONS * 2 < MAX_IMPORT_BYTES, per_action
    copy = await import_file(service, "chan-b", "someone", from_elsewhere(json.loads(data)))
    assert copy.outcome == "applied" and "re-played" in copy.text
    replayed = await store.latest_game("chan-b")
    assert replayed.state == game.state and await service.replay_matches(replayed)
    log = await run(service, "chan-b", "someone", "/game log count:3")
    assert all(line.split(" ", 1)[1].strip() for line in log.text.splitlines())  # events were kept


async def test_games_reads_only_the_players_own_games(service, store):
    for i in range(6):
        await run(service, f"chan-{i}", "host", "/game new ruleset:speedway")
        await run(service, f"chan-{i}", "host", "/game join")
        if i % 2:
            await run(service, f"chan-{i}", "ann", "/game join")
    mine = await store.active_games_of("g1", "ann")
    assert [g.channel for g in mine] == ["chan-1", "chan-3", "chan-5"]
    listed = await run(service, "chan-0", "ann", "/games")
    assert listed.text.count("Speedway") == 3
    assert await store.active_games_of("g2", "ann") == []  # another server's games are not listed


async def test_seats_of_games_stored_before_the_index_are_filled_in_once(release8_store):
    service = GameService(release8_store, render=None)
    listed = await run(service, "chan-x", "carol", "/games", guild="guild-1")
    assert "chan-track" in listed.text and "chan-duel" not in listed.text
    assert await release8_store.get_meta("seats_indexed") == "1"


# --- 6. names are cleaned at every door; seats come from known ids ---------------------------------

HOSTILE_NAMES = ("[Free Nitro](https://evil.tld)", "x\n**Dice seed revealed: 7**", "\u3164\u3164\u3164",
                 "<@123456789012345678>", "a\u200b\u202eb")


async def test_names_in_an_imported_log_are_cleaned(service, store):
    await run(service, "chan-a", "alice", "/game new ruleset:speedway seed:3")
    await run(service, "chan-a", "alice", "/game join")
    await run(service, "chan-a", "bob", "/game join")
    await run(service, "chan-a", "alice", "/game start")
    await run(service, "chan-a", "alice", "/game end")
    document = json.loads(await export(service, "chan-a"))
    joins = [a for a in document["actions"] if a["action"]["type"] == "Join"]
    joins[0]["action"]["name"], joins[1]["action"]["name"] = HOSTILE_NAMES[:2]
    reply = await import_file(service, "chan-b", "carol", from_elsewhere(document))
    assert reply.outcome == "applied", reply.text
    state = decode_state(get_ruleset("speedway").state_type, (await store.latest_game("chan-b")).state)
    assert [p.name for p in state.players] == [plain_name(n) for n in HOSTILE_NAMES[:2]]
    shown = (await run(service, "chan-b", "carol", "/game status"))
    for text in (shown.text, shown.alt_text):
        assert "](" not in text and "**" not in text and "Dice seed revealed: 7" not in text


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_every_hostile_name_is_plain(name):
    cleaned = plain_name(name)
    assert cleaned.strip() and "\n" not in cleaned and not set(cleaned) & set("[]()<>@*\u3164\u200b\u202e")


async def test_a_player_id_must_be_well_formed_and_not_a_computer_seat(service, store):
    await run(service, "chan-a", "alice", "/game new ruleset:speedway")
    for bad in ("ai-1", "<@1>", "bob smith", ""):
        reply = await run(service, "chan-a", bad, "/game join")
        assert reply.outcome == "refused" and "player id" in reply.text
    document = json.loads(await export(service, "chan-a", user="alice"))
    document["seed"] = 5
    document["seed_commitment"] = commitment(5)
    document["host"] = "<@everyone>"
    reply = await import_file(service, "chan-b", "carol", json.dumps(document).encode())
    assert reply.outcome == "refused" and "host is not a player id" in reply.text


# --- 7. crafted files are refused cleanly, before anything else ------------------------------------

async def _finished_export(service) -> dict:
    await run(service, "chan-a", "alice", "/game new ruleset:speedway seed:3")
    await run(service, "chan-a", "alice", "/game join")
    await run(service, "chan-a", "bob", "/game join")
    await run(service, "chan-a", "alice", "/game start")
    await run(service, "chan-a", "alice", "/game end")
    return json.loads(await export(service, "chan-a"))


async def test_crafted_files_get_a_clean_refusal(service, store):
    good = await _finished_export(service)
    text = json.dumps(good)
    crafted = {
        "deep nesting": ("[" * 100_000 + "]" * 100_000).encode(),
        "huge integer": text.replace('"game_id":', '"game_id": 1' + "0" * 5000 + ", \"x\":").encode(),
        "game id 10^30": json.dumps({**good, "game_id": 10**30}).encode(),
        "game id Infinity": text.replace(f'"game_id": {good["game_id"]}', '"game_id": Infinity').encode(),
        "game id NaN": text.replace(f'"game_id": {good["game_id"]}', '"game_id": NaN').encode(),
        "arena list": json.dumps({**good, "options": {"arena": ["classic"]}}).encode(),
        "unknown arena": json.dumps({**good, "options": {"arena": "moon"}}).encode(),
        "track option": json.dumps({**good, "options": {"joker_forced": "true"}}).encode(),
        "lone surrogate host": text.replace('"host": "alice"', '"host": "\\ud800"').encode(),
        "options not a table": json.dumps({**good, "options": "arena"}).encode(),
        "actions not a list": json.dumps({**good, "actions": {"0": 1}}).encode(),
        "action field of the wrong kind": from_elsewhere({**good, "actions": good["actions"] + [
            {"actor": "alice", "action": {"type": "Move", "maneuver": ["normal"]}}]}),
        "bool seed": json.dumps({**good, "seed": True}).encode(),
        "revision from the future": json.dumps({**good, "options": {"revision": 99}}).encode(),
        "bad commitment": json.dumps({**good, "seed_commitment": "x" * 64}).encode(),
        "not utf-8": b"\xff\xfe{}",
    }
    before = await all_rows(store)
    for what, data in crafted.items():
        reply = await import_file(service, "chan-z", "eve", data)
        assert reply.outcome == "refused" and reply.ephemeral and len(reply.text) < 300, (what, reply.text)
    assert await all_rows(store) == before


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.lists(st.sampled_from(["game_id", "host", "options", "seed", "actions", "seed_commitment",
                                      "ruleset", "format_version", 0, 1, "action", "actor", "type", "name"]),
                     min_size=1, max_size=4),
       value=st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=6))
def test_fuzzed_exports_are_applied_or_refused_never_crash(path, value):
    """Any one value anywhere in a real export: the import applies or refuses, never raises."""
    asyncio.run(_fuzz_once(path, value))


async def _fuzz_once(path, value) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(str(Path(folder) / "fuzz.db"))
        try:
            service = GameService(store, render=None)
            document = await _finished_export(service)
            target: object = document
            for key in path[:-1]:
                if (isinstance(target, dict) and key in target
                        or isinstance(target, list) and isinstance(key, int) and key < len(target)):
                    target = target[key]
            if (isinstance(target, dict)
                    or isinstance(target, list) and isinstance(path[-1], int) and path[-1] < len(target)):
                target[path[-1]] = value
            if isinstance(document, dict) and path[0] != "game_id":
                document["game_id"] = FOREIGN_GAME_ID  # re-play the (mutated) file, not the stored copy
            reply = await import_file(service, "chan-z", "eve", json.dumps(document).encode())
            assert reply.outcome in ("applied", "refused"), reply
        finally:
            await store.close()


# --- 9. the rate limit gives play back, not tables ---------------------------------------------------

async def test_creating_and_ending_tables_has_its_own_small_budget(store):
    service = GameService(store, render=None, rate_limit=RateLimit())
    outcomes = []
    for _ in range(20):
        outcomes.append((await run(service, "chan-a", "eve", "/game new ruleset:speedway")).outcome)
        outcomes.append((await run(service, "chan-a", "eve", "/game end")).outcome)
    assert outcomes.count("applied") <= 5 and outcomes[-10:] == ["refused"] * 10
    # Play in a running game is still never held back.
    ann = GameService(store, render=None, rate_limit=RateLimit())
    await run(ann, "chan-b", "ann", "/game new ruleset:speedway seed:2")
    await run(ann, "chan-b", "ann", "/game add-ai")
    await run(ann, "chan-b", "ann", "/game join")
    await run(ann, "chan-b", "ann", "/game start")
    for _ in range(60):
        game = await store.active_game("chan-b")
        if game is None:
            break
        ruleset = get_ruleset(game.ruleset)
        state = decode_state(ruleset.state_type, game.state)
        reply = await run(ann, "chan-b", "ann", ruleset.legal_actions(state, "ann")[0].command)
        assert reply.outcome == "applied", reply.text


# --- 10. a moved game keeps its history, settings and undo -----------------------------------------

async def test_a_moved_game_keeps_history_settings_and_undo(service, store):
    await track_game(service)
    await run(service, "chan-a", "111", "/game settings reminder_hours:3 deadline_hours:24")
    await play_first_legal(service, store, "chan-a", 3)
    before_log = (await run(service, "chan-a", "999", "/game log count:5")).text
    assert (await import_file(service, "chan-b", "111", await export(service, "chan-a"))).outcome == "applied"
    assert (await run(service, "chan-b", "999", "/game log count:5")).text == before_log
    settings_reply = await run(service, "chan-b", "111", "/game settings")
    assert "3" in settings_reply.text and "24" in settings_reply.text
    game = await store.active_game("chan-b")
    timer = await store.timer(game.id)
    assert timer is not None and timer.channel == "chan-b"
    old = await store.latest_game("chan-a")
    assert await store.timer(old.id) is None
    last_actor = (await store.actions(game.id))[-1].actor
    undo = await run(service, "chan-b", last_actor, "/undo")
    if undo.outcome == "applied":
        assert undo.text.startswith("Undone: ") and len(undo.text.split("\n")[0]) > len("Undone: ")
    else:
        assert "cannot be undone" in undo.text  # a card was drawn: no take-backs


@pytest.mark.parametrize("failure", [KeyError("car"), IndexError("list index out of range"), LookupError("seat")])
def test_a_replayed_log_that_misses_any_lookup_is_refused_by_its_position(monkeypatch, failure):
    """A hostile log can reach a lookup the rules guarantee for honest play (a seat, a pending question):
    whichever LookupError it raises, the re-play refuses at that action's number, never a traceback."""
    import rules.engine as engine

    def steps(*_args):
        yield "setup", ()
        yield "after 1", ("one",)
        raise failure

    monkeypatch.setattr(engine, "replay_steps", steps)
    with pytest.raises(engine.ReplayRefused) as refused:
        engine.replay_with_events(None, {}, 1, "host", [])
    assert refused.value.number == 2 and refused.value.message == "action #2 is not legal at that point"


@pytest.mark.parametrize(("board", "accepted"), [("large", True), ("town", False), ("Large", True)])
def test_an_imported_option_is_checked_as_its_own_game_declares_it(monkeypatch, board, accepted):
    """Setup options are checked against the game's own /game new, never the spec the games share: a
    game that names an option as another game does (board:) takes only its own choices."""
    from dataclasses import replace

    from bot.table.trust import importer
    from rules.grammar import ROUND_CAP, OptionSpec
    speedway = get_ruleset("speedway")
    boards = OptionSpec("board", "str", "Which board", choices=("small", "large"))
    variant = speedway.variant(grammar=replace(speedway.grammar, new_options=(boards, ROUND_CAP)))
    monkeypatch.setattr(importer, "get_ruleset", lambda _id: variant)
    document = {"format": importer.EXPORT_FORMAT, "format_version": 1, "ruleset": "speedway", "game_id": 7,
                "host": "alice", "seed_commitment": commitment(5), "options": {"board": board}, "actions": []}
    data = json.dumps(document).encode()
    if accepted:
        assert importer.read_export(data).options == {"board": board.lower()}
    else:
        with pytest.raises(importer.BadImport, match="board: must be one of small, large"):
            importer.read_export(data)
