"""Importing the callable a setting names (`module:callable`), from the project's folder,
and saying precisely why it cannot be had.

A misspelt factory is the commonest slip of a first configuration, so each refusal names
the setting and the file that set it, the module's file or the folder it was looked up
from, and the close names there are (`errors.did_you_mean`, as for a misspelt key).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from zeroclaw_eval.errors import UsageError, did_you_mean, exception_words

_EXAMPLES = {"agent": "my_project.agents:make_agent", "tools": "my_project.tools:eval_tools"}


def load_callable(
    spec: str,
    setting: str,
    project_dir: Path | None = None,
    error: type[UsageError] = UsageError,
) -> Callable[..., Any]:
    """Import the callable `spec` names (`module:callable`, or `module.sub:attr.attr`),
    with `project_dir` first on the import path; `error` when it cannot be had, its
    message starting with `setting` (`/project/zeroclaw.toml: [eval] agent`)."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        example = _EXAMPLES.get(setting.rpartition(" ")[2], "my_project.module:function")
        raise error(f"{setting} = {spec!r} is not of the form 'module:callable' (for example {example!r})")
    if project_dir is not None and str(project_dir) not in sys.path:
        sys.path.insert(0, str(project_dir))
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing == module_name or module_name.startswith(missing + "."):
            raise error(f"{setting}: {_not_found(module_name, missing, project_dir)}") from None
        # A module the project's module imports in turn is missing: that import is the fix.
        raise error(f"{setting}: {_unimportable(module_name, exc)}") from None
    except Exception as exc:
        raise error(f"{setting}: {_unimportable(module_name, exc)}") from None
    target: Any = module
    owner = f"module {module_name!r}{_file_of(module)}"
    reached: list[str] = []
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            hint = _suggestion(part, dir(target))
            raise error(f"{setting}: {owner} has no attribute {part!r}{hint}") from None
        reached.append(part)
        owner = f"{module_name}:{'.'.join(reached)} ({type(target).__name__})"
    if not callable(target):
        kind = type(target).__name__
        raise error(f"{setting}: {spec!r} is {kind}, not a callable; name a function or a class")
    return target  # type: ignore[no-any-return]


def _not_found(module_name: str, missing: str, project_dir: Path | None) -> str:
    """Why `module_name` cannot be found: `missing` (it, or a package above it) is neither
    in the folder it was looked up from nor installed, with the close names there are."""
    parent_name, _, leaf = missing.rpartition(".")
    parent = sys.modules.get(parent_name) if parent_name else None
    if parent is not None and not hasattr(parent, "__path__"):
        return (
            f"cannot import module {module_name!r}: {parent_name!r}{_file_of(parent)} is a module,"
            f" not a package, so it holds no module {leaf!r}"
        )
    if parent is not None:  # the package was imported; one of its modules is not there
        folders = [str(folder) for folder in parent.__path__]
        where = f"package {parent_name!r} ({', '.join(folders)}) has no module {leaf!r}"
        return f"cannot import module {module_name!r}: {where}{_suggestion(leaf, _modules_in(folders))}"
    looked_in = f"in {project_dir} (the configuration's folder) nor " if project_dir is not None else ""
    folders = [str(project_dir)] if project_dir is not None else []
    return (
        f"cannot import module {module_name!r}: no module {missing!r} {looked_in}among the installed"
        f" packages{_suggestion(missing, _modules_in(folders))}"
    )


def _unimportable(module_name: str, exc: Exception) -> str:
    """`module_name` was found but raised while it was imported: where it is, and what it raised."""
    try:
        spec = importlib.util.find_spec(module_name)
    except Exception:  # its package raised, or is gone: the error says enough
        spec = None
    where = f" ({spec.origin})" if spec is not None and spec.origin else ""
    return f"cannot import module {module_name!r}{where}: {exception_words(exc)}"


def _modules_in(folders: Iterable[str]) -> list[str]:
    """The names of the modules and packages directly in `folders`."""
    return [found.name for found in pkgutil.iter_modules(list(folders))]


def _file_of(module: ModuleType) -> str:
    """` (/project/my_agent.py)`: the file `module` was read from, if any."""
    file = getattr(module, "__file__", None)
    return f" ({file})" if file else ""


def _suggestion(word: str, names: Iterable[str]) -> str:
    """`; did you mean NAME?` for a close name among `names` (dunders left out), else ''."""
    close = did_you_mean(word, [name for name in names if not name.startswith("__")])
    return f"; did you mean {close}?" if close else ""
