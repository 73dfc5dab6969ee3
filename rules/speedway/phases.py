"""Speedway's phases and the actions each allows (seed: Player Turns, Upkeep and Movement)."""

from __future__ import annotations

from enum import StrEnum

from rules.phases import PhaseTable
from rules.speedway.actions import (
    AddComputer,
    AnswerSkid,
    ChooseRam,
    Drop,
    EndGame,
    EndTurn,
    Fire,
    Join,
    Move,
    SetSpeed,
    Start,
    TakeOver,
)


class SpeedwayPhase(StrEnum):
    """Where a Speedway game is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"  # seats open, the host starts
    UPKEEP = "upkeep"  # the active player sets each car's speed
    MOVEMENT = "movement"  # the active car moves, fires and drops
    SKID = "skid"  # a maneuver's skid (or swipe chance) waits for an answer
    RAM = "ram"  # the ramming roll-off's winner picks an outcome
    FINISHED = "finished"


# The phases of a game under way: a player is being waited on.
RUNNING = frozenset((SpeedwayPhase.UPKEEP, SpeedwayPhase.MOVEMENT, SpeedwayPhase.SKID, SpeedwayPhase.RAM))
_TABLE_ACTIONS = (EndGame, TakeOver)
SEATS_CLOSED = "The game has already started; seats are closed."
NOT_STARTED = "The game has not started yet; the host uses /game start."

PHASES = PhaseTable(
    SpeedwayPhase,
    allows={
        SpeedwayPhase.LOBBY: (Join, AddComputer, Start, *_TABLE_ACTIONS),
        SpeedwayPhase.UPKEEP: (SetSpeed, *_TABLE_ACTIONS),
        SpeedwayPhase.MOVEMENT: (Move, Fire, Drop, EndTurn, *_TABLE_ACTIONS),
        SpeedwayPhase.SKID: (AnswerSkid, *_TABLE_ACTIONS),
        SpeedwayPhase.RAM: (ChooseRam, *_TABLE_ACTIONS),
        SpeedwayPhase.FINISHED: (),
    },
    expects={
        SpeedwayPhase.LOBBY: NOT_STARTED,
        # Said only to the player the game waits on (see `turn_actions`).
        SpeedwayPhase.UPKEEP: "The game is in upkeep: set your speed with /speed.",
        SpeedwayPhase.MOVEMENT: "The game is in movement: /move, /fire, /drop, or /end the turn.",
        SpeedwayPhase.SKID: "The game is in a skid: answer it with /skid.",
        SpeedwayPhase.RAM: "The game is at a ram: pick /ram outcome:A or /ram outcome:B.",
    },
    refusals={
        Join: SEATS_CLOSED,
        AddComputer: SEATS_CLOSED,
        Start: "The game has already started.",
        ChooseRam: "There is no ramming outcome to choose.",
    },
    over=(SpeedwayPhase.FINISHED,),
    turn_actions=(SetSpeed, Move, AnswerSkid, Fire, Drop, EndTurn),
)
