"""The bot's global pace and its choice of route for an edit (issue 28, item 7), on a fake clock."""

from __future__ import annotations

import asyncio
import datetime
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.chat.pacing import GLOBAL_RATE, GlobalPacer, global_rate
from bot.chat.routes import MARGIN, TOKEN_LIFE, InteractionWebhooks, edit_message
from tests.conftest import run_cli


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


async def test_no_more_than_the_rate_start_in_any_window():
    clock = Clock()
    pacer = GlobalPacer(45, clock=clock, sleep=clock.sleep)
    starts = []
    for _ in range(200):
        pacer.done(await pacer.wait())   # answered at once
        starts.append(clock.now)
    for first in starts:
        assert sum(first <= s < first + 1.0 for s in starts) <= 45
    assert starts[44] == 0.0 and starts[45] == 1.0   # a burst up to the rate goes at once, then one waits
    assert pacer.waited == 4   # at starts 45, 90, 135 and 180: each then found a whole window spent


async def test_requests_waiting_together_keep_their_order_and_the_pace():
    clock = Clock()
    pacer = GlobalPacer(3, clock=clock, sleep=clock.sleep)
    order: list[tuple[int, float]] = []

    async def one(n: int) -> None:
        pacer.done(await pacer.wait())
        order.append((n, clock.now))

    await asyncio.gather(*(one(n) for n in range(7)))
    assert [n for n, _ in order] == list(range(7))
    assert [at for _, at in order] == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 2.0]


async def test_a_request_in_flight_holds_its_place_until_a_window_after_its_answer():
    clock = Clock()
    pacer = GlobalPacer(1, clock=clock, sleep=clock.sleep)
    place = await pacer.wait()
    clock.now = 5.0   # answered only now: it may have reached Discord just before
    pacer.done(place)
    pacer.done(await pacer.wait())
    assert clock.now == 6.0


CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


class Webhook:
    def __init__(self, status: int | None = None):
        self.status = status
        self.edits: list[tuple[int, dict]] = []

    async def edit_message(self, message_id: int, **fields: Any) -> None:
        self.edits.append((message_id, fields))
        if self.status is not None:
            raise discord.HTTPException(SimpleNamespace(status=self.status, reason="dead"),  # type: ignore[arg-type]
                                        {"code": 50027, "message": "Invalid Webhook Token"})


class Channel:
    def __init__(self) -> None:
        self.edits: list[tuple[int, dict]] = []

    def get_partial_message(self, message_id: int) -> Any:
        channel = self

        class Partial:
            async def edit(self, **fields: Any) -> None:
                channel.edits.append((message_id, fields))
        return Partial()


def interaction(webhook: Webhook | None = None, pressed: int | None = None) -> Any:
    own: list[dict] = []

    async def edit_original_response(**fields: Any) -> None:
        own.append(fields)
    return SimpleNamespace(followup=webhook, created_at=CREATED, channel=Channel(), own=own,
                           message=SimpleNamespace(id=pressed) if pressed else None,
                           edit_original_response=edit_original_response)


async def test_an_edit_takes_the_press_then_the_posters_token_then_the_channel():
    now = [CREATED]
    webhooks = InteractionWebhooks(now=lambda: now[0])
    poster = Webhook()
    webhooks.remember("10", interaction(poster))

    pressed = interaction(pressed=10)
    await edit_message(pressed, "10", webhooks, from_button=True, content="a")
    assert pressed.own == [{"content": "a"}] and not poster.edits and not pressed.channel.edits

    typed = interaction()
    await edit_message(typed, "10", webhooks, from_button=False, content="b")
    assert poster.edits == [(10, {"content": "b"})] and not typed.channel.edits

    now[0] = CREATED + TOKEN_LIFE - MARGIN   # the token is kept no closer to its end than the margin
    assert webhooks.webhook("10") is None and len(webhooks) == 0
    await edit_message(typed, "10", webhooks, from_button=False, content="c")
    assert typed.channel.edits == [(10, {"content": "c"})] and len(poster.edits) == 1


async def test_a_token_discord_calls_dead_is_forgotten_and_the_channel_edits():
    webhooks = InteractionWebhooks(now=lambda: CREATED)
    dead = Webhook(status=401)
    webhooks.remember("10", interaction(dead))
    typed = interaction()
    await edit_message(typed, "10", webhooks, from_button=False, view=None)
    await edit_message(typed, "10", webhooks, from_button=False, view=None)
    assert len(dead.edits) == 1   # tried once
    assert typed.channel.edits == [(10, {"view": None}), (10, {"view": None})]


async def test_without_the_channel_an_edit_no_interaction_reaches_is_not_sent():
    """Issue 39, item 7: a move's edit goes by an interaction's route or not at all (it posts anew instead)."""
    webhooks = InteractionWebhooks(now=lambda: CREATED)
    dead = Webhook(status=401)
    webhooks.remember("10", interaction(dead))
    typed = interaction()
    assert not await edit_message(typed, "10", webhooks, from_button=False, channel=False, view=None)
    assert not await edit_message(typed, "11", webhooks, from_button=False, channel=False, view=None)
    assert len(dead.edits) == 1 and not typed.channel.edits
    pressed = interaction(pressed=10)
    assert await edit_message(pressed, "10", webhooks, from_button=True, channel=False, view=None)
    assert pressed.own == [{"view": None}]


def test_a_superseded_message_is_retired_once_and_the_oldest_go_first():
    webhooks = InteractionWebhooks(now=lambda: CREATED, superseded_limit=2)
    for n in range(3):
        webhooks.supersede(str(n), f"turn {n}")
    assert webhooks.superseded("0") is None
    assert webhooks.superseded("2") == "turn 2" and webhooks.superseded("2") is None


def test_the_oldest_tokens_go_first_beyond_the_limit():
    webhooks = InteractionWebhooks(now=lambda: CREATED, limit=3)
    for n in range(5):
        webhooks.remember(str(n), interaction(Webhook()))
    assert len(webhooks) == 3 and webhooks.webhook("0") is None and webhooks.webhook("4") is not None


def test_a_process_of_some_shards_takes_their_share_of_the_one_global_budget(monkeypatch):
    """Discord's global limit is the bot token's, across its processes: shards 0-1 of 4 pace to half."""
    monkeypatch.delenv("PITBOSS_GLOBAL_RATE", raising=False)
    assert global_rate() == GLOBAL_RATE
    assert global_rate(2 / 4) == GLOBAL_RATE // 2 and global_rate(1 / 100) == 1
    monkeypatch.setenv("PITBOSS_GLOBAL_RATE", "20")
    assert global_rate(0.5) == 20
    monkeypatch.setenv("PITBOSS_GLOBAL_RATE", "500")   # a large bot's raised limit, its processes' share
    assert global_rate() == 500
    for bad in ("0", "10001", "fast", "-3"):
        monkeypatch.setenv("PITBOSS_GLOBAL_RATE", bad)
        with pytest.raises(ValueError, match="PITBOSS_GLOBAL_RATE must be a whole number"):
            global_rate()


def test_pitboss_run_refuses_a_malformed_global_rate_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("PITBOSS_GLOBAL_RATE", "lots")
    monkeypatch.setenv("DISCORD_TOKEN", "a.b.c")
    done = run_cli("run", "--db", str(tmp_path / "p.db"), cwd=tmp_path)
    assert done.returncode == 2 and "PITBOSS_GLOBAL_RATE must be a whole number" in done.stderr, done.stderr
