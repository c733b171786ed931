"""The step summary stays under GitHub's 1 MiB limit (a file over it is refused whole,
every step's summary with it) however long the names its head quotes and however little
room the steps before left in the file: through the installed command, `zeroclaw eval
render` of a saved report whose suite and baseline are megabytes long, and `zeroclaw eval
vacuity` of a suite with a long path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.builders import FAILING, PASSING, write_fixture
from tests.support.invoke import run_cli

LIMIT = 1024 * 1024  # GitHub's, in bytes
#: A piece of a hostile name: wide in UTF-8, a control GitHub's page would obey, a
#: backtick and a pipe that end a code span and a table cell, a link.
WIDE = "東\u202e`|[x](https://evil.example)"
CUT_NOTE = "\n\n_Summary cut to stay under GitHub's 1 MiB limit"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with `hostile.json`: a saved report compared with a baseline (one new
    failure), its suite's name and its baseline's path each megabytes of `WIDE`."""
    folder = tmp_path_factory.mktemp("summary")
    write_fixture(folder / "evals", "kept.json", PASSING)
    write_fixture(folder / "evals", "broken.json", PASSING)
    assert run_cli("eval", "run", "--suite", "evals", "--report", "json=base.json", cwd=folder).code == 0
    write_fixture(folder / "evals", "broken.json", FAILING)
    head = run_cli(
        "eval", "run", "--suite", "evals", "--baseline", "base.json", "--report", "json=head.json", cwd=folder
    )
    assert head.code == 1, head.stderr
    data = json.loads((folder / "head.json").read_text(encoding="utf-8"))
    data["suite"] = "evals/" + WIDE * 100_000
    data["baseline"]["path"] = WIDE * 100_000
    (folder / "hostile.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


def _render(folder: Path, summary: Path) -> str:
    """`zeroclaw eval render hostile.json` in a job; what it appended to `summary`."""
    before = summary.stat().st_size if summary.exists() else 0
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(folder)}
    result = run_cli("eval", "render", "hostile.json", cwd=folder, env=env)
    assert result.code == 0, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    size = summary.stat().st_size
    assert size <= LIMIT, size
    return summary.read_bytes()[before:].decode("utf-8")


@pytest.fixture(scope="module")
def whole(hostile: Path) -> str:
    """The summary of `hostile.json` appended to an empty file."""
    return _render(hostile, hostile / "summary.md")


def test_names_of_megabytes_are_quoted_short_in_the_head(whole: str) -> None:
    written = whole
    title, *_ = written.splitlines()
    assert title.startswith("## zeroclaw eval FAILED: ``evals/東\\u202e`\\|[x](https://evil.example)")
    assert title.endswith("…`` (replay)")
    assert len(title.encode("utf-8")) < 4096
    assert "### Changes since baseline ``東" in written
    assert "| 2 | 1 | 1 | 0 | 0 |" in written
    assert "`evals/broken.json:" in written  # the findings, after the head
    assert len(written.encode("utf-8")) < 10_000


@pytest.mark.parametrize("room", [1, 60, 250, 400, 900, 1200, 3000])
def test_a_summary_file_nearly_full_gets_no_more_than_its_room(
    hostile: Path, whole: str, tmp_path: Path, room: int
) -> None:
    # Earlier steps wrote all but `room` bytes: even the head may not fit, and was
    # appended whole all the same, taking the file past the limit.
    summary = tmp_path / "summary.md"
    summary.write_bytes(b"x" * (LIMIT - room))
    written = _render(hostile, summary)
    assert len(written.encode("utf-8")) <= room
    # Whole parts only, head first: no code span cut in half, the cut said when it fits.
    assert written == "" or written.startswith(("## zeroclaw eval FAILED: ``evals/", CUT_NOTE))
    assert written.count("``") % 2 == 0
    if room >= len(whole.encode("utf-8")):
        assert written == whole
    elif room >= 100:
        assert "part(s) left out._" in written


def test_the_vacuity_summary_quotes_a_long_suite_short_and_fits_its_room(tmp_path: Path) -> None:
    # A path may be 4,096 bytes: ten folders of 80 wide characters (240 bytes) each.
    suite = Path(*(["東" * 80] * 10))
    write_fixture(tmp_path / suite, "lone_cap.json", {**PASSING, "expects": {"max_tool_calls": 0}})
    summary = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_WORKSPACE": str(tmp_path)}
    result = run_cli("eval", "vacuity", "--suite", str(suite), cwd=tmp_path, env=env)
    assert result.code == 1, result.stderr
    title = summary.read_text(encoding="utf-8").splitlines()[0]
    assert title.startswith("## zeroclaw eval vacuity FAILED: `東東")
    assert title.endswith("…`")
    assert len(title) < 400
    for room in (1, 100, 300, 600):
        summary.write_bytes(b"x" * (LIMIT - room))
        result = run_cli("eval", "vacuity", "--suite", str(suite), cwd=tmp_path, env=env)
        assert result.code == 1, result.stderr
        assert summary.stat().st_size <= LIMIT, room
