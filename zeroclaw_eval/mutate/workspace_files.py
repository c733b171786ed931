"""The files a run left in its workspace, and a file mutant's edit made there in place
and undone afterwards.

The workspace is the case's own temporary folder, so a mutant edits it directly rather
than a copy: copying costs a tree walk per mutant and, like any recursive walk, fails
on the deeply nested folders an agent may leave. Every walk here is a loop, and a
folder or file the system will not open (a path too long, no permission, a named pipe)
is left out rather than failing the fixture.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.mutate.mutant import FileEdit
from zeroclaw_eval.tools.workspace import Workspace


def files_under(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` (symlinks not followed) by its relative POSIX path."""
    found: dict[str, bytes] = {}
    pending: list[tuple[str, str]] = [(str(root), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            name = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, name + "/"))
                elif entry.is_file(follow_symlinks=False):
                    with open(entry.path, "rb") as stream:
                        found[name] = stream.read()
            except OSError:
                continue
    return found


def _relative(workspace: Workspace, path: str) -> str | None:
    """A seeded path as the walk spells it (`./a.txt` is `a.txt`); None if it resolves
    outside the workspace (admission rejects that, so it never happens)."""
    try:
        resolved = workspace.resolve(path)
    except OutsideWorkspace:
        return None
    return Path(os.path.relpath(resolved, os.path.realpath(workspace.root))).as_posix()


def written_files(
    seeded: Mapping[str, str], workspace: Workspace
) -> tuple[dict[str, str | None], dict[str, str]]:
    """The files the run created, changed or removed, each with its seeded text (None:
    not seeded); and what the run left in each, as text."""
    before: dict[str, str] = {}
    for path, text in seeded.items():
        relative = _relative(workspace, path)
        if relative is not None:
            before[relative] = text
    left = files_under(workspace.root)
    written: dict[str, str | None] = {}
    for path, data in left.items():
        seeded_text = before.get(path)
        if seeded_text is None or seeded_text.encode("utf-8") != data:
            written[path] = seeded_text
    for path, text in before.items():
        if path not in left and not (workspace.root / path).is_dir():
            written[path] = text
    contents = {
        path: data.decode("utf-8", errors="replace") for path, data in left.items() if path in written
    }
    return written, contents


@contextmanager
def edited(workspace: Workspace, edit: FileEdit) -> Iterator[None]:
    """The workspace with `edit` made, for the block; then as the run left it again.

    Raises `OSError` when the edit cannot be made (the mutant cannot be graded)."""
    root = workspace.root
    target = root / edit.path
    saved = target.read_bytes() if target.is_file() else None
    moved = root / edit.elsewhere if edit.elsewhere else None
    missing = [folder for folder in (target.parent, *target.parent.parents) if not folder.exists()]
    try:
        edit.apply(root)
        yield
    finally:
        if moved is not None and os.path.lexists(moved):
            moved.unlink()
        if saved is not None:
            target.write_bytes(saved)
        elif os.path.lexists(target) and not target.is_dir():
            target.unlink()
        for folder in missing:  # deepest first: folders the edit made, gone again
            if folder.exists():
                folder.rmdir()
