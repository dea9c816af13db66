"""examples/tcgen05_gemm_tma.mlir: the TMA-fed tcgen05 GEMM (tensor maps, cp.async.bulk.tensor,
expect_tx / complete_tx, a 2-stage ring) runs clean and matches numpy, and each classic TMA bug
is found with both ops named: an expect_tx too small (more bytes than announced: an error) or too
large (the phase never completes: a deadlock naming the barrier and the byte counts), a stage
refilled before the MMAs that read it completed (a race), a tensor-map swizzle that disagrees with
the MMA's descriptor (a layout mismatch). Also: out-of-bounds elements of a box are filled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from run_variants import run_lowered

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
