"""Table settings are read through the codec: what earlier releases stored loads as before, damage is refused."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.storage.store import Store
from bot.table.clock.settings import DamagedSettings, TableSettings, updated
from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.service.entry import GameService

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def released_decoder(text: str) -> TableSettings:
    """How settings were read up to now (no checks at all), to compare with."""
    raw = json.loads(text or "{}")
    if raw.get("quiet_hours") is not None:
        raw["quiet_hours"] = tuple(raw["quiet_hours"])
    return TableSettings(**raw)


@pytest.mark.parametrize("release", ["release8.db", "release9.db", "release11.db", "release12.db"])
def test_settings_stored_by_earlier_releases_load_as_before(release, tmp_path):
    shutil.copyfile(FIXTURES / release, tmp_path / release)  # opening a WAL database may write beside it
    with sqlite3.connect(tmp_path / release) as db:
        stored = [text for (text,) in db.execute("SELECT settings FROM games")]
    assert len(stored) >= 2 and any(text != "{}" for text in stored)
    for text in stored:
        settings = TableSettings.from_json(text)
        assert settings == released_decoder(text)
        assert settings.to_json() == released_decoder(text).to_json()
        if text != "{}":   # what was stored, and the defaults of settings added since
            assert json.loads(settings.to_json()) == {"away_limit_hours": 12.0, "gone_hours": 72.0, **json.loads(text)}


hours = st.integers(min_value=1, max_value=720)
options = st.fixed_dictionaries({}, optional={
    "reminder_hours": hours,
    "deadline_hours": st.integers(min_value=0, max_value=720),
    "deadline_action": st.sampled_from(["autopilot", "skip"]),
    "quiet_hours": st.sampled_from(["none", "22-7", "0-23", "9-17", "23-0"]),
    "pause_limit_hours": st.integers(min_value=0, max_value=2160),
    "grace": st.integers(min_value=0, max_value=3),
})
pauses = st.dictionaries(st.text(min_size=1, max_size=20), st.floats(min_value=0, max_value=4e9))


@given(options, pauses)
def test_whatever_the_settings_command_writes_reads_back_identically(changes, paused):
    settings = TableSettings(paused_until=paused)
    settings = updated(settings, changes)
    text = settings.to_json()
    assert TableSettings.from_json(text) == settings == released_decoder(text)
    assert TableSettings.from_json(text).to_json() == text


@pytest.mark.parametrize(("text", "why"), [
    ("not json", "Expecting value"),
    ("[]", "not an object"),
    ("null", "not an object"),
    ('{"reminder_hours": "6"}', "reminder_hours: expected a number"),
    ('{"reminder_hours": true}', "reminder_hours: expected a number"),
    ('{"reminder_hours": 0}', "reminder_hours is 0.0"),
    ('{"reminder_hours": NaN}', "reminder_hours is nan"),
    ('{"reminder_hours": Infinity}', "reminder_hours is inf"),
    ('{"deadline_hours": 721}', "deadline_hours is 721.0"),
    ('{"deadline_hours": []}', "deadline_hours: "),
    ('{"deadline_action": "nap"}', "deadline_action is 'nap'"),
    ('{"deadline_action": null}', "deadline_action: expected a string"),
    ('{"quiet_hours": [22]}', "quiet_hours: "),
    ('{"quiet_hours": [22, 7, 1]}', "quiet_hours: "),
    ('{"quiet_hours": [22, 24]}', "quiet_hours 22-24"),
    ('{"quiet_hours": [-1, 7]}', "quiet_hours -1-7"),
    ('{"quiet_hours": [7, 7]}', "quiet_hours 7-7"),
    ('{"quiet_hours": [22.0, 7]}', "quiet_hours: "),
    ('{"quiet_hours": "22-7"}', "quiet_hours: "),
    ('{"pause_limit_hours": -1}', "pause_limit_hours is -1.0"),
    ('{"paused_until": []}', "paused_until: expected an object"),
    ('{"paused_until": {"alice": "soon"}}', "paused_until: expected a number"),
    ('{"paused_until": {"alice": -5}}', "paused_until has 'alice'"),
    ('{"paused_until": {"": 5}}', "paused_until has ''"),
    ('{"colour": "red"}', "unknown 'colour'"),
    ('{"grace": 4}', "grace is 4"),
    ('{"grace_used": {"alice": -1}}', "grace_used is"),
    ('{"clock": "hourglass"}', "clock is 'hourglass'"),
    ('{"clock": "bank"}', "a bank clock without bank_hours"),
    ('{"clock": "bank", "bank_hours": 10, "cap_hours": 5}', "cap_hours is 5.0"),
    ('{"banks": {"alice": -1}}', "banks has 'alice'"),
    ('{"previewed": {"alice": "n.n"}}', "previewed: "),
    ('[' * 100_000 + ']' * 100_000, ""),
])
def test_damaged_settings_are_refused_with_the_reason(text, why):
    with pytest.raises(DamagedSettings) as refused:
        TableSettings.from_json(text)
    assert why in refused.value.message and "/game settings" in refused.value.message


async def test_a_table_with_damaged_settings_refuses_until_the_host_sets_them_again(tmp_path):
    store = await Store.open(str(tmp_path / "pitboss.db"))
    service = GameService(store, render=None)

    async def run(user: str, line: str):
        return await service.execute("chan-1", Actor(user, user), parse(line))

    try:
        await run("alice", "/game new ruleset:speedway seed:7")
        await run("alice", "/game join car:brawler")
        await run("bob", "/game join car:torch")
        game = await store.active_game("chan-1")
        async with store.transaction():
            await store.set_settings_tx(game, '{"quiet_hours": [22, 99]}')

        started = await run("alice", "/game start")
        assert started.outcome == "refused" and "settings cannot be read (quiet_hours 22-99" in started.text
        assert (await store.active_game("chan-1")).version == game.version  # nothing half-applied
        assert (await run("bob", "/game settings")).outcome == "refused"
        assert (await run("bob", "/game settings reminder_hours:3")).text.startswith("Only the host")

        fixed = await run("alice", "/game settings reminder_hours:3")
        assert fixed.text.startswith("Table settings changed") and "quiet hours: none" in fixed.text
        assert TableSettings.from_json((await store.active_game("chan-1")).settings) == TableSettings(reminder_hours=3)
        assert (await run("alice", "/game start")).outcome == "applied"
    finally:
        await store.close()
