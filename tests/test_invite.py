"""The bot's invite URL asks for exactly the scopes and permissions the bot uses, threads included."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import discord
import pytest

from bot.chat.invite import PERMISSIONS, SCOPES, invite_permissions, invite_url
from bot.cli.main import build_parser
from tests.conftest import ROOT, run_cli


def test_the_permissions_are_discords_own_flags():
    expected = discord.Permissions(view_channel=True, send_messages=True, attach_files=True,
                                   read_message_history=True, create_public_threads=True,
                                   create_private_threads=True, send_messages_in_threads=True)
    assert invite_permissions() == expected.value
    assert len({bit for _name, bit, _why in PERMISSIONS}) == len(PERMISSIONS)
    # nothing an admin would think twice about granting
    assert invite_permissions() & discord.Permissions.elevated().value == 0


def test_the_invite_url_carries_the_client_scopes_and_permissions():
    url = urlsplit(invite_url(1234567890123))
    assert (url.scheme, url.netloc, url.path) == ("https", "discord.com", "/oauth2/authorize")
    query = parse_qs(url.query)
    assert query == {"client_id": ["1234567890123"], "scope": [" ".join(SCOPES)],
                     "permissions": [str(invite_permissions())]}
    assert set(SCOPES) == {"bot", "applications.commands"}


def test_pitboss_invite_prints_it_and_refuses_a_bad_id(tmp_path, capsys):
    printed = run_cli("invite", "--client-id", "1234567890123", cwd=tmp_path)
    assert printed.returncode == 0 and invite_url(1234567890123) in printed.stdout
    for name, _bit, _why in PERMISSIONS:
        assert name in printed.stdout
    with pytest.raises(SystemExit) as refused:
        build_parser().parse_args(["invite", "--client-id", "my-bot"])
    assert refused.value.code == 2 and "is not a client id" in capsys.readouterr().err


def test_the_docs_name_every_permission_the_invite_asks_for():
    for doc in ("README.md", "docs/operating.md"):
        text = (ROOT / doc).read_text()
        assert "pitboss invite --client-id" in text, doc
        for name, _bit, _why in PERMISSIONS:
            assert name in text, (doc, name)
