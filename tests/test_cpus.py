"""Worker processes sized from the CPUs the process may use (issue 28, item 2): its affinity and its
cgroup's quota, read from fake cgroup files here, and one CPU giving one render process for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.table.jobs import drawing
from bot.table.jobs.cpus import usable_cpus
from bot.table.jobs.drawing import process_count

ROOT = Path(__file__).resolve().parents[1]


def _cgroup(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text + "\n")
    return folder


@pytest.mark.parametrize("files, affinity, expected", [
    ({}, 8, 8),                                                       # no cgroup files: the affinity
    ({"cpu.max": "max 100000"}, 8, 8),                                # v2, no quota
    ({"cpu.max": "50000 100000"}, 8, 1),                              # --cpus 0.5
    ({"cpu.max": "250000 100000"}, 8, 3),                             # --cpus 2.5: rounded up
    ({"cpu.max": "400000 100000"}, 2, 2),                             # a quota above the affinity
    ({"cpu.max": "200000 100000"}, 1, 1),                             # --cpuset-cpus 0
    ({"cpu.max": "garbage"}, 4, 4),                                   # unreadable: ignored
    ({"cpu/cpu.cfs_quota_us": "150000", "cpu/cpu.cfs_period_us": "100000"}, 8, 2),   # v1
    ({"cpu,cpuacct/cpu.cfs_quota_us": "-1", "cpu,cpuacct/cpu.cfs_period_us": "100000"}, 6, 6),   # v1, none
    ({"cpu.max": "1000 100000"}, 8, 1),                               # never below one
])
def test_usable_cpus_is_the_fewest_of_affinity_and_quota(tmp_path, files, affinity, expected):
    assert usable_cpus(affinity=affinity, cgroup=_cgroup(tmp_path, files)) == expected


def test_this_process_has_at_least_one_cpu():
    assert 1 <= usable_cpus() <= len(__import__("os").sched_getaffinity(0))


@pytest.mark.parametrize("value, cpus, expected", [
    ("", 4, (4, 0)), ("auto", 4, (4, 0)),   # on demand: none at start, up to one per CPU
    ("", 1, (1, 0)),
    ("0", 4, (0, 0)),                       # threads only
    ("2", 4, (2, 2)), ("3", 1, (1, 1)),     # N at once, never more than the CPUs
    ("two", 2, (2, 0)), ("-1", 2, (2, 0)),
])
def test_how_many_render_processes(monkeypatch, value, cpus, expected):
    monkeypatch.setenv(drawing.ENV, value)
    monkeypatch.setattr(drawing, "usable_cpus", lambda: cpus)
    assert process_count() == expected


_ON_ONE_CPU = """
import asyncio, json, os
from pathlib import Path
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
from bot.cli.bench_memory import children
from bot.table.jobs.cpus import usable_cpus
from bot.table.jobs.drawing import RenderProcesses

async def main():
    pool = RenderProcesses.configured()
    try:
        await pool.warm()   # every render process it may use, started and warm
        for _ in range(8):  # and pictures that overlap ask for no more
            await asyncio.gather(*(pool.draw(os.getpid) for _ in range(4)))
        renders = [pid for pid in children(os.getpid()) if pid != pool.zygote_pid   # the one they are forked from
                   and b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()]
        return {"cpus": usable_cpus(), "most": pool.processes, "render_processes": len(renders)}
    finally:
        pool.close()

print(json.dumps(asyncio.run(main())))
"""


@pytest.mark.slow   # starts a render process
@pytest.mark.parametrize("setting", ["", "4"])
def test_one_cpu_gives_one_render_process(setting):
    """A bot pinned to one CPU (as under `taskset -c 0` or `--cpuset-cpus 0`) may use one render process,
    and starts no more, however busy (every process it may use is started here) or configured."""
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT), drawing.ENV: setting}
    done = subprocess.run([sys.executable, "-c", _ON_ONE_CPU], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    counted = json.loads(done.stdout.strip().splitlines()[-1])
    assert counted == {"cpus": 1, "most": 1, "render_processes": 1}, counted
