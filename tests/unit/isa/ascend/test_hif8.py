"""isa/ascend/hif8.py: HiFloat8 values of all 256 codes, checked against a decoder written the way
MindSpore's `HiFloat8::ToFloat32` reads the bits (masks on the byte), the paper's landmarks, and
the exact encoder's round trip and edges (the table's ends, -0, values past the largest finite,
values judged in float64)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mmair.isa.ascend.hif8 import (
    HIF8_MAX,
    HIF8_MIN_SUBNORMAL,
    HIF8_VALUES,
    decode_hif8,
    encode_hif8_exact,
    hif8_value,
)


def mask_decoder(v: int) -> float:
    """The bit tests of MindSpore's ToFloat32 (mindspore/core/base/hifloat8.h)."""
    sign = -1.0 if v & 0x80 else 1.0
    if v & 0x78 == 0:  # dot 0000: zero, NaN, or 2^(M - 23)
        if v == 0x80:
            return math.nan
        return 0.0 if v == 0 else sign * 2.0 ** ((v & 7) - 23)
    if v & 0x78 == 0x08:  # dot 0001: E = 0
        return sign * (1 + (v & 7) / 8)
    if v & 0x70 == 0x10:  # dot 001: E = +-1
        return sign * 2.0 ** (-1 if v & 0x08 else 1) * (1 + (v & 7) / 8)
    if v & 0x7F == 0x6F:
        return sign * math.inf
    width = ((v & 0x60) >> 5) + 1  # dot 01 / 10 / 11: 2 / 3 / 4 exponent bits
    mantissa_bits = 5 - width
    magnitude = (1 << (width - 1)) + ((v & 0x0F) >> mantissa_bits)
    exponent = -magnitude if v & 0x10 else magnitude
    return sign * 2.0**exponent * (1 + (v & ((1 << mantissa_bits) - 1)) / (1 << mantissa_bits))


def test_every_code_matches_the_bit_mask_decoder():
    for code in range(256):
        want, got = mask_decoder(code), hif8_value(code)
        assert (math.isnan(want) and math.isnan(got)) or want == got, hex(code)


@pytest.mark.parametrize("code, value", [
    (0x00, 0.0), (0x08, 1.0), (0x88, -1.0), (0x10, 2.0), (0x18, 0.5), (0x20, 4.0), (0x28, 8.0),
    (0x30, 0.25), (0x6E, 2.0**15), (0x6F, math.inf), (0xEF, -math.inf), (0x01, 2.0**-22),
    (0x07, 2.0**-16), (0x0C, 1.5),
])
def test_landmarks(code, value):
    assert hif8_value(code) == value


def test_range_nan_and_distinct_values():
    assert math.isnan(hif8_value(0x80))
    finite = HIF8_VALUES[np.isfinite(HIF8_VALUES)]
    assert np.abs(finite).max() == HIF8_MAX
    assert np.abs(finite[finite != 0]).min() == HIF8_MIN_SUBNORMAL
    assert np.unique(finite).size == finite.size  # one code per value (no -0)


def test_exact_encoder_round_trips_and_refuses_other_values():
    codes = np.array([c for c in range(256) if c != 0x80], dtype=np.uint8)
    np.testing.assert_array_equal(encode_hif8_exact(decode_hif8(codes)), codes)
    assert encode_hif8_exact(np.array([math.nan]))[0] == 0x80
    with pytest.raises(ValueError, match=r"1\.0625 is not a HiF8 value"):
        encode_hif8_exact(np.array([1.0, 1.0625]))
    with pytest.raises(ValueError, match="a HiF8 code is a byte, got 256"):
        hif8_value(256)


HIF8_MATMUL = """builtin.module attributes {pto.target = "a5"} {
  func.func @mm(%a: memref<32x48x!pto.hif8>, %b: memref<48x40x!pto.hif8>, %c: memref<32x40xf32>) {
    pto.matmul %a, %b, %c : memref<32x48x!pto.hif8>, memref<48x40x!pto.hif8>, memref<32x40xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("passes", ["mmair-lower", "mmair-lower,pto-expand-params"])
def test_hif8_matmul_runs_and_passes_check_numpy(tmp_path, capsys, passes):
    """hif8 operands (uint8 codes in .npy) are decoded by the executor's mad / mmad and by the
    reference: C = decode(A) @ decode(B), tile level and raw forms."""
    from mmair.tools.run import main

    rng = np.random.default_rng(4)
    finite = np.array([c for c in range(256) if np.isfinite(HIF8_VALUES[c])
                       and abs(HIF8_VALUES[c]) <= 8], dtype=np.uint8)
    a, b = rng.choice(finite, (32, 48)), rng.choice(finite, (48, 40))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    (tmp_path / "k.mlir").write_text(HIF8_MATMUL)
    code = main([str(tmp_path / "k.mlir"), "-p", passes, "--sync-check", "off", "--check-numpy",
                 f"--input=a={tmp_path / 'a.npy'}", f"--input=b={tmp_path / 'b.npy'}",
                 "--output", f"c={tmp_path / 'c.npy'}"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.splitlines()[-1].endswith(": ok"), out
    want = decode_hif8(a) @ decode_hif8(b)
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), want, rtol=1e-6, atol=1e-4)


# The exact encoder (encode_hif8_exact): the table's edges, -0, values past the largest finite


def test_hif8_encoder_edges_of_the_table():
    # Literal codes from the HiF8 definition (module docstring of isa/ascend/hif8.py):
    # 0x01 = 2^-22 (denormal M = 1), 0x07 = 2^-16 (M = 7), 0x08 = 1.0 (dot 0001), 0x6E = 2^15,
    # 0x6F / 0xEF = +-inf, sign bit 0x80 for negative values.
    values = np.array([2.0**-22, -(2.0**-22), 2.0**-16, 1.0, -1.0, 2.0**15, -(2.0**15),
                       math.inf, -math.inf])
    want = [0x01, 0x81, 0x07, 0x08, 0x88, 0x6E, 0xEE, 0x6F, 0xEF]
    assert encode_hif8_exact(values).tolist() == want


def test_hif8_negative_zero_is_code_zero_not_nan():
    # 0x80 is NaN in HiF8 (there is no -0): -0.0 encodes as 0x00
    assert encode_hif8_exact(np.array([-0.0, 0.0, math.nan])).tolist() == [0x00, 0x00, 0x80]


def test_hif8_values_past_the_largest_finite_are_refused():
    # 2^16 sorts between 2^15 (0x6E) and +inf (0x6F): not a HiF8 value, one clear message
    with pytest.raises(ValueError, match=r"^65536\.0 is not a HiF8 value$"):
        encode_hif8_exact(np.array([1.0, 2.0**16]))
    with pytest.raises(ValueError, match=r"^-1e\+300 is not a HiF8 value$"):
        encode_hif8_exact(np.array([-1e300]))


def test_hif8_encoder_judges_values_in_float64():
    # 1 + 2^-30 rounds to 1.0 in float32: a float64 value that is not HiF8 must not pass
    with pytest.raises(ValueError, match=r"^1\.0000000009313226 is not a HiF8 value$"):
        encode_hif8_exact(np.array([1.0 + 2.0**-30]))
