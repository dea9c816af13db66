"""The footprint of one `tcgen05.mma` (what the asynchronous checker orders): A's and B's SMEM
byte ranges, A's TMEM cells when A is in TMEM and, for a block-scaled MMA, the TMEM cells of both
scale-factor matrices."""

from __future__ import annotations

from pathlib import Path

import pytest

from mmair.executor.tcgen05.kernels import mma_footprint
from mmair.executor.tcgen05.memories import SharedMemory
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc
from mmair.isa.tcgen05.layouts import tmem_address
from mmair.tools.run import main

B_START = 0x8000


def _k_major(rows: int, k_bytes: int, start: int) -> int:
    """No-swizzle K-major operand of `rows` x `k_bytes`: packed densely from `start`, so it
    fills [start, start + rows * k_bytes) (8-row x 16-byte core matrices, LBO 128, SBO 128 x
    the 16-byte units of K)."""
    return encode_smem_desc(SmemDesc(start=start, lbo=128, sbo=128 * (k_bytes // 16)))


def test_the_mma_footprint_holds_the_smem_of_a_and_of_b() -> None:
    # f16 128 x 64 x 16: A is 128 rows x 32 bytes, B 64 rows x 32 bytes
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                   dtype="f32"))
    f = mma_footprint(SharedMemory(), kind="f16", idesc=idesc, a=_k_major(128, 32, 0),
                      b=_k_major(64, 32, B_START))
    assert f.smem == ((0, 128 * 32), (B_START, B_START + 64 * 32))
    assert (f.m, f.n, f.tmem_reads) == (128, 64, ())
    # A in TMEM: only B's SMEM, and A's columns (16 f16 = 8 cells of 32 bits)
    f = mma_footprint(SharedMemory(), kind="f16", idesc=idesc, a=None,
                      b=_k_major(64, 32, B_START))
    assert f.smem == ((B_START, B_START + 64 * 32),)
    assert f.a_columns == 8


def test_the_block_scaled_mma_footprint_holds_both_scale_factor_matrices() -> None:
    # mxf8f6f4 e4m3, 128 x 64 x 32 (one UE8M0 scale per row of A and per column of B): the
    # scale factors are read from every lane quadrant, one TMEM column per 32 rows of the scale
    # matrix (A: 128 rows -> 4 columns; B: 64 -> 2), at the addresses the MMA names.
    idesc = encode_idesc(InstrDesc(kind="mxf8f6f4", m=128, n=64, atype="e4m3", btype="e4m3",
                                   dtype=None, scale_type="ue8m0"))
    f = mma_footprint(SharedMemory(), kind="mxf8f6f4", idesc=idesc, a=_k_major(128, 32, 0),
                      b=_k_major(64, 32, B_START), scale_a=tmem_address(0, 40),
                      scale_b=tmem_address(0, 72))
    assert f.smem == ((0, 128 * 32), (B_START, B_START + 64 * 32))
    assert f.tmem_reads == ((0, 128, 40, 4), (0, 128, 72, 2))


def test_the_sparse_mma_footprint_holds_the_metadata_cells() -> None:
    """A sparse MMA reads its metadata from TMEM (PTX ISA 9.7.16.10.8 "sparse matrices"): one
    nibble per group of 4 dense K positions of each A row (2:4 for kind::f16), 8 nibbles to a
    32-bit cell, in lane m of A's row m; A itself is stored with half of K."""
    # f16 128 x 64, sparse K = 32: 8 nibbles per row = one TMEM column at the named address;
    # A holds 16 f16 (32 bytes) per row, B 32 (64 bytes) per column
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                   dtype="f32", sparse=True))
    f = mma_footprint(SharedMemory(), kind="f16", idesc=idesc, a=_k_major(128, 32, 0),
                      b=_k_major(64, 64, B_START), sparse=True,
                      sparse_metadata=tmem_address(0, 96))
    assert f.smem == ((0, 128 * 32), (B_START, B_START + 64 * 64))
    assert f.tmem_reads == ((0, 128, 96, 1),)


# The MMA reads A from TMEM; a tcgen05.st then overwrites A's first 32 lanes. SYNC: a commit and
# the wait for its phase, which order the store after the MMA.
A_IN_TMEM = """builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @k(%a: memref<128x16xf16>, %b: memref<2x64x8xf16>, %d: memref<128x64xf32>) {{
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 64>
    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 1024, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_smem = tcgen05.smem_alloc offset(0) : memref<2x64x8xf16, #tcgen05.space<smem>>
    "memref.copy"(%b, %b_smem) : (memref<2x64x8xf16>, memref<2x64x8xf16, #tcgen05.space<smem>>) -> ()
    %acc = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
    %a_tmem = tcgen05.alloc cta_group(1) columns(32) : memref<128x16xf16, #tcgen05.space<tmem>>
    "memref.copy"(%a, %a_tmem) : (memref<128x16xf16>, memref<128x16xf16, #tcgen05.space<tmem>>) -> ()
    %first = arith.constant false
    tcgen05.mma kind(f16) cta_group(1) %acc, %a_tmem, %b_desc, %idesc, %first : memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
{sync}    %regs = memref.alloc() : memref<32x16xf16>
    tcgen05.st shape("32x32b") num(8) warp(0) lane(0) column(0) unpack %a_tmem, %regs : memref<128x16xf16, #tcgen05.space<tmem>>, memref<32x16xf16>
    tcgen05.wait_st
    "memref.copy"(%acc, %d) : (memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x64xf32>) -> ()
    tcgen05.dealloc cta_group(1) %a_tmem : memref<128x16xf16, #tcgen05.space<tmem>>
    tcgen05.dealloc cta_group(1) %acc : memref<128x64xf32, #tcgen05.space<tmem>>
    func.return
  }}
}}
"""
SYNC = """    %bars = tcgen05.smem_alloc offset(4096) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bars count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.commit cta_group(1) %bars : memref<1xi64, #tcgen05.space<smem>>
    %p = arith.constant false
    tcgen05.mbarrier_wait %bars, %p : memref<1xi64, #tcgen05.space<smem>>
"""


@pytest.mark.parametrize("sync", ["", SYNC], ids=["unordered", "commit and wait"])
def test_a_store_over_the_tmem_a_of_an_mma_in_flight_is_a_race(sync: str, capsys,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    text = A_IN_TMEM.format(sync=sync)
    path.write_text(text)
    store, mma = (next(i for i, line in enumerate(text.splitlines(), 1) if op in line)
                  for op in ("tcgen05.st ", "tcgen05.mma "))
    code = main([str(path), "-p", "mmair-lower"])
    err = capsys.readouterr().err
    if sync:
        assert code == 0, err
        return
    assert code == 1
    assert f"{path}:{store}:5: error: 'tcgen05.st' op race on TMEM lanes [0, 32) x columns [64, 72) " \
           "(%a_tmem): 'tcgen05.st' at" in err
    assert f"'tcgen05.mma' at {path}:{mma}:5 (the tensor core's async unit) reads them" in err
