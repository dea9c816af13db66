"""isa/tcgen05/matmul.py: the tcgen05.matmul plan takes its numbers from the hardware facts: the
ring has as many stages as fit in SMEM next to the mbarriers (at most one per K block), N tiles
are legal MMA N values (multiples of the swizzle atom for an MN-major B), the accumulator is
double-buffered when two fit in TMEM, and what TMA or the MMA cannot do is a DescriptorError."""

from __future__ import annotations

import pytest

from mmair.isa.tcgen05 import layouts
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.matmul import BARRIER_RESERVE, plan_matmul


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
    ((128, 64, 64, "s8", "s8", "s32", False, False), "a element type = s8 has no tcgen05.matmul"),
    ((128, 64, 64, "f16", "e4m3", "f32", False, False), "does not pair with a f16 a"),
    ((128, 64, 64, "f16", "f16", "f16", False, False), "d element type = f16 is not"),
])
def test_what_cannot_be_planned(args: tuple, message: str) -> None:
    with pytest.raises(DescriptorError, match=message):
        plan_matmul(*args)
