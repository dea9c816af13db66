"""Checker behaviours the mutation harness found unpinned (docs/mutation.md, area `checkers`):
scalar reads of pipe results ordered exactly at the boundary (`pipe_barrier all`) or produced
while their pipe was blocked, `pipe_barrier all` through the executor and the static entry point,
deadlock diagnostics (which op they point at, "it"/"them"), statically unknown event ids,
cross-core races and the predecessors of `pto.sync_all`, transposed GM footprints, one-row
descriptions, ops with a lowering under the checker; for tcgen05 (the async checker), mbarrier
phases that complete only at their last arrival and the M x N footprint of an MMA's D."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

from mmair.dialects import get_all_dialects, pto
from mmair.dialects.pto.effects import Access, Footprint
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import BARRIER_ALL, SET, WAIT, Event, SyncError
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.engine.memory import Memory
from mmair.executor.engine.scheduler import Scheduler, analyze
from mmair.executor.engine.seam import static_event
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import get_target
from mmair.tools.diagnostics import LocatingParser, op_location, verify_module
from mmair.tools.run import main


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "k.mlir").parse_module()
    verify_module(module)
    return module


def line_of(text: str, needle: str) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(hits) == 1, needle
    return hits[0]


_T = "!pto.tile<ub, 128xui16, nd>"


def gather_kernel(middle: str) -> str:
    """Load 128 u16 into UB, keep every second element (pattern 2) with a GatherMask, store the
    128-element destination back and return the kept count; `middle` is the synchronization
    (and the gather) between the load and the store."""
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : {_T}
    %ub_dst = pto.alloc {{offset = 256 : i64}} : {_T}
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, {_T}
{middle}
    pto.mte_ub_gm %ub_dst, %dst : {_T}, memref<128xui16>
    func.return %kept : index
  }}
}}
"""


_GATHER_OP = (f"    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero "
              f"{{pattern = 2 : i64}} : {_T}, {_T}")


def _src():
    return {"src": np.arange(1, 129, dtype=np.uint16)}


def _check_gathered(result) -> None:
    # Pattern 2 keeps elements 1, 3, 5, ... of 1..128: the even numbers 2..128, 64 of them.
    assert result.results == (64,)
    np.testing.assert_array_equal(result.outputs["dst"][:64], np.arange(2, 129, 2, dtype=np.uint16))


def test_pipe_barrier_all_orders_every_pipe_and_the_scalar_read():
    # One barrier after the gather orders the store (MTE3) and the scalar read of %kept after it:
    # the read is ordered exactly up to the gather (the vector pipe's last event), no flag needed.
    text = gather_kernel("    pto.set_flag mte2 -> v, 0\n    pto.wait_flag mte2 -> v, 0\n"
                         f"{_GATHER_OP}\n    pto.pipe_barrier all")
    _check_gathered(run_module(parse(text), inputs=_src(), sync_check=True))
    # Without it, the store races with the gather.
    racy = text.replace("    pto.pipe_barrier all", "")
    with pytest.raises(SyncError, match=r"race on ub bytes \[256, 512\) \(%ub_dst\)"):
        run_module(parse(racy), inputs=_src(), sync_check=True)


def test_pipe_barrier_of_one_pipe_does_not_order_the_scalar_read():
    text = gather_kernel("    pto.set_flag mte2 -> v, 0\n    pto.wait_flag mte2 -> v, 0\n"
                         f"{_GATHER_OP}\n    pto.set_flag v -> mte3, 0\n"
                         "    pto.wait_flag v -> mte3, 0\n    pto.pipe_barrier v")
    with pytest.raises(SyncError, match=r"reads %kept, the result of 'pto\.gather_mask'") as info:
        run_module(parse(text), inputs=_src(), sync_check=True)
    assert info.value.kind == "race"
    assert "reads %kept, the result of 'pto.gather_mask'" in info.value.message


def test_result_of_an_op_queued_behind_a_wait_reaches_the_scalar_unit():
    # The vector pipe waits for the load's flag, which the scalar unit issues only after the
    # gather: the gather is queued (its result pending) and runs when the set frees its queue.
    text = gather_kernel("    pto.wait_flag mte2 -> v, 0\n"
                         f"{_GATHER_OP}\n    pto.set_flag mte2 -> v, 0\n"
                         "    pto.set_flag v -> mte3, 0\n    pto.wait_flag v -> mte3, 0\n"
                         "    pto.set_flag v -> s, 0\n    pto.wait_flag v -> s, 0")
    result = run_module(parse(text), inputs=_src(), sync_check=True)
    _check_gathered(result)
    assert type(result.results[0]) is int


def test_scalar_deadlock_points_at_the_scalar_wait_and_names_every_stuck_pipe():
    # S waits for v -> s; V waits for an event id nobody sets: two stuck places -> "them".
    text = gather_kernel("    pto.set_flag mte2 -> v, 0\n    pto.wait_flag mte2 -> v, 1\n"
                         f"{_GATHER_OP}\n    pto.set_flag v -> s, 0\n    pto.wait_flag v -> s, 0")
    with pytest.raises(SyncError, match=r"no set_flag that could release them is issued or can run$") as info:
        run_module(parse(text), inputs=_src(), sync_check=True)
    err = info.value
    assert err.kind == "deadlock"
    assert err.op.name == "pto.wait_flag"
    assert op_location(err.op)[1] == line_of(text, "wait_flag v -> s, 0")
    assert err.message.endswith(": no set_flag that could release them is issued or can run")


def test_deadlock_at_kernel_end_points_at_the_stuck_wait():
    # One stuck pipe ("it"): the error's location is its wait.
    text = """builtin.module attributes {pto.target = "a2"} {
  func.func @f() {
    pto.wait_flag m -> fix, 5
    func.return
  }
}
"""
    with pytest.raises(SyncError, match=r"deadlock: pipe fix waits at 'pto\.wait_flag' at k\.mlir:3:5") as info:
        run_module(parse(text), sync_check=True)
    err = info.value
    assert err.kind == "deadlock"
    assert op_location(err.op)[1:] == (3, 5)
    assert err.message == ("deadlock: pipe fix waits at 'pto.wait_flag' at k.mlir:3:5 (pipe fix) "
                           "for flag m -> fix event 5: no set_flag that could release it is "
                           "issued or can run")


_LOWERED = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    pto.matmul %a, %b, %c : memref<16x16xf16>, memref<16x16xf16>, memref<16x16xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("sync_check", [False, True])
def test_op_with_a_lowering_is_one_error_with_or_without_the_checker(sync_check):
    with pytest.raises(ExecutionError, match=r"no implementation for op 'pto\.matmul' in the "
                                             r"executor; ops with a lowering run after it") as info:
        run_module(parse(_LOWERED), sync_check=sync_check)
    assert op_location(info.value.op)[1:] == (3, 5)


# --- the static entry point (pto-insert-sync) ---------------------------------------------------

_STATIC = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%src: memref<128xui16>, %dst: memref<128xui16>) {
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    BARRIER
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    func.return
  }
}
"""


def _static_events(text: str) -> list[Event]:
    target = get_target("a2")
    events = []
    for op in parse(text).walk():
        ev = static_event(op, target)
        if ev is not None:
            events.append(ev)
    return events


def test_static_pipe_barrier_all_is_issued_by_the_scalar_unit_and_orders_every_pipe():
    events = _static_events(_STATIC.replace("BARRIER", "pto.pipe_barrier all"))
    assert [(ev.pipe, ev.kind) for ev in events] == [
        (Pipe.MTE2, "mte_gm_ub"), (Pipe.S, BARRIER_ALL), (Pipe.MTE3, "mte_ub_gm")]
    result = analyze(events)
    assert result.conflicts == [] and result.faults == []
    # pipe_barrier(mte2) orders only MTE2: the store on MTE3 still conflicts with the load.
    result = analyze(_static_events(_STATIC.replace("BARRIER", "pto.pipe_barrier mte2")))
    assert [(c.first.pipe, c.second.pipe, c.lo, c.hi) for c in result.conflicts] == [
        (Pipe.MTE2, Pipe.MTE3, 0, 256)]


def test_statically_unknown_event_ids_pair_by_pipes():
    # `static_event` leaves a runtime event id None; such a set and wait still pair up.
    text = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%e: index) {
    pto.set_flag mte2 -> v, %e
    pto.wait_flag mte2 -> v, %e
    func.return
  }
}
"""
    events = _static_events(text)
    assert [(ev.kind, ev.event_id) for ev in events] == [(SET, None), (WAIT, None)]
    assert events[0].key == events[1].key
    assert events[0].key != Event(0, 0, Pipe.MTE2, None, SET, src=Pipe.MTE2, dst=Pipe.V,
                                  event_id=0).key
    result = analyze(events)
    assert result.faults == [] and result.conflicts == []
    assert [f.kind for f in analyze(events[:1]).faults] == ["unbalanced"]


# --- cores, predecessors -------------------------------------------------------------------------


def test_sync_all_predecessors_are_each_cores_own_last_ops():
    hb = HappensBefore(2)
    gm = Access("gm", 0, 64, write=True, memory="c")
    a = Event(1, 0, Pipe.MTE3, None, "store0", [gm])
    b = Event(2, 1, Pipe.MTE3, None, "store1", [Access("gm", 64, 64, write=True, memory="c")])
    hb.execute(a)
    hb.execute(b)
    s0, s1 = Event(3, 0, Pipe.S, None, "sync_all"), Event(4, 1, Pipe.S, None, "sync_all")
    hb.barrier_cores([s0, s1])
    assert s0.preds == [a]
    assert s1.preds == [b]
    # After it, core 1 may overwrite what core 0 wrote.
    hb.execute(Event(5, 1, Pipe.MTE3, None, "store2", [gm]))


def test_race_between_cores_names_both_blocks():
    sched = Scheduler(2, gm_names={"c": "%c"})
    gm = Access("gm", 0, 64, write=True, memory="c")
    sched.issue(Event(1, 0, Pipe.MTE3, None, "store0", [gm]))
    sched.issue(Event(2, 1, Pipe.MTE3, None, "store1", [gm]))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %c between blocks 0 and 1") as info:
        sched.finish()
    assert info.value.message == (
        "race on bytes [0, 64) of GM buffer %c between blocks 0 and 1: block 1 store1 (pipe mte3, "
        "core 1) writes them, block 0 store0 (pipe mte3) writes them; no pto.sync_all between "
        "them (the only order between cores)")


# --- footprints ----------------------------------------------------------------------------------

_DN2NZ = """builtin.module attributes {pto.target = "a5"} {
  func.func @f(%at: memref<64x32xf16>, %rows: index, %cols: index) {
    %l1 = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    pto.mte_gm_l1 %at, %l1, %rows, %cols dn2nz : memref<64x32xf16>, !pto.tile<l1, 32x64xf16, nz>
    func.return
  }
}
"""


def test_dn2nz_load_reads_the_transposed_window():
    # DN2NZ: GM holds the transpose, so a 16 x 32 tile region reads 32 GM rows of 16 elements
    # (32 bytes every 64-byte GM row).
    load = next(op for op in parse(_DN2NZ).walk() if isinstance(op, pto.MteGmL1Op))
    at = np.zeros((64, 32), np.float16)
    tile = Memory("a5").place("l1", (32, 64), "nz", "f16", 0, "%l1")
    src, dst = Footprint(load).accesses((at, tile, 16, 32))
    assert (src.start, src.width, src.rows, src.stride, src.write) == (0, 32, 32, 64, False)
    assert (dst.space, dst.width, dst.write) == ("l1", 32 * 64 * 2, True)


def test_one_row_access_is_described_as_a_plain_range():
    assert Access("ub", 32, 8, 1, 64).describe() == "[32, 40)"
    assert Access("ub", 32, 8, 2, 64).describe() == "[32, 104) as 2 rows of 8 bytes every 64 bytes"


# --- tcgen05 mbarrier phases (executor/tcgen05/async_checker.py) ----------------------------------------

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
        "complete (1 phase completed, the thread has observed 1; 1 of 2 arrivals and 0 "
        "transaction bytes pending, nothing left to arrive)")
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
