"""`pto.copy_gm_l1`: DataCopy with DataCopyParams from GM to L1 (CCE `copy_gm_to_cbuf`): bursts
of 32-byte blocks copied byte for byte, gaps end to start (Ascend C DataCopyParams: blockCount,
blockLen, srcStride, dstStride in 32 B). Expected bytes are written out from that formula here,
never from the kernel."""

from __future__ import annotations

import numpy as np
import pytest
from pto_testing import parse

from mmair.dialects import pto
from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import Pipe, pipe_of
from mmair.isa.ascend.targets import get_target
from mmair.tools.diagnostics import OpVerifyError

# A 16 x 16 f16 matrix staged into L1 as 16 bursts of one 32-byte row each, with the NZ row
# stride: the rows of one 16-wide column block are contiguous, so the copy is an ND -> NZ repack
# of a matrix that is one column block wide. Then L0A / L0B, mmad and fixpipe as usual.
KERNEL = """builtin.module attributes {pto.target = "a5"} {
  func.func @k(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %a1 = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
    %a2 = pto.alloc : !pto.tile<l0a, 16x16xf16, nz>
    %b2 = pto.alloc : !pto.tile<l0b, 16x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.copy_gm_l1 %a[%c0], %a1[%c0] block_count %c1 block_len %c16 src_gap %c0 dst_gap %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.copy_gm_l1 %b[%c0], %b1[%c0] block_count %c16 block_len %c1 src_gap %c0 dst_gap %c0 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a1, %a2, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, nz>
    pto.mte_l1_l0b %b1, %b2, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %a2, %b2, %acc, %c16, %c16, %c16 : !pto.tile<l0a, 16x16xf16, nz>, !pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %acc, %c, %c16, %c16 : !pto.tile<l0c, 16x16xf32, nz>, memref<16x16xf32>
    func.return
  }
}
"""


def test_bursts_and_gaps_follow_the_datacopy_formula() -> None:
    src = np.arange(8 * 32, dtype=np.uint8)  # block b holds bytes 32b .. 32b + 31
    dst = np.full(8 * 32, 255, np.uint8)
    rk.copy_gm_l1(src, dst, rk.CopyGmL1(block_count=2, block_len=2, src_gap=1, dst_gap=2))
    expected = np.full(8 * 32, 255, np.uint8)
    # burst i: 64 bytes from (2 + 1) * 32 * i, to (2 + 2) * 32 * i
    expected[0:64] = src[0:64]
    expected[128:192] = src[96:160]
    np.testing.assert_array_equal(dst, expected)


def test_a_burst_past_the_source_is_an_error() -> None:
    with pytest.raises(ExecutionError, match="src"):
        rk.copy_gm_l1(np.zeros(64, np.uint8), np.zeros(256, np.uint8),
                      rk.CopyGmL1(block_count=3, block_len=1, src_gap=0, dst_gap=0))


def test_a_gemm_staged_by_plain_copies_computes_a_times_b() -> None:
    """One 16 x 16 f16 matrix is one NZ column block: a row-major copy is its NZ image."""
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    _ctx, module = parse(KERNEL)
    out = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-5)


def test_the_copy_runs_on_mte2() -> None:
    for target in ("a2", "a5"):
        assert pipe_of("copy_gm_l1", "gm", "l1", get_target(target)) == Pipe.MTE2


@pytest.mark.parametrize(("fields", "message"), [
    ("block_count %c0 block_len %c1 src_gap %c0 dst_gap %c0",
     r"requires block_count \(blockCount \(nBurst\)\) to be positive, got 0"),
    ("block_count %c1 block_len %c40 src_gap %c0 dst_gap %c0",
     "requires the bursts inside the 512-byte dst tile, they end at byte 1280"),
])
def test_fields_are_checked(fields: str, message: str) -> None:
    text = KERNEL.replace("block_count %c1 block_len %c16 src_gap %c0 dst_gap %c0", fields)
    text = text.replace("%c16 = arith.constant 16 : index",
                        "%c16 = arith.constant 16 : index\n    %c40 = arith.constant 40 : index")
    with pytest.raises(OpVerifyError, match=message):
        parse(text)


def test_the_op_is_a_raw_form() -> None:
    assert pto.CopyGmL1Op in pto.params.RAW_OPS
