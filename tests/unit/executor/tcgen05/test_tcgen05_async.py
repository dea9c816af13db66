"""The asynchronous tcgen05 checker (executor/tcgen05/async_checker.py) on racy variants of
examples/tcgen05_gemm_kloop.mlir: each synchronisation bug a Blackwell kernel can have is one
error naming both ops with their file:line:col, the buffer and the lanes x columns or bytes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from run_variants import run_lowered, write_variant

from mmair.executor.engine.events import LANE_SETS, NUM_PIPES, PIPES, lane_of
from mmair.executor.engine.hb import HappensBefore
from mmair.isa.ascend.pipes import Pipe, needs_same_pipe_barrier
from mmair.isa.tcgen05.units import UNITS, Unit

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "tcgen05_gemm_kloop.mlir"
LINES = EXAMPLE.read_text().splitlines()


def _line(fragment: str, start: int = 0) -> int:
    """1-based line of the first example line (from `start`) containing `fragment`."""
    return next(i + 1 for i, text in enumerate(LINES) if i >= start and fragment in text)


def _line_in(path: Path, fragment: str) -> int:
    return next(i + 1 for i, text in enumerate(path.read_text().splitlines()) if fragment in text)


def _variant(tmp_path: Path, name: str, edit) -> Path:
    return write_variant(tmp_path, name, edit(list(LINES)))


def _drop(fragment: str):
    return lambda lines: [x for x in lines if fragment not in x]


def _replace(old: str, new: str):
    return lambda lines: [x.replace(old, new) for x in lines]


MMA = _line("tcgen05.mma kind(f16)")
LD0 = _line('tcgen05.ld shape("32x32b") num(128) warp(0)')
COPY_A = _line('"memref.copy"(%a_src, %a_dst)')


def test_correct_kernel_is_race_free_and_matches_numpy(capsys, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (128, 64)).astype(np.float16)
    b = rng.integers(-4, 5, (64, 128)).astype(np.float16)
    np.save(tmp_path / "a.npy", a.reshape(128, 8, 8).transpose(1, 0, 2).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(128, 8, 8).transpose(1, 0, 2).copy())
    code, err = run_lowered(capsys, EXAMPLE, "--input", f"a={tmp_path / 'a.npy'}", "--input",
                     f"b={tmp_path / 'b.npy'}", "--output", f"d={tmp_path / 'd.npy'}")
    assert code == 0, err
    assert np.array_equal(np.load(tmp_path / "d.npy"), a.astype(np.float32) @ b.astype(np.float32))


def test_d_read_before_the_final_wait(capsys, tmp_path: Path) -> None:
    path = _variant(tmp_path, "no_final_wait", _drop("mbarrier_wait %bar1, %last"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    ld = LD0 - 1  # one line removed above it
    assert err.startswith(
        f"{path}:{ld}:5: error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x columns [0, 128) "
        f"(%acc): 'tcgen05.ld' at {path}:{ld}:5 (the TMEM load path) reads them, 'tcgen05.mma' at "
        f"{path}:{MMA}:7 (the tensor core's async unit, iteration %k = 3) writes them; no "
        "tcgen05.commit after it whose mbarrier phase the thread waited")


def test_smem_stage_refilled_under_an_in_flight_mma(capsys, tmp_path: Path) -> None:
    # No wait before refilling a stage: step 2 overwrites stage 0 that the MMA of step 0 reads.
    path = _variant(tmp_path, "early_refill", _replace("arith.cmpi uge, %k, %c2",
                                                       "arith.cmpi uge, %k, %ksteps"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{COPY_A}:7: error: 'memref.copy' op race on smem bytes [0, 4096) (%a_stages): "
        f"'memref.copy' at {path}:{COPY_A}:7 (the issuing thread, iteration %k = 2) writes them, "
        f"'tcgen05.mma' at {path}:{MMA}:7 (the tensor core's async unit, iteration %k = 0) "
        "reads them")


def test_registers_used_before_wait_ld(capsys, tmp_path: Path) -> None:
    path = _variant(tmp_path, "no_wait_ld", _drop("tcgen05.wait_ld"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    copy = _line_in(path, '"memref.copy"(%r0, %d0)')
    ld = _line_in(path, 'tcgen05.ld shape("32x32b") num(128) warp(0)')
    assert err.startswith(
        f"{path}:{copy}:5: error: 'memref.copy' op race on registers %r0: 'memref.copy' (the "
        f"issuing thread) reads them, 'tcgen05.ld' at {path}:{ld}:5 (the TMEM load path) loads "
        "them; no tcgen05.wait_ld after the load orders them")


def test_missing_commit_makes_a_wait_that_never_completes(capsys, tmp_path: Path) -> None:
    # Stage 1's commit removed: step 3 waits for phase 0 of %bar1, which nothing completes.
    path = _variant(tmp_path, "no_commit", _drop("tcgen05.commit cta_group(1) %bar1"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    wait = _line("tcgen05.mbarrier_wait %bar1, %parity")
    assert err.startswith(
        f"{path}:{wait}:11: error: 'tcgen05.mbarrier_wait' op deadlock: waits on phase parity 0 "
        "of the mbarrier at SMEM 0x4008 (%bars), which can never complete (0 phases completed, "
        "the thread has observed 0; 1 of 1 arrivals")


def test_wrong_phase_can_return_early_and_race(capsys, tmp_path: Path) -> None:
    # Parity 0 at the end names phase 0 of %bar1, already observed: if the last MMAs are still
    # running, the wait returns at once (phase 1 incomplete) and tcgen05.ld reads D under them.
    path = _variant(tmp_path, "wrong_phase", _replace("%last = arith.constant true",
                                                      "%last = arith.constant false"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(f"{path}:{LD0}:5: error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x "
                          "columns [0, 128) (%acc)")
    assert f"'tcgen05.mma' at {path}:{MMA}:7 (the tensor core's async unit, iteration %k = 3)" \
        in err
    # The sequential model (checker off) completes every MMA at issue: the same wait deadlocks.
    code, err = run_lowered(capsys, path, "--sync-check=off")
    assert code == 1
    assert "waits on phase parity 0 of the mbarrier at SMEM 0x4008, which can never complete" \
        in err


def _no_epilogue(lines: list[str]) -> list[str]:
    gone = ("mbarrier_wait %bar1, %last", "tcgen05.ld ", "tcgen05.wait_ld", '"memref.copy"(%r')
    return [x for x in lines if not any(g in x for g in gone)]


def test_tmem_deallocated_under_an_in_flight_mma(capsys, tmp_path: Path) -> None:
    path = _variant(tmp_path, "early_dealloc", _no_epilogue)
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert re.match(
        rf"{re.escape(str(path))}:\d+:5: error: 'tcgen05.dealloc' op race on TMEM lanes \[0, "
        r"128\) x columns \[0, 128\) \(%acc\): 'tcgen05.dealloc' .* writes them, 'tcgen05.mma' "
        r".*iteration %k = 3\) writes them", err)


def test_commit_never_waited(capsys, tmp_path: Path) -> None:
    path = _variant(tmp_path, "never_waited",
                    lambda lines: [x for x in _no_epilogue(lines) if "tcgen05.dealloc" not in x])
    code, err = run_lowered(capsys, path)
    assert code == 1
    commit = _line_in(path, "tcgen05.commit cta_group(1) %bar0")
    assert err.startswith(
        f"{path}:{commit}:9: error: 'tcgen05.commit' at {path}:{commit}:9 (the tensor core's "
        "async unit, iteration %k = 2) is never waited: no tcgen05.mbarrier_wait observes the "
        "mbarrier phase it completes")


def test_tcgen05_units_have_their_own_in_order_lanes() -> None:
    assert LANE_SETS == (PIPES, UNITS)
    assert NUM_PIPES == max(len(PIPES), len(UNITS))
    assert {lane_of(1, u) for u in Unit} == set(range(NUM_PIPES, NUM_PIPES + len(Unit)))
    ascend = HappensBefore(1)
    assert ascend.in_order == [not needs_same_pipe_barrier(p) for p in Pipe]
    assert not all(ascend.in_order)  # the Ascend vector and cube pipes need barriers
    assert all(HappensBefore(1, units=UNITS).in_order)


@pytest.mark.parametrize("unit", list(Unit))
def test_unit_names_are_not_pipe_names(unit: Unit) -> None:
    assert unit.value not in {p.value for p in Pipe}


def test_scalar_store_into_smem_under_an_in_flight_mma(capsys, tmp_path: Path) -> None:
    # A memref.store into stage 0 of A right after the first MMA (no wait) races with its read.
    store = ('      %z = arith.constant 0.0 : f16\n'
             '      memref.store %z, %a_stages[%c0, %c0, %c0, %c0] : '
             'memref<2x2x128x8xf16, #tcgen05.space<smem>>')

    def edit(lines: list[str]) -> list[str]:
        at = next(i for i, x in enumerate(lines) if "tcgen05.mma kind(f16)" in x)
        return lines[:at + 1] + store.splitlines() + lines[at + 1:]

    path = _variant(tmp_path, "scalar_store", edit)
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{MMA + 2}:7: error: 'memref.store' op race on smem bytes [0, 2) (%a_stages): "
        f"'memref.store' at {path}:{MMA + 2}:7 (the issuing thread, iteration %k = 0) writes them, "
        f"'tcgen05.mma' at {path}:{MMA}:7 (the tensor core's async unit, iteration %k = 0) "
        "reads them")


def test_check_coverage_sees_the_threads_gm_stores(capsys, tmp_path: Path) -> None:
    code, err = run_lowered(capsys, EXAMPLE, "--check-coverage", "d")
    assert code == 0, err
    path = _variant(tmp_path, "no_last_store", _drop('"memref.copy"(%r3, %d3)'))
    code, err = run_lowered(capsys, path, "--check-coverage", "d")
    assert code == 1
    # warp 3's 32 rows of the 128 x 128 f32 D: bytes [96 * 512, 128 * 512)
    assert "--check-coverage: 16384 bytes (4096 elements) of output 'd' were written by no " \
           "core: bytes [49152, 65536)" in err
