"""Sub-byte A/B elements in SMEM for kind::f8f6f4 / kind::mxf8f6f4 (PTX ISA §9.7.16.10.4.4): each
16-byte unit of the 8-bit canonical layout holds 16 elements packed contiguously (element i at bits
[w*i, w*i + w), little-endian) followed by padding: 8 bytes for e2m1 (.b4x16_p64), 4 bytes for
e2m3/e3m2 (.b6x16_p32). kind::mxf4* packs two e2m1 per byte without padding.

Expected bytes are built by hand from the element codes (a Python integer per 16-element run).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mmair.executor.tcgen05.memories import SharedMemory
from mmair.executor.tcgen05.operands import read_smem_operand, write_smem_operand
from mmair.isa.tcgen05 import SmemDesc

DTYPES = {"e2m1": ml_dtypes.float4_e2m1fn, "e2m3": ml_dtypes.float6_e2m3fn,
          "e3m2": ml_dtypes.float6_e3m2fn}
WIDTH = {"e2m1": 4, "e2m3": 6, "e3m2": 6}
#: K-major, no swizzle: 8-row core matrices of 16-byte rows; LBO = next 16-byte unit along K.
DESC = SmemDesc(start=0x400, lbo=128, sbo=256)


def codes_to_values(codes: np.ndarray, type_name: str) -> np.ndarray:
    return codes.astype(np.uint8).view(DTYPES[type_name]).astype(np.float32)


@pytest.mark.parametrize("kind", ["f8f6f4", "mxf8f6f4"])
@pytest.mark.parametrize("type_name", ["e2m1", "e2m3", "e3m2"])
def test_padded_packing_in_each_16_byte_unit(kind: str, type_name: str) -> None:
    width = WIDTH[type_name]
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 1 << width, (8, 32))
    if type_name == "e2m1":
        codes[codes == 8] = 0  # -0 reads back as +0 codes only through values; keep codes exact
    smem = SharedMemory()
    smem.data[:] = 0xAA  # padding and untouched bytes keep this
    values = codes_to_values(codes, type_name)
    write_smem_operand(smem, DESC, values, major="k", type_name=type_name, kind=kind)
    for row in range(8):
        for unit in range(2):  # K elements 16*unit .. 16*unit + 15
            run = sum(int(codes[row, 16 * unit + i]) << (width * i) for i in range(16))
            data_bytes = 16 * width // 8  # 8 (e2m1) or 12 (fp6)
            expected = list(run.to_bytes(data_bytes, "little")) + [0xAA] * (16 - data_bytes)
            at = DESC.start + row * 16 + unit * DESC.lbo
            assert list(smem.data[at:at + 16]) == expected, (row, unit)
    back = read_smem_operand(smem, DESC, major="k", type_name=type_name, kind=kind, mn=8, k=32)
    np.testing.assert_array_equal(back, values)


def test_mxf4_packs_two_per_byte_without_padding() -> None:
    codes = np.arange(64).reshape(1, 64) % 16
    codes[codes == 8] = 0
    smem = SharedMemory()
    values = codes_to_values(codes, "e2m1")
    desc = SmemDesc(start=0, lbo=128, sbo=256)
    write_smem_operand(smem, desc, np.repeat(values, 8, axis=0), major="k", type_name="e2m1",
                       kind="mxf4")
    # Row 0: 32 elements per 16-byte unit, element 2j in the low nibble of byte j.
    first = [int(codes[0, 2 * j]) | int(codes[0, 2 * j + 1]) << 4 for j in range(16)]
    assert list(smem.data[0:16]) == first


def test_fp6_element_straddles_bytes() -> None:
    # e3m2 element 1 of a unit occupies bits 6-11: the top 2 bits of byte 0 and the low 4 of byte 1.
    smem = SharedMemory()
    codes = np.zeros((8, 32), dtype=np.int64)
    codes[0, 1] = 0b101101
    write_smem_operand(smem, DESC, codes_to_values(codes, "e3m2"), major="k", type_name="e3m2",
                       kind="f8f6f4")
    assert smem.data[DESC.start] == 0b01 << 6
    assert smem.data[DESC.start + 1] == 0b1011
