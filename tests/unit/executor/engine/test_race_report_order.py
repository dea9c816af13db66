"""When one access conflicts both with an earlier op of its own pipe and with an op of another
pipe, the checker reports the cross-pipe race: a `pipe_barrier` of its own pipe (what the
same-pipe message suggests) would not make the kernel correct, the missing flag would."""

from __future__ import annotations

import numpy as np
import pytest
from sync_testing import parse

from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module

_UB = "!pto.tile<ub, 128xi32, nd>"
_GM = "memref<128xi32>"
LOAD = f"    pto.mte_gm_ub %src, %ub : {_GM}, {_UB}\n"


def _kernel(between: str) -> str:
    # load (mte2, line 4), flag, store (mte3, line 7) reads it, `between`, load again (mte2)
    return f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: {_GM}, %dst: {_GM}) {{
    %ub = pto.alloc {{offset = 0 : i64}} : {_UB}
{LOAD}    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : {_UB}, {_GM}
{between}{LOAD}    func.return
  }}
}}
"""


def _inputs() -> dict:
    return {"src": np.arange(128, dtype=np.int32), "dst": np.zeros(128, np.int32)}


@pytest.mark.parametrize("timing", [False, True])  # the batched path and the Event path
def test_the_cross_pipe_race_is_reported_before_the_same_pipe_one(timing):
    with pytest.raises(SyncError, match=(
            r"race on ub bytes \[0, 512\) \(%ub\): 'pto.mte_gm_ub' at k.mlir:8:5 \(pipe mte2\) "
            r"writes them, 'pto.mte_ub_gm' at k.mlir:7:5 \(pipe mte3\) reads them; no "
            r"set_flag/wait_flag chain or pipe_barrier orders them")):
        run_module(parse(_kernel("")), inputs=_inputs(), sync_check=True,
                   timing=timing)


def test_the_barrier_the_same_pipe_hint_would_add_does_not_fix_it():
    with pytest.raises(SyncError, match=r"'pto.mte_ub_gm' at k.mlir:7:5 \(pipe mte3\) reads"):
        run_module(parse(_kernel("    pto.pipe_barrier mte2\n")), inputs=_inputs(),
                   sync_check=True)


def test_the_flag_the_cross_pipe_message_asks_for_fixes_both():
    # mte3 -> mte2 after the store: the chain load -> (mte2 -> mte3) -> store -> (mte3 -> mte2)
    # orders the second load after the first as well, so no barrier is needed
    flag = "    pto.set_flag mte3 -> mte2, 0\n    pto.wait_flag mte3 -> mte2, 0\n"
    out = run_module(parse(_kernel(flag)), inputs=_inputs(), sync_check=True)
    assert np.array_equal(out.outputs["dst"], _inputs()["src"])


def test_a_same_pipe_race_alone_names_the_barrier():
    lines = _kernel("").splitlines(keepends=True)
    del lines[4:7]  # no flag, no store: two mte2 writes of %ub
    with pytest.raises(SyncError, match=r"'pto.mte_gm_ub' at k.mlir:5:5 \(pipe mte2\) writes "
                       r"them, 'pto.mte_gm_ub' at k.mlir:4:5 \(pipe mte2\) writes them; no "
                       r"pipe_barrier\(mte2\) between them"):
        run_module(parse("".join(lines)), inputs=_inputs(), sync_check=True)
