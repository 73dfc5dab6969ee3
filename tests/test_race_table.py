"""The race at the table (issue 15): a whole race through `pitboss exec`, one command at a time; the DCs
never reaching a public output; the seated game master's turn; the targeted racer answering for
itself; and the picture keeping one landscape size all race."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from bot.table.protocol.commands import parse
from bot.table.protocol.replies import Actor
from bot.table.trust.export import events_of
from images.race import HEIGHT, TEXT, WIDTH, course, render_race
from rules.errors import GameError
from rules.race.ruleset import RULESET
from rules.race.state import Phase, RaceState
from tests.conftest import exec_in, run_pitboss, stored_state


async def run(service, user: str, line: str, channel: str):
    return await service.execute(channel, Actor(user, user), parse(line))


async def state_of(service, channel: str) -> RaceState:
    game = await service._store.active_game(channel) or (await service._store.all_games())[-1]
    return RULESET.load_state(game.state)


async def play_on(service, channel: str, limit: int = 400, seen: list | None = None) -> list:
    """Every waiting player plays its first legal action until the race ends; the replies. `seen`
    collects the words of every choice offered (the buttons and autocomplete) and every export."""
    replies = []
    for _ in range(limit):
        state = await state_of(service, channel)
        if RULESET.is_finished(state):
            break
        player = RULESET.acting_players(state)[0]
        offered = RULESET.legal_actions(RULESET.view(state, player), player) or RULESET.legal_actions(state, player)
        if seen is not None:
            seen.extend(f"{a.label} {a.command}" for a in offered)
            seen.append((await run(service, player, "/game export", channel)).files[0].data.decode())
        reply = await run(service, player, RULESET.legal_actions(state, player)[0].command, channel)
        assert reply.outcome == "applied", reply.text
        replies.append(reply)
    return replies


SHORT_TRACK = """
[track]
name = "Short Hop"
league = "rookie"
laps = 1
ram = "illegal"
weapons = "ask"
judges_dc = 12

[[track.sections]]
name = "Twisty Bit"
type = "curved"
hint = "A quick bend between coarse walls, magnetic rock after it."
hazard = { kind = "coarse_wall", height = 3, severity = "dangerous", speed_die = 4 }
after = [{ kind = "magnetic", dc = 5, speed = 30 }]

[[track.sections]]
name = "Home Straight"
type = "straight"
hint = "A boost strip to the line, fog along the deck."
hazard = { kind = "railing", height = 2, severity = "setback" }
conditions = [{ kind = "fog", altitude = 3 }]
before = [{ kind = "boost", dc = 5, speed = 50 }]
"""


def exec_race(tmp_path, setup: list[tuple[str, str]], gm: str | None = None) -> RaceState:
    """Set a race up on the group's own short track, then let each waited-on player (the GM too) take
    the first choice offered, each command through `pitboss exec`'s entry point; check `pitboss verify`."""
    db = str(tmp_path / "race.db")
    (tmp_path / "short.toml").write_text(SHORT_TRACK)

    exec_ = exec_in(db, tmp_path)
    host = setup[0][0]
    exec_(host, setup[0][1])
    assert "Short Hop" in exec_(host, f"/custom file:{tmp_path / 'short.toml'}")
    for user, line in setup[1:]:
        exec_(user, line)
    for _ in range(120):
        state = stored_state(RULESET, db)
        if RULESET.is_finished(state):
            break
        player = RULESET.acting_players(state)[0]
        if player == gm and state.phase == Phase.GM and state.section == 0 and not state.dc_changes:
            exec_(gm, "/gm change:2")
            assert "DC 7" in exec_(gm, "/dcs")                   # the curve's 5, raised by 2
        exec_(player, RULESET.legal_actions(state, player)[0].command)
    final = stored_state(RULESET, db)
    assert RULESET.is_finished(final) and final.the_track.name == "Short Hop"
    verified = run_pitboss("verify", "--db", db, cwd=tmp_path)
    assert verified.returncode == 0 and "0 mismatches" in verified.stdout
    return final


def test_a_whole_race_through_exec_three_humans_and_the_bot_as_gm(tmp_path):
    """Three human racers, each command through `pitboss exec`, each taking the first choice
    offered; the race finishes and `pitboss verify` replays it exactly."""
    final = exec_race(tmp_path, [("alice", "/game new ruleset:race tuning:0 seed:5"),
                                 ("alice", "/game join pilot:veteran vehicle:podracer"),
                                 ("bob", "/game join pilot:rookie vehicle:speeder_bike"),
                                 ("carol", "/game join pilot:champion vehicle:racing_swoop"), ("alice", "/game start")])
    assert len(final.racers) == 3 and final.gm is None


def test_a_whole_race_through_exec_with_a_human_gm(tmp_path):
    """A seated GM readies and reveals each section, changes a DC and reads the DCs privately; two human
    racers; the race finishes and verifies."""
    final = exec_race(tmp_path, [("gina", "/game new ruleset:race tuning:1 gm:yes seed:6"),
                                 ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                                 ("bob", "/game join pilot:veteran vehicle:landspeeder"), ("gina", "/game start")],
                      gm="gina")
    assert final.gm == "gina" and final.dc_changes == ((0, 2),) and {r.owner for r in final.racers} == {"alice", "bob"}


async def test_no_public_output_gives_a_dc(service):
    """Seed: the GM describes a section "without revealing actual DC values". Over a whole race no reply,
    alt text, status, log line, offered choice, export before the end or replay caption names a DC."""
    for user, line in (("alice", "/game new ruleset:race track:cloud_city tuning:0 seed:9"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("alice", "/game add-ai pilot:veteran vehicle:podracer"), ("alice", "/game start")):
        assert (await run(service, user, line, "chan")).outcome == "applied"
    refused = await run(service, "alice", "/dcs", "chan")
    assert refused.outcome == "refused" and "game master" in refused.text
    seen: list = []
    replies = await play_on(service, "chan", seen=seen)
    words = [r.text for r in replies] + [r.alt_text or "" for r in replies] + seen
    words.append((await run(service, "carol", "/game log count:100", "chan")).text)
    game = (await service._store.all_games())[-1]
    logged = [e.describe() for r in await service._store.actions(game.id) for e in events_of(RULESET, r)]
    assert len(logged) > 50 and any("Piloting check for the section" in w for w in logged)
    from images.registry import renderer

    state = await state_of(service, "chan")
    captions = [" ".join(map(str, renderer("race").captioner(RULESET.view(state, None), "alice", e)))
                for e in [events_of(RULESET, r) for r in await service._store.actions(game.id)]]
    assert len(seen) > 10 and not any("DC" in w or '"dc"' in w for w in words + logged + captions)


OWN_TRACK = b"""
[track]
name = "Secret Loop"
[[track.sections]]
name = "Trap Run"
type = "straight"
hazard = { kind = "railing", height = 2 }
before = [{ kind = "boost_trap", dc = 17, speed = 50, detect = 25 }]
[[track.sections]]
name = "Bend"
type = "curved"
hazard = { kind = "coarse_wall", height = 3 }
"""


@pytest.mark.parametrize("gm", ["yes", "no"])
async def test_a_groups_own_track_reaches_no_racers_export(service, gm):
    """Issue 23, item 1: the group's own track (its DCs, its boost traps) was in every export as written
    until a seated GM changed a DC. Its file is read by the GM and whoever added it, and is withheld
    from everyone else's export, in the lobby and all race; once the race is over it is public."""
    from bot.table.protocol.commands import Command

    host = "gina"
    assert (await run(service, host, f"/game new ruleset:race tuning:0 gm:{gm} seed:6", "chan-own")).outcome == \
        "applied"
    added = await service.execute("chan-own", Actor(host, host), Command("custom", {"file": OWN_TRACK}))
    assert added.outcome == "applied" and "Secret Loop" in added.text

    def secret_in(reply) -> bool:
        data = reply.files[0].data.decode()
        return "boost_trap" in data or "dc = 17" in data or "detect" in data

    assert not secret_in(await run(service, "alice", "/game export", "chan-own"))      # in the lobby already
    joins = ["/game join pilot:rookie vehicle:racing_swoop", "/game join pilot:veteran vehicle:podracer"]
    for user, line in [("alice", joins[0]), ("bob", joins[1])] + ([(host, joins[0])] if gm == "no" else []):
        assert (await run(service, user, line, "chan-own")).outcome == "applied"
    assert (await run(service, host, "/game start", "chan-own")).outcome == "applied"
    for racer in ("alice", "bob", "zed"):
        exported = await run(service, racer, "/game export", "chan-own")
        assert not secret_in(exported), racer
        custom = json.loads(exported.files[0].data)["actions"][0]
        assert custom["actor"] == host and custom["action"]["type"] == "Withheld"
    assert secret_in(await run(service, host, "/game export", "chan-own"))    # the GM, or the host who wrote it
    assert (await run(service, host, "/game end", "chan-own")).outcome == "applied"
    over = await run(service, "alice", "/game export", "chan-own")   # over: the seed, but the track stays the GM's
    assert '"seed"' in over.files[0].data.decode() and not secret_in(over)
    assert secret_in(await run(service, host, "/game export", "chan-own"))


async def test_a_seated_gm_readies_each_section_and_alone_sees_the_dcs(service):
    """A human GM (gm:yes) does not race; the race waits on them before each section; /dcs answers them
    privately and refuses a racer; their DC change reaches no racer: not the channel, a view, the log, an
    export or the count of actions (issue 23, item 7)."""
    for user, line in (("gina", "/game new ruleset:race track:dune_sea tuning:0 gm:yes seed:4"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:veteran vehicle:speeder_bike"), ("gina", "/game start")):
        assert (await run(service, user, line, "chan-gm")).outcome == "applied", line
    state = await state_of(service, "chan-gm")
    assert state.phase == Phase.GM and RULESET.acting_players(state) == ("gina",)
    racer_refused = await run(service, "alice", "/gm reveal:yes", "chan-gm")
    assert racer_refused.outcome == "refused"
    racers_saw = [(await run(service, "alice", line, "chan-gm")) for line in ("/game log", "/game export",
                                                                             "/game verify", "/game status")]
    changed = await run(service, "gina", "/gm change:3", "chan-gm")
    assert changed.outcome == "applied" and changed.ephemeral and changed.image is None   # the GM's alone
    assert "DC +3" in changed.text and "Only you see this" in changed.text
    again = await run(service, "gina", "/gm condition:fog altitude:3", "chan-gm")
    assert again.ephemeral and "fog from 3 m added" in again.text
    racers_see = [(await run(service, "alice", line, "chan-gm")) for line in ("/game log", "/game export",
                                                                             "/game verify", "/game status")]
    assert [r.text for r in racers_see] == [r.text for r in racers_saw]
    assert racers_see[1].files[0].data == racers_saw[1].files[0].data
    assert (racers_see[3].image, racers_see[3].alt_text) == (racers_saw[3].image, racers_saw[3].alt_text)
    gm_log = (await run(service, "gina", "/game log", "chan-gm")).text
    assert "DC +3" in gm_log and "fog" in gm_log
    gm_export = json.loads((await run(service, "gina", "/game export", "chan-gm")).files[0].data)
    assert [a["action"]["type"] for a in gm_export["actions"][-2:]] == ["GmChange", "GmCondition"]
    secret = await run(service, "gina", "/dcs", "chan-gm")
    assert secret.ephemeral and "DC 5" in secret.text            # the straight's 0, raised by 3, fog below 3 m
    assert (await run(service, "alice", "/dcs", "chan-gm")).outcome == "refused"
    state = await state_of(service, "chan-gm")
    assert RULESET.view(state, "alice").dc_changes == () and RULESET.view(state, "gina").dc_changes == ((0, 3),)
    assert (await run(service, "gina", "/gm condition:-fog", "chan-gm")).ephemeral
    revealed = await run(service, "gina", "/gm reveal:yes", "chan-gm")
    assert revealed.outcome == "applied" and not revealed.ephemeral
    assert "Boost Run" in revealed.text and "DC" not in revealed.text and "fog" not in revealed.text
    # the straight is windy only from 5 m up: no condition at 1 m, so no check, raised DC or not (revision 2)
    assert (await state_of(service, "chan-gm")).phase == Phase.ACCELERATE
    racer_log = (await run(service, "alice", "/game log", "chan-gm")).text
    assert "#4 " in racer_log and "#5" not in racer_log   # the reveal is their 4th action (the GM's 7th)
    assert "#7 " in (await run(service, "gina", "/game log", "chan-gm")).text


async def test_the_racer_targeted_answers_for_itself(service):
    """Seed, Table 3: the racer passed chooses its reaction; the passer cannot answer for it."""
    for user, line in (("alice", "/game new ruleset:race track:outlaw_gauntlet tuning:0 seed:2"),
                       ("alice", "/game join pilot:rookie vehicle:racing_swoop"),
                       ("bob", "/game join pilot:rookie vehicle:racing_swoop"), ("alice", "/game start")):
        assert (await run(service, user, line, "chan-r")).outcome == "applied"
    for _ in range(200):
        state = await state_of(service, "chan-r")
        if state.phase == Phase.ACTION:
            player = RULESET.acting_players(state)[0]
            racer = state.racer_of(player)
            ahead = state.ahead_of(racer.id)
            if ahead is not None and racer.speed >= ahead.speed:
                assert (await run(service, player, "/act maneuver:pass", "chan-r")).outcome == "applied"
                state = await state_of(service, "chan-r")
                assert state.phase == Phase.REACTION and RULESET.acting_players(state) == (ahead.owner,)
                refused = await run(service, player, "/react reaction:none", "chan-r")
                assert refused.outcome == "refused"
                answered = await run(service, ahead.owner, "/react reaction:block", "chan-r")
                assert answered.outcome == "applied" and "Piloting against" in answered.text
                return
        player = RULESET.acting_players(state)[0]
        choice = next((a for a in RULESET.legal_actions(state, player) if a.command != "/act maneuver:pass"),
                      RULESET.legal_actions(state, player)[0])
        assert (await run(service, player, choice.command, "chan-r")).outcome == "applied"
    pytest.fail("no pass came up in 200 actions")


async def test_the_picture_is_landscape_one_size_all_race_and_legible_on_a_phone(service):
    """Issue 10's rule: never taller than wide, one size all race, words of 9 px or more at 420 px."""
    assert min(TEXT, course.TEXT) * 420 / WIDTH >= 9 and WIDTH > HEIGHT
    for user, line in (("alice", "/game new ruleset:race track:outlaw_gauntlet tuning:0 seed:3"),
                       ("alice", "/game join"), ("alice", "/game add-ai"), ("alice", "/game add-ai"),
                       ("alice", "/game start")):
        assert (await run(service, user, line, "chan-p")).outcome == "applied"
    sizes = {Image.open(io.BytesIO(r.image)).size for r in await play_on(service, "chan-p") if r.image}
    assert sizes == {(WIDTH, HEIGHT)}
    state = await state_of(service, "chan-p")
    view = RULESET.view(state, None)
    assert render_race(view, ()) == render_race(view, ())                # the same state, the same bytes
    export = await run(service, "alice", "/game export", "chan-p")
    assert json.loads(export.files[0].data)["ruleset"] == "race"
    replay = await run(service, "alice", "/game replay", "chan-p")
    assert replay.outcome == "shown" and Image.open(io.BytesIO(replay.files[0].data)).format == "GIF"
    verify = await run(service, "alice", "/game verify", "chan-p")
    assert verify.outcome == "shown" and "rebuilds the table exactly" in verify.text


CUSTOM = b'''
[vehicles.sandskiff]
name = "Sand skiff"
size = "medium"
tier = 2
str = 18
dex = 12
con = 16

[racers.ace]
name = "Ace <@everyone>"
piloting = 7
'''


@pytest.mark.parametrize(("text", "why"), [
    (b"vehicles = 3", "needs [vehicles.ID], [racers.ID] or [track]"),
    (b"[vehicles.x]\nstr = 8\ndex = 12\ncon = 12", "vehicles.x: str 8 is below 10"),
    (b"[vehicles.podracer]\nstr = 12\ndex = 12\ncon = 12", "'podracer' is taken"),
    (b"[racers.r]\npiloting = 99", "racers.r: piloting must be a whole number from -10 to 30"),
    (b"{not json", "not TOML or JSON"),
    (b'[track]\nsections = [{ name = "Loop", type = "loop", hazard = { kind = "railing" } }]',
     "track section 1: type is one of straight"),
    (b'[track]\nsections = [{ name = "A", type = "straight", hazard = { kind = "lava" } }]',
     "track section 1 hazard: kind is one of railing"),
    (b"\xff\xfe", "not UTF-8"),
    (b"[vehicles.x]\nstr = 12\n" + b"#" * 20_000, "too long"),
    # issue 23, item 6: a list field given as a number took the bug path
    (b'{"track": {"sections": [{"name": "A", "type": "straight", "hazard": {"kind": "railing"}, "before": 5}]}}',
     "track section 1: before is a list of tables"),
    (b'{"track": {"sections": [{"name": "A", "type": "straight", "hazard": {"kind": "railing"}, "after": 5}]}}',
     "track section 1: after is a list of tables"),
    (b'{"track": {"sections": [{"name": "A", "type": "curved", "hazard": {"kind": "railing"}, "conditions": 7}]}}',
     "track section 1: conditions is a list of tables"),
    # issue 23, item 8
    (b'{"vehicles": {"x": {"str": 12, "dex": 12, "con": 12}, "x": {"str": 20, "dex": 12, "con": 12}}}',
     "'x' is given twice"),
    (b'[vehicles.swoop2]\nname = "Racing Swoop"\nstr = 12\ndex = 12\ncon = 12',
     "vehicles.swoop2: the name 'Racing Swoop' is already racing_swoop's"),
    (b'[racers.ace]\nname = "Ace"\n[racers.ace2]\nname = "ACE"', "racers.ace2: the name 'ACE' is already ace's"),
    (b"[vehicles.slow]\nstr = 10\ndex = 10\ncon = 18",
     "vehicles.slow: max_speed is not set, and the formula 50 + (Str 10 + Dex modifier +0 - Con modifier +4) x 25 "
     "gives 200 km/h, below the 300 a racer needs"),
    (b'[track]\nsections = [{ name = "A", type = "straight", hazard = { kind = "railing" }, before = ['
     + b", ".join([b'{ kind = "boost", dc = 5, speed = 10 }'] * 300) + b"] }]", "before has at most 4 entries"),
    (b'[track]\nsections = [{ name = "A", type = "curved", hazard = { kind = "railing" }, conditions = ['
     b'{ kind = "fog" }, { kind = "fog", altitude = 3 }] }]', "each condition kind is given once"),
])
async def test_a_groups_own_file_is_checked_and_a_faulty_one_changes_nothing(service, text, why):
    """Issue 15: custom vehicles and racers are validated with clear errors; a refused file changes nothing."""
    from bot.table.protocol.commands import Command

    assert (await run(service, "alice", "/game new ruleset:race tuning:0", "chan-c")).outcome == "applied"
    before = (await service._store.active_game("chan-c")).state
    refused = await service.execute("chan-c", Actor("alice", "alice"), Command("custom", {"file": text}))
    assert refused.outcome == "refused" and why in refused.text, refused.text
    assert (await service._store.active_game("chan-c")).state == before


async def test_a_json_file_after_a_byte_order_mark_is_read_as_json(service):
    """Issue 23, item 8: a UTF-8 byte-order mark before JSON made it read as TOML and refused."""
    from bot.table.protocol.commands import Command

    assert (await run(service, "alice", "/game new ruleset:race tuning:0", "chan-c")).outcome == "applied"
    text = "\ufeff" + json.dumps({"vehicles": {"skiff": {"name": "Skiff", "str": 14, "dex": 12, "con": 12}}})
    added = await service.execute("chan-c", Actor("alice", "alice"), Command("custom", {"file": text.encode()}))
    assert added.outcome == "applied" and "Skiff" in added.text, added.text


def test_a_revision_1_race_reads_its_own_file_as_it_always_did():
    """A race stored under revision 1 replays its file with the bounds of its day: a repeated JSON key
    keeps the last, five features and a built-in's name are taken (stored games are sacred)."""
    from rules.race.actions import AddCustom

    features = [{"kind": "boost", "dc": 5, "speed": 10}] * 5
    text = ('{"vehicles": {"x": {"str": 12, "dex": 12, "con": 12}, "x": {"name": "Podracer", "str": 20, '
            '"dex": 12, "con": 12}}, "track": ' + json.dumps(
                {"sections": [{"name": "A", "type": "straight", "hazard": {"kind": "railing"}, "before": features}]})
            + "}")
    old = RULESET.setup({"tuning": 0, "revision": 1}, 1, "alice")
    state, _ = RULESET.apply(old, "alice", AddCustom(text))
    assert state.custom_vehicles[0].str == 20 and len(state.custom_track.sections[0].before) == 5
    with pytest.raises(GameError, match="given twice"):
        RULESET.apply(RULESET.setup({"tuning": 0, "revision": 2}, 1, "alice"), "alice", AddCustom(text))


async def test_a_groups_own_vehicle_and_racer_join_the_grid_with_clean_names(service):
    """A host's file adds a vehicle and a racer; the name loses its mention syntax; others may not add."""
    from bot.table.protocol.commands import Command

    assert (await run(service, "alice", "/game new ruleset:race tuning:0", "chan-c")).outcome == "applied"
    stranger = await service.execute("chan-c", Actor("bob", "bob"), Command("custom", {"file": CUSTOM}))
    assert stranger.outcome == "refused" and "host" in stranger.text
    added = await service.execute("chan-c", Actor("alice", "alice"), Command("custom", {"file": CUSTOM}))
    assert added.outcome == "applied" and "Sand skiff" in added.text and "@" not in added.text
    joined = await run(service, "bob", "/game join pilot:ace vehicle:sandskiff", "chan-c")
    assert joined.outcome == "applied" and "Ace everyone on a Sand skiff" in joined.text
    state = await state_of(service, "chan-c")
    skiff = state.custom_vehicles[0]
    assert (skiff.max_speed, skiff.hull_dice, skiff.hull_die, skiff.ac) == (50 + (18 + 1 - 3) * 25, 7, 8, 12)


async def test_joining_suggests_the_vehicles_and_pilots_as_you_type(service):
    """Issue 37, item 11: /game join vehicle: is free text in the Race (a group may bring its own), so on
    Discord it is autocomplete, and it offered nothing; now it offers every vehicle, the group's own too."""
    from bot.table.protocol.commands import Command
    from rules.race import data

    assert (await run(service, "alice", "/game new ruleset:race tuning:0", "chan-s")).outcome == "applied"
    bob = Actor("bob", "bob")
    offers = await service.suggest("chan-s", bob, "game join", "vehicle", "", {})
    assert [value for _label, value in offers] == list(data.vehicles())
    assert all(label.endswith(" km/h)") for label, _value in offers)
    assert (await service.execute("chan-s", Actor("alice", "alice"), Command("custom", {"file": CUSTOM}))).outcome \
        == "applied"
    assert [value for _label, value in await service.suggest("chan-s", bob, "game join", "vehicle", "sand", {})] \
        == ["sandskiff"]
    pilots = await service.suggest("chan-s", bob, "game join", "pilot", "", {})
    assert [value for _label, value in pilots] == [*data.racers(), "ace"]
    assert await service.suggest("chan-s", Actor("alice", "alice"), "game add-ai", "vehicle", "sand", {}) != []
    assert await service.suggest("chan-s", bob, "game add-ai", "vehicle", "sand", {}) == []   # the host's alone


async def test_a_late_join_is_told_the_grid_is_closed_not_another_racers_prompt(service):
    """Issue 37, item 11: a /game join once the race is under way was answered with the prompt of the racer
    the race waits on; now the joiner reads that the grid is closed, and nothing of anyone's turn."""
    for line in ("/game new ruleset:race tuning:0 seed:3", "/game join"):
        assert (await run(service, "ann", line, "chan-l")).outcome == "applied"
    assert (await run(service, "bob", "/game join", "chan-l")).outcome == "applied"
    assert (await run(service, "ann", "/game start", "chan-l")).outcome == "applied"
    late = await run(service, "cat", "/game join vehicle:swoop", "chan-l")
    assert late.outcome == "refused"
    assert late.text == "The race has started: the grid is closed. You can watch, and join the next race."
    again = await run(service, "ann", "/game join", "chan-l")
    assert again.outcome == "refused" and "grid is closed" in again.text


def test_opposed_odds_are_exact_and_shown_on_the_maneuver_buttons():
    """The chance of a pass is d20 + ours beating d20 + theirs, worked out exactly (advantage: the higher
    of two); the action buttons carry it."""
    from itertools import product

    from rules.race.maneuvers import beat_chance

    plain = sum(a + 3 > b for a, b in product(range(1, 21), repeat=2)) / 400
    assert abs(beat_chance(3, 0) - plain) < 1e-9
    both = sum(max(a, c) > b for a, b, c in product(range(1, 21), repeat=3)) / 8000
    assert abs(beat_chance(0, 0, our_edge=1) - both) < 1e-9
    state = RULESET.setup({"tuning": 0, "track": "outlaw_gauntlet"}, 1, "alice")
    from rules.race.actions import AddComputer, Join, Start
    from rules.race.flow import start_actions

    state, _ = RULESET.apply(state, "alice", Join("alice", "rookie", "racing_swoop"))
    state, _ = RULESET.apply(state, "alice", AddComputer("rookie", "racing_swoop"))
    state, _ = RULESET.apply(state, "alice", Start())
    from dataclasses import replace

    last = state.racing()[-1]
    state = state.with_racer(replace(last, speed=state.racing()[0].speed + 40))
    state, _ = start_actions(replace(state, racers=tuple(replace(r, out="") for r in state.racers)))
    labels = [a.label for a in RULESET.legal_actions(state, last.owner)]
    assert any(label.startswith("Pass (") and label.endswith("%)") for label in labels), labels


async def test_the_gm_rewards_a_show_off_at_any_point_and_nobody_else_may(service):
    """Seed, Show off: "off track rewards as deemed appropriate by GM": logged like any action."""
    for user, line in (("gina", "/game new ruleset:race tuning:0 gm:yes seed:4"),
                       ("alice", "/game join"), ("bob", "/game join"), ("gina", "/game start")):
        assert (await run(service, user, line, "chan-w")).outcome == "applied"
    rewarded = await run(service, "gina", "/gm racer:alice 'reward:a gold <@here> chip'", "chan-w")
    assert rewarded.outcome == "applied" and "The GM rewards alice: a gold here chip." in rewarded.text
    assert (await run(service, "bob", "/gm racer:bob reward:everything", "chan-w")).outcome == "refused"


async def test_a_deadline_answers_for_a_racer_who_never_reacts(store):
    """The target is asked for its reaction with a deadline; when it passes, the autopilot defends
    (a block against a pass) and the race goes on."""
    from bot.table.service.entry import GameService
    from tests.test_plugin_toy import HOUR, Clock

    clock = Clock()
    service = GameService(store, render=None, clock=clock)
    for user, line in (("alice", "/game new ruleset:race track:outlaw_gauntlet tuning:0 seed:2"),
                       ("alice", "/game join"), ("bob", "/game join"), ("alice", "/game start"),
                       ("alice", "/game settings deadline_hours:2")):
        assert (await run(service, user, line, "chan-d")).outcome in ("applied", "shown"), line
    for _ in range(100):
        state = await state_of(service, "chan-d")
        player = RULESET.acting_players(state)[0]
        racer = state.racer_of(player)
        if state.phase == Phase.ACTION and state.ahead_of(racer.id) and racer.speed >= state.ahead_of(racer.id).speed:
            assert (await run(service, player, "/act maneuver:pass", "chan-d")).outcome == "applied"
            break
        choice = next(a for a in RULESET.legal_actions(state, player) if a.command != "/act maneuver:pass")
        assert (await run(service, player, choice.command, "chan-d")).outcome == "applied"
    state = await state_of(service, "chan-d")
    assert state.phase == Phase.REACTION
    target = RULESET.acting_players(state)[0]
    clock.now += 3 * HOUR
    notices = await service.run_due()
    assert len(notices) == 1 and "deadline passed" in notices[0].reply.text
    assert f"Piloting against {state.racer(state.pending.actor).name}" in notices[0].reply.text
    after = await state_of(service, "chan-d")
    assert after.phase != Phase.REACTION and target in {p.id for p in after.players}


async def test_a_seated_gm_changes_the_next_sections_conditions_before_revealing_it(service):
    """Issue 15: the GM "may change a section's DC or conditions before it is revealed". The conditions
    are told at the reveal (never the DC they make); the GM's /dcs shows the new DC."""
    for user, line in (("gina", "/game new ruleset:race track:dune_sea tuning:0 gm:yes seed:4"),
                       ("alice", "/game join"), ("bob", "/game join"), ("gina", "/game start")):
        assert (await run(service, user, line, "chan-k")).outcome == "applied"
    before = await state_of(service, "chan-k")
    for who, line, why in (("alice", "/gm condition:fog altitude:3", "waits on gina"),
                           ("gina", "/gm condition:lava", "condition: one of"),
                           ("gina", "/gm condition:-fog", "has no fog")):
        refused = await run(service, who, line, "chan-k")
        assert refused.outcome == "refused" and why in refused.text, refused.text
    assert await state_of(service, "chan-k") == before
    assert (await run(service, "gina", "/gm condition:fog altitude:3", "chan-k")).outcome == "applied"
    assert (await run(service, "gina", "/gm condition:-strong_wind", "chan-k")).outcome == "applied"
    assert "alice at 1 m: DC 2;" in (await run(service, "gina", "/dcs", "chan-k")).text   # 0 + fog below 3 m
    revealed = await run(service, "gina", "/gm reveal:yes", "chan-k")
    assert "Conditions: fog below 3 m." in revealed.text and "strong wind" not in revealed.text.split("Conditions")[1]
    assert "DC" not in revealed.text


async def test_a_finished_race_exports_with_its_seed_and_imports_elsewhere_as_the_same_race(service):
    """The export of a finished race carries the seed; imported in another channel it replays to the
    same standings (a running race moves only by its host's export, as every game's does)."""
    from bot.table.protocol.commands import Command

    for user, line in (("alice", "/game new ruleset:race track:outlaw_gauntlet tuning:0 seed:8"),
                       ("alice", "/game join"), ("alice", "/game add-ai pilot:veteran"), ("alice", "/game start")):
        assert (await run(service, user, line, "chan-x")).outcome == "applied"
    await play_on(service, "chan-x")
    exported = await run(service, "alice", "/game export", "chan-x")
    document = json.loads(exported.files[0].data)
    assert document["seed"] == 8 and document["ruleset"] == "race"
    imported = await service.execute("chan-y", Actor("alice", "alice"),
                                     Command("game import", {"file": exported.files[0].data}), guild="guild-1")
    assert imported.outcome == "applied", imported.text
    there = RULESET.load_state((await service._store.latest_game("chan-y")).state)
    here = await state_of(service, "chan-x")
    assert there.order == here.order and there.winner == here.winner and RULESET.is_finished(there)


@pytest.mark.slow
async def test_the_other_three_games_play_exactly_as_alone_beside_a_race_at_the_same_time(service):
    """Issues 14 and 15: Speedway, Track and Battlecars, their commands interleaved on one loop with a
    race's in a fourth channel, give the same replies and final snapshots as each played alone."""
    import asyncio

    from tests.test_battlecars_table import BATTLECARS, SPEEDWAY, TRACK, _by_first_legal

    race = (("ann", "/game new ruleset:race track:outlaw_gauntlet tuning:0 seed:3"), ("ann", "/game join"),
            ("ben", "/game join"), ("ann", "/game start"))
    alone = [await _by_first_legal(service, f"{name}-alone", setup, 30)
             for name, setup in (("sw", SPEEDWAY), ("tr", TRACK), ("bc", BATTLECARS))]
    *together, raced = await asyncio.gather(*(_by_first_legal(service, f"{name}-with", setup, 30)
                                              for name, setup in (("sw", SPEEDWAY), ("tr", TRACK), ("bc", BATTLECARS),
                                                                  ("race", race))))
    assert together == alone
    assert RULESET.load_state(raced[1]).phase != Phase.LOBBY


async def test_the_deadline_notice_for_an_absent_gm_tells_what_the_autopilot_does_for_a_gm(store):
    """Play-test of issue 36: a seated GM's deadline told the channel the autopilot 'holds the speed,
    accelerates to a safe pace…' for them, a racer's manner; it says what it does for the GM."""
    from bot.table.service.entry import GameService

    now = [1_800_000_000.0]
    service = GameService(store, render=None, clock=lambda: now[0])
    for user, line in (("gina", "/game new ruleset:race seed:11 tuning:0 gm:yes"), ("ann", "/game join"),
                       ("ben", "/game join"), ("gina", "/game settings deadline_hours:6"), ("gina", "/game start")):
        assert (await service.execute("c", Actor(user, user), parse(line))).outcome in ("applied", "shown"), line
    now[0] += 7 * 3600
    (notice,) = [n for n in await service.run_due() if n.reply.outcome == "applied"]
    assert notice.reply.text.startswith(
        "gina's deadline passed: the autopilot plays for them (reveals the section as the GM readied it, and refuses "
        "an action that waits on a ruling)."), notice.reply.text
