"""A suite: a folder of fixtures, found, admitted, and shown relative to where you are."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

from zeroclaw_eval.cases.admission import load_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.cases.limits import DEFAULT_MAX_FIXTURE_BYTES
from zeroclaw_eval.collect.selection import select
from zeroclaw_eval.errors import TargetNotFound, UsageError


def discover(suite_dir: Path) -> list[Path]:
    """The fixture files of a suite: direct `*.json` children, sorted by name."""
    return [path for path, _, _ in _listing(suite_dir)]


def _listing(suite_dir: Path) -> list[tuple[Path, str, bool]]:
    """`discover`'s files, each with its name and whether it is a symbolic link."""
    if not suite_dir.is_dir():
        raise UsageError(f"suite folder not found: {suite_dir} (pass --suite DIR or set [eval].suite_dir)")
    found = []
    # The directory listing says which entries are plain files, so only links cost a stat;
    # names are filtered and sorted as strings (what `Path.suffix` and the order of paths
    # in one folder come to: case-folded where the file system folds case), and a `Path`
    # is made only for the files kept.
    with os.scandir(suite_dir) as entries:
        for entry in entries:
            name = entry.name
            if not name.endswith(".json") or name == ".json":  # `Path(name).suffix != ".json"`
                continue
            link = entry.is_symlink()
            # A link's target as `Path.is_file` sees it: an error other than a missing or
            # looping target is raised, never taken for a file that is not there.
            if Path(entry.path).is_file() if link else entry.is_file(follow_symlinks=False):
                found.append((name, link))
    found.sort(key=lambda item: (os.path.normcase(item[0]), item[1]))
    return [(suite_dir / name, name, link) for name, link in found]


def load_suite(
    suite_dir: Path, known_tools: Iterable[str] | None = None, *, max_bytes: int = DEFAULT_MAX_FIXTURE_BYTES
) -> list[Case | RejectedFixture]:
    """Admit every fixture of a suite (a folder, or one fixture file); rejected fixtures
    are kept, not dropped.

    `known_tools` are the tools a fixture's `tools` may name (None: any); a file over
    `max_bytes` is rejected unread.
    """
    return load_fixtures(fixture_files([suite_dir]), known_tools, max_bytes=max_bytes)


def load_fixtures(
    files: Iterable[Path],
    known_tools: Iterable[str] | None = None,
    *,
    max_bytes: int = DEFAULT_MAX_FIXTURE_BYTES,
    keyword: str | None = None,
) -> list[Case | RejectedFixture]:
    """Admit each of `files`, as every command that reads a whole suite does, and keep
    those the `-k` expression `keyword` selects (every rejected one among them)."""
    known = None if known_tools is None else frozenset(known_tools)
    return select([load_fixture(path, known, max_bytes=max_bytes) for path in files], keyword)


def fixture_files(targets: Iterable[Path]) -> list[Path]:
    """The fixture files `targets` name: a `.json` file itself, a folder its direct
    `*.json` children; in the order given, each file once (however it is spelled: the
    first spelling is kept)."""
    found: list[Path] = []
    # Where each file really is, as text: resolved paths are normal already, so equal text
    # is the same file, and a suite of thousands needs no `Path` made and hashed for each.
    seen: set[str] = set()
    for target in targets:
        # The folder is resolved once, and a file in it that is not a link is its child
        # there (resolving each one would stat every folder above).
        if target.is_dir():
            folder = os.fspath(target.resolve())
            files = [
                (path, os.fspath(path.resolve()) if link else os.path.join(folder, name))
                for path, name, link in _listing(target)
            ]
        elif target.is_file() and target.suffix == ".json":
            files = [(target, os.fspath(target.resolve()))]
        elif target.is_file():
            raise UsageError(f"{target} is not a fixture: fixtures are .json files")
        else:
            raise TargetNotFound(f"no such fixture file or suite folder: {target}", target)
        for path, real in files:
            real = os.path.normcase(real)  # one file, however its case is spelled, where case folds
            if real not in seen:
                seen.add(real)
                found.append(path)
    return found


def nested_fixtures_hint(folder: Path) -> str | None:
    """For a folder without fixtures of its own: the subfolders that hold some, since a
    suite is one folder and is not searched recursively."""
    if not folder.is_dir():
        return None
    deeper = sorted(_folders_with_json(folder, depth=_HINT_DEPTH))
    if not deeper:
        return None
    shown = ", ".join(f"{path.relative_to(folder).as_posix()}/" for path in deeper[:5])
    more = f" and {len(deeper) - 5} more" if len(deeper) > 5 else ""
    return (
        f"a suite is one folder, not searched recursively: {shown}{more} under {folder}"
        " hold fixtures; name one of them"
    )


#: How deep the hint looks below a folder without fixtures; a suite is rarely nested deeper.
_HINT_DEPTH = 3
#: Folders that hold other people's JSON, never fixtures (and may be huge).
_NOT_SUITES = frozenset({"node_modules", "site-packages", "__pycache__", "venv", "dist", "build"})


def _folders_with_json(folder: Path, depth: int) -> Iterable[Path]:
    """Subfolders of `folder` (down to `depth` levels, skipping hidden and tool folders)
    holding `*.json` files directly."""
    if depth == 0:
        return
    try:
        children = sorted(child for child in folder.iterdir() if child.is_dir())
    except OSError:
        return
    for child in children:
        if child.name.startswith(".") or child.name in _NOT_SUITES:
            continue
        try:
            holds_json = any(path.suffix == ".json" and path.is_file() for path in child.iterdir())
        except OSError:  # a folder it may not read holds nothing it can run
            continue
        if holds_json:
            yield child
        yield from _folders_with_json(child, depth - 1)


@functools.lru_cache(maxsize=64)
def _folder_shown(folder: str, cwd: str) -> str:
    return display_path(Path(folder))


def shown_path(path: Path) -> str:
    """A fixture's path as reports show it (relative to the working directory); the folder
    is worked out once per working directory, as a suite's fixtures share it (and is
    split off as text: no `Path` is made for each fixture)."""
    parent, name = os.path.split(os.fspath(path))
    folder = _folder_shown(parent, os.getcwd())
    return name if folder == "." else f"{folder}/{name}"


def display_path(path: Path) -> str:
    """`path` relative to the working directory when inside it, in POSIX form."""
    try:
        return Path(os.path.relpath(path)).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:  # another drive on Windows
        return path.as_posix()
