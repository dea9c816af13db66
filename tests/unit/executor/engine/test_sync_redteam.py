"""Adversarial kernels against the sync checker's fast paths (issue 10): the read-only GM
arguments (`runner.read_only_gm`, `IssueSeam.read_only`), the bound steps of result-less pipe ops
(`IssueSeam.pipe_step`), the engine's kept lookups (`OpPlan.kept`, `_groups_made`) and the fused
set/wait (`Scheduler.skip`). Each kernel runs five ways: fast paths on and off
(`IssueSeam.fast`) x read-only arguments on and off, and with the pipe kernels on two threads
(`jobs=2`); all five must give the same outcome, and
that outcome must be the one the hardware rules of docs/pipes.md give (a race, a deadlock, an
overflow, an event id out of range, or a clean run with the program-order values)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from sync_testing import line_of, parse, without

from mmair.executor import runner
from mmair.executor.engine.events import SyncError
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.engine.seam import IssueSeam
from mmair.executor.runner import read_only_gm, run_module

_UB = "!pto.tile<ub, 128xui16, nd>"
_HEAD = 'builtin.module attributes {pto.target = "a2"} {\n'


def _outcome(text: str, inputs: dict, fast: bool, read_only: bool, monkeypatch,
             jobs: int | None = None) -> tuple:
    monkeypatch.setattr(IssueSeam, "fast", fast)
    batched = []
    real = HappensBefore.execute_item
    monkeypatch.setattr(HappensBefore, "execute_item",
                        lambda *a: batched.append(a) or real(*a))
    try:
        return _run(text, inputs, read_only, monkeypatch, jobs)
    finally:
        assert fast or not batched  # the Event path batches no pipe op without an Event


def _run(text: str, inputs: dict, read_only: bool, monkeypatch, jobs: int | None) -> tuple:
    monkeypatch.setattr(runner, "read_only_gm",
                        read_only_gm if read_only else lambda module: frozenset())
    try:
        result = run_module(parse(text), inputs=dict(inputs), sync_check=True, jobs=jobs)
    except SyncError as err:  # the diagnostic is the outcome to compare
        outcome: tuple = (err.kind, err.message)
    else:
        outcome = ("clean", {k: v.tobytes() for k, v in result.outputs.items()})
    return outcome


def _run_all_ways(text: str, monkeypatch, inputs: dict | None = None) -> tuple:
    """The outcome of `text`, checked to be the same with and without every fast path."""
    outcomes = {(fast, ro): _outcome(text, inputs or {}, fast, ro, monkeypatch)
                for fast in (True, False) for ro in (True, False)}
    outcomes["jobs 2"] = _outcome(text, inputs or {}, True, True, monkeypatch, jobs=2)
    slow = outcomes[(False, False)]
    assert all(o == slow for o in outcomes.values()), outcomes
    return slow


def _kernel(args: str, body: str) -> str:
    return _HEAD + f"  func.func @k({args}) {{\n{body}    func.return\n  }}\n}}\n"


# ---- read-only GM arguments: writes the analysis must see -------------------------------------

# MTE2 reads %src into %ub, MTE3 writes %ub through the view %w (VIEW), then MTE2 reads %src
# again with no flag from MTE3: a race on %src exactly when %w views %src.
_REREAD = f"""    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub2 = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %s, %ub : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
VIEW    pto.mte_ub_gm %ub, %w : {_UB}, WTYPE
    pto.mte_gm_ub %s, %ub2 : memref<128xui16>, {_UB}
"""

_VIEWS = {
    "subview of a subview": (
        "%src: memref<256xui16>, %dst: memref<128xui16>",
        "    %s = memref.subview %src[0] [128] [1] : memref<256xui16> to memref<128xui16>\n",
        "    %s2 = memref.subview %src[64] [192] [1] : memref<256xui16> to "
        "memref<192xui16, strided<[1], offset: 64>>\n"
        "    %w = memref.subview %s2[0] [128] [1] : memref<192xui16, strided<[1], offset: 64>> "
        "to memref<128xui16, strided<[1], offset: 64>>\n",
        "memref<128xui16, strided<[1], offset: 64>>", r"\[128, 256\)"),
    "collapse_shape": (
        "%src: memref<2x128xui16>, %dst: memref<128xui16>",
        "    %flat = memref.collapse_shape %src [[0, 1]] : memref<2x128xui16> into "
        "memref<256xui16>\n"
        "    %s = memref.subview %flat[0] [128] [1] : memref<256xui16> to memref<128xui16>\n",
        "    %w = memref.subview %flat[0] [128] [1] : memref<256xui16> to memref<128xui16>\n",
        "memref<128xui16>", r"\[0, 256\)"),
    "arith.select": (
        "%src: memref<128xui16>, %dst: memref<128xui16>, %x: index",
        "    %s = memref.subview %src[0] [128] [1] : memref<128xui16> to memref<128xui16>\n",
        "    %c0 = arith.constant 0 : index\n    %p = arith.cmpi eq, %x, %c0 : index\n"
        "    %w = arith.select %p, %src, %dst : memref<128xui16>\n",
        "memref<128xui16>", r"\[0, 256\)"),
    "scf.if result": (
        "%src: memref<128xui16>, %dst: memref<128xui16>, %x: index",
        "    %s = memref.subview %src[0] [128] [1] : memref<128xui16> to memref<128xui16>\n",
        "    %c0 = arith.constant 0 : index\n    %p = arith.cmpi eq, %x, %c0 : index\n"
        "    %w = scf.if %p -> (memref<128xui16>) {\n      scf.yield %src : memref<128xui16>\n"
        "    } else {\n      scf.yield %dst : memref<128xui16>\n    }\n",
        "memref<128xui16>", r"\[0, 256\)"),
    "scf.for iter_arg": (
        "%src: memref<128xui16>, %dst: memref<128xui16>",
        "    %s = memref.subview %src[0] [128] [1] : memref<128xui16> to memref<128xui16>\n",
        "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
        "    %w = scf.for %i = %c0 to %c1 step %c1 iter_args(%m = %src) -> (memref<128xui16>) {\n"
        "      scf.yield %m : memref<128xui16>\n    }\n",
        "memref<128xui16>", r"\[0, 256\)"),
}


@pytest.mark.parametrize("view", list(_VIEWS))
def test_a_write_through_a_derived_view_keeps_the_reads_of_the_buffer(monkeypatch, view):
    args, source, written, wtype, window = _VIEWS[view]
    text = _kernel(args, source + _REREAD.replace("VIEW", written).replace("WTYPE", wtype))
    module = parse(text)
    entry = next(op for op in module.walk() if op.name == "func.func")
    src = entry.body.blocks.first.args[0]
    assert src not in read_only_gm(module)  # %src is written (or the writes cannot be followed)
    reread = line_of(text, "pto.mte_gm_ub %s, %ub2")
    kind, message = _run_all_ways(text, monkeypatch, {"x": 0} if "%x" in args else {})
    assert kind == "race"
    assert message.startswith(f"race on bytes {window.replace(chr(92), '')} of GM buffer %src: "
                              f"'pto.mte_gm_ub' at k.mlir:{reread}:5 (pipe mte2) reads them, "
                              f"'pto.mte_ub_gm' at k.mlir:")
    assert message.endswith("(pipe mte3) writes them; no set_flag/wait_flag chain or "
                            "pipe_barrier orders them")


def test_the_select_that_picks_the_other_buffer_runs_clean(monkeypatch):
    """The same kernel with %x = 1 writes %dst: clean (and %src's reads were checked)."""
    args, source, written, wtype, _ = _VIEWS["arith.select"]
    text = _kernel(args, source + _REREAD.replace("VIEW", written).replace("WTYPE", wtype))
    src = np.arange(128, dtype=np.uint16)
    kind, outputs = _run_all_ways(text, monkeypatch, {"x": 1, "src": src})
    assert kind == "clean"
    assert np.frombuffer(outputs["dst"], np.uint16).tolist() == src.tolist()


def test_a_function_that_is_never_called_does_not_make_the_entry_arguments_written(monkeypatch):
    text = _HEAD + f"""  func.func @k(%src: memref<128xui16>, %dst: memref<128xui16>) {{
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : {_UB}, memref<128xui16>
    func.return
  }}
  func.func private @other(%x: memref<128xui16>) {{
    %u = pto.alloc {{offset = 512 : i64}} : {_UB}
    pto.mte_ub_gm %u, %x : {_UB}, memref<128xui16>
    func.return
  }}
}}
"""
    module = parse(text)
    entry = next(op for op in module.walk() if op.name == "func.func")
    assert read_only_gm(module) == {entry.body.blocks.first.args[0]}
    src = np.arange(128, dtype=np.uint16)
    kind, outputs = _run_all_ways(text, monkeypatch, {"src": src})
    assert kind == "clean" and np.frombuffer(outputs["dst"], np.uint16).tolist() == src.tolist()


def test_one_array_given_for_two_arguments_is_copied_for_the_written_one():
    """The read-only rule needs the written arguments to share no bytes with any other:
    `run_module` copies every input an op may write (the read-only %src is the caller's array,
    as a read-only view), so the read %src and the written %dst never share bytes, even given
    the same array."""
    text = _kernel("%src: memref<128xui16>, %dst: memref<128xui16>", f"""    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : {_UB}, memref<128xui16>
""")
    given = np.arange(128, dtype=np.uint16)[::-1].copy()
    result = run_module(parse(text), inputs={"src": given, "dst": given}, sync_check=True)
    assert not np.shares_memory(result.outputs["src"], result.outputs["dst"])
    assert not np.shares_memory(result.outputs["dst"], given)
    assert not result.outputs["src"].flags.writeable
    assert result.outputs["dst"].tolist() == given.tolist()


def test_two_blocks_check_every_read_of_a_buffer_another_block_writes():
    """Multi-core runs do not take the read-only rule: block 1 reads the %a window block 0
    writes, with no pto.sync_all between them."""
    text = _kernel("%a: memref<64xf16>, %c: memref<64xf16>", """    %i = pto.block_idx
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 16xf16, nd>
    %win = memref.subview %a[%c0] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %is0 = arith.cmpi eq, %i, %c0 : index
    scf.if %is0 {
      pto.mte_ub_gm %ub, %win : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    } else {
      pto.mte_gm_ub %win, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    }
""")
    with pytest.raises(SyncError, match=r"race on bytes \[0, 32\) of GM buffer %a between "
                                        r"blocks [01] and [01]"):
        run_module(parse(text), blocks=2, sync_check=True)


# ---- loops whose GM windows move with the induction variable ------------------------------

# Iteration i reads window i of %src and writes window i + 1, which iteration i + 1 reads: the
# MTE3 -> MTE2 flag at the end of the body (X) orders that read after the write.
_CHAIN = _kernel("%src: memref<512xui16>", f"""    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c384 = arith.constant 384 : index
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    pto.set_flag mte3 -> mte2, 0 // X
    scf.for %i = %c0 to %c384 step %c128 {{
      %r = memref.subview %src[%i] [128] [1] : memref<512xui16> to memref<128xui16, strided<[1], offset: ?>>
      %i1 = arith.addi %i, %c128 : index
      %w = memref.subview %src[%i1] [128] [1] : memref<512xui16> to memref<128xui16, strided<[1], offset: ?>>
      pto.wait_flag mte3 -> mte2, 0 // X
      pto.mte_gm_ub %r, %ub : memref<128xui16, strided<[1], offset: ?>>, {_UB}
      pto.set_flag mte2 -> mte3, 0
      pto.wait_flag mte2 -> mte3, 0
      pto.mte_ub_gm %ub, %w : {_UB}, memref<128xui16, strided<[1], offset: ?>>
      pto.set_flag mte3 -> mte2, 0 // X
    }}
    pto.wait_flag mte3 -> mte2, 0 // X
""")


def test_a_window_chain_through_a_loop_runs_clean(monkeypatch):
    src = np.arange(512, dtype=np.uint16)
    kind, outputs = _run_all_ways(_CHAIN, monkeypatch, {"src": src})
    assert kind == "clean"
    assert np.frombuffer(outputs["src"], np.uint16).tolist() == src[:128].tolist() * 4


def test_a_window_chain_without_its_flag_races_on_the_next_iteration_window(monkeypatch):
    text = without(_CHAIN, "X")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    read, write = line_of(text, "pto.mte_gm_ub"), line_of(text, "pto.mte_ub_gm")
    assert message == (
        f"race on bytes [256, 512) of GM buffer %src: 'pto.mte_gm_ub' at k.mlir:{read}:7 (pipe "
        f"mte2, iteration %i = 128) reads them, 'pto.mte_ub_gm' at k.mlir:{write}:7 (pipe mte3, "
        f"iteration %i = 0) writes them; no set_flag/wait_flag chain or pipe_barrier orders them")


def test_a_window_chain_that_never_sets_in_the_body_is_a_deadlock(monkeypatch):
    text = _CHAIN.replace("      pto.set_flag mte3 -> mte2, 0 // X\n", "")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "deadlock"
    assert message.startswith(
        f"deadlock: pipe mte2 waits at 'pto.wait_flag' at k.mlir:{line_of(text, '      pto.wait_flag mte3 -> mte2')}:7 "
        "(pipe mte2, iteration %i = 128) for flag mte3 -> mte2 event 0")


# ---- queued ops, fused set/wait, dynamic event ids ------------------------------------------

_A_L1 = "!pto.tile<l1, 64x64xf16, nz>"
_A_L0 = "!pto.tile<l0a, 64x64xf16, zz>"
_B_L1 = "!pto.tile<l1, 64x64xf16, zz>"
_B_L0 = "!pto.tile<l0b, 64x64xf16, zn>"
_C_L0 = "!pto.tile<l0c, 64x64xf32, nz>"


def _gemm(body: str) -> str:
    return _kernel("%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>",
                   f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %a_l1 = pto.alloc {{offset = 0 : i64}} : {_A_L1}
    %b_l1 = pto.alloc {{offset = 8192 : i64}} : {_B_L1}
    %a_l0 = pto.alloc {{offset = 0 : i64}} : {_A_L0}
    %b_l0 = pto.alloc {{offset = 0 : i64}} : {_B_L0}
    %c_l0 = pto.alloc {{offset = 0 : i64}} : {_C_L0}
""" + body)


_LOAD = (f"    pto.mte_gm_l1 %a, %a_l1, %c64, %c64 : memref<64x64xf16>, {_A_L1}\n"
         f"    pto.mte_gm_l1 %b, %b_l1, %c64, %c64 : memref<64x64xf16>, {_B_L1}\n")
_MOVE = (f"    pto.mte_l1_l0a %a_l1, %a_l0, %c64, %c64 : {_A_L1}, {_A_L0}\n"
         f"    pto.mte_l1_l0b %b_l1, %b_l0, %c64, %c64 : {_B_L1}, {_B_L0}\n")
_MAD = f"    pto.mad %a_l0, %b_l0, %c_l0, %c64, %c64, %c64 : {_A_L0}, {_B_L0}, {_C_L0}\n"
_FIX = (f'    pto.fixpipe %c_l0, %c, %c64, %c64 {{layout = "nz2nd"}} : {_C_L0}, '
        f"memref<64x64xf32>\n")


def _pair(src: str, dst: str, event: str = "0") -> str:
    return f"    pto.set_flag {src} -> {dst}, {event}\n    pto.wait_flag {src} -> {dst}, {event}\n"


def _gemm_inputs() -> dict:
    rng = np.random.default_rng(0)
    return {"a": rng.integers(-3, 4, (64, 64)).astype(np.float16),
            "b": rng.integers(-3, 4, (64, 64)).astype(np.float16)}


def _expect_product(outputs: dict) -> None:
    data = _gemm_inputs()
    want = data["a"].astype(np.float32) @ data["b"].astype(np.float32)
    assert np.frombuffer(outputs["c"], np.float32).reshape(64, 64).tolist() == want.tolist()


_TAIL = _pair("mte1", "m") + _MAD + _pair("m", "fix") + _FIX

_CASES = {
    # The MTE2 queue is blocked by a wait whose set comes last: the fused pairs behind it fall
    # back to queued events and still order MTE1 after the loads.
    "fused pairs behind a blocked queue": (
        "    pto.wait_flag mte3 -> mte2, 0\n" + _LOAD + _pair("mte2", "mte1") + _MOVE + _TAIL
        + "    pto.set_flag mte3 -> mte2, 0\n", "clean", None),
    # The MTE1 queue waits for a set issued after the mad: the mad runs first and reads L0A
    # that the queued MTE1 move has not written (no mte1 -> m flag).
    "mad ahead of queued moves": (
        _LOAD + "    pto.wait_flag mte2 -> mte1, 0\n" + _MOVE + _MAD + _pair("m", "fix") + _FIX
        + "    pto.set_flag mte2 -> mte1, 0\n", "race",
        r"race on l0a bytes \[0, 8192\) \(%a_l0\): 'pto.mte_l1_l0a' at k.mlir:\d+:5 \(pipe "
        r"mte1\) writes them, 'pto.mad' at k.mlir:\d+:5 \(pipe m\) reads them"),
    # Moves queued behind a wait that is released before the mad: clean.
    "moves queued, released in time": (
        _LOAD + "    pto.wait_flag mte2 -> mte1, 0\n" + _MOVE + "    pto.set_flag mte1 -> m, 0\n"
        "    pto.wait_flag mte1 -> m, 0\n    pto.set_flag mte2 -> mte1, 0\n" + _MAD
        + _pair("m", "fix") + _FIX, "clean", None),
    # MTE2 blocked; MTE1 reads L1 with no flag from MTE2: the queued loads write it later.
    "moves ahead of queued loads": (
        "    pto.wait_flag mte3 -> mte2, 0\n" + _LOAD + _MOVE + _TAIL
        + "    pto.set_flag mte3 -> mte2, 0\n", "race",
        r"race on l1 bytes \[0, 8192\) \(%a_l1\): 'pto.mte_gm_l1' at k.mlir:\d+:5 \(pipe "
        r"mte2\) writes them, 'pto.mte_l1_l0a' at k.mlir:\d+:5 \(pipe mte1\) reads them"),
    # A set of a bit still set, fused with the wait that follows it: the overflow is reported.
    "fused pair overflows": (
        _LOAD + "    pto.set_flag mte2 -> mte1, 0\n" + _pair("mte2", "mte1") + _MOVE + _TAIL
        + "    pto.wait_flag mte2 -> mte1, 0\n", "overflow",
        r"sets flag mte2 -> mte1 event 0 again while it is still set by 'pto.set_flag' at "
        r"k.mlir:\d+:5 \(pipe mte2\)"),
    # A static set whose wait names the same id as an index value (not fused): clean.
    "static set, dynamic wait": (
        _LOAD + "    pto.set_flag mte2 -> mte1, 0\n    %e = arith.addi %c0, %c0 : index\n"
        "    pto.wait_flag mte2 -> mte1, %e\n" + _MOVE + _TAIL, "clean", None),
    # A dynamic set of id 1 and a static wait of id 0: the wait never gets its set.
    "dynamic set, other static wait": (
        _LOAD + "    pto.set_flag mte2 -> mte1, %c1\n    pto.wait_flag mte2 -> mte1, 0\n"
        + _MOVE + _TAIL, "deadlock",
        r"deadlock: pipe mte1 waits at 'pto.wait_flag' at k.mlir:\d+:5 \(pipe mte1\) for flag "
        r"mte2 -> mte1 event 0 \(3 more ops queued behind it\)"),
    # A dynamic set of id 1, then a fused static set/wait of id 1: the second set overflows.
    "dynamic set, then fused static pair": (
        _LOAD + "    pto.set_flag mte2 -> mte1, %c1\n" + _pair("mte2", "mte1", "1") + _MOVE
        + _TAIL + "    pto.wait_flag mte2 -> mte1, %c1\n", "overflow",
        r"sets flag mte2 -> mte1 event 1 again while it is still set by 'pto.set_flag'"),
    "dynamic id out of range": (
        _LOAD + _pair("mte2", "mte1", "%c8") + _MOVE + _TAIL, "event-id",
        r"event id 8 of mte2 -> mte1 is out of range at run time: target a2 has event ids "
        r"0\.\.7 per pipe pair"),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_queued_ops_fused_pairs_and_dynamic_ids(monkeypatch, case):
    body, kind, pattern = _CASES[case]
    got = _run_all_ways(_gemm(body), monkeypatch, _gemm_inputs())
    assert got[0] == kind, got
    if kind == "clean":
        _expect_product(got[1])
    else:
        assert pattern is not None
        assert re.match(pattern, got[1]), got[1]


# A loop that sets FIX -> M at the end of its body and waits at the start: the set is fused
# with nothing (the wait is in the next iteration). FIRST: the set before the fixpipe (wrong).
_LOOP = _gemm(_LOAD + _pair("mte2", "mte1") + _MOVE + _pair("mte1", "m")
              + "    pto.set_flag fix -> m, 0\n"
              "    scf.for %i = %c0 to %c2 step %c1 {\n"
              "      pto.wait_flag fix -> m, 0\n  " + _MAD + "  " + _pair("m", "fix").replace(
                  "\n    ", "\n      ") + "  " + _FIX
              + "      pto.set_flag fix -> m, 0\n    }\n    pto.wait_flag fix -> m, 0\n")


def test_a_loop_with_its_back_flag_runs_clean(monkeypatch):
    kind, outputs = _run_all_ways(_LOOP, monkeypatch, _gemm_inputs())
    assert kind == "clean"
    _expect_product(outputs)


def test_a_back_flag_set_before_the_fixpipe_races_in_the_next_iteration(monkeypatch):
    text = _LOOP.replace("  " + _FIX + "      pto.set_flag fix -> m, 0\n",
                         "      pto.set_flag fix -> m, 0\n  " + _FIX)
    kind, message = _run_all_ways(text, monkeypatch, _gemm_inputs())
    assert kind == "race"
    assert message.startswith(
        f"race on l0c bytes [0, 16384) (%c_l0): 'pto.mad' at k.mlir:{line_of(text, 'pto.mad ')}:7"
        f" (pipe m, iteration %i = 1) writes them, 'pto.fixpipe' at "
        f"k.mlir:{line_of(text, 'pto.fixpipe')}:7 (pipe fix, iteration %i = 0) reads them")


# ---- the same op list with other tiles ------------------------------------------------------

# A load alternates between two L1 slots (an scf.if yields the tile), MTE1 always reads slot A:
# without the MTE1 -> MTE2 back flag (B), the load of iteration 2 rewrites slot A while the
# move of iteration 1 may still read it. The op's footprint list and kept lookups of slot A
# (iteration 0) are reused after iteration 1 used slot B.
_SLOTS = _kernel("%a: memref<64x64xf16>", f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %slot_a = pto.alloc {{offset = 0 : i64}} : {_A_L1}
    %slot_b = pto.alloc {{offset = 8192 : i64}} : {_A_L1}
    %a_l0 = pto.alloc {{offset = 0 : i64}} : {_A_L0}
    scf.for %i = %c0 to %c4 step %c1 {{
      %r = arith.remui %i, %c2 : index
      %odd = arith.cmpi eq, %r, %c1 : index
      %t = scf.if %odd -> ({_A_L1}) {{
        scf.yield %slot_b : {_A_L1}
      }} else {{
        scf.yield %slot_a : {_A_L1}
      }}
      pto.pipe_barrier mte2
      pto.mte_gm_l1 %a, %t, %c64, %c64 : memref<64x64xf16>, {_A_L1}
      pto.set_flag mte2 -> mte1, 0
      pto.wait_flag mte2 -> mte1, 0
      pto.pipe_barrier mte1
      pto.mte_l1_l0a %slot_a, %a_l0, %c64, %c64 : {_A_L1}, {_A_L0}
      pto.set_flag mte1 -> mte2, 0 // B
      pto.wait_flag mte1 -> mte2, 0 // B
    }}
""")


def test_alternating_tiles_run_clean_with_the_back_flag(monkeypatch):
    assert _run_all_ways(_SLOTS, monkeypatch)[0] == "clean"


def test_alternating_tiles_race_when_the_first_tile_comes_back(monkeypatch):
    text = without(_SLOTS, "B")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    load, move = line_of(text, "pto.mte_gm_l1"), line_of(text, "pto.mte_l1_l0a")
    assert message.startswith(
        f"race on l1 bytes [0, 8192) (%slot_a): 'pto.mte_gm_l1' at k.mlir:{load}:7 (pipe mte2, "
        f"iteration %i = 2) writes them, 'pto.mte_l1_l0a' at k.mlir:{move}:7 (pipe mte1, "
        f"iteration %i = 1) reads them")


# ---- scalar accesses of GM (memref.load / store / copy on pipe S) ---------------------------

_UB16 = "!pto.tile<ub, 128xi16, nd>"

# MTE2 copies %src to UB, MTE3 writes it to %dst, the scalar unit reads %dst[3] (LOAD). The flag
# pair R orders the read after MTE3's write.
_SCALAR_READ = _HEAD + f"""  func.func @k(%src: memref<128xi16>, %dst: memref<128xi16>) -> i16 {{
    %c3 = arith.constant 3 : index
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB16}
    pto.mte_gm_ub %src, %ub : memref<128xi16>, {_UB16}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : {_UB16}, memref<128xi16>
    pto.set_flag mte3 -> s, 0 // R
    pto.wait_flag mte3 -> s, 0 // R
    %v = memref.load %dst[%c3] : memref<128xi16>
    func.return %v : i16
  }}
}}
"""

# The scalar unit stores into %src[5] before MTE2 reads %src: the pair W orders the read after
# the store.
_SCALAR_WRITE = _kernel("%src: memref<128xi16>, %dst: memref<128xi16>", f"""    %c5 = arith.constant 5 : index
    %seven = arith.constant 7 : i16
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB16}
    memref.store %seven, %src[%c5] : memref<128xi16>
    pto.set_flag s -> mte2, 0 // W
    pto.wait_flag s -> mte2, 0 // W
    pto.mte_gm_ub %src, %ub : memref<128xi16>, {_UB16}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : {_UB16}, memref<128xi16>
""")


def test_a_scalar_load_after_its_flag_reads_what_mte3_wrote(monkeypatch):
    src = np.arange(128, dtype=np.int16)
    assert _run_all_ways(_SCALAR_READ, monkeypatch, {"src": src})[0] == "clean"
    assert run_module(parse(_SCALAR_READ), inputs={"src": src}, sync_check=True).results == (3,)


def test_a_scalar_load_of_gm_that_mte3_writes_unordered_is_a_race(monkeypatch):
    text = without(_SCALAR_READ, "R")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message == (
        f"race on bytes [6, 8) of GM buffer %dst: 'memref.load' at "
        f"k.mlir:{line_of(text, 'memref.load')}:5 (pipe s) reads them, 'pto.mte_ub_gm' at "
        f"k.mlir:{line_of(text, 'pto.mte_ub_gm')}:5 (pipe mte3) writes them; no "
        f"set_flag/wait_flag chain or pipe_barrier orders them")


def test_a_scalar_store_before_its_flag_is_what_mte2_reads(monkeypatch):
    src = np.arange(128, dtype=np.int16)
    kind, outputs = _run_all_ways(_SCALAR_WRITE, monkeypatch, {"src": src})
    assert kind == "clean"
    assert np.frombuffer(outputs["dst"], np.int16)[4:7].tolist() == [4, 7, 6]


def test_a_scalar_store_to_gm_that_mte2_reads_unordered_is_a_race(monkeypatch):
    text = without(_SCALAR_WRITE, "W")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message == (
        f"race on bytes [10, 12) of GM buffer %src: 'pto.mte_gm_ub' at "
        f"k.mlir:{line_of(text, 'pto.mte_gm_ub')}:5 (pipe mte2) reads them, 'memref.store' at "
        f"k.mlir:{line_of(text, 'memref.store')}:5 (pipe s) writes them; no "
        f"set_flag/wait_flag chain or pipe_barrier orders them")


def test_a_scalar_copy_over_gm_that_mte2_still_reads_is_a_race(monkeypatch):
    """WAR: MTE2 reads %src, then the scalar unit copies %dst over it with no mte2 -> s flag."""
    text = _kernel("%src: memref<128xi16>, %dst: memref<128xi16>", f"""    %ub = pto.alloc {{offset = 0 : i64}} : {_UB16}
    pto.mte_gm_ub %src, %ub : memref<128xi16>, {_UB16}
    pto.set_flag mte2 -> s, 0 // C
    pto.wait_flag mte2 -> s, 0 // C
    "memref.copy"(%dst, %src) : (memref<128xi16>, memref<128xi16>) -> ()
""")
    assert _run_all_ways(text, monkeypatch)[0] == "clean"
    text = without(text, "C")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message.startswith(
        f"race on bytes [0, 256) of GM buffer %src: 'memref.copy' at "
        f"k.mlir:{line_of(text, 'memref.copy')}:5 (pipe s) writes them, 'pto.mte_gm_ub' at "
        f"k.mlir:{line_of(text, 'pto.mte_gm_ub')}:5 (pipe mte2) reads them")


def test_a_scalar_copy_from_gm_that_mte3_still_writes_is_a_race(monkeypatch):
    """RAW: MTE3 writes %mid, then the scalar unit copies %mid to %dst with no mte3 -> s flag:
    the copy's read of its source is an access of the scalar unit like its write."""
    text = _kernel("%src: memref<128xi16>, %mid: memref<128xi16>, %dst: memref<128xi16>",
                   f"""    %ub = pto.alloc {{offset = 0 : i64}} : {_UB16}
    pto.mte_gm_ub %src, %ub : memref<128xi16>, {_UB16}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %mid : {_UB16}, memref<128xi16>
    pto.set_flag mte3 -> s, 0 // R
    pto.wait_flag mte3 -> s, 0 // R
    "memref.copy"(%mid, %dst) : (memref<128xi16>, memref<128xi16>) -> ()
""")
    assert _run_all_ways(text, monkeypatch)[0] == "clean"
    text = without(text, "R")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message.startswith(
        f"race on bytes [0, 256) of GM buffer %mid: 'memref.copy' at "
        f"k.mlir:{line_of(text, 'memref.copy')}:5 (pipe s) reads them, 'pto.mte_ub_gm' at "
        f"k.mlir:{line_of(text, 'pto.mte_ub_gm')}:5 (pipe mte3) writes them"), message


def test_scalar_stores_of_two_blocks_to_one_element_race():
    text = _kernel("%a: memref<4xi32>", """    %c0 = arith.constant 0 : index
    %i = pto.block_idx
    %v = arith.index_cast %i : index to i32
    memref.store %v, %a[%c0] : memref<4xi32>
""")
    with pytest.raises(SyncError, match=r"race on bytes \[0, 4\) of GM buffer %a between blocks "
                                        r"0 and 1: block 1 'memref.store' at k.mlir:6:5 \(pipe "
                                        r"s, core 1\) writes them"):
        run_module(parse(text), blocks=2, sync_check=True)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_scalar_load_of_another_block_window_races_in_process_and_on_the_pool(jobs):
    """Block i writes %c[16i:16i+16] on MTE3, then every block reads %c[0] on its scalar unit
    after its own MTE3 (wait_flag mte3 -> s) but with no pto.sync_all: block 1 reads block 0's
    bytes. On the pool (jobs 2) the load is in the workers' logs, so the launch is re-run in
    process and gives the same diagnostic."""
    text = _kernel("%a: memref<64xf16>, %c: memref<64xf16>", """    %i = pto.block_idx
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 16xf16, nd>
    %src = memref.subview %a[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %dst = memref.subview %c[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    pto.set_flag mte3 -> s, 0
    pto.wait_flag mte3 -> s, 0
    %q = memref.load %c[%c0] : memref<64xf16>
""")
    with pytest.raises(SyncError, match=r"race on bytes \[0, 2\) of GM buffer %c between blocks "
                                        r"0 and 1: block 1 'memref.load' at k.mlir:\d+:5 \(pipe s, "
                                        r"core 1\) reads them, block 0 'pto.mte_ub_gm'"):
        run_module(parse(text), blocks=2, jobs=jobs, sync_check=True)


# ---- a mad whose size (and so its same-pipe rule) changes between iterations ------------------

def _mad_loop(big_when: str) -> str:
    """Three mads into one L0C with no pipe_barrier(m): 64 x 64 (16 fractals, finishes before
    the next mad reaches its bytes) when `%i <big_when> 1`, else 16 x 16 (needs the barrier)."""
    return _gemm(_LOAD + _pair("mte2", "mte1") + _MOVE + _pair("mte1", "m") + f"""    %c16 = arith.constant 16 : index
    %c3 = arith.constant 3 : index
    scf.for %i = %c0 to %c3 step %c1 {{
      %big = arith.cmpi {big_when}, %i, %c1 : index
      %m = arith.select %big, %c64, %c16 : index
      pto.mad %a_l0, %b_l0, %c_l0, %m, %m, %c64 : {_A_L0}, {_B_L0}, {_C_L0}
    }}
""" + _pair("m", "fix") + _FIX)


@pytest.mark.parametrize("big_when, second", [
    ("sge", 1),  # small, big, big: the big mad of iteration 1 races the small one before it
    ("slt", 2),  # big, small, small: the big one finished first; the second small one races
    ("ne", 2),  # big, small, big: iteration 2 races the small mad of iteration 1
])
def test_the_mad_barrier_rule_follows_each_iteration_size(monkeypatch, big_when, second):
    text = _mad_loop(big_when)
    kind, message = _run_all_ways(text, monkeypatch, _gemm_inputs())
    assert kind == "race"
    line = line_of(text, "pto.mad ")
    assert message.startswith(
        f"race on l0c bytes [0, 16384) (%c_l0): 'pto.mad' at k.mlir:{line}:7 (pipe m, "
        f"iteration %i = {second}) writes them, 'pto.mad' at k.mlir:{line}:7 (pipe m, "
        f"iteration %i = {second - 1}) writes them; no pipe_barrier(m) between them")


# ---- dynamic event ids naming the wrong slot ------------------------------------------------

# Double buffering with the slot's event id as an index value (%s = %i mod 2); WAITID is the id
# MTE1 waits on after the load of slot %s. PRE: an extra MTE2 -> MTE1 set of id 1 before the loop.
_DYN_SLOTS = _kernel("%a: memref<64x64xf16>", f"""    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %slot_a = pto.alloc {{offset = 0 : i64}} : {_A_L1}
    %slot_b = pto.alloc {{offset = 8192 : i64}} : {_A_L1}
    %l0_a = pto.alloc {{offset = 0 : i64}} : {_A_L0}
    %l0_b = pto.alloc {{offset = 8192 : i64}} : {_A_L0}
    pto.set_flag mte1 -> mte2, 0
    pto.set_flag mte1 -> mte2, 1
    pto.set_flag mte2 -> mte1, 1 // PRE
    scf.for %i = %c0 to %c4 step %c1 {{
      %s = arith.remui %i, %c2 : index
      %other = arith.subi %c1, %s : index
      %odd = arith.cmpi eq, %s, %c1 : index
      %t, %l0 = scf.if %odd -> ({_A_L1}, {_A_L0}) {{
        scf.yield %slot_b, %l0_b : {_A_L1}, {_A_L0}
      }} else {{
        scf.yield %slot_a, %l0_a : {_A_L1}, {_A_L0}
      }}
      pto.wait_flag mte1 -> mte2, %s
      pto.mte_gm_l1 %a, %t, %c64, %c64 : memref<64x64xf16>, {_A_L1}
      pto.set_flag mte2 -> mte1, %s
      pto.wait_flag mte2 -> mte1, WAITID
      pto.mte_l1_l0a %t, %l0, %c64, %c64 : {_A_L1}, {_A_L0}
      pto.set_flag mte1 -> mte2, %s
    }}
    pto.wait_flag mte1 -> mte2, 0
    pto.wait_flag mte1 -> mte2, 1
    pto.wait_flag mte2 -> mte1, 1 // PRE
""")


def test_dynamic_slot_ids_run_clean(monkeypatch):
    text = without(_DYN_SLOTS, "PRE").replace("WAITID", "%s")
    assert _run_all_ways(text, monkeypatch)[0] == "clean"


def test_a_wait_on_the_other_slot_id_consumes_a_stale_set_and_races(monkeypatch):
    text = _DYN_SLOTS.replace("WAITID", "%other")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message.startswith(
        f"race on l1 bytes [0, 8192) (%slot_a): 'pto.mte_l1_l0a' at "
        f"k.mlir:{line_of(text, 'pto.mte_l1_l0a')}:7 (pipe mte1, iteration %i = 0) reads them, "
        f"'pto.mte_gm_l1' at k.mlir:{line_of(text, 'pto.mte_gm_l1')}:7 (pipe mte2, iteration "
        f"%i = 0) writes them")


def test_a_dynamic_set_of_an_id_still_set_overflows(monkeypatch):
    text = _DYN_SLOTS.replace("WAITID", "%s")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "overflow"
    assert message.startswith(
        f"sets flag mte2 -> mte1 event 1 again while it is still set by 'pto.set_flag' at "
        f"k.mlir:{line_of(text, 'pto.set_flag mte2 -> mte1, 1 // PRE')}:5 (pipe mte2)")


# ---- a pipe result read by a bound pipe step (`_PIPE_STEP` reads its operands) ---------------

_L1_TILE = "!pto.tile<l1, 64x64xf16, nz>"

# GatherMask on V counts the kept elements; MTE2 loads that many rows of %a (ROWS: the count
# itself, or through scalar arithmetic). S: the flag that orders the scalar read after V.
_COUNTED = _kernel("%src: memref<128xui16>, %a: memref<64x64xf16>", f"""    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub_dst = pto.alloc {{offset = 256 : i64}} : {_UB}
    %l1 = pto.alloc {{offset = 0 : i64}} : {_L1_TILE}
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> v, 0
    pto.wait_flag mte2 -> v, 0
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_UB}, {_UB}
    pto.set_flag v -> s, 0 // S
    pto.wait_flag v -> s, 0 // S
    %r = arith.minui %kept, %c64 : index
    pto.set_flag v -> mte2, 0
    pto.wait_flag v -> mte2, 0
    pto.mte_gm_l1 %a, %l1, ROWS, %c64 : memref<64x64xf16>, {_L1_TILE}
""")


@pytest.mark.parametrize("rows", ["%r", "%kept"])
def test_a_pipe_op_sized_by_a_pipe_result_needs_the_flag_to_s(monkeypatch, rows):
    text = _COUNTED.replace("ROWS", rows)
    assert _run_all_ways(text, monkeypatch)[0] == "clean"
    text = without(text, "S")
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message == (
        f"race on a scalar register: the scalar unit (pipe s) reads %kept, the result of "
        f"'pto.gather_mask' at k.mlir:{line_of(text, 'pto.gather_mask')}:5 (pipe v), before a "
        f"wait_flag v -> s orders it after that op")


def test_a_callee_that_writes_the_caller_buffer_races_with_the_caller_reread(monkeypatch):
    """@w writes its argument, which is the caller's %src: the caller's second read of %src is
    unordered with that write (a func.call makes no argument read-only)."""
    text = _HEAD + f"""  func.func @k(%src: memref<128xui16>, %dst: memref<128xui16>) {{
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub2 = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    func.call @w(%src, %ub) : (memref<128xui16>, {_UB}) -> ()
    pto.mte_gm_ub %src, %ub2 : memref<128xui16>, {_UB}
    func.return
  }}
  func.func private @w(%x: memref<128xui16>, %u: {_UB}) {{
    pto.mte_ub_gm %u, %x : {_UB}, memref<128xui16>
    func.return
  }}
}}
"""
    assert read_only_gm(parse(text)) == frozenset()
    kind, message = _run_all_ways(text, monkeypatch)
    assert kind == "race"
    assert message.startswith(
        f"race on bytes [0, 256) of GM buffer %src: 'pto.mte_gm_ub' at "
        f"k.mlir:{line_of(text, 'pto.mte_gm_ub %src, %ub2')}:5 (pipe mte2) reads them, "
        f"'pto.mte_ub_gm' at k.mlir:{line_of(text, 'pto.mte_ub_gm')}:5 (pipe mte3) writes them")


# V waits for a flag the scalar unit sets only later in program order, so GatherMask is queued
# when it is issued and %kept is a placeholder until V runs. Two scalar ops read %kept after the
# v -> s flag: the first takes the value from the op's event, the second from the interpreter.
_QUEUED_COUNT = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: memref<128xui16>) -> (index, index) {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub_dst = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> v, 0
    pto.wait_flag mte2 -> v, 0
    pto.wait_flag s -> v, 0
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_UB}, {_UB}
    pto.set_flag s -> v, 0
    pto.set_flag v -> s, 0
    pto.wait_flag v -> s, 0
    %first = arith.addi %kept, %zero : index
    %second = arith.addi %kept, %one : index
    func.return %first, %second : index, index
  }}
}}
"""


@pytest.mark.parametrize("fast", [True, False], ids=["fast path", "scheduler path"])
def test_every_scalar_read_of_a_queued_pipe_result_gets_its_value(fast, monkeypatch):
    monkeypatch.setattr(IssueSeam, "fast", fast)
    src = np.arange(128, dtype=np.uint16)
    plain = run_module(parse(_QUEUED_COUNT), inputs={"src": src}).results
    checked = run_module(parse(_QUEUED_COUNT), inputs={"src": src}, sync_check=True).results
    assert checked == plain == (64, 65)  # pattern 2 keeps every other element


# GatherMask (a pipe op with a result, run at once on the fast path) writes %ub_dst, which MTE3
# then stores: W orders the store after it.
_COUNT_STORED = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: memref<128xui16>, %out: memref<128xui16>) {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub_dst = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> v, 0
    pto.wait_flag mte2 -> v, 0
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_UB}, {_UB}
    pto.set_flag v -> mte3, 0 // W
    pto.wait_flag v -> mte3, 0 // W
    pto.mte_ub_gm %ub_dst, %out : {_UB}, memref<128xui16>
    func.return
  }}
}}
"""


def test_a_race_report_gives_each_op_its_issue_number_on_every_path(monkeypatch):
    """`Event.seq` is the scalar unit's issue order: the events of a report carry the same
    numbers whichever path issued the ops, and the earlier op the smaller one."""
    inputs = {"src": np.arange(128, dtype=np.uint16), "out": np.zeros(128, np.uint16)}
    assert run_module(parse(_COUNT_STORED), inputs=inputs, sync_check=True).results == (), \
        "clean with the flag"
    text = without(_COUNT_STORED, "W")
    reports = []
    for fast in (True, False):
        monkeypatch.setattr(IssueSeam, "fast", fast)
        with pytest.raises(SyncError, match=r"race on ub bytes") as info:
            run_module(parse(text), inputs=inputs, sync_check=True)
        reports.append([(ev.op.name, ev.seq) for ev in info.value.events])
    assert reports[0] == reports[1]
    (second, second_seq), (first, first_seq) = reports[0]
    assert (second, first) == ("pto.mte_ub_gm", "pto.gather_mask") and first_seq < second_seq
    assert second_seq - first_seq == 1  # nothing is issued between them
