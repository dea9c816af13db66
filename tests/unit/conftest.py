"""Hypothesis profiles: no per-example deadline (the 2-core machines are shared and BLAS timing
swings a lot); under CI (CI=true) the examples are derandomized so a run is reproducible."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
