"""The commands that serve live suites beyond running them: a judge calibrated against a
person (`calibrate`)."""
