"""pto-insert-sync, the hand-synchronized examples and the sync checker on lowered kernels.

* Every hand-written Ascend example and every lowered `pto.matmul` (random shapes and tiles,
  single and double buffered) runs clean under the checker, with the results of the unchecked
  run.
* Removing any single `wait_flag` or `pipe_barrier` from a correct kernel makes the checker
  report a fault that names the ops it ordered: a race between an op of the flag's source pipe and
  one of its destination pipe (or two ops of the barrier's pipe), or a flag fault (a set that is
  set again or never waited) naming the flag's pipe pair.
* pto-insert-sync on the examples with their synchronization removed gives a clean kernel with
  no more set_flag and pipe_barrier ops than the hand-written one (FLAG_COUNTS below).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import (
    EXAMPLES,
    HAND_WRITTEN,
    LOWERED,
    _build,
    _kernels,
    example,
    inputs_for,
    lower,
    matmul_text,
    parse,
    run,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from mmair.dialects import pto
from mmair.executor.engine.events import SyncError
from mmair.passes.pass_errors import PassOpError
from mmair.passes.pto_insert_sync import PtoInsertSyncPass, Templates, static_conflicts

SYNC_OPS = (pto.SetFlagOp, pto.WaitFlagOp, pto.PipeBarrierOp)

# (set_flag ops, pipe_barrier ops): hand-written, and pto-insert-sync on the stripped kernel.
FLAG_COUNTS = {
    "gemm_f16_128.mlir": ((3, 0), (3, 0)),
    "gather_mask.mlir": ((3, 0), (3, 0)),
    "gemm_kloop_double_buffer.mlir": ((13, 0), (13, 0)),
}


def counts(module: ModuleOp) -> tuple[int, int]:
    ops = list(module.walk())
    return (sum(isinstance(op, pto.SetFlagOp) for op in ops),
            sum(isinstance(op, pto.PipeBarrierOp) for op in ops))


def strip_sync(module: ModuleOp) -> ModuleOp:
    for op in [op for op in module.walk() if isinstance(op, SYNC_OPS)]:
        op.detach()
        op.erase()
    return module


def same_outputs(a, b) -> None:
    assert a.outputs.keys() == b.outputs.keys()
    for name in a.outputs:
        np.testing.assert_array_equal(a.outputs[name], b.outputs[name])
    assert a.results == b.results


# ----------------------------------------------------------------------------------------------
# Clean runs
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_hand_written_example_runs_clean(name):
    module = example(name)
    inputs = inputs_for(module)
    same_outputs(run(module, inputs, True), run(module, inputs, False))


def test_double_buffered_example_computes_the_gemm():
    module = example("gemm_kloop_double_buffer.mlir")
    inputs = inputs_for(module, seed=3)
    got = run(module, inputs, True).outputs["c"]
    ref = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-4)


def test_lowered_example_runs_clean():
    module = lower((EXAMPLES / "matmul_f16.mlir").read_text())
    inputs = inputs_for(module)
    same_outputs(run(module, inputs, True), run(module, inputs, False))


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 160),
    n=st.integers(1, 160),
    k=st.integers(1, 300),
    tiles=st.sampled_from(["", "tile-m=32 tile-n=32 tile-k=32", "tile-m=16 tile-n=48 tile-k=64",
                           "tile-k=96"]),
    slots=st.sampled_from([1, 2]),
    tb=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_lowered_matmul_runs_clean(m, n, k, tiles, slots, tb, seed):
    text = matmul_text(m, n, k, "f16", "f16", "f32", transpose_b=tb)
    options = " ".join(filter(None, [tiles, f"multi-buffer={slots}"]))
    module = lower(text, f"pto-tile-matmul{{{options}}},pto-assign-addresses,pto-insert-sync")
    inputs = inputs_for(module, seed)
    checked = run(module, inputs, True)
    same_outputs(checked, run(module, inputs, False))
    b = inputs["b"].astype(np.float64)
    ref = inputs["a"].astype(np.float64) @ (b.T if tb else b)
    np.testing.assert_allclose(checked.outputs["c"], ref, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("n", [65, 80])
def test_a_second_slot_in_an_if_gets_its_own_event_id(n):
    """An odd number of N tiles puts slot 1 of a double-buffered loop in an `scf.if`. Its
    mte1 -> m flag cannot share slot 0's id: slot 1's wait on pipe m can be held up by the fix
    -> m flag of the iteration before, and then slot 0's set in the next iteration finds the
    bit still set (three iterations: two copies of the loop body do not show it)."""
    text = matmul_text(16, n, 16, "f16", "f16", "f32")
    module = lower(text, "pto-tile-matmul{tile-m=16 tile-n=16 tile-k=16 multi-buffer=2},"
                         "pto-assign-addresses,pto-insert-sync")
    assert any(isinstance(op, pto.SetFlagOp) and op.parent_op().name == "scf.if"
               for op in module.walk())
    ids = {op.static_event for op in module.walk() if isinstance(op, pto.SetFlagOp)
           and (op.src_pipe.value, op.dst_pipe.value) == ("mte1", "m")}
    assert ids == {0, 1}
    inputs = inputs_for(module)
    same_outputs(run(module, inputs, True), run(module, inputs, False))


# ----------------------------------------------------------------------------------------------
# Removing one wait or barrier is always caught, at the right ops
# ----------------------------------------------------------------------------------------------


def test_lowered_kernels_have_waits_and_barriers_to_remove():
    kinds = {type(op) for name in LOWERED for op in _build(name).walk()}
    assert pto.WaitFlagOp in kinds and pto.PipeBarrierOp in kinds


@pytest.mark.parametrize("name, index", _kernels())
def test_removing_one_wait_or_barrier_is_reported(name, index):
    module = _build(name)
    inputs = inputs_for(module)
    victim = [op for op in module.walk() if isinstance(op, pto.WaitFlagOp | pto.PipeBarrierOp)][index]
    if isinstance(victim, pto.WaitFlagOp):
        src, dst = victim.src_pipe, victim.dst_pipe
    else:
        src = dst = victim.barrier_pipe
    victim.detach()
    victim.erase()
    try:
        run(module, inputs, True)
    except SyncError as caught:
        err = caught
    else:
        # Only a barrier that orders two writes of different windows of one GM buffer may be
        # unneeded at run time: statically a GM footprint is the whole buffer (a window's
        # offsets are loop values), so the static checker still reports the removal.
        assert isinstance(victim, pto.PipeBarrierOp), f"removing {victim} is not reported"
        function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
        conflicts, _ = static_conflicts(function, Templates(pto.target_of(function)))
        assert conflicts and all(c.first_access.space == "gm" for c in conflicts)
        assert all(c.first.pipe == c.second.pipe == src for c in conflicts)
        return
    message = str(err)
    if err.kind == "race":
        # The two unordered ops are on the pipes the removed wait (or barrier) ordered.
        assert err.events and all(ev.op.name.startswith("pto.") for ev in err.events)
        # The racing ops run on the pipes the removed wait (or barrier) ordered: an op of the
        # source pipe against one of the destination pipe, or two ops of one of them that were
        # ordered only through the removed wait (mad -> wait m -> mte1 -> move -> mad).
        named = {ev.pipe for ev in err.events} | ({"s"} if "scalar unit" in message else set())
        assert named and named <= {src, dst}, message
        assert " at " in message  # the ops with their file:line:col
    else:
        # The removed wait's pair: its set is set again, or never waited.
        assert err.kind in ("overflow", "unbalanced"), message
        assert f"{src} -> {dst}" in message
        assert all(ev.kind == "set_flag" and (ev.src, ev.dst) == (src, dst) for ev in err.events)


# ----------------------------------------------------------------------------------------------
# pto-insert-sync against the hand-written flags
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_insert_sync_uses_no_more_flags_than_the_hand_written_kernel(name):
    hand = example(name)
    module = strip_sync(example(name))
    assert counts(module) == (0, 0)
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    module.verify()
    (hand_flags, hand_barriers), (auto_flags, auto_barriers) = counts(hand), counts(module)
    assert FLAG_COUNTS[name] == ((hand_flags, hand_barriers), (auto_flags, auto_barriers))
    assert auto_flags <= hand_flags and auto_barriers <= hand_barriers
    inputs = inputs_for(hand)
    same_outputs(run(module, inputs, True), run(hand, inputs, True))


@pytest.mark.parametrize("name", HAND_WRITTEN)
def test_insert_sync_adds_nothing_to_a_synchronized_kernel(name):
    module = example(name)
    before = str(module)
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    assert str(module) == before


def test_insert_sync_is_idempotent_on_lowered_kernels():
    for text, pipeline in LOWERED.values():
        module = lower(text, pipeline)
        before = str(module)
        PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
        assert str(module) == before


def test_mmair_lower_runs_insert_sync_last():
    module = lower(matmul_text(32, 32, 256, "f16", "f16", "f32"), "mmair-lower")
    assert counts(module)[0] > 0
    flags = [op for op in module.walk() if isinstance(op, pto.SetFlagOp | pto.WaitFlagOp)]
    assert all(isinstance(op.static_event, int) and 0 <= op.static_event < 8 for op in flags)


# Nine L1 tiles, each loaded (MTE2) and moved (MTE1) in turn in a loop: each tile's load in the next
# iteration must wait for its move in this one, and no two of those waits can share a flag
# without delaying a load behind a later tile's move: 9 mte1 -> mte2 flags live through the loop.
def _nine_tiles(target: str) -> str:
    allocs, body = [], []
    for t in range(9):
        allocs.append(f"    %l1_{t} = pto.alloc {{offset = {t * 512} : i64}} : "
                      "!pto.tile<l1, 16x16xf16, nz>")
        allocs.append(f"    %l0a_{t} = pto.alloc {{offset = {t * 512} : i64}} : "
                      "!pto.tile<l0a, 16x16xf16, zz>")
        body.append(f"      pto.mte_gm_l1 %a, %l1_{t}, %c16, %c16 : memref<16x16xf16>, "
                    "!pto.tile<l1, 16x16xf16, nz>")
        body.append(f"      pto.mte_l1_l0a %l1_{t}, %l0a_{t}, %c16, %c16 : "
                    "!pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>")
    lines = "\n".join(allocs + ["    scf.for %i = %c0 to %c2 step %c1 {"] + body + ["    }"])
    return f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @nine(%a: memref<16x16xf16>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
{lines}
    func.return
  }}
}}"""


def test_nine_tiles_out_of_event_ids_share_one_flag_and_run_clean():
    """Nine loop-carried mte1 -> mte2 flags need 9 of a2's 8 ids: the pair is inserted again
    with its flags shared (every load of the next iteration waits for the last move)."""
    _, module = parse(_nine_tiles("a2"))
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    sets = [op for op in module.walk() if isinstance(op, pto.SetFlagOp)
            and (op.src_pipe.value, op.dst_pipe.value) == ("mte1", "mte2")]
    assert len(sets) == 2 and {op.static_event for op in sets} == {0}  # before and in the loop
    inputs = inputs_for(module)
    same_outputs(run(module, inputs, True), run(module, inputs, False))


def test_running_out_of_event_ids_names_the_pipe_pair():
    """The kernel's own flags hold all 8 ids of the pair: even one shared flag has none left."""
    own = "".join(f"    pto.set_flag mte1 -> mte2, {e}\n    pto.wait_flag mte1 -> mte2, {e}\n"
                  for e in range(8))
    text = _nine_tiles("a2").replace("    scf.for %i", own + "    scf.for %i", 1)
    _, module = parse(text)
    with pytest.raises(PassOpError, match=r"needs more than 8 event ids for pipe pair "
                                          r"mte1 -> mte2 on target a2 \(ids 0\.\.7"):
        PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]


_THREE_MOVES = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>) {
    %n = arith.constant 16 : index
    %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %b_l1 = pto.alloc {offset = 512 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %c_l1 = pto.alloc {offset = 1024 : i64} : !pto.tile<l1, 16x16xf16, nz>
    %a_l0a = pto.alloc {offset = 0 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    %b_l0a = pto.alloc {offset = 512 : i64} : !pto.tile<l0a, 16x16xf16, zz>
    %c_l0a = pto.alloc {offset = 1024 : i64} : !pto.tile<l0a, 16x16xf16, zz>
""" + "".join(
    f"    pto.mte_gm_l1 %{x}, %{x}_l1, %n, %n : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>\n"
    f"    pto.mte_l1_l0a %{x}_l1, %{x}_l0a, %n, %n : !pto.tile<l1, 16x16xf16, nz>, "
    "!pto.tile<l0a, 16x16xf16, zz>\n" for x in "abc") + """    func.return
  }
}"""


def test_flags_that_do_not_overlap_get_another_id_when_a_set_may_find_the_bit_set():
    # Three load -> move flags one after the other: the third set may fire while MTE1 still
    # moves %a_l1 before the second wait (docs/pipes.md "Legal schedules"), so the second and
    # third flag get different ids; the first and second may share one (the first wait is the
    # first instruction of MTE1).
    _, module = parse(_THREE_MOVES)
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    ids = [op.static_event for op in module.walk() if isinstance(op, pto.SetFlagOp)]
    assert ids == [0, 0, 1]
    run(module, {}, True)  # clean under the checker
    # With one id for all three the checker reports the third set.
    text = str(module).replace("mte1, 1", "mte1, 0")
    with pytest.raises(SyncError, match="sets flag mte2 -> mte1 event 0 again, but nothing "
                                        "orders it after 'pto.wait_flag'"):
        run(parse(text)[1], {}, True)
