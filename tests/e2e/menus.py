"""The private menu a public "Your move (private)" button opens on the fake Discord, and a press in it."""

from __future__ import annotations

from tests.e2e.test_e2e_discord import RESPONSE_TIMEOUT
from tests.e2e.test_e2e_long_games import all_buttons


async def private_menu(fake, player: str, public_message: dict) -> tuple:
    """Press the public choices button as `player`: the private menu it opens, and its buttons by label."""
    (choices,) = [b for b in all_buttons(public_message) if b["label"] == "Your move (private)"]
    opened = await fake.responses(await fake.click(player, "channel", public_message["id"], choices["custom_id"]),
                                  timeout=RESPONSE_TIMEOUT)
    (menu,) = opened.followups
    return menu, {b["label"]: b["custom_id"] for row in menu.components for b in row["components"]}


async def press_in_menu(fake, player: str, menu, custom_id: str):
    """Press one button of a private menu as `player`; the exchange it caused."""
    return await fake.responses(await fake.click(player, "channel", menu.message["id"], custom_id),
                                timeout=RESPONSE_TIMEOUT)
