"""The order xdist's workers run the suite in: each worker's share of the work alike, its longest tests first.

`--dist worksteal` hands the i-th of N workers the i-th of N equal runs of the collection, then an idle worker
takes the back half of the longest queue (by count). In collection order the first run held the whole
end-to-end tier (68 tests that mostly wait on a bot and the fake Discord: ~1 s of CPU and 3-5 s of waiting
each on a quiet machine) and ran it one test after another. Here the collection is cut into those same N
runs, each given an equal share of the estimated time, its longest tests first and the quick ones at its
back (where stealing takes from), its end-to-end tests spread evenly through it: were they together, every
worker would wait at once and leave the cores idle. Only where and when a test runs changes, never what
it checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

# Seconds each of the longest tests took in a whole-suite run at -n 5 on a busy machine (load ~10); the
# others by tier below. Estimates for ordering only: a renamed or new test falls back to its tier's figure.
_TOURNAMENT = "test_tournaments.py::test_a_tournament_of_four_plays_out_by_computer_seats_to_a_final_table"
LONGEST = {
    "test_cli.py::test_bench_prints_every_figure": 100,
    f"{_TOURNAMENT}[postgres-elimination-3]": 34,
    "test_cli.py::test_the_bench_ends_with_every_commands_worst_loop_hold": 60,
    "test_crash.py::test_sigkill_at_random_moments_loses_nothing_acknowledged": 50,
    "test_e2e_long_games.py::test_a_two_player_game_is_played_to_the_end_with_buttons_only": 50,
    "test_e2e_long_games.py::test_a_due_reminder_is_sent_exactly_once_across_a_sigkill": 45,
    "test_e2e_long_games.py::test_two_shard_processes_on_one_database_serve_one_bot": 29,
    "test_e2e_tournament.py::test_a_tournament_of_four_is_played_out_by_the_computer_to_its_final_table": 46,
    "test_tournaments.py::test_the_command_line_plays_a_tournament_of_four_to_its_final_table": 14,
    "test_e2e_heavy_jobs.py::test_heavy_jobs_leave_other_channels_answered_while_they_run": 42,
    "test_e2e_hung_workers.py::test_stopped_workers_freeze_no_channel_and_lose_nothing": 42,
    "test_cli.py::test_scripted_game_through_exec": 14,
    "test_e2e_rematch.py::test_the_final_messages_rematch_button_and_the_answers_start_the_new_game": 35,
    "test_secrets.py::test_battlecars_counters_are_the_same_to_everyone_else_whatever_they_say": 33,
    "test_cli.py::test_backup_and_verify_while_games_are_being_played": 22,
    "test_e2e_rate_limits.py::test_many_channels_move_through_interactions_without_a_global_429": 30,
    "test_e2e_track.py::test_a_track_game_is_played_from_private_hands": 29,
    "test_track_rules.py::test_random_playout_fuzz_finishes_and_replays_exactly": 55,
    "test_cli.py::test_run_checks_its_shard_range_before_anything_else": 25,
    "test_secrets.py::test_a_gms_private_rulings_look_the_same_to_racers_however_many_and_whatever_they_are": 22,
    "test_closeup.py::test_four_hundred_self_played_positions_make_close_ups_a_phone_reads": 21,
    # measured again at -n 5 with load 12-14 (2,449 tests)
    "test_seasons.py::test_a_season_pairs_waiting_members_within_max_games_and_ends_with_standings_by_rating"
    "[postgres]": 40,
    "test_table_model.py::test_the_whole_table_keeps_its_invariants_longer[speedway]": 57,
    "test_secrets.py::test_no_games_dice_seed_reaches_an_output_before_the_end[track]": 51,
    "test_png.py::test_the_same_states_give_the_same_bytes_in_two_processes": 49,
    "test_secrets.py::test_another_hands_cards_look_the_same_to_everyone_else": 45,
    "test_e2e_week.py::test_a_week_in_four_zones_pings_nobody_in_their_away_hours": 36,
    "test_store_service.py::test_parallel_processes_lose_no_update": 32,
    "test_e2e_privacy.py::test_a_blocked_press_is_refused_and_a_member_forgets_after_the_game": 35,
    "test_plugin_toy.py::test_the_toy_plays_from_the_command_line": 6,
}
E2E_SECONDS, SLOW_SECONDS, FAST_SECONDS = 12.0, 4.0, 0.25


def estimate(item: pytest.Item, e2e: bool, slow: bool) -> float:
    """A test's expected seconds: its own figure above (with or without its parameters), or its tier's."""
    name = item.nodeid.rsplit("/", 1)[-1]
    for key in (name, name.split("[", 1)[0]):
        if key in LONGEST:
            return LONGEST[key]
    return E2E_SECONDS if e2e else SLOW_SECONDS if slow else FAST_SECONDS


def _shares_a_module_fixture(item: pytest.Item) -> bool:
    """Whether the test uses a fixture made once a module (which splitting the module would make again)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = getattr(info, "name2fixturedefs", {}) or {}
    return any(getattr(d[-1], "scope", "function") in ("module", "package", "class") for d in defs.values() if d)


def run_sizes(count: int, workers: int) -> list[int]:
    """How many tests worksteal's first hand-out gives each worker: the rest split evenly, one after another."""
    sizes = []
    for i in range(workers):
        sizes.append(count // (workers - i))
        count -= sizes[-1]
    return sizes


def balanced(items: Sequence[pytest.Item], workers: int, e2e_dir: Path) -> list[pytest.Item]:
    """The items in N runs of worksteal's sizes, each run's estimated time alike (longest-first greedy),
    longest tests first within each run. A slow test is placed on its own; the fast tests of a module,
    and any test on a module-wide fixture, stay together (cut only to fill a run to its size)."""
    groups: dict[str, list[pytest.Item]] = {}
    weights: dict[str, float] = {}
    waiting: set[str] = set()   # the end-to-end tests' groups
    for item in items:
        e2e = e2e_dir in Path(item.fspath).parents
        slow = item.get_closest_marker("slow") is not None
        alone = (e2e or slow) and not _shares_a_module_fixture(item)
        key = item.nodeid if alone else item.nodeid.split("::", 1)[0]
        groups.setdefault(key, []).append(item)
        weights[key] = weights.get(key, 0.0) + estimate(item, e2e, slow)
        if e2e:
            waiting.add(key)
    sizes = run_sizes(len(items), workers)
    runs: list[list[tuple[float, list[pytest.Item], bool]]] = [[] for _ in sizes]
    loads, room = [0.0] * len(sizes), list(sizes)
    for key in sorted(groups, key=lambda k: -weights[k]):   # stable: ties keep the collection's order
        rest, each = groups[key], weights[key] / len(groups[key])
        while rest:
            fits = [i for i in range(len(runs)) if room[i] >= len(rest)] or [i for i in range(len(runs)) if room[i]]
            target = min(fits, key=lambda i: loads[i])
            taken, rest = rest[:room[target]], rest[room[target]:]
            runs[target].append((each * len(taken), taken, key in waiting))
            loads[target] += each * len(taken)
            room[target] -= len(taken)
    ordered: list[pytest.Item] = []
    for run in runs:
        ordered.extend(_spread(sorted(run, key=lambda part: -part[0])))
    return ordered


def _spread(parts: list[tuple[float, list[pytest.Item], bool]]) -> list[pytest.Item]:
    """One run's parts, longest first, its waiting (end-to-end) parts spread evenly over its estimated time:
    the next part is from whichever kind has run the smaller share of its own total so far."""
    kinds = [[p for p in parts if p[2]], [p for p in parts if not p[2]]]
    totals = [sum(p[0] for p in kind) or 1.0 for kind in kinds]
    done, taken, ordered = [0.0, 0.0], [0, 0], []
    while taken[0] < len(kinds[0]) or taken[1] < len(kinds[1]):
        shares = [done[k] / totals[k] if taken[k] < len(kinds[k]) else 2.0 for k in (0, 1)]
        k = 0 if shares[0] <= shares[1] else 1
        weight, items, _waits = kinds[k][taken[k]]
        ordered.extend(items)
        done[k] += weight
        taken[k] += 1
    return ordered


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """The controller tells each worker how it hands out tests (a worker's own `--dist` option reads "no")."""
    node.workerinput["pitboss_dist"] = node.config.getoption("dist", None)


@pytest.hookimpl(trylast=True)   # after the tiers are marked and `-m` has deselected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    workerinput = getattr(config, "workerinput", None)   # only on an xdist worker; every worker orders alike
    if workerinput is None or workerinput.get("pitboss_dist") != "worksteal" or not items:
        return
    items[:] = balanced(items, int(workerinput["workercount"]), Path(__file__).resolve().parent / "e2e")
