"""Hypothesis profiles for the fuzz tests: a quick `default` for local runs, and `ci`
(thousands of examples in all, derandomized and database-free so every CI run tries the
same inputs) chosen by `HYPOTHESIS_PROFILE=ci`, which `.ci/run` sets."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

# A single fuzz example can write a suite to disk and run it; the machine's speed is no
# verdict, so no deadline and no "too slow" health check. Example sizes are bounded by
# the strategies instead (see tests/fuzz/hostile.py).
_COMMON = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
}
settings.register_profile("default", max_examples=40, **_COMMON)
settings.register_profile(
    "ci",
    max_examples=1000,
    derandomize=True,
    database=None,
    # Shrinking a failure found in CI would cost minutes; the blob printed reproduces it
    # locally (`@reproduce_failure`), where shrinking is cheap to do by hand.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
    **_COMMON,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
