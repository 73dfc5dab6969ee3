"""The track game's phases and the actions each allows (seed 002)."""

from __future__ import annotations

from enum import StrEnum

from rules.phases import PhaseTable
from rules.track.actions import AddComputer, Discard, EndGame, Join, PlayCard, Start, TakeOver


class TrackPhase(StrEnum):
    """Where a track game is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"  # seats open, the host starts
    PLAY = "play"  # the cards are dealt: players take turns
    FINISHED = "finished"


SEATS_CLOSED = "The game has already started; seats are closed."

PHASES = PhaseTable(
    TrackPhase,
    allows={
        TrackPhase.LOBBY: (Join, AddComputer, Start, EndGame, TakeOver),
        TrackPhase.PLAY: (PlayCard, Discard, EndGame, TakeOver),
        TrackPhase.FINISHED: (),
    },
    expects={
        TrackPhase.LOBBY: "The game has not started yet; the host uses /game start.",
        TrackPhase.PLAY: "The cards are dealt: /play a card, or /discard one when none can move.",
    },
    refusals={Join: SEATS_CLOSED, AddComputer: SEATS_CLOSED, Start: "The game has already started."},
    over=(TrackPhase.FINISHED,),
    turn_actions=(PlayCard, Discard),
)
