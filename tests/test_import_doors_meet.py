"""The import door checks what the live doors check: who is offered a seat, who takes one, the host, and the
shape of the set-aside lines (a hand-edited export is refused in a short sentence, and nothing is stored)."""

from __future__ import annotations

import json

from bot.table.protocol.commands import Command, parse
from bot.table.protocol.replies import Actor

FOREIGN = 987_654   # a game id this bot does not hold: the import re-plays the file itself


async def run(service, channel, user, line):
    return await service.execute(channel, Actor(user, user, False), parse(line), guild="g1")


async def import_file(service, channel, user, data: bytes):
    return await service.execute(channel, Actor(user, user, False), Command("game import", {"file": data}), guild="g1")


async def finished_export(service, *extra: tuple[str, str]) -> dict:
    for user, line in (("alice", "/game new ruleset:speedway seed:3"), ("alice", "/game join"),
                       ("bob", "/game join"), ("alice", "/game start"), *extra, ("alice", "/game end")):
        assert (await run(service, "chan-a", user, line)).outcome == "applied", line
    reply = await run(service, "chan-a", "alice", "/game export")
    return {**json.loads(reply.files[0].data), "game_id": FOREIGN}


async def test_an_imported_seat_offer_names_a_member_id_not_markdown(service, store):
    """/game seat give refuses a `to:` that is not a member id; an imported OfferSeat must be held to the same."""
    document = await finished_export(service, ("alice", "/game seat give to:carol"))
    hostile = "x **bold** [Free Nitro](https://evil.tld) @everyone"
    for entry in document["actions"]:
        if entry["action"]["type"] == "OfferSeat":
            entry["action"]["to"] = hostile
    reply = await import_file(service, "chan-b", "eve", json.dumps(document).encode())
    assert reply.outcome == "refused" and "offers a seat to" in reply.text and len(reply.text) < 300, reply.text
    assert "](" not in reply.text and await store.latest_game("chan-b") is None


async def test_a_malformed_set_aside_list_is_a_refusal_not_a_crash(service, store):
    document = await finished_export(service)
    for actions in (5, None):
        data = json.dumps({**document, "set_aside": [{"rollback": 1, "actions": actions}]}).encode()
        reply = await import_file(service, "chan-b", "eve", data)   # not a TypeError out of the counting
        assert reply.outcome == "refused" and len(reply.text) < 300
    assert await store.latest_game("chan-b") is None


async def test_an_imported_log_gives_no_person_a_computer_seats_id(service, store):
    """The live door refuses ai-… ids ("kept for computer seats"): a file may not seat a person as one, nor
    make one its host."""
    for bad in ("ai-7",):
        assert (await run(service, "chan-x", bad, "/game join")).outcome == "refused"
    document = await finished_export(service)
    for entry in document["actions"]:
        if entry["actor"] == "bob":
            entry["actor"] = "ai-7"
    reply = await import_file(service, "chan-b", "eve", json.dumps(document).encode())
    assert reply.outcome == "refused" and "computer seat's id" in reply.text, reply.text
    hosted = await finished_export(service)
    reply = await import_file(service, "chan-c", "eve", json.dumps({**hosted, "host": "ai-7"}).encode())
    assert reply.outcome == "refused" and "computer seat's id" in reply.text, reply.text
