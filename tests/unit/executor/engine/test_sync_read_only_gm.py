"""GM buffers that no op of the kernel writes (`runner.read_only_gm`): a race needs a write, so
the checker leaves their reads out of its footprints (`IssueSeam.read_only`, docs/benchmarks.md
"Seventh session"). A buffer some op writes, directly or through a view, keeps every read; a
kernel whose writes the analysis cannot follow (a cast, a call, a scalar store) keeps them all."""

from __future__ import annotations

import numpy as np
import pytest
from sync_testing import line_of, parse

from mmair.dialects import pto
from mmair.dialects.pto import footprint, gm_access
from mmair.executor.engine.events import SyncError
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.runner import read_only_gm, run_module

_UB = "!pto.tile<ub, 128xui16, nd>"

# MTE2 reads %src into UB, MTE3 writes UB back to %TARGET (ordered by the flag); TAIL: more ops.
KERNEL = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: memref<128xui16>, %dst: memref<128xui16>) {{
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub2 = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %TARGET : {_UB}, memref<128xui16>
TAIL    func.return
  }}
}}
"""


def _kernel(target: str = "dst", tail: str = "") -> str:
    return KERNEL.replace("TARGET", target).replace("TAIL", tail)


def _args(module) -> dict:
    fn = next(op for op in module.walk() if op.name == "func.func")
    return {arg.name_hint: arg for arg in fn.body.blocks.first.args}


def _inputs() -> dict:
    return {"src": np.arange(128, dtype=np.uint16), "dst": np.zeros(128, np.uint16)}


def test_a_buffer_only_read_is_read_only_and_the_written_one_is_not():
    module = parse(_kernel())
    assert read_only_gm(module) == {_args(module)["src"]}


def test_a_write_through_a_view_makes_the_viewed_buffer_written():
    tail = (f"    %w = memref.subview %src[0] [128] [1] : memref<128xui16> to memref<128xui16>\n"
            f"    pto.set_flag mte3 -> mte2, 0\n    pto.wait_flag mte3 -> mte2, 0\n"
            f"    pto.mte_ub_gm %ub, %w : {_UB}, memref<128xui16>\n")
    module = parse(_kernel(tail=tail))
    assert read_only_gm(module) == frozenset()


@pytest.mark.parametrize("tail", [
    # a scalar store through a cast of an argument
    "    %i = arith.constant 0 : index\n    %v = memref.load %src[%i] : memref<128xui16>\n"
    '    %w = "memref.cast"(%src) : (memref<128xui16>) -> memref<?xui16>\n'
    "    memref.store %v, %w[%i] : memref<?xui16>\n",
    # a write through a cast: the footprint's root is the cast, not an argument
    '    %w = "memref.cast"(%dst) : (memref<128xui16>) -> memref<?xui16>\n'
    '    %wc = "memref.cast"(%w) : (memref<?xui16>) -> memref<128xui16>\n'
    f"    pto.set_flag mte3 -> mte2, 0\n    pto.wait_flag mte3 -> mte2, 0\n"
    f"    pto.mte_ub_gm %ub, %wc : {_UB}, memref<128xui16>\n",
])
def test_writes_the_analysis_cannot_follow_leave_no_buffer_read_only(tail):
    module = parse(_kernel(tail=tail))
    assert read_only_gm(module) == frozenset()
    assert gm_access.gm_written_roots(module) is None


def test_a_scalar_store_makes_its_buffer_written():
    """A scalar `memref.store` is an S-pipe write with a footprint: its buffer is not read-only
    (and a store into an allocation leaves the arguments' rule alone)."""
    store_src = ("    %i = arith.constant 0 : index\n    %v = memref.load %src[%i] : memref<128xui16>\n"
                 "    memref.store %v, %src[%i] : memref<128xui16>\n")
    module = parse(_kernel(tail=store_src))
    assert read_only_gm(module) == frozenset()
    assert gm_access.gm_written_roots(module) == set(_args(module).values())
    store_alloc = ("    %i = arith.constant 0 : index\n    %v = arith.constant 1 : i32\n"
                   "    %m = memref.alloc() : memref<4xi32>\n"
                   "    memref.store %v, %m[%i] : memref<4xi32>\n")
    module = parse(_kernel(tail=store_alloc))
    assert read_only_gm(module) == {_args(module)["src"]}


def test_a_scalar_store_into_a_buffer_mte2_still_reads_is_a_race():
    """The store comes after the MTE2 read of %src in program order, without a wait_flag
    mte2 -> s: the read of %src must be recorded (not left out as read-only) to find it."""
    tail = ("    %i = arith.constant 5 : index\n    %j = arith.constant 7 : index\n"
            "    %v = memref.load %src[%j] : memref<128xui16>\n    memref.store %v, %src[%i] : memref<128xui16>\n")
    text = _kernel(tail=tail)
    with pytest.raises(SyncError, match=r"'memref.store' op race on bytes \[10, 12\) of GM "
                       r"buffer %src: 'memref.store' at .*:(\d+):5 \(pipe s\) writes them, "
                       r"'pto.mte_gm_ub' at .*:5:5 \(pipe mte2\) reads them") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    assert info.value.kind == "race"
    ordered = text.replace("    memref.store", "    pto.set_flag mte2 -> s, 1\n"
                           "    pto.wait_flag mte2 -> s, 1\n    memref.store")
    result = run_module(parse(ordered), inputs=_inputs(), sync_check=True)
    assert result.outputs["src"][5] == 7 and result.outputs["dst"][5] == 5


def test_a_call_leaves_no_buffer_read_only():
    """The callee's argument may be the caller's buffer."""
    text = _kernel().replace("    func.return\n  }\n}", f"""    func.call @w(%src) : (memref<128xui16>) -> ()
    func.return
  }}
  func.func @w(%x: memref<128xui16>) {{
    %u = pto.alloc {{offset = 512 : i64}} : {_UB}
    pto.mte_ub_gm %u, %x : {_UB}, memref<128xui16>
    func.return
  }}
}}""")
    assert read_only_gm(parse(text)) == frozenset()


def test_the_checker_records_no_read_of_a_read_only_buffer(monkeypatch):
    module = parse(_kernel())
    seen = []
    real = HappensBefore.execute_item
    monkeypatch.setattr(HappensBefore, "execute_item",
                        lambda hb, item: seen.append(item[1].footprint.accesses(item[2]))
                        or real(hb, item))
    result = run_module(module, inputs=_inputs(), sync_check=True)
    assert np.array_equal(result.outputs["dst"], _inputs()["src"])
    load, store = seen
    assert [(a.space, a.write) for a in load] == [("ub", True)]  # the %src read is left out
    assert [(a.space, a.write) for a in store] == [("ub", False), ("gm", True)]


def test_footprint_leaves_out_only_the_unread_reads():
    module = parse(_kernel())
    load = next(op for op in module.walk() if isinstance(op, pto.MteGmUbOp))
    assert [a.space for a in footprint.Footprint(load).accesses(None)] == ["gm", "ub"]
    assert [a.space for a in footprint.Footprint(load, frozenset({0})).accesses(None)] == ["ub"]
    assert [a.space for a in footprint.Footprint(load, frozenset({1})).accesses(None)] == \
        ["gm", "ub"]  # a written operand keeps its write


@pytest.mark.parametrize("fast", [True, False])
def test_a_read_of_a_buffer_written_later_races_with_the_write(monkeypatch, fast):
    """MTE2 reads %src again after MTE3 wrote it, with no flag from MTE3: %src is written, so
    its reads are checked (on the fast path and on the Event path)."""
    from mmair.executor.engine.seam import IssueSeam

    monkeypatch.setattr(IssueSeam, "fast", fast)
    tail = f"    pto.mte_gm_ub %src, %ub2 : memref<128xui16>, {_UB}\n"
    text = _kernel(target="src", tail=tail)
    with pytest.raises(SyncError, match=r"race on bytes \[0, 256\) of GM buffer %src") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    store, load = line_of(text, "pto.mte_ub_gm"), text.splitlines().index(tail.rstrip("\n")) + 1
    assert info.value.message.startswith(
        f"race on bytes [0, 256) of GM buffer %src: 'pto.mte_gm_ub' at k.mlir:{load}:5 (pipe "
        f"mte2) reads them, 'pto.mte_ub_gm' at k.mlir:{store}:5 (pipe mte3) writes them")


def _kernel_cases() -> list:
    from pto_testing import HAND_WRITTEN, LOWERED, _kernels

    return [*((n, -1) for n in [*HAND_WRITTEN, *LOWERED]), *_kernels()]


@pytest.mark.parametrize("name, index", _kernel_cases())
def test_leaving_out_the_read_only_reads_changes_no_outcome(monkeypatch, name, index):
    """Every example and lowered kernel (all of them read GM inputs that nothing writes),
    intact and minus each wait_flag / pipe_barrier: the same outputs and op counts, or the same
    diagnostic, with the rule and without it (every read recorded)."""
    from pto_testing import _build, _outcome

    from mmair.executor import runner

    assert runner.read_only_gm(_build(name))  # the rule applies
    with_rule = _outcome(name, index)
    monkeypatch.setattr(runner, "read_only_gm", lambda module: frozenset())
    assert _outcome(name, index) == with_rule
