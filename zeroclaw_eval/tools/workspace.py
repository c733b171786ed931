"""The per-case workspace: a fresh temporary folder that tools and checks cannot leave."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from zeroclaw_eval.cases.workspace_paths import workspace_path_problem
from zeroclaw_eval.errors import OutsideWorkspace

#: The prefix of a workspace folder in the system temp folder, and of the folders a
#: clean-up moves up to its top level (so that no path it uses grows with the depth).
PREFIX = "zeroclaw-eval-"


class Workspace:
    """A temporary folder owned by one case; removed by `cleanup()`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._real_root = Path(os.path.realpath(root))
        #: Why `cleanup()` could not remove everything (None: it did, or has not run).
        self.leftover: str | None = None

    @classmethod
    def create(cls, files: Mapping[str, str] | None = None) -> Workspace:
        """Make a fresh workspace seeded with `files` (relative path -> text)."""
        workspace = cls(Path(tempfile.mkdtemp(prefix=PREFIX)))
        try:
            for relative, content in (files or {}).items():
                target = workspace.resolve(relative)
                make_folders(target.parent)
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

    def cleanup(self) -> str | None:
        """Remove the workspace and everything in it, however deep; never raises.

        Returns (and keeps in `leftover`) what could not be removed and why, else None.
        """
        try:
            remove_tree(self.root)
        except OSError as exc:
            self.leftover = f"cannot remove the case workspace {self.root}: {exc.strerror or exc}"
        else:
            self.leftover = None
        return self.leftover


def make_folders(folder: Path) -> None:
    """Make `folder` and its missing parents, in a loop: `Path.mkdir(parents=True)` and
    `os.makedirs` recurse once per missing level, so a path a tool is asked to write
    1,000 folders deep would end in a RecursionError."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir(exist_ok=True)


def remove_tree(root: Path) -> None:
    """Remove `root` and everything under it without recursion, at any depth.

    `shutil.rmtree` recurses once per level (a RecursionError past ~1,000 nested folders
    a tool or an agent command can make) and its paths grow with the depth (past
    PATH_MAX). Here each folder met below the top level is first moved up to the top
    level, so every path stays short and a plain stack replaces the recursion. Symlinks
    are removed, never followed; a folder the agent made unreadable is made readable.
    """
    if not os.path.lexists(root):
        return
    moved = 0
    pending = [root]
    while pending:
        folder = pending.pop()
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode):  # the root swapped for a symlink: never followed
            os.unlink(folder)
            continue
        _usable(folder, info.st_mode)
        for entry in list(os.scandir(folder)):
            if not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
            elif folder == root:
                pending.append(Path(entry.path))
            else:
                # Moving a folder to another parent rewrites its `..`: it must be writable.
                _usable(entry.path, entry.stat(follow_symlinks=False).st_mode)
                while True:  # a name at the top level not taken yet
                    moved += 1
                    up = root / f".{PREFIX}{moved}"
                    if not os.path.lexists(up):
                        break
                os.rename(entry.path, up)
                pending.append(up)
        if folder != root:
            os.rmdir(folder)  # empty now: its files are gone, its folders moved up
    if os.path.lexists(root):
        os.rmdir(root)


def _usable(folder: str | Path, mode: int) -> None:
    """Give the owner back read, write and search on a folder the agent locked."""
    if mode & stat.S_IRWXU != stat.S_IRWXU:
        os.chmod(folder, mode | stat.S_IRWXU)
