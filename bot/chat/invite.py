"""The bot's invite: the OAuth2 scopes and the channel permissions it needs, in one place.

No discord import: the command line prints it (`pitboss invite --client-id N`) without loading the
client. tests/test_invite.py checks the bits against discord.py's own Permissions flags.
"""

from __future__ import annotations

from urllib.parse import urlencode

AUTHORIZE = "https://discord.com/oauth2/authorize"
SCOPES = ("bot", "applications.commands")

# Each permission the bot uses, its bit (Discord's permission flags), and why. No Embed Links: the bot posts
# no embeds and no links to preview. Nothing elevated (Manage …): the admin checks are the bot's own.
PERMISSIONS: tuple[tuple[str, int, str], ...] = (
    ("View Channels", 1 << 10, "see the channels games are played in"),
    ("Send Messages", 1 << 11, "post turns, reminders and notices"),
    ("Attach Files", 1 << 15, "attach the map pictures and exports"),
    ("Read Message History", 1 << 16, "see the channel's earlier messages: the turn's message it edits"),
    ("Create Public Threads", 1 << 35, "/new … thread:yes"),
    ("Create Private Threads", 1 << 36, "/gm thread:yes, the game master's planning thread"),
    ("Send Messages in Threads", 1 << 38, "play in a thread, add the GM to their private thread"),
)


def invite_permissions() -> int:
    """The permissions integer the invite asks for: every permission in PERMISSIONS."""
    total = 0
    for _name, bit, _why in PERMISSIONS:
        total |= bit
    return total


def invite_url(client_id: int) -> str:
    """The URL a server admin opens to add the bot with its scopes and permissions."""
    query = {"client_id": str(client_id), "scope": " ".join(SCOPES), "permissions": str(invite_permissions())}
    return f"{AUTHORIZE}?{urlencode(query)}"
