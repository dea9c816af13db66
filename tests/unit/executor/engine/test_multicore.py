"""Multi-core launches (issue 12): pto.block_idx / block_num / sync_all, per-core memories with
shared GM, the cross-core race check on the engine's happens-before, a core skipping the barrier
as a deadlock report, a pipe stuck at `pto.sync_all` as that core's deadlock (and a waiting core
stopping at the barrier after it), and the launch size checked against the target's cores."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from multicore_testing import CLEAN, KERNEL, RACY, ROTATE, SKIP, inputs, parse

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.engine.multicore import Launch
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import CUBE_CORES
from mmair.tools.run import main as run_main


@pytest.mark.parametrize("sync_check", [False, True])
def test_clean_two_cores_each_writes_its_window(sync_check):
    data = inputs()
    out = run_module(parse(CLEAN), inputs=data, blocks=2, sync_check=sync_check).outputs["c"]
    want = np.full(64, -1, np.float16)
    want[0:16] = data["a"][0:16]    # block 0: a[0:16] -> c[0:16]
    want[32:48] = data["a"][16:32]  # block 1: a[16:32] -> c[32:48]
    np.testing.assert_array_equal(out, want)


def test_per_core_memories_and_counts():
    result = run_module(parse(CLEAN), inputs=inputs(), blocks=2)
    assert [c["block"] for c in result.per_core] == [0, 1]
    assert all(c["op_counts"]["pto.mte_ub_gm"] == 1 for c in result.per_core)
    assert result.op_counts["pto.mte_ub_gm"] == 2
    assert all(c["peak_bytes"]["ub"] == 32 for c in result.per_core)  # 16 f16 each


def test_racy_two_cores_reported_with_both_blocks():
    with pytest.raises(SyncError, match=r"race on bytes \[0, 32\) of GM buffer %c between blocks 0 and 1") as info:
        run_module(parse(RACY), inputs=inputs(), blocks=2, sync_check=True)
    err = info.value
    assert err.kind == "race"
    assert {e.core for e in err.events} == {0, 1}
    assert all(e.op.name == "pto.mte_ub_gm" for e in err.events)
    # c[0:16] of f16 = bytes [0, 32); block 1 writes them after block 0 did
    assert err.message.startswith("race on bytes [0, 32) of GM buffer %c between blocks 0 and 1: "
                                  "block 1 'pto.mte_ub_gm'"), err.message
    assert "no pto.sync_all between them" in err.message


def test_core_skipping_the_barrier_is_a_deadlock_not_a_hang():
    with pytest.raises(SyncError, match=r"block 0 waits at 'pto\.sync_all'.*block 1 ended without reaching it") as info:
        run_module(parse(SKIP), inputs=inputs(), blocks=2)
    err = info.value
    assert err.kind == "deadlock"
    assert "block 0 waits at 'pto.sync_all'" in err.message
    assert "block 1 ended without reaching it" in err.message


def test_launch_size_checked_against_target_cores():
    with pytest.raises(ExecutionError, match=r"launch size 25 blocks is not in 1\.\.24: target a2 "
                                             r"has 24 AI Cores"):
        run_module(parse(CLEAN), inputs=inputs(), blocks=25)
    assert CUBE_CORES["a2"] == 24


def test_cli_blocks(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(RACY)
    assert run_main([str(src), "--blocks", "2", "--sync-check=off"]) == 0
    assert run_main([str(src), "--blocks", "2"]) == 1  # the sync checker is on by default
    err = capsys.readouterr().err
    assert "error: " in err and "race" in err and "Traceback" not in err


EXCHANGE = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<64xf16>, %c: memref<64xf16>) {{
    %i = pto.block_idx
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %ub = pto.alloc : !pto.tile<ub, 16xf16, nd>
    %src = memref.subview %a[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %dst = memref.subview %c[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    {sync}
    %z = arith.constant 0 : index
    %first = memref.subview %c[%z] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %ub2 = pto.alloc : !pto.tile<ub, 16xf16, nd>
    pto.mte_gm_ub %first, %ub2 : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    func.return
  }}
}}
"""
"""Every block writes c[16i:16i+16], then reads block 0's window c[0:16]."""


def test_sync_all_orders_gm_between_cores():
    module = parse(EXCHANGE.format(sync="pto.sync_all"))
    out = run_module(module, inputs=inputs(), blocks=2, sync_check=True).outputs["c"]
    np.testing.assert_array_equal(out[:32], np.arange(32, dtype=np.float16))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 32\) of GM buffer %c between blocks 0 and 1: block 1 'pto\.mte_gm_ub'") as info:
        # ordered inside each core (MTE3 -> MTE2 flag), not between the cores
        local = "pto.set_flag mte3 -> mte2, 0\n    pto.wait_flag mte3 -> mte2, 0"
        run_module(parse(EXCHANGE.format(sync=local)), inputs=inputs(), blocks=2,
                   sync_check=True)
    # block 0 runs to its end first (no barrier), then block 1 reads c[0:16] that block 0 wrote
    assert info.value.message.startswith(
        "race on bytes [0, 32) of GM buffer %c between blocks 0 and 1: block 1 'pto.mte_gm_ub'")
    assert "block 0 'pto.mte_ub_gm'" in info.value.message


def test_a_pipe_barrier_all_after_sync_all_keeps_the_order_between_cores():
    # pipe_barrier all joins what the core's pipes know, other cores' events included: block
    # 1's read of c[0:16] after it stays ordered after block 0's write before the sync_all.
    module = parse(EXCHANGE.format(sync="pto.sync_all\n    pto.pipe_barrier all"))
    out = run_module(module, inputs=inputs(), blocks=2, sync_check=True).outputs["c"]
    np.testing.assert_array_equal(out[:32], np.arange(32, dtype=np.float16))


def test_sync_all_on_one_block_orders_the_cores_own_pipes():
    # SyncAll waits for every pipe of the core (PIPE_ALL) even when no other core takes part:
    # the MTE2 read of c[0:16] after it is ordered after the MTE3 write before it
    module = parse(EXCHANGE.format(sync="pto.sync_all"))
    out = run_module(module, inputs=inputs(), sync_check=True).outputs["c"]
    np.testing.assert_array_equal(out[:16], np.arange(16, dtype=np.float16))
    with pytest.raises(SyncError, match=r"\(pipe mte3\) writes them") as info:  # without it, the same read races with the write
        run_module(parse(EXCHANGE.format(sync="")), inputs=inputs(), sync_check=True)
    assert info.value.kind == "race"
    assert "'pto.mte_gm_ub'" in info.value.message and "(pipe mte3) writes them" in info.value.message


def test_ops_print_and_parse_back():
    import io

    from xdsl.printer import Printer

    text = io.StringIO()
    Printer(stream=text).print_op(parse(CLEAN))
    printed = text.getvalue()
    for form in ("%i = pto.block_idx", "%n = pto.block_num", "pto.sync_all"):
        assert form in printed
    assert "pto.sync_all" in str(parse(printed))


@pytest.mark.parametrize("sync_check", [False, True])
def test_coverage_reports_bytes_no_core_wrote(sync_check):
    # CLEAN on 2 blocks writes c[0:16] and c[32:48]: elements 16..31 and 48..63 stay unwritten,
    # i.e. bytes [32, 64) and [96, 128) of the f16 array
    result = run_module(parse(CLEAN), inputs=inputs(), blocks=2, sync_check=sync_check,
                        coverage=["c"])
    assert result.unwritten == {"c": [(32, 64), (96, 128)]}
    one = run_module(parse(CLEAN), inputs=inputs(), coverage=["c", "a"])
    assert one.unwritten == {"c": [(32, 128)], "a": [(0, 128)]}  # block 0 alone: c[0:16]


def test_cli_check_coverage(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(EXCHANGE.format(sync="pto.sync_all"))
    # 4 blocks write c[16i:16i+16]: all 64 elements
    assert run_main([str(src), "--blocks", "4", "--check-coverage", "c"]) == 0
    capsys.readouterr()
    assert run_main([str(src), "--blocks", "3", "--check-coverage", "c"]) == 1
    err = capsys.readouterr().err
    assert ("error: --check-coverage: 32 bytes (16 elements) of output 'c' were written by no "
            "core: bytes [96, 128)") in err
    assert "Traceback" not in err


def test_cli_stats_per_block(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(CLEAN)
    assert run_main([str(src), "--blocks", "2", "--stats"]) == 0
    out = capsys.readouterr().out
    # each block runs the 13 ops of the kernel body once (func.return included) and a 32-byte UB
    body = parse(CLEAN).body.block.first_op.body.block.ops
    n_ops = len(list(body))
    assert "per block (2 blocks; totals above, peaks the largest):" in out
    assert f"  block 0: {n_ops} ops; peak bytes ub 32" in out
    assert f"  block 1: {n_ops} ops; peak bytes ub 32" in out


@pytest.mark.parametrize("blocks", [1, 3, 4])
def test_check_numpy_reference_runs_the_block_ops(blocks):
    from mmair.executor.reference import reference_outputs
    from mmair.executor.runner import find_entry

    module = parse(ROTATE)
    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16),
            "d": np.zeros(64, np.float16)}
    result = run_module(module, inputs={k: v.copy() for k, v in data.items()}, blocks=blocks,
                        sync_check=True)
    refs, _ = reference_outputs(module, find_entry(module), data, result, None, blocks=blocks)
    want_d = np.zeros(64, np.float16)
    for b in range(blocks):  # written independently: d window b = a window (b + 1) mod blocks
        nxt = (b + 1) % blocks
        want_d[16 * b:16 * b + 16] = np.arange(16 * nxt, 16 * nxt + 16)
    got = {r.name: r.values for r in refs}
    np.testing.assert_array_equal(got["d"], want_d)
    np.testing.assert_array_equal(got["c"][:16 * blocks], np.arange(16 * blocks))
    np.testing.assert_array_equal(result.outputs["d"], want_d)


def test_cli_check_numpy_on_blocks(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(ROTATE)
    assert run_main([str(src), "--blocks", "4", "--check-numpy"]) == 0
    out = capsys.readouterr().out
    for name in ("c", "d"):
        assert f"check {name} = numpy reference of the IR: max abs error 0," in out


def test_reference_of_a_skipped_barrier_is_a_deadlock_not_a_hang():
    from mmair.executor.reference import reference_outputs
    from mmair.executor.runner import RunResult, find_entry

    module = parse(SKIP)
    with pytest.raises(SyncError, match=r"block 0 waits at 'pto\.sync_all'") as info:
        reference_outputs(module, find_entry(module), inputs(), RunResult(outputs={}, results=()), None,
                          blocks=2)
    assert "block 0 waits at 'pto.sync_all'" in info.value.message
    assert "block 1 ended without reaching it" in info.value.message


UNEVEN = EXCHANGE.format(sync="""%z0 = arith.constant 0 : index
    %is0 = arith.cmpi eq, %i, %z0 : index
    scf.if %is0 {
      pto.pipe_barrier all
      pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
      pto.set_flag mte2 -> mte3, 1
      pto.wait_flag mte2 -> mte3, 1
      pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    }
    pto.sync_all""")
"""EXCHANGE where block 0 copies its window twice before the barrier: block 1 waits for it."""


def test_per_core_timing_kernel_time_is_the_slowest_core_with_sync_all_waits():
    result = run_module(parse(UNEVEN), inputs=inputs(), blocks=2, timing=True)
    timeline = result.timeline
    slices = timeline.slices()
    summary = timeline.summary()
    assert summary.total == max(s.end for s in slices)
    ends = {c.core: c.end for c in summary.cores}
    assert ends == {b: max(s.end for s in slices if s.core == b) for b in (0, 1)}
    assert summary.total == max(ends.values())
    # both cores leave the barrier together, when block 0 (the extra copy) arrives
    barrier = [s for s in slices if s.name == "pto.sync_all"]
    assert [s.core for s in barrier] == [0, 1]
    assert barrier[0].start == barrier[1].start
    before = {b: max(s.end for s in slices[:slices.index(barrier[0])] if s.core == b)
              for b in (0, 1)}
    assert before[0] > before[1]  # block 0's second copy
    assert timeline.waits == {0: barrier[0].start - before[0], 1: barrier[1].start - before[1]}
    assert timeline.waits[0] == 0 and timeline.waits[1] > 0
    text = summary.format()
    assert f"    block 1: ends at {ends[1]} cycles, waits at sync_all {timeline.waits[1]} cycles" \
        in text


def test_cli_timeline_has_one_process_per_core(tmp_path, capsys):
    import json

    src = tmp_path / "k.mlir"
    src.write_text(UNEVEN)
    trace = tmp_path / "t.json"
    assert run_main([str(src), "--blocks", "3", "--timeline", str(trace)]) == 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["pid"] for e in events} == {0, 1, 2}
    assert "per block (busy cycles above are summed over the 3 blocks" in capsys.readouterr().out


def test_runtime_fault_names_the_block():
    # CLEAN on 3 blocks: block 2's window c[64:80] is past the end of c (64 elements)
    with pytest.raises(ExecutionError, match=r"subview dim 0: offset 64, size 16, stride 1 out of bounds") as info:
        run_module(parse(CLEAN), inputs=inputs(), blocks=3)
    assert not isinstance(info.value, SyncError)
    assert str(info.value) == ("'memref.subview' op subview dim 0: offset 64, size 16, stride 1 "
                               "out of bounds for memref of shape 64 (in block 2 of 3)")


STUCK = KERNEL.format(window="arith.addi %o, %o : index", sync="""%z = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %z : index
    scf.if %first {
      pto.wait_flag mte2 -> mte3, 3
    }
    pto.sync_all""")
"""Block 0's MTE3 pipe waits for a flag no one sets, then the core reaches `pto.sync_all`."""


STUCK_MESSAGE = ("deadlock: the scalar unit waits at 'pto.sync_all' at k.mlir:20:5 (pipe s) for every "
                 "pipe to finish; pipe mte3 waits at 'pto.wait_flag' at k.mlir:18:7 (pipe mte3) for "
                 "flag mte2 -> mte3 event 3: no set_flag that could release them is issued or can run")


@pytest.mark.parametrize("blocks", [1, 2])
def test_pipe_stuck_at_sync_all_is_a_deadlock_of_that_core(blocks):
    # SyncAll waits for every pipe of its core (PIPE_ALL): the deadlock is reported at block 0's
    # sync_all, naming block 0's scalar unit (no ", core N"), not at kernel end or at block 1
    with pytest.raises(SyncError, match=r"deadlock: the scalar unit waits at 'pto\.sync_all'") as info:
        run_module(parse(STUCK), inputs=inputs(), blocks=blocks, sync_check=True)
    assert info.value.message == STUCK_MESSAGE
    assert [(e.core, str(e.pipe)) for e in info.value.events] == [(0, "s"), (0, "mte3")]


def test_waiting_core_does_not_run_past_sync_all_after_a_deadlock():
    # Block 0 waits at its sync_all, block 1 ends without one: the launch reports the deadlock and
    # block 0's thread stops at the barrier (Abort) instead of running the code after it.
    launch = Launch(2)
    interp = SimpleNamespace(iteration=())
    ran_after_barrier: list[int] = []

    def block0() -> None:
        launch.sync_all(0, None, interp)
        ran_after_barrier.append(0)

    with pytest.raises(SyncError, match=r"^deadlock: block 0 waits at 'pto\.sync_all' \(their sync_all "
                                        r"number 1\), but block 1 ended without reaching it"):
        launch.run([block0, lambda: None])
    assert ran_after_barrier == []
