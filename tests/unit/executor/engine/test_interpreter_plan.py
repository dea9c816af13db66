"""The interpreter decodes each block once (`MmairInterpreter._plan`, issue 13): ops are counted,
budgeted and dispatched exactly as op-by-op (`_step`), with the checker on or off."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.interpreter import _values_function
from mmair.executor.runner import make_interpreter, run_module
from mmair.tools.opt import MmairOptMain

ROOT = Path(__file__).resolve().parents[4]


def _module(name: str):
    return Parser(MmairOptMain(args=[]).ctx, (ROOT / "examples" / name).read_text()).parse_module()


def test_xdsl_impl_wrappers_are_unwrapped_and_terminators_are_not() -> None:
    interp, _ = make_interpreter(_module("gemm_f16_128.mlir"), "a2")
    impls = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    functions, block_idx = impls[pto.BlockIdxOp]
    _, yield_ = impls[scf.YieldOp]
    direct = _values_function(block_idx)
    assert direct is not None and direct(functions, interp, None, ()) == (0,)  # values only
    assert block_idx(functions, interp, None, ()) == ((0,), None)  # the wrapper's result
    assert _values_function(yield_) is None  # returns (values, terminator): called as is


def test_op_counts_are_the_same_with_and_without_the_checker() -> None:
    module = _module("gemm_kloop_double_buffer.mlir")
    on = run_module(module, sync_check=True)
    off = run_module(module, sync_check=False)
    assert on.op_counts == off.op_counts
    assert off.op_counts["pto.set_flag"] > 0 and off.op_counts["pto.wait_flag"] > 0
    for name, value in on.outputs.items():
        np.testing.assert_array_equal(value, off.outputs[name])


@pytest.mark.parametrize("sync_check", [True, False])
def test_the_op_budget_ends_the_run_at_the_op_that_exceeds_it(sync_check: bool) -> None:
    module = _module("gemm_kloop_double_buffer.mlir")
    total = sum(run_module(module, sync_check=sync_check).op_counts.values())
    run_module(module, sync_check=sync_check, max_ops=total)  # exactly enough
    with pytest.raises(ExecutionError, match=f"execution exceeded {total - 1} operations"):
        run_module(module, sync_check=sync_check, max_ops=total - 1)


def test_every_op_budget_stops_at_its_op_and_counts_only_the_ops_that_ran() -> None:
    """Blocks are counted at once and budgeted per segment (up to the next op with regions):
    at every limit the run stops at the op that exceeds it, and the counts hold exactly the ops
    that ran, the faulting one included, as op by op."""
    module = _module("gemm_kloop_double_buffer.mlir")
    from mmair.executor.runner import find_entry, prepare_arguments

    entry = find_entry(module)
    total = sum(run_module(module).op_counts.values())
    for limit in range(0, total, max(1, total // 40)):
        interp, _ = make_interpreter(module, "a2", max_ops=limit)
        _, values = prepare_arguments(entry, {}, 0, None)
        with pytest.raises(ExecutionError, match=f"execution exceeded {limit} operations") as err:
            interp.call_op(entry, tuple(values))
        assert sum(interp.op_counts.values()) == limit + 1
        assert interp.op_counts[err.value.op.name] >= 1


def test_tile_sized_tcgen05_ops_take_their_weight_of_the_budget():
    # A runaway TMA + MMA ring stops in seconds under the default limit only if its heavy ops
    # count as the scalar ops their time is worth (interpreter.BUDGET_WEIGHTS).
    from mmair.executor.engine.interpreter import BUDGET_WEIGHTS, TCGEN05_WEIGHT, budget_weight

    assert budget_weight("tcgen05.mma") == BUDGET_WEIGHTS["tcgen05.mma"] == 128
    assert budget_weight("tcgen05.tma_load") == 128
    assert budget_weight("tcgen05.mbarrier_wait") == TCGEN05_WEIGHT == 8
    assert budget_weight("arith.addi") == budget_weight("pto.mad") == 1
