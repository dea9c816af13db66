"""examples/tcgen05_gemm_tma.mlir: the TMA-fed tcgen05 GEMM (tensor maps, cp.async.bulk.tensor,
expect_tx / complete_tx, a 2-stage ring) runs clean and matches numpy, and each classic TMA bug
is found with both ops named: an expect_tx too small (more bytes than announced: an error) or too
large (the phase never completes: a deadlock naming the barrier and the byte counts), a stage
refilled before the MMAs that read it completed (a race), a tensor-map swizzle that disagrees with
the MMA's descriptor, or a descriptor stride that does not walk the box's rows (layout
mismatches). Also: out-of-bounds elements of a box are filled."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from run_variants import run_lowered

from mmair.executor.tcgen05.memories import SharedMemory
from mmair.executor.tcgen05.tma import TensorMapValue, tma_load
from mmair.isa.tcgen05.tma import TensorMap
from mmair.tools.run import main

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "tcgen05_gemm_tma.mlir"
SOURCE = EXAMPLE.read_text()


def _inputs(tmp_path: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (128, 256)).astype(np.float16)
    b = rng.integers(-4, 5, (128, 256)).astype(np.float16)  # B^T: N x K
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    return a, b, ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]


def _variant(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "variant.mlir"
    path.write_text(text)
    return path


def _line(text: str, needle: str, nth: int = 0) -> int:
    return [i + 1 for i, line in enumerate(text.splitlines()) if needle in line][nth]


def test_tma_gemm_runs_clean_and_matches_numpy(tmp_path: Path, capsys) -> None:
    a, b, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, EXAMPLE, *args, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    d = np.load(tmp_path / "d.npy")
    assert np.array_equal(d, a.astype(np.float32) @ b.astype(np.float32).T)  # small ints: exact


def test_tma_gemm_matches_numpy_with_the_checker_off(tmp_path: Path, capsys) -> None:
    a, b, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, EXAMPLE, *args, "--sync-check", "off",
                            "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "d.npy"),
                          a.astype(np.float32) @ b.astype(np.float32).T)


def test_expect_tx_too_small_is_more_bytes_than_announced(tmp_path: Path, capsys) -> None:
    # 16384 announced, two 16384-byte boxes: the first completes the phase, the second lands on
    # the next phase, which expects nothing.
    text = SOURCE.replace("expect_tx(32768)", "expect_tx(16384)")
    _, _, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, _variant(tmp_path, text), *args)
    assert code == 1
    line = _line(text, "tcgen05.tma_load %b_dst")
    assert f"variant.mlir:{line}:11: error: 'tcgen05.tma_load' op completes 16384 transaction " \
        "bytes on the mbarrier at SMEM 0x10000, whose phase 1 expects only 0 more (0 bytes " \
        "announced by expect_tx, 0 already arrived): more bytes than expect_tx announced" in err


def test_expect_tx_too_large_is_a_deadlock_naming_barrier_and_bytes(tmp_path: Path,
                                                                     capsys) -> None:
    text = SOURCE.replace("expect_tx(32768)", "expect_tx(49152)")
    _, _, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, _variant(tmp_path, text), *args)
    assert code == 1
    line = _line(text, "tcgen05.mbarrier_wait %full0")
    assert f"variant.mlir:{line}:9: error: 'tcgen05.mbarrier_wait' op deadlock: waits on phase " \
        "parity 0 of the mbarrier at SMEM 0x10000 (%full), which can never complete (0 phases " \
        "completed, the thread has observed 0; 0 of 1 arrivals pending, 32768 of 49152 expected " \
        "transaction bytes arrived, nothing left to arrive)" in err


def test_stage_refilled_before_its_mmas_completed_is_a_race(tmp_path: Path, capsys) -> None:
    start = SOURCE.index("      scf.if %again {")
    text = SOURCE[:start] + SOURCE[SOURCE.index("      %a_dst"):]
    _, _, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, _variant(tmp_path, text), *args)
    assert code == 1
    tma_line = _line(text, "tcgen05.tma_load %a_dst", 0)
    mma_line = _line(text, "tcgen05.mma kind(f16)")
    assert f"variant.mlir:{tma_line}:11: error: 'tcgen05.tma_load' op race on smem bytes " in err
    assert f"'tcgen05.tma_load' at {tmp_path / 'variant.mlir'}:{tma_line}:11 (the tensor " \
        "memory accelerator, iteration %kb = 2) writes them, 'tcgen05.mma' at " \
        f"{tmp_path / 'variant.mlir'}:{mma_line}:9 (the tensor core's async unit, iteration " \
        "%kb = 0, %kk = 3) reads them" in err


def test_tensor_map_swizzle_disagreeing_with_the_descriptor_is_found(tmp_path: Path,
                                                                      capsys) -> None:
    at = SOURCE.index("swizzle = sw128>", SOURCE.index("%tma_a ="))
    text = SOURCE[:at] + "swizzle = none>" + SOURCE[at + len("swizzle = sw128>"):]
    _, _, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, _variant(tmp_path, text), *args)
    assert code == 1
    mma_line = _line(text, "tcgen05.mma kind(f16)")
    tma_line = _line(text, "tcgen05.tma_load %a_dst", 0)
    assert f"variant.mlir:{mma_line}:9: error: 'tcgen05.mma' op layout mismatch on %a_stages: " \
        "'tcgen05.mma' reads A through an SMEM descriptor with swizzle sw128, but " \
        f"'tcgen05.tma_load' at {tmp_path / 'variant.mlir'}:{tma_line}:11 (the tensor memory " \
        "accelerator, iteration %kb = 0) wrote SMEM bytes [0x0, 0x4000) with the tensor map's " \
        "swizzle none (the MMA would read the box's bytes in the wrong order)" in err


def test_descriptor_sbo_disagreeing_with_the_box_rows_is_found(tmp_path: Path, capsys) -> None:
    # The right swizzle, the wrong stride between 8-row core groups: A[m=8] reads the box's row 4.
    text = SOURCE.replace("start = 0, lbo = 16, sbo = 1024", "start = 0, lbo = 16, sbo = 512")
    _, _, args = _inputs(tmp_path)
    code, err = run_lowered(capsys, _variant(tmp_path, text), *args)
    assert code == 1
    mma_line = _line(text, "tcgen05.mma kind(f16)")
    tma_line = _line(text, "tcgen05.tma_load %a_dst", 0)
    assert f"variant.mlir:{mma_line}:9: error: 'tcgen05.mma' op layout mismatch on %a_stages: " \
        "'tcgen05.mma' reads A[m=8, k=0] at SMEM 0x240, which holds %a[4, 0] as " \
        f"'tcgen05.tma_load' at {tmp_path / 'variant.mlir'}:{tma_line}:11 (the tensor memory " \
        "accelerator, iteration %kb = 0) wrote it; A[m=0, k=0] holds %a[0, 0], so it should be " \
        "%a[8, 0] (the K-major descriptor with swizzle sw128, LBO 16, SBO 512 does not walk the " \
        "box the tensor map (swizzle sw128) laid out)" in err


_OOB = """builtin.module {
  func.func @k(%g: memref<20x16xf32>, %out: memref<16x16xf32>) {
    %tm = tcgen05.make_tensor_map %g, #tcgen05.tensor_map<dtype = f32, dims = [16, 20], strides = [64], box = [16, 16], oob_fill = FILL> : memref<20x16xf32>
    %s = tcgen05.smem_alloc offset(0) : memref<16x16xf32, #tcgen05.space<smem>>
    %bar = tcgen05.smem_alloc offset(1024) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    %x = arith.constant 0 : i32
    %y = arith.constant 12 : i32
    tcgen05.mbarrier_arrive %bar expect_tx(1024) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.tma_load %s, %tm[%x, %y], %bar : memref<16x16xf32, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
    %p = arith.constant false
    tcgen05.mbarrier_wait %bar, %p : memref<1xi64, #tcgen05.space<smem>>
    "memref.copy"(%s, %out) : (memref<16x16xf32, #tcgen05.space<smem>>, memref<16x16xf32>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("fill", ["zero", "nan"])
def test_box_rows_past_the_tensor_are_filled(tmp_path: Path, capsys, fill: str) -> None:
    g = np.arange(320, dtype=np.float32).reshape(20, 16)
    np.save(tmp_path / "g.npy", g)
    path = _variant(tmp_path, _OOB.replace("FILL", fill))
    code = main([str(path), "--input", f"g={tmp_path / 'g.npy'}",
                 "--output", f"out={tmp_path / 'out.npy'}"])
    assert code == 0, capsys.readouterr().err
    out = np.load(tmp_path / "out.npy")
    assert np.array_equal(out[:8], g[12:])  # rows 12..19 exist; 20..27 are out of bounds
    if fill == "zero":
        assert np.array_equal(out[8:], np.zeros((8, 16), np.float32))
    else:
        assert (out[8:].view(np.uint32) == 0x7FFFFFFF).all()


# A CTA pair: the leader multicasts one box to both CTAs with cta_group::2, so both copies
# complete on the leader's mbarrier (CUTLASS SM100_TMA_2SM_LOAD masks the peer bit); the peer
# reads its copy after the cluster barrier that follows the leader's wait.
_PAIR = """builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @k(%g: memref<64x16xf32>, %out: memref<2x32x16xf32>) {
    %tm = tcgen05.make_tensor_map %g, #tcgen05.tensor_map<dtype = f32, dims = [16, 64], strides = [64], box = [16, 32]> : memref<64x16xf32>
    %s = tcgen05.smem_alloc offset(0) : memref<32x16xf32, #tcgen05.space<smem>>
    %bar = tcgen05.smem_alloc offset(2048) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.cluster_sync
    %rank = tcgen05.cluster_rank : i32
    %c0 = arith.constant 0 : i32
    %y = arith.constant 16 : i32
    %mask = arith.constant 3 : i16
    %leader = arith.cmpi eq, %rank, %c0 : i32
    scf.if %leader {
      tcgen05.mbarrier_arrive %bar expect_tx(4096) : memref<1xi64, #tcgen05.space<smem>>
      tcgen05.tma_load %s, %tm[%c0, %y], %bar cluster multicast(%mask) cta_group(2) : memref<32x16xf32, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
      %p = arith.constant false
      tcgen05.mbarrier_wait %bar, %p : memref<1xi64, #tcgen05.space<smem>>
    }
    tcgen05.cluster_sync
    %r = arith.index_cast %rank : i32 to index
    %dst = "memref.subview"(%out, %r) <{static_offsets = array<i64: -9223372036854775808, 0, 0>, static_sizes = array<i64: 1, 32, 16>, static_strides = array<i64: 1, 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (memref<2x32x16xf32>, index) -> memref<32x16xf32, strided<[16, 1], offset: ?>>
    "memref.copy"(%s, %dst) : (memref<32x16xf32, #tcgen05.space<smem>>, memref<32x16xf32, strided<[16, 1], offset: ?>>) -> ()
    func.return
  }
}
"""


@pytest.mark.parametrize("sync_check", ["on", "off"])
def test_pair_multicast_fills_both_ctas(tmp_path: Path, capsys, sync_check: str) -> None:
    g = np.arange(1024, dtype=np.float32).reshape(64, 16)
    np.save(tmp_path / "g.npy", g)
    code = main([str(_variant(tmp_path, _PAIR)), "--sync-check", sync_check,
                 "--input", f"g={tmp_path / 'g.npy'}", "--output", f"out={tmp_path / 'out.npy'}"])
    assert code == 0, capsys.readouterr().err
    out = np.load(tmp_path / "out.npy")
    assert np.array_equal(out[0], g[16:48]) and np.array_equal(out[1], g[16:48])


def test_peer_reading_a_multicast_box_without_a_barrier_is_a_race(tmp_path: Path,
                                                                  capsys) -> None:
    at = _PAIR.rindex("    tcgen05.cluster_sync\n")
    text = _PAIR[:at] + _PAIR[at + len("    tcgen05.cluster_sync\n"):]
    g = np.zeros((64, 16), dtype=np.float32)
    np.save(tmp_path / "g.npy", g)
    code = main([str(_variant(tmp_path, text)), "--input", f"g={tmp_path / 'g.npy'}"])
    assert code == 1
    err = capsys.readouterr().err
    path = tmp_path / "variant.mlir"
    assert f"race on smem bytes [0, 2048) (%s of CTA 1) between CTAs 1 and 0 of the CTA pair: " \
        f"'tcgen05.tma_load' at {path}:{_line(text, 'tcgen05.tma_load')}:7 (the tensor memory " \
        f"accelerator) writes them, 'memref.copy' at {path}:{_line(text, 'memref.copy')}:5 (the " \
        "issuing thread, CTA 1) reads them" in err



# CTA 0 multicasts one box (tensor map without swizzle) into %s of both CTAs; only CTA 1's MMA
# reads it, through descriptors with swizzle SWIZZLE: the layout check must see the box in the
# CTA it landed in, not only in the CTA that issued the copy.
_PEER_MMA = """builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @k(%g: memref<64x16xf32>, %out: memref<64x8xf32>) {{
    %tm = tcgen05.make_tensor_map %g, #tcgen05.tensor_map<dtype = f32, dims = [16, 64], strides = [64], box = [16, 32]> : memref<64x16xf32>
    %s = tcgen05.smem_alloc offset(0) : memref<32x16xf32, #tcgen05.space<smem>>
    %bar = tcgen05.smem_alloc offset(2048) : memref<1xi64, #tcgen05.space<smem>>
    %done = tcgen05.smem_alloc offset(2064) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %done count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.cluster_sync
    %rank = tcgen05.cluster_rank : i32
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %y = arith.constant 16 : i32
    %mask = arith.constant 3 : i16
    %leader = arith.cmpi eq, %rank, %c0 : i32
    tcgen05.mbarrier_arrive %bar expect_tx(2048) : memref<1xi64, #tcgen05.space<smem>>
    scf.if %leader {{
      tcgen05.tma_load %s, %tm[%c0, %y], %bar cluster multicast(%mask) : memref<32x16xf32, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
    }}
    %p0 = arith.constant false
    tcgen05.mbarrier_wait %bar, %p0 : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.cluster_sync
    %peer = arith.cmpi eq, %rank, %c1 : i32
    scf.if %peer {{
      %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = tf32, dtype = f32, atype = tf32, btype = tf32, m = 64, n = 8>
      %ad = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 1024, swizzle = {swizzle}>
      %bd = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 1024, swizzle = {swizzle}>
      %acc = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xf32, #tcgen05.space<tmem>>
      %first = arith.constant false
      tcgen05.mma kind(tf32) cta_group(1) %acc, %ad, %bd, %idesc, %first : memref<128x32xf32, #tcgen05.space<tmem>>, i64
      tcgen05.commit cta_group(1) %done : memref<1xi64, #tcgen05.space<smem>>
      %p = arith.constant false
      tcgen05.mbarrier_wait %done, %p : memref<1xi64, #tcgen05.space<smem>>
      tcgen05.dealloc cta_group(1) %acc : memref<128x32xf32, #tcgen05.space<tmem>>
    }}
    func.return
  }}
}}
"""


@pytest.mark.parametrize(("swizzle", "message"), [  # the swizzle check, the element check
    ("sw128", "'tcgen05.mma' reads A through an SMEM descriptor with swizzle sw128, but "
              "'tcgen05.tma_load' at {path}:{load}:7 (the tensor memory accelerator) wrote SMEM "
              "bytes [0x0, 0x800) with the tensor map's swizzle none"),
    ("none", "'tcgen05.mma' reads A[m=1, k=0] at SMEM 0x10, which holds %g[16, 4] as "
             "'tcgen05.tma_load' at {path}:{load}:7 (the tensor memory accelerator) wrote it"),
], ids=["swizzle", "elements"])
def test_a_peers_mma_is_checked_against_the_box_multicast_into_its_smem(
        swizzle: str, message: str, tmp_path: Path, capsys) -> None:
    text = _PEER_MMA.format(swizzle=swizzle)
    path = _variant(tmp_path, text)
    np.save(tmp_path / "g.npy", np.ones((64, 16), dtype=np.float32))
    assert main([str(path), "--input", f"g={tmp_path / 'g.npy'}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{_line(text, 'tcgen05.mma ')}:7: error: 'tcgen05.mma' op "
                          "layout mismatch on %s of CTA 1: "), err
    assert message.format(path=path, load=_line(text, "tcgen05.tma_load")) in err

# One MMA with B MN-major: B is K x N row-major (N innermost), its 64 x 16 box swizzled 128B is the
# MN-major canonical layout with SBO = 1024 (8 K-rows of 128 bytes); A is K-major, 32B swizzle.
_MN_MAJOR = """builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @k(%a: memref<128x16xf16>, %b: memref<16x64xf16>, %d: memref<128x64xf32>) {
    %ta = tcgen05.make_tensor_map %a, #tcgen05.tensor_map<dtype = f16, dims = [16, 128], strides = [32], box = [16, 128], swizzle = sw32> : memref<128x16xf16>
    %tb = tcgen05.make_tensor_map %b, #tcgen05.tensor_map<dtype = f16, dims = [64, 16], strides = [128], box = [64, 16], swizzle = sw128> : memref<16x64xf16>
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 64, transpose_b = true>
    %ad = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 256, base_offset = 0, lbo_mode = relative, swizzle = sw32>
    %bd = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 4096, lbo = 2048, sbo = SBO, base_offset = 0, lbo_mode = relative, swizzle = sw128>
    %sa = tcgen05.smem_alloc offset(0) : memref<128x16xf16, #tcgen05.space<smem>>
    %sb = tcgen05.smem_alloc offset(4096) : memref<16x64xf16, #tcgen05.space<smem>>
    %bars = tcgen05.smem_alloc offset(8192) : memref<2x1xi64, #tcgen05.space<smem>>
    %full = "memref.subview"(%bars) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    %done = "memref.subview"(%bars) <{static_offsets = array<i64: 1, 0>, static_sizes = array<i64: 1, 1>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<2x1xi64, #tcgen05.space<smem>>) -> memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %full count(1) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_init %done count(1) : memref<1xi64, #tcgen05.space<smem>>
    %acc = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
    %c0 = arith.constant 0 : i32
    tcgen05.mbarrier_arrive %full expect_tx(6144) : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.tma_load %sa, %ta[%c0, %c0], %full : memref<128x16xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
    tcgen05.tma_load %sb, %tb[%c0, %c0], %full : memref<16x64xf16, #tcgen05.space<smem>>, memref<1xi64, #tcgen05.space<smem>>
    %p0 = arith.constant false
    tcgen05.mbarrier_wait %full, %p0 : memref<1xi64, #tcgen05.space<smem>>
    %no = arith.constant false
    tcgen05.mma kind(f16) cta_group(1) %acc, %ad, %bd, %idesc, %no : memref<128x64xf32, #tcgen05.space<tmem>>, i64
    tcgen05.commit cta_group(1) %done : memref<1xi64, #tcgen05.space<smem>>
    tcgen05.mbarrier_wait %done, %p0 : memref<1xi64, #tcgen05.space<smem>>
    %r0 = tcgen05.ld shape("32x32b") num(64) warp(0) lane(0) column(0) %acc : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x64xf32>
    %r1 = tcgen05.ld shape("32x32b") num(64) warp(1) lane(32) column(0) %acc : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x64xf32>
    %r2 = tcgen05.ld shape("32x32b") num(64) warp(2) lane(64) column(0) %acc : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x64xf32>
    %r3 = tcgen05.ld shape("32x32b") num(64) warp(3) lane(96) column(0) %acc : memref<128x64xf32, #tcgen05.space<tmem>> -> memref<32x64xf32>
    tcgen05.wait_ld
    %d0 = "memref.subview"(%d) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 32, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x64xf32>) -> memref<32x64xf32, strided<[64, 1]>>
    %d1 = "memref.subview"(%d) <{static_offsets = array<i64: 32, 0>, static_sizes = array<i64: 32, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x64xf32>) -> memref<32x64xf32, strided<[64, 1], offset: 2048>>
    %d2 = "memref.subview"(%d) <{static_offsets = array<i64: 64, 0>, static_sizes = array<i64: 32, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x64xf32>) -> memref<32x64xf32, strided<[64, 1], offset: 4096>>
    %d3 = "memref.subview"(%d) <{static_offsets = array<i64: 96, 0>, static_sizes = array<i64: 32, 64>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (memref<128x64xf32>) -> memref<32x64xf32, strided<[64, 1], offset: 6144>>
    "memref.copy"(%r0, %d0) : (memref<32x64xf32>, memref<32x64xf32, strided<[64, 1]>>) -> ()
    "memref.copy"(%r1, %d1) : (memref<32x64xf32>, memref<32x64xf32, strided<[64, 1], offset: 2048>>) -> ()
    "memref.copy"(%r2, %d2) : (memref<32x64xf32>, memref<32x64xf32, strided<[64, 1], offset: 4096>>) -> ()
    "memref.copy"(%r3, %d3) : (memref<32x64xf32>, memref<32x64xf32, strided<[64, 1], offset: 6144>>) -> ()
    tcgen05.dealloc cta_group(1) %acc : memref<128x64xf32, #tcgen05.space<tmem>>
    func.return
  }
}
"""


def _run_mn(tmp_path: Path, sbo: int) -> tuple[int, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 5, (128, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 64)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    code = main([str(_variant(tmp_path, _MN_MAJOR.replace("sbo = SBO", f"sbo = {sbo}"))),
                 "-p", "mmair-lower", "--input", f"a={tmp_path / 'a.npy'}",
                 "--input", f"b={tmp_path / 'b.npy'}", "--output", f"d={tmp_path / 'd.npy'}"])
    return code, a, b


def test_mn_major_operand_loaded_by_tma_matches_numpy(tmp_path: Path, capsys) -> None:
    code, a, b = _run_mn(tmp_path, 1024)
    assert code == 0, capsys.readouterr().err
    assert np.array_equal(np.load(tmp_path / "d.npy"), a.astype(np.float32) @ b.astype(np.float32))


def test_mn_major_descriptor_with_the_wrong_sbo_is_a_layout_mismatch(tmp_path: Path,
                                                                     capsys) -> None:
    code, _, _ = _run_mn(tmp_path, 512)
    assert code == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.mma' op layout mismatch on %sb: 'tcgen05.mma' reads B[n=0, k=8] at " \
        "SMEM 0x1240, which holds %b[4, 0] as 'tcgen05.tma_load' at " in err
    assert "wrote it; B[n=0, k=0] holds %b[0, 0], so it should be %b[8, 0] (the MN-major " \
        "descriptor with swizzle sw128, LBO 2048, SBO 512 does not walk the box the tensor map " \
        "(swizzle sw128) laid out)" in err


def test_a_b4x16_box_is_packed_two_elements_per_byte_with_oob_zeros() -> None:
    # the mxf4 operands' map: 4-bit elements, even element in the low nibble; the box's second
    # row is beyond the 1-row tensor and reads as zero codes
    codes = np.arange(32, dtype=np.uint8) % 16  # e2m1 codes 0..15, twice
    tensor = codes.reshape(1, 32).view(ml_dtypes.float4_e2m1fn)
    m = TensorMap("b4x16", (32, 1), (16,), (32, 2), (1, 1))
    smem = SharedMemory()
    write = tma_load(smem, TensorMapValue(tensor, m), (0, 0), 256, 32)
    assert write.nbytes == 32
    want = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)
    assert np.array_equal(smem.data[256:272], want)
    assert not smem.data[272:288].any()


@pytest.mark.parametrize(("dtype", "width", "numpy_type"),
                         [("b4x16_p64", 4, ml_dtypes.float4_e2m1fn),
                          ("b6x16_p32", 6, ml_dtypes.float6_e3m2fn)])
def test_a_padded_box_packs_16_elements_per_16_byte_unit(dtype: str, width: int,
                                                         numpy_type: type) -> None:
    # the f8f6f4 sub-byte operands' maps: each 16 elements packed little-endian (element i at
    # bits [w i, w i + w)), then padding the copy leaves alone; row 1 of the box is past the
    # 1-row tensor (zero codes); the transaction count is the packed bytes
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 1 << width, 128).astype(np.uint8)
    tensor = codes.reshape(1, 128).view(numpy_type)
    m = TensorMap(dtype, (128, 1), (128 * width // 8 + 32,), (128, 2), (1, 1))
    smem = SharedMemory()
    smem.data[:] = 0xAA
    write = tma_load(smem, TensorMapValue(tensor, m), (0, 0), 256, 256)
    assert write.nbytes == 2 * 128 * width // 8 and m.smem_box_bytes == 256
    data = 16 * width // 8
    for unit in range(8):
        run = sum(int(c) << (width * i) for i, c in enumerate(codes[16 * unit:16 * unit + 16]))
        at = 256 + 16 * unit
        assert list(smem.data[at:at + 16]) == list(run.to_bytes(data, "little")) \
            + [0xAA] * (16 - data), unit
    second = smem.data[384:512].reshape(8, 16)
    assert not second[:, :data].any() and (second[:, data:] == 0xAA).all()


def test_a_peer_copy_may_land_before_the_leaders_expect_tx_but_an_own_copy_may_not() -> None:
    from mmair.executor.engine.errors import ExecutionError
    from mmair.executor.tcgen05.functions import MbarrierState

    # cta_group::2: the peer's copy completes on the leader's barrier before the leader announced
    # both CTAs' bytes; the tx-count goes negative and the phase waits for the arrival
    state = MbarrierState(1, 1)
    state.complete_tx(4096, 0x100, remote=True)
    assert (state.phase, state.tx) == (0, -4096)
    state.arrive(8192)
    assert state.phase == 0
    state.complete_tx(4096, 0x100)
    assert (state.phase, state.tx, state.pending) == (1, 0, 1)
    # the barrier's own CTA copies only what was announced; nor may a peer overdraw once every
    # arrival is in (nothing can announce its bytes any more)
    with pytest.raises(ExecutionError, match="more bytes than expect_tx announced"):
        MbarrierState(1, 1).complete_tx(16, 0x100)
    done = MbarrierState(2, 2)
    done.arrive(16)
    done.arrive()
    with pytest.raises(ExecutionError, match="expects only 16 more"):
        done.complete_tx(32, 0x100, remote=True)
