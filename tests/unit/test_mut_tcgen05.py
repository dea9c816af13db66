"""tcgen05 executor behaviours the mutation harness found unpinned (docs/mutation.md, area
`executor-tcgen05`): the element decoders return float32 (the MMA's f32 arithmetic relies on it),
`encode_scale` refuses values that its scale format cannot hold exactly, and A given in TMEM as
raw containers needs M rows. Expected values are
literals from the format definitions (OCP MX v1.0: E4M3 bias 7, E8M0 = 2^(e - 127); IEEE f16)."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.tcgen05_kernels import (
    SharedMemory,
    Tcgen05ExecutionError,
    TensorMemory,
    decode_elements,
    decode_ue4m3,
    decode_ue8m0,
    encode_elements,
    encode_scale,
    mma,
    read_d,
    read_scale_factors,
    write_smem_operand,
)
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc


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


def test_a_in_tmem_given_as_raw_containers_needs_m_rows():
    # A (M x K) given as the container integers of its TMEM memref (the interpreter's form):
    # exactly M rows suffice; one fewer is one error naming the shape.
    rng = np.random.default_rng(18)
    a = rng.integers(-4, 5, (128, 16)).astype(np.float32)
    b = rng.integers(-4, 5, (16, 64)).astype(np.float32)
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(64)
    # B^T (N x K) K-major without swizzle: 8-element core matrices, next K unit 128 B on, next
    # 8 rows 256 B on (PTX ISA, "Shared memory matrix layout").
    desc = SmemDesc(start=0, lbo=128, sbo=256, base_offset=0, swizzle="none")
    write_smem_operand(smem, desc, b.T, major="k", type_name="bf16", kind="f16")
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32"))
    raw = encode_elements(a, "bf16")
    mma(smem, tmem, kind="f16", d=d, a=0, a_in_tmem=True, a_raw=raw, b=encode_smem_desc(desc),
        idesc=idesc, enable_input_d=False)
    assert np.array_equal(read_d(tmem, d, "f32", 128, 64), a @ b)
    with pytest.raises(Tcgen05ExecutionError, match=r"requires A in tensor memory to hold 128x16 elements, "
                                        r"got shape 127x16"):
        mma(smem, tmem, kind="f16", d=d, a=0, a_in_tmem=True, a_raw=raw[:127],
            b=encode_smem_desc(desc), idesc=idesc, enable_input_d=False)


def test_scale_factors_of_a_come_from_their_own_lane_and_of_b_from_quadrant_0():
    # docs/executor-tcgen05.md: the scale of operand row r sits in lane r % 32 of each 32-lane
    # quadrant, column r // 32, byte sf_id; A row m is read from its own lane m, B column n from
    # quadrant 0. Here each quadrant holds different bytes (a writer that did not duplicate
    # them), so the two readings differ.
    tmem = TensorMemory()
    base = tmem.alloc(32)
    cells = tmem.cells.view(np.uint8).reshape(128, 512, 4)
    for lane in range(128):
        for column in range(4):
            cells[lane, base + column, 0] = lane + 128 * (column % 2)  # byte 0 names its cell
    rows = np.arange(128)
    a = read_scale_factors(tmem, base, operand="a", rows=128, count=1, sf_id=0)
    b = read_scale_factors(tmem, base, operand="b", rows=128, count=1, sf_id=0)
    assert a[:, 0].tolist() == (rows + 128 * (rows // 32 % 2)).tolist()  # lane m, column m // 32
    assert b[:, 0].tolist() == (rows % 32 + 128 * (rows // 32 % 2)).tolist()  # quadrant 0
