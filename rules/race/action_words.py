"""The words /act and /react take (the command grammar reads them without loading the game's rules)."""

from __future__ import annotations

# The racer actions of the action phase (seed, "Racer Actions and Reactions"), by the word /act takes.
MANEUVERS = ("show_off", "savvy", "patch", "turbo", "emergency_brake", "pass", "ram", "sweep", "attack", "feint",
             "none")
# The reactions (seed, Table 3), by the word /react takes; "none" lets the opposed check stand alone.
REACTIONS = ("block", "sweep", "dodge", "attack", "none")
