"""Self-tests of the fake Discord: a tiny raw-HTTP "bot" (aiohttp, no discord.py) checks that the fake
enforces what the end-to-end tests rely on. Fast, no subprocess."""

from __future__ import annotations

import json

import aiohttp
import pytest

from tests.e2e.fake_discord import EPHEMERAL, FakeDiscord

COMMANDS = [
    {"name": "game", "description": "Games", "options": [
        {"type": 1, "name": "new", "description": "New game", "options": [
            {"type": 3, "name": "ruleset", "description": "Which", "required": True,
             "choices": [{"name": "speedway", "value": "speedway"}]}]},
        {"type": 1, "name": "status", "description": "Status"}]},
    {"name": "fire", "description": "Fire", "options": [
        {"type": 3, "name": "target", "description": "Target", "required": True, "autocomplete": True}]},
]


class MiniBot:
    """Just enough of a bot: log in, sync, hold a gateway session, read INTERACTION_CREATE."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession):
        self.fake, self.http = fake, session
        self.api = f"{fake.url}/api/v10"
        self.auth = {"Authorization": f"Bot {fake.token}"}

    async def connect(self) -> None:
        async with self.http.put(f"{self.api}/applications/{self.fake.app_id}/commands", json=COMMANDS,
                                 headers=self.auth) as response:
            assert response.status == 200, await response.text()
        self.ws = await self.http.ws_connect(f"{self.fake.gateway_url}?v=10&encoding=json")
        hello = await self.ws.receive_json(timeout=5)
        assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
        await self.ws.send_json({"op": 1, "d": None})
        assert (await self.ws.receive_json(timeout=5))["op"] == 11
        await self.ws.send_json({"op": 2, "d": {"token": self.fake.token, "intents": 513,
                                                "properties": {}, "shard": [0, 1]}})
        ready = await self.ws.receive_json(timeout=5)
        assert ready["t"] == "READY" and ready["d"]["shard"] == [0, 1]
        assert ready["d"]["application"]["id"] == self.fake.app_id
        guild = await self.ws.receive_json(timeout=5)
        assert guild["t"] == "GUILD_CREATE"
        assert {m["user"]["username"] for m in guild["d"]["members"]} >= {"alice", "bob", "carol", "admin"}
        assert guild["d"]["threads"][0]["type"] == 11

    async def next_interaction(self) -> dict:
        event = await self.ws.receive_json(timeout=5)
        assert event["t"] == "INTERACTION_CREATE"
        return event["d"]

    async def post(self, path: str, **kwargs) -> tuple[int, dict | None, str]:
        async with self.http.post(f"{self.api}{path}", **kwargs) as response:
            text = await response.text()
            return response.status, json.loads(text) if text else None, response.headers.get("Content-Type", "")

    async def callback(self, interaction: dict, body: dict) -> tuple[int, dict | None, str]:
        return await self.post(f"/interactions/{interaction['id']}/{interaction['token']}/callback",
                               params={"with_response": "1"}, json=body)

    async def followup(self, interaction: dict, body: dict, files: dict[str, bytes] | None = None):
        form = aiohttp.FormData()
        form.add_field("payload_json", json.dumps(body), content_type="application/json")
        for index, (name, data) in enumerate((files or {}).items()):
            form.add_field(f"files[{index}]", data, filename=name, content_type="application/octet-stream")
        return await self.post(f"/webhooks/{self.fake.app_id}/{interaction['token']}", params={"wait": "1"},
                               data=form)


@pytest.fixture
def fake():
    server = FakeDiscord(attachment_size_limit=1000).start()
    try:
        yield server
    finally:
        server.stop()


async def test_login_json_content_type_and_auth(fake):
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{fake.url}/api/v10/users/@me", headers={"Authorization": f"Bot {fake.token}"}) as r:
            assert r.status == 200 and r.headers["Content-Type"] == "application/json"
            assert (await r.json())["id"] == fake.app_id
        async with http.get(f"{fake.url}/api/v10/users/@me") as r:
            assert r.status == 401
        async with http.get(f"{fake.url}/api/v10/gateway/bot", headers={"Authorization": f"Bot {fake.token}"}) as r:
            body = await r.json()
            assert body["url"] == fake.gateway_url and body["shards"] == 1
        async with http.post(f"{fake.url}/api/v10/guilds/1/bans") as r:
            assert r.status == 404 and r.headers["Content-Type"] == "application/json"
    unexpected = fake.unexpected()
    assert any("unknown route POST /guilds/1/bans" in line for line in unexpected)
    assert any("401" in line for line in unexpected)


async def test_acknowledgement_rules_and_followups(fake):
    async with aiohttp.ClientSession() as http:
        bot = MiniBot(fake, http)
        await bot.connect()

        # A slash command: data.options nests the subcommand; a follow-up before any callback is refused.
        interaction_id = await fake.send_slash("bob", "thread", "game new", {"ruleset": "speedway"})
        interaction = await bot.next_interaction()
        assert interaction["id"] == interaction_id and interaction["attachment_size_limit"] == 1000
        assert interaction["channel"]["type"] == 11 and "guild_id" not in interaction["data"]
        assert interaction["data"]["options"] == [
            {"type": 1, "name": "new", "options": [{"type": 3, "name": "ruleset", "value": "speedway"}]}]
        assert (await bot.followup(interaction, {"content": "too early"}))[0] == 404

        status, body, content_type = await bot.callback(interaction, {"type": 5})
        assert status == 200 and content_type == "application/json"
        assert body["interaction"]["id"] == interaction_id and body["interaction"]["response_message_loading"]
        status, body, _ = await bot.callback(interaction, {"type": 5})
        assert (status, body["code"]) == (400, 40060)

        # Without deleting the public deferral, an "ephemeral" follow-up just fills it in, publicly.
        status, message, _ = await bot.followup(interaction, {"content": "secret?", "flags": EPHEMERAL,
                                                             "attachments": [{"id": 0, "filename": "a.png",
                                                                              "description": "alt"}]},
                                                files={"a.png": b"\x89PNG\r\n\x1a\n" + b"0" * 30})
        assert status == 200 and not message["flags"] & EPHEMERAL
        assert message["attachments"][0]["description"] == "alt"
        exchange = await fake.exchange(interaction_id)
        (followup,) = exchange.followups
        assert followup.replaced_original and not followup.ephemeral and followup.requested_flags == EPHEMERAL
        assert followup.files[0].field == "files[0]" and followup.files[0].data.startswith(b"\x89PNG")
        assert [m["content"] for m in fake.channel_messages("thread")] == ["secret?"]

        # A button on a follow-up: a click carries the message with its components; type 6 then an edit.
        button = {"type": 2, "style": 1, "label": "Go", "custom_id": "go:1"}
        status, posted, _ = await bot.followup(interaction, {"content": "press",
                                                            "components": [{"type": 1, "components": [button]}]})
        assert status == 200 and posted["id"] != message["id"]
        with pytest.raises(LookupError):
            await fake.click("alice", "thread", posted, "go:2")
        click_id = await fake.click("alice", "thread", posted, "go:1")
        click = await bot.next_interaction()
        assert click["id"] == click_id and click["type"] == 3
        assert click["data"] == {"custom_id": "go:1", "component_type": 2}
        assert click["message"]["components"][0]["components"][0]["custom_id"] == "go:1"
        assert (await bot.callback(click, {"type": 6}))[0] == 200
        async with http.patch(f"{bot.api}/webhooks/{fake.app_id}/{click['token']}/messages/@original",
                              json={"content": "pressed", "components": []}) as response:
            assert response.status == 200 and (await response.json())["content"] == "pressed"

        # A second follow-up is a new message; files over attachment_size_limit get 413.
        status, body, _ = await bot.followup(interaction, {"content": "big", "attachments": [{"id": 0}]},
                                             files={"big.png": b"x" * 1001})
        assert (status, body["code"]) == (413, 40005)

        # Late: past the deadline the interaction is gone.
        fake.deadline = 0.0
        await fake.send_slash("alice", "channel", "game status")
        late = await bot.next_interaction()
        status, body, _ = await bot.callback(late, {"type": 5})
        assert (status, body["code"]) == (404, 10062)
        fake.deadline = 3.0

        # Autocomplete: only for options that declare it, focused, answered with at most 25 choices.
        auto_id = await fake.autocomplete("carol", "channel", "fire", {"target": "a"}, focused="target")
        auto = await bot.next_interaction()
        assert auto["id"] == auto_id and auto["type"] == 4
        assert auto["data"]["options"] == [{"type": 3, "name": "target", "value": "a", "focused": True}]
        assert (await bot.callback(auto, {"type": 5}))[0] == 400  # autocomplete cannot be deferred
        too_many = {"type": 8, "data": {"choices": [{"name": str(i), "value": str(i)} for i in range(26)]}}
        assert (await bot.callback(auto, too_many))[0] == 400
        assert (await bot.callback(auto, {"type": 8, "data": {"choices": []}}))[0] == 200

        # Invalid values never leave a Discord client.
        with pytest.raises(ValueError):
            await fake.send_slash("alice", "channel", "game new", {"ruleset": "chess"})
        with pytest.raises(LookupError):
            await fake.send_slash("alice", "channel", "game nope")
        await bot.ws.close()
