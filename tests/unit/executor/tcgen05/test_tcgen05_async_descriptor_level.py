"""The async checker on descriptor-level tcgen05 kernels (no tcgen05.commit,
examples/tcgen05_mma_f16.mlir): a thread access of a TMEM memref completes the MMAs issued before
it, the kernel end completes the rest, and everything else is checked as in a commit kernel."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from run_variants import run_lowered, write_variant
from xdsl.context import Context
from xdsl.parser import Parser

from mmair.dialects import get_all_dialects
from mmair.executor.tcgen05.async_checker import holds_tcgen05, is_descriptor_level

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "tcgen05_mma_f16.mlir"
KLOOP = ROOT / "examples" / "tcgen05_gemm_kloop.mlir"
LINES = EXAMPLE.read_text().splitlines()
MMA = next(i + 1 for i, x in enumerate(LINES) if "tcgen05.mma kind(f16)" in x)
D_COPY = next(i + 1 for i, x in enumerate(LINES) if '"memref.copy"(%acc, %d)' in x)
TMEM_D = "memref<128x256xf32, #tcgen05.space<tmem>>"


def test_the_example_runs_under_the_checker_and_matches_numpy(capsys, tmp_path: Path) -> None:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = Parser(ctx, EXAMPLE.read_text()).parse_module()
    assert holds_tcgen05(module) and is_descriptor_level(module)
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, (128, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 256)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(128, 2, 8).transpose(1, 0, 2).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(256, 2, 8).transpose(1, 0, 2).copy())
    code, err = run_lowered(capsys, EXAMPLE, "--input", f"a={tmp_path / 'a.npy'}", "--input",
                     f"b={tmp_path / 'b.npy'}", "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "d.npy"), a.astype(np.float32) @ b.astype(np.float32))


def test_smem_operand_overwritten_before_d_is_read(capsys, tmp_path: Path) -> None:
    refill = ('    "memref.copy"(%a, %a_smem) : (memref<2x128x8xf16>, '
              'memref<2x128x8xf16, #tcgen05.space<smem>>) -> ()')
    path = write_variant(tmp_path, "refill", LINES[:MMA] + [refill] + LINES[MMA:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{MMA + 1}:5: error: 'memref.copy' op race on smem bytes [0, 4096) (%a_smem): "
        f"'memref.copy' at {path}:{MMA + 1}:5 (the issuing thread) writes them, 'tcgen05.mma' at "
        f"{path}:{MMA}:5 (the tensor core's async unit) reads them")
    # Moved after the read of D (which completes the MMA) it is race-free.
    path = write_variant(tmp_path, "refill_late", LINES[:D_COPY] + [refill] + LINES[D_COPY:])
    assert run_lowered(capsys, path) == (0, "")


def test_tcgen05_ld_of_d_without_commit_is_a_race(capsys, tmp_path: Path) -> None:
    ld = [f'    %r = tcgen05.ld shape("32x32b") num(128) warp(0) lane(0) column(0) %acc : '
          f'{TMEM_D} -> memref<32x128xf32>', "    tcgen05.wait_ld"]
    path = write_variant(tmp_path, "ld", LINES[:MMA] + ld + LINES[MMA:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{MMA + 1}:5: error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x columns "
        f"[0, 128) (%acc): 'tcgen05.ld' at {path}:{MMA + 1}:5 (the TMEM load path) reads them, "
        f"'tcgen05.mma' at {path}:{MMA}:5 (the tensor core's async unit) writes them")
    # After the thread read D through its memref the MMA is complete: the ld is ordered.
    path = write_variant(tmp_path, "ld_late", LINES[:D_COPY] + ld + LINES[D_COPY:])
    assert run_lowered(capsys, path) == (0, "")


def test_dealloc_without_reading_d_races_the_mma(capsys, tmp_path: Path) -> None:
    path = write_variant(tmp_path, "no_read", LINES[:D_COPY - 1] + LINES[D_COPY:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{D_COPY}:5: error: 'tcgen05.dealloc' op race on TMEM lanes [0, 128) x columns "
        f"[0, 256) (%acc): 'tcgen05.dealloc' at {path}:{D_COPY}:5 (the issuing thread) writes "
        f"them, 'tcgen05.mma' at {path}:{MMA}:5 (the tensor core's async unit) writes them")


def test_kernel_end_completes_an_mma_whose_d_is_a_result(capsys, tmp_path: Path) -> None:
    # No read, no dealloc: the runner reads TMEM after the kernel (implicit completion).
    lines = [x for i, x in enumerate(LINES, 1) if i != D_COPY and "tcgen05.dealloc" not in x]
    assert run_lowered(capsys, write_variant(tmp_path, "end", lines)) == (0, "")


def test_scalar_tmem_store_completes_the_mma_first(capsys, tmp_path: Path) -> None:
    store = ["    %z = arith.constant 0.0 : f32", "    %i0 = arith.constant 0 : index",
             f"    memref.store %z, %acc[%i0, %i0] : {TMEM_D}"]
    path = write_variant(tmp_path, "store", LINES[:MMA] + store + LINES[MMA:])
    code, err = run_lowered(capsys, path, "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    assert np.load(tmp_path / "d.npy")[0, 0] == 0.0


def test_tmem_memref_read_in_a_commit_kernel_needs_the_wait(capsys, tmp_path: Path) -> None:
    # With tcgen05.commit, reading D through its memref is a plain thread access of TMEM: it
    # races the last MMAs unless the final wait comes first.
    lines = KLOOP.read_text().splitlines()
    wait = next(i for i, x in enumerate(lines) if "mbarrier_wait %bar1, %last" in x)
    read = ('    "memref.copy"(%acc, %d) : (memref<128x128xf32, #tcgen05.space<tmem>>, '
            'memref<128x128xf32>) -> ()')
    path = write_variant(tmp_path, "early_read", lines[:wait] + [read] + lines[wait:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{wait + 1}:5: error: 'memref.copy' op race on TMEM lanes [0, 128) x columns "
        f"[0, 128) (%acc): 'memref.copy' at {path}:{wait + 1}:5 (the issuing thread) reads them, "
        f"'tcgen05.mma' at ")
    assert "(the tensor core's async unit, iteration %k = 3) writes them" in err
    path = write_variant(tmp_path, "late_read", lines[:wait + 1] + [read] + lines[wait + 1:])
    assert run_lowered(capsys, path) == (0, "")
