"""isa.ascend.mad_modes: TF32 rounding of f32 Mmad inputs (ties to even / away from zero on the
13 dropped mantissa bits) and the float `sat` mode (inputs normalised, result saturated)."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.isa.ascend import mad_modes

ULP = 2.0 ** -10  # one TF32 unit at 1.0


def _f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def test_round_even_breaks_ties_to_the_even_tf32_mantissa() -> None:
    x = _f32(1 + ULP / 2, 1 + ULP + ULP / 2, -(1 + ULP / 2), 1 + ULP / 2 + 2.0 ** -23)
    got = mad_modes.round_tf32(x, "round_even")
    np.testing.assert_array_equal(got, _f32(1, 1 + 2 * ULP, -1, 1 + ULP))


def test_round_away_breaks_ties_away_from_zero() -> None:
    x = _f32(1 + ULP / 2, -(1 + ULP / 2), 1 + ULP / 2 - 2.0 ** -23)
    got = mad_modes.round_tf32(x, "round_away")
    np.testing.assert_array_equal(got, _f32(1 + ULP, -(1 + ULP), 1))


@pytest.mark.parametrize("mode", mad_modes.TF32_MODES)
def test_tf32_rounding_keeps_ten_mantissa_bits_and_passes_inf_nan(mode: str) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal(1000).astype(np.float32)
    got = mad_modes.round_tf32(x, mode)
    assert not np.any(got.view(np.uint32) & np.uint32((1 << 13) - 1))
    assert np.all(np.abs(got - x) <= np.abs(x) * 2.0 ** -11)
    special = mad_modes.round_tf32(_f32(np.inf, -np.inf, np.nan), mode)
    assert special[0] == np.inf and special[1] == -np.inf and np.isnan(special[2])


def test_rounding_past_the_largest_tf32_value_gives_inf() -> None:
    assert mad_modes.round_tf32(_f32(np.finfo(np.float32).max), "round_even")[0] == np.inf


def test_an_unknown_tf32_mode_is_refused_with_the_legal_set() -> None:
    with pytest.raises(ValueError, match="round_even"):
        mad_modes.round_tf32(_f32(1.0), "truncate")


def test_sat_maps_inf_to_the_input_types_extremes_and_nan_to_zero() -> None:
    a, b = mad_modes.mmad_inputs(_f32(np.inf, -np.inf, np.nan, 2.0), _f32(np.inf, 1.0, 1.0, 1.0),
                                 None, mad_modes.sat_maxima("sat", "f16", "f32"))
    np.testing.assert_array_equal(a, _f32(65504, -65504, 0, 2))
    np.testing.assert_array_equal(b, _f32(np.finfo(np.float32).max, 1, 1, 1))


def test_nosat_and_no_clause_leave_the_operands_alone() -> None:
    assert mad_modes.sat_maxima("nosat", "f32", "f32") is None
    assert mad_modes.sat_maxima(None, "f32", "f32") is None
    a = _f32(np.inf, np.nan)
    out, _ = mad_modes.mmad_inputs(a, a, None, None)
    assert out is a


def test_sat_result_clips_to_the_f32_range() -> None:
    big = float(np.finfo(np.float32).max)
    got = mad_modes.saturate_result(np.array([4e38, -1e39, np.nan, 1.5]))
    np.testing.assert_array_equal(got, [big, -big, 0.0, 1.5])


def test_finite_maxima_come_from_the_element_types() -> None:
    assert mad_modes.finite_max("bf16") == pytest.approx(3.3895313892515355e38)
    assert mad_modes.finite_max("e4m3") == 448.0
    assert mad_modes.finite_max("hif8") == 32768.0
