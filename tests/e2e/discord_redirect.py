"""Point an unmodified discord.py bot process at the fake Discord; installed as `sitecustomize`.

The e2e fixture copies this file as `sitecustomize.py` into a temporary folder that it puts first on
the bot process's PYTHONPATH, so Python runs it at start-up, before `pitboss run` imports anything.
Product code is not touched. It acts only when PITBOSS_E2E_FAKE_DISCORD is set (e.g.
"http://127.0.0.1:PORT") and then:

- sets `discord.http.Route.BASE` (read by every `Route()`, so by the bot's HTTP client and by the
  interaction/webhook adapter alike) to the fake's /api/v10;
- sets `discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY` (what a plain `Client.connect()` uses; it
  never calls GET /gateway/bot) to the fake's websocket; after READY discord.py follows the fake's
  `resume_gateway_url`;
- sets the CDN base (`discord.asset.Asset.BASE`), which only matters if the bot fetches assets;
- refuses every outgoing connection that is not to the loopback interface, so a redirect that stops
  working fails loudly instead of sending the fake token to the real Discord;
- when PITBOSS_E2E_CLOCK names a file, gives the table that file's clock (fake_clock.py, copied beside
  this file as `e2e_clock`);
- when PITBOSS_E2E_DISCORD_CLOCK names a file, moves `discord.utils.utcnow()` on by the seconds it holds
  (the fake's `advance`: Discord's clock, by which the bot judges an interaction token's age).
"""

import os
import sys

_FAKE = os.environ.get("PITBOSS_E2E_FAKE_DISCORD")

if _FAKE:
    import socket

    _LOOPBACK = {"127.0.0.1", "::1", "localhost"}
    _connect, _connect_ex = socket.socket.connect, socket.socket.connect_ex

    def _guard(address):
        if isinstance(address, tuple) and address and address[0] not in _LOOPBACK:
            raise ConnectionRefusedError(f"e2e: network access to {address!r} is blocked (only the fake Discord "
                                         f"on 127.0.0.1 may be used)")

    def connect(self, address):
        _guard(address)
        return _connect(self, address)

    def connect_ex(self, address):
        _guard(address)
        return _connect_ex(self, address)

    socket.socket.connect, socket.socket.connect_ex = connect, connect_ex

    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    discord.http.Route.BASE = f"{_FAKE}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(_FAKE.replace("http://", "ws://", 1) + "/gateway")
    discord.asset.Asset.BASE = _FAKE
    print(f"e2e: discord.py {discord.__version__} redirected: REST {discord.http.Route.BASE}, "
          f"gateway {discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY}", file=sys.stderr, flush=True)

    if os.environ.get("PITBOSS_E2E_DISCORD_CLOCK"):
        import datetime

        import discord.utils

        _utcnow, _moved_by = discord.utils.utcnow, os.environ["PITBOSS_E2E_DISCORD_CLOCK"]

        def utcnow():
            try:
                with open(_moved_by) as moved:
                    seconds = float(moved.read())
            except (OSError, ValueError):
                seconds = 0.0
            return _utcnow() + datetime.timedelta(seconds=seconds)

        discord.utils.utcnow = utcnow

    if os.environ.get("PITBOSS_E2E_CLOCK"):
        import e2e_clock

        e2e_clock.install(os.environ["PITBOSS_E2E_CLOCK"])
