"""How many CPUs this process may use: its affinity and its cgroup's CPU quota, not the host's cores."""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def _quota_v2(root: Path) -> float | None:
    """cgroup v2's cpu.max ("QUOTA PERIOD", or "max PERIOD" for none) as CPUs; None when unlimited or absent."""
    try:
        quota, period = (root / "cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max" or not quota.isdigit() or not period.isdigit() or int(period) == 0:
        return None
    return int(quota) / int(period)


def _quota_v1(root: Path) -> float | None:
    """cgroup v1's cpu.cfs_quota_us / cpu.cfs_period_us as CPUs; None when unlimited (-1) or absent."""
    for folder in (root / "cpu", root / "cpu,cpuacct", root):
        try:
            quota = int((folder / "cpu.cfs_quota_us").read_text())
            period = int((folder / "cpu.cfs_period_us").read_text())
        except (OSError, ValueError):
            continue
        return quota / period if quota > 0 and period > 0 else None
    return None


def usable_cpus(affinity: int | None = None, cgroup: Path = CGROUP) -> int:
    """The CPUs this process may run on: the fewest of its affinity (os.sched_getaffinity) and its
    cgroup's quota (v2 cpu.max, else v1 cfs quota/period), a fraction rounded up, at least 1."""
    if affinity is None:
        try:
            affinity = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):   # not Linux
            affinity = os.cpu_count() or 1
    quota = _quota_v2(cgroup)
    if quota is None:
        quota = _quota_v1(cgroup)
    limits = [affinity] + ([math.ceil(quota)] if quota is not None else [])
    return max(1, min(limits))
