"""`zeroclaw_eval.grading.workspace_checks`: what the run left in the workspace, never read outside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.builders import run_grades
from zeroclaw_eval.grading.result import SIDE_EFFECT
from zeroclaw_eval.tools.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "out.txt").write_text("report: all good", encoding="utf-8")
    (root / "docs" / "notes.md").write_text("東京 notes", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    os.symlink(outside / "secret.txt", root / "link_out.txt")
    os.symlink(outside, root / "dir_out")
    os.symlink(root / "out.txt", root / "link_in.txt")
    return Workspace(root)


def test_workspace_file_exists_and_absent(workspace: Workspace) -> None:
    grades = run_grades(
        {
            "workspace": {
                "file_exists": ["out.txt", "docs", "docs/notes.md", "missing.txt", "link_in.txt"],
                "file_absent": ["missing.txt", "out.txt"],
            }
        },
        workspace=workspace,
    )
    assert grades["workspace.file_exists[0]"].passed
    assert grades["workspace.file_exists[1]"].passed  # a folder exists too
    assert grades["workspace.file_exists[2]"].passed
    assert not grades["workspace.file_exists[3]"].passed
    assert "missing.txt" in grades["workspace.file_exists[3]"].detail
    assert grades["workspace.file_exists[4]"].passed  # a symlink that stays inside is fine
    assert grades["workspace.file_absent[0]"].passed
    assert not grades["workspace.file_absent[1]"].passed
    assert all(g.category == SIDE_EFFECT for g in grades.values())
    assert grades["workspace.file_exists[3]"].field.pointer == "/expects/workspace/file_exists/3"
    assert grades["workspace.file_absent[1]"].field.pointer == "/expects/workspace/file_absent/1"


def test_workspace_file_contains(workspace: Workspace) -> None:
    grades = run_grades(
        {"workspace": {"file_contains": {"out.txt": ["all good", "failure"], "docs/notes.md": ["東京"]}}},
        workspace=workspace,
    )
    assert grades['workspace.file_contains["out.txt"][0]'].passed
    bad = grades['workspace.file_contains["out.txt"][1]']
    assert not bad.passed
    assert '"failure"' in bad.detail
    assert '"report: all good"' in bad.detail
    assert bad.category == SIDE_EFFECT
    assert bad.field.pointer == "/expects/workspace/file_contains/out.txt/1"
    nested = grades['workspace.file_contains["docs/notes.md"][0]']
    assert nested.passed
    assert nested.field.pointer == "/expects/workspace/file_contains/docs~1notes.md/0"


def test_workspace_file_contains_on_missing_file_or_folder_fails(workspace: Workspace) -> None:
    grades = run_grades(
        {"workspace": {"file_contains": {"missing.txt": ["x"], "docs": ["y"]}}}, workspace=workspace
    )
    assert not grades['workspace.file_contains["missing.txt"][0]'].passed
    assert "missing.txt" in grades['workspace.file_contains["missing.txt"][0]'].detail
    assert not grades['workspace.file_contains["docs"][0]'].passed


@pytest.mark.parametrize(
    ("relative", "why"),
    [
        ("/etc/hostname", "absolute"),
        ("../outside/secret.txt", ".."),
        ("docs/../../outside/secret.txt", ".."),
        ("link_out.txt", "outside"),
        ("dir_out/secret.txt", "outside"),
    ],
)
def test_workspace_path_leaving_the_workspace_is_a_failed_check(
    workspace: Workspace, tmp_path: Path, relative: str, why: str
) -> None:
    if relative.startswith("/"):
        relative = str(tmp_path / "outside" / "secret.txt")  # an absolute path that exists
    grades = run_grades(
        {
            "workspace": {
                "file_exists": [relative],
                "file_absent": [relative],
                "file_contains": {relative: ["TOP SECRET"]},
            }
        },
        workspace=workspace,
    )
    assert len(grades) == 3
    for result in grades.values():
        assert not result.passed, result.check_id
        assert why in result.detail
        assert "TOP SECRET" not in str(result.actual)
        assert "TOP SECRET" not in result.detail.replace('contain "TOP SECRET"', "")


def test_workspace_path_with_nul_byte_is_a_failed_check(workspace: Workspace) -> None:
    # A grader never raises: a path the filesystem cannot even name is a failed check.
    grades = run_grades({"workspace": {"file_exists": ["out\u0000.txt"]}}, workspace=workspace)
    assert not grades["workspace.file_exists[0]"].passed


def test_workspace_checks_without_a_workspace_fail() -> None:
    grades = run_grades({"workspace": {"file_exists": ["a.txt"], "file_contains": {"a.txt": ["x"]}}})
    assert not grades["workspace.file_exists[0]"].passed
    assert "no workspace" in grades["workspace.file_exists[0]"].detail
    assert not grades['workspace.file_contains["a.txt"][0]'].passed


LONG = "x" * 300  # longer than any file name the OS takes (255 bytes on Linux and macOS)


def test_a_path_the_os_refuses_is_a_failed_check_saying_what_the_os_said(workspace: Workspace) -> None:
    # Once an OSError out of the grader: exit 2 and no report for any fixture.
    grades = run_grades(
        {
            "workspace": {
                "file_exists": [LONG, f"docs/{LONG}/deeper"],
                "file_absent": [LONG],
                "file_contains": {LONG: ["x"], f"out.txt/{LONG}": ["y"]},
            }
        },
        workspace=workspace,
    )
    assert len(grades) == 5
    for result in grades.values():
        assert not result.passed, result.check_id
        assert "File name too long" in result.detail or "Not a directory" in result.detail, result.detail
        assert "\n" not in result.detail
    assert grades["workspace.file_exists[0]"].detail == f"cannot check {LONG}: File name too long"


def test_a_path_with_a_newline_shows_on_one_line_and_forges_no_workflow_command(workspace: Workspace) -> None:
    forged = "x" * 260 + "\n::error::X"  # a name too long, and a forged workflow command
    grades = run_grades(
        {"workspace": {"file_exists": [forged, "a\n::error::Y"], "file_contains": {forged: ["z"]}}},
        workspace=workspace,
    )
    for result in grades.values():
        assert not result.passed
        assert "\n" not in result.detail, result.detail
        assert "\\n::error::" in result.detail
    assert grades["workspace.file_exists[1]"].detail == (
        'expected "a\\n::error::Y" to exist in the workspace; it does not'
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_file_contains_never_reads_a_named_pipe(workspace: Workspace) -> None:
    # Reading a FIFO nobody writes to would block the grader, and the run, for ever.
    os.mkfifo(workspace.root / "pipe")
    grades = run_grades({"workspace": {"file_contains": {"pipe": ["x"]}}}, workspace=workspace)
    result = grades['workspace.file_contains["pipe"][0]']
    assert not result.passed
    assert result.detail == 'expected pipe to contain "x"; cannot read pipe: not a regular file'
