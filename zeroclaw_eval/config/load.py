"""Finding the configuration: `zeroclaw.toml`, or `[tool.zeroclaw]` in `pyproject.toml`.

Searched from the working directory upwards, as pytest and ruff do, stopping after the
first folder that holds `.git` (the repository root) or at the filesystem root. In each
folder:

1. `zeroclaw.toml` is the configuration, unless it holds no table or key at all (only
   comments, or nothing) and a `pyproject.toml` beside it has `[tool.zeroclaw]`: then
   that table is. An empty `zeroclaw.toml` alone still ends the search (the defaults
   apply, relative to its folder).
2. Else `pyproject.toml`, when it has `[tool.zeroclaw]`; one without it is skipped.

A `pyproject.toml` above the working directory that cannot be read or parsed belongs to
someone else as likely as not (a checkout without `.git` inside a bigger tree): it is
passed over, and `run -v` says so. Everywhere else an unreadable file is an error.

`--config FILE` names one file and skips the search. The file found is read strictly
(`tables`); relative paths in it are relative to its folder. Every error names the file.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from zeroclaw_eval._support.files import read_bounded
from zeroclaw_eval.config.settings import EvalSettings, ProviderSettings
from zeroclaw_eval.config.tables import read_tables, settings_table
from zeroclaw_eval.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

#: The largest configuration file read (a pyproject.toml with every tool's tables in it
#: is a few KiB; `--config /dev/zero` would never end).
MAX_CONFIG_BYTES = 16 * 1024 * 1024

#: Where tomllib says a syntax error is; the message carries it on every Python version.
_POSITION = re.compile(r"^(?P<message>.*) \(at line (?P<line>\d+), column (?P<column>\d+)\)$", re.S)


@dataclass(frozen=True)
class LoadedConfig:
    """Settings and where they came from (None: built-in defaults)."""

    settings: EvalSettings
    source: Path | None
    base_dir: Path
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    #: Files above the working directory the search passed over (unreadable), and why.
    passed_over: tuple[str, ...] = ()
    #: The header of the settings table in `source`: `[tool.zeroclaw.eval]` in a pyproject.toml.
    table: str = "[eval]"

    def resolve(self, relative: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = Path(relative)
        return path if path.is_absolute() else self.base_dir / path

    def setting(self, key: str) -> str:
        """Where `key` of the settings table was set, as a configuration error names it:
        `/project/zeroclaw.toml: [eval] agent` (no file with the defaults)."""
        where = f"{self.table} {key}"
        return f"{self.source}: {where}" if self.source is not None else where

    def describe(self) -> str:
        """Which file the settings came from (`run -v` prints it), and any file passed over."""
        if self.source is not None:
            found = f"config: read {self.source}"
        else:
            found = (
                f"config: none found (no zeroclaw.toml, nor a pyproject.toml with [tool.zeroclaw],"
                f" in {self.base_dir} or the folders above it up to the one holding .git);"
                " the defaults apply"
            )
        return "\n".join([found, *(f"config: passed over {why}" for why in self.passed_over)])


def load_config(explicit: Path | None = None, cwd: Path | None = None) -> LoadedConfig:
    """Read `explicit`, else the configuration found from `cwd` upwards (see the module);
    raises `ConfigError` naming the file and the table or key."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(
                f"config file not found: {explicit} (--config names a zeroclaw.toml or a pyproject.toml)"
            )
        document = _parse(explicit)
        if explicit.name != "pyproject.toml":
            return _loaded(explicit, document, "")
        tables = _tool_zeroclaw(document, explicit)
        if tables is None:
            raise ConfigError(
                f"{explicit}: no [tool.zeroclaw] table; add [tool.zeroclaw.eval], or name a zeroclaw.toml"
            )
        return _loaded(explicit, tables, "tool.zeroclaw")
    # Lexically absolute, not resolved: paths in messages stay the ones the user sees.
    start = Path(os.path.abspath(cwd or Path.cwd()))
    passed_over: list[str] = []
    for folder in (start, *start.parents):
        found = _in_folder(folder, passed_over if folder != start else None)
        if found is not None:
            return replace(found, passed_over=tuple(passed_over))
        if (folder / ".git").exists():  # a folder or, in a worktree or submodule, a file
            break
    return LoadedConfig(EvalSettings(), None, start, passed_over=tuple(passed_over))


def _in_folder(folder: Path, passed_over: list[str] | None) -> LoadedConfig | None:
    """The configuration `folder` holds, by the rules of the module docstring; None: none.
    With `passed_over` (a folder above the working directory), an unreadable
    pyproject.toml is noted there and skipped instead of failing."""
    zeroclaw = folder / "zeroclaw.toml"
    pyproject = folder / "pyproject.toml"
    document = _parse(zeroclaw) if zeroclaw.is_file() else None
    if document:
        return _loaded(zeroclaw, document, "")
    tables = None
    if pyproject.is_file():
        try:
            tables = _tool_zeroclaw(_parse(pyproject), pyproject)
        except ConfigError as error:
            if passed_over is None:
                raise
            passed_over.append(str(error))
    if tables is not None:
        return _loaded(pyproject, tables, "tool.zeroclaw")
    if document is not None:  # an empty zeroclaw.toml still marks the project's folder
        return _loaded(zeroclaw, document, "")
    return None


def _loaded(path: Path, root: dict[str, Any], prefix: str) -> LoadedConfig:
    settings, providers = read_tables(root, path, prefix)
    return LoadedConfig(settings, path, path.parent, providers, table=settings_table(prefix))


def _parse(path: Path) -> dict[str, Any]:
    data = read_bounded(path, MAX_CONFIG_BYTES, limit=("a configuration file", "is it the right file?"))
    if isinstance(data, str):
        raise ConfigError(f"{path}: {data}")
    try:
        document: dict[str, Any] = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}") from None
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        message = "arrays or inline tables are nested too deep to parse; flatten them"
        raise ConfigError(f"{path}: invalid TOML: {message}") from None
    except tomllib.TOMLDecodeError as exc:
        at = _POSITION.match(str(exc))
        if at is None:
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        where = f"{path}:{at['line']}:{at['column']}"
        raise ConfigError(f"{where}: invalid TOML: {at['message']}") from None
    return document


def _tool_zeroclaw(document: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """`[tool.zeroclaw]` of a pyproject.toml; None when it has none."""
    tool = document.get("tool")
    if not isinstance(tool, dict) or "zeroclaw" not in tool:
        return None
    tables = tool["zeroclaw"]
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: [tool.zeroclaw] must be a table")
    return tables
