"""Judge checks: asking a judge model and grading by its recorded verdict (`check`),
measuring a judge against a person (`calibration`), and which judge checks decide a
case (`gate`)."""
