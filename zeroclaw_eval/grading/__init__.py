"""Stage 3: a `RunRecord` is graded against the fixture's `expects`, one `GradeResult` per check."""
