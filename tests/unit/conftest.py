"""Hypothesis profiles: no per-example deadline (the 2-core machines are shared and BLAS timing
swings a lot); under CI (CI=true) the examples are derandomized so a run is reproducible. And no
test may leave files in the repository root or its working directory."""

import contextlib
import os
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis imports its patch writer (libcst) only when a test fails; libcst's import warns
# (DeprecationWarning from mypy_extensions), which `-W error` turns into an INTERNALERROR that
# hides the failing test's name and example. Imported here once, its warnings silenced.
with warnings.catch_warnings(), contextlib.suppress(ImportError):
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# A test that writes an output must write it under tmp_path: stray files once reached the repository
# root (`c`, `-1`, ... from a fuzzing run with the repository as working directory) and were
# committed. Each test fails if it leaves a new entry in the repository root or the working directory.
_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_stray_outputs():
    folders = {_ROOT, Path.cwd()}
    before = {folder: set(os.listdir(folder)) for folder in folders}
    yield
    for folder, names in before.items():
        new = set(os.listdir(folder)) - names - {".pytest_cache", "__pycache__", ".hypothesis"}
        assert not new, f"the test left {sorted(new)} in {folder}; write outputs under tmp_path"
