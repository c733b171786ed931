"""`zeroclaw_eval.run.workspace`: a fresh folder per case that nothing can leave."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.run.workspace import Workspace


def test_create_seeds_files_and_cleanup_removes_the_folder(private_tmp: Path) -> None:
    workspace = Workspace.create({"a.txt": "alpha", "deep/er/b.md": "東京 β"})
    try:
        assert workspace.root.is_dir()
        assert workspace.root.parent == private_tmp  # a fresh temporary folder
        assert (workspace.root / "a.txt").read_text(encoding="utf-8") == "alpha"
        assert (workspace.root / "deep" / "er" / "b.md").read_text(encoding="utf-8") == "東京 β"
    finally:
        workspace.cleanup()
    assert not workspace.root.exists()
    assert list(private_tmp.iterdir()) == []
    workspace.cleanup()  # a second cleanup is harmless


def test_create_without_files_makes_an_empty_folder(private_tmp: Path) -> None:
    workspace = Workspace.create()
    try:
        assert workspace.root.is_dir()
        assert list(workspace.root.iterdir()) == []
    finally:
        workspace.cleanup()


def test_each_workspace_is_a_different_folder(private_tmp: Path) -> None:
    first, second = Workspace.create({"x.txt": "1"}), Workspace.create()
    try:
        assert first.root != second.root
        assert not (second.root / "x.txt").exists()
    finally:
        first.cleanup()
        second.cleanup()


@pytest.mark.parametrize("bad", ["../escape.txt", "/tmp/escape.txt"])
def test_create_with_an_escaping_path_fails_and_leaves_nothing(private_tmp: Path, bad: str) -> None:
    with pytest.raises(OutsideWorkspace):
        Workspace.create({"ok.txt": "fine", bad: "x"})
    assert list(private_tmp.iterdir()) == []
    assert not (private_tmp / "escape.txt").exists()


def test_resolve_inside_paths(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_text("x", encoding="utf-8")
    workspace = Workspace(root)
    real_root = Path(os.path.realpath(root))
    assert workspace.resolve("sub/f.txt") == real_root / "sub" / "f.txt"
    assert workspace.resolve("not/yet/there.txt") == real_root / "not" / "yet" / "there.txt"
    assert workspace.resolve(".") == real_root


def test_resolve_refuses_paths_that_leave(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / "door")
    os.symlink(root / "door", root / "door2")  # a chain of links that ends outside
    workspace = Workspace(root)
    for relative in ("../outside", str(outside), "door", "door/file.txt", "door2/x", "sub/../../outside"):
        with pytest.raises(OutsideWorkspace):
            workspace.resolve(relative)
