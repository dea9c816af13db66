"""Edges of the concurrency checkers that the engine's own tests leave open (issue 18): how a
strided access is described, which memories two cores share, how GM buffers are named."""

from __future__ import annotations

import pytest

from mmair.dialects.pto.access import Access
from mmair.executor.engine.events import Event, SyncError
from mmair.executor.engine.scheduler import Scheduler
from mmair.isa.ascend.pipes import Pipe


def test_strided_access_is_described_row_by_row() -> None:
    # 4 rows of 8 bytes every 16: the hull is [0, 3*16 + 8) = [0, 56)
    assert Access("gm", 0, 8, 4, 16).describe() == "[0, 56) as 4 rows of 8 bytes every 16 bytes"
    # rows that touch (stride = width) are one contiguous range
    assert Access("gm", 0, 8, 4, 8).describe() == "[0, 32)"
    assert Access("l1", 64, 32).describe() == "[64, 96)"


# ------------------------------------------------------------------------------------------------
# Happens-before: which memories are shared, and how GM buffers are named
# ------------------------------------------------------------------------------------------------


def _write(seq: int, core: int, pipe: Pipe, access: Access) -> Event:
    return Event(seq, core, pipe, None, f"w{seq}", [access], ())


def test_local_memories_are_per_core_gm_is_shared() -> None:
    l1 = Access("l1", 0, 64, write=True, buffer="%t")
    sched = Scheduler(cores=2)
    sched.issue(_write(1, 0, Pipe.MTE2, l1))
    sched.issue(_write(2, 1, Pipe.MTE1, l1))  # core 1's L1 is another memory: no race
    sched.finish()
    gm = Access("gm", 0, 64, write=True, buffer="%g", memory="g")
    sched = Scheduler(cores=2)
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %g"):
        sched.issue(_write(2, 1, Pipe.MTE3, gm))
        sched.finish()
    sched = Scheduler(cores=1)
    sched.issue(_write(1, 0, Pipe.MTE2, l1))
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 64\) \(%t\): w2 \(pipe mte1\) writes them"):
        sched.issue(_write(2, 0, Pipe.MTE1, l1))
        sched.finish()


def test_gm_buffers_are_named_from_gm_names_or_generically() -> None:
    gm = Access("gm", 0, 64, write=True, memory="a")  # no buffer name of its own
    sched = Scheduler(gm_names={"a": "%A"})
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %A: "):
        sched.issue(_write(2, 0, Pipe.MTE3, gm))
        sched.finish()
    sched = Scheduler()
    sched.issue(_write(1, 0, Pipe.FIX, gm))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer gm buffer: "):
        sched.issue(_write(2, 0, Pipe.MTE3, gm))
        sched.finish()


# ------------------------------------------------------------------------------------------------
# Run time: an event id held in a register is range-checked when the flag is issued
# ------------------------------------------------------------------------------------------------

_FLAG_KERNEL = """func.func @k(%ev: index) {
  pto.set_flag mte2 -> mte1, %ev
  pto.wait_flag mte2 -> mte1, %ev
  func.return
}
"""


@pytest.mark.parametrize("event_id", [-1, 8, 99])
def test_runtime_event_id_out_of_range(event_id: int) -> None:
    from xdsl.context import Context

    from mmair.dialects import get_all_dialects
    from mmair.executor.runner import run_module
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, _FLAG_KERNEL, "flags.mlir").parse_module()
    # a2: 8 event ids per pipe pair (0..7)
    run_module(module, inputs={"ev": 7}, sync_check=True)  # the last legal id runs
    with pytest.raises(SyncError, match=rf"event id {event_id} of mte2 -> mte1 is out of range at "
                                        r"run time: target a2 has event ids 0\.\.7 per pipe pair"):
        run_module(module, inputs={"ev": event_id}, sync_check=True)


# ------------------------------------------------------------------------------------------------
# Static (whole-buffer) footprints
# ------------------------------------------------------------------------------------------------


def test_static_access_of_a_view_covers_its_root_and_names_block_arguments() -> None:
    from xdsl.dialects.builtin import MemRefType, f16
    from xdsl.ir import Block

    from mmair.dialects import pto
    from mmair.dialects.pto.gm_access import static_access

    big = pto.AllocOp(pto.TileType("l1", (32, 32), f16, "nz"))
    view = pto.ReinterpretOp(big.buffer, pto.TileType("l1", (16, 16), f16, "nz"))
    Block([big, view])
    access = static_access(view.result, write=False)
    assert (access.space, access.start, access.width) == ("l1", 0, 32 * 32 * 2)  # the root's bytes
    block = Block(arg_types=[MemRefType(f16, [4, 8])])
    gm = static_access(block.args[0], write=True)
    assert (gm.space, gm.width, gm.buffer, gm.write) == ("gm", 4 * 8 * 2, "%arg0", True)


# ------------------------------------------------------------------------------------------------
# One op at a time: `MmairInterpreter.run_op` (xDSL's Interpreter API) goes through the seam too
# ------------------------------------------------------------------------------------------------

_RUN_OP_L1 = "!pto.tile<l1, 16x16xf16, nz>"
_RUN_OP_L0A = "!pto.tile<l0a, 16x16xf16, zz>"
_RUN_OP_KERNEL = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>) {{
    %n = arith.constant 16 : index
    %a_l1 = pto.alloc {{offset = 0 : i64}} : {_RUN_OP_L1}
    %a_l0a = pto.alloc {{offset = 0 : i64}} : {_RUN_OP_L0A}
    pto.mte_gm_l1 %a, %a_l1, %n, %n : memref<16x16xf16>, {_RUN_OP_L1} // load
    pto.mte_l1_l0a %a_l1, %a_l0a, %n, %n : {_RUN_OP_L1}, {_RUN_OP_L0A} // move
    func.return
  }}
}}
"""


def test_ops_run_one_at_a_time_through_run_op_are_checked_like_a_run() -> None:
    # The move reads %a_l1 while the load may still write it (no flag MTE2 -> MTE1): run_op,
    # op by op, reports the race run_module reports for the whole kernel.
    import numpy as np
    from sync_testing import line_of, parse

    from mmair.executor.engine.seam import IssueSeam
    from mmair.executor.runner import make_interpreter, run_module
    from mmair.tools.diagnostics import op_location

    with pytest.raises(SyncError, match="race on l1 bytes") as whole:
        run_module(parse(_RUN_OP_KERNEL), sync_check=True)
    module = parse(_RUN_OP_KERNEL)
    interp, memory = make_interpreter(module, "a2")
    seam = interp.seam = IssueSeam(memory.target, {})
    body = next(iter(module.body.block.ops)).body.block
    values = {body.args[0]: np.zeros((16, 16), np.float16)}
    with pytest.raises(SyncError, match="race on l1 bytes") as single:
        for op in list(body.ops)[:-1]:  # up to func.return
            results = interp.run_op(op, tuple(values[v] for v in op.operands))
            values.update(zip(op.results, results, strict=True))
        seam.finish()
    assert single.value.kind == whole.value.kind == "race"
    assert single.value.message == whole.value.message
    assert op_location(single.value.op)[1] == line_of(_RUN_OP_KERNEL, "// move")
    assert interp.op_counts["pto.mte_l1_l0a"] == 1
