"""`/rules` (issue 26, item 6): the rules as the table plays them, from each game's RULES.md: the topics,
one topic (the seed's sentence quoted, then the reading, rulings and reconstructions marked), or every
rule naming a word; suggested as you type; the same text on the command line."""

from __future__ import annotations

import re

import pytest

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import MESSAGE_LIMIT, Actor
from bot.table.service.rulebook import topics
from rules.registry import get_ruleset
from tests.conftest import run_cli, run_pitboss
from tests.examples import games


def a_word_of(ruleset_id: str) -> str:
    """A word every game's rules use: the name of its first own command."""
    return get_ruleset(ruleset_id).grammar.commands[0].name


async def ask(service, channel: str, line: str):
    return await service.execute(channel, Actor("ann", "ann"), parse(line))


@pytest.mark.parametrize("ruleset_id", games())
async def test_rules_lists_the_topics_answers_one_and_finds_a_word(service, ruleset_id):
    channel = f"rules-{ruleset_id}"
    assert (await ask(service, channel, f"/game new ruleset:{ruleset_id}")).outcome == "applied"
    found = topics(ruleset_id)
    assert len(found) >= 5
    listed = await ask(service, channel, "/rules")
    assert listed.outcome == "shown" and listed.ephemeral and len(listed.text) <= MESSAGE_LIMIT
    for topic in found:
        assert f"- `{topic.key}`: {topic.title}" in listed.text
    for topic in found:
        one = await ask(service, channel, f"/rules topic:{topic.key}")
        assert one.text.startswith(f"**{topic.title}**") and len(one.text) <= MESSAGE_LIMIT
        assert topic.entries[0][:80] in one.text
        assert "Tests: `" not in one.text   # the code and test columns and lists stay in the file
    word = await ask(service, channel, f"/rules topic:{a_word_of(ruleset_id)}")
    assert f"on '{a_word_of(ruleset_id)}'" in word.text and a_word_of(ruleset_id) in word.text.casefold()
    nothing = await ask(service, channel, "/rules topic:xyzzy")
    assert nothing.outcome == "refused" and "Topics:" in nothing.text


async def test_a_seed_sentence_is_quoted_and_the_rulings_and_reconstructions_marked(service):
    assert (await ask(service, "marks", "/game new ruleset:speedway")).outcome == "applied"
    components = await ask(service, "marks", "/rules topic:game-components")
    assert "> Normal dice decide whether a shot hits" in components.text
    assert "**RECONSTRUCTION**" in components.text
    overview = await ask(service, "marks", "/rules topic:overview")
    assert "check_victory" not in overview.text and "test_last_player" not in overview.text
    upkeep = await ask(service, "marks", "/rules topic:player-turns-and-upkeep-phase")
    assert '> 1. "Remove a number of Inertia tokens' in upkeep.text and "**RULING**" in upkeep.text


CODE = re.compile(r"\.py\b|\.toml\b|\.db\b|::|tests/|rules/|\b[A-Z]\w*\.[a-z_]+\b|`\w+\([^`]*\)`"
                  r"|`[A-Z0-9]+_[A-Z0-9_]+`|\(`[a-z_]+`\)|legal_actions|undo_blocker|unique_name|_from`")


@pytest.mark.parametrize("ruleset_id", games())
def test_the_rules_players_read_name_no_code_file_or_test(ruleset_id):
    """Issue 37, item 12: /rules quoted `Car.skid` and `data/maneuvers.toml` to players. What RULES.md cites
    for developers (the code's fields and calls, data files, modules, tests) stays in the file."""
    served = [entry for topic in topics(ruleset_id) for entry in topic.entries]
    assert served and [e for e in served if CODE.search(e)] == []
    assert all("( " not in e and "()" not in e for e in served)
    # nor the punctuation around a citation left behind (the play-test: 'a real file:)', 'fire chips\n.',
    # and '15, .50-Cal MG' read '15,.50-Cal MG')
    assert [e for e in served if re.search(r":\)|\n[.,;:]+$|[,;]\.\d", e)] == []


async def test_the_skid_reads_in_the_games_words(service):
    """The two the issue names: the skid indicator and the maneuvers' data, as a player reads them."""
    assert (await ask(service, "skid", "/game new ruleset:speedway")).outcome == "applied"
    skid = (await ask(service, "skid", "/rules topic:skid")).text
    assert "Skid indicator\nholds the skid direction while Out Of Control" in skid
    assert "Car.skid" not in skid and "data/maneuvers.toml" not in skid and "maneuvers.toml" not in skid


async def test_topics_are_suggested_as_you_type_and_rules_need_a_game(service):
    assert (await ask(service, "typed", "/game new ruleset:race")).outcome == "applied"
    offers = await service.suggest("typed", Actor("ann", "ann"), "rules", "topic", "fin", {})
    assert ("Finish", "finish") in offers
    alone = await ask(service, "nowhere", "/rules")
    assert alone.outcome == "refused" and "/new race" in alone.text


def test_rules_on_the_command_line(tmp_path):
    db = str(tmp_path / "r.db")
    where = ("--db", db, "--channel", "c", "--user", "ann")
    assert run_cli("exec", *where, "/game new ruleset:track", cwd=tmp_path).returncode == 0
    shown = run_pitboss("exec", *where, "/rules topic:joker", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.startswith("private: The rules of Track")


@pytest.mark.parametrize("ruleset_id", games())
def test_every_command_a_game_points_to_the_rules_for_names_a_topic_of_its_rules(ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    keys = {t.key for t in topics(ruleset_id)}
    own = {spec.name for spec in ruleset.grammar.commands}
    assert ruleset.grammar.rules_topics and set(ruleset.grammar.rules_topics) <= own
    assert set(ruleset.grammar.rules_topics.values()) <= keys


@pytest.mark.parametrize(("ruleset_id", "line", "topic"), [
    ("speedway", "/speed value:9", "player-turns-and-upkeep-phase"),
    ("track", "/play card:QS move:out", "card-values"),
    ("battlecars", "/speed value:9", "turn-structure-and-speed"),
    ("race", "/accelerate", "speed-and-altitude"),
])
async def test_a_refused_move_points_to_the_rules_that_explain_it(service, ruleset_id, line, topic):
    """Issue 26, item 6: a refusal that follows from a rule names its topic; one about who may act does not."""
    channel = f"why-{ruleset_id}"
    for user, opening in (("ann", f"/game new ruleset:{ruleset_id} seed:4"), ("ann", "/game join"),
                          ("ben", "/game join"), ("ann", "/game start")):
        assert (await service.execute(channel, Actor(user, user), parse(opening))).outcome == "applied"
    state = get_ruleset(ruleset_id).load_state((await service._store.active_game(channel)).state)
    mover = get_ruleset(ruleset_id).acting_players(state)[0]
    refused = await service.execute(channel, Actor(mover, mover), parse(line))
    assert refused.outcome == "refused" and refused.text.endswith(f" See /rules topic:{topic}."), refused.text
    stranger = await service.execute(channel, Actor("zed", "zed"), parse(line))
    assert stranger.outcome == "refused" and "/rules" not in stranger.text


async def test_a_long_topic_comes_a_page_at_a_time_and_every_entry_is_reached(service):
    assert (await ask(service, "pages", "/game new ruleset:race")).outcome == "applied"
    topic = next(t for t in topics("race") if t.key == "actions-and-reactions")
    seen, page = "", 1
    while True:
        reply = await ask(service, "pages", f"/rules topic:{topic.key} page:{page}")
        assert reply.outcome == "shown" and len(reply.text) <= MESSAGE_LIMIT
        seen += reply.text
        if "Next: `/rules" not in reply.text:
            break
        page += 1
    assert page > 1 and all(entry[:60] in seen for entry in topic.entries)
    past = await ask(service, "pages", f"/rules topic:{topic.key} page:{page + 1}")
    assert past.outcome == "refused" and f"{page} pages" in past.text


async def test_a_games_first_rules_answer_and_topic_suggestions_read_its_rules_off_the_event_loop(service, monkeypatch):
    """Reading a game's RULES.md into topics takes about 15 ms of CPU (`pitboss bench`'s loop-hold pass found
    /rules the longest hold of all): the first answer and the first topic suggestions read it on a thread."""
    import threading

    from bot.table.service import rulebook

    read_on: list[int] = []
    real = rulebook.topics

    def counted(ruleset_id: str):
        read_on.append(threading.get_ident())
        return real(ruleset_id)

    monkeypatch.setattr(rulebook, "topics", counted)
    assert (await ask(service, "read", "/game new ruleset:track")).outcome == "applied"
    assert (await ask(service, "read", "/rules")).outcome == "shown"
    assert await service.suggest("read", Actor("ann", "ann"), "rules", "topic", "", {})
    assert len(read_on) == 2 and threading.get_ident() not in read_on, read_on
