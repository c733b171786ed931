"""`zeroclaw_eval.cases.workspace_paths`: the text rule for a plain workspace-relative path."""

from __future__ import annotations

import pytest

from zeroclaw_eval.cases.workspace_paths import workspace_path_problem


@pytest.mark.parametrize(
    "relative", ["a.txt", "notes/today.md", "./a.txt", "a/./b", "..hidden", "a..b/c", "東京.txt"]
)
def test_plain_relative_paths_have_no_problem(relative: str) -> None:
    assert workspace_path_problem(relative) is None


@pytest.mark.parametrize(
    ("relative", "why"),
    [
        ("", "empty"),
        ("/etc/passwd", "absolute"),
        ("//server/share", "absolute"),
        ("C:\\Windows\\x", "absolute"),
        ("C:relative", "drive"),
        ("..", ".."),
        ("../x", ".."),
        ("a/../../x", ".."),
        ("a/..", ".."),
        ("..\\x", ".."),
        ("a\\..\\..\\x", ".."),
    ],
)
def test_paths_that_could_leave_the_workspace_have_a_problem(relative: str, why: str) -> None:
    problem = workspace_path_problem(relative)
    assert problem is not None
    assert why in problem
