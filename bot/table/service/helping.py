"""`/help`: what the asker can do now in this channel's game, whose turn it is, and the commands; or one
command explained with an example. Built from the asker's own legal actions and the public prompt, so
it shows nobody's secrets."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.table.protocol.commands import (
    SETUP,
    TABLE_COMMANDS,
    WORD_OPTIONS,
    CommandSpec,
    OptionSpec,
    command_table,
    game_spec,
    nearest_command,
    setup_line,
    spelled,
)
from bot.table.protocol.replies import MESSAGE_LIMIT, Reply, clip, whole_lines
from images.registry import renderer
from rules.engine import LegalAction, Ruleset
from rules.errors import GameError
from rules.registry import get_ruleset, ruleset_ids, rulesets
from rules.seats import addressed

NOW_LINES = 12   # legal commands listed one a line; past that, a count (the buttons and autocomplete list them all)
# The table commands a player at a running table reaches for, in the order /help lists them.
TABLE_HELP = ("game status", "game catchup", "game log", "rules", "game sheet", "undo", "game pause", "games",
              "game rollback", "game propose", "me settings", "me away", "me back", "me forget", "game seat give",
              "game seat take", "game seat computer",
              "game resign", "game follow", "game unfollow", "orders set", "orders show", "orders clear", "stats",
              "standings", "game settings", "game export", "game verify", "game review", "game replay", "game end",
              "game rematch", "lfg", "league board", "league roles")
# What a command's one-line description cannot hold, said after its options by /help command:NAME.
_CREDIT = ("A seat that changed hands counts for the member who held it at the end (who took it last), by their "
           "own name, in /stats and /standings alike; whoever handed it on gets no game for it.")
_RATED = ("Each game here rates its players on this server (OpenSkill, docs/league.md) once a game ends with a result: "
          "shown as its ordinal (mu - 3 sigma), ? while provisional (fewer than 5 rated games). A player who played "
          "fewer than half of their seat's turns themselves (the autopilot or the computer played the rest) is not "
          "rated for that game; /stats shows the share of turns each played themselves.")
NOTES = {"stats": f"{_CREDIT} {_RATED}", "standings": f"{_CREDIT} {_RATED}",
         "me settings": "notify:dm sends your own turn pings and reminders by direct message, with only what you "
                        "may see (the channel keeps every action line and mentions nobody for you; inside your away "
                        "hours they wait); if your direct messages are closed to me they come in the channel, said "
                        "once. notify:digest pings you never, and sends one direct message a day when your away hours "
                        "end (08:00 your time without any): each game here waiting on you, with its deadline in your "
                        "time.",
         "game settings": "grace:N excuses each player's first N missed deadlines: each is extended once by "
                          "deadline_hours before the autopilot plays (a rollback gives no grace back); a plan "
                          "previewed and not confirmed is played at the deadline while it is still legal. "
                          "clock:bank bank_hours:B gives each seat a time bank instead: spent only while the game "
                          "waits on it and outside its player's away hours; each move adds increment_hours, up to "
                          "cap_hours; an empty bank means the deadline action. clock:deadline goes back.",
         "game resign": "A resignation is final: without confirm:yes it only says what it would do and how to "
                        "confirm (a Resign for good button, or confirm:yes)."}
NOTES["me forget"] = ("Deletes what this bot keeps about you on every server (your /me settings, digest and notice "
                      "records, follows, standing orders, ratings) and, in every game you played, makes your name "
                      "\"forgotten player\" and your id a random one; the games stay and still verify. Without "
                      "confirm:yes it only says what it would do. Refused while you hold a seat in a running game: "
                      "resign or let it end first. The bot's operator can do the same (pitboss forget).")
NOTES["game propose"] = ("/game propose draw: a draw among the players still in; /game propose end: the game ends "
                         "with no winner. Every seated player votes, as on a rollback (a seat made for the computer "
                         "abstains); one no, or any move first, ends the vote; one vote is open at a time. /stats "
                         "counts the result.")
NOTES["lfg"] = ("Privately: this server's lobbies that are public and have a seat free (the game, its options, seats "
                "taken of the most, the host, since when it waits), each with a Join button, which seats you as "
                "/game join in its channel would (that channel is told). /new GAME public:no keeps a lobby off the "
                "list; a lobby opened in a private thread is off it unless public:yes.")
NOTES["league board"] = ("With channel:#name (Manage Server): the bot keeps one message there listing the open tables, "
                         "with Join buttons, edited as lobbies open, fill, start, end or move (at most once every 30 "
                         "s). Without options it says where the board is; off:yes stops it.")
NOTES["league roles"] = ("Rank roles: with ruleset:GAME set:on (Manage Server; the bot needs Manage Roles) the bot "
                         "makes the roles GAME Champion, GAME Top 3 and GAME Top 10 (no permissions) and gives them "
                         "to the best rated members whose rating is not provisional, as the ratings change; set:off "
                         "deletes them. Without set: who holds which tier, and what the bot could not do.")
NOTES["game rematch"] = ("After a game ends here (its final message has a Rematch button): the same game, options, "
                         "cars and seats again with new dice, the first seat going last. Every person seated at the "
                         "end answers (the buttons, /game rematch, or vote:no); the computer's seats stay its own. "
                         "A no leaves that seat open for anyone to /game join, then the host starts as usual.")

NOTES["queue join"] = ("Members waiting for the same game (ruleset, players and setup options, written as /new takes "
                       "them, no seed:) wait together; when enough do, I open it in a new thread and ping them there "
                       "to confirm within 24 h (Confirm my seat, or /queue confirm; /queue decline). Who confirms is "
                       "seated; who declines or lets the time pass leaves that queue and the seat goes to the next "
                       "member waiting, else it is open for anyone to /game join. The game starts once every seat is "
                       "taken. at_once:N sets how many queued games you play at once (1 at first); a game the queue "
                       "opened counts until it ends.")
NOTES["queue confirm"] = NOTES["queue decline"] = NOTES["queue join"]
NOTES["tournament new"] = ("Members sign up (/tournament join, or the Join button) until its creator (or a member who "
                          "manages the server) starts it: seeded by this server's rating, then I open each round's "
                          "games in threads here, every player seated, with a turn deadline (48 h unless "
                          "deadline_hours:) at which the autopilot plays. round-robin: everyone meets everyone, a "
                          "point for each player finished ahead of; elimination: each game's winner goes on (the "
                          "better seed through a draw). gate:N turns away members the autopilot played more than N% "
                          "of actions for. /tournament show gives the games, results and table.")
NOTES["tournament join"] = NOTES["tournament start"] = NOTES["tournament show"] = NOTES["tournament new"]
NOTES["league new"] = ("A season (Manage Server) pairs its members into games of the game while it runs: each "
                      "scheduler round, members in fewer than max_games running games of it are paired by this "
                      "server's rating, repeating the fewest meetings, and each game opens in a thread here, every "
                      "player seated, with a turn deadline (48 h unless deadline_hours:) at which the autopilot plays. "
                      "players: defaults to the fewest the game starts with. One season of a game runs on a server at "
                      "a time. At its end (season_days, or /league end) the channel gets the members' standings by "
                      "this server's rating then; games still running play on. A queue's at_once does not count "
                      "season games, nor max_games queued ones.")
NOTES["league join"] = NOTES["league leave"] = NOTES["league show"] = NOTES["league end"] = NOTES["league new"]


def command_named(typed: str) -> str:
    """A command's grammar name from what a player typed: '/game join', 'game-join', 'Move'."""
    words = typed.strip().lstrip("/").replace("-", " ").split()
    name = " ".join(words).casefold()
    if name in command_table().by_name:
        return name
    joined = "-".join(words).casefold()   # commands whose own name has a dash (/game add-ai)
    for spec in command_table().by_name.values():
        if spec.name.replace(" ", "-") == joined or spec.name == f"game {name}":   # 'join' for /game join
            return spec.name
    group = sorted(spelled(spec.name) for spec in command_table().by_name.values()
                   if spelled(spec.name).startswith((f"{name} ", f"game {name} ")))   # not /game new: it is /new
    if group:   # a group's name alone (/game seat, seat): its commands, as players write them (/new)
        raise GameError(f"/{typed.strip().lstrip('/')} is a group of commands: "
                        f"{', '.join('/' + n for n in group)}. /help command:NAME explains one.")
    raise GameError(f"There is no command /{typed.strip().lstrip('/')}.{nearest_command(name)} /help lists the "
                    f"commands you can use here.")


def general_help(ruleset: Ruleset | None, state: Any, actor_id: str, off: frozenset[str] = frozenset()) -> Reply:
    """What the asker can do now, whose turn it is, then the game's and the table's commands (but those the
    operator turned `off`); outside a game, the games and how to start one."""
    if ruleset is None:
        games = "\n".join(f"- **{r.title}**: `{setup_line(r.id)}`" for r in rulesets())
        league = _table_lines(('game new', 'game rematch', 'games', 'lfg', 'league board', 'queue join', 'queue show',
                               'tournament new', 'tournament join', 'tournament show', 'league join', 'league show',
                               'league roles'), off)
        text = (f"No game is running in this channel. Start one:\n{games}\nThen `/game join` and, as the host, "
                f"`/game start`. `/help command:NAME` explains any command.\n\n{league}")
        return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True)
    seated = state.player(actor_id) is not None
    waiting = ruleset.acting_players(state)
    lines = [f"**{ruleset.title}**: {ruleset.prompt(state)}"]
    if ruleset.is_finished(state):
        lines.append(f"The game is over: `/game status` shows how it ended, `/game rematch` proposes it again to "
                     f"its players, `{setup_line(ruleset.id)}` starts another.")
    elif actor_id in waiting:
        lines.append("You can now:")
        lines += _now_lines(ruleset.legal_actions(state, actor_id))
    elif seated:
        lines.append("Nothing is yours to play now: the table waits for "
                     f"{', '.join(addressed(state.player(p)) for p in waiting) or 'nobody'}.")
    else:
        lines.append("You are watching (`/game join` takes a seat before the game starts).")
    own = [f"- `/{spec.name}`: {spec.description}" for spec in ruleset.grammar.commands]
    if own:
        lines += [f"The commands of {ruleset.title}:", *own]
    sheets = renderer(ruleset.id).render_sheets is not None
    lines.append(_table_lines(tuple(n for n in TABLE_HELP if sheets or n != "game sheet"), off))
    return Reply("shown", _fitted(lines), ephemeral=True)


def command_help(ruleset: Ruleset | None, state: Any, actor_id: str, typed: str,
                 off: frozenset[str] = frozenset()) -> Reply:
    """One command: what it does, its options, and an example (one the asker could send now, if any); or that
    the operator turned it `off`."""
    chosen = _setup_of(typed)
    if chosen is not None:
        return _setup_help(chosen)
    name = command_named(typed)
    if name == "game new" and ruleset is None:   # every game's options at once would not say whose they are
        return _setup_games()
    if ruleset is not None and game_spec(ruleset, name) is None:
        own = ", ".join(f"/{spec.name}" for spec in ruleset.grammar.commands)
        return Reply("shown", f"{ruleset.title} has no /{name}: it belongs to another game. This game's own "
                              f"commands: {own}.", ephemeral=True)
    spec = (game_spec(ruleset, name) if ruleset is not None else None) or command_table().by_name[name]
    lines = [f"`/{spelled(spec.name)}`: {spec.description}."]
    lines += [_option_line(option, option.name == WORD_OPTIONS.get(spec.name)) for option in spec.options]
    lines += [NOTES[spec.name]] if spec.name in NOTES else []
    lines += [f"The operator of this bot turned /{spelled(spec.name)} off: it is refused for now."] \
        if spec.name in off else []
    live = []
    if ruleset is not None and actor_id in ruleset.acting_players(state) and not ruleset.is_finished(state):
        live = [a.command for a in ruleset.legal_actions(state, actor_id)
                if a.command == f"/{name}" or a.command.startswith(f"/{name} ")]
    lines.append(f"Example{' you could send now' if live else ''}: `{live[0] if live else _example(spec)}`")
    return Reply("shown", _fitted(lines), ephemeral=True)


def _setup_of(typed: str) -> Ruleset | None:
    """The game named in '/new GAME' or 'game new GAME' (Discord's /new has one command a game), if any."""
    words = typed.strip().lstrip("/").casefold().split()
    words = words[1:] if words[:2] == ["game", "new"] else words
    return get_ruleset(words[1]) if len(words) == 2 and words[0] == SETUP and words[1] in ruleset_ids() else None


def _setup_help(ruleset: Ruleset) -> Reply:
    """One game's setup: its own options (the game is already named), and an example."""
    spec = game_spec(ruleset, "game new")
    options = [o for o in spec.options if o.name != WORD_OPTIONS["game new"]] if spec is not None else []
    lines = [f"`{setup_line(ruleset.id)}`: create a game of {ruleset.title} in this channel.",
             *(_option_line(option) for option in options), f"Example: `{setup_line(ruleset.id)}`"]
    return Reply("shown", _fitted(lines), ephemeral=True)


def _setup_games() -> Reply:
    """/new outside a game: the games it creates, and how to read one game's setup options."""
    games = ", ".join(ruleset_ids())
    text = (f"`/{SETUP} GAME`: create a game in this channel; GAME is one of {games}. "
            f"`/help command:{setup_line('GAME')[1:]}` explains one game's setup options "
            f"(`/help command:{setup_line(ruleset_ids()[0])[1:]}`).")
    return Reply("shown", clip(text, MESSAGE_LIMIT), ephemeral=True)


def command_names(ruleset: Ruleset | None, off: frozenset[str] = frozenset()) -> list[str]:
    """The commands `/help command:` offers, as players write them: the channel's game's own and the
    table's (every command outside a game), but those the operator turned `off`."""
    if ruleset is None:
        return sorted(spelled(name) for name in command_table().by_name if name not in off)
    own = [spec.name for spec in ruleset.grammar.commands]
    return own + [spelled(spec.name) for spec in TABLE_COMMANDS if spec.name not in off]


def _now_lines(legal: tuple[LegalAction, ...] | list[LegalAction]) -> list[str]:
    shown = [f"- `{action.command}`" + (f" ({action.label})" if _adds(action.label, action.command) else "")
             for action in legal[:NOW_LINES]]
    if len(legal) > NOW_LINES:
        shown.append(f"- … and {len(legal) - NOW_LINES} more (the buttons and autocomplete list them all)")
    return shown or ["- nothing: your next choice comes with the next step"]


def _adds(label: str, command: str) -> bool:
    """Whether a button's label says more than its command ('Speed 2' adds nothing to /speed value:2)."""
    written = re.split(r"[\s:/,]+", command.casefold())
    return any(word not in written for word in re.split(r"[\s:/,]+", label.casefold()) if word)


def _table_lines(names: tuple[str, ...], off: frozenset[str]) -> str:
    listed = " · ".join(f"`/{spelled(name)}`" for name in names if name in command_table().by_name and name not in off)
    return f"Table commands: {listed} · `/help command:NAME` explains one."


def _option_line(option: OptionSpec, bare: bool = False) -> str:
    """One option explained; `bare`: written as the command's first word, without its name (/new GAME)."""
    need = "required" if option.required else "optional"
    values = f"; one of {', '.join(option.choices)}" if option.choices and len(option.choices) <= 12 else ""
    if option.kind == "int" and option.min_value is not None and option.max_value is not None:
        values = f"; {option.min_value} to {option.max_value}"
    written = option.name.upper() if bare else f"{option.name}:"
    return f"- `{written}` ({need}) {option.description}{values}"


def _example(spec: CommandSpec) -> str:
    """The command with a plausible value for each required option (its first choice, its least number), or
    for its first option with choices when none is required."""
    parts = [f"/{spelled(spec.name)}"]
    shown = [o for o in spec.options if o.required] or [o for o in spec.options if o.choices][:1]
    for option in spec.options:
        if option in shown:
            value = option.choices[0] if option.choices else (
                str(option.min_value) if option.kind == "int" and option.min_value is not None else option.name.upper())
            parts.append(value if option.name == WORD_OPTIONS.get(spec.name) else f"{option.name}:{value}")
    return " ".join(parts)


def _fitted(lines: list[str]) -> str:
    """The lines within one message: whole lines kept, the rest cut with a pointer to /help command:."""
    kept = whole_lines(lines, MESSAGE_LIMIT - 60)
    return "\n".join(kept) + ("" if len(kept) == len(lines) else "\n… (`/help command:NAME` for the rest)")


def setup_in_words(ruleset: Ruleset, stored: str) -> str:
    """The options the game was created with (`stored`: its /game new options as written), each with what
    it means: the table's own rulings, shown all game (an option not given says it kept its default)."""
    try:
        given = json.loads(stored) if stored else {}
    except ValueError:
        given = {}
    spec = game_spec(ruleset, "game new")
    lines = []
    for option in spec.options if spec is not None else ():
        if option.name in ("ruleset", "seed"):
            continue
        value = given.get(option.name)
        shown = "as by default" if value is None else f"**{value}**"
        lines.append(f"- `{option.name}`: {shown}. {option.description}.")
    if not lines:
        return f"{ruleset.title} has no setup options: it plays as written."
    return f"{ruleset.title} was set up with:\n" + "\n".join(lines)
