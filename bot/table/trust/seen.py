"""What a viewer may see of a game's log: the one judgement every output of the log goes through.

A running game's log may hold actions only some may read (a face-down counter, a file whose numbers
only the GM may know) and actions some may not learn were taken at all (a seated GM's private ruling); the game
says which (rules.engine.Secrets), by what each action is. The export, `/game log`, the verification
and replay replies, and the pictures' captions, trails and alt text all read the log through here, so
no output shows a viewer more than another, and none counts an action the viewer may not know of.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.storage.store import ActionRecord
from rules.codec import decode_tagged
from rules.engine import Logged, Ruleset
from rules.seats import actors_now

WITHHELD = "Withheld"   # the type an export gives an action in place of one the viewer may not read


@dataclass(frozen=True)
class SeenAction:
    """One logged action as a viewer sees it: its number as they count, and the words standing in for
    it when they may not read it."""

    number: int
    record: ActionRecord
    stand_in: str | None = None
    holder: str = ""   # who holds the action's seat now, where that is not who took it (a seat that changed hands)

    @property
    def actor(self) -> str:
        """Whose action it counts as: its seat's holder now (its taker's, for a seat that changed hands)."""
        return self.holder or self.record.actor

    def action_json(self) -> Any:
        """The action as an export writes it for this viewer."""
        if self.stand_in is None:
            return json.loads(self.record.action)
        return {"type": WITHHELD, "stands_for": self.stand_in}


def logged(ruleset: Ruleset, records: Sequence[ActionRecord]) -> list[Logged]:
    """Records as the game judges them: each action decoded."""
    return [Logged(r.seq, r.actor, decode_tagged(ruleset.actions, json.loads(r.action))) for r in records]


def hides_whole_actions(ruleset: Ruleset, state: Any) -> bool:
    """Whether some viewer may not learn of some action now: then a viewer's count of actions is made
    from the whole log (a window of it cannot say how many were left out before it)."""
    return ruleset.secrets is not None and ruleset.secrets.unseen is not None and not ruleset.is_finished(state)


def seen_log(ruleset: Ruleset, state: Any, records: Sequence[ActionRecord], viewer: str | None) -> list[SeenAction]:
    """The records `viewer` may know of, in order, numbered as they count them, those they may not read
    carrying their stand-in words. `state` is the game now; a finished game hides only what is kept for one
    player (a note). `records` is
    the whole log when hides_whole_actions, else any stretch of it; a stand-in is judged right only on a
    stretch that runs to the log's end (a secret is judged by what came after it too: a rollback that took
    it up), and `/game log`, which shows the events alone, is the one door that pages back."""
    secrets = ruleset.secrets
    if secrets is None or ruleset.is_finished(state) and secrets.kept is None:
        return [SeenAction(r.seq, r, None, _holder(r, h)) for r, h in zip(records, holders(ruleset, records))]
    entries = actors_now(logged(ruleset, records))   # judged by the seats as they are held now
    if ruleset.is_finished(state):   # over: only words meant for one player are still kept from the others
        assert secrets.kept is not None
        kept = secrets.kept(state, entries, viewer)
        return [SeenAction(r.seq, r, kept.get(r.seq), _holder(r, e.actor)) for r, e in zip(records, entries)]
    withheld = secrets.withheld(state, entries, viewer)
    if secrets.kept is not None:
        withheld = {**withheld, **secrets.kept(state, entries, viewer)}
    seen: list[SeenAction] = []
    skipped = 0
    for record, entry in zip(records, entries):
        if secrets.is_unseen(state, entry, viewer):
            skipped += 1
            continue
        seen.append(SeenAction(record.seq - skipped, record, withheld.get(record.seq), _holder(record, entry.actor)))
    return seen


def holders(ruleset: Ruleset, records: Sequence[ActionRecord]) -> list[str]:
    """Each record's actor as its seat is held now (rules.seats.actors_now), decoding only a log in which a
    seat changed hands."""
    if not any('"TakeSeat"' in r.action for r in records):
        return [r.actor for r in records]
    return [entry.actor for entry in actors_now(logged(ruleset, records))]


def _holder(record: ActionRecord, now: str) -> str:
    return "" if now == record.actor else now


def is_public(ruleset: Ruleset, state: Any, actor: str, action: Any) -> bool:
    """Whether the channel may learn that `actor` took `action` (in the game as it is after it)."""
    secrets = ruleset.secrets
    return secrets is None or ruleset.is_finished(state) or not secrets.is_unseen(state, Logged(0, actor, action), None)
