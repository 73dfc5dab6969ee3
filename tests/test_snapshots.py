"""The decoded-snapshot cache: a hit is what decoding gives, other text is decoded afresh, the oldest go."""

from __future__ import annotations

from bot.table.service.snapshots import DecodedSnapshots
from rules.codec import encode_state
from rules.speedway.ruleset import SPEEDWAY
from tests.speedway_fixtures import started


class Counting:
    """A ruleset whose decodes are counted."""

    def __init__(self, ruleset):
        self.id, self.decoded, self._ruleset = ruleset.id, 0, ruleset

    def load_state(self, text):
        self.decoded += 1
        return self._ruleset.load_state(text)


def test_a_snapshot_is_decoded_once_and_other_text_again():
    ruleset = Counting(SPEEDWAY)
    cache = DecodedSnapshots()
    first, second = encode_state(started()), encode_state(started(("ann", "ben", "cat")))
    assert cache.load(ruleset, first) == SPEEDWAY.load_state(first)
    assert cache.load(ruleset, first) is cache.load(ruleset, first)
    assert ruleset.decoded == 1
    assert cache.load(ruleset, second) == SPEEDWAY.load_state(second) and ruleset.decoded == 2


def test_a_written_state_is_remembered_and_the_oldest_forgotten():
    ruleset = Counting(SPEEDWAY)
    cache = DecodedSnapshots(kept=2)
    states = [started(names) for names in (("a", "b"), ("a", "c"), ("a", "d"))]
    texts = [encode_state(state) for state in states]
    for text, state in zip(texts, states):
        cache.remember(ruleset, text, state)
    assert cache.load(ruleset, texts[2]) is states[2] and cache.load(ruleset, texts[1]) is states[1]
    assert ruleset.decoded == 0
    assert cache.load(ruleset, texts[0]) == states[0] and ruleset.decoded == 1   # it had been dropped


def test_encoding_remembers_unchanged_parts_and_still_writes_every_change():
    """A state's frozen parts are encoded once and reused by identity: along whole self-played games of
    every game, each snapshot is the text a fresh encoder writes."""
    import rules.codec as codec
    from tests.render_frames import game_frames

    frames = game_frames(every=1)
    remembered = [encode_state(view) for _, view, _ in frames]
    fresh = []
    for _, view, _ in frames:
        codec.forget_plain_forms()
        fresh.append(encode_state(view))
    assert remembered == fresh and len(set(remembered)) > len(frames) // 2


def test_kept_plain_forms_stay_within_two_generations_and_the_parts_still_shared_are_kept(monkeypatch):
    """The forms no later state shares (replaced parts, events) are let go; those of the states in play stay."""
    import rules.codec as codec
    from tests.render_frames import game_frames

    monkeypatch.setattr(codec, "PLAIN_KEPT", 64)
    codec.forget_plain_forms()
    views = [view for _, view, _ in game_frames(every=1)]
    held = views[0]
    for view in views:
        codec.to_plain(held)   # a game still in play, moved now and then
        encode_state(view)
        assert len(codec._YOUNG) + len(codec._OLD) <= 2 * 64
    assert codec.to_plain(held) is codec.to_plain(held)   # still kept: its form is not made again
    assert codec._known_plain(views[1]) is None   # a state long gone from play: let go
    kept = codec.to_plain(held)
    codec.forget_plain_forms()
    assert codec.to_plain(held) is not kept and codec.to_plain(held) == kept   # made again, the same
