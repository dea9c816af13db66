"""Scalar `memref.load` / `memref.store` of GM are events of the sync checker (pipe S, one
element's bytes): a load of bytes a pipe writes needs a `wait_flag <pipe> -> s` after that op, a
store into bytes a pipe reads or writes needs the same before it, and a pipe op that reads or
writes a stored element needs a `set_flag s -> <pipe>` / `wait_flag s -> <pipe>` after the
store (issue order does not make the scalar write visible to a pipe). `pto-insert-sync` finds
the same dependencies from the same events (docs/pipes.md, docs/insert-sync.md)."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from sync_testing import line_of, parse
from xdsl.dialects import memref

from mmair.executor import runner
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module
from mmair.passes.pto_insert_sync import insert_sync_functions

_UB = "!pto.tile<ub, 128xi32, nd>"
_GM = "memref<128xi32>"


def _kernel(body: str, results: str = "") -> str:
    ret = f" -> {results}" if results else ""
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: {_GM}, %dst: {_GM}){ret} {{
    %c3 = arith.constant 3 : index
    %v = arith.constant 77 : i32
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
{body}  }}
}}
"""


LOAD_IN = f"    pto.mte_gm_ub %src, %ub : {_GM}, {_UB}\n"
COPY_OUT = (f"    pto.set_flag mte2 -> mte3, 0\n    pto.wait_flag mte2 -> mte3, 0\n"
            f"    pto.mte_ub_gm %ub, %dst : {_UB}, {_GM}\n")

# MTE3 writes %dst, then the scalar unit reads %dst[3] (a GetValue of the result)
READ_RESULT = _kernel(LOAD_IN + COPY_OUT + "    %r = memref.load %dst[%c3] : memref<128xi32>\n"
                      "    func.return %r : i32\n", "i32")
# MTE2 reads %src, then the scalar unit overwrites %src[3] (the read may not have happened yet)
STORE_UNDER_READ = _kernel(LOAD_IN + "    memref.store %v, %src[%c3] : memref<128xi32>\n"
                           + COPY_OUT + "    func.return\n")
# the scalar unit writes %src[3], then MTE2 reads %src (the write may not be visible yet)
STORE_THEN_READ = _kernel("    memref.store %v, %src[%c3] : memref<128xi32>\n" + LOAD_IN
                          + COPY_OUT + "    func.return\n")

# (kernel, the reported op, its pipe and what it does, the other op, its pipe and what it does,
#  the flag that orders them: set after `after`, waited before `before`)
CASES = {
    "pipe write -> scalar load": (READ_RESULT, "memref.load", "s", "reads", "pto.mte_ub_gm",
                                  "mte3", "writes", "mte3 -> s", "pto.mte_ub_gm",
                                  "%r = memref.load"),
    "pipe read -> scalar store": (STORE_UNDER_READ, "memref.store", "s", "writes",
                                  "pto.mte_gm_ub", "mte2", "reads", "mte2 -> s", "pto.mte_gm_ub",
                                  "memref.store"),
    "scalar store -> pipe read": (STORE_THEN_READ, "pto.mte_gm_ub", "mte2", "reads",
                                  "memref.store", "s", "writes", "s -> mte2", "memref.store",
                                  "pto.mte_gm_ub"),
}


def _inputs() -> dict:
    return {"src": np.arange(128, dtype=np.int32), "dst": np.zeros(128, np.int32)}


def _with_flag(text: str, flag: str, after: str, before: str) -> str:
    lines = text.splitlines(keepends=True)
    a, b = line_of(text, after) - 1, line_of(text, before) - 1
    lines[a] += f"    pto.set_flag {flag}, 1\n"
    lines[b] = f"    pto.wait_flag {flag}, 1\n" + lines[b]
    return "".join(lines)


@pytest.mark.parametrize("case", CASES)
def test_an_unordered_scalar_access_is_a_race_naming_both_ops(case):
    text, op, pipe, verb, other, other_pipe, other_verb = CASES[case][:7]
    at, there = line_of(text, f"{op} "), line_of(text, f"{other} ")
    where = "%dst" if op == "memref.load" else "%src"
    with pytest.raises(SyncError, match=(
            rf"race on bytes \[12, 16\) of GM buffer {where}: '{op}' at k.mlir:{at}:5 \(pipe "
            rf"{pipe}\) {verb} them, '{other}' at k.mlir:{there}:5 \(pipe {other_pipe}\) "
            rf"{other_verb} them; no set_flag/wait_flag chain")) as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    assert info.value.kind == "race"
    assert info.value.op.name == op
    # the checker off runs it in program order, as before
    run_module(parse(text), inputs=_inputs(), sync_check=False)


@pytest.mark.parametrize("case", CASES)
def test_the_same_kernel_with_its_flag_runs_clean(case):
    text, flag, after, before = CASES[case][0], *CASES[case][7:]
    ordered = _with_flag(text, flag, after, before)
    checked = run_module(parse(ordered), inputs=_inputs(), sync_check=True)
    plain = run_module(parse(text), inputs=_inputs(), sync_check=False)
    for name in ("src", "dst"):
        assert np.array_equal(checked.outputs[name], plain.outputs[name])
    assert checked.results == plain.results


def test_the_values_follow_program_order():
    ordered = _with_flag(READ_RESULT, "mte3 -> s", "pto.mte_ub_gm", "%r = memref.load")
    assert run_module(parse(ordered), inputs=_inputs(), sync_check=True).results == (3,)
    ordered = _with_flag(STORE_THEN_READ, "s -> mte2", "memref.store", "pto.mte_gm_ub")
    out = run_module(parse(ordered), inputs=_inputs(), sync_check=True).outputs
    assert out["dst"][3] == 77 and out["dst"][4] == 4


@pytest.mark.parametrize("case", CASES)
def test_insert_sync_adds_the_flag_and_the_result_runs_clean(case):
    text, flag, after, before = CASES[case][0], *CASES[case][7:]
    module = parse(text)
    insert_sync_functions(module)
    printed = str(module)
    assert f"pto.set_flag {flag}, " in printed and f"pto.wait_flag {flag}, " in printed
    lines = printed.splitlines()
    set_at = next(i for i, x in enumerate(lines) if f"pto.set_flag {flag}" in x)
    wait_at = next(i for i, x in enumerate(lines) if f"pto.wait_flag {flag}" in x)
    assert after in lines[set_at - 1] and before in lines[wait_at + 1]
    checked = run_module(module, inputs=_inputs(), sync_check=True)
    plain = run_module(parse(text), inputs=_inputs(), sync_check=False)
    assert np.array_equal(checked.outputs["dst"], plain.outputs["dst"])


LOOP = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: {_GM}, %dst: {_GM}, %out: memref<4xi32>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    scf.for %i = %c0 to %c4 step %c1 {{
      %x = arith.index_cast %i : index to i32
      memref.store %x, %src[%i] : {_GM}
      pto.mte_gm_ub %src, %ub : {_GM}, {_UB}
      pto.mte_ub_gm %ub, %dst : {_UB}, {_GM}
      %r = memref.load %dst[%i] : {_GM}
      %s = arith.addi %r, %x : i32
      memref.store %s, %out[%i] : memref<4xi32>
    }}
    func.return
  }}
}}
"""


def test_insert_sync_orders_scalar_accesses_in_a_loop():
    """Each iteration stores into %src (S), copies it through UB (MTE2, MTE3) and reads the
    copy back (S): S -> MTE2, MTE2 -> MTE3, MTE3 -> S in the iteration, and the next
    iteration's store after this one's MTE2 read (carried)."""
    with pytest.raises(SyncError, match="race"):
        run_module(parse(LOOP), inputs=_inputs(), sync_check=True)
    module = parse(LOOP)
    insert_sync_functions(module)
    printed = str(module)
    for flag in ("s -> mte2", "mte2 -> mte3", "mte3 -> s"):
        assert f"pto.wait_flag {flag}" in printed
    checked = run_module(module, inputs=_inputs(), sync_check=True)
    plain = run_module(parse(LOOP), inputs=_inputs(), sync_check=False)
    for name in ("src", "dst", "out"):
        assert np.array_equal(checked.outputs[name], plain.outputs[name])
    assert list(checked.outputs["out"]) == [0, 2, 4, 6]


def test_a_race_in_a_loop_names_the_iteration():
    text = LOOP.replace("      %r = memref.load", "      pto.set_flag mte3 -> s, 0\n"
                        "      pto.wait_flag mte3 -> s, 0\n      %r = memref.load")
    # the next iteration's store into %src is not ordered after this iteration's MTE2 read
    with pytest.raises(SyncError, match=(
            r"'pto.mte_gm_ub' at k.mlir:10:7 \(pipe mte2, iteration %i = 0\)|"
            r"'memref.store' at k.mlir:9:7 \(pipe s, iteration %i = 1\)")):
        run_module(parse(text), inputs=_inputs(), sync_check=True)


def test_insert_sync_orders_a_scalar_copy_over_what_mte2_still_reads():
    text = _kernel(LOAD_IN + '    "memref.copy"(%dst, %src) : (memref<128xi32>, memref<128xi32>) -> ()\n'
                   + "    func.return\n")
    with pytest.raises(SyncError, match=r"'memref.copy' at k.mlir:\d+:5 \(pipe s\) writes them"):
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    module = parse(text)
    insert_sync_functions(module)
    assert "pto.wait_flag mte2 -> s" in str(module)
    out = run_module(module, inputs=_inputs(), sync_check=True).outputs
    assert not out["src"].any()  # %dst (zeros) copied over %src


POOL_LOAD = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<64xf16>, %c: memref<64xf16>) -> f16 {
    %i = pto.block_idx
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
    func.return %q : f16
  }
}
"""
"""Every block reads %c[0], which block 0 writes, with no pto.sync_all: a cross-core race."""


def test_a_scalar_load_is_in_the_pool_logs_with_the_checker_off():
    """With the checker off a pool worker logs its blocks' GM accesses through `CoverageSeam`:
    block 1's scalar read of block 0's bytes overlaps, so the launch goes back to the
    deterministic in-process run (it stayed on the pool before)."""
    from multicore_testing import pooled

    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16)}
    assert pooled(parse(POOL_LOAD), data, 2, 2, False) is None
    alone = run_module(parse(POOL_LOAD), inputs=data, blocks=2)
    pool = run_module(parse(POOL_LOAD), inputs=data, blocks=2, jobs=2)
    assert alone.results == pool.results
    assert np.array_equal(alone.outputs["c"], pool.outputs["c"])


def test_coverage_counts_a_scalar_store_as_written():
    text = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%out: memref<4xi32>) {
    %c1 = arith.constant 1 : index
    %x = arith.constant 5 : i32
    memref.store %x, %out[%c1] : memref<4xi32>
    func.return
  }
}
"""
    for check in (True, False):
        result = run_module(parse(text), sync_check=check, coverage=("out",))
        assert result.unwritten["out"] == [(0, 4), (8, 16)]


def test_a_run_leaves_no_reference_cycle_holding_its_gm_views(monkeypatch):
    """The interpreter's block plans hold the seam's steps (closures over the interpreter) and
    the seam's handlers are its bound methods: `run_module` breaks these cycles when the kernel
    ends, so a GM view made by the kernel dies with the run, without a garbage collection."""
    text = _with_flag(READ_RESULT, "mte3 -> s", "pto.mte_ub_gm", "%r = memref.load").replace(
        "pto.mte_ub_gm %ub, %dst", "pto.mte_ub_gm %ub, %w").replace(
        "    %ub = pto.alloc",
        "    %w = memref.subview %dst[0] [128] [1] : memref<128xi32> to memref<128xi32>\n"
        "    %ub = pto.alloc")
    module = parse(text)
    made: list[weakref.ref] = []
    real = runner.make_interpreter

    def make(*args, **kwargs):
        interp, memory = real(*args, **kwargs)
        made.append(weakref.ref(interp))
        ft, fn = interp._impls._impl_dict[memref.SubviewOp]

        def subview(ft_, interp_, op, values):
            out = fn(ft_, interp_, op, values)
            made.append(weakref.ref(out[0][0]))
            return out
        interp._impls._impl_dict[memref.SubviewOp] = (ft, subview)
        return interp, memory

    monkeypatch.setattr(runner, "make_interpreter", make)
    for options in ({"sync_check": True}, {"sync_check": True, "jobs": 2}, {"timing": True},
                    {"sync_check": False}):
        made.clear()
        gc.collect()
        gc.disable()
        try:
            result = run_module(module, inputs=_inputs(), **options)
            assert len(made) == 2
            assert [ref() for ref in made] == [None, None], options
        finally:
            gc.enable()
        assert result.results == (3,)
