"""One model of the whole table (issue 36, the design step), for every registered game.

A hypothesis state machine plays a table through the real service on a real SQLite store: two humans (and
a computer seat where the game has them), a spectator, the host or an admin, members a seat is offered to,
and for the race a seated GM. Any of them issues any command: a move from the legal list, `/undo`, seat
give, take and computer (one's own or, as the host or an admin, another's), resign, rollback proposals and
votes by command and by button, standing orders, `/me away`, `/me settings notify:`, follow, GM rulings,
export and import into another channel; a clock the test moves fires reminders and deadlines (a flat deadline
or a time bank, with or without grace: `fire_deadlines` fires again after a grace extends one). After every
step four invariants are checked (README of issue 36, DESIGN.md "The whole table has invariants"):

- liveness: a running game waits on somebody, each seat it waits on is held by someone who may act (computer
  seats alone only when their moves were stopped and the scheduler is to play on), each
  such human has a live timer with a deadline where the table has deadlines; firing every due deadline
  moves the game on (a step of its own: `fire_deadlines`);
- secrecy: a second world runs in lockstep with the first (every command in both), forked where a player
  makes a choice nobody else may see: a legal action whose rules-view is the same to every other viewer as
  the one played in the first world, and which the spectator's export withholds in both (a face-down
  counter, a secret move), or a GM's private ruling made in the first world only. While the fork lasts, the
  spectator's and another seat's doors (export, log, status, catch-up, every set-aside log) and every reply
  and clock notice to anyone but the secret's holder (their /undo, their votes and vote buttons), and every
  direct message to anyone but the holder, must be the same in both worlds. Once the rules reveal the
  secret (the spectator's views part, or the game ends) the second world becomes the first's twin again, so
  a secret revealed and then rolled back is not compared (item 2 is out of this form's reach). Besides: no
  door of a running game shows its planted dice seed, and no set-aside line shows the spectator a choice
  that only its player's own view holds now (a card back in their hand: item 1) and the last rollback did not
  deal anew;
- authority: every logged action is its holder's, the computer's, the autopilot's at a deadline, a
  standing order's, the rules' forced one, or a power the rules give (the host's or an admin's seat
  powers, a rollback every person seated voted for, by buttons naming the rollback they voted on), and a
  power over another's seat pings that seat's holder; every ping goes where its member chose (the channel
  mentions only those who keep it, a direct message goes only to a `notify:dm` member, a digest member is
  pinged nowhere but by a direct message about a change to their seat);
- durability: re-running the log and every set-aside line rebuilds the stored state (`/game verify`).

Besides (issue 40 item 1): the lobby is listed by /lfg while a seat is free, and no game out of its lobby ever is.

What it found on 602805d (issue 36's items 1, 3, 4, 7 and 10, and two new breaks) is shrunk into the named
`test_model_found_*` regression tests at the end of this file.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from bot.storage import league, privacy, seasons, tournaments
from bot.storage import queues as queued
from bot.storage import rank_roles as roles_stored
from bot.storage import ratings as rated
from bot.table.clock.settings import TableSettings
from bot.table.jobs.heavy import HEAVY
from bot.table.jobs.heavy_jobs import replayed_states
from bot.table.league import tournament as course
from bot.table.protocol.commands import Command
from bot.table.protocol.replies import Reply, rematch_button, seat_button
from bot.table.service import rematch, seating
from bot.table.service.rank_roles import tiers_of
from bot.table.service.ratings import latest, recomputed
from bot.table.service.review import NOT_YET
from rules.codec import encode_state, encode_tagged
from rules.engine import ExampleOpening
from rules.registry import get_ruleset
from rules.table import SEAT_ACTIONS, AgreeResult, Rollback, TablePhase, TakeSeat, born_computer
from tests.examples import games, lines
from tests.table_model import Clock, World, decoded
from tests.test_secrets import _face

HOUR = 3600.0
SEED = 7_373_737_373_000   # planted: a running game's doors never show it (the last digits vary)
HUMANS = ("ann", "ben")
NEWCOMERS = ("cat", "dan")     # members a seat may be offered to
SPECTATOR = "zed"
QUEUE_HALL = "hall"            # where the queue is joined (its games open in threads of it)
CUP = "cup"                    # where a tournament is announced (its games open in threads of it)
LADDER = "ladder"              # where a season runs (its games open in threads of it)
ADMIN = "mod"
GM = "gina"                    # a seated GM (and the host), where the game's opening seats one


def opening_of(ruleset: Any) -> ExampleOpening:
    """The game's example opening, or the one seating a game master where it has one (the model tries their
    private rulings too)."""
    return next((o for o in ruleset.more_examples if o.gm_rulings), ruleset.example)


def seats_change_hands(self: TableModel) -> bool:
    """Whether the seat commands may be tried: in every running game (a plug-in's own seat type refuses
    them)."""
    return self.running()


@dataclass
class Step:
    """The step just taken: who did what, and what they were told."""

    user: str
    kind: str
    replies: list[Reply] = field(default_factory=list)
    target: str = ""   # whose seat a seat command names, when not the user's own


@dataclass
class Count:
    """Steps and examples run, per game (quoted in the issue note)."""

    steps: int = 0
    examples: int = 0
    forks: int = 0
    rollbacks: int = 0
    agreed: int = 0   # results by agreement (/game propose)
    rematches: int = 0   # rematches played after an end (/game rematch)
    moved: int = 0
    mustered: int = 0   # answers to a queued game's muster (issue 40 item 2)
    tournaments: int = 0   # tournament games opened (issue 40 item 4)
    seasons: int = 0   # season games paired (issue 40 item 4)


COUNTS: dict[str, Count] = {}


class TableModel(RuleBasedStateMachine):
    """The whole table of one game (GAME, set by `machine_for`)."""

    GAME = "toy"

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.mkdtemp(prefix="table-model-")
        self.loop = asyncio.new_event_loop()
        self.time = Clock()
        self.a = World(self.folder, "a", self.time, self.loop).open()
        self.b = World(self.folder, "b", self.time, self.loop).open()
        self.ruleset = get_ruleset(self.GAME)
        self.channel = "c0"
        self.moves = 0
        self.opening = opening_of(self.ruleset)
        self.host = self.opening.host
        assert self.host in (*HUMANS, GM) and {p for p, _ in self.opening.commands} <= {*HUMANS, self.host}
        self.deadlines = False
        self.fork: str | None = None   # the seat whose secret the two worlds differ in
        self.seen: list[tuple[int, str, str]] = []   # the log as last checked
        self.step: Step | None = None
        self.buttons: list[tuple[str, int | str]] = []   # vote buttons drawn: (custom id, the target shown)
        self.approvals: dict[int | str, set[str]] = {}   # who said yes to which target (a rollback's #, a
        # result by agreement), in the vote open now
        self.orders: set[str] = set()
        self.followers: set[str] = set()
        self.notify: dict[str, str] = {}   # where each member chose their pings (`/me settings notify:`)
        self.rated: tuple = ()   # the finished games whose ratings were last checked
        self.cup = False   # a tournament was announced in CUP
        self.ladder = False   # a season was run in LADDER
        self.roles = False   # this game's rank roles were turned on
        self.count = COUNTS.setdefault(self.GAME, Count())
        self.count.examples += 1

    def teardown(self) -> None:
        self.a.close()
        self.b.close()
        self.loop.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    # --- driving both worlds ---------------------------------------------------------------------------

    def both(self, user: str, line: str | Command, admin: bool = False, kind: str = "command",
             target: str = "") -> Reply:
        """`line` by `user` in both worlds; while they are forked, what a viewer other than the secret's
        holder is told must be the same in both."""
        reply = self.a.do(self.channel, user, line, admin)
        twin = self.b.do(self.channel, user, line, admin)
        self.compare_replies(user, reply, twin, line)
        self.step = Step(user, kind, [reply], target)
        self.count.steps += 1
        return reply

    def compare_replies(self, user: str, reply: Reply, twin: Reply, what: Any) -> None:
        if self.fork is None:
            return
        if user == self.holder_of(self.fork) or self.views_part():
            if reply.outcome != twin.outcome or self.views_part():
                self.unfork()   # the holder chose differently, or the rules revealed it: one world again
            return
        assert _face(reply) == _face(twin), ("secrecy: a reply differs with another's secret", user, what,
                                              reply.text, twin.text)
        self.compare_direct([reply], [twin], what)

    def compare_direct(self, replies: list[Reply], twins: list[Reply], what: Any) -> None:
        """While forked, a direct message to anyone but the secret's holder is the same in both worlds."""
        holder = self.holder_of(self.fork) if self.fork is not None else ""
        sent, other = ([(d.player, d.text) for r in group for n in (r, *(x.reply for x in r.notices))
                        for d in n.direct if d.player != holder] for group in (replies, twins))
        assert sent == other, ("secrecy: a direct message differs with another's secret", what, sent, other)

    def unfork(self) -> None:
        self.a.copy_to(self.b)
        self.fork = None

    def game(self, world: World | None = None) -> Any:
        return (world or self.a).game(self.channel)

    def state(self, world: World | None = None) -> Any:
        game = self.game(world)
        return None if game is None else self.ruleset.load_state(game.state)

    def running(self) -> bool:
        game = self.game()
        return game is not None and game.status == "active" and not self.ruleset.is_finished(self.state())

    def holder_of(self, seat: str) -> str:
        """Who holds the seat named `seat` now (its id), or "" once it is gone."""
        state = self.state()
        found = [p for p in state.players if p.name == seat] if state is not None else []
        return found[0].id if found else ""

    def seat_of(self, user: str) -> Any:
        state = self.state()
        return state.player(user) if state is not None else None

    def people(self) -> tuple[str, ...]:
        """Everyone who may type a command here."""
        return (*HUMANS, *NEWCOMERS, SPECTATOR, self.host)

    # --- setting up ----------------------------------------------------------------------------------

    @initialize(seed=st.integers(0, 999), computer=st.booleans(), deadlines=st.booleans(), grace=st.booleans(),
                bank=st.booleans())
    def set_up(self, seed: int, computer: bool, deadlines: bool, grace: bool = False, bank: bool = False) -> None:
        *opening, (starter, start) = lines(self.GAME, SEED + seed, self.opening)
        self.deadlines = deadlines
        for user, line in opening:
            assert self.both(user, line).outcome == "applied", line
        if computer and self.ruleset.computer is not None:
            self.both(self.host, "/game add-ai")
        if deadlines:
            clock = "clock:bank bank_hours:12 increment_hours:2" if bank else "deadline_hours:12"
            self.both(self.host, f"/game settings {clock}" + (" grace:1" if grace else ""))
        game, state = self.game(), self.state()
        taken, most = self.ruleset.seats_taken(state)
        listed = self.a.do(self.channel, SPECTATOR, "/lfg")   # the lobby is an open table while a seat is free
        assert (f"{game.id}. **{self.ruleset.title}**" in listed.text) == (most is None or taken < most), listed.text
        started = self.both(starter, start)
        assert started.outcome == "applied", started.text
        self.seen = [(r.seq, r.actor, r.action) for r in self.a.log(self.game())]

    # --- moves ---------------------------------------------------------------------------------------

    @precondition(lambda self: self.running())
    @rule(pick=st.integers(0, 10_000), fork=st.booleans())
    def move(self, pick: int, fork: bool) -> None:
        """Whoever the game waits on plays one of their legal actions (in the other world, when `fork`, one
        nobody else can tell from it)."""
        state = self.state()
        waiting = [p for p in self.ruleset.acting_players(state) if not self.ruleset.is_computer(state, p)]
        if not waiting:
            return
        player = waiting[pick % len(waiting)]
        legal = [a for a in self.ruleset.legal_actions(state, player) if not a.command.startswith("/game")]
        if not legal:
            return
        chosen = legal[pick % len(legal)]
        before = len(self.a.log(self.game()))
        reply = self.a.do(self.channel, player, chosen.command)
        other = self.secret_twin(state, player, chosen, legal) if fork and self.fork is None and \
            reply.outcome == "applied" and self.withheld(self.a, before) else None
        twin = self.b.do(self.channel, player, (other or chosen).command)
        if other is not None and self.withheld(self.b, before):
            self.fork = self.seat_of(player).name
            self.count.forks += 1
        elif other is not None:
            self.unfork()
        else:
            self.compare_replies(player, reply, twin, chosen.command)
        self.step = Step(player, "move", [reply])
        self.count.steps += 1
        assert reply.outcome == "applied", ("a legal action listed was refused", player, chosen.command, reply.text)

    def withheld(self, world: World, before: int) -> bool:
        """Whether the spectator's export withholds the action logged after the first `before` (or leaves it
        out): a secret."""
        game = world.game(self.channel)
        export = world.do(self.channel, SPECTATOR, "/game export")
        if not export.files or game is None or len(world.log(game)) <= before:
            return False
        made = world.log(game)[before].seq
        actions = {a["seq"]: a["action"] for a in json.loads(export.files[0].data)["actions"]}
        return made not in actions or actions[made].get("type") == "Withheld"

    def secret_twin(self, state: Any, player: str, chosen: Any, legal: list) -> Any:
        """Another legal action of `player` that leaves the game looking the same to everyone else."""
        if chosen.action is None:
            return None
        after, _ = self.ruleset.apply(state, player, chosen.action)
        others = [p.id for p in state.players if p.id != player] + [SPECTATOR]
        for other in legal:
            if other.action is None or other.action == chosen.action:
                continue
            twin, _ = self.ruleset.apply(state, player, other.action)
            if all(self.ruleset.view(twin, v) == self.ruleset.view(after, v) for v in others) and \
                    self.ruleset.acting_players(twin) == self.ruleset.acting_players(after):
                return other
        return None

    @precondition(lambda self: self.running())
    @rule(who=st.integers(0, 9), pick=st.integers(0, 10_000))
    def stray(self, who: int, pick: int) -> None:
        """Someone plays a move the game offers another seat: it is refused (authority checks the log)."""
        state = self.state()
        waiting = self.ruleset.acting_players(state)
        player = waiting[pick % len(waiting)] if waiting else ""
        legal = [a for a in self.ruleset.legal_actions(state, player)] if player else []
        people = [p for p in self.people() if p != player]
        if legal:
            self.both(people[who % len(people)], legal[pick % len(legal)].command)

    @precondition(lambda self: self.running())
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, GM)))
    def undo(self, who: str) -> None:
        self.both(who, "/undo")

    # --- seats ---------------------------------------------------------------------------------------

    @precondition(seats_change_hands)
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)), to=st.sampled_from(NEWCOMERS))
    def seat_give(self, who: str, to: str) -> None:
        self.both(who, f"/game seat give to:{to}")

    @precondition(seats_change_hands)
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)), button=st.booleans())
    def seat_take(self, who: str, button: bool) -> None:
        if button:
            game = self.game()
            self.press(who, seat_button(game.id).custom_id)
        else:
            self.both(who, "/game seat take")

    @precondition(seats_change_hands)
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)))
    def seat_computer(self, who: str) -> None:
        self.both(who, "/game seat computer")

    @precondition(seats_change_hands)
    @rule(power=st.sampled_from(("host", "admin")), seat=st.sampled_from(HUMANS),
          kind=st.sampled_from(("computer", "give", "resign")), to=st.sampled_from(NEWCOMERS))
    def seat_power(self, power: str, seat: str, kind: str, to: str) -> None:
        """The host or an admin acts on another's seat (named by the seat's name)."""
        user, admin = (self.host, False) if power == "host" else (ADMIN, True)
        line = {"computer": f"/game seat computer player:{seat}", "give": f"/game seat give to:{to} player:{seat}",
                "resign": f"/game resign confirm:yes player:{seat}"}[kind]
        self.both(user, line, admin=admin, kind="power", target=self.holder_of(seat))

    @precondition(seats_change_hands)
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)))
    def resign(self, who: str) -> None:
        self.both(who, "/game resign confirm:yes")

    # --- rollbacks -----------------------------------------------------------------------------------

    @precondition(lambda self: self.running())
    @rule(proposer=st.integers(0, 9), back=st.integers(1, 8),
          answers=st.lists(st.tuples(st.integers(0, 9), st.sampled_from((True, True, True, False)), st.booleans()),
                           min_size=1, max_size=3), everyone=st.booleans())
    def propose(self, proposer: int, back: int, answers: tuple = (), everyone: bool = False) -> None:
        """A rollback `back` actions before the channel's last, and the answers that follow it at once (each
        by command or by the proposal's button); `everyone`: then every seated person presses Yes."""
        who = self.voter(proposer)
        count = self.public_count()
        to = max(0, count - back)
        reply = self.both(who, f"/game rollback to:{to}")
        if reply.outcome == "shown" and reply.buttons:
            self.approvals = {to: {who}}
            self.buttons += [(b.custom_id, to) for b in reply.buttons]
            for voter, yes, button in answers:
                if button:   # the buttons just drawn: yes, then no
                    self.vote_button(self.voter(voter), len(self.buttons) - len(reply.buttons) + (0 if yes else 1))
                else:
                    self.vote(self.voter(voter), yes)
            state = self.state()
            for person in [p.id for p in state.players if not p.id.startswith("ai-")] if everyone else ():
                if self.running() and self.buttons[-2][0] == reply.buttons[0].custom_id:
                    self.vote_button(person, len(self.buttons) - 2)
        if reply.outcome == "applied":
            self.approvals = {to: {who}}

    @precondition(lambda self: self.running())
    @rule(proposer=st.integers(0, 9), back=st.integers(1, 8))
    def roll_back_together(self, proposer: int, back: int) -> None:
        """A rollback every seated person agrees to, by the proposal's buttons."""
        self.propose(proposer, back, (), everyone=True)

    @precondition(lambda self: self.running())
    @rule(proposer=st.integers(0, 9), result=st.sampled_from(("draw", "end")),
          answers=st.lists(st.tuples(st.integers(0, 9), st.sampled_from((True, True, False)), st.booleans()),
                           min_size=1, max_size=3), everyone=st.integers(0, 3))
    def propose_result(self, proposer: int, result: str, answers: tuple, everyone: int) -> None:
        """A result by agreement (issue 38 finding 15), voted on as a rollback is: the answers that follow it at
        once (by command or by its buttons); `everyone` 0: then every seated person presses Yes."""
        who = self.voter(proposer)
        reply = self.both(who, f"/game propose {result}")
        if reply.outcome == "applied":   # a lone voter agreed alone
            self.approvals = {result: {who}}
        if reply.outcome != "shown" or not reply.buttons:
            return
        self.approvals = {result: {who}}
        self.buttons += [(b.custom_id, result) for b in reply.buttons]
        yes_at = len(self.buttons) - 2
        for voter, yes, button in answers:
            if button:
                self.vote_button(self.voter(voter), yes_at + (0 if yes else 1))
            elif self.running():
                person = self.voter(voter)
                said = self.both(person, f"/game propose vote:{'yes' if yes else 'no'}")
                if yes and said.outcome in ("shown", "applied"):
                    self.approvals.setdefault(result, set()).add(person)
        state = self.state()
        for person in [p.id for p in state.players if not p.id.startswith("ai-")] if everyone == 0 else ():
            if self.running():
                self.vote_button(person, yes_at)

    def rematch_open(self) -> bool:
        """Whether the channel's game ended here and its rematch was not asked yet."""
        game = self.game()
        return game is not None and game.status == "finished" and not game.moved and \
            self.ruleset.is_finished(self.state()) and self.a.run(self.a.store.rematch(game.id)) is None

    @precondition(lambda self: self.rematch_open())
    @rule()
    def play_again(self) -> None:
        """After the end, every person seated says yes to the rematch (issue 38 finding 14), the first by the final
        message's button: the new game runs in the channel from here on (its seed planted, as the first's)."""
        if self.fork is not None:   # the end revealed the secret
            self.unfork()
        game = self.game()
        people = [p.id for p in self.state().players if not born_computer(p.id)]
        with patch.object(rematch, "new_seed", lambda: SEED + 1):
            replies = [self.press(people[0], rematch_button(game.id).custom_id)]
            replies += [self.both(person, "/game rematch") for person in people[1:]]
        assert replies[-1].outcome == "applied", replies[-1].text
        self.step = Step(people[-1], "rematch", replies)
        self.buttons, self.approvals = [], {}
        self.orders, self.followers = set(), set()   # a rematch keeps neither
        self.count.rematches += 1

    @precondition(lambda self: self.game() is not None)
    @rule(pick=st.integers(0, 99))
    def review(self, pick: int) -> None:
        """/game review (issue 40 item 5): refused to anyone while the game runs; once it ended here, one review,
        the same to whoever asks as to a spectator, with its chart."""
        asked = self.a.do(self.channel, self.voter(pick), "/game review")
        if self.running():
            assert (asked.outcome, asked.text) == ("refused", NOT_YET)
        elif self.rematch_open():
            spectator = self.a.do(self.channel, SPECTATOR, "/game review")
            assert asked.outcome == "shown" and _face(asked) == _face(spectator)

    def voter(self, pick: int) -> str:
        """Mostly a seated person, sometimes anyone."""
        state = self.state()
        seated = [p.id for p in state.players if not p.id.startswith("ai-")] if state is not None else []
        anyone = seated * 3 + [SPECTATOR, NEWCOMERS[0]]
        return anyone[pick % len(anyone)]

    def public_count(self) -> int:
        """How many actions the channel's /game log numbers (what `to:` counts)."""
        log = self.a.do(self.channel, SPECTATOR, "/game log count:1").text
        number = log.split(" ", 1)[0].lstrip("#") if log.startswith("#") else ""
        return int(number) if number.isdigit() else 0

    @precondition(lambda self: self.running())
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, GM, SPECTATOR)), yes=st.booleans())
    def vote(self, who: str, yes: bool) -> None:
        if not self.running():
            return
        vote = self.a.run(self.a.store.rollback_vote(self.game().id))
        target = next((t for t in self.approvals), None)
        reply = self.both(who, f"/game rollback vote:{'yes' if yes else 'no'}")
        if yes and reply.outcome in ("shown", "applied") and vote is not None and target is not None:
            self.approvals.setdefault(target, set()).add(who)

    @precondition(lambda self: self.running() and self.buttons)
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, GM)), pick=st.integers(0, 100))
    def vote_button(self, who: str, pick: int) -> None:
        """A press of any vote button drawn so far (an older proposal's too)."""
        if not self.running():
            return
        custom_id, target = self.buttons[pick % len(self.buttons)]
        reply = self.press(who, custom_id)
        if custom_id.endswith(":1") and reply.outcome in ("shown", "applied"):
            self.approvals.setdefault(target, set()).add(who)

    def press(self, user: str, custom_id: str) -> Reply:
        reply = self.a.press(self.channel, user, custom_id)
        twin = self.b.press(self.channel, user, custom_id)
        self.compare_replies(user, reply, twin, custom_id)
        self.step = Step(user, "press", [reply])
        self.count.steps += 1
        return reply

    # --- the table around the game -------------------------------------------------------------------

    @precondition(lambda self: self.running() and self.ruleset.orders is not None)
    @rule(who=st.sampled_from(HUMANS), pick=st.integers(0, 100))
    def standing_order(self, who: str, pick: int) -> None:
        questions = self.ruleset.orders.questions
        question = questions[pick % len(questions)]
        answer = question.answers[pick % len(question.answers)]
        reply = self.both(who, f"/orders set question:{question.name} answer:{answer}")
        if reply.outcome != "refused":
            self.orders.add(who)

    @precondition(lambda self: self.running())
    @rule(who=st.sampled_from(HUMANS), hours=st.integers(1, 30), back=st.booleans())
    def away(self, who: str, hours: int, back: bool) -> None:
        self.both(who, "/me back" if back else f"/me away hours:{hours}")

    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, SPECTATOR)), how=st.sampled_from(("channel", "dm", "digest")))
    def notify(self, who: str, how: str) -> None:
        """A member chooses where their pings go (issue 38, finding 11)."""
        assert self.both(who, f"/me settings notify:{how}").outcome == "shown"
        self.notify[who] = how

    @precondition(lambda self: self.running())
    @rule(who=st.sampled_from((SPECTATOR, *NEWCOMERS)))
    def follow(self, who: str) -> None:
        if self.both(who, "/game follow").outcome != "refused":
            self.followers.add(who)

    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, SPECTATOR)))
    def forget(self, who: str) -> None:
        """A member forgets (issue 39 item 12): refused while they hold a seat in (or host) a running game; one who
        never sat anywhere loses their own settings and follows, so their pings go back to the channel. (A member
        of a game's record renamed: tests/test_privacy.py and tests/test_upgrades.py.)"""
        games = self.a.run(privacy.games_of(self.a.store, who))
        holds = any(g.host == who or (seat := self.ruleset.load_state(g.state).player(who)) is not None
                    and not getattr(seat, "resigned", False) for g in games if g.status == "active")
        if games and not holds:
            return
        reply = self.both(who, "/me forget confirm:yes", kind="forget")
        assert reply.outcome == ("refused" if holds else "shown"), reply.text
        if not holds:   # a member who forgets leaves every queue (issue 40 item 2)
            assert self.a.run(queued.entries_of(self.a.store, "", who)) == []
        if not holds:
            self.notify.pop(who, None)
            self.followers.discard(who)

    # --- the queue (issue 40 item 2): members wait for this kind of game beside the table's own -----------------

    def queued(self, channel: str, user: str, line: str, admin: bool = False) -> Reply:
        """A queue command in both worlds: the queued games roll the same planted dice in each, and a queue never
        reads the table's secret, so both worlds say the same, to everyone."""
        with patch.object(seating, "new_seed", lambda: SEED + 2):
            reply, twin = self.a.do(channel, user, line, admin), self.b.do(channel, user, line, admin)
        assert (_face(reply), [(n.channel, _face(n.reply)) for n in reply.notices]) == \
            (_face(twin), [(n.channel, _face(n.reply)) for n in twin.notices]), ("the queue differs", line)
        self.count.steps += 1
        return reply

    def musters(self) -> list:
        return [m for m in self.a.run(queued.gathering(self.a.store)) if m.channel]

    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, SPECTATOR)), also=st.sampled_from((*NEWCOMERS, SPECTATOR)),
          answer=st.sampled_from(("/queue confirm", "/queue decline", "")))
    def queue(self, who: str, also: str, answer: str) -> None:
        """Two members wait for a two-player game of this kind; the queue that fills opens it in a thread, where
        the first may answer at once (the muster_answer rule and the clock do the rest)."""
        for member in (who, also):
            reply = self.queued(QUEUE_HALL, member, f"/queue join ruleset:{self.GAME} players:2")
        for notice in reply.notices if answer else ():
            self.queued(notice.channel, who, answer)
            self.count.mustered += 1

    @precondition(lambda self: self.musters())
    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS, SPECTATOR)), pick=st.integers(0, 10), yes=st.booleans(),
          join=st.booleans())
    def muster_answer(self, who: str, pick: int, yes: bool, join: bool) -> None:
        """Someone answers a queued game's muster (a stranger's answer is refused; a /game join takes a free
        seat); the clock rule lets the time of the others run out."""
        musters = self.musters()
        line = "/game join" if join else "/queue confirm" if yes else "/queue decline"
        self.queued(musters[pick % len(musters)].channel, who, line)
        self.count.mustered += 1

    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)), also=st.sampled_from((*NEWCOMERS, SPECTATOR)),
          start=st.booleans())
    def tournament(self, who: str, also: str, start: bool) -> None:
        """Two members sign up for a duel tournament of this game in a channel of its own (the first to come
        announces it) and, when `start`, someone asks to start it (only its creator may): its game opens in a
        thread, both seated; in both worlds alike (no tournament message reads a table's secret)."""
        if not self.cup:
            self.queued(CUP, who, f"/tournament new ruleset:{self.GAME} format:elimination players:2")
            self.cup = True
        for member in (who, also):
            self.queued(CUP, member, "/tournament join")
        if start:
            self.queued(CUP, who, "/tournament start")
            self.count.tournaments += 1

    @rule(who=st.sampled_from((*HUMANS, *NEWCOMERS)), also=st.sampled_from((*NEWCOMERS, SPECTATOR)),
          leave=st.booleans())
    def season(self, who: str, also: str, leave: bool) -> None:
        """A manager runs a day's season of this game in a channel of its own (each member in one game of it at
        most, of the fewest players the game starts with); two members join, and those waiting are paired at once
        into a game in a thread of it, all seated; or one leaves (their game goes on). In both worlds alike (no
        season message reads a table's secret); the clock rule ends the season and the scheduler pairs again."""
        if not self.ladder:
            self.queued(LADDER, ADMIN, f"/league new ruleset:{self.GAME} season_days:1 max_games:1", admin=True)
            self.ladder = True
        for member in (who, also):
            joined = self.queued(LADDER, member, "/league leave" if leave and member == also else "/league join")
            self.count.seasons += sum("paired" in n.reply.text for n in joined.notices)
        self.queued(LADDER, also, "/league show")

    @invariant()
    def no_season_member_past_max_games_nor_a_game_without_a_deadline(self) -> None:
        """Every running game a season paired is under a turn deadline (the autopilot plays at it) and never listed
        as an open table; no member holds a seat in more of a running season's games than its max_games."""
        store = self.a.store
        for record in self.a.run(seasons.running(store)):
            held: dict[str, int] = {}
            for paired in self.a.run(seasons.games(store, record.id)):
                game = self.a.run(store.game(paired.game_id)) if paired.game_id else None
                if game is None or game.status != "active":
                    continue
                assert TableSettings.or_defaults(game.settings).deadline_hours, ("a season game without a deadline",
                                                                                 game.id)
                listed = self.a.run(league.listed_lobbies(store, game.guild))
                assert all(shown.id != game.id for shown, _at in listed), ("a season game is listed", game.id)
                state = get_ruleset(game.ruleset).load_state(game.state)
                for member in paired.members:
                    seat = state.player(member)
                    if seat is not None and not getattr(seat, "resigned", False):
                        held[member] = held.get(member, 0) + 1
            assert all(count <= record.max_games for count in held.values()), ("past max_games", held)

    @rule(on=st.booleans())
    def rank_roles(self, on: bool) -> None:
        """A manager turns this game's rank roles on or off (issue 40 item 4), in both worlds alike; while they are
        on, the transport is played by check_rank_roles: each plan carried out as asked."""
        for world in (self.a, self.b):
            world.do(self.channel, ADMIN, f"/league roles ruleset:{self.GAME} set:{'on' if on else 'off'}",
                     admin=True)
        self.roles = on

    @invariant()
    def no_tournament_game_waits_without_a_deadline(self) -> None:
        """Every game a running tournament opened is under a turn deadline (the autopilot plays at it) until it
        ends, and none is listed as an open table."""
        store = self.a.store
        for record in self.a.run(tournaments.running(store)):
            for table in course.load(record.course).tables:
                game = self.a.run(store.game(table.game_id)) if table.game_id else None
                if game is not None and game.status == "active":
                    assert TableSettings.or_defaults(game.settings).deadline_hours, ("a tournament game without a "
                                                                                     "deadline", game.id)
                    listed = self.a.run(league.listed_lobbies(store, game.guild))
                    assert all(shown.id != game.id for shown, _at in listed), ("a tournament game is listed", game.id)

    @invariant()
    def no_muster_waits_without_a_timer(self) -> None:
        """A muster that asks anyone has a timer no later than its first asked member's own; one that asks nobody
        is an open table (an ordinary lobby) or done; nobody is held past their limit of queued games (1 here)."""
        store = self.a.store
        for muster in self.a.run(queued.gathering(store)):
            asked = [s for s in self.a.run(queued.seats_tx(store, muster.id)) if s.status == "asked"]
            if muster.status in ("opening", "mustering"):
                assert muster.due is not None, ("a muster waits without a timer", muster)
            if asked:
                assert muster.status == "mustering" and muster.due is not None and \
                    muster.due <= min(s.due or 0 for s in asked), ("an asked member outlasts the timer", muster)
        held = self.a.run(queued.queued_games_tx(store, "", [*HUMANS, *NEWCOMERS, SPECTATOR]))
        assert all(count <= 1 for count in held.values()), ("a member held past their limit", held)

    @precondition(lambda self: self.running() and self.opening.gm_rulings)
    @rule(pick=st.integers(0, 100), fork=st.booleans())
    def gm_ruling(self, pick: int, fork: bool) -> None:
        """The seated GM rules privately; when `fork`, in the first world only (the racers cannot tell)."""
        ruling = self.opening.gm_rulings[pick % len(self.opening.gm_rulings)]
        if not fork or self.fork is not None:
            self.both(GM, ruling)
            return
        reply = self.a.do(self.channel, GM, ruling)
        self.step = Step(GM, "ruling", [reply])
        self.count.steps += 1
        if reply.outcome == "applied":
            self.fork = self.seat_of(GM).name if self.seat_of(GM) else GM
            self.count.forks += 1

    @precondition(lambda self: self.running() and self.moves < 2)
    @rule()
    def move_game(self) -> None:
        """The host exports the running game and imports it into another channel: it moves there."""
        exported = self.a.do(self.channel, self.host, "/game export")
        twin = self.b.do(self.channel, self.host, "/game export")
        if exported.outcome == "refused" or not exported.files:
            return
        self.moves += 1
        there = f"c{self.moves}"
        orders = self.a.run(self.a.store.standing_orders(self.game().id))
        followers = self.a.run(self.a.store.followers(self.game().id))
        moved = self.a.do(there, self.host, Command("game import", {"file": exported.files[0].data}))
        self.b.do(there, self.host, Command("game import", {"file": twin.files[0].data}))
        assert moved.outcome == "applied", moved.text
        self.channel = there
        self.step = Step(self.host, "move_game", [moved])
        self.count.moved += 1
        game = self.game()
        assert self.a.run(self.a.store.standing_orders(game.id)) == orders, "moving dropped standing orders"
        assert self.a.run(self.a.store.followers(game.id)) == followers, "moving dropped the followers"

    @precondition(lambda self: self.running())
    @rule(hours=st.sampled_from((1.0, 6.0, 13.0, 30.0, 80.0)))
    def clock(self, hours: float) -> None:
        """Time passes (80 h: past the table's 72 h, every player is gone); whatever is due is sent in both
        worlds."""
        self.pass_time(hours * HOUR)
        self.due()

    def pass_time(self, seconds: float) -> None:
        """The test's clock and the log's stamps move on together, in both worlds."""
        self.time.now += seconds
        self.a.age_log(seconds)
        self.b.age_log(seconds)

    def due(self) -> list:
        notices = self.a.due()
        twins = self.b.due()
        if self.fork is not None and not self.views_part():
            assert [(n.channel, _face(n.reply)) for n in notices] == [(n.channel, _face(n.reply)) for n in twins], \
                "secrecy: the clock's notices differ with another's secret"
            self.compare_direct([n.reply for n in notices], [n.reply for n in twins], "the clock")
        self.step = Step("", "clock", [n.reply for n in notices])
        self.count.steps += 1
        return notices

    @precondition(lambda self: self.running() and self.deadlines)
    @rule()
    def fire_deadlines(self) -> None:
        """Past every deadline: the game moves on (liveness), once each grace (one a player) has extended it."""
        game = self.game()
        for _ in range(1 + len(HUMANS) + len(NEWCOMERS)):
            timers = self.a.run(self.a.store.timers(game.id))
            dues = [t.deadline_due for t in timers if t.deadline_due is not None]
            if not dues:
                return
            self.pass_time(max(0.0, max(dues) + 1 - self.time.now))
            self.due()
            after = self.game()
            if (after.id, after.version) != (game.id, game.version) or after.channel != self.channel:
                break
        assert (after.id, after.version) != (game.id, game.version) or after.channel != self.channel, \
            ("liveness: every deadline passed and the game did not move", self.ruleset.prompt(self.state()))

    @rule(who=st.sampled_from((SPECTATOR, *HUMANS)))
    def look(self, who: str) -> None:
        """Someone reads the table (always possible, the game over too)."""
        self.both(who, "/game status", kind="look")

    # --- the invariants ------------------------------------------------------------------------------

    @invariant()
    def table_invariants(self) -> None:
        if self.step is None:
            return
        game = self.game()
        if game is None:
            return
        self.check_authority(game)
        self.check_listing()
        self.check_pings()
        self.check_liveness(game)
        self.check_durability(game)
        self.check_secrecy(game)
        self.check_ratings()
        self.check_rank_roles()

    def check_listing(self) -> None:
        """Open tables (issue 40 item 1): /lfg lists only games in their lobby with a seat free: a game out of its
        lobby (started, moved, rolled back, ended, its rematch made by the table) never; a queued game only once
        its muster left its seats open to anyone."""
        listed = self.a.do(self.channel, SPECTATOR, "/lfg")
        assert listed.outcome == "shown", listed.text
        for button in listed.buttons:
            game = self.a.run(self.a.store.game(int(button.custom_id.split(":")[1])))
            assert game is not None and game.status == "active" and not game.moved, ("open tables: a game gone "
                                                                                      "is listed", button)
            ruleset = get_ruleset(game.ruleset)
            state = ruleset.load_state(game.state)
            assert state.phase == TablePhase.LOBBY, ("open tables: a game out of its lobby is listed", listed.text)
            if game.channel.startswith(f"{self.channel}-queue"):
                muster = self.a.run(queued.muster_in(self.a.store, game.channel))
                assert muster is not None and muster.status == "open", ("a mustering game is listed", muster)

    def check_pings(self) -> None:
        """Every ping goes where its member wants it: the channel mentions only those who keep the channel, a
        direct message goes only to a dm member (or a digest member told of a change to their seat), and a digest
        member is pinged nowhere else."""
        assert self.step is not None
        for reply in (r for top in self.step.replies for r in (top, *(n.reply for n in top.notices))):
            wrong = [m for m in reply.mentions if self.notify.get(m, "channel") != "channel"]
            assert not wrong, ("pings: the channel mentions a member who chose otherwise", wrong, reply.text[:200])
            astray = [d.player for d in reply.direct
                      if self.notify.get(d.player) != "dm" and not (reply.own_message and self.notify.get(d.player))]
            assert not astray, ("pings: a direct message to a member who did not choose dm", astray)

    def check_liveness(self, game: Any) -> None:
        state = self.ruleset.load_state(game.state)
        if game.status != "active" or self.ruleset.is_finished(state):
            return
        waiting = self.ruleset.acting_players(state)
        assert waiting, "liveness: a running game waits on nobody"
        if all(self.ruleset.is_computer(state, p) for p in waiting):   # computers play at once, unless stopped
            assert game.channel in self.a.service._table.stalled, \
                "liveness: it waits on computer seats alone, and nothing will move them"
        for player in waiting:
            seat = state.player(player)
            assert seat is not None, f"liveness: it waits on {player}, who holds no seat"
            assert not getattr(seat, "resigned", False), \
                f"liveness: it waits on {player}, who resigned ({self.ruleset.prompt(state)})"
        if not self.deadlines:
            return
        timers = {t.player: t for t in self.a.run(self.a.store.timers(game.id))}
        for player in waiting:
            if self.ruleset.is_computer(state, player):
                continue
            assert player in timers and timers[player].deadline_due is not None, \
                f"liveness: no live deadline for {player}, whom the game waits on"

    def check_ratings(self) -> None:
        """The rating (issue 40 item 3): each game that ended here was taken in once, whatever led to its end (a
        rollback, a resignation, the autopilot, an agreed result, a move), and what is stored is what a rebuild
        from the stored games gives; checked when a game ends and after a member forgets."""
        assert self.step is not None and self.a.store is not None
        store = self.a.store
        finished = tuple(self.a.run(store.driver.fetchall(
            "SELECT id FROM games WHERE status = 'finished' AND moved_to IS NULL ORDER BY id")))
        if not finished or (finished == self.rated and self.step.kind != "forget"):
            return
        self.rated = finished
        taken = self.a.run(store.driver.fetchall(
            "SELECT game_id FROM rated_games WHERE kind = 'rated' ORDER BY game_id"))
        assert taken == list(finished), ("ratings: the games that ended are not each rated once", taken, finished)
        kept = {(k, m): (mu, sigma, n) for k, m, mu, sigma, n in self.a.run(store.driver.fetchall(
            "SELECT ruleset, member, mu, sigma, games FROM ratings"))}
        again = latest(self.a.run(recomputed(store, HEAVY.run, "")))
        assert kept == {key: (r.mu, r.sigma, r.games) for key, r in again.items()}, "ratings: a rebuild differs"

    def check_rank_roles(self) -> None:
        """The rank roles (issue 40 item 4), played as the Discord transport plays them: whatever ended a game or
        forgot a member, the plan takes the tiers held to exactly those the ratings give, and a forgotten member
        holds none (their role is only left to take off)."""
        if not self.roles:
            return
        assert self.a.store is not None
        rank_roles = self.a.service.rank_roles
        plan = self.a.run(rank_roles.plan(""))
        for kind in plan.kinds:
            if kind.status == "off":
                self.a.run(rank_roles.taken_down("", kind.ruleset))
                continue
            for tier, _name in kind.to_make:
                self.a.run(rank_roles.made("", kind.ruleset, tier, f"role-{tier}"))
            self.a.run(rank_roles.held("", kind.ruleset, {c.member: c.due for c in kind.changes}))
            ratings = self.a.run(rated.ratings_of_kind(self.a.store, "", kind.ruleset))
            assert self.a.run(roles_stored.holders(self.a.store, "", kind.ruleset)) == tiers_of(ratings)
        for _role, member in plan.drops:   # forgotten: rated no more, holding no tier
            assert member not in self.a.run(roles_stored.holders(self.a.store, "", self.GAME))
            self.a.run(rank_roles.dropped("", _role, member))

    def check_durability(self, game: Any) -> None:
        assert self.a.run(self.a.service.replay_matches(game)), "durability: the log does not replay to the state"

    def check_authority(self, game: Any) -> None:
        records = self.a.log(game)
        now = [(r.seq, r.actor, r.action) for r in records]
        old = set(self.seen)
        fresh = [i for i, r in enumerate(now) if r not in old]
        self.seen = now
        step = self.step
        assert step is not None
        states: list | None = None
        for i in fresh:
            record = records[i]
            action = decoded(game, record)
            if isinstance(action, Rollback | AgreeResult):
                self.check_rollback_votes(game, records, i, action)
                continue
            if record.actor == step.user:
                if isinstance(action, SEAT_ACTIONS):
                    self.check_power_told(action, step)
                continue
            if record.actor.startswith("ai-"):
                continue
            if states is None:
                states = replayed_states(self.ruleset, game, records)
            before = states[i]
            if self.ruleset.is_computer(before, record.actor):
                continue
            if step.kind == "rematch" and before.phase == TablePhase.LOBBY:
                continue   # the rematch's lobby and start, replayed for the seats that all said yes
            if step.kind == "clock" and record.actor in self.ruleset.acting_players(before):
                continue   # the autopilot, at the player's deadline
            if record.actor in self.orders and '"ByStandingOrder"' in record.events:
                continue
            if self.ruleset.forced is not None and self.ruleset.forced_action(before, record.actor) == action:
                continue
            raise AssertionError(f"authority: {step.user or 'the clock'} ({step.kind}) applied "
                                 f"{encode_tagged(action)} for {record.actor}")

    def check_power_told(self, action: Any, step: Step) -> None:
        """A power over another's seat pings that seat's holder."""
        if isinstance(action, TakeSeat) or not getattr(action, "seat", ""):
            return
        holder = step.target
        if holder and holder != step.user and not holder.startswith("ai-"):
            told = {m for r in step.replies for m in r.mentions} | {d.player for r in step.replies for d in r.direct}
            assert holder in told, (f"authority: {step.user} used a power over {holder}'s seat "
                                    f"({type(action).__name__}) without telling them", step.replies[0].text)

    def check_rollback_votes(self, game: Any, records: list, index: int, action: Rollback | AgreeResult) -> None:
        """A rollback (or a result by agreement) applies only once every person seated (a seat the computer
        plays for them included) said yes to this very rollback (or result)."""
        state = replayed_states(self.ruleset, game, records[:index])[-1]
        people = {p.id for p in state.players if not getattr(p, "resigned", False) and not p.id.startswith("ai-")
}
        target: int | str = action.to if isinstance(action, Rollback) else action.result
        said = self.approvals.get(target, set())
        missing = people - said
        self.count.rollbacks += isinstance(action, Rollback)
        self.count.agreed += isinstance(action, AgreeResult)
        self.approvals = {}
        assert not missing, (f"authority: {type(action).__name__} {target} without the yes of {sorted(missing)} "
                             f"(yes to it: {sorted(said)})")

    def check_secrecy(self, game: Any) -> None:
        state = self.ruleset.load_state(game.state)
        running = game.status == "active" and not self.ruleset.is_finished(state)
        if running:
            self.check_seed_hidden(game)
            self.check_set_aside_hides_hands(game, state)
        if self.fork is None:
            return
        if not running or self.views_part():   # over: its export reveals the seed, and everything with it
            self.unfork()
            return
        owner = self.holder_of(self.fork)
        viewers = [SPECTATOR] + [p.id for p in state.players if p.id != owner and not p.id.startswith("ai-")]
        rollbacks = self.a.rollbacks(game)
        for viewer in viewers[:2]:
            seen_a = self.a.looks(self.channel, viewer, rollbacks)
            seen_b = self.b.looks(self.channel, viewer, rollbacks)
            for door in seen_a:
                assert seen_a[door] == seen_b[door], (f"secrecy: {viewer}'s {door} differs with {owner}'s secret",
                                                      seen_a[door][1][:300], seen_b[door][1][:300])

    def views_part(self) -> bool:
        """Whether the two worlds' games differ to the spectator by the rules' own view (a secret revealed)."""
        a, b = self.game(self.a), self.game(self.b)
        if a is None or b is None or a.status != b.status:
            return True
        sa, sb = self.ruleset.load_state(a.state), self.ruleset.load_state(b.state)
        return self.ruleset.view(sa, SPECTATOR) != self.ruleset.view(sb, SPECTATOR) or \
            self.ruleset.acting_players(sa) != self.ruleset.acting_players(sb)

    def check_seed_hidden(self, game: Any) -> None:
        seed = str(game.seed)
        for line in ("/game export", "/game status", "/game log count:100"):
            reply = self.a.do(self.channel, SPECTATOR, line)
            shown = reply.text + "".join(f.data.decode(errors="replace") for f in reply.files)
            assert seed not in shown, f"secrecy: {line} shows the dice seed of a running game"

    def check_set_aside_hides_hands(self, game: Any, state: Any) -> None:
        """No set-aside line shows a viewer an action another seat could take again now, when the game's
        legal actions show hidden things (a card played, then rolled back into its player's hand), unless the
        last rollback dealt them anew: then chance alone put the card back (Track's ruling)."""
        if not self.ruleset.private_actions or not self.a.rollbacks(game):
            return
        export = self.a.do(self.channel, SPECTATOR, "/game export")
        if not export.files:
            return
        document = json.loads(export.files[0].data)
        seen = {(a.get("actor"), json.dumps(a.get("action"), sort_keys=True))
                for line in document.get("set_aside", ()) for a in line.get("actions", ())}
        public = json.dumps(encode_tagged_state(self.ruleset.view(state, SPECTATOR)))
        for player in self.ruleset.acting_players(state):
            own = json.dumps(encode_tagged_state(self.ruleset.view(state, player)))
            for legal in self.ruleset.legal_actions(state, player):
                if legal.action is None:
                    continue
                encoded = encode_tagged(legal.action)
                hidden = [v for k, v in encoded.items() if k != "type" and isinstance(v, str) and len(v) > 1
                          and f'"{v}"' in own and f'"{v}"' not in public]   # a card only its holder sees
                key = (player, json.dumps(encoded, sort_keys=True))
                assert not hidden or key not in seen or self.dealt_anew(game), (
                    f"secrecy: a set-aside line shows the spectator {player}'s hidden {hidden}, back with them now")

    def dealt_anew(self, game: Any) -> bool:
        """Whether the game's last rollback dealt its hidden things anew: a seat's own view after it differs
        from what a rollback that keeps them (one logged without `redeal`) leaves. Every set-aside line was
        played before it, so none tells where a hidden thing lies now."""
        records = self.a.log(game)
        last = max((i for i, r in enumerate(records) if isinstance(decoded(game, r), Rollback)), default=None)
        if last is None:
            return False
        rollback = decoded(game, records[last])
        cut = replayed_states(self.ruleset, game, records[:last])[-1]
        dealt, _ = self.ruleset.apply(cut, records[last].actor, rollback)
        kept, _ = self.ruleset.apply(cut, records[last].actor, replace(rollback, redeal=False))
        return rollback.redeal and any(self.ruleset.view(dealt, p.id) != self.ruleset.view(kept, p.id)
                                       for p in cut.players)


def encode_tagged_state(state: Any) -> Any:
    return json.loads(encode_state(state))


def machine_for(game: str) -> type[TableModel]:
    return type(f"TableModel_{game}", (TableModel,), {"GAME": game})


def _settings(examples: int, steps: int) -> settings:
    return settings(max_examples=examples, stateful_step_count=steps, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck), print_blob=True)


FAST = _settings(5, 22)
SLOW = _settings(6, 40)


def _run(game: str, tier: settings) -> None:
    """Run the model of `game` for the tier's budget and print how much of the table it played."""
    COUNTS[game] = Count()
    run_state_machine_as_test(machine_for(game), settings=tier)
    count = COUNTS[game]
    print(f"{game}: {count.steps} steps over {count.examples} examples, {count.forks} forks, "
          f"{count.rollbacks} rollbacks, {count.agreed} results agreed, {count.rematches} rematches, "
          f"{count.moved} moves, {count.mustered} muster answers, {count.tournaments} tournament starts asked, "
          f"{count.seasons} season pairings")


@pytest.mark.parametrize("game", games())
def test_the_whole_table_keeps_its_invariants(game):
    _run(game, FAST)


@pytest.mark.slow
@pytest.mark.parametrize("game", games())
def test_the_whole_table_keeps_its_invariants_longer(game):
    _run(game, SLOW)


# --- what the model found on 602805d, shrunk (each fails there) ---------------------------------------------


def _table(game: str, computer: bool = False) -> TableModel:
    table = machine_for(game)()
    table.set_up(seed=0, computer=computer, deadlines=False)
    return table


def test_model_found_the_host_giving_a_seat_to_the_computer_tells_nobody():
    """Issue 36, item 3: the host hands ben's seat to the computer, and ben is not pinged (ben is gone first:
    the host may act on his seat only then)."""
    table = _table("battlecars")
    try:
        table.pass_time(73 * HOUR)
        reply = table.both("ann", "/game seat computer player:ben")
        assert reply.outcome == "applied", reply.text
        assert "ben" in reply.mentions
    finally:
        table.teardown()


def test_model_found_moving_a_game_drops_its_followers():
    """Issue 36, item 10: zed follows the game; the host moves it by its export; zed follows it no more."""
    table = _table("toy")
    try:
        table.follow("zed")
        table.move_game()
        assert table.channel == "c1"
        assert table.a.run(table.a.store.followers(table.game().id)) == [("zed", "round")]
    finally:
        table.teardown()


def test_model_found_a_plugin_games_seat_cannot_be_taken_without_a_traceback():
    """New: a plug-in game whose seat type is its own (the toy's, without the table's seat fields) raised
    AttributeError at `/game seat take`: a refusal, or the seat taken, never an exception."""
    table = _table("toy")
    try:
        assert table.both("cat", "/game seat take").outcome in ("refused", "applied")
        assert table.both("ann", "/game seat take").outcome in ("refused", "applied")
    finally:
        table.teardown()


def test_model_found_a_rollback_applies_without_the_person_whose_seat_the_computer_plays():
    """Issue 36, item 3 (its vote half): ann hands her seat to the computer; ben proposes a rollback and it
    applies at once, though the seat is ann's and so is its vote."""
    table = _table("track")
    try:
        assert table.both("ann", "/game seat computer").outcome == "applied"
        state = table.state()
        (play, *_) = [a for a in table.ruleset.legal_actions(state, "ben") if not a.command.startswith("/game")]
        assert table.both("ben", play.command).outcome == "applied"   # then the computer plays for ann
        reply = table.both("ben", f"/game rollback to:{table.public_count() - 1}")
        assert reply.outcome == "shown" and "ann" in reply.mentions, reply.text
    finally:
        table.teardown()


def test_model_found_a_racers_export_numbers_set_aside_actions_by_the_gms_private_rulings():
    """Issue 36, item 7: the GM rules privately in one world and not in the other; after the same rollback
    the spectator's export numbers the set-aside actions differently (by their stored number)."""
    table = _table("race", computer=True)
    try:
        table.gm_ruling(0, fork=True)   # /gm change:3
        assert table.fork is not None
        for pick in range(6):
            table.move(pick, fork=False)
        to = table.public_count() - 2
        for user in ("ann", "ben", GM):
            table.both(user, f"/game rollback to:{to}" if user == "ann" else "/game rollback vote:yes")
        assert table.a.rollbacks(table.game()) == 1
        exports = [json.loads(w.do(table.channel, SPECTATOR, "/game export").files[0].data)["set_aside"]
                   for w in (table.a, table.b)]
        assert exports[0] == exports[1]
    finally:
        table.teardown()


def test_model_found_a_resigned_drivers_face_down_counter_is_read_by_everyone():
    """New: ann sets her counter face down (4 in one world, 3 in the other) and resigns; the game runs on
    (ben and a computer seat), and the spectator's export shows her counter."""
    table = _table("battlecars", computer=True)
    try:
        table.move(0, fork=True)
        assert table.fork == "ann"
        table.both("ann", "/game resign confirm:yes")
        exports = [json.loads(w.do(table.channel, SPECTATOR, "/game export").files[0].data)["actions"]
                   for w in (table.a, table.b)]
        assert table.running() and exports[0] == exports[1]
    finally:
        table.teardown()


def test_model_found_a_track_rollback_shows_the_cards_back_in_a_hand():
    """Issue 36, item 1: four plays, a unanimous rollback of three: the spectator's set-aside line shows
    cards that are back in their players' hands."""
    table = _table("track")
    try:
        for pick in range(4):
            table.move(pick, fork=False)
            table.table_invariants()
        table.propose(0, 3, [(1, True, False), (4, True, False)])   # by ann, ben says yes
        assert table.a.rollbacks(table.game()) == 1
        table.check_set_aside_hides_hands(table.game(), table.state())
    finally:
        table.teardown()


def test_model_found_an_older_proposals_yes_approves_another_rollback():
    """Issue 36, item 4: ann proposes one action back, ben says no and proposes three back at the same
    position; ann's Yes on her own older message approves ben's rollback."""
    table = _table("battlecars")
    try:
        for pick in range(4):
            table.move(pick, fork=False)
        count = table.public_count()
        first = table.both("ann", f"/game rollback to:{count - 1}")
        assert table.both("ben", "/game rollback vote:no").outcome == "shown"
        assert table.both("ben", f"/game rollback to:{count - 3}").outcome == "shown"
        pressed = table.press("ann", first.buttons[0].custom_id)
        assert pressed.outcome == "refused", pressed.text   # her yes was to another rollback
    finally:
        table.teardown()


def test_model_found_a_card_dealt_anew_after_a_rollback_may_land_in_the_hand_that_played_it():
    """The model's own error (on 4ea40ba, the slow tier): ben plays 8C, then the table rolls back past it. The
    rollback deals every held card and the pile anew, and chance puts 8C in ben's hand again: the set-aside line
    naming it tells nobody that (his other cards are new), so the check asks whether the rollback dealt anew."""
    table = machine_for("track")()
    table.set_up(seed=177, computer=False, deadlines=True, grace=True, bank=True)
    try:
        for step in "ffmffff":
            table.fire_deadlines() if step == "f" else table.move(0, fork=False)
            table.table_invariants()
        held = {h.player: h.cards for h in table.state().hands}
        table.propose(9, 2, [(7, False, True), (2, True, False)], everyone=True)
        assert table.a.rollbacks(table.game()) == 1
        assert "ben played 8C" in table.a.do(table.channel, SPECTATOR, "/game log set_aside:1").text
        now = {h.player: h.cards for h in table.state().hands}
        assert "8C" in now["ben"] and now["ben"] != held["ben"] and now["ann"] != held["ann"], (held, now)
        table.table_invariants()   # the secrecy check among them
    finally:
        table.teardown()


def _checked(table: TableModel) -> None:
    """The model's invariants, as hypothesis runs them after each step."""
    table.no_muster_waits_without_a_timer()
    table.no_season_member_past_max_games_nor_a_game_without_a_deadline()
    table.no_tournament_game_waits_without_a_deadline()
    table.table_invariants()


def _replayed(steps: list[tuple[str, dict]]) -> TableModel:
    """Battlecars set up as the model did (seed 357, a computer seat), then the model's steps, each checked."""
    table = machine_for("battlecars")()
    table.set_up(seed=357, bank=True, deadlines=False, grace=False, computer=True)
    try:
        for rule, args in steps:
            getattr(TableModel, rule)(table, **args)   # the class's: `notify` is also the table's dict of choices
            _checked(table)
    except BaseException:
        table.teardown()
        raise
    return table


def test_model_found_a_member_held_in_two_queued_games():
    """Issue 40 (the slow tier, on 711843a; old: on 39987a0 too): three queued games' musters run out with one
    member each, their free seats open to /game join; dan, held by his own (his limit of one), took the first's
    seat by /game join and was held by two. Now that join is refused (the model's steps, replayed)."""
    steps = [("stray", {"pick": 2081, "who": 0}), ("queue", {"also": "cat", "answer": "/queue confirm", "who": "ann"}),
             ("seat_give", {"to": "cat", "who": "ann"}),
             ("muster_answer", {"join": True, "pick": 0, "who": "ann", "yes": False}),
             ("roll_back_together", {"back": 2, "proposer": 0}), ("vote", {"who": "ann", "yes": False}),
             ("roll_back_together", {"back": 2, "proposer": 0}),
             ("propose", {"answers": [(0, True, True), (0, True, True)], "back": 2, "everyone": False, "proposer": 0}),
             ("clock", {"hours": 80.0}), ("queue", {"also": "cat", "answer": "/queue confirm", "who": "dan"}),
             ("notify", {"how": "digest", "who": "ann"}),
             ("seat_power", {"kind": "give", "power": "admin", "seat": "ben", "to": "dan"}),
             ("propose", {"answers": [(4, True, True), (6, True, False), (5, True, True)], "back": 7,
                          "everyone": False, "proposer": 2}),
             ("queue", {"also": "zed", "answer": "/queue confirm", "who": "ben"}),
             ("notify", {"how": "dm", "who": "dan"}),
             ("seat_power", {"kind": "computer", "power": "admin", "seat": "ann", "to": "dan"}),
             ("vote", {"who": "zed", "yes": False}), ("roll_back_together", {"back": 1, "proposer": 6}),
             ("clock", {"hours": 80.0}), ("undo", {"who": "ben"})]
    table = _replayed(steps)
    try:
        first = table.musters()[0]
        joined = table.queued(first.channel, "dan", "/game join")
        assert joined.outcome == "refused" and "1 queued game at once" in joined.text, joined.text
        _checked(table)
    finally:
        table.teardown()


def test_model_found_a_musters_ping_mentions_a_member_who_chose_direct_messages():
    """Issue 40 (the slow tier, on 711843a): dan waits in the queue and chooses notify:dm; cat lets her muster's
    24 h pass and the seat is offered to dan in the thread's message, which @-mentioned him there (a muster's
    ping skipped the step that sends each ping where its member wants it): now it comes by direct message."""
    steps = [("stray", {"pick": 2081, "who": 0}), ("queue", {"also": "cat", "answer": "/queue confirm", "who": "ann"}),
             ("seat_give", {"to": "cat", "who": "ann"}),
             ("muster_answer", {"join": True, "pick": 0, "who": "ann", "yes": False}),
             ("roll_back_together", {"back": 2, "proposer": 0}), ("vote", {"who": "ann", "yes": False}),
             ("roll_back_together", {"back": 1, "proposer": 0}),
             ("propose", {"answers": [(0, True, False)], "back": 1, "everyone": False, "proposer": 0}),
             ("vote", {"who": "ann", "yes": False}), ("move_game", {}),
             ("queue", {"also": "dan", "answer": "/queue confirm", "who": "ann"}),
             ("seat_give", {"to": "cat", "who": "ann"}),
             ("stray", {"pick": 0, "who": 0}), ("queue", {"also": "dan", "answer": "/queue confirm", "who": "ann"}),
             ("move_game", {}), ("clock", {"hours": 1.0}),
             ("queue", {"also": "cat", "answer": "/queue confirm", "who": "ann"}), ("clock", {"hours": 1.0}),
             ("follow", {"who": "zed"}), ("clock", {"hours": 1.0}), ("notify", {"how": "dm", "who": "dan"}),
             ("seat_power", {"kind": "computer", "power": "host", "seat": "ann", "to": "cat"})]
    table = _replayed(steps)
    try:
        table.clock(hours=30.0)
        timed_out = [r for r in table.step.replies if "cat did not confirm" in r.text]
        assert timed_out and "dan" not in timed_out[0].mentions, [r.text for r in table.step.replies]
        assert [d.player for d in timed_out[0].direct] == ["dan"]
        _checked(table)
    finally:
        table.teardown()
