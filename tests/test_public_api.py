"""The declared public API resolves, and importing the package stays cheap."""

from __future__ import annotations

import subprocess
import sys

import pytest

import zeroclaw_eval


@pytest.mark.parametrize("name", zeroclaw_eval.__all__)
def test_every_exported_name_resolves(name: str) -> None:
    assert getattr(zeroclaw_eval, name) is not None


def test_unknown_attribute_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = zeroclaw_eval.nope  # type: ignore[attr-defined]


def test_import_does_not_load_the_heavy_dependencies() -> None:
    code = (
        "import sys, zeroclaw_eval; "
        "print(','.join(m for m in ('pydantic', 'click', 'jinja2', 're2', 'asyncio') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == ""
