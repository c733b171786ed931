"""`zeroclaw_eval.collect.selection`: the files a command line names, and `-k`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.builders import PASSING, write_fixture
from zeroclaw_eval.collect.selection import MAX_NESTING, keyword_matcher
from zeroclaw_eval.collect.suite import fixture_files, nested_fixtures_hint
from zeroclaw_eval.errors import UsageError


@pytest.mark.parametrize(
    ("expression", "names", "matches"),
    [
        ("echo", ["echo_hello", "echo-hello", ""], True),
        ("ECHO", ["echo_hello"], True),  # case-insensitive, as pytest
        ("unicode", ["echo_hello", "echo-hello"], False),
        ("echo and not unicode", ["echo_unicode"], False),
        ("echo and not unicode", ["echo_plain"], True),
        ("file or echo", ["file_write"], True),
        ("not (file or echo)", ["budget_probe"], True),
        ("not (file or echo)", ["echo_probe"], False),
        ("TRACK-12", ["case", "model", "TRACK-12"], True),  # the fixture id is a name too
        ("a and b or c", ["c"], True),  # and binds tighter than or
        ("a and (b or c)", ["c"], False),
    ],
)
def test_keyword_expressions_match_like_pytests(expression: str, names: list[str], matches: bool) -> None:
    assert keyword_matcher(expression)(names) is matches


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("", "-k needs an expression"),
        ("echo and", "the expression ends too early"),
        ("(echo", "a '(' is not closed"),
        ("echo )", "unexpected ')'"),
        ("or echo", "unexpected 'or'"),
    ],
)
def test_a_malformed_expression_is_a_usage_error_saying_why(expression: str, words: str) -> None:
    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        keyword_matcher(expression)


@pytest.mark.parametrize("expression", ["(" * 5_000 + "echo" + ")" * 5_000, "not " * 5_000 + "echo"])
def test_an_expression_nested_past_the_limit_is_a_usage_error_not_a_crash(expression: str) -> None:
    with pytest.raises(UsageError, match=f"nested more than {MAX_NESTING} levels deep"):
        keyword_matcher(expression)


def test_nesting_up_to_the_limit_is_an_expression_like_any_other() -> None:
    assert keyword_matcher("(" * MAX_NESTING + "echo" + ")" * MAX_NESTING)(["echo_hello"])
    assert keyword_matcher("not " * MAX_NESTING + "echo")(["echo_hello"])  # an even number of nots


def test_files_and_folders_expand_in_order_each_file_once(tmp_path: Path) -> None:
    one = write_fixture(tmp_path / "suite", "b.json", PASSING)
    two = write_fixture(tmp_path / "suite", "a.json", PASSING)
    other = write_fixture(tmp_path / "other", "c.json", PASSING)
    assert fixture_files([one, tmp_path / "suite", other]) == [one, two, other]


def test_links_count_as_the_file_they_lead_to_and_nothing_else_is_a_fixture(tmp_path: Path) -> None:
    # The listing resolves only links, each file else being where its folder really is:
    # the files found, and which spelling counts once, are what resolving each would give.
    suite = tmp_path / "suite"
    real = write_fixture(suite, "b.json", PASSING)
    (suite / "a.json").symlink_to("b.json")  # the same file under another name, listed first
    (suite / "loop.json").symlink_to("loop.json")  # a link that never ends is no file
    (suite / "gone.json").symlink_to("missing.json")
    (suite / ".json").write_text("{}", encoding="utf-8")  # no suffix: a hidden file
    (suite / "folder.json").mkdir()
    (tmp_path / "alias").symlink_to("suite")
    assert fixture_files([suite]) == [suite / "a.json"]
    assert fixture_files([real, tmp_path / "alias", suite]) == [real]


@pytest.mark.parametrize(
    ("name", "words"),
    [("missing.json", "no such fixture file or suite folder"), ("notes.txt", "is not a fixture")],
)
def test_a_path_that_names_no_fixture_is_a_usage_error(tmp_path: Path, name: str, words: str) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(UsageError, match=words):
        fixture_files([tmp_path / name])


def test_a_folder_whose_fixtures_sit_in_subfolders_says_where(tmp_path: Path) -> None:
    write_fixture(tmp_path / "suite" / "smoke", "a.json", PASSING)
    write_fixture(tmp_path / "suite" / "deep" / "er", "b.json", PASSING)
    assert fixture_files([tmp_path / "suite"]) == []
    hint = nested_fixtures_hint(tmp_path / "suite")
    assert hint is not None
    assert hint.startswith("a suite is one folder, not searched recursively: deep/er/, smoke/ under ")
    assert nested_fixtures_hint(tmp_path / "suite" / "smoke") is None
