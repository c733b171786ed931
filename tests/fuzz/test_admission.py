"""Fuzzing admission: any mutation of a shipped fixture, any broken bytes, any file name
ends in an admitted `Case` or a `RejectedFixture` whose every problem has a position;
never an exception. Through the public API (`load_fixture`, `load_suite`) and the
`zeroclaw eval check` command."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given

from tests.fuzz.mutations import DAMAGE, FILE_NAMES, SHIPPED, Damage, mutated
from tests.support.invoke import invoke
from zeroclaw_eval import Case, RejectedFixture, load_fixture, load_suite
from zeroclaw_eval.tools.builtin import BUILTIN_TOOLS


def write(folder: str, name: bytes, data: bytes) -> Path:
    """Write `data` as fixture `name` (bytes: a name need not be UTF-8) into `folder`."""
    target = os.path.join(os.fsencode(folder), name)
    with open(target, "wb") as stream:
        stream.write(data)
    return Path(os.fsdecode(target))


def assert_admitted_or_positioned(result: Case | RejectedFixture) -> None:
    """An admitted case, or a rejection whose every problem says what and where."""
    if isinstance(result, Case):
        return
    assert isinstance(result, RejectedFixture), type(result)
    assert result.problems, "a rejection without a problem"
    for problem in result.problems:
        where = problem.field
        assert isinstance(where.line, int), problem
        assert isinstance(where.col, int), problem
        assert min(where.line, where.col) >= 1, problem
        assert problem.message.strip(), problem
        assert problem.describe(str(result.path))


def test_the_shipped_fixtures_are_the_seeds() -> None:
    assert len(SHIPPED) >= 40
    assert all(isinstance(load_fixture(path), Case) for path in SHIPPED)


@given(text=mutated(), damage=DAMAGE)
def test_a_mutated_fixture_is_admitted_or_rejected_with_positions(text: str, damage: Damage) -> None:
    raw = damage.apply(text)
    with tempfile.TemporaryDirectory() as folder:
        path = write(folder, b"case.json", raw)
        assert_admitted_or_positioned(load_fixture(path, BUILTIN_TOOLS))


@given(text=mutated(), damage=DAMAGE, name=FILE_NAMES)
def test_a_suite_of_mutated_fixtures_loads_and_checks(text: str, damage: Damage, name: bytes) -> None:
    raw = damage.apply(text)
    with tempfile.TemporaryDirectory() as folder:
        write(folder, name, raw)
        write(folder, b"zz_shipped.json", SHIPPED[0].read_bytes())
        loaded = load_suite(Path(folder), BUILTIN_TOOLS)
        assert len(loaded) == 2
        for result in loaded:
            assert_admitted_or_positioned(result)
        # The command prints each problem at path:line:col and exits 1; never a traceback
        # (the in-process runner re-raises any exception the command lets escape).
        result = invoke("eval", "check", folder)
        assert result.code in (0, 1), result.stderr
        rejected = [r for r in loaded if isinstance(r, RejectedFixture)]
        assert result.code == (1 if rejected else 0), result.stdout + result.stderr
