"""A `wait_flag X -> s` stalls the scalar unit until X's matching set has fired; the scalar unit
issues every instruction of every pipe, so an instruction issued after the wait starts after
every instruction of X before that set (docs/pipes.md, "The scalar unit's stalls"). A move
issued after such a wait is therefore ordered after the work the wait waited for (no false
race), while work of X after the set stays unordered (a real race is still found)."""

from __future__ import annotations

import numpy as np
import pytest
from sync_testing import line_of, parse

from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module

_UB = "!pto.tile<ub, 128xi32, nd>"
_GM = "memref<128xi32>"


def _kernel(body: str) -> str:
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: {_GM}, %dst: {_GM}) {{
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
{body}    func.return
  }}
}}
"""


LOAD = f"    pto.mte_gm_ub %src, %ub : {_GM}, {_UB}\n"
STORE = f"    pto.mte_ub_gm %ub, %dst : {_UB}, {_GM}\n"
WAIT_S = "    pto.set_flag mte2 -> s, 0\n    pto.wait_flag mte2 -> s, 0\n"


def _inputs() -> dict:
    return {"src": np.arange(128, dtype=np.int32), "dst": np.zeros(128, np.int32)}


@pytest.mark.parametrize("stall", [WAIT_S, "    pto.pipe_barrier all\n"])
def test_a_store_issued_after_the_scalar_unit_stalled_is_ordered_after_the_load(stall):
    out = run_module(parse(_kernel(LOAD + stall + STORE)), inputs=_inputs(), sync_check=True)
    assert np.array_equal(out.outputs["dst"], _inputs()["src"])


def test_work_of_the_pipe_issued_after_the_stall_still_races():
    # the second load (mte2) writes %ub while the store (mte3) may still read it: a real race
    text = _kernel(LOAD + WAIT_S + STORE + LOAD)
    with pytest.raises(SyncError, match=r"'pto.mte_gm_ub' at k.mlir:8:5 \(pipe mte2\) writes "
                       r"them, 'pto.mte_ub_gm' at k.mlir:7:5 \(pipe mte3\) reads them"):
        run_module(parse(text), inputs=_inputs(), sync_check=True)


def test_a_load_after_the_set_is_not_ordered_by_the_wait():
    # the set fires after the first load only: the second load (issued before the wait, after
    # the set) still races with the store issued after the wait
    text = _kernel(LOAD + "    pto.set_flag mte2 -> s, 0\n    pto.pipe_barrier mte2\n" + LOAD
                   + "    pto.wait_flag mte2 -> s, 0\n" + STORE)
    at = line_of(text, "pto.mte_ub_gm")
    with pytest.raises(SyncError, match=rf"k.mlir:{at}:5 \(pipe mte3\) reads them, "
                       r"'pto.mte_gm_ub' at k.mlir:7:5 \(pipe mte2\) writes them") as info:
        run_module(parse(text), inputs=_inputs(), sync_check=True)
    assert info.value.kind == "race"


def test_a_scalar_store_before_the_wait_still_needs_its_own_flag():
    # the stall orders pipe work before later issues, not the scalar unit's own GM writes
    text = _kernel("    %c3 = arith.constant 3 : index\n    %v = arith.constant 7 : i32\n"
                   "    memref.store %v, %src[%c3] : memref<128xi32>\n" + "    pto.set_flag "
                   "mte3 -> s, 0\n    pto.wait_flag mte3 -> s, 0\n" + LOAD + WAIT_S)
    with pytest.raises(SyncError, match=r"'pto.mte_gm_ub' at k.mlir:\d+:5 \(pipe mte2\) reads "
                       r"them, 'memref.store'"):
        run_module(parse(text), inputs=_inputs(), sync_check=True)
