"""`zeroclaw_eval._support.files`: a file is written whole or not at all, and no temporary
sibling outlives its writer."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.builders import pipe_reader
from zeroclaw_eval._support.files import TEMP_TAG, write_atomic, write_atomic_pieces


def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_write_leaves_only_the_target(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "eval.json"
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(target.parent) == ["eval.json"]


def test_a_failed_write_removes_its_temporary_sibling_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "eval.json"
    target.write_bytes(b"old")

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt  # a signal the CLI turned into an exception, mid-write

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, b"new")
    assert os.listdir(tmp_path) == ["eval.json"]
    assert target.read_bytes() == b"old"


@pytest.mark.skipif(os.name != "posix", reason="whether a process lives is asked with kill(pid, 0)")
def test_a_temporary_sibling_a_killed_writer_left_is_removed_by_the_next_write(tmp_path: Path) -> None:
    # SIGKILL runs no clean-up: the sibling stays until the next write of the same target.
    target = tmp_path / "eval.json"
    stale = tmp_path / f".eval.json.{TEMP_TAG}-{_dead_pid()}-abc.tmp"
    live = tmp_path / f".eval.json.{TEMP_TAG}-{os.getppid()}-def.tmp"  # a writer still at work
    other = tmp_path / f".eval.html.{TEMP_TAG}-{_dead_pid()}-ghi.tmp"  # another target's
    foreign = tmp_path / ".eval.json.xyz.tmp"  # not ours at all
    for path in (stale, live, other, foreign):
        path.write_bytes(b"half")
    write_atomic(target, b"new")
    assert sorted(os.listdir(tmp_path)) == sorted(["eval.json", live.name, other.name, foreign.name])


def test_pieces_are_written_one_after_another(tmp_path: Path) -> None:
    target = tmp_path / "eval.json"
    write_atomic_pieces(target, iter([b"one ", b"two ", b"three"]))
    assert target.read_bytes() == b"one two three"
    assert list(tmp_path.iterdir()) == [target]


def test_pieces_that_fail_half_way_leave_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "eval.json"
    target.write_bytes(b"old")

    def failing() -> Iterator[bytes]:
        yield b"new, half of it"
        raise RuntimeError("the reporter broke")

    with pytest.raises(RuntimeError, match="the reporter broke"):
        write_atomic_pieces(target, failing())
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes (POSIX)")
def test_a_target_that_is_no_regular_file_is_written_through_never_replaced(tmp_path: Path) -> None:
    # Renaming a file onto a device or a pipe would take its place: run as root, a report
    # written to /dev/null would replace /dev/null itself. A pipe stands in for the device.
    pipe, read = pipe_reader(tmp_path, "report.pipe")
    write_atomic_pieces(pipe, [b"one ", b"two"])
    assert read() == b"one two"
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["report.pipe"]


@pytest.mark.skipif(os.name != "posix", reason="symbolic links without privileges")
def test_a_link_to_a_file_keeps_pointing_at_it_and_the_file_is_replaced(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    real = tmp_path / "runs" / "run-42.json"
    real.write_bytes(b"old")
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    write_atomic(link, b"new")
    assert link.is_symlink()
    assert os.readlink(link) == str(real)
    assert real.read_bytes() == b"new"
    assert sorted(os.listdir(tmp_path / "runs")) == ["run-42.json"]
