"""Side-effect checks: what the run left in the case workspace.

Paths are workspace-relative; one that is absolute, climbs with `..` or resolves outside
the workspace through a symlink is a failed check, and nothing outside is ever read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from zeroclaw_eval._support.json.pointer import join_pointer
from zeroclaw_eval._support.json.text import quote
from zeroclaw_eval.cases.model import WorkspaceExpects
from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.grading.result import SIDE_EFFECT, GradeResult, make_grade
from zeroclaw_eval.tools.workspace import Workspace


def workspace_checks(spec: WorkspaceExpects, workspace: Workspace | None) -> Iterator[GradeResult]:
    """Grade the `workspace` block against the case workspace as the run left it."""

    def where(relative: str) -> tuple[Any, str | None]:
        if workspace is None:
            return None, "the case has no workspace"
        try:
            return workspace.resolve(relative), None
        except OutsideWorkspace as exc:
            return None, f"{exc}; nothing was read"
        except OSError as exc:
            return None, os_problem(relative, exc)

    def exists(relative: str) -> tuple[bool | None, str | None]:
        """Whether `relative` exists (None: it could not be told, and why)."""
        path, problem = where(relative)
        if path is None:
            return None, problem
        try:
            return path.exists(), None
        except OSError as exc:  # a name too long, a folder the run made unreadable
            return None, os_problem(relative, exc)

    for i, relative in enumerate(spec.file_exists):
        there, problem = exists(relative)
        ok = there is True
        detail = (
            problem
            or f"expected {shown(relative)} to exist in the workspace; {'it does' if ok else 'it does not'}"
        )
        yield make_grade(
            f"workspace.file_exists[{i}]",
            SIDE_EFFECT,
            f"/expects/workspace/file_exists/{i}",
            ok,
            detail,
            relative,
            ok,
        )
    for i, relative in enumerate(spec.file_absent):
        there, problem = exists(relative)
        ok = there is False
        detail = (
            problem
            or f"expected {shown(relative)} to be absent from the workspace; {'it is' if ok else 'it exists'}"
        )
        yield make_grade(
            f"workspace.file_absent[{i}]",
            SIDE_EFFECT,
            f"/expects/workspace/file_absent/{i}",
            ok,
            detail,
            relative,
            not ok,
        )
    for relative, needles in spec.file_contains.items():
        path, problem = where(relative)
        text: str | None = None
        if problem is None and path is not None:
            try:
                if path.exists() and not path.is_file():  # a folder; a FIFO would block the read
                    problem = f"cannot read {shown(relative)}: not a regular file"
                else:
                    text = path.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                problem = os_problem(relative, exc, "read")
        key = json.dumps(relative, ensure_ascii=False)
        for i, needle in enumerate(needles):
            pointer = join_pointer("/expects/workspace/file_contains", relative, i)
            ok = text is not None and needle in text
            found = problem or (f"found {quote(text)}" if text is not None else "")
            detail = f"expected {shown(relative)} to contain {quote(needle)}; {found}"
            yield make_grade(
                f"workspace.file_contains[{key}][{i}]",
                SIDE_EFFECT,
                pointer,
                ok,
                detail,
                needle,
                text,
            )


def shown(relative: str) -> str:
    """A workspace path as a detail shows it: as written, or quoted as JSON when it holds
    a control character, so that a newline in it cannot start a line of its own in a log
    (where `::error::` would be a workflow command)."""
    return relative if relative.isprintable() else quote(relative)


def os_problem(relative: str, exc: OSError, doing: str = "check") -> str:
    """What the machine said about `relative`, on one line (the file name the OS repeats
    is left out: `relative` says it)."""
    said = " ".join(str(exc.strerror or type(exc).__name__).split())
    return f"cannot {doing} {shown(relative)}: {said}"
