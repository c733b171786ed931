"""`zeroclaw_eval.redaction`: every occurrence of every real secret replaced, placeholders
left alone."""

from __future__ import annotations

from zeroclaw_eval.redaction import MIN_SECRET_LENGTH, REDACTED, scrub


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
