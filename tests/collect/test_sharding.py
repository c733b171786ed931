"""Splitting a suite into shards (`zeroclaw_eval.collect.sharding`)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from zeroclaw_eval.collect.sharding import CASE_COST, MAX_SHARDS, Shard, shard_files, split, suite_digest
from zeroclaw_eval.errors import UsageError


def files(tmp_path: Path, sizes: list[int]) -> list[Path]:
    made = []
    for number, size in enumerate(sizes):
        path = tmp_path / f"case_{number:03d}.json"
        path.write_bytes(b"x" * size)
        made.append(path)
    return made


@pytest.mark.parametrize(
    ("text", "shard"), [("1/4", Shard(1, 4)), (" 4 / 4 ", Shard(4, 4)), ("1/1", Shard(1, 1))]
)
def test_a_shard_is_k_of_n(text: str, shard: Shard) -> None:
    assert Shard.parse(text) == shard


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "4", "a/b", "-1/2", ""])
def test_a_shard_outside_1_to_n_is_refused(text: str) -> None:
    with pytest.raises(UsageError, match="--shard"):
        Shard.parse(text)


@pytest.mark.parametrize("count", [MAX_SHARDS + 1, 10**30])
def test_more_shards_than_any_matrix_runs_is_refused_before_any_is_made(count: int) -> None:
    # 10**30 once ended in an OverflowError traceback, 10**8 in lists of a hundred million.
    with pytest.raises(UsageError, match=f"N may be at most {MAX_SHARDS:,}"):
        Shard.parse(f"1/{count}")
    assert Shard.parse(f"{MAX_SHARDS}/{MAX_SHARDS}") == Shard(MAX_SHARDS, MAX_SHARDS)


def test_shards_cover_the_suite_once_and_balance_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    sizes = [random.Random(7).randint(100, 5000) for _ in range(101)]
    suite = files(tmp_path, sizes)
    shards = split(suite, 4)
    assert sorted(p for shard in shards for p in shard) == sorted(suite)  # each fixture exactly once
    loads = [sum(CASE_COST + p.stat().st_size for p in shard) for shard in shards]
    assert max(loads) - min(loads) <= CASE_COST + max(sizes)
    for shard in shards:  # each shard keeps the suite's order
        assert shard == sorted(shard)


def test_the_split_depends_only_on_the_files_not_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = files(tmp_path, [300] * 20 + [900] * 5)
    shuffled = list(suite)
    random.Random(3).shuffle(shuffled)
    for index in (1, 2, 3):
        assert set(shard_files(suite, Shard(index, 3))) == set(shard_files(shuffled, Shard(index, 3)))


def test_one_shard_is_the_whole_suite(tmp_path: Path) -> None:
    suite = files(tmp_path, [10, 20, 30])
    assert shard_files(suite, Shard(1, 1)) == suite


def test_the_digest_changes_with_any_fixture_path_or_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    suite = files(tmp_path, [10, 20, 30])
    digest = suite_digest(suite)
    assert suite_digest(list(reversed(suite))) == digest
    assert suite_digest(suite[:2]) != digest
    suite[0].write_bytes(b"y" * 10)  # same size, other content
    assert suite_digest(suite) != digest


def test_one_large_fixture_does_not_leave_a_shard_with_a_single_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every case costs about the same to run whatever its size: 36 small fixtures and one
    # of 23 KB, as in a real suite, split 4 ways by bytes alone gave shards of 1 and 15.
    monkeypatch.chdir(tmp_path)
    counts = sorted(len(shard) for shard in split(files(tmp_path, [800] * 36 + [23_000]), 4))
    assert counts[0] >= 6
    assert counts[-1] - counts[0] <= 6
