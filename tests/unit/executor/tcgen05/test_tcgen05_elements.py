"""Element and scale encodings of the tcgen05 executor (executor/tcgen05/elements.py): values reach
an element type through f32, integers keep their low byte, narrow floats leave the container's
high bits clear, the decoders return float32 (integers int64), scales are unsigned and refused
when their format cannot hold them exactly. Expected values are literals from the format
definitions (IEEE f16/bf16, OCP MX v1.0: E4M3 bias 7, E8M0 = 2^(e - 127))."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.tcgen05.elements import (
    decode_elements,
    decode_ue4m3,
    decode_ue8m0,
    encode_elements,
    encode_scale,
)


def test_values_reach_the_element_type_through_f32_and_integers_keep_their_low_byte():
    # A thread holds an operand value as an f32 and converts that (ml_dtypes converts f64
    # through f32 for its own types, so bf16 and f16 agree): 1 + 2^-11 + 2^-30 is 1 + 2^-11 in
    # f32 (2^-30 is below half an f32 ulp), an f16 tie rounded to even: 1.0 = 0x3C00, not the
    # 1 + 2^-10 (0x3C01) of a direct f64 -> f16 rounding.
    assert encode_elements(np.array([1 + 2.0**-11 + 2.0**-30]), "f16").tolist() == [0x3C00]
    assert encode_elements(np.array([1 + 2.0**-8 + 2.0**-30]), "bf16").tolist() == [0x3F80]
    assert encode_elements(np.array([-1, -128, 127, 5]), "s8").tolist() == [0xFF, 0x80, 0x7F, 5]
    assert encode_elements(np.array([255, 128, 0]), "u8").tolist() == [0xFF, 0x80, 0x00]
    # the container is the integer's low byte, also past 2^24 (where an f32 would round it)
    assert encode_elements(np.array([2**24 + 1, -129]), "s8").tolist() == [0x01, 0x7F]


@pytest.mark.parametrize(("type_name", "width"), [("e2m1", 4), ("e2m3", 6), ("e3m2", 6)])
def test_narrow_float_encodings_leave_the_container_high_bits_clear(type_name, width):
    # The SMEM/TMEM stores rely on it (they OR the value into bytes shared with neighbours):
    # every value of the type, and NaN, infinities and out-of-range values, encode below 2^width.
    every_code = np.arange(1 << width, dtype=np.uint8)
    values = np.concatenate([decode_elements(every_code, type_name),
                             [np.nan, np.inf, -np.inf, 1e9, -1e9, -0.0]])
    codes = encode_elements(values, type_name)
    assert codes.dtype == np.uint8 and int(codes.max()) < 1 << width
    assert np.array_equal(codes[:1 << width], every_code)  # and each code round-trips


def test_ue4m3_scales_are_unsigned():
    assert encode_scale(np.array([2.0**-9, 448.0]), "ue4m3").tolist() == [0x01, 0x7E]
    with pytest.raises(ValueError, match=r"^scale values are not exactly representable as ue4m3$"):
        encode_scale(np.array([-1.0]), "ue4m3")


@pytest.mark.parametrize(("raw", "type_name", "value"), [
    (np.array([0x38], np.uint8), "e4m3", 1.0),        # 0 0111 000: 2^(7-7)
    (np.array([0x3C], np.uint8), "e5m2", 1.0),        # 0 01111 00: 2^(15-15)
    (np.array([0x08], np.uint8), "e2m3", 1.0),        # 0 01 000: 2^(1-1)
    (np.array([0x02], np.uint8), "e2m1", 1.0),        # 0 01 0
    (np.array([0x3C00], np.uint16), "f16", 1.0),
    (np.array([0x3F80], np.uint16), "bf16", 1.0),
])
def test_float_elements_decode_to_float32(raw, type_name, value):
    got = decode_elements(raw, type_name)
    assert got.dtype == np.float32
    assert got.tolist() == [value]


def test_scale_bytes_decode_to_float32():
    ue4m3 = decode_ue4m3(np.array([0x38, 0x01], np.uint8))  # 1.0; the smallest subnormal 2^-9
    assert ue4m3.dtype == np.float32 and ue4m3.tolist() == [1.0, 2.0 ** -9]
    ue8m0 = decode_ue8m0(np.array([127, 130], np.uint8))
    assert ue8m0.dtype == np.float32 and ue8m0.tolist() == [1.0, 8.0]


def test_encode_scale_refuses_inexact_values():
    assert encode_scale(np.array([1.0, 0.25]), "ue8m0").tolist() == [127, 125]
    assert encode_scale(np.array([1.0, 1.125]), "ue4m3").tolist() == [0x38, 0x39]
    for value, scale_type in ((3.0, "ue8m0"), (1.0 + 2.0 ** -30, "ue8m0"),
                              (1.0 + 2.0 ** -30, "ue4m3"), (1.0625, "ue4m3")):
        with pytest.raises(ValueError, match=f"not exactly representable as {scale_type}"):
            encode_scale(np.array([value]), scale_type)


def test_ue4m3_ignores_bit_7_and_integer_elements_decode_to_int64():
    # UE4M3 is unsigned E4M3 (bias 7) in a byte whose bit 7 is ignored: 0x38 and 0xB8 are 1.0,
    # 0x7F and 0xFF are NaN (OCP MX v1.0 / CUTLASS float_ue4m3_t)
    got = decode_ue4m3(np.array([0x38, 0xB8, 0x7F, 0xFF, 0x01], np.uint8))
    assert got.dtype == np.float32
    assert got[:2].tolist() == [1.0, 1.0] and np.isnan(got[2:4]).all()
    assert got[4] == np.float32(2.0**-9)  # subnormal: 1/8 * 2^-6
    for type_name, expected in (("u8", [255, 128, 1]), ("s8", [-1, -128, 1])):
        values = decode_elements(np.array([0xFF, 0x80, 0x01], np.uint8), type_name)
        assert values.dtype == np.int64 and values.tolist() == expected
