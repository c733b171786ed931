"""`[eval]` settings from `zeroclaw.toml` or `[tool.zeroclaw.eval]` in `pyproject.toml`.

Looked up in the working directory: `zeroclaw.toml` first, then `pyproject.toml`; `--config`
names a file explicitly. Settings are strict like fixtures: an unknown or mistyped setting
is a usage error, never silently ignored. Relative paths are relative to the file.
"""

from __future__ import annotations

import difflib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from zeroclaw_eval.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class EvalSettings(BaseModel):
    """The `[eval]` table, with the defaults DESIGN.md gives."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    suite_dir: str = "evals/regression"
    mode: Literal["replay", "live"] = "replay"
    #: `module:callable` of an agent factory; empty means the reference agent loop.
    agent: str = ""
    live_provider: str = ""
    live_allowed_tools: list[str] = Field(default_factory=list)
    case_timeout_secs: float = Field(default=120.0, gt=0)
    max_tool_iterations: int = Field(default=10, ge=1)


@dataclass(frozen=True)
class LoadedConfig:
    """Settings and where they came from (None: built-in defaults)."""

    settings: EvalSettings
    source: Path | None
    base_dir: Path

    def resolve(self, relative: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        path = Path(relative)
        return path if path.is_absolute() else self.base_dir / path


def load_config(explicit: Path | None = None, cwd: Path | None = None) -> LoadedConfig:
    """Find and read the `[eval]` settings; raises `ConfigError` with the file and key."""
    cwd = cwd or Path.cwd()
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"config file not found: {explicit}")
        return _read(explicit)
    for name in ("zeroclaw.toml", "pyproject.toml"):
        candidate = cwd / name
        if candidate.is_file():
            loaded = _read(candidate, required=False)
            if loaded.source is not None:
                return loaded
    return LoadedConfig(EvalSettings(), None, cwd)


def _read(path: Path, *, required: bool = True) -> LoadedConfig:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the file: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    in_pyproject = path.name == "pyproject.toml"
    table_name = "[tool.zeroclaw.eval]" if in_pyproject else "[eval]"
    table: Any = document
    for key in ("tool", "zeroclaw", "eval") if in_pyproject else ("eval",):
        table = table.get(key) if isinstance(table, dict) else None
    if table is None:
        if required and in_pyproject:
            raise ConfigError(f"{path}: no {table_name} table")
        # zeroclaw.toml without [eval] (or a pyproject without our table): defaults.
        source = path if not in_pyproject else None
        return LoadedConfig(EvalSettings(), source, path.parent)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {table_name} must be a table")
    try:
        settings = EvalSettings.model_validate(table)
    except ValidationError as exc:
        raise ConfigError(_explain(path, table_name, exc)) from None
    return LoadedConfig(settings, path, path.parent)


def _explain(path: Path, table_name: str, exc: ValidationError) -> str:
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(key, list(EvalSettings.model_fields), n=1)
            hint = f"; did you mean {close[0]}?" if close else ""
            lines.append(f"{path}: {table_name} {key}: unknown setting{hint}")
        else:
            lines.append(f"{path}: {table_name} {key}: {error['msg']}")
    return "\n".join(lines)
