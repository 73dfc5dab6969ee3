"""The race's actions: what a racer, the host or the game master asks the referee to do."""

from __future__ import annotations

from dataclasses import dataclass

from rules.codec import Registry
from rules.table import EndGame as EndGame  # shared actions
from rules.table import TakeOver as TakeOver
from rules.table import register_table_actions

ACTIONS = Registry()
register_table_actions(ACTIONS)


@ACTIONS.register
@dataclass(frozen=True)
class Join:
    """Take a seat: a pilot and a vehicle (empty: the first of each)."""

    name: str
    pilot: str = ""
    vehicle: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class AddComputer:
    """The host seats a computer racer."""

    pilot: str = ""
    vehicle: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class BecomeGm:
    """Before the start, the host seats a human game master (themselves or another player id)."""

    player: str


@ACTIONS.register
@dataclass(frozen=True)
class AddCustom:
    """In the lobby the host adds the group's own vehicles and racers: a TOML or JSON text with
    [vehicles.ID] and [racers.ID] tables, checked as the game's own data files are."""

    text: str


@ACTIONS.register
@dataclass(frozen=True)
class Start:
    """Close the lobby (host only): fine-tuning, if the table allows it, then the start."""


@ACTIONS.register
@dataclass(frozen=True)
class Tune:
    """Before the race: try to fine-tune one of the vehicle's physical abilities, or ('') be ready."""

    ability: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class GmChange:
    """A seated GM changes the next section's DC by `delta` before revealing it."""

    delta: int


@ACTIONS.register
@dataclass(frozen=True)
class GmCondition:
    """A seated GM adds a condition to the next section (at or from `altitude` m; 0: everywhere) or,
    with `remove`, takes one of that kind away, before revealing it."""

    kind: str
    altitude: int = 0
    remove: bool = False


@ACTIONS.register
@dataclass(frozen=True)
class GmReveal:
    """A seated GM reveals the next section: the racers get its description."""


@ACTIONS.register
@dataclass(frozen=True)
class GmRule:
    """A seated GM approves or refuses the action waiting on them."""

    approve: bool


@ACTIONS.register
@dataclass(frozen=True)
class GmReward:
    """A seated GM gives a racer an off-track reward (seed, Show off: "rewards as deemed appropriate by GM")."""

    racer: str
    reward: str


@ACTIONS.register
@dataclass(frozen=True)
class GmTell:
    """A seated GM sends one racer a private note (a table feature, not a rule): only that racer's player
    and the GM read `text`; everyone else learns only that the GM told them something."""

    racer: str
    text: str


@ACTIONS.register
@dataclass(frozen=True)
class Prepare:
    """Before the section's check: brake (down to `to` km/h at most; 0: as the roll allows, not below
    300), and change altitude: `descend` metres down, or `climb` metres up (only with a brake)."""

    brake: bool = False
    to: int = 0
    descend: int = 0
    climb: int = 0


@ACTIONS.register
@dataclass(frozen=True)
class Throttle:
    """After making the section's check: accelerate (up to `to` km/h; 0: as far as the roll goes), or
    not; `climb` metres bought with speed."""

    accelerate: bool = True
    to: int = 0
    climb: int = 0


@ACTIONS.register
@dataclass(frozen=True)
class TryFeature:
    """Try for the feature now resolving (contact a positive one, avoid a negative one), or not; first
    drop `descend` metres (seed: altitude may be reduced "before making any Piloting check")."""

    attempt: bool
    descend: int = 0


@ACTIONS.register
@dataclass(frozen=True)
class Act:
    """The racer's action in the action phase (an action_words.MANEUVERS word); `then` is the maneuver after a feint;
    `target` a racer for an attack, `weapon` the weapon it uses (a vehicle weapon's name or 'sidearm';
    empty: the first that can); `descend` metres dropped first, before a Piloting check."""

    maneuver: str
    then: str = ""
    target: str = ""
    descend: int = 0
    weapon: str = ""


@ACTIONS.register
@dataclass(frozen=True)
class React:
    """The targeted racer's reaction (an action_words.REACTIONS word); `brake` brakes as part of a dodge; `descend`
    metres dropped first, before its Piloting check."""

    reaction: str
    brake: bool = False
    descend: int = 0


@ACTIONS.register
@dataclass(frozen=True)
class Stabilize:
    """A racer side swept into the hazard brakes 20 km/h to stabilize (seed), or not."""

    attempt: bool
