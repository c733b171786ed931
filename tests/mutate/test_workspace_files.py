"""A file mutant's edit, made in the workspace and undone (`zeroclaw_eval.mutate.workspace_files`)."""

from __future__ import annotations

import shutil

from zeroclaw_eval.mutate.mutant import FileEdit
from zeroclaw_eval.mutate.workspace_files import edited, files_under
from zeroclaw_eval.tools.workspace import Workspace


def test_each_edit_is_undone_leaving_the_workspace_as_the_run_left_it() -> None:
    workspace = Workspace.create({"sub/a.txt": "A", "keep.txt": "K"})
    try:
        shutil.rmtree(workspace.root / "sub")  # the run removed a seeded file and its folder
        (workspace.root / "out.txt").write_text("new", encoding="utf-8")
        left = files_under(workspace.root)
        edits = [
            (FileEdit("skip", "sub/a.txt", "A"), {"sub/a.txt": b"A"}),
            (FileEdit("skip", "out.txt", None), {}),
            (FileEdit("elsewhere", "out.txt", None, "misplaced-out.txt"), {"misplaced-out.txt": b"new"}),
            (FileEdit("alter", "out.txt", None), {"out.txt": b"nex"}),
        ]
        for edit, expected in edits:
            with edited(workspace, edit):
                now = files_under(workspace.root)
                for path, data in expected.items():
                    assert now[path] == data, edit
                if edit.kind != "alter" and edit.seeded is None:
                    assert "out.txt" not in now
            assert files_under(workspace.root) == left, edit
            assert not (workspace.root / "sub").exists()  # a folder the edit made is gone again
    finally:
        workspace.cleanup()
