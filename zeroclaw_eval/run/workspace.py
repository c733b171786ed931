"""The per-case workspace: a fresh temporary folder that tools and checks cannot leave."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.fixtures.workspace_paths import workspace_path_problem


class Workspace:
    """A temporary folder owned by one case; removed by `cleanup()`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._real_root = Path(os.path.realpath(root))

    @classmethod
    def create(cls, files: Mapping[str, str] | None = None) -> Workspace:
        """Make a fresh workspace seeded with `files` (relative path -> text)."""
        workspace = cls(Path(tempfile.mkdtemp(prefix="zeroclaw-eval-")))
        try:
            for relative, content in (files or {}).items():
                target = workspace.resolve(relative)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
        except BaseException:
            workspace.cleanup()
            raise
        return workspace

    def resolve(self, relative: str) -> Path:
        """The real path of `relative` inside the workspace.

        Raises `OutsideWorkspace` for an absolute path, a `..`, or a path that reaches
        outside the workspace through a symlink; nothing outside is ever touched.
        """
        problem = workspace_path_problem(relative)
        if problem:
            raise OutsideWorkspace(problem)
        resolved = Path(os.path.realpath(self._real_root / relative))
        if resolved != self._real_root and self._real_root not in resolved.parents:
            raise OutsideWorkspace(f"path {relative!r} resolves outside the workspace")
        return resolved

    def cleanup(self) -> None:
        """Remove the workspace and everything in it."""
        shutil.rmtree(self.root, ignore_errors=True)
