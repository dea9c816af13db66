"""tcgen05 executor behaviours the mutation harness found unpinned (docs/mutation.md, area
`executor-tcgen05`): the element decoders return float32 (the MMA's f32 arithmetic relies on it),
and `encode_scale` refuses values that its scale format cannot hold exactly. Expected values are
literals from the format definitions (OCP MX v1.0: E4M3 bias 7, E8M0 = 2^(e - 127); IEEE f16)."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.tcgen05_kernels import (
    decode_elements,
    decode_ue4m3,
    decode_ue8m0,
    encode_scale,
)


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
