"""`zeroclaw_eval._support.json.pointer`: building and resolving JSON pointers (RFC 6901)."""

from __future__ import annotations

from typing import Any

import pytest

from zeroclaw_eval._support.json.pointer import (
    MISSING,
    escape_pointer_token,
    join_pointer,
    parent_pointer,
    resolve_pointer,
)


def test_pointer_helpers_escape_per_rfc6901() -> None:
    assert escape_pointer_token("a/b~c") == "a~1b~0c"
    # "~" is escaped first so "~1" in a key does not turn into "/".
    assert escape_pointer_token("~1") == "~01"
    assert (
        join_pointer("/expects", "file_contains", "dir/out.txt", 0) == "/expects/file_contains/dir~1out.txt/0"
    )
    assert join_pointer("") == ""
    assert parent_pointer("/a/b") == "/a"
    assert parent_pointer("/a") == ""
    assert parent_pointer("") == ""


DOCUMENT = {"a/b": 1, "m~n": 2, "list": [10, {"x": "y"}], "": "empty key", "0": "zero"}


@pytest.mark.parametrize(
    ("pointer", "expected"),
    [
        ("", DOCUMENT),
        ("/a~1b", 1),
        ("/m~0n", 2),
        ("/list/0", 10),
        ("/list/1/x", "y"),
        ("/", "empty key"),
        ("/0", "zero"),
    ],
)
def test_resolve_pointer(pointer: str, expected: Any) -> None:
    assert resolve_pointer(DOCUMENT, pointer) == expected


@pytest.mark.parametrize(
    "pointer",
    [
        "/a/b",
        "/missing",
        "/list/2",
        "/list/01",
        "/list/-",
        "/list/-1",
        "/list/+1",
        "/list/x",
        "/list/0/deeper",
        "/list/1/x/y",
        "/list/ 1",
        "/list/1.0",
    ],
)
def test_unresolvable_pointer_is_missing(pointer: str) -> None:
    assert resolve_pointer(DOCUMENT, pointer) is MISSING


def test_tilde_escapes_decode_in_order() -> None:
    # "~01" is "~1" literally (decode ~1 first, then ~0), not "/".
    document = {"~1": "tilde-one", "/": "slash"}
    assert resolve_pointer(document, "/~01") == "tilde-one"
    assert resolve_pointer(document, "/~1") == "slash"


@pytest.mark.parametrize(
    "token", ["\u0661", "\u00b2", "\uff11"], ids=["arabic-indic-1", "superscript-2", "fullwidth-1"]
)
def test_array_index_accepts_only_ascii_digits(token: str) -> None:
    # RFC 6901: an array index is ASCII digits. Other Unicode digits name no element,
    # and resolving them must not raise (a grader never raises).
    assert resolve_pointer([10, 20, 30], "/" + token) is MISSING
