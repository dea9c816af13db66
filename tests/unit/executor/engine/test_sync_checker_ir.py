"""The sync checker on IR (`run_module(..., sync_check=True)`): flagged kernels run clean with the
values of a program-order run; removing a flag gives a race naming both ops, their pipes, the
buffer and the bytes; deadlocks, unbalanced flags, run-time event ids, scalar reads of pipe
results (ordered by `pipe_barrier all`, not by one pipe's barrier), loop iterations in messages,
a write after an unordered read."""

from __future__ import annotations

import numpy as np
import pytest
from sync_testing import line_of, parse, without

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module
from mmair.tools.diagnostics import op_location

_TYPES = "!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>"

# The gather_mask example with every flag a user writes. Markers (// A ..) name the flag lines
# the tests remove.
GATHER = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @gather(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {{offset = 256 : i64}} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag mte2 -> v, 0 // A
    pto.wait_flag mte2 -> v, 0 // A
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_TYPES}
    pto.set_flag v -> mte3, 0 // B
    pto.wait_flag v -> mte3, 0 // B
    pto.mte_ub_gm %ub_dst, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    pto.set_flag v -> s, 0 // C
    pto.wait_flag v -> s, 0 // C
    func.return %kept : index
  }}
}}
"""


def _inputs():
    return {"src": np.arange(1, 129, dtype=np.uint16)}


def test_flagged_kernel_runs_clean_with_program_order_values():
    module = parse(GATHER)
    checked = run_module(module, inputs=_inputs(), sync_check=True)
    plain = run_module(module, inputs=_inputs(), sync_check=False)
    assert checked.results == plain.results == (64,)
    np.testing.assert_array_equal(checked.outputs["dst"][:64], np.arange(2, 129, 2))
    np.testing.assert_array_equal(checked.outputs["dst"], plain.outputs["dst"])


def test_missing_flag_is_a_race_naming_both_ops_pipes_buffer_and_bytes():
    text = without(GATHER, "A")
    with pytest.raises(SyncError, match=r"race on ub bytes \[0, 256\) \(%ub_src\)") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    err = info.value
    assert err.kind == "race"
    assert err.op.name == "pto.gather_mask"
    load_line = line_of(text, "pto.mte_gm_ub")
    gather_line = line_of(text, "pto.gather_mask")
    assert op_location(err.op)[1] == gather_line
    assert f"'pto.gather_mask' at k.mlir:{gather_line}:" in err.message
    assert f"'pto.mte_gm_ub' at k.mlir:{load_line}:" in err.message
    assert "(pipe v) reads them" in err.message and "(pipe mte2) writes them" in err.message
    # ub_src is 128 u16 at offset 0: bytes [0, 256); pattern 2 with one repeat reads all of them.
    assert "race on ub bytes [0, 256) (%ub_src)" in err.message


def test_missing_vector_to_mte3_flag_is_a_race_on_the_gathered_buffer():
    with pytest.raises(SyncError, match=r"race on ub bytes \[256, 512\) \(%ub_dst\)"):
        run_module(parse(without(GATHER, "B")), inputs=_inputs(), sync_check=True)


def test_scalar_read_of_the_kept_count_needs_a_vector_to_scalar_flag():
    with pytest.raises(SyncError, match=r"before a wait_flag v -> s") as info:
        run_module(parse(without(GATHER, "C")), inputs=_inputs(), sync_check=True)
    assert info.value.op.name == "func.return"
    assert "reads %kept, the result of 'pto.gather_mask'" in info.value.message
    assert "before a wait_flag v -> s" in info.value.message


def test_checker_off_runs_the_racy_kernel_functionally():
    result = run_module(parse(without(GATHER, "A")), inputs=_inputs(), sync_check=False)
    assert result.results == (64,)


def test_wait_before_its_set_in_program_order_blocks_only_the_vector_pipe():
    # The vector pipe waits first; the scalar unit goes on to issue the load and the set.
    lines = without(GATHER, "A").splitlines()
    at = next(i for i, line in enumerate(lines) if "pto.mte_gm_ub" in line)
    lines[at:at] = ["    pto.wait_flag mte2 -> v, 0"]
    at = next(i for i, line in enumerate(lines) if "pto.mte_gm_ub" in line)
    lines[at + 1:at + 1] = ["    pto.set_flag mte2 -> v, 0"]
    result = run_module(parse("\n".join(lines)), inputs=_inputs(), sync_check=True)
    assert result.results == (64,)


def test_wait_that_is_never_set_is_a_deadlock_with_the_pipe_position():
    text = GATHER.replace("pto.wait_flag mte2 -> v, 0 // A", "pto.wait_flag mte2 -> v, 1 // A")
    with pytest.raises(SyncError, match=r"the scalar unit waits at 'pto\.wait_flag'") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    err = info.value
    assert err.kind == "deadlock"
    # The scalar unit is stuck at its own wait (v -> s), the vector pipe at the wait for event 1.
    assert "the scalar unit waits at 'pto.wait_flag'" in err.message
    assert f"k.mlir:{line_of(text, 'wait_flag mte2 -> v, 1')}:" in err.message
    assert "pipe v waits at 'pto.wait_flag'" in err.message
    assert "for flag mte2 -> v event 1 (3 more ops queued behind it)" in err.message


def test_set_that_is_never_waited_is_unbalanced_at_kernel_end():
    text = without(GATHER, "C").replace("    func.return %kept : index", "    func.return %zero : index")
    text = text.replace("pto.wait_flag v -> mte3, 0 // B", "pto.wait_flag v -> mte3, 0 // B\n"
                        "    pto.set_flag mte3 -> v, 2")
    with pytest.raises(SyncError, match=r"set_flag mte3 -> v event 2") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    assert info.value.kind == "unbalanced"
    assert "set_flag mte3 -> v event 2" in info.value.message
    assert f"k.mlir:{line_of(text, 'set_flag mte3 -> v, 2')}:" in info.value.message


_DYNAMIC = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%e: index) {
    pto.set_flag mte2 -> v, %e
    pto.wait_flag mte2 -> v, %e
    func.return
  }
}
"""


def test_dynamic_event_id_is_checked_at_run_time():
    module = parse(_DYNAMIC)
    run_module(module, inputs={"e": 7}, sync_check=True)
    with pytest.raises(SyncError, match=r"event id 8 of mte2 -> v is out of range at run time: "
                                        r"target a2 has event ids 0\.\.7"):
        run_module(module, inputs={"e": 8}, sync_check=True)


_OVERFLOW = """builtin.module attributes {pto.target = "a2"} {
  func.func @f() {
    pto.set_flag m -> fix, 3
    pto.set_flag m -> fix, 3
    pto.wait_flag m -> fix, 3
    pto.wait_flag m -> fix, 3
    func.return
  }
}
"""


def test_setting_a_flag_that_is_still_set_overflows():
    with pytest.raises(SyncError, match=r"sets flag m -> fix event 3 again while it is still set by 'pto\.set_flag'") as info:
        run_module(parse(_OVERFLOW), sync_check=True)
    assert info.value.kind == "overflow"
    assert "sets flag m -> fix event 3 again while it is still set by 'pto.set_flag' at k.mlir:3:" \
        in info.value.message


# A loop that loads the next UB tile while the vector pipe may still read the previous one.
_LOOP = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @f(%src: memref<128xui16>) {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {{offset = 256 : i64}} : !pto.tile<ub, 128xui16, nd>
    pto.set_flag v -> mte2, 0 // W
    scf.for %i = %zero to %two step %one {{
      pto.wait_flag v -> mte2, 0 // W
      pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
      pto.set_flag mte2 -> v, 0
      pto.wait_flag mte2 -> v, 0
      %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_TYPES}
      pto.set_flag v -> mte2, 0 // W
    }}
    pto.wait_flag v -> mte2, 0 // W
    func.return
  }}
}}
"""


def test_loop_with_the_pre_loop_set_pattern_runs_clean():
    result = run_module(parse(_LOOP), inputs=_inputs(), sync_check=True)
    assert result.op_counts["pto.gather_mask"] == 2
    assert result.op_counts["pto.wait_flag"] == 2 * 2 + 1  # two per iteration + the post-loop one


def test_loop_carried_race_names_the_iterations():
    text = without(_LOOP, "W")
    with pytest.raises(SyncError, match=r"\(pipe mte2, iteration %i = 1\)") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    message = info.value.message
    assert info.value.op.name == "pto.mte_gm_ub"
    assert f"'pto.mte_gm_ub' at k.mlir:{line_of(text, 'pto.mte_gm_ub')}:" in message
    assert "(pipe mte2, iteration %i = 1)" in message
    assert "iteration %i = 0)" in message


def _raw_mmad_chain(size: int) -> str:
    """Two raw `pto.mmad`s of size x size x 16 accumulating into one L0C tile, no barrier."""
    a = f"!pto.tile<l0a, {size}x16xf16, zz>"
    b = f"!pto.tile<l0b, 16x{size}xf16, zn>"
    c = f"!pto.tile<l0c, {size}x{size}xf32, nz>"
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k() {{
    %m = arith.constant {size} : index
    %k = arith.constant 16 : index
    %l0a = pto.alloc {{offset = 0 : i64}} : {a}
    %l0b = pto.alloc {{offset = 0 : i64}} : {b}
    %l0c = pto.alloc {{offset = 0 : i64}} : {c}
    pto.mmad %l0a, %l0b, %l0c, %m, %m, %k : {a}, {b}, {c}
    pto.mmad %l0a, %l0b, %l0c, %m, %m, %k {{cmatrix_init_val = false}} : {a}, {b}, {c}
    func.return
  }}
}}"""


@pytest.mark.parametrize("size, races", [(16, True), (32, True), (64, False)])
def test_raw_mmad_chain_needs_a_cube_barrier_only_when_small(size, races):
    """The raw mmad follows the same rule as the tile-level mad (`pipes.mad_needs_barrier`):
    fewer than 10 output fractals (16 x 16 and 32 x 32 here) need `pipe_barrier(m)` before the
    next mmad on its L0C bytes; 64 x 64 (16 fractals) finishes writing first. (The rule was
    missing for pto.mmad: the expanded gemm_kloop_double_buffer example was a false race.)"""
    module = parse(_raw_mmad_chain(size))
    if races:
        with pytest.raises(SyncError, match=r"race on l0c bytes .* no pipe_barrier\(m\) between"):
            run_module(module, sync_check=True)
    else:
        run_module(module, sync_check=True)


@pytest.mark.parametrize("max_ops", range(7, 13))
def test_a_race_before_the_op_limit_is_reported_not_the_limit(max_ops):
    """The run stops at the op limit after the racy gather_mask ran (7 to 12 ops): the race, still
    in the checker's batch, is reported instead of the limit."""
    with pytest.raises(SyncError, match=r"race on ub bytes \[0, 256\) \(%ub_src\)"):
        run_module(parse(without(GATHER, "A")), inputs=_inputs(), sync_check=True,
                   max_ops=max_ops)


def test_the_op_limit_is_reported_when_no_race_ran_before_it():
    """At 6 ops the gather_mask has not run: no race yet, the limit is the error."""
    with pytest.raises(ExecutionError, match=r"execution exceeded 6 operations") as info:
        run_module(parse(without(GATHER, "A")), inputs=_inputs(), sync_check=True, max_ops=6)
    assert not isinstance(info.value, SyncError)


@pytest.mark.parametrize("max_ops", range(7, 13))
def test_a_race_before_the_op_limit_is_reported_on_a_multi_core_launch(max_ops):
    """The same on two blocks (`_run_blocks`): block 0 stops at the limit with the race still in
    the shared checker's batch."""
    with pytest.raises(SyncError, match=r"race on ub bytes \[0, 256\) \(%ub_src\)"):
        run_module(parse(without(GATHER, "A")), inputs=_inputs(), sync_check=True,
                   max_ops=max_ops, blocks=2)


def _recursing(text: str) -> str:
    """`text` with a call that recurses without end before its return."""
    end = "    func.return %kept : index\n  }\n}"
    assert end in text
    return text.replace(end, """    func.call @forever() : () -> ()
    func.return %kept : index
  }
  func.func @forever() {
    func.call @forever() : () -> ()
    func.return
  }
}""")


def test_a_race_before_a_too_deep_recursion_is_reported_not_the_recursion():
    """The racy gather_mask runs, then a call recurses without end (Python's RecursionError,
    which the runner turns into 'recursion too deep'): the race comes first."""
    with pytest.raises(SyncError, match=r"race on ub bytes \[0, 256\) \(%ub_src\)"):
        run_module(parse(_recursing(without(GATHER, "A"))), inputs=_inputs(), sync_check=True)
    with pytest.raises(ExecutionError, match=r"recursion too deep") as info:
        run_module(parse(_recursing(GATHER)), inputs=_inputs(), sync_check=True)
    assert not isinstance(info.value, SyncError)


def _with_matmul(text: str) -> str:
    """`text` with an unlowered `pto.matmul` (no implementation) before its return."""
    end = "    func.return %kept : index\n"
    assert end in text
    mm = "memref<16x16xf16>, memref<16x16xf16>, memref<16x16xf32>"
    return text.replace(
        "%dst: memref<128xui16>) -> index {",
        "%dst: memref<128xui16>, %x: memref<16x16xf16>, %y: memref<16x16xf16>, "
        "%z: memref<16x16xf32>) -> index {").replace(
        end, f"    pto.matmul %x, %y, %z : {mm}\n" + end)


def test_an_op_without_implementation_fails_when_it_runs_after_the_ops_before_it():
    """The bound steps of a block's pipe ops are made when the block is first planned; an op
    the executor cannot run (an unlowered pto.matmul) is still reported when it runs, after
    the ops before it: a race among them comes first."""
    with pytest.raises(SyncError, match=r"race on ub bytes \[0, 256\) \(%ub_src\)"):
        run_module(parse(_with_matmul(without(GATHER, "A"))), inputs=_inputs(),
                   sync_check=True)
    with pytest.raises(ExecutionError, match=r"no implementation for op 'pto.matmul'") as info:
        run_module(parse(_with_matmul(GATHER)), inputs=_inputs(), sync_check=True)
    assert info.value.op.name == "pto.matmul"


# Scalar reads of pipe results at `pipe_barrier` boundaries and behind waits; deadlock locations


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


WAR = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<16x16xf16>) {
    %c16 = arith.constant 16 : index
    %t = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %a, %t, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %t, %l0a, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.pipe_barrier mte2
    pto.mte_gm_l1 %a, %t, %c16, %c16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    func.return
  }
}
"""


def test_write_after_an_unordered_read_is_a_race():
    # The second load (ordered after the first by the barrier) overwrites %t while MTE1 may
    # still read it (no set_flag mte1 -> mte2):
    # a write is checked against the reads not ordered before it, not only the writes.
    from mmair.executor.engine.events import SyncError
    from mmair.executor.runner import run_module

    module = parse(WAR)
    module.verify()
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): .*mte_gm_l1.* "
                                        r"writes them, .*mte_l1_l0a.* reads them"):
        run_module(module, inputs={"a": np.ones((16, 16), np.float16)}, sync_check=True)
