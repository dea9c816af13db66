"""The footprint of one `tcgen05.mma` (what the asynchronous checker orders): A's and B's SMEM
byte ranges and, for a block-scaled MMA, the TMEM cells of both scale-factor matrices."""

from __future__ import annotations

from mmair.executor.tcgen05.kernels import mma_footprint
from mmair.executor.tcgen05.memories import SharedMemory
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc
from mmair.isa.tcgen05.layouts import tmem_address

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
