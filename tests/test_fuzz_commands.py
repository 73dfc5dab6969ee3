"""Hostile input: random command lines through the grammar and the service give refusals, never a crash."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.protocol.commands import CommandSyntaxError, command_table, parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService
from tests.examples import games, lines

BACKENDS = ("sqlite", "postgres")  # the service fuzz runs on both (tests/conftest.py)
NAMES = [spec.name for spec in command_table().commands]
OPTIONS = sorted({o.name for spec in command_table().commands for o in spec.options} | {"x", "seed", "plan"})
VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(-10**20, 10**20).map(str),
    st.sampled_from(["normal", "turn-left", "slide", "front", "bob", "@everyone", "<@123>", "front@bob",
                     "normal,turn-left,normal", "yes", "A", "resist", "22-7", "speedway", "duel", "",
                     "track", "7H", "JK", "AS", "10D", "c1", "pits", "out", "swap", "11", "c1:4,c3:3", "c2:7",
                     "true", "false", "lane_only", "go_round", "cut", "host"]),
)
LINES = st.builds(
    lambda name, opts: "/" + name + "".join(f" {k}:{v}" for k, v in opts),
    st.sampled_from(NAMES + ["gam", "game", "move maneuver", "unknown"]),
    st.lists(st.tuples(st.sampled_from(OPTIONS), VALUES), max_size=4),
)


def test_random_lines_parse_or_refuse_cleanly():
    @settings(max_examples=400, deadline=None)
    @given(st.one_of(LINES, st.text(max_size=60)))
    def check(line):
        try:
            command = parse(line)
        except CommandSyntaxError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            return
        assert command.name in NAMES

    check()


GAMES = games()
EXAMPLES = max(60, 600 // len(GAMES))   # the budget the first two games had, shared among them all


@pytest.mark.parametrize("ruleset", GAMES)
def test_random_commands_never_crash_the_service_and_refusals_change_nothing(db_path, ruleset):
    loop = asyncio.new_event_loop()
    store = loop.run_until_complete(Store.open(db_path))
    service = GameService(store, render=None)
    opening = lines(ruleset, 3)
    users = [Actor(name, name) for name in dict.fromkeys(p for p, _ in opening)] + [Actor("mod", "mod", is_admin=True)]
    for user, line in opening:
        loop.run_until_complete(service.execute("c", Actor(user, user), parse(line)))

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(LINES, st.sampled_from(users))
    def check(line, user):
        try:
            command = parse(line)
        except CommandSyntaxError:
            return
        before = loop.run_until_complete(store.latest_game("c"))
        reply = loop.run_until_complete(service.execute("c", user, command))
        assert reply.outcome in ("applied", "shown", "refused")
        assert "Traceback" not in reply.text
        if reply.outcome == "refused":
            assert reply.ephemeral
            assert loop.run_until_complete(store.latest_game("c")) == before

    try:
        check()
    finally:
        loop.run_until_complete(store.close())
        loop.close()
