"""The last stage: a rendered report sent where people read it, beyond files and the
CI log: the pull request's sticky comment (`comment`)."""
