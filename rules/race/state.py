"""The race's state: the seats, each racer's vehicle as it stands (speed, altitude, hull points), the move
order, and where the race stands (lap, section, step of the section). Immutable; replaying the action
log from the dice seed rebuilds it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from typing import ClassVar

from rules.codec import added_field
from rules.dice import DiceState
from rules.race import data
from rules.table import Player as Player  # the shared seat
from rules.table import required


class Phase(StrEnum):
    """Where a race is; the values are what a stored snapshot holds."""

    LOBBY = "lobby"
    TUNE = "tune"              # before the race: fine-tuning attempts
    GM = "gm"                  # a seated GM readies the next section, then reveals it
    PREPARE = "prepare"        # racers may brake or descend before the section's Piloting check
    ACCELERATE = "accelerate"  # racers who made the check may accelerate (and climb)
    FEATURE = "feature"        # racers choose whether to try for a feature (contact or avoid)
    ACTION = "action"          # the action phase, last to first in the move order
    REACTION = "reaction"      # the racer an action targets chooses its reaction
    STABILIZE = "stabilize"    # a racer side swept may brake to stabilize
    APPROVAL = "approval"      # a seated GM approves or refuses an action that needs it
    FINISHED = "finished"


# Simultaneous phases: every racer still in the race who has not yet answered is waited on.
TOGETHER = (Phase.TUNE, Phase.PREPARE, Phase.ACCELERATE, Phase.FEATURE)


@dataclass(frozen=True)
class Racer:
    """A racer on the track: pilot, vehicle and how they stand."""

    player_ids: ClassVar[tuple[str, ...]] = ("owner",)

    id: str               # r1, r2, ...
    owner: str            # the seat's player id
    name: str
    pilot: str            # racer spec id
    vehicle: str          # vehicle spec id
    colour: int
    hp: int
    speed: int = 300
    altitude: int = 1
    bonus: int = 0                 # seed: +1/+2 on the next Piloting check after losing speed
    advantage: bool = False        # Savvy: advantage on the next section's Piloting check
    penalty: int = 0               # hand weapons: a penalty on the next Piloting check
    tuned: tuple[str, ...] = ()    # abilities whose vehicle roll is fine-tuned (+1)
    tunes_left: int = 0
    answered: bool = False         # answered the current simultaneous step
    made_check: bool = False       # made this section's Piloting check (may accelerate)
    trying: bool = False           # chose to try for the current feature
    sprung: bool = False           # went over the trampoline this section (a gap needs half)
    sees_traps: tuple[str, ...] = ()   # "section:feature" boost traps this racer's passive Perception sees
    acted: bool = False
    reacted: bool = False          # ruling: one reaction a section
    out: str = ""                  # why the racer is out: "wrecked", "disqualified", "fell"; "" racing
    out_order: int = 0             # the order racers went out in (1 first), for the standings


@dataclass(frozen=True)
class Pending:
    """An action waiting on someone else: the target's reaction, a GM's approval, a stabilize choice."""

    kind: str          # pass, forced_pass, ram, sweep, attack_back, stabilize, approve
    actor: str         # racer id: who acts (for stabilize, who swept)
    target: str        # racer id: who answers (for stabilize, who was swept)
    feint: str = ""    # "won" (actor has advantage), "lost" (the target has advantage), "" none
    weapon: str = ""   # approve: the weapon the waiting attack names
    approved: bool = False   # a seated GM approved the action: the judges do not look
    roll: int = 0      # stabilize: the Piloting total the Dexterity roll must reach
    then: str = ""     # approve: the maneuver waiting on the GM ("react" for a weapon reaction to a pass)
    refused: bool = False           # a weapon reaction the GM refused: not asked for again
    waiting: Pending | None = None  # approve of a reaction: the pass it answers, resumed after the ruling
    descend: int = added_field(0)   # approve (revision 5): the dive asked before the maneuver, made once approved


@dataclass(frozen=True)
class GmNote:
    """A seated GM's private note to a racer (/gm tell), and where the race stood when it was sent."""

    racer: str    # racer id
    text: str     # cleaned as every free text is
    lap: int = 0
    section: int = 0


@dataclass(frozen=True)
class RaceState:
    """Everything a race is."""

    player_ids: ClassVar[tuple[str, ...]] = ("gm", "winner")

    track: str
    host: str
    dice: DiceState
    revision: int = 1
    players: tuple[Player, ...] = ()
    seats: tuple[tuple[str, str, str], ...] = ()   # (player, pilot id, vehicle id) as chosen in the lobby
    gm: str | None = None          # a seated human GM; None: the bot referees by the data
    tune_attempts: int = 1
    phase: Phase = Phase.LOBBY
    racers: tuple[Racer, ...] = ()
    order: tuple[str, ...] = ()    # racer ids, first place first
    lap: int = 0
    section: int = 0
    feature_stage: str = ""        # "before" or "after" the action phase
    feature: int = 0               # index of the feature being resolved
    action_order: tuple[str, ...] = ()   # fixed at the start of the action phase, last to first
    pending: Pending | None = None
    dc_changes: tuple[tuple[int, int], ...] = ()   # a seated GM's change to a section's DC: (section, delta)
    step: int = 0                  # counts racers going out
    custom_vehicles: tuple[data.VehicleSpec, ...] = ()   # a group's own vehicles, checked as the files are
    custom_pilots: tuple[data.RacerSpec, ...] = ()
    custom_track: data.Track | None = None   # a group's own track, replacing the one chosen at /game new
    hidden: bool = False           # a view: what the viewer may not see is blanked
    winner: str | None = None
    ended_by: str | None = None
    agreed: str = added_field("")   # a result the table agreed to (rules.table.AgreeResult): "draw", "end"
    notes: tuple[GmNote, ...] = added_field(())   # the GM's private notes (a view keeps the viewer's own)


    @property
    def round(self) -> int:
        """Sections raced before the current one (what the shell counts as rounds)."""
        return self.lap * len(self.the_track.sections) + self.section

    def player(self, player_id: str | None) -> Player | None:
        return next((p for p in self.players if p.id == player_id), None)

    def seat(self, player_id: str) -> Player:
        """The seated player of that id (KeyError when there is none: a bug)."""
        return required(self.player(player_id), player_id)

    def racer(self, racer_id: str) -> Racer:
        """The racer of that id (KeyError when there is none: a bug, never a player's mistake)."""
        for racer in self.racers:
            if racer.id == racer_id:
                return racer
        raise KeyError(racer_id)

    def racer_of(self, player_id: str | None) -> Racer | None:
        return next((r for r in self.racers if r.owner == player_id), None)

    def racer_for(self, player_id: str) -> Racer:
        """The player's racer, for a player the race waits on (KeyError when there is none: a bug)."""
        return required(self.racer_of(player_id), player_id)

    def with_racer(self, racer: Racer) -> RaceState:
        return replace(self, racers=tuple(racer if r.id == racer.id else r for r in self.racers))

    def vehicle_spec(self, racer: Racer) -> data.VehicleSpec:
        """A racer's vehicle: the group's own by that id first, else the default."""
        return next((v for v in self.custom_vehicles if v.id == racer.vehicle), None) or data.vehicles()[racer.vehicle]

    def pilot_spec(self, racer: Racer) -> data.RacerSpec:
        """A racer's stat block: the group's own by that id first, else the default."""
        return next((p for p in self.custom_pilots if p.id == racer.pilot), None) or data.racers()[racer.pilot]

    @property
    def the_pending(self) -> Pending:
        """The action waiting on someone (the reaction, stabilize and approval phases always hold one)."""
        return required(self.pending, f"nothing is pending in the {self.phase} phase")

    @property
    def the_track(self) -> data.Track:
        return self.custom_track or data.track(self.track)

    @property
    def the_section(self) -> data.Section:
        return self.the_track.sections[self.section]

    def racing(self) -> tuple[Racer, ...]:
        """The racers still in the race, in move order."""
        return tuple(self.racer(r) for r in self.order if not self.racer(r).out)

    def position(self, racer_id: str) -> int:
        """A racer's place in the move order among those racing (1 first)."""
        return [r.id for r in self.racing()].index(racer_id) + 1

    def ahead_of(self, racer_id: str) -> Racer | None:
        """The racer just ahead in the move order, or None for the leader."""
        ids = [r.id for r in self.racing()]
        at = ids.index(racer_id)
        return self.racer(ids[at - 1]) if at > 0 else None

    def behind(self, racer_id: str) -> Racer | None:
        """The racer just behind in the move order, or None for the last."""
        ids = [r.id for r in self.racing()]
        at = ids.index(racer_id)
        return self.racer(ids[at + 1]) if at + 1 < len(ids) else None
