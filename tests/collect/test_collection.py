"""`collect.collection`: what a run takes, collected once before any case runs: the
fixture files, a shard's part, the cases `-k` selects."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import PASSING, TYPO_FIXTURE, write_fixture
from zeroclaw_eval.cases.case import Case, RejectedFixture
from zeroclaw_eval.collect.collection import collect_suite
from zeroclaw_eval.collect.sharding import Shard, shard_files, suite_digest
from zeroclaw_eval.errors import UsageError
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "evals"
    for name in ("b_echo.json", "a_echo.json", "c_other.json"):
        write_fixture(folder, name, {**PASSING, "model_name": name.removesuffix(".json")})
    write_fixture(folder, "d_typo.json", TYPO_FIXTURE)
    return folder


def test_without_k_the_fixtures_stay_paths_in_file_order(suite: Path) -> None:
    collection = collect_suite([suite])
    names = ["a_echo.json", "b_echo.json", "c_other.json", "d_typo.json"]
    assert [path.name for path in collection.files] == names
    assert collection.taken == collection.files
    # Nothing read yet: each is loaded when its turn comes.
    assert collection.selected == collection.files
    assert (collection.deselected, collection.shard, collection.digest) == (0, None, None)
    assert collection.label == "evals"


def test_k_reads_the_fixtures_and_keeps_every_rejected_one(suite: Path) -> None:
    collection = collect_suite([suite], keyword="echo")
    assert [type(f).__name__ for f in collection.selected] == ["Case", "Case", "RejectedFixture"]
    assert [f.name for f in collection.selected if isinstance(f, Case | RejectedFixture)] == [
        "a_echo.json",
        "b_echo.json",
        "d_typo.json",
    ]
    assert collection.deselected == 1


def test_a_shard_takes_its_part_and_the_digest_of_the_whole(suite: Path) -> None:
    collection = collect_suite([suite], shard=Shard(2, 2))
    assert collection.files == collect_suite([suite]).files
    assert collection.taken == shard_files(collection.files, Shard(2, 2))
    assert 0 < len(collection.taken) < len(collection.files)
    assert collection.digest == suite_digest(collection.files)


def test_the_fixtures_k_reads_are_admitted_with_the_tools_given(suite: Path) -> None:
    write_fixture(suite, "e_weather.json", {**PASSING, "model_name": "weather", "tools": ["get_weather"]})

    def weather(nameable: frozenset[str] | None) -> Case | RejectedFixture:
        selected = collect_suite([suite], keyword="weather", nameable=nameable).selected
        loaded = [f for f in selected if isinstance(f, Case | RejectedFixture)]
        return next(f for f in loaded if f.name == "e_weather.json")

    assert isinstance(weather(frozenset(BUILTIN_TOOLS)), RejectedFixture)
    assert isinstance(weather(None), Case)  # any tool: an agent command's own


def test_a_target_that_names_no_fixture_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such fixture file or suite folder"):
        collect_suite([tmp_path / "missing"])
