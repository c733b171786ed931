"""`zeroclaw_eval.reporters.registry`: the built-in formats and plugins found by entry point."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest

from tests.support.reports import every_status_report
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.reporters import builtin_names, get_reporter, reporter_names, reset_registry


@pytest.mark.parametrize("name", ["table", "json", "junit", "html", "github"])
def test_get_reporter_returns_each_builtin_renderer(name: str) -> None:
    modules = {"json": "json_report", "html": "html.page"}
    module = importlib.import_module(f"zeroclaw_eval.reporters.{modules.get(name, name)}")
    assert name in builtin_names()
    assert get_reporter(name) is module.REPORTER
    text = get_reporter(name)(every_status_report())
    assert isinstance(text, str)
    assert text


@pytest.mark.usefixtures("fresh_registry")
def test_unknown_format_is_a_usage_error_listing_the_choices() -> None:
    with pytest.raises(UsageError) as raised:
        get_reporter("nope")
    message = str(raised.value)
    assert "'nope'" in message
    for name in builtin_names():
        assert name in message


def test_entry_point_plugin_is_discovered_listed_and_used(install_plugin: Callable[..., None]) -> None:
    install_plugin({"tap": "render"})
    assert reporter_names() == [*builtin_names(), "tap"]
    assert get_reporter("tap")(every_status_report()) == "TAP 4 cases\n"
    with pytest.raises(UsageError, match="tap"):
        get_reporter("nope")


def test_a_plugin_cannot_override_a_builtin_format(install_plugin: Callable[..., None]) -> None:
    install_plugin({"table": "boom", "junit": "render"})
    from zeroclaw_eval.reporters import junit, table

    assert get_reporter("table") is table.REPORTER
    assert get_reporter("junit") is junit.REPORTER
    assert reporter_names() == builtin_names()


def test_a_plugin_that_fails_to_load_is_a_usage_error(install_plugin: Callable[..., None]) -> None:
    install_plugin({"broken": "no_such_attribute"})
    with pytest.raises(UsageError, match="broken"):
        get_reporter("broken")


def test_reset_registry_forgets_discovered_plugins(
    monkeypatch: pytest.MonkeyPatch, install_plugin: Callable[..., None]
) -> None:
    assert "tap" not in reporter_names()
    install_plugin({"tap": "render"})
    assert "tap" not in reporter_names()  # looked up once, then kept
    reset_registry()
    assert "tap" in reporter_names()
    monkeypatch.undo()
    reset_registry()
    assert reporter_names() == builtin_names()
