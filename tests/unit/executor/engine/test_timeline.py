"""Timing on the engine's events (executor/engine/timeline.py), mmair-run --timing / --timing-only /
--timeline, and the trace exports. Expected cycles are derived here from the published rates
(docs/costs.md), not from the code under test."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.executor.engine.events import SET, WAIT, Event
from mmair.executor.engine.timeline import TimedScheduler, Timeline, trace_events
from mmair.executor.runner import run_module
from mmair.isa.ascend import costs
from mmair.isa.ascend.pipes import Pipe
from mmair.tools.run import main as run_main

# One 128^3 f16 tile, fully synchronized by hand: every stage waits for the previous one.
GEMM = """builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<128x128xf16>, %b: memref<128x128xf16>, %c: memref<128x128xf32>) {
    %n128 = arith.constant 128 : index
    %l1_a = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 128x128xf16, nz, 8x8x16x16>
    %l1_b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, zz>
    %l0a = pto.alloc : !pto.tile<l0a, 128x128xf16, zz>
    %l0b = pto.alloc : !pto.tile<l0b, 128x128xf16, zn>
    %l0c = pto.alloc : !pto.tile<l0c, 128x128xf32, nz>
    pto.mte_gm_l1 %a, %l1_a, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
    pto.mte_gm_l1 %b, %l1_b, %n128, %n128 : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, zz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %l1_a, %l0a, %n128, %n128 : !pto.tile<l1, 128x128xf16, nz>, !pto.tile<l0a, 128x128xf16, zz>
    pto.mte_l1_l0b %l1_b, %l0b, %n128, %n128 : !pto.tile<l1, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %l0a, %l0b, %l0c, %n128, %n128, %n128 : !pto.tile<l0a, 128x128xf16, zz>, !pto.tile<l0b, 128x128xf16, zn>, !pto.tile<l0c, 128x128xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %l0c, %c, %n128, %n128 : !pto.tile<l0c, 128x128xf32, nz>, memref<128x128xf32>
    func.return
  }
}
"""

# a2 (CANN Ascend910B2C.ini): the first reads miss L2 and one core alone reads DDR as fast as its
# L2 read port, l2_read_rate = 110 B/cycle (docs/costs.md, "L2 and DDR"); L1->L0A 512, L1->L0B
# 256; cube 16x16x16 f16 per cycle; GM writes land in the write-back L2 at l2_write_rate = 86
# B/cycle; plus the documented assumed latencies.
TILE_F16 = 128 * 128 * 2
LOAD = costs.GM_LATENCY + -(-TILE_F16 // 110)
L0A = costs.ONCHIP_LATENCY + TILE_F16 // 512
L0B = costs.ONCHIP_LATENCY + TILE_F16 // 256
MAD = costs.MAD_LATENCY + (128 // 16) ** 3
FIX = costs.FIX_LATENCY + costs.GM_LATENCY + -(-128 * 128 * 4 // 86)
FLAG = costs.FLAG_LATENCY


def _module(text: str = GEMM):
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, text, "gemm.mlir").parse_module()


def _gemm_file(tmp_path):
    path = tmp_path / "gemm.mlir"
    path.write_text(GEMM)
    return str(path)


def test_single_mad_tile_matches_the_cost_table_and_the_serial_chain():
    result = run_module(_module(), timing=True)
    tl = result.timeline
    mads = [s for s in tl.slices() if s.kind == "mad"]
    assert [s.cycles for s in mads] == [MAD]
    assert mads[0].shape == "128x128x128 f16"
    # every stage waits for the previous one: the total is the sum of the chain
    chain = 2 * LOAD + FLAG + FLAG + L0A + L0B + FLAG + FLAG + MAD + FLAG + FLAG + FIX
    summary = tl.summary()
    assert summary.total == chain
    busy = {p.pipe: p.busy for p in summary.pipes}
    assert busy["mte2"] == 2 * LOAD + FLAG and busy["m"] == MAD + 2 * FLAG
    assert summary.seconds == pytest.approx(chain / 1.8e9)
    fix = next(p for p in summary.pipes if p.pipe == "fix")
    assert fix.bound_by.startswith("'pto.fixpipe' at gemm.mlir:20:5") and fix.bound_cycles == FIX
    # the numerics ran: C = A x B
    a, b, c = (result.outputs[n] for n in "abc")
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5)


def test_timing_only_skips_the_numerics_and_keeps_the_schedule():
    full = run_module(_module(), timing=True).timeline.slices()
    result = run_module(_module(), timing_only=True)
    only = result.timeline.slices()
    assert [(s.pipe, s.start, s.end, s.name) for s in only] == \
        [(s.pipe, s.start, s.end, s.name) for s in full]
    # no data: the inputs are allocated with their shapes but not filled (the kernel reads no
    # byte into a value, `runner.timing_needs_no_data`), and nothing is computed
    fresh = run_module(_module(), sync_check=True)
    assert {n: (v.shape, v.dtype) for n, v in result.outputs.items()} == \
        {n: (v.shape, v.dtype) for n, v in fresh.outputs.items()}
    a, b = (fresh.outputs[n] for n in "ab")
    assert np.allclose(fresh.outputs["c"], a.astype(np.float32) @ b.astype(np.float32))


def test_timing_still_checks_synchronization():
    from mmair.executor.engine.events import SyncError

    racy = "\n".join(line for line in GEMM.splitlines() if "mte2 -> mte1" not in line)
    with pytest.raises(SyncError, match="race on l1 bytes"):
        run_module(_module(racy), timing_only=True)


def _stream(slots: int, n: int, load: int, mad: int) -> Timeline:
    """n loads (MTE2) each consumed by a mad (M), ping-ponged over `slots` buffers with flags:
    the load into slot s waits until the mad that used s has finished (M -> MTE2)."""
    tl = Timeline("a2")
    sched = TimedScheduler(tl)

    def issue(pipe, kind, src=None, dst=None, event_id=None, cycles=None):
        ev = Event(sched.next_seq(), 0, pipe, None, kind, (), (), src=src, dst=dst,
                   event_id=event_id)
        if cycles is not None:
            tl.set_cost(ev, cycles)
        sched.issue(ev)

    for i in range(n):
        s = i % slots
        if i >= slots:
            issue(Pipe.MTE2, WAIT, Pipe.M, Pipe.MTE2, s)
        issue(Pipe.MTE2, "mte_gm_l1", cycles=load)
        issue(Pipe.MTE2, SET, Pipe.MTE2, Pipe.M, s)
        issue(Pipe.M, WAIT, Pipe.MTE2, Pipe.M, s)
        issue(Pipe.M, "mad", cycles=mad)
        if i + slots < n:
            issue(Pipe.M, SET, Pipe.M, Pipe.MTE2, s)
    sched.finish()
    return tl


def test_double_buffering_approaches_max_pipe_busy_not_their_sum():
    n, load, mad = 32, 1000, 1000
    single = _stream(1, n, load, mad).summary()
    double = _stream(2, n, load, mad).summary()
    busy = {p.pipe: p.busy for p in double.pipes}
    # one buffer: load and mad alternate, the total is the sum of both pipes' work
    assert single.total >= n * (load + mad)
    # two buffers: the loads hide behind the mads; only the first load and flags are exposed
    assert max(busy.values()) <= double.total <= max(busy.values()) + load + 4 * n * FLAG
    assert double.total < 0.55 * (busy["mte2"] + busy["m"])


def test_chrome_trace_json_is_valid_and_monotonic_per_track(tmp_path):
    tl = run_module(_module(), timing_only=True).timeline
    path = tmp_path / "t.json"
    tl.write_json(str(path))
    doc = json.loads(path.read_text())
    events = doc["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert len(complete) == len(tl.slices()) == 12  # 6 pipe ops, 3 set + 3 wait
    for e in complete:
        assert {"name", "ph", "ts", "dur", "pid", "tid", "cat", "args"} <= set(e)
        assert e["dur"] >= 0 and e["ts"] >= 0
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    assert sorted(names.values()) == ["pipe fix", "pipe m", "pipe mte1", "pipe mte2"]
    last: dict = {}
    for e in complete:  # one op at a time per pipe, in order
        track = (e["pid"], e["tid"])
        assert e["ts"] >= last.get(track, 0) - 1e-9
        last[track] = e["ts"] + e["dur"]
    mad = next(e for e in complete if e["name"] == "pto.mad")
    assert mad["args"]["location"] == "gemm.mlir:17:5"
    assert mad["args"]["shape"] == "128x128x128 f16" and mad["args"]["cycles"] == MAD
    assert mad["dur"] == pytest.approx(MAD / 1800)  # microseconds at 1800 MHz
    assert trace_events([], 1800)["traceEvents"] == []


def test_gantt_png_is_written(tmp_path):
    path = tmp_path / "t.png"
    run_module(_module(), timing_only=True).timeline.write_png(str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_cli_timing_prints_cycles_per_pipe(tmp_path, capsys):
    path = _gemm_file(tmp_path)
    out_json = tmp_path / "tl.json"
    assert run_main([path, "-p", "", "--timing-only", "--timeline", str(out_json)]) == 0
    text = capsys.readouterr().out
    chain = 2 * LOAD + 6 * FLAG + L0A + L0B + MAD + FIX
    assert f"timing (a2, 1800 MHz): {chain} cycles" in text
    assert f"pipe m    busy {MAD + 2 * FLAG:>12} cycles" in text
    assert "bound by 'pto.fixpipe' at" in text
    assert json.loads(out_json.read_text())["traceEvents"]
    assert run_main([path, "-p", "", "--timing", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["timing"]["total"] == chain


@pytest.mark.parametrize("extra, message", [
    (["--timing-only", "--check-numpy"], "--timing-only computes no outputs: it cannot be "
                                         "combined with --check-numpy"),
    (["--timeline", "t.svg"], "--timeline: 't.svg' must end in .json (Chrome trace) or .png"),
])
def test_cli_bad_timing_options_exit_2(tmp_path, capsys, extra, message):
    assert run_main([_gemm_file(tmp_path), *extra]) == 2
    assert message in capsys.readouterr().err


def test_cli_timing_of_a_racy_kernel_is_one_diagnostic(tmp_path):
    path = tmp_path / "racy.mlir"
    path.write_text("\n".join(line for line in GEMM.splitlines() if "m -> fix" not in line))
    # -p '': run the kernel as written (no automatic mmair-lower, whose pto-insert-sync would
    # add the missing flag)
    proc = subprocess.run([sys.executable, "-m", "mmair.tools.run", str(path), "-p", "",
                           "--timing-only"], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "error: 'pto.fixpipe' op race on l0c bytes" in proc.stderr


def test_cli_timing_of_a_tcgen05_kernel_is_refused(capsys):
    # the cost model times Ascend pipes; a Blackwell kernel gets one error, not "0 cycles"
    example = Path(__file__).parents[4] / "examples" / "tcgen05_mma_f16.mlir"
    assert run_main([str(example), "--timing"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"{example}: error: --timing/--timeline model the Ascend AI Core pipes; "
                           "this is a tcgen05 kernel, whose timing is not modelled")


def test_cli_stdout_closed_by_its_reader_is_no_traceback():
    # `mmair-run ... | head -c 0`: the reader is gone before the summary is printed
    example = Path(__file__).parents[4] / "examples" / "gemm_f16_128.mlir"
    proc = subprocess.Popen([sys.executable, "-m", "mmair.tools.run", str(example), "--timing"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and err == ""


# ------------------------------------------------------------------------------------------------
# The raw Ascend C parameter forms (after pto-expand-params) are costed like their tile-level ops
# ------------------------------------------------------------------------------------------------


def test_every_pto_op_that_runs_on_a_pipe_has_a_cost():
    """Walks the dialect: every pto op with a memory effect (all run on a pipe; `pto.matmul` is
    lowered before anything runs) is charged from its sizes, none only its issue cycles."""
    from mmair.dialects import pto
    from mmair.dialects.pto.effects import EFFECTS
    from mmair.executor.engine.timeline import COSTED_KINDS

    missing = sorted(cls.name for cls in pto.PTO.operations
                     if cls in EFFECTS and cls is not pto.MatmulOp
                     and EFFECTS[cls].kind not in COSTED_KINDS)
    assert missing == []


def _timed(spec: str):
    from xdsl.passes import PassPipeline

    from mmair.passes import get_all_passes

    path = Path(__file__).resolve().parents[4] / "examples" / "matmul_f16.mlir"
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, path.read_text(), "matmul_f16.mlir").parse_module()
    PassPipeline.parse_spec(get_all_passes(), spec).apply(ctx, module)
    return run_module(module, timing_only=True).timeline


def test_expanded_matmul_f16_costs_within_10_percent_of_tile_level():
    """examples/matmul_f16.mlir (300 x 100 x 200 f16, a2) through mmair-lower, then again with
    pto-expand-params: copy_nd2nz counts the bytes of its rows as mte_gm_l1 does, mmad and
    fixpipe_copy the same m x k x n and bytes as mad and fixpipe, so M and FIX are equal; B's zz
    staging is two transfers (its partial slab is copied first with a 4-row placeholder matrix),
    so MTE2 is a little busier (one more start-up: 1732 -> 1954 cycles); LoadData moves whole
    fractals in more instructions (a start-up each), so MTE1 is busier; the total stays within
    10 % (measured with the L2 model: 7522 -> 8186 cycles; reads and the fixpipe's writes are
    faster than at the DDR rate, so the start-ups weigh more)."""
    tile, raw = _timed("mmair-lower"), _timed("mmair-lower,pto-expand-params")
    raw_kinds = {s.kind for s in raw.slices()}
    assert {"copy_nd2nz", "load_2d", "mmad", "fixpipe_copy"} <= raw_kinds
    issue = costs.costs("a2").issue_cycles
    assert all(s.cycles > issue for s in raw.slices() if s.kind in
               ("copy_nd2nz", "load_2d", "mmad", "fixpipe_copy"))
    t, r = tile.summary(), raw.summary()
    busy_t = {p.pipe: p.busy for p in t.pipes}
    busy_r = {p.pipe: p.busy for p in r.pipes}
    for pipe in ("m", "fix"):
        assert busy_r[pipe] == busy_t[pipe], pipe
    assert busy_t["mte2"] < busy_r["mte2"] <= 1.15 * busy_t["mte2"]
    assert busy_r["mte1"] >= busy_t["mte1"]
    assert t.total < r.total <= 1.1 * t.total, (t.total, r.total)


def test_raw_load_costs_follow_the_tile_level_rates():
    """One LoadData of 3 fractals into L0A is charged as a 1536-byte L1 -> L0A move, a
    LoadDataWithTranspose of 2 b8 squares (2 fractals each) into L0B as 2048 bytes on L1 -> L0B,
    and copy_l1_bt as blockCount x blockLen x 64 bytes on a2 (rates of docs/costs.md)."""
    from mmair.executor.engine.timeline import op_cost

    text = """builtin.module attributes {pto.target = "a2"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %l1, %l0a, %l1b, %l0b, %l1f, %bt = "test.op"() : () -> (!pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 64x64xf16, zz>, !pto.tile<l1, 64x64xi8, zz>, !pto.tile<l0b, 64x64xi8, zn>, !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>)
  pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c3 src_stride %c1 dst_gap %c0 : !pto.tile<l1, 64x64xf16, nz>, !pto.tile<l0a, 64x64xf16, zz>
  pto.load_2d_transpose %l1b[%c0], %l0b[%c0] start_index %c0 repeat_times %c2 src_stride %c1 dst_gap %c0 dst_frac_gap %c0 : !pto.tile<l1, 64x64xi8, zz>, !pto.tile<l0b, 64x64xi8, zn>
  pto.copy_l1_bt %l1f[%c0], %bt[%c0] block_count %c1 block_len %c2 src_gap %c0 dst_gap %c0 : !pto.tile<l1, 1x64xf32, nd>, !pto.tile<bt, 1x64xf32, nd>
}
"""
    module = _module(text)
    ops = [op for op in module.walk() if op.name in ("pto.load_2d", "pto.load_2d_transpose",
                                                    "pto.copy_l1_bt")]
    sizes = {"start_index": 0, "src_stride": 1, "dst_gap": 0, "dst_frac_gap": 0, "src_offset": 0,
             "dst_offset": 0, "src_gap": 0, "block_count": 1, "block_len": 2}
    repeat = {"pto.load_2d": 3, "pto.load_2d_transpose": 2, "pto.copy_l1_bt": 0}
    got = {}
    for op in ops:
        names = [n for n, _ in type(op).get_irdl_definition().operands]
        args = [repeat[op.name] if n == "repeat_times" else sizes.get(n) for n in names]
        got[op.name] = op_cost("a2", op, op.name.removeprefix("pto."), args)[0]
    assert got == {"pto.load_2d": costs.ONCHIP_LATENCY + 1536 // 512,
                   "pto.load_2d_transpose": costs.ONCHIP_LATENCY + 2048 // 256,
                   "pto.copy_l1_bt": costs.ONCHIP_LATENCY + -(-128 // 256)}
