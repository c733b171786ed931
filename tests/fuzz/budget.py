"""How many examples a fuzz test runs: a share of the profile's `max_examples` (see
conftest.py), for the tests whose single example is costly (a whole run, five reports),
so that the CI profile stays within a few minutes on a two-core machine."""

from __future__ import annotations

from hypothesis import settings


def share(fraction: float) -> settings:
    """Settings of the loaded profile with `fraction` of its examples (at least 10)."""
    return settings(max_examples=max(10, int(settings.default.max_examples * fraction)))
