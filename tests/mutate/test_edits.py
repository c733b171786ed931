"""The smallest changes a mutant makes (`zeroclaw_eval.mutate.edits`)."""

from __future__ import annotations

from zeroclaw_eval.mutate.edits import leaves, nudge_bytes, nudge_number, nudge_text, replaced, without


def test_nudge_changes_the_last_character_and_never_leaves_a_value_alone() -> None:
    assert nudge_text("Paris") == "Parix"
    assert nudge_text("max") == "may"  # an "x" becomes "y": the text always changes
    assert nudge_text("") == "x"
    assert nudge_bytes(b"ab") == b"ax"
    assert nudge_bytes(b"") == b"x"
    assert nudge_number(41) == 42
    assert nudge_number(1.5) == 2.5


def test_leaves_lists_every_string_and_number_with_its_pointer_but_no_bool() -> None:
    value = {"a/b": "x", "n": 3, "flag": True, "list": [1, {"t~": "y"}], "none": None}
    assert leaves(value) == [("/a~1b", "x"), ("/n", 3), ("/list/0", 1), ("/list/1/t~0", "y")]
    assert leaves("raw text") == [("", "raw text")]


def test_replaced_changes_only_the_member_at_the_pointer() -> None:
    value = {"a/b": "x", "list": [1, {"t~": "y"}], "": {"": 5}}
    changed = replaced(value, "/list/1/t~0", "z")
    assert changed == {"a/b": "x", "list": [1, {"t~": "z"}], "": {"": 5}}
    assert value["list"][1] == {"t~": "y"}  # the original is untouched
    assert replaced(value, "/a~1b", "q")["a/b"] == "q"
    assert replaced(value, "//", 6)[""] == {"": 6}  # empty keys are members too
    assert replaced("raw", "", "new") == "new"
    assert without({"a": 1, "b": 2}, "a") == {"b": 2}
