"""`zeroclaw_eval.mutate.suggest.add_check`: a suggested check added to a fixture's raw
`expects` as its words say, keeping what was there."""

from __future__ import annotations

from typing import Any

from zeroclaw_eval.mutate.suggest import add_check


def test_a_list_member_is_appended_once_and_a_block_is_merged() -> None:
    expects: dict[str, Any] = {
        "response_contains": ["a"],
        "workspace": {"file_contains": {"out.txt": ["x"]}},
    }
    add_check(expects, {"response_contains": ["a", "b"]})
    add_check(expects, {"workspace": {"file_contains": {"out.txt": ["y"], "log.txt": ["z"]}}})
    add_check(expects, {"workspace": {"file_exists": ["out.txt"]}})
    add_check(expects, {"budget": {"max_llm_calls": 2}})
    add_check(expects, {"all_tools_succeeded": True})
    assert expects == {
        "response_contains": ["a", "b"],
        "workspace": {"file_contains": {"out.txt": ["x", "y"], "log.txt": ["z"]}, "file_exists": ["out.txt"]},
        "budget": {"max_llm_calls": 2},
        "all_tools_succeeded": True,
    }


def test_the_check_added_is_a_copy() -> None:
    check: dict[str, Any] = {"tool_results_contain": [{"tool": "echo", "needle": "hi", "call_index": 0}]}
    expects: dict[str, Any] = {}
    add_check(expects, check)
    expects["tool_results_contain"][0]["needle"] = "changed"
    assert check["tool_results_contain"][0]["needle"] == "hi"
