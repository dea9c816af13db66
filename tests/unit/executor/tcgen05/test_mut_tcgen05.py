"""tcgen05 executor behaviours the mutation harness found unpinned (docs/mutation.md, area
`executor-tcgen05`): the element decoders return float32 (the MMA's f32 arithmetic relies on it),
`encode_scale` refuses values that its scale format cannot hold exactly, and A given in TMEM as
raw containers needs M rows. Expected values are
literals from the format definitions (OCP MX v1.0: E4M3 bias 7, E8M0 = 2^(e - 127); IEEE f16)."""

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
from mmair.executor.tcgen05.kernels import mma
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import read_d, read_scale_factors, write_smem_operand
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


@pytest.mark.parametrize(("idesc", "kwargs", "message"), [
    # a sparse MMA reads its metadata from TMEM: no address is one error
    (InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32", sparse=True),
     {"sparse": True}, r"^requires a sparse-metadata TMEM address for a sparse MMA$"),
    # a sparsity selector other than 0 is legal PTX, not modelled
    (InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32", sparse=True,
               sparsity_selector=1),
     {"sparse": True, "sparse_metadata": 0},
     r"^uses sparsity selector 1 \(only 0 is modelled\), which the executor does not model$"),
    # block-scaled kinds read both scale-factor tiles from TMEM
    (InstrDesc(kind="mxf8f6f4", m=128, n=64, atype="e4m3", btype="e4m3", scale_type="ue8m0"),
     {"scale_a": 0}, r"^requires scale_A and scale_B TMEM addresses for kind::mxf8f6f4$"),
])
def test_mma_refuses_missing_tmem_operands_and_unmodelled_forms(idesc, kwargs, message):
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(64)
    desc = encode_smem_desc(SmemDesc(start=0, lbo=128, sbo=256, base_offset=0, swizzle="none"))
    with pytest.raises(Tcgen05ExecutionError, match=message):
        mma(smem, tmem, kind=idesc.kind, d=d, a=desc, b=desc, idesc=encode_idesc(idesc),
            enable_input_d=False, **kwargs)


def test_memories_check_their_sizes_and_bounds_to_the_last_byte():
    from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA

    assert SMEM_BYTES_PER_CTA == 228 * 1024  # 228 KB per CTA (sm_100)
    smem = SharedMemory()
    smem.check_range(0, SMEM_BYTES_PER_CTA, "the operand")  # ends exactly at the last byte
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires the operand inside the 233472-byte "
                                                    r"shared memory, got bytes \[0x38f00, 0x39001\)$"):
        smem.check_range(0x38F00, SMEM_BYTES_PER_CTA + 1, "the operand")
    with pytest.raises(Tcgen05ExecutionError, match=r"got bytes \[-0x10, 0x10\)$"):
        smem.check_range(-16, 16, "the operand")
    with pytest.raises(ValueError, match=r"^shared memory must be 233472 uint8 bytes$"):
        SharedMemory(np.zeros(1024, np.uint8))
    with pytest.raises(ValueError, match=r"^tensor memory must be a \(128, 512\) uint32 array$"):
        TensorMemory(np.zeros((128, 512), np.int32))
    tmem = TensorMemory()
    tmem.alloc(512)
    tmem.check_access(96, 480, 32, 32, "D")  # the last lanes and columns: inside
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires D inside tensor memory \(128 lanes x "
                                                    r"512 columns\), got lanes \[96, 128\) columns "
                                                    r"\[481, 513\)$"):
        tmem.check_access(96, 481, 32, 32, "D")


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
