"""`/help` (issue 26, item 5): what you can do now in this channel's game, whose turn it is and the
commands, one command explained with an example, and an unknown command pointed to /help."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.bench_games import _opening, script
from bot.table.protocol.commands import CommandSyntaxError, parse
from bot.table.protocol.replies import Actor
from bot.table.service.helping import NOW_LINES
from rules.registry import get_ruleset
from tests.conftest import run_cli, run_pitboss
from tests.examples import games


async def ask(service, channel: str, user: str, line: str):
    return await service.execute(channel, Actor(user, user), parse(line))


async def started(service, ruleset_id: str, channel: str, moves: int = 3):
    """A game of ann and ben, a few moves in; the state it is in."""
    ruleset = get_ruleset(ruleset_id)
    for actor, line in [*_opening(ruleset, 5), *script(ruleset, 5, moves)]:
        assert (await service.execute(channel, actor, parse(line))).outcome == "applied", line
    return ruleset, ruleset.load_state((await service._store.active_game(channel)).state)


async def test_outside_a_game_help_lists_the_games_and_how_to_start_one(service):
    reply = await ask(service, "empty", "ann", "/help")
    assert reply.outcome == "shown" and reply.ephemeral
    for ruleset_id in games():
        assert f"`/new {ruleset_id}`" in reply.text
    assert "/game join" in reply.text and "/help command:NAME" in reply.text


@pytest.mark.parametrize("ruleset_id", games())
async def test_help_lists_what_the_asker_can_do_now_and_whose_turn_it_is(service, ruleset_id):
    channel = f"help-{ruleset_id}"
    ruleset, state = await started(service, ruleset_id, channel)
    waiting = ruleset.acting_players(state)
    mover = waiting[0]
    reply = await ask(service, channel, mover, "/help")
    assert reply.outcome == "shown" and reply.ephemeral and len(reply.text) <= 2000
    assert ruleset.prompt(state) in reply.text and "You can now:" in reply.text
    for action in ruleset.legal_actions(state, mover)[:NOW_LINES]:
        assert f"`{action.command}`" in reply.text
    for spec in ruleset.grammar.commands:
        assert f"`/{spec.name}`" in reply.text
    assert "`/game status`" in reply.text and "`/undo`" in reply.text
    watcher = await ask(service, channel, "zed", "/help")
    assert "You are watching" in watcher.text and "You can now" not in watcher.text
    others = [p for p in ("ann", "ben") if p not in waiting]
    if others:   # seated, not waited on: nothing of the mover's choices
        idle = await ask(service, channel, others[0], "/help")
        assert "Nothing is yours to play now" in idle.text and "You can now" not in idle.text


@pytest.mark.parametrize("ruleset_id", games())
async def test_every_command_of_every_game_is_explained_with_an_example_that_reads(service, ruleset_id):
    channel = f"explain-{ruleset_id}"
    ruleset, state = await started(service, ruleset_id, channel, moves=0)
    from bot.table.service.helping import command_names

    for name in command_names(ruleset):
        reply = await ask(service, channel, "ann", f'/help command:"{name}"')
        assert reply.outcome == "shown" and reply.ephemeral, (name, reply.text)
        assert reply.text.startswith(f"`/{name}`:")
        example = reply.text.rsplit("`", 2)[-2]
        assert example.startswith(f"/{name}")
        if "FILE" not in example:
            parse(example)   # reads as a command (raises CommandSyntaxError if not)


async def test_help_on_a_command_offers_one_the_asker_could_send_now(service):
    ruleset, state = await started(service, "speedway", "now", moves=0)
    mover = ruleset.acting_players(state)[0]
    reply = await ask(service, "now", mover, "/help command:speed")
    assert "Example you could send now: `/speed value:" in reply.text
    spelled = await ask(service, "now", mover, "/help command:/Game-Join")
    assert spelled.text.startswith("`/game join`:")
    unknown = await ask(service, "now", mover, "/help command:nonsense")
    assert unknown.outcome == "refused" and "/help lists the commands" in unknown.text


async def test_help_suggests_command_names_as_you_type(service):
    await started(service, "battlecars", "typed", moves=0)
    offers = await service.suggest("typed", Actor("ann", "ann"), "help", "command", "wa", {})
    assert ("walk", "walk") in offers
    others = await service.suggest("typed", Actor("ann", "ann"), "help", "command", "pla", {})
    assert ("play", "play") not in others   # Track's verb is not this game's
    anywhere = await service.suggest("nowhere", Actor("ann", "ann"), "help", "command", "pla", {})
    assert ("play", "play") in anywhere


@pytest.mark.parametrize(("typed", "hint"), [("/game help", "Did you mean /help?"), ("/rule", "Did you mean /rules?"),
                                             ("/xyzzy", ""), ("/catchup", "Did you mean /game catchup?"),
                                             ("/mvoe", "Did you mean /move?")])
def test_an_unknown_command_points_to_help_instead_of_listing_every_command(typed, hint):
    with pytest.raises(CommandSyntaxError) as refused:
        parse(typed)
    said = str(refused.value)
    assert said.endswith("/help lists the commands you can use here.") and hint in said
    assert "/game verify" not in said and len(said) < 150


def test_help_on_the_command_line(tmp_path):
    db = str(tmp_path / "help.db")
    where = ("--db", db, "--channel", "c", "--user", "ann")
    assert run_cli("exec", *where, "/game new ruleset:race", cwd=tmp_path).returncode == 0
    shown = run_pitboss("exec", *where, "/help command:brake", cwd=tmp_path)
    assert shown.returncode == 0 and "`/brake`:" in shown.stdout and "Example" in shown.stdout


@pytest.mark.parametrize(("line", "chosen"), [
    ("/game new ruleset:track joker_forced:false rounds:40", {"joker_forced": "false", "rounds": "40"}),
    ("/game new ruleset:speedway arena:junkyard", {"arena": "junkyard"}),
    ("/game new ruleset:battlecars board:town", {"board": "town"}),
    ("/game new ruleset:race track:cloud_city tuning:2", {"track": "cloud_city", "tuning": "2"}),
])
async def test_game_settings_shows_every_setup_option_and_what_it_means(service, line, chosen):
    """Issue 26, item 7: the table's rulings stay visible after /game new: every option of the game's
    /game new, the value chosen (or that it kept its default) and its meaning; never the seed."""
    from bot.table.protocol.commands import game_spec

    assert (await ask(service, "rulings", "ann", line + " seed:99")).outcome == "applied"
    shown = await ask(service, "rulings", "bob", "/game settings")
    assert shown.outcome == "shown" and shown.ephemeral
    ruleset = get_ruleset(line.split("ruleset:")[1].split()[0])
    for option in game_spec(ruleset, "game new").options:
        if option.name in ("ruleset", "seed"):
            assert f"`{option.name}`" not in shown.text
            continue
        value = f"**{chosen[option.name]}**" if option.name in chosen else "as by default"
        assert f"- `{option.name}`: {value}. {option.description}." in shown.text
    assert "99" not in shown.text


async def test_help_on_another_games_command_says_so_and_a_table_without_sheets_lists_none(service):
    """The play-test's findings: a command of another game is not explained as if this table had it, a
    mistyped name gets a suggestion, /HELP is /help, and a game with no car sheets does not offer /game sheet."""
    assert (await ask(service, "race", "ann", "/game new ruleset:race")).outcome == "applied"
    foreign = await ask(service, "race", "ann", "/help command:move")
    assert foreign.text.startswith("Race (SW5e speeders) has no /move") and "Example" not in foreign.text
    typo = await ask(service, "race", "ann", "/help command:brkae")
    assert typo.outcome == "refused" and "Did you mean /brake?" in typo.text
    assert (await ask(service, "race", "ann", "/help command:join")).text.startswith("`/game join`:")
    assert "/game sheet" not in (await ask(service, "race", "ann", "/HELP")).text
    assert (await ask(service, "spw", "ann", "/game new ruleset:speedway")).outcome == "applied"
    assert "`/game sheet`" in (await ask(service, "spw", "ann", "/help")).text


async def test_help_on_new_game_explains_that_games_setup_and_the_game_group_lists_no_game_new(service):
    """The issue 37 play-test: `/new race` is a command on Discord, yet `/help command:new race` answered
    "There is no command /new race"; and `/help command:game` listed `/game new`, which Discord does not
    have. Now `new GAME` explains that game's own setup options (whatever game the channel holds), and the
    /game group lists setup as `/new`."""
    assert (await ask(service, "setup", "ann", "/game new ruleset:speedway")).outcome == "applied"
    for typed in ("new race", "/new race", "game new race"):
        race = await ask(service, "setup", "ann", f'/help command:"{typed}"')
        assert race.outcome == "shown" and race.text.startswith("`/new race`:"), race.text
        assert "`track:`" in race.text and "`tuning:`" in race.text and "`arena:`" not in race.text
        assert "RULESET" not in race.text and "Example: `/new race" in race.text
    group = await ask(service, "empty", "ann", "/help command:game")
    assert "/game new" not in group.text and "/game join" in group.text
    outside = await ask(service, "empty", "ann", "/help command:new")
    assert "`/help command:new GAME`" in outside.text and "`arena:`" not in outside.text
    inside = await ask(service, "setup", "ann", "/help command:new")   # the channel's game's options
    assert inside.text.startswith("`/new`:") and "`arena:`" in inside.text and "`track:`" not in inside.text


async def test_help_explains_me_forget_and_a_running_table_lists_it(service):
    """Issue 39 item 12: /me forget is in /help at a running table, and /help command:me forget says what it
    deletes, how to confirm it and when it is refused."""
    await started(service, "track", "help-forget")
    assert "`/me forget`" in (await ask(service, "help-forget", "ann", "/help")).text
    explained = (await ask(service, "help-forget", "ann", "/help command:\"me forget\"")).text
    for words in ("confirm:yes", "forgotten player", "still verify", "running game", "pitboss forget"):
        assert words in explained, words


async def test_help_lists_league_roles_and_explains_it_as_docs_commands_md_does(service):
    """Issue 40 item 4: /league roles is in /help, in and outside a game; /help command:league roles names the tiers
    and the permissions; docs/commands.md documents it."""
    assert "`/league roles`" in (await ask(service, "empty", "ann", "/help")).text
    await started(service, "track", "help-roles")
    assert "`/league roles`" in (await ask(service, "help-roles", "ann", "/help")).text
    explained = (await ask(service, "help-roles", "ann", "/help command:\"league roles\"")).text
    for words in ("Champion", "Top 3", "Top 10", "Manage Server", "Manage Roles", "set:off"):
        assert words in explained, words
    docs = (Path(__file__).resolve().parent.parent / "docs" / "commands.md").read_text()
    assert "| `/league roles [ruleset:GAME] [set:on\\|off]`" in docs


async def test_help_leaves_out_the_commands_the_operator_turned_off(service):
    """`pitboss disable-command game rematch`: /help (in a game and outside one) no longer lists /game rematch,
    nor suggests it for /help command:; asked about by name, it says the command is off."""
    await service.control("command", "game rematch", on=True)
    await started(service, "track", "off", moves=0)
    for channel in ("off", "empty"):
        reply = await ask(service, channel, "ann", "/help")
        assert "`/game rematch`" not in reply.text and "`/games`" in reply.text, reply.text
        offered = {value for _label, value in await service.suggest(channel, Actor("ann", "ann"), "help", "command",
                                                                      "game re", {})}
        assert "game rematch" not in offered and "game resign" in offered, offered
    explained = await ask(service, "off", "ann", '/help command:"game rematch"')
    assert "turned /game rematch off" in explained.text
    await service.control("command", "game rematch", on=False)
    assert "`/game rematch`" in (await ask(service, "off", "ann", "/help")).text
