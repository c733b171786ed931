"""`usable_cpus`: `--jobs auto` counts the CPUs the process may use, which its affinity and
its cgroup's CPU quota (a container's `--cpus`) narrow, read from real cgroup files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zeroclaw_eval.runner.workers import cgroup_cpu_quota, usable_cpus


def _cgroup(tmp_path: Path, membership: str, files: dict[str, str]) -> tuple[Path, Path]:
    root = tmp_path / "sys" / "fs" / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="ascii")
    root.mkdir(parents=True, exist_ok=True)
    proc = tmp_path / "cgroup"
    proc.write_text(membership, encoding="ascii")
    return root, proc


def test_a_v2_quota_is_the_smallest_on_the_way_to_the_root(tmp_path: Path) -> None:
    root, proc = _cgroup(
        tmp_path,
        "0::/ci/job\n",
        {"ci/job/cpu.max": "max 100000\n", "ci/cpu.max": "250000 100000\n", "cpu.max": "400000 100000\n"},
    )
    assert cgroup_cpu_quota(root, proc) == 2.5


def test_a_v2_cgroup_without_a_limit_has_no_quota(tmp_path: Path) -> None:
    root, proc = _cgroup(tmp_path, "0::/ci\n", {"ci/cpu.max": "max 100000\n"})
    assert cgroup_cpu_quota(root, proc) is None


def test_a_v1_quota_is_read_from_the_cpu_controller(tmp_path: Path) -> None:
    files = {
        "cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "150000\n",
        "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n",
        "cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
        "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
    }
    root, proc = _cgroup(tmp_path, "4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n", files)
    assert cgroup_cpu_quota(root, proc) == 1.5


@pytest.mark.parametrize("membership", ["", "garbage\n", "0::/nowhere\n"])
def test_no_readable_cgroup_is_no_quota(tmp_path: Path, membership: str) -> None:
    root, proc = _cgroup(tmp_path, membership, {"nowhere/cpu.max": "x y\n"})
    assert cgroup_cpu_quota(root, proc) is None
    assert cgroup_cpu_quota(root, tmp_path / "missing") is None


def test_usable_cpus_is_at_most_the_affinity_and_at_least_one() -> None:
    assert 1 <= usable_cpus() <= len(os.sched_getaffinity(0))
