"""The asynchronous tcgen05 checker (executor/tcgen05/async_checker.py) on racy variants of
examples/tcgen05_gemm_kloop.mlir: each synchronisation bug a Blackwell kernel can have is one
error naming both ops with their file:line:col, the buffer and the lanes x columns or bytes.
Also: an mbarrier phase completes only at its last arrival; an MMA's D footprint is M lanes x N
columns, A in TMEM runs race-free; thread copies into SMEM and a thread load of one TMEM cell
are accesses of their buffer; why a thread access is unordered (isa/tcgen05/units.py)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from run_variants import run_lowered, write_variant
from sync_testing import line_of, parse

from mmair.dialects.pto.access import Access
from mmair.executor.engine.events import LANE_SETS, NUM_PIPES, PIPES, SyncError, lane_of
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import Pipe, needs_same_pipe_barrier
from mmair.isa.tcgen05 import units
from mmair.isa.tcgen05.units import UNITS, Unit
from mmair.tools.diagnostics import op_location
from mmair.tools.run import main

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


def test_wrong_phase_can_alias_and_hang(capsys, tmp_path: Path) -> None:
    # Parity 0 at the end names phase 0 of %bar1, already observed. Phase 1 (the last commit) may
    # complete before the wait looks: the phase parity is 0 again and the wait waits for phase 2,
    # which never comes (phase aliasing). (Were phase 1 still running, the wait would return at
    # once and tcgen05.ld would read D under the MMAs: the hang is found first, at the wait.)
    path = _variant(tmp_path, "wrong_phase", _replace("%last = arith.constant true",
                                                      "%last = arith.constant false"))
    code, err = run_lowered(capsys, path)
    assert code == 1
    wait = _line("tcgen05.mbarrier_wait %bar1, %last")
    commit = _line("tcgen05.commit cta_group(1) %bar1")
    assert err.startswith(
        f"{path}:{wait}:5: error: 'tcgen05.mbarrier_wait' op deadlock (phase aliasing): waits on "
        "phase parity 0 of the mbarrier at SMEM 0x4008 (%bars), but 2 phases of it can complete "
        f"before the wait looks (phase 0 by 'tcgen05.commit' at {path}:{commit}:9 (the tensor "
        "core's async unit, iteration %k = 1), phase 1 by 'tcgen05.commit' at "
        f"{path}:{commit}:9 (the tensor core's async unit, iteration %k = 3); the thread has "
        "observed 1)")
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


def test_a_commit_after_every_mma_was_waited_names_its_pending_arrive(capsys, tmp_path) -> None:
    """Issue 28 item 4: the MMAs were all waited (through the last commit), so the message is
    about the extra commit's arrive, not MMAs in flight."""
    extra = "    tcgen05.commit cta_group(1) %bar0 : memref<1xi64, #tcgen05.space<smem>>"
    path = _variant(tmp_path, "extra_commit", lambda lines: [
        y for x in lines for y in ((extra, x) if "tcgen05.dealloc" in x else (x,))])
    code, err = run_lowered(capsys, path)
    assert code == 1
    commit = _line_in(path, "tcgen05.dealloc") - 1  # the extra commit, just before the dealloc
    assert err.startswith(
        f"{path}:{commit}:5: error: 'tcgen05.commit' at {path}:{commit}:5 (the tensor core's "
        "async unit) is never waited: its arrive on the mbarrier is still pending when the "
        "kernel ends (no tcgen05.mbarrier_wait observes the phase it completes); every MMA "
        "before it was already waited"), err
    assert "possibly in flight" not in err


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


# mbarrier phases, the footprints of D and of A in TMEM, thread copies into SMEM


_SMEM = "memref<1xi64, #tcgen05.space<smem>>"


_PHASES = f"""builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @bar() {{
    %bar = tcgen05.smem_alloc offset(0) : {_SMEM}
    tcgen05.mbarrier_init %bar count(2) : {_SMEM}
    %done = tcgen05.smem_alloc offset(16) : {_SMEM}
    tcgen05.mbarrier_init %done count(1) : {_SMEM}
    tcgen05.commit cta_group(1) %done : {_SMEM}
    %p0 = arith.constant false
    tcgen05.mbarrier_wait %done, %p0 : {_SMEM}
    tcgen05.mbarrier_arrive %bar : {_SMEM}
    tcgen05.mbarrier_arrive %bar : {_SMEM}
    tcgen05.mbarrier_wait %bar, %p0 : {_SMEM}
    tcgen05.mbarrier_arrive %bar : {_SMEM}
ARRIVE
    %p1 = arith.constant true
    tcgen05.mbarrier_wait %bar, %p1 : {_SMEM}
    func.return
  }}
}}
"""


def test_mbarrier_phase_completes_only_at_its_last_arrival():
    # count(2): arrivals 1-2 complete phase 0 (parity 0); arrival 3 alone leaves phase 1 open, so
    # the wait on parity 1 can never return.
    text = _PHASES.replace("ARRIVE\n", "")
    with pytest.raises(SyncError, match=r"deadlock: waits on phase parity 1 of the mbarrier at SMEM 0x0 \(%bar\)") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.kind == "deadlock"
    assert info.value.message == (
        "deadlock: waits on phase parity 1 of the mbarrier at SMEM 0x0 (%bar), which can never "
        "complete (1 phase completed, the thread has observed 1; 1 of 2 arrivals pending, 0 of 0 "
        "expected transaction bytes arrived, nothing left to arrive)")
    assert op_location(info.value.op)[1] == line_of(text, "mbarrier_wait %bar, %p1")
    # The fourth arrival completes phase 1.
    run_module(parse(_PHASES.replace("ARRIVE", f"    tcgen05.mbarrier_arrive %bar : {_SMEM}")),
               sync_check=True)


def test_mma_d_footprint_is_m_lanes_by_n_columns(capsys, tmp_path):
    # The K-loop example with N = 64 and its final wait removed: the first D load (lanes 0-31,
    # columns 0-127) races with the MMA's D, lanes [0, 128) x columns [0, 64) of %acc, on the
    # intersection only.
    example = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_gemm_kloop.mlir"
    text = example.read_text()
    assert "m = 128, n = 128>" in text
    lines = [x for x in text.replace("m = 128, n = 128>", "m = 128, n = 64>").splitlines()
             if "mbarrier_wait %bar1, %last" not in x]
    path = tmp_path / "n64.mlir"
    path.write_text("\n".join(lines) + "\n")
    assert main([str(path), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    ld = line_of(path.read_text(), 'tcgen05.ld shape("32x32b") num(128) warp(0)')
    assert err.startswith(f"{path}:{ld}:5: error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x "
                          "columns [0, 64) (%acc): ")


_TM = "#tcgen05.space<tmem>"


_SM = "#tcgen05.space<smem>"


def _warp_store(w: int) -> str:
    offset = "" if w == 0 else f", offset: {4096 * w}"
    return f"""    %r{w} = tcgen05.ld shape("32x32b") num(128) warp({w}) lane({32 * w}) column(0) %acc : memref<128x128xf32, {_TM}> -> memref<32x128xf32>
    tcgen05.wait_ld
    %d{w} = "memref.subview"(%d) <{{static_offsets = array<i64: {32 * w}, 0>, static_sizes = array<i64: 32, 128>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>}}> : (memref<128x128xf32>) -> memref<32x128xf32, strided<[128, 1]{offset}>>
    "memref.copy"(%r{w}, %d{w}) : (memref<32x128xf32>, memref<32x128xf32, strided<[128, 1]{offset}>>) -> ()
"""


# A in tensor memory: A (128 x 16 f16, K-major canonical in SMEM like the K-loop example's A
# stage) is copied to TMEM by tcgen05.cp .128x256b (row r to lane r), then the MMA reads A from
# TMEM and B through its SMEM descriptor; all on the tensor core's in-order async unit.
_A_IN_TMEM = f"""builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @gemm(%a: memref<2x128x8xf16>, %b: memref<2x128x8xf16>, %d: memref<128x128xf32>) {{
    %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
    %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %b_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 4096, lbo = 2048, sbo = 128, base_offset = 0, lbo_mode = relative, swizzle = none>
    %a_smem = tcgen05.smem_alloc offset(0) : memref<2x128x8xf16, {_SM}>
    %b_smem = tcgen05.smem_alloc offset(4096) : memref<2x128x8xf16, {_SM}>
    %bar = tcgen05.smem_alloc offset(8192) : memref<1xi64, {_SM}>
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, {_SM}>
    %acc = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, {_TM}>
    %at = tcgen05.alloc cta_group(1) columns(32) : memref<128x64xf16, {_TM}>
    tcgen05.relinquish_alloc_permit cta_group(1)
    "memref.copy"(%a, %a_smem) : (memref<2x128x8xf16>, memref<2x128x8xf16, {_SM}>) -> ()
    "memref.copy"(%b, %b_smem) : (memref<2x128x8xf16>, memref<2x128x8xf16, {_SM}>) -> ()
    tcgen05.fence_after_thread_sync
    tcgen05.cp cta_group(1) shape("128x256b") %at, %a_desc : memref<128x64xf16, {_TM}>
    %false = arith.constant false
    tcgen05.mma kind(f16) cta_group(1) %acc, %at, %b_desc, %idesc, %false : memref<128x128xf32, {_TM}>, memref<128x64xf16, {_TM}>
    tcgen05.commit cta_group(1) %bar : memref<1xi64, {_SM}>
    tcgen05.mbarrier_wait %bar, %false : memref<1xi64, {_SM}>
    tcgen05.fence_after_thread_sync
{"".join(_warp_store(w) for w in range(4))}    tcgen05.dealloc cta_group(1) %at : memref<128x64xf16, {_TM}>
    tcgen05.dealloc cta_group(1) %acc : memref<128x128xf32, {_TM}>
    func.return
  }}
}}
"""


def test_mma_with_a_in_tmem_runs_under_the_async_checker(capsys, tmp_path):
    # The asynchronous checker takes A's footprint from TMEM (no SMEM descriptor for A): the
    # kernel is race-free and D = A x B.
    rng = np.random.default_rng(1)
    a = rng.integers(-4, 5, (128, 16)).astype(np.float16)
    b = rng.integers(-4, 5, (16, 128)).astype(np.float16)
    path = tmp_path / "a_in_tmem.mlir"
    path.write_text(_A_IN_TMEM)
    # GM inputs K-blocked: A[m, k] = a[k / 8, m, k % 8], B[k, n] = b[k / 8, n, k % 8]
    np.save(tmp_path / "a.npy", a.reshape(128, 2, 8).transpose(1, 0, 2).copy())
    np.save(tmp_path / "b.npy", b.T.reshape(128, 2, 8).transpose(1, 0, 2).copy())
    code = main([str(path), "-p", "mmair-lower", "--input", f"a={tmp_path / 'a.npy'}",
                 "--input", f"b={tmp_path / 'b.npy'}", "--output", f"d={tmp_path / 'd.npy'}"])
    assert (code, capsys.readouterr().err) == (0, "")
    expected = a.astype(np.float32) @ b.astype(np.float32)  # small integers: exact
    assert np.array_equal(np.load(tmp_path / "d.npy"), expected)


def test_a_thread_copy_into_smem_is_an_access_named_by_its_buffer():
    # The accesses the asynchronous checker records for a memref.copy into shared memory: the
    # byte range inside SMEM, named by the smem_alloc it falls in (for race messages).
    from types import SimpleNamespace

    from mmair.executor.tcgen05.async_checker import Tcgen05Seam

    seam = Tcgen05Seam()
    smem = np.zeros(8192, np.uint8)
    seam.functions = SimpleNamespace(smem=SimpleNamespace(data=smem))
    seam.buffers = [(0, 4096, "%a_stages"), (4096, 8192, "%b_stages")]
    assert seam._view_accesses(smem[4160:4224], True) == [
        Access("smem", 4160, 64, write=True, buffer="%b_stages")]
    rows = smem.reshape(64, 128)[2:4, 16:48]  # 2 rows of 32 bytes, 128 bytes apart
    assert seam._view_accesses(rows, False) == [
        Access("smem", 272, 32, 2, 128, buffer="%a_stages")]
    assert seam._view_accesses(np.zeros(4, np.uint8), True) == []  # not in shared memory



def test_a_thread_view_of_more_than_64_row_groups_is_its_byte_hull():
    """A thread access of a view with more row groups than the checker lists (64) is recorded as
    the hull of its bytes, from its lowest to its highest byte (conservative: it may name bytes
    between the rows, never miss one): 128 groups of 4 one-byte rows 16 bytes apart, 64 bytes
    between groups, touch bytes 0 .. 127 * 64 + 3 * 16 = 8176."""
    from types import SimpleNamespace

    from mmair.executor.tcgen05.async_checker import Tcgen05Seam

    seam = Tcgen05Seam()
    smem = np.zeros(8192, np.uint8)
    seam.functions = SimpleNamespace(smem=SimpleNamespace(data=smem))
    seam.buffers = [(0, 8192, "%stages")]
    view = smem.reshape(128, 4, 16)[:, :, 0:1]
    assert seam._view_accesses(view, False) == [Access("smem", 0, 8177, buffer="%stages")]
    few = smem[:512].reshape(8, 4, 16)[:, :, 0:1]  # 8 groups: one strided access per group
    assert seam._view_accesses(few, True) == [
        Access("smem", 64 * g, 1, 4, 16, True, "%stages") for g in range(8)]


KLOOP = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_gemm_kloop.mlir"


def test_thread_load_of_one_tmem_element_is_that_cell_of_its_memref(capsys, tmp_path):
    # `memref.load %acc[3, 5]` reads lane 3, column 5 of the accumulator (one f32 cell, named by
    # the memref it loads from): before the final mbarrier wait it races the last MMA's write of
    # D on exactly that cell; after the wait it is ordered.
    lines = KLOOP.read_text().splitlines()
    wait = next(i for i, x in enumerate(lines) if "mbarrier_wait %bar1, %last" in x)
    load = ["    %i3 = arith.constant 3 : index", "    %i5 = arith.constant 5 : index",
            "    %v = memref.load %acc[%i3, %i5] : memref<128x128xf32, #tcgen05.space<tmem>>"]
    path = write_variant(tmp_path, "early_load", lines[:wait] + load + lines[wait:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{wait + 3}:5: error: 'memref.load' op race on TMEM lanes [3, 4) x columns "
        f"[5, 6) (%acc): 'memref.load' at {path}:{wait + 3}:5 (the issuing thread) reads them, "
        f"'tcgen05.mma' at "), err
    assert "(the tensor core's async unit, iteration %k = 3) writes them" in err
    path = write_variant(tmp_path, "late_load", lines[:wait + 1] + load + lines[wait + 1:])
    assert run_lowered(capsys, path) == (0, "")


def test_why_a_thread_access_is_not_ordered_before_a_later_async_access():
    # A thread access followed by an async unit's: the async op was issued first, nothing orders
    # it after the thread's later access (the report's reason; hb.py). Thread after thread, and an
    # async unit first, take the per-unit reasons.
    assert units.why_unordered(units.Unit.THREAD, units.Unit.TC) == (
        "the access of the tensor core's async unit was issued before the thread's access, and "
        "nothing orders an async op after later thread accesses")
    assert units.why_unordered(units.Unit.THREAD, units.Unit.LD).startswith(
        "the access of the TMEM load path was issued")
    assert units.why_unordered(units.Unit.THREAD, units.Unit.THREAD) == (
        "the async op does not wait for the thread's later accesses")
    assert units.why_unordered(units.Unit.TC, units.Unit.THREAD) == (
        "no tcgen05.commit after it whose mbarrier phase the thread waited "
        "(tcgen05.mbarrier_wait) orders them")


def test_a_tmem_store_under_an_in_flight_mma_is_a_race(capsys, tmp_path: Path) -> None:
    """tcgen05.st writes TMEM from the threads' registers (PTX ISA 9.7.16.8.4) without waiting
    for the MMAs writing those cells: only a tcgen05.commit whose mbarrier phase the thread
    waited orders it after them. A store of 32 lanes x 4 columns of D before the final wait
    races the last MMA on exactly those cells."""
    store = ['    %zeros = memref.alloc() : memref<32x4xf32>',
             '    tcgen05.st shape("32x32b") num(4) warp(0) lane(0) column(8) %acc, %zeros : '
             'memref<128x128xf32, #tcgen05.space<tmem>>, memref<32x4xf32>']
    wait = _line("mbarrier_wait %bar1, %last")
    path = _variant(tmp_path, "st_before_wait", lambda lines: lines[:wait - 1] + store +
                    lines[wait - 1:])
    code, err = run_lowered(capsys, path)
    assert code == 1
    st = wait + 1
    assert err.startswith(
        f"{path}:{st}:5: error: 'tcgen05.st' op race on TMEM lanes [0, 32) x columns [8, 12) "
        f"(%acc): 'tcgen05.st' at {path}:{st}:5 "), err
    assert f"'tcgen05.mma' at {path}:{MMA}:7 (the tensor core's async unit, iteration %k = 3) " \
           "writes them" in err, err


# ---- a block-scaled MMA: its scale factors, and SMEM bytes outside every buffer --------------

_SMEM_SPACE = "#tcgen05.space<smem>"
_SF_T = "memref<128x32xi32, #tcgen05.space<tmem>>"
_D_T = "memref<128x64xf32, #tcgen05.space<tmem>>"
_REFILL = {
    "sfa": f'    "memref.copy"(%sfa_img, %sfa) : (memref<128x32xi32>, {_SF_T}) -> () // refill\n',
    "sfb": f'    "memref.copy"(%sfb_img, %sfb) : (memref<128x32xi32>, {_SF_T}) -> () // refill\n',
    "b": f'    "memref.copy"(%b_img, %b_s) : (memref<2048xui8>, memref<2048xui8, {_SMEM_SPACE}>) -> () '
         '// refill\n',
}


def _scaled_kernel(refill: str = "", b_offset: int = 4096) -> str:
    """One mxf8f6f4 block-scaled MMA, 128 x 64 x 32 e4m3 (A at SMEM 0, B at 4096, each 32 bytes
    of K per row, no swizzle; one UE8M0 scale per row of A and per column of B, in TMEM
    buffers %sfa and %sfb after D's 64 columns), committed to an mbarrier the thread waits on
    before it reads D. `refill`: a thread copy (`_REFILL`) between the commit and the wait;
    `b_offset`: where B's buffer is allocated (B's descriptor stays at 4096)."""
    from tcgen05_testing import compact_desc

    from mmair.isa.tcgen05 import InstrDesc, encode_idesc, encode_smem_desc

    idesc = encode_idesc(InstrDesc(kind="mxf8f6f4", m=128, n=64, atype="e4m3", btype="e4m3",
                                   dtype=None, scale_type="ue8m0"))
    a_desc = encode_smem_desc(compact_desc("k", "none", 8, 128, 32, 0))
    b_desc = encode_smem_desc(compact_desc("k", "none", 8, 64, 32, 4096))
    copy = '    "memref.copy"'
    return f"""builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @k(%a_img: memref<4096xui8>, %b_img: memref<2048xui8>, %sfa_img: memref<128x32xi32>, %sfb_img: memref<128x32xi32>, %out: memref<128x64xf32>) {{
    %idesc = arith.constant {idesc} : i32
    %a_desc = arith.constant {a_desc} : i64
    %b_desc = arith.constant {b_desc} : i64
    %a_s = tcgen05.smem_alloc offset(0) : memref<4096xui8, {_SMEM_SPACE}>
    %b_s = tcgen05.smem_alloc offset({b_offset}) : memref<2048xui8, {_SMEM_SPACE}>
    %bar = tcgen05.smem_alloc offset(8192) : memref<1xi64, {_SMEM_SPACE}>
{copy}(%a_img, %a_s) : (memref<4096xui8>, memref<4096xui8, {_SMEM_SPACE}>) -> ()
{copy}(%b_img, %b_s) : (memref<2048xui8>, memref<2048xui8, {_SMEM_SPACE}>) -> ()
    tcgen05.mbarrier_init %bar count(1) : memref<1xi64, {_SMEM_SPACE}>
    %d = tcgen05.alloc cta_group(1) columns(64) : {_D_T}
    %sfa = tcgen05.alloc cta_group(1) columns(32) : {_SF_T}
    %sfb = tcgen05.alloc cta_group(1) columns(32) : {_SF_T}
{copy}(%sfa_img, %sfa) : (memref<128x32xi32>, {_SF_T}) -> ()
{copy}(%sfb_img, %sfb) : (memref<128x32xi32>, {_SF_T}) -> ()
    tcgen05.fence_after_thread_sync
    %en = arith.constant false
    tcgen05.mma kind(mxf8f6f4) cta_group(1) block_scale %d, %a_desc, %b_desc, %idesc, %en scale(%sfa, %sfb) : {_D_T}, i64, {_SF_T}, {_SF_T} // mma
    tcgen05.commit cta_group(1) %bar : memref<1xi64, {_SMEM_SPACE}>
{refill}    %p0 = arith.constant false
    tcgen05.mbarrier_wait %bar, %p0 : memref<1xi64, {_SMEM_SPACE}>
    tcgen05.fence_after_thread_sync
{copy}(%d, %out) : ({_D_T}, memref<128x64xf32>) -> ()
    tcgen05.dealloc cta_group(1) %sfb : {_SF_T}
    tcgen05.dealloc cta_group(1) %sfa : {_SF_T}
    tcgen05.dealloc cta_group(1) %d : {_D_T}
    func.return
  }}
}}
"""


def _race_text(text: str, where: str) -> str:
    return (f"race on {where}: 'memref.copy' at k.mlir:{line_of(text, '// refill')}:5 (the "
            f"issuing thread) writes them, 'tcgen05.mma' at k.mlir:{line_of(text, '// mma')}:5 "
            "(the tensor core's async unit) reads them; no tcgen05.commit after it whose "
            "mbarrier phase the thread waited (tcgen05.mbarrier_wait) orders them")


def test_a_block_scaled_mma_is_clean_when_its_inputs_wait_for_its_commit() -> None:
    result = run_module(parse(_scaled_kernel()), sync_check=True)
    plain = run_module(parse(_scaled_kernel()), sync_check=False)
    np.testing.assert_array_equal(result.outputs["out"], plain.outputs["out"])


@pytest.mark.parametrize(("refill", "cells"), [
    # 128 rows of A's scales: 4 columns of %sfa (columns 64.. after D's 64); B's 64: 2 of %sfb
    ("sfa", "TMEM lanes [0, 128) x columns [64, 68) (%sfa)"),
    ("sfb", "TMEM lanes [0, 128) x columns [96, 98) (%sfb)"),
], ids=["sfa", "sfb"])
def test_scale_factors_refilled_under_an_in_flight_block_scaled_mma(refill, cells) -> None:
    """A block-scaled MMA reads both scale-factor matrices from TMEM asynchronously (PTX ISA
    9.7.16.10.7): a thread copy into their cells before the commit's phase was waited races
    it, on exactly the cells the MMA reads."""
    text = _scaled_kernel(_REFILL[refill])
    with pytest.raises(SyncError, match="race on TMEM lanes") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.message == _race_text(text, cells)
    assert op_location(info.value.op)[1] == line_of(text, "// refill")


def test_smem_bytes_in_no_buffer_are_named_shared_memory() -> None:
    # B's buffer allocated 16 bytes past where B's descriptor points: the MMA reads [4096, 6144),
    # which starts in no tcgen05.smem_alloc buffer (named "shared memory"); the refill of %b_s
    # writes [4112, 6160).
    text = _scaled_kernel(_REFILL["b"], b_offset=4112)
    with pytest.raises(SyncError, match="race on smem bytes") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.message == _race_text(text, "smem bytes [4112, 6144) (%b_s / shared memory)")
    # B's buffer where its descriptor points: its name only
    text = _scaled_kernel(_REFILL["b"])
    with pytest.raises(SyncError, match="race on smem bytes") as info:
        run_module(parse(text), sync_check=True)
    assert info.value.message == _race_text(text, "smem bytes [4096, 6144) (%b_s)")
