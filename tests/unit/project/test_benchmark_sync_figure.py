"""The SYNC benchmark row's headline figure (`benchmarks/run.py`, `paired_figure`): the median
of the back-to-back differences over the median checker-off time, so that a load change that
slows both runs of a repetition cancels instead of moving the ratio."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def run_module_of_benchmarks():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import run

        yield run
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_the_paired_figure_is_the_median_difference_and_its_quartiles(run_module_of_benchmarks):
    off = [0.50, 0.70, 0.55, 0.90, 0.60]  # the machine's load moves both runs of a repetition
    on = [x + d for x, d in zip(off, [0.05, 0.07, 0.06, 0.04, 0.08], strict=True)]
    c_off, paired, q1, q3 = run_module_of_benchmarks.paired_figure(on, off)
    assert c_off == pytest.approx(0.60)
    assert paired == pytest.approx(0.06)
    assert (q1, q3) == (pytest.approx(0.045), pytest.approx(0.075))
    assert 1 + paired / c_off == pytest.approx(1.10)
    # the ratio of the medians mixes repetitions of different load: 0.68 / 0.60 = 1.13x
    assert sorted(on)[2] / sorted(off)[2] == pytest.approx(0.68 / 0.60)


def test_one_repetition_has_no_spread(run_module_of_benchmarks):
    assert run_module_of_benchmarks.paired_figure([0.7], [0.6]) == \
        (pytest.approx(0.6), pytest.approx(0.1), pytest.approx(0.1), pytest.approx(0.1))
