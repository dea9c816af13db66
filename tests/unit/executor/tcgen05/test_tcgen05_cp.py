"""tcgen05.cp in the executor: SMEM (matrix descriptor, K-major canonical layout, no swizzle)
to TMEM for the modelled shapes and warp multicasts, against a hand placement of the bytes; the
async checker orders it like an MMA (commit + mbarrier wait before tcgen05.ld reads its cells)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mmair.executor.tcgen05.kernels import cp
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory
from mmair.isa.tcgen05.smem import SmemDesc, encode_smem_desc
from mmair.tools.run import main

START, LBO, SBO = 1024, 128, 256  # chunk c of 16 bytes at c * LBO, row group g of 8 at g * SBO


def _place(rows: np.ndarray) -> SharedMemory:
    """rows (R x bytes) into SMEM by the canonical no-swizzle K-major formula."""
    smem = SharedMemory()
    for r in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            smem.data[START + (r // 8) * SBO + (j // 16) * LBO + (r % 8) * 16 + j % 16] = rows[r, j]
    return smem


def _copy(shape: str, multicast: str | None, nrows: int, nbytes: int):
    rows = np.random.default_rng(nrows + nbytes).integers(0, 256, (nrows, nbytes)).astype(np.uint8)
    smem = _place(rows)
    tmem = TensorMemory()
    address = tmem.alloc(64)
    word = encode_smem_desc(SmemDesc(START, LBO, SBO))
    footprint = cp(smem, tmem, taddr=address, desc=word, shape=shape, multicast=multicast)
    return rows.view("<u4"), tmem.cells, footprint


@pytest.mark.parametrize("shape, nbytes", [("128x256b", 32), ("128x128b", 16)])
def test_row_r_goes_to_lane_r(shape: str, nbytes: int) -> None:
    words, cells, footprint = _copy(shape, None, 128, nbytes)
    assert np.array_equal(cells[:, :nbytes // 4], words)
    assert not cells[:, nbytes // 4:].any()
    # the hull: last row group at 15 * SBO, its last 16-byte chunk LBO further, 128 bytes long
    assert footprint.smem == (START, START + 15 * SBO + (nbytes // 16 - 1) * LBO + 128)
    assert (footprint.lane, footprint.lane_end, footprint.column, footprint.column_end) == \
        (0, 128, 0, nbytes // 4)


def test_warpx4_writes_the_32_rows_into_every_lane_quarter() -> None:
    words, cells, _ = _copy("32x128b", "warpx4", 32, 16)
    for warp in range(4):
        assert np.array_equal(cells[32 * warp:32 * warp + 32, :4], words)


@pytest.mark.parametrize("multicast, first, second", [
    ("warpx2::02_13", (0, 2), (1, 3)), ("warpx2::01_23", (0, 1), (2, 3))])
def test_warpx2_pairs(multicast: str, first: tuple[int, int], second: tuple[int, int]) -> None:
    words, cells, _ = _copy("64x128b", multicast, 64, 16)
    for half, warps in ((0, first), (1, second)):
        for warp in warps:
            assert np.array_equal(cells[32 * warp:32 * warp + 32, :4],
                                  words[32 * half:32 * half + 32])


def test_4x256b_writes_its_4_rows_to_the_first_4_lanes() -> None:
    words, cells, footprint = _copy("4x256b", None, 4, 32)
    assert np.array_equal(cells[:4, :8], words)
    assert not cells[4:].any() and not cells[:, 8:].any()
    assert (footprint.lane, footprint.lane_end, footprint.column, footprint.column_end) == \
        (0, 4, 0, 8)


@pytest.mark.parametrize("decompress, width, packed", [("b8x16.b4x16_p64", 4, 8),
                                                       ("b8x16.b6x16_p32", 6, 12)])
def test_decompression_puts_each_packed_element_into_its_own_byte(decompress: str, width: int,
                                                                   packed: int) -> None:
    rng = np.random.default_rng(width)
    elements = rng.integers(0, 1 << width, (32, 2, 16)).astype(np.uint8)  # 32 rows, 2 units
    # pack: element i of a unit at bits [w i, w i + w) little-endian, then padding
    rows = np.zeros((32, 32), np.uint8)
    for r in range(32):
        for u in range(2):
            word = sum(int(e) << (width * i) for i, e in enumerate(elements[r, u]))
            rows[r, 16 * u:16 * u + packed] = list(word.to_bytes(packed, "little"))
            rows[r, 16 * u + packed:16 * (u + 1)] = 0xEE  # padding: ignored
    smem = _place(rows)
    tmem = TensorMemory()
    address = tmem.alloc(32)
    cp(smem, tmem, taddr=address, desc=encode_smem_desc(SmemDesc(START, LBO, SBO)),
       shape="32x128b", multicast="warpx4", decompress=decompress)
    got = tmem.cells[:32, :4].copy().view(np.uint8)  # 16 bytes per lane: the first unit
    np.testing.assert_array_equal(got, elements[:, 0])
    assert np.array_equal(tmem.cells[96:, :4], tmem.cells[:32, :4])  # warpx4: every quarter


KERNEL = """builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @cp(%src: memref<4096xui8>, %out: memref<32x8xi32>) {
    %buf = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>
    %bar = tcgen05.smem_alloc offset(8192) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    "memref.copy"(%src, %buf) : (memref<4096xui8>, memref<4096xui8, #tcgen05.space<smem>>) -> ()
    %t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
    %d = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 128, sbo = 256, base_offset = 0, lbo_mode = relative, swizzle = none>
    tcgen05.cp cta_group(1) shape("128x256b") %t, %d : memref<128x32xi32, #tcgen05.space<tmem>>
    tcgen05.commit cta_group(1) %bar : memref<1xi64, #tcgen05.space<smem>>
    %p = arith.constant false
    tcgen05.mbarrier_wait %bar, %p : memref<1xi64, #tcgen05.space<smem>>
    %r = tcgen05.ld shape("32x32b") num(8) warp(1) lane(32) column(0) %t : memref<128x32xi32, #tcgen05.space<tmem>> -> memref<32x8xi32>
    tcgen05.wait_ld
    "memref.copy"(%r, %out) : (memref<32x8xi32>, memref<32x8xi32>) -> ()
    tcgen05.dealloc cta_group(1) %t : memref<128x32xi32, #tcgen05.space<tmem>>
    func.return
  }
}
"""


def test_cp_kernel_runs_and_its_racy_variant_is_reported(capsys, tmp_path: Path) -> None:
    src = np.random.default_rng(5).integers(0, 256, 4096).astype(np.uint8)
    np.save(tmp_path / "src.npy", src)
    path = tmp_path / "cp.mlir"
    path.write_text(KERNEL)
    code = main([str(path), "-p", "mmair-lower", "--input", f"src={tmp_path / 'src.npy'}",
                 "--output", f"out={tmp_path / 'out.npy'}"])
    assert code == 0, capsys.readouterr().err
    rows = np.zeros((128, 32), np.uint8)
    for r in range(128):
        for j in range(32):
            rows[r, j] = src[(r // 8) * 256 + (j // 16) * 128 + (r % 8) * 16 + j % 16]
    assert np.array_equal(np.load(tmp_path / "out.npy").view("<u4"), rows.view("<u4")[32:64])
    capsys.readouterr()
    racy = tmp_path / "racy.mlir"
    racy.write_text("\n".join(x for x in KERNEL.splitlines() if "mbarrier_wait" not in x))
    assert main([str(racy), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"{racy}:12:5: error: 'tcgen05.ld' op race on TMEM lanes [32, 64) x columns [0, 8) (%t): "
        f"'tcgen05.ld' at {racy}:12:5 (the TMEM load path) reads them, 'tcgen05.cp' at "
        f"{racy}:9:5 (the tensor core's async unit) writes them")


def test_mma_footprint_of_a_sparse_mma() -> None:
    # Sparse f16 128x64 (K = 32, 16 stored): A and B K-major, no swizzle; the metadata holds one
    # nibble per group of four K values: 8 nibbles = one 32-bit cell per row, M rows.
    from mmair.executor.tcgen05.kernels import mma_footprint
    from mmair.isa.tcgen05 import InstrDesc, encode_idesc
    from mmair.isa.tcgen05.layouts import tmem_address

    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                   dtype="f32", sparse=True))
    a = encode_smem_desc(SmemDesc(0, 2048, 128))      # 128 rows x 16 f16: 2 K chunks
    b = encode_smem_desc(SmemDesc(8192, 1024, 128))   # 64 rows x 32 f16: 4 K chunks
    f = mma_footprint(SharedMemory(), kind="f16", idesc=idesc, a=a, b=b, sparse=True,
                      sparse_metadata=tmem_address(0, 96))
    assert (f.m, f.n) == (128, 64)
    # hull of A: 16 row groups x 128 B and 2 chunks 2048 B apart; B: 8 groups, 4 chunks of 1024
    assert f.smem == ((0, 2048 + 16 * 128), (8192, 8192 + 3 * 1024 + 8 * 128))
    assert f.tmem_reads == ((0, 128, 96, 1),)


@pytest.mark.parametrize("mask, outcome", [(1, "ok"), (0, "deadlock"), (2, "refused")])
def test_commit_multicast_mask_in_a_one_cta_run(capsys, tmp_path: Path, mask: int,
                                                outcome: str) -> None:
    # Bit 0 (this CTA) set: the local mbarrier gets the arrival. Clear: nothing arrives here, so
    # the wait never completes. Another CTA's bit: not in a one-CTA run, refused.
    text = KERNEL.replace(
        "    tcgen05.commit cta_group(1) %bar : memref<1xi64, #tcgen05.space<smem>>",
        f"    %mask = arith.constant {mask} : i16\n"
        "    tcgen05.commit cta_group(1) %bar multicast(%mask) : "
        "memref<1xi64, #tcgen05.space<smem>>")
    path = tmp_path / "mask.mlir"
    path.write_text(text)
    code = main([str(path), "-p", "mmair-lower"])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if outcome == "ok":
        assert code == 0, err
    elif outcome == "deadlock":
        assert code == 1
        assert "'tcgen05.mbarrier_wait' op deadlock: waits on phase parity 0 of the mbarrier at " \
               "SMEM 0x2000 (%bar), which can never complete (0 phases completed" in err
    else:
        assert code == 1
        assert "'tcgen05.commit' op multicasts to CTA mask 0x0002, which names CTAs beyond " \
               "its cluster of one CTA (rank 0): a cta_group::1 kernel runs as one CTA" in err
