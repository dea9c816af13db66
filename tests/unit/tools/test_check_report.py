"""A failed `--check` names the first differing elements (row-major: indices, got, expected) in
the text line and in `--json`; the relative error of a reference with no finite nonzero element
is worded for what the reference is (all zero, all NaN), never "all zero" for NaNs
(`tools/checks.py`)."""

from __future__ import annotations

import numpy as np

from mmair.tools.checks import FIRST_SHOWN, compare


def test_a_failed_check_names_the_first_differing_indices_with_got_and_expected():
    want = np.arange(12, dtype=np.float32).reshape(3, 4)
    got = want.copy()
    got[1, 2], got[2, 0] = 99.0, -5.0
    check = compare("c", got, want, 0.0, 0.0)
    assert not check.ok and check.failed == 2
    assert [(d.index, d.got, d.expected) for d in check.first] == [([1, 2], 99.0, 6.0),
                                                                  ([2, 0], -5.0, 8.0)]
    assert check.line().endswith("FAILED (2 of 12 elements); first differences at [1, 2] got "
                                 "99, expected 6; [2, 0] got -5, expected 8")


def test_at_most_three_differences_are_listed_then_an_ellipsis():
    want = np.zeros(10, np.float32)
    check = compare("c", np.ones(10, np.float32), want, 0.0, 0.0)
    assert len(check.first) == FIRST_SHOWN == 3
    assert check.line().endswith("[2] got 1, expected 0, ...")


def test_a_passing_check_lists_no_difference():
    want = np.ones((2, 2), np.float32)
    check = compare("c", want.copy(), want, None, None)
    assert check.ok and check.first == [] and "first difference" not in check.line()


def test_an_all_nan_expectation_is_worded_as_nan_not_zero():
    want = np.full(4, np.nan, np.float32)
    check = compare("c", np.zeros(4, np.float32), want, 0.0, 0.0)
    assert not check.ok
    assert "max rel error n/a (reference all NaN)" in check.line()
    assert "all zero" not in check.line()
    assert compare("c", want.copy(), want, 0.0, 0.0).ok  # NaN matches NaN


def test_an_all_zero_reference_keeps_its_wording_and_inf_matches_inf():
    check = compare("c", np.ones(3, np.float32), np.zeros(3, np.float32), 0.0, 0.0)
    assert "max rel error n/a (reference all zero)" in check.line()
    inf = np.array([np.inf, -np.inf, 1.0], np.float32)
    assert compare("c", inf.copy(), inf, 0.0, 0.0).ok
