"""isa/tcgen05/matmul.py: the tcgen05.matmul plan takes its numbers from the hardware facts: the
ring has as many stages as fit in SMEM next to the mbarriers (at most one per K block), N tiles
are legal MMA N values (multiples of the swizzle atom for an MN-major B), the accumulator is
double-buffered when two fit in TMEM, and what TMA or the MMA cannot do is a DescriptorError."""

from __future__ import annotations

import pytest

from mmair.isa.tcgen05 import layouts, shapes
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import AB_TYPE_CODES, D_TYPE_CODES, LEGAL_DTYPES, encode_idesc
from mmair.isa.tcgen05.matmul import (
    BARRIER_RESERVE,
    D_TYPES,
    plan_matmul,
)
from mmair.isa.tcgen05.tmem_moves import LD_ST_NUMS


def test_stage_count_fills_smem() -> None:
    # f16, N tile 256: a stage is 16 KB of A + 32 KB of B; 4 fit in 228 KB, a 5th does not
    plan = plan_matmul(128, 256, 4096, "f16", "f16", "f32", False, True)
    assert (plan.tile_n, plan.stage_bytes, plan.stages) == (256, 49152, 4)
    assert plan.smem_bytes <= layouts.SMEM_BYTES_PER_CTA
    assert (plan.stages + 1) * plan.stage_bytes > layouts.SMEM_BYTES_PER_CTA - BARRIER_RESERVE
    assert plan.tx_bytes == plan.stage_bytes  # expect_tx announces every box of a stage


def test_stage_count_is_capped_by_the_k_blocks() -> None:
    plan = plan_matmul(128, 64, 128, "f16", "f16", "f32", False, True)
    assert (plan.k_blocks, plan.tiles, plan.stages) == (2, 1, 2)


def test_tile_n_and_boxes_follow_the_operand_majors() -> None:
    k_major = plan_matmul(200, 72, 104, "f16", "f16", "f32", False, True)
    mn_major = plan_matmul(200, 72, 104, "f16", "f16", "f32", False, False)
    assert (k_major.tile_n, k_major.b.boxes, k_major.b.sbo, k_major.b.lbo) == (72, 1, 1024, 16)
    # B as given (K x N row-major) is MN-major: boxes of one 128-byte atom (64 f16) of N
    assert (mn_major.tile_n, mn_major.b.boxes, mn_major.b.lbo) == (128, 2, 8192)
    assert mn_major.b.tensor_map.box == (64, 64)
    assert (mn_major.acc_columns, mn_major.acc_buffers) == (128, 2)
    assert mn_major.idesc().transpose_b and not mn_major.idesc().transpose_a


def test_tf32_mn_major_uses_32_byte_atomicity() -> None:
    plan = plan_matmul(300, 200, 100, "f32", "f32", "f32", True, True)
    assert (plan.kind, plan.block_k, plan.mma_k) == ("tf32", 32, 8)
    assert (plan.a.swizzle, plan.a.sbo) == ("sw128_base32b", 512)
    assert (plan.b.swizzle, plan.b.sbo) == ("sw128", 1024)


def test_epilogue_columns_are_ld_num_values() -> None:
    plan = plan_matmul(128, 256, 64, "f16", "f16", "f32", False, True)
    assert plan.epilogue_columns(256) == [(0, 128), (128, 128)]
    assert plan.epilogue_columns(72) == [(0, 64), (64, 8)]


@pytest.mark.parametrize(("args", "message"), [
    ((200, 72, 100, "f16", "f16", "f32", False, False),
     r"a row = 100 x f16 \(200 bytes\) cannot be a TMA tensor row .*\[TMA5\]"),
    ((128, 64, 64, "s32", "s32", "s32", False, False),
     "a element type = s32 has no tcgen05.matmul kind; legal: f16, bf16, f32, e4m3, e5m2, e2m3, "
     "e3m2, e2m1, s8, u8"),
    ((128, 64, 64, "f16", "e4m3", "f32", False, False), "does not pair with a f16 a"),
    ((128, 64, 64, "s8", "f16", "s32", False, True),
     r"b element type = f16 does not pair with a s8 a \(kind::i8\); legal: s8, u8$"),
    ((128, 64, 64, "f16", "f16", "s32", False, False),
     r"d element type = s32 is not a kind::f16 accumulator; legal: f16, f32 \[R2\]"),
    ((128, 64, 64, "s8", "u8", "f32", False, True),
     r"d element type = f32 is not a kind::i8 accumulator; legal: s32 \[R2\]"),
    ((128, 64, 64, "bf16", "bf16", "f16", False, False),
     r"d element type = f16 is not legal with atype = bf16; legal: f32 \(a bf16 MMA accumulates "
     r"in f32\) \[R3\]"),
    ((128, 64, 64, "e4m3", "e4m3", "f16", False, True),
     r"d element type = f16 is not a kind::f8f6f4 accumulator; legal: f32 \[R2\]$"),
])
def test_what_cannot_be_planned(args: tuple, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        plan_matmul(*args)


def test_kind_i8_needs_an_arch_specific_target() -> None:
    with pytest.raises(DescriptorError, match=r"kind = i8 is not supported on sm_100f; legal: "
                                              r"not i8 .*\[R32\]"):
        plan_matmul(128, 64, 64, "s8", "s8", "s32", False, True, target="sm_100f")


@pytest.mark.parametrize(("a", "b"), [("s8", "s8"), ("s8", "u8"), ("u8", "s8"), ("u8", "u8")])
def test_i8_plan_takes_its_descriptor_from_the_type_tables(a: str, b: str) -> None:
    plan = plan_matmul(200, 80, 112, a, b, "s32", False, False)
    d = plan.idesc()
    assert (plan.kind, d.kind, d.atype, d.btype, d.dtype) == ("i8", "i8", a, b, "s32")
    assert encode_idesc(d) >> 7 & 0b111 == AB_TYPE_CODES["i8"][a]
    assert encode_idesc(d) >> 10 & 0b111 == AB_TYPE_CODES["i8"][b]
    assert encode_idesc(d) >> 4 & 0b11 == D_TYPE_CODES["s32"]
    # one 128-byte swizzle row of bytes per K block, MMA K = 32 bytes (shape table)
    assert (plan.block_k, plan.mma_k) == (128, shapes.mma_k("i8", False))
    assert plan.a.tensor_map.dtype == plan.b.tensor_map.dtype == "u8"
    # B as given is N-major 8-bit: N a multiple of 16 (R8) and of the 128-byte atom
    assert plan.tile_n == 128 and plan.tile_n in shapes.transposed_8bit_b_n(1)
    assert plan.tile_n in shapes.valid_n("i8", 1, False, False)
    assert not plan.d_pack and all(not load.pack for load in plan.epilogue_loads(80))


def test_i8_tile_n_follows_the_i8_shape_row() -> None:
    # K-major B, N = 40: the i8 row has no 40 ({8, 16, 24, 32} then 48 ... 256 step 16)
    plan = plan_matmul(128, 40, 128, "s8", "s8", "s32", False, True)
    assert 40 not in shapes.valid_n("i8", 1, False, False)
    assert plan.tile_n == min(v for v in shapes.valid_n("i8", 1, False, False) if v >= 40)


def test_f16_d_is_loaded_packed() -> None:
    plan = plan_matmul(200, 13, 104, "f16", "f16", "f16", False, True)
    d = plan.idesc()
    assert (d.dtype, encode_idesc(d) >> 4 & 0b11) == ("f16", D_TYPE_CODES["f16"])
    assert plan.d_pack and plan.acc_columns == 32  # one value per cell: the columns of an f32 D
    loads = plan.epilogue_loads(13)
    assert all(load.pack for load in loads)
    # the loads cover the 13 columns once, in order, each reading 2 columns per register
    assert [load.column for load in loads] == [0, 8, 12]
    assert [(load.num, load.stored) for load in loads] == [(4, 8), (2, 4), (1, 1)]
    assert sum(load.stored for load in loads) == 13
    assert all(load.num in LD_ST_NUMS for load in loads)
    wide = plan_matmul(128, 256, 64, "f16", "f16", "f16", False, True).epilogue_loads(256)
    assert [(x.column, x.num, x.values) for x in wide] == [(0, 128, 256)]


def test_planned_d_types_are_legal_descriptor_dtypes() -> None:
    for kind, types in D_TYPES.items():
        assert set(types) <= set(LEGAL_DTYPES[kind])
        assert set(LEGAL_DTYPES[kind]) == set(types)


def test_saturate_sets_the_i8_descriptor_bit_and_is_refused_elsewhere() -> None:
    plan = plan_matmul(130, 24, 112, "u8", "s8", "s32", False, True, saturate=True)
    assert plan.idesc().saturate and encode_idesc(plan.idesc()) >> 3 & 1
    assert not plan_matmul(130, 24, 112, "u8", "s8", "s32", False, True).idesc().saturate
    with pytest.raises(DescriptorError, match=r"saturate = true is not legal for kind::f8f6f4; "
                                              r"legal: false \(saturate is for kind::i8\) \[R4\]$"):
        plan_matmul(128, 64, 64, "e4m3", "e4m3", "f32", False, True, saturate=True)


@pytest.mark.parametrize(("elem", "dtype", "row_bytes"),
                         [("e2m1", "b4x16_p64", 128), ("e2m3", "b6x16_p32", 192),
                          ("e3m2", "b6x16_p32", 192)])
def test_plan_copies_sub_byte_types_padded(elem: str, dtype: str, row_bytes: int) -> None:
    plan = plan_matmul(200, 72, 256, elem, elem, "f32", False, True)
    for operand in (plan.a, plan.b):
        m = operand.tensor_map
        # packed rows in global memory, 128-element boxes (TMA13), 8-bit elements in SMEM
        assert (m.dtype, m.strides, m.box[0], operand.element_bits) == (dtype, (row_bytes,), 128, 8)
        assert m.smem_box_bytes == 128 * m.box[1] and m.box_bytes == m.smem_box_bytes \
            * m.element_bits // 8
    # the transaction count is the packed bytes (CUTLASS's TmaTransactionBytes)
    assert plan.tx_bytes == plan.a.box_bytes + plan.b.box_bytes < plan.stage_bytes
    word = encode_idesc(plan.idesc())
    assert (word >> 7 & 7, word >> 10 & 7) == (AB_TYPE_CODES["f8f6f4"][elem],) * 2


@pytest.mark.parametrize(("args", "message"), [
    ((128, 64, 200, "e2m1", "e2m1", "f32", False, True),
     r"a row = 200 x e2m1 \(100 bytes\) cannot be a TMA tensor row \(the global stride of a given "
     r"as is\); legal: a multiple of 32 bytes \[TMA5\]"),
    ((128, 64, 320, "e2m1", "e2m1", "f32", False, True),
     r"a tensor map dims\[0\] = 320 is not legal; legal: a multiple of 128 \(b4x16_p64\) "
     r"\[TMA13\]"),
    ((128, 320, 256, "e4m3", "e2m1", "f32", False, False),
     r"b tensor map dims\[0\] = 320 is not legal; legal: a multiple of 128 \(b4x16_p64\) "
     r"\[TMA13\]"),
    ((128, 64, 256, "e2m1", "e2m1", "f16", False, True),
     r"d element type = f16 is not a kind::f8f6f4 accumulator; legal: f32 \[R2\]"),
])
def test_what_sub_byte_types_cannot_plan(args: tuple, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        plan_matmul(*args)


def test_cta_pair_plan_splits_the_m256_tile_across_the_pair() -> None:
    # M = 256 MMAs; each CTA: 128 rows of A, N / 2 rows of B, its 128 D rows x N in its TMEM
    pair = plan_matmul(520, 72, 104, "f16", "f16", "f32", False, False, cta_group=2)
    assert (pair.tile_m, pair.cta_tile_m, pair.tile_n, pair.tiles_m) == (256, 128, 128, 3)
    assert (pair.a.rows, pair.b.rows, pair.b.boxes) == (128, 64, 1)  # B MN-major: one atom each
    assert pair.idesc().m == 256 and pair.acc_columns == 128
    # the leader's full barrier receives both CTAs' boxes
    assert pair.tx_bytes == 2 * pair.stage_bytes == 2 * (128 * 64 * 2 + 64 * 64 * 2)
    # K-major B: N / 2 rows of whole 8-row groups, so N is a multiple of 16 (legal pair N)
    assert plan_matmul(200, 40, 64, "f16", "f16", "f32", False, True, cta_group=2).tile_n == 48


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"cta_group": 3}, r"cta_group = 3 is not a CTA group size; legal: 1, 2 \[R31\]"),
])
def test_cta_pair_plan_refuses_what_it_cannot_plan(kwargs: dict, message: str) -> None:
    with pytest.raises(DescriptorError, match=f"^{message}"):
        plan_matmul(128, 64, 128, "e4m3", "e4m3", "f32", False, True, **kwargs)
