"""The fixture paths the README, the manual and the commands' `--help` examples name
exist: an example a user copies must run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.docs.pages import SOURCES
from zeroclaw_eval.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: A fixture path of this repository; one followed by `:LINE:COL` or `::` is output shown
#: as an example (a user's own fixture), not a path to run.
PATH = re.compile(r"(?<![\w/.])((?:evals|examples)/[\w./-]+?\.json)(?![:\w])")


def named_paths(text: str) -> set[str]:
    return set(PATH.findall(text))


def help_texts() -> str:
    commands = ["run", "list", "render", "vacuity", "serve", "check", "new", "schema"]
    return "\n".join(CliRunner().invoke(main, ["eval", name, "--help"]).output for name in commands)


def _pages_text() -> str:
    # A fixture a page writes itself (a block captioned with its path, or one its
    # transcript makes with `zeroclaw eval new NAME`) is the page's own.
    text = "\n".join(path.read_text(encoding="utf-8") for path in SOURCES)
    for name in re.findall(r"^\$ zeroclaw eval new (\w+)", text, re.M):
        text = text.replace(f"evals/regression/{name}.json", "")
    return re.sub(r":caption: \S+", "", text)


@pytest.mark.parametrize("source", ["docs", "--help"])
def test_every_fixture_path_an_example_names_exists(source: str) -> None:
    text = _pages_text() if source == "docs" else help_texts()
    named = named_paths(text)
    assert named, "the pattern found no path: it would check nothing"
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert missing == []
