"""Reading the zeroclaw tables strictly: `[eval]`, `[providers]` and each
`[providers.models.NAME]`, the whole of a zeroclaw.toml or of `[tool.zeroclaw]`.

Every table and key is known: an unknown one is a `ConfigError` naming the file, the
table and the key, with a did-you-mean, because a misspelt table read as "not there"
would silently put the defaults in its place.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from zeroclaw_eval.config.settings import EvalSettings, ProviderSettings
from zeroclaw_eval.errors import ConfigError, did_you_mean

M = TypeVar("M", bound=BaseModel)


def read_tables(
    root: dict[str, Any], path: Path, prefix: str
) -> tuple[EvalSettings, dict[str, ProviderSettings]]:
    """The settings and providers in `root`, the zeroclaw tables of `path`; `prefix` is
    where they sit in that file (`tool.zeroclaw` in a pyproject.toml, "" at the top)."""
    _refuse_unknown(root, path, prefix, ("eval", "providers"), (EvalSettings, settings_table(prefix)))
    settings = _validate(EvalSettings, root.get("eval", {}), path, settings_table(prefix))
    at = _join(prefix, "providers")
    provider_tables = _table(root.get("providers", {}), path, _header(at))
    _refuse_unknown(provider_tables, path, at, ("models",), (ProviderSettings, _header(at, "models.NAME")))
    models = _table(provider_tables.get("models", {}), path, _header(at, "models"))
    providers = {
        name: _validate(ProviderSettings, table, path, _header(at, "models", name))
        for name, table in models.items()
    }
    return settings, providers


def settings_table(prefix: str) -> str:
    """The header of the settings table of a file whose zeroclaw tables sit at `prefix`:
    `[eval]`, or `[tool.zeroclaw.eval]` in a pyproject.toml."""
    return _header(prefix, "eval")


def _refuse_unknown(
    table: dict[str, Any],
    path: Path,
    at: str,
    known: tuple[str, ...],
    inner: tuple[type[BaseModel], str],
) -> None:
    """Refuse the keys of `table` (at `at`) that are not the `known` sub-tables; a key of
    the `inner` model is told where it belongs instead of what it misspells."""
    model, inner_header = inner
    problems = []
    for key, value in table.items():
        if key in known:
            continue
        if isinstance(value, dict):
            kind, where = "unknown table", _header(at, key)
        else:  # a key at the top of a zeroclaw.toml sits in no table
            kind, where = "unknown setting", f"{_header(at)} {key}" if at else key
        close = did_you_mean(key, known)
        if key in model.model_fields:
            hint = f"it belongs in {inner_header}"
        elif close:
            hint = f"did you mean {_header(at, close)}?"
        else:
            hint = f"the tables here are {_listing(_header(at, name) for name in known)}"
        problems.append(f"{path}: {where}: {kind}; {hint}")
    if problems:
        raise ConfigError("\n".join(problems))


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


def _header(*parts: str) -> str:
    """A TOML table header, `[a.b]`, from dotted parts (empty parts left out)."""
    return f"[{_join(*parts)}]"


def _listing(names: Iterable[str]) -> str:
    items = list(names)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" and {items[-1]}"


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
            hint = (
                f"; did you mean {close}?" if close else f"; the settings are {', '.join(model.model_fields)}"
            )
            lines.append(f"{path}: {table_name} {key}: unknown setting{hint}")
        elif error["type"] == "missing":
            lines.append(f"{path}: {table_name} {key}: missing required setting")
        else:
            lines.append(f"{path}: {table_name} {key}: {error['msg']}")
    return "\n".join(lines)
