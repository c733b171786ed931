"""`zeroclaw_eval.tools.workspace`: a fresh folder per case that nothing can leave."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zeroclaw_eval.errors import OutsideWorkspace
from zeroclaw_eval.tools.workspace import PREFIX, Workspace


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


def _nest(root: Path, depth: int) -> None:
    """`depth` folders one inside the other under `root`, a file at the bottom; made
    through directory descriptors, so the full path may exceed PATH_MAX."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.close(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)


def _unnest(root: Path) -> None:
    """Whatever `_nest` left under `root`, removed without the code under test: a chain
    this deep would break pytest's own clean-up of its temporary folders."""
    if not root.exists():
        return
    fds = [os.open(root, os.O_RDONLY)]
    while "a" in os.listdir(fds[-1]):
        fds.append(os.open("a", os.O_RDONLY, dir_fd=fds[-1]))
    for fd in reversed(fds):
        for name in os.listdir(fd):
            if name == "a" or os.path.isdir(f"/proc/self/fd/{fd}/{name}"):
                os.rmdir(name, dir_fd=fd)
            else:
                os.unlink(name, dir_fd=fd)
        os.close(fd)
    root.rmdir()


@pytest.mark.skipif(os.mkdir not in os.supports_dir_fd, reason="nests through directory descriptors")
def test_cleanup_removes_folders_nested_at_any_depth(private_tmp: Path) -> None:
    # A tool (or an agent command) may nest folders deeper than shutil.rmtree can recurse,
    # and deeper than any path can name: clean-up still removes everything, and says so.
    workspace = Workspace.create({"top.txt": "x"})
    try:
        _nest(workspace.root, 2_500)  # past the recursion limit, and past PATH_MAX
        (workspace.root / f".{PREFIX}1").mkdir()  # a name clean-up itself uses is not in its way
        assert workspace.cleanup() is None
        assert workspace.leftover is None
        assert list(private_tmp.iterdir()) == []
    finally:
        _unnest(workspace.root)


def test_cleanup_removes_symlinks_without_following_them(private_tmp: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine", encoding="utf-8")
    workspace = Workspace.create({"deep/x.txt": "x"})
    os.symlink(outside, workspace.root / "deep" / "door")
    os.symlink(outside / "keep.txt", workspace.root / "file_door")
    assert workspace.cleanup() is None
    assert list(private_tmp.iterdir()) == []
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_cleanup_of_a_root_swapped_for_a_symlink_removes_only_the_link(
    private_tmp: Path, tmp_path: Path
) -> None:
    # An agent process may replace its workspace by a link to a folder of the user's.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine", encoding="utf-8")
    workspace = Workspace.create()
    workspace.root.rmdir()
    os.symlink(outside, workspace.root)
    assert workspace.cleanup() is None
    assert list(private_tmp.iterdir()) == []
    assert (outside / "keep.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores folder permissions")
def test_cleanup_removes_a_folder_the_agent_made_unreadable(private_tmp: Path) -> None:
    workspace = Workspace.create({"locked/inner/x.txt": "x"})
    os.chmod(workspace.root / "locked" / "inner", 0)
    os.chmod(workspace.root / "locked", 0)
    assert workspace.cleanup() is None
    assert list(private_tmp.iterdir()) == []


def test_a_cleanup_that_fails_says_what_is_left_and_never_raises(
    private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = Workspace.create({"x.txt": "x"})

    def refuse(path: object, *args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    with monkeypatch.context() as patched:
        patched.setattr(os, "unlink", refuse)
        problem = workspace.cleanup()
    assert problem == f"cannot remove the case workspace {workspace.root}: Operation not permitted"
    assert workspace.leftover == problem
    assert workspace.cleanup() is None  # once the machine allows it, it is gone
    assert list(private_tmp.iterdir()) == []
