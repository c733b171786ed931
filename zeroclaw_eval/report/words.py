"""Counts in words, the one way every output spells them: `1 case`, `2 cases`."""

from __future__ import annotations


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 case`, `2 cases` (`many` for a plural not made with -s)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


#: Why an empty suite fails every command that gates on it.
NOTHING_RAN = "a gate that ran nothing certifies nothing"


#: What a run error is, said wherever run errors are counted: a reader who sees "2 errors"
#: takes them for a crash of the gate, where most are the agent's own.
RUN_ERROR_MEANING = (
    "A run error is a case that could not finish: the agent raised, timed out or strayed from"
    " its script, or a live provider failed; each case says which."
)
