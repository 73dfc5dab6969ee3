"""What the service hands back to a transport: who acted, the reply, its buttons and files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from rules.engine import LegalAction

MESSAGE_LIMIT = 2000
ALT_TEXT_LIMIT = 1024
MAX_BUTTONS = 25  # five rows of five
BUTTON_LABEL_LIMIT = 80
BUTTON_PREFIX = "pb"
MENU_PREFIX = "pm"  # a button that opens a group of legal actions (the ways to make one choice)
CHOICES_PREFIX = "pc"  # a public button that opens the presser's own legal actions, privately
PRIVATE_PREFIX = "qb"  # a button of a player's private menu (see Scope)
PRIVATE_MENU_PREFIX = "qm"
PLAN_PREFIX = "pv"
SEAT_PREFIX = "ps"  # "Take the seat": pressed by the member a seat is offered to
RESIGN_PREFIX = "pz"  # "Resign for good": the private confirmation of a /game resign (rules.seats)
VOTE_PREFIX = "pr"  # a seated player's yes or no to a rollback (bot.table.service.rollback)
REMATCH_PREFIX = "pa"  # "Rematch" on a game's final message, and each player's yes or no (bot.table.service.rematch)
OPEN_TABLE_PREFIX = "pj"  # "Join" on /lfg and the server's board: a seat at an open table (bot.table.service.league)
REVIEW_PREFIX = "pw"  # "Review" on a game's final message: /game review of that game (issue 40 item 5)
QUEUE_PREFIX = "pq"  # a mustered member's Confirm or Decline of their seat in a queued game (bot.table.service.queue)
TOURNAMENT_PREFIX = "pt"  # "Join" on a tournament's announcement (bot.table.service.tournaments)
SEASON_PREFIX = "pl"  # "Join" on a league season's announcement (bot.table.service.seasons)
CANCEL_ID = "pv-cancel"
PRESSED = "pressed"   # an Edit's message: the one whose button was pressed (rewritten by the press's own response)


@dataclass(frozen=True)
class Actor:
    """Who sent a command: a stable id, a display name, and whether they manage the server."""

    id: str
    name: str
    is_admin: bool = False


@dataclass(frozen=True)
class Button:
    """A button for one legal action, drawn for one game at one version.

    The custom id carries only ids (game, version, index into that version's legal actions), never
    state, so a button keeps working after a restart and goes stale once the game moves on.
    """

    label: str
    custom_id: str
    command: str
    primary: bool = False  # the button that matters most (an attack): drawn in the accent colour


@dataclass(frozen=True)
class Edit:
    """One of our earlier public messages rewritten in place (a finished vote's question, a turn a rollback
    set aside): its new words (None: they stay) and buttons (none: its buttons come off). An edit never pings.
    `message_id` PRESSED, in the reply to a press only, is the message pressed (its interaction edits it)."""

    message_id: str
    text: str | None
    buttons: tuple[Button, ...] = ()


@dataclass(frozen=True)
class Attachment:
    """A file to post with a reply (a JSON export, an animated replay)."""

    filename: str
    data: bytes
    description: str = ""


@dataclass(frozen=True)
class Direct:
    """A direct message to one player (their `/me settings notify:dm`, or their daily digest), and what the
    game's channel says to them instead when they accept no direct messages (`fallback`, pinging them)."""

    player: str
    text: str
    guild: str
    channel: str
    fallback: str


TURN = "your turn."   # what a ping says by default: the game waits on them


@dataclass(frozen=True)
class Reply:
    """What a transport shows: text, an optional PNG with alt text, and whether it is private.

    `outcome` is "applied" (the game changed), "shown" (read only) or "refused" (nothing changed).
    `mentions` are the players to ping because the game now waits on them.
    """

    outcome: str
    text: str
    image: bytes | None = None
    alt_text: str = ""
    ephemeral: bool = False
    legal: tuple[LegalAction, ...] = ()
    waiting_on: tuple[str, ...] = field(default_factory=tuple)
    game_id: int | None = None
    version: int | None = None
    buttons: tuple[Button, ...] = ()
    mentions: tuple[str, ...] = ()  # players to ping: the game now waits on them
    ping_words: str = TURN  # what the ping tells them
    # what a direct message tells a pinged player the shared ping_words do not fit (the autopilot's notice tells
    # the next player "your turn" and its absent player that it played for them): (player, words)
    own_ping_words: tuple[tuple[str, str], ...] = ()
    turn_key: str = ""
    files: tuple[Attachment, ...] = ()
    malformed: bool = False  # refused because the command could not be read (the command line's exit 2)
    next_line: str = ""   # the closing lines of a table's text: an action's "Next: ..." and clock, a status's clock
    # After a press in a player's private menu: that menu as it stands now (their next choices, or a
    # closing word when the game no longer waits on them), shown in place of the one pressed.
    panel: Reply | None = None
    in_place: bool = False   # a private reply to a press in a private menu, shown in place of that menu
    notices: tuple[Notice, ...] = ()   # posted in other channels too (a player's pause, announced in each game)
    edits: tuple[Edit, ...] = ()       # earlier messages of the channel rewritten along with this reply
    vote_proposal: str = ""   # a rollback vote's question: the transport remembers the message that asks it
    own_message: bool = False   # shown as a message of its own, never added to the turn's (a seat change)
    direct: tuple[Direct, ...] = ()   # the pings that go by direct message instead (bot.table.service.away)
    # the pinged players told of their own seat (another acted on it, or it is offered to them): news a daily
    # digest cannot hold, unlike their turn or the end
    seat_news: tuple[str, ...] = ()

    @property
    def mention(self) -> str | None:
        """The first player to ping, if any."""
        return self.mentions[0] if self.mentions else None


@dataclass(frozen=True)
class Notice:
    """Something the scheduler posts on its own: a reminder, or a turn the autopilot played. `fold`: an action that
    continues its channel's turn (a join from /lfg) is added to the turn's message, as in the channel itself."""

    channel: str
    reply: Reply
    fold: bool = False


def refusal(message: str, malformed: bool = False) -> Reply:
    """A private refusal: nothing changed (`malformed`: the command itself could not be read)."""
    return Reply("refused", message, ephemeral=True, malformed=malformed)


def clip(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole_lines(lines: list[str], room: int) -> list[str]:
    """The first of `lines` that fit in `room` characters, joined by line breaks (none cut)."""
    kept: list[str] = []
    used = -1
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept


MAX_SUGGESTIONS = 25  # Discord's limit for autocomplete results


def matching_offers(offers: list[tuple[str, str]], typed: str) -> list[tuple[str, str]]:
    """Autocomplete offers (label, value) that start with, or name, what was typed: as many as Discord
    takes, each label within its 100 characters."""
    typed = typed.strip().lower()
    return [(clip(label, 100), value) for label, value in offers
            if not typed or value.lower().startswith(typed) or typed in label.lower()][:MAX_SUGGESTIONS]


def latest_lines(lines: list[str], limit: int) -> str:
    """The last lines that fit in `limit` characters, saying how many earlier ones were left out."""
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) + 1 > limit - 40:
            break
        kept.append(line)
        size += len(line) + 1
    skipped = len(lines) - len(kept)
    head = [f"… {skipped} earlier events"] if skipped else []
    return "\n".join(head + kept[::-1])


@dataclass(frozen=True)
class Scope:
    """What a button's id is checked against when it is pressed.

    A public button carries the game's version: it goes stale as soon as anything happens, so a
    double press never plays twice. A private menu's buttons carry a digest of their player's turn
    and own choices: they stay good while those are unchanged, so other players declaring at the same
    moment (a simultaneous phase) do not spoil them, and a player who acted is no longer waited on.
    """

    action_prefix: str
    menu_prefix: str
    value: int


def public_scope(version: int) -> Scope:
    """Buttons of a public message, good for one version of the game."""
    return Scope(BUTTON_PREFIX, MENU_PREFIX, version)


def private_scope(turn_key: str, legal: tuple[LegalAction, ...], own_last: int | None = None) -> Scope:
    """Buttons of one player's private menu, good while their turn and choices are the same, and, given `own_last`
    (bot.table.service.shared.own_scope: the number of their last logged action), until they act."""
    text = "\n".join((turn_key, *(action.command for action in legal), *(() if own_last is None else (str(own_last),))))
    return Scope(PRIVATE_PREFIX, PRIVATE_MENU_PREFIX, int(hashlib.sha256(text.encode()).hexdigest()[:12], 16))


def buttons_for(legal: tuple[LegalAction, ...], game_id: int, scope: Scope) -> tuple[Button, ...]:
    """One button per legal action; when they outnumber what Discord shows, one per group
    instead, and a group of several opens its own private menu."""
    if len(legal) <= MAX_BUTTONS or not any(action.group for action in legal):
        return tuple(_action_button(action, game_id, scope, index)
                     for index, action in enumerate(legal[:MAX_BUTTONS]))
    groups: dict[str, list[int]] = {}
    for index, action in enumerate(legal):
        groups.setdefault(action.group or action.command, []).append(index)
    buttons = []
    for name, members in groups.items():
        if len(members) == 1:
            buttons.append(_action_button(legal[members[0]], game_id, scope, members[0]))
        else:
            label = clip(f"{name} ({len(members)} ways)…", BUTTON_LABEL_LIMIT)
            buttons.append(Button(label, f"{scope.menu_prefix}:{game_id}:{scope.value}:{members[0]}", ""))
    return tuple(buttons[:MAX_BUTTONS])


def group_buttons(legal: tuple[LegalAction, ...], game_id: int, scope: Scope,
                  first: int, room: int = MAX_BUTTONS) -> tuple[tuple[Button, ...], int]:
    """The buttons of the group that legal action `first` opens (as many as fit in `room`), and the group's
    size."""
    group = legal[first].group
    members = [i for i, action in enumerate(legal) if action.group == group]
    return tuple(_action_button(legal[i], game_id, scope, i) for i in members[:room]), len(members)


def back_button(legal: tuple[LegalAction, ...], game_id: int, scope: Scope) -> Button:
    """In a group's menu opened from a player's private menu: back to all their choices, in place. Its
    index is one past the choices (a private scope's digest holds them, so it cannot name one)."""
    return Button("« All your choices", f"{scope.menu_prefix}:{game_id}:{scope.value}:{len(legal)}", "")


def _action_button(action: LegalAction, game_id: int, scope: Scope, index: int) -> Button:
    """The custom id carries ids only, well under Discord's 100 characters."""
    return Button(clip(action.label, BUTTON_LABEL_LIMIT), f"{scope.action_prefix}:{game_id}:{scope.value}:{index}",
                  action.command, action.primary)


def choices_button(game_id: int) -> Button:
    """One public button that shows whoever presses it their own legal actions, privately (several
    players waiting at once, or actions that show hidden things). Any message's will do, so its id
    carries no version (a count of actions some viewers may not know of: bot.table.trust.seen)."""
    return Button("Your move (private)", f"{CHOICES_PREFIX}:{game_id}:0:0", "", True)


def seat_button(game_id: int) -> Button:
    """"Take the seat": the member a seat is offered to takes it (anyone else is told it is not theirs)."""
    return Button("Take the seat", f"{SEAT_PREFIX}:{game_id}:0:0", "/game seat take", True)


def resign_button(game_id: int, seat_index: int, holder: str, command: str) -> Button:
    """"Resign for good": confirms a resignation of the seat at `seat_index` of the game's seats (a seat keeps
    its place when it changes hands) while `holder` holds it (seat_holder_mark), shown privately to whoever
    asked to resign it."""
    return Button("Resign for good", f"{RESIGN_PREFIX}:{game_id}:{seat_holder_mark(holder)}:{seat_index}", command)


def seat_holder_mark(holder: str) -> int:
    """A number naming a seat's holder in a button's id (whose digits the transport expects there): a seat
    that changed hands since the button was drawn no longer matches it."""
    return int(hashlib.sha256(holder.encode()).hexdigest()[:12], 16)


def rematch_button(game_id: int, yes: bool = True, label: str = "Rematch") -> Button:
    """"Rematch" on finished game `game_id`'s final message (as `/game rematch`: it proposes one, or says yes to
    the one proposed), or a yes or no to the rematch proposed."""
    return Button(label, f"{REMATCH_PREFIX}:{game_id}:0:{int(yes)}",
                  "/game rematch" if yes else "/game rematch vote:no", yes)


def open_table_button(game_id: int, label: str) -> Button:
    """"Join" on an open table's listing: the presser takes a seat in game `game_id` as /game join in its channel
    would (`/lfg game:N` on the command line)."""
    return Button(clip(label, BUTTON_LABEL_LIMIT), f"{OPEN_TABLE_PREFIX}:{game_id}:0:0", f"/lfg game:{game_id}", True)


def review_button(game_id: int) -> Button:
    """"Review" on finished game `game_id`'s final message: its /game review, privately to whoever presses."""
    return Button("Review", f"{REVIEW_PREFIX}:{game_id}:0:0", f"/game review game:{game_id}")


def queue_button(muster: int, yes: bool) -> Button:
    """Confirm or Decline a seat the queue's muster `muster` holds for the presser."""
    return Button("Confirm my seat" if yes else "Decline", f"{QUEUE_PREFIX}:{muster}:0:{int(yes)}",
                  "/queue confirm" if yes else "/queue decline", yes)


def tournament_button(tournament_id: int) -> Button:
    """"Join" on tournament `tournament_id`'s announcement: the presser signs up as /tournament join would."""
    return Button("Join", f"{TOURNAMENT_PREFIX}:{tournament_id}:0:0", f"/tournament join number:{tournament_id}",
                  True)


def season_button(season_id: int) -> Button:
    """"Join" on season `season_id`'s announcement: the presser signs up as /league join would."""
    return Button("Join", f"{SEASON_PREFIX}:{season_id}:0:0", f"/league join number:{season_id}", True)


def plan_id(game_id: int, version: int, encoded: str) -> str:
    """A Confirm button for a previewed plan: ids and the plan as its game writes it in short."""
    return f"{PLAN_PREFIX}:{game_id}:{version}:{encoded}"


def parse_plan_id(custom_id: str) -> tuple[int, int, str]:
    """Inverse of `plan_id`: (game id, version, the game's short plan). ValueError when malformed."""
    _prefix, game_id, version, encoded = custom_id.split(":", 3)
    return int(game_id), int(version), encoded
