"""`zeroclaw_eval._support.redaction`: every occurrence of every real secret replaced, placeholders
left alone."""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from zeroclaw_eval._support.redaction import MIN_SECRET_LENGTH, REDACTED, forms, scrub


def test_scrub_replaces_every_occurrence_of_every_secret_and_ignores_placeholders() -> None:
    secrets = ["sk-first-secret", "", "EMPTY", "sk-other-secret"]
    text = "a sk-first-secret b sk-first-secret c sk-other-secret, EMPTY stays"
    assert scrub(text, secrets) == f"a {REDACTED} b {REDACTED} c {REDACTED}, EMPTY stays"
    assert scrub({"sk-first-secret": ["x sk-other-secret"]}, secrets) == {REDACTED: [f"x {REDACTED}"]}
    assert scrub("nothing here", [""]) == "nothing here"


def test_a_secret_of_eight_characters_is_scrubbed_and_one_of_seven_is_left() -> None:
    # Local servers accept short placeholder keys (`ollama`, `EMPTY`); replacing those would
    # mangle ordinary words. The boundary: eight characters is a real secret.
    assert MIN_SECRET_LENGTH == 8
    assert scrub("key=abcdefgh!", ["abcdefgh"]) == f"key={REDACTED}!"
    assert scrub("key=abcdefg!", ["abcdefg"]) == "key=abcdefg!"


# A key as it may arrive: pasted with its line ending, and with the characters that
# escaping and URL-encoding change (`/`, `+`, `=`, a quote, a backslash).
ODD_KEY = "sk-zeroclaw_user/+=\"'\\0123456789\n"


def _shapes(key: str) -> dict[str, str]:
    """The shapes a server or library may echo `key` in."""
    stripped = key.strip()
    return {
        "raw": key,
        "stripped": stripped,
        "repr": repr(key),
        "bytes repr": repr(f"Bearer {key}".encode()),
        "json": json.dumps(key),
        "json, slash escaped": json.dumps(stripped).replace("/", "\\/"),
        "url": quote(key, safe=""),
        "url, stripped": quote(stripped),
        "url, lower-case escapes": quote(stripped, safe="").replace("%2F", "%2f").replace("%2B", "%2b"),
        "form": quote_plus(stripped),
    }


@pytest.mark.parametrize("shape", list(_shapes(ODD_KEY)))
def test_every_shape_of_a_secret_is_scrubbed(shape: str) -> None:
    shown = _shapes(ODD_KEY)[shape]
    scrubbed = scrub(f"before {shown} after", [ODD_KEY])
    assert REDACTED in scrubbed
    assert "0123456789" not in scrubbed, f"the {shape} shape leaks: {scrubbed!r}"


def test_the_literal_shapes_of_a_plain_key_are_the_key_reversed_and_in_base64() -> None:
    # A key of letters, digits and dashes reads the same escaped and URL-encoded.
    shapes = forms("sk-plain-0123")
    assert "sk-plain-0123" in shapes
    assert "3210-nialp-ks" in shapes
    assert all(shape.isascii() for shape in shapes)


KEY = "sk-live-zeroclaw-5e8a0d13f7b2c946"  # 34 characters, as the sweep's


def test_a_key_cut_in_an_error_message_leaves_no_half_of_it() -> None:
    # CPython quotes at most 200 characters of the text an int() could not read.
    try:
        int("x" * 173 + KEY)
    except ValueError as exc:
        message = str(exc)
    assert KEY not in message
    assert KEY[:20] in message  # the cut key, as CPython left it
    assert KEY[:17] not in scrub(message, [KEY])
    assert scrub(f"{KEY[-20:]} and on", [KEY]) == f"{REDACTED} and on"


def test_a_fragment_shorter_than_half_the_key_is_left_alone() -> None:
    assert scrub("sk-live-zer is a prefix", [KEY]) == "sk-live-zer is a prefix"


@pytest.mark.parametrize(
    "shown",
    [
        KEY.replace("s", "\\u0073", 1),  # one character written as a JSON escape
        KEY.replace("z", "\\u007A"),  # upper-case hex
        KEY.replace("-", "\\\\u002d"),  # escaped again
        "\u200b".join(KEY),  # zero-width spaces between its characters: it displays as the key
        "\u2060".join(KEY[:20]) + KEY[20:],
        KEY[::-1],
    ],
    ids=["one-escape", "upper-hex", "escaped-twice", "zero-width", "word-joiner", "reversed"],
)
def test_a_key_written_otherwise_is_scrubbed(shown: str) -> None:
    scrubbed = scrub(f"args: {shown} end", [KEY])
    assert REDACTED in scrubbed
    assert "5e8a0d13" not in scrubbed
    assert "31d0a8e5" not in scrubbed


@pytest.mark.parametrize("before", ["", "a", "ab", "abc"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_key_inside_base64_text_is_scrubbed_at_any_alignment(before: str, encode: Any) -> None:
    text = encode(f"{before}Authorization: Bearer {KEY} trailing".encode()).decode("ascii")
    scrubbed = scrub(f"blob={text}", [KEY])
    assert REDACTED in scrubbed
    decoded = base64.b64decode(text)
    assert KEY.encode() in decoded  # the text did carry the key


def test_a_stripped_shape_too_short_to_be_a_secret_is_left_alone() -> None:
    shapes = forms("abc\n\n\n\n\n\n")
    assert "abc\n\n\n\n\n\n" in shapes
    assert all(len(shape) >= MIN_SECRET_LENGTH for shape in shapes)
    assert scrub("abc is a word", ["abc\n\n\n\n\n\n"]) == "abc is a word"


def test_a_shape_escaped_twice_is_scrubbed() -> None:
    # A check's detail JSON-quotes the model's text, which held the key already escaped.
    twice = json.dumps(repr(ODD_KEY))
    assert "0123456789" not in scrub(twice, [ODD_KEY])
