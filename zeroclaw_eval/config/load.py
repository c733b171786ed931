"""Finding and reading the configuration: `[eval]` and `[providers.models.NAME]` from
`zeroclaw.toml`, or the same tables under `[tool.zeroclaw]` in `pyproject.toml`.

Looked up in the working directory: `zeroclaw.toml` first, then `pyproject.toml`; `--config`
names a file explicitly. Settings are strict like fixtures: an unknown or mistyped setting
is a usage error, never silently ignored. Relative paths are relative to the file.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from zeroclaw_eval.config.settings import EvalSettings, ProviderSettings
from zeroclaw_eval.errors import ConfigError, did_you_mean

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class LoadedConfig:
    """Settings and where they came from (None: built-in defaults)."""

    settings: EvalSettings
    source: Path | None
    base_dir: Path
    providers: dict[str, ProviderSettings] = field(default_factory=dict)

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
    prefix = "tool.zeroclaw." if in_pyproject else ""
    root: Any = document
    for key in ("tool", "zeroclaw") if in_pyproject else ():
        root = root.get(key) if isinstance(root, dict) else None
    if not isinstance(root, dict) or ("eval" not in root and "providers" not in root):
        if required and in_pyproject:
            raise ConfigError(f"{path}: no [tool.zeroclaw.eval] table")
        # zeroclaw.toml without [eval] (or a pyproject without our tables): defaults.
        return LoadedConfig(EvalSettings(), None if in_pyproject else path, path.parent)
    settings = _validate(EvalSettings, root.get("eval", {}), path, f"[{prefix}eval]")
    providers: dict[str, ProviderSettings] = {}
    provider_tables = _table(root.get("providers", {}), path, f"[{prefix}providers]")
    # Other [providers] keys may belong to the wider ZeroClaw configuration, but one
    # that looks like a misspelt `models` would silently drop every provider table.
    for key in provider_tables:
        if key != "models" and did_you_mean(key, ["models"]):
            raise ConfigError(f"{path}: [{prefix}providers.{key}]: unknown table; did you mean models?")
    models = provider_tables.get("models", {})
    for name, table in _table(models, path, f"[{prefix}providers.models]").items():
        providers[name] = _validate(ProviderSettings, table, path, f"[{prefix}providers.models.{name}]")
    return LoadedConfig(settings, path, path.parent, providers)


def _table(value: Any, path: Path, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: {name} must be a table")
    return value


def _validate(model: type[M], table: Any, path: Path, name: str) -> M:
    try:
        return model.model_validate(_table(table, path, name))
    except ValidationError as exc:
        raise ConfigError(_explain(path, name, exc, model)) from None


def _explain(path: Path, table_name: str, exc: ValidationError, model: type[BaseModel]) -> str:
    lines = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"])
        if error["type"] == "extra_forbidden":
            close = did_you_mean(key, model.model_fields)
            hint = f"; did you mean {close}?" if close else ""
            lines.append(f"{path}: {table_name} {key}: unknown setting{hint}")
        elif error["type"] == "missing":
            lines.append(f"{path}: {table_name} {key}: missing required setting")
        else:
            lines.append(f"{path}: {table_name} {key}: {error['msg']}")
    return "\n".join(lines)
