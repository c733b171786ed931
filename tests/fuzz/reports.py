"""Hostile reports as strategies: every text a report carries (model and case names,
paths, details, expected and found values, the record's answers, calls and results, run
errors, rejection messages, fixture sources) drawn from `hostile_text`, lone surrogates
included, as a custom agent could return them."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.fuzz.hostile import hostile_text
from zeroclaw_eval import FieldRef, FixtureProblem, GradeResult, RecordedCall, RunRecord, SuiteReport
from zeroclaw_eval.boundary.record import ModelStep, TurnRecord
from zeroclaw_eval.grading.result import CATEGORIES
from zeroclaw_eval.report.model import CaseError, CaseReport

TEXT = hostile_text(long=False)
#: Where a model's or a tool's text can be long: answers, results, details, sources.
LONG_TEXT = hostile_text()
#: Hostile or absent: the optional texts of a report.
MAYBE_TEXT = st.one_of(st.none(), TEXT)
MAYBE_LONG = st.one_of(st.none(), LONG_TEXT)
#: Positions as a report may carry them: absent, ordinary, huge.
LINES = st.one_of(st.none(), st.integers(1, 5), st.just(10**5))
FIELDS = st.builds(FieldRef, TEXT, LINES, LINES, LINES, LINES)
#: Values a check expected or found: text, or JSON data holding text.
VALUES = st.one_of(
    st.none(),
    TEXT,
    st.integers(),
    st.lists(TEXT, max_size=2),
    st.dictionaries(TEXT, TEXT, max_size=2),
)
GRADES = st.builds(
    GradeResult, TEXT, st.sampled_from(CATEGORIES), st.booleans(), LONG_TEXT, FIELDS, VALUES, VALUES
)
ARGUMENTS = st.one_of(TEXT, st.dictionaries(TEXT, st.one_of(TEXT, st.integers()), max_size=2))
CALLS = st.builds(RecordedCall, st.integers(0, 2), TEXT, TEXT, ARGUMENTS, LONG_TEXT, st.booleans())
STEPS = st.builds(
    ModelStep,
    st.integers(0, 2),
    MAYBE_TEXT,
    st.lists(st.fixed_dictionaries({"id": TEXT, "name": TEXT, "arguments": TEXT}), max_size=2),
    st.integers(0, 10**6),
    st.integers(0, 10**6),
    st.lists(st.sampled_from(["system", "user", "assistant", "tool"]), max_size=3),
    st.lists(TEXT, max_size=2),
    MAYBE_TEXT,
)
RECORDS = st.builds(
    RunRecord,
    st.lists(st.builds(TurnRecord, st.integers(0, 2), TEXT, MAYBE_LONG), min_size=1, max_size=2),
    st.lists(STEPS, max_size=2),
    st.lists(CALLS, max_size=2),
    st.floats(0, 10**6),
)
CASES = st.builds(
    CaseReport,
    TEXT,
    TEXT,
    MAYBE_TEXT,
    st.lists(GRADES, max_size=3),
    st.one_of(st.none(), st.builds(CaseError, TEXT, FIELDS, MAYBE_TEXT)),
    st.lists(st.builds(FixtureProblem, FIELDS, TEXT), max_size=2),
    st.floats(0, 10**6),
    st.one_of(st.none(), RECORDS),
    MAYBE_LONG,
    MAYBE_TEXT,
)
REPORTS = st.builds(
    SuiteReport,
    TEXT,
    st.sampled_from(["replay", "live"]),
    st.lists(CASES, min_size=1, max_size=3),
    st.floats(0, 10**6),
    TEXT,
    st.just(""),
)
