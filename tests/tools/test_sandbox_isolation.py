"""`zeroclaw_eval.tools.workspace`: a workspace only when a case needs one, seeded, and
removed whatever happens."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import minimal_fixture
from zeroclaw_eval.cases.model import LlmTrace
from zeroclaw_eval.tools.sandbox import case_workspace, needs_workspace


def trace(**overrides: object) -> LlmTrace:
    return LlmTrace.model_validate(minimal_fixture(**overrides))


@pytest.mark.parametrize(
    ("overrides", "needed"),
    [
        ({}, False),
        ({"tools": ["file_read"]}, True),
        ({"setup": {"workspace_files": {"a.txt": "x"}}}, True),
        ({"setup": {"workspace_files": {}}}, False),
        ({"expects": {"workspace": {"file_absent": ["a.txt"]}}}, True),
    ],
)
def test_a_workspace_is_needed_for_workspace_tools_setup_or_checks(
    overrides: dict[str, object], needed: bool
) -> None:
    assert needs_workspace(trace(**overrides)) is needed


def test_case_workspace_is_seeded_then_removed_and_absent_when_not_needed(private_tmp: Path) -> None:
    with case_workspace(trace(setup={"workspace_files": {"notes/a.txt": "seeded"}})) as workspace:
        assert workspace is not None
        assert (workspace.root / "notes" / "a.txt").read_text(encoding="utf-8") == "seeded"
    assert list(private_tmp.iterdir()) == []
    with case_workspace(trace()) as none:
        assert none is None
    assert list(private_tmp.iterdir()) == []


def test_the_workspace_is_removed_when_the_body_raises(private_tmp: Path) -> None:
    seen: list[int] = []

    def run_in_workspace() -> None:
        with case_workspace(trace(tools=["file_write"])):
            seen.append(len(list(private_tmp.iterdir())))
            raise RuntimeError("body failed")

    with pytest.raises(RuntimeError, match="body failed"):
        run_in_workspace()
    assert seen == [1]
    assert list(private_tmp.iterdir()) == []


def test_needed_overrides_what_the_case_would_need(private_tmp: Path) -> None:
    seeded = trace(setup={"workspace_files": {"a.txt": "x"}})
    with case_workspace(seeded, needed=False) as none:
        assert none is None
    with case_workspace(trace(), needed=True) as workspace:
        assert workspace is not None
