"""The checker's cheap paths for the steady state of a loop (docs/benchmarks.md, "Sixth
session"): a result-less pipe op batched as an `events.OP` item instead of an Event, the same
footprint list for the same tiles (`footprint.Footprint`), the engine's records lookups kept with
the op's plan (`HappensBefore.execute_item`, `_places_of`), static set_flag / wait_flag ops stepped without operands
(`IssueSeam.op_step`) and the GM window address read without `__array_interface__`. A race that
only the second iteration of a loop has (the op's cached list and lookups in use) must be
reported exactly as the Event path reports it."""

from __future__ import annotations

import numpy as np
import pytest
from sync_testing import line_of, parse, without

from mmair.dialects import pto
from mmair.dialects.pto import access, footprint, gm_access
from mmair.executor.engine import hb as hb_module
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.events import SyncError
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.engine.memory import Memory
from mmair.executor.engine.seam import IssueSeam
from mmair.executor.runner import run_module

_A_L1 = "!pto.tile<l1, 128x256xf16, nz>"
_B_L1 = "!pto.tile<l1, 256x256xf16, zz>"
_A_L0 = "!pto.tile<l0a, 128x256xf16, zz>"
_B_L0 = "!pto.tile<l0b, 256x128xf16, zn>"
_C_L0 = "!pto.tile<l0c, 128x128xf32, nz>"

# Two mads over the columns of B; the lines marked B order each L0B load after the previous mad
# (and the previous load: pipe MTE1 needs that order between its own writes too).
LOOP = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<128x256xf16>, %b: memref<256x256xf16>) {{
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %a_l1 = pto.alloc {{offset = 131072 : i64}} : {_A_L1}
    %b_l1 = pto.alloc {{offset = 0 : i64}} : {_B_L1}
    %a_l0a = pto.alloc {{offset = 0 : i64}} : {_A_L0}
    %b_l0b = pto.alloc {{offset = 0 : i64}} : {_B_L0}
    %c_l0c = pto.alloc {{offset = 0 : i64}} : {_C_L0}
    pto.mte_gm_l1 %a, %a_l1, %c128, %c256 : memref<128x256xf16>, {_A_L1}
    pto.mte_gm_l1 %b, %b_l1, %c256, %c256 : memref<256x256xf16>, {_B_L1}
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a_l1, %a_l0a, %c128, %c256 : {_A_L1}, {_A_L0}
    pto.set_flag m -> mte1, 0 // B
    scf.for %j = %c0 to %c256 step %c128 {{
      pto.wait_flag m -> mte1, 0 // B
      pto.mte_l1_l0b %b_l1[%c0, %j], %b_l0b, %c256, %c128 : {_B_L1}, {_B_L0}
      pto.set_flag mte1 -> m, 0
      pto.wait_flag mte1 -> m, 0
      pto.mad %a_l0a, %b_l0b, %c_l0c, %c128, %c128, %c256 : {_A_L0}, {_B_L0}, {_C_L0}
      pto.set_flag m -> mte1, 0 // B
    }}
    pto.wait_flag m -> mte1, 0 // B
    func.return
  }}
}}
"""


def _inputs() -> dict:
    rng = np.random.default_rng(0)
    return {"a": rng.standard_normal((128, 256)).astype(np.float16),
            "b": rng.standard_normal((256, 256)).astype(np.float16)}


def _outcome(text: str, fast: bool, monkeypatch) -> tuple:
    monkeypatch.setattr(IssueSeam, "fast", fast)
    items = []
    real = HappensBefore.execute_item
    monkeypatch.setattr(HappensBefore, "execute_item", lambda *a: items.append(a) or real(*a))
    try:
        result = run_module(parse(text), inputs=_inputs(), sync_check=True)
    except SyncError as err:  # the diagnostic is the outcome to compare
        outcome = (err.kind, err.message, [(ev.seq, ev.kind, ev.epoch) for ev in err.events])
    else:
        outcome = ("clean", dict(result.op_counts))
    return outcome, items


def test_the_loop_runs_clean_both_ways(monkeypatch):
    fast, items = _outcome(LOOP, True, monkeypatch)
    assert fast[0] == "clean" and len(items) == 2 + 1 + 2 * 2  # every pipe op as an OP item
    assert _outcome(LOOP, False, monkeypatch) == (fast, [])


def test_a_race_of_the_second_iteration_is_found_through_the_cached_lookups(monkeypatch):
    text = without(LOOP, "B")
    fast, items = _outcome(text, True, monkeypatch)
    assert items  # the OP items ran
    assert _outcome(text, False, monkeypatch)[0] == fast  # the Event path: the same report
    kind, message, _ = fast
    line, mad = line_of(text, "pto.mte_l1_l0b"), line_of(text, "pto.mad ")
    assert kind == "race"
    # the move of iteration 128 conflicts with the move and the mad of iteration 0: the
    # cross-pipe race is the one reported (test_race_report_order.py)
    assert message.startswith(
        f"race on l0b bytes [0, 65536) (%b_l0b): 'pto.mte_l1_l0b' at k.mlir:{line}:7 (pipe mte1, "
        f"iteration %j = 128) writes them, 'pto.mad' at k.mlir:{mad}:7 (pipe m, "
        f"iteration %j = 0) reads them; no set_flag/wait_flag chain or pipe_barrier orders them")


def test_a_footprint_list_is_reused_only_for_the_same_tiles():
    module = parse(LOOP)
    move = next(op for op in module.walk() if isinstance(op, pto.MteL1L0AOp))
    memory = Memory("a2")
    a_l1 = memory.place("l1", (128, 256), "nz", "f16", 131072, "%a_l1")
    a_l0a = memory.place("l0a", (128, 256), "zz", "f16", 0, "%a_l0a")
    other = memory.place("l1", (128, 256), "nz", "f16", 0, "%other")
    decoded = footprint.Footprint(move)
    first = decoded.accesses((a_l1, a_l0a, 128, 256))
    assert decoded.accesses((a_l1, a_l0a, 64, 256)) is first  # whole tiles: sizes aside
    moved = decoded.accesses((other, a_l0a, 128, 256))
    assert moved is not first and moved[0][:3] == ("l1", 0, 128 * 256 * 2)
    assert first[0][:3] == ("l1", 131072, 128 * 256 * 2)
    assert decoded.accesses((other, a_l0a, 0, 256)) == []  # size 0: a no-op, never cached


@pytest.mark.parametrize("view", [
    lambda a: a, lambda a: a[3:, 5:], lambda a: a[::-2, 1::3], lambda a: a.T[2:4],
    lambda a: a[7:, 8:], lambda a: a.reshape(-1)[17:40], lambda a: a[:, ::-1],
])
def test_gm_window_address_is_the_array_interface_address(view):
    array = view(np.arange(8 * 12, dtype=np.float32).reshape(8, 12))
    assert gm_access.data_address(array) == array.__array_interface__["data"][0]


def test_the_records_lookups_kept_per_access_are_bounded(monkeypatch):
    monkeypatch.setattr(hb_module, "PLACES", 8)
    engine = HappensBefore()
    for i in range(20):  # fresh accesses (as the raw forms build): kept at most PLACES at once
        engine._places_of([access.Access("l1", 64 * i, 64)], 3, 0)
        assert len(engine._tile_places) <= 8
    assert engine.record_count() == 0  # looking up records records nothing


def _past_the_tile(text: str) -> str:
    """The loop of `text` runs a third iteration, whose L0B load reads past %b_l1 (a fault)."""
    return text.replace("scf.for %j = %c0 to %c256 step %c128",
                        "scf.for %j = %c0 to %c384 step %c128").replace(
        "%c256 = arith.constant 256 : index",
        "%c256 = arith.constant 256 : index\n    %c384 = arith.constant 384 : index")


@pytest.mark.parametrize("fast", [True, False])
def test_an_op_fault_after_a_race_in_the_batch_reports_the_race(monkeypatch, fast):
    """The pipe op's step (`IssueSeam.pipe_step`, or the Event path) flushes the batch before
    it reports a fault of its kernel: the race of the second iteration comes first."""
    monkeypatch.setattr(IssueSeam, "fast", fast)
    with pytest.raises(ExecutionError, match=r"reads source \[0:256, 256:384\] beyond the "
                                             r"256x256 source tile %b_l1") as info:
        run_module(parse(_past_the_tile(LOOP)), inputs=_inputs(), sync_check=True)
    assert not isinstance(info.value, SyncError)
    with pytest.raises(SyncError, match=r"race on l0b bytes \[0, 65536\) \(%b_l0b\): "
                                        r"'pto.mte_l1_l0b' at k.mlir:\d+:7 \(pipe mte1, "
                                        r"iteration %j = 128\) writes them"):
        run_module(parse(_past_the_tile(without(LOOP, "B"))), inputs=_inputs(), sync_check=True)


def test_result_less_pipe_ops_run_as_bound_steps_on_the_fast_path(monkeypatch):
    """With `IssueSeam.fast` the interpreter's plan calls the op's bound step
    (`IssueSeam.pipe_step`); without it the handler (`_issue_op`)."""
    from mmair.executor.engine import interpreter

    kinds = {}
    plans: list[tuple] = []
    real = interpreter.MmairInterpreter._plan
    monkeypatch.setattr(interpreter.MmairInterpreter, "_plan",
                        lambda self, block: plans.append(real(self, block)) or plans[-1])
    for fast in (True, False):
        monkeypatch.setattr(IssueSeam, "fast", fast)
        plans.clear()
        run_module(parse(LOOP), inputs=_inputs(), sync_check=True)
        kinds[fast] = {entry[4]: entry[0] for plan in plans for entry in plan[2]
                       if entry[4].startswith("pto.m")}
    assert set(kinds[True].values()) == {interpreter._PIPE_STEP}
    assert set(kinds[False].values()) == {interpreter._HANDLER}
    assert set(kinds[True]) == {"pto.mte_gm_l1", "pto.mte_l1_l0a", "pto.mte_l1_l0b", "pto.mad"}


class _Reads:
    """A footprint that returns the same list every time (as `footprint.Footprint` does for the
    same tiles), so the engine keeps its checks."""

    kind = "mte_l1_l0a"

    def __init__(self, accesses: list):
        self.list = accesses

    def accesses(self, args: tuple) -> list:
        return self.list


def test_kept_checks_see_a_lane_that_starts_writing_the_memory_later():
    """MTE1 reads an L1 range twice (its checks kept after the first read, when no other lane
    had records in L1); in between MTE2 writes the range, ordered after the first read by a
    flag but not before the second: the second read must be checked against MTE2's new
    records (`HappensBefore._groups_made`)."""
    from mmair.executor.engine.events import OP, SET, WAIT, FlagPlan, OpPlan, lane_of
    from mmair.isa.ascend.pipes import Pipe

    engine = HappensBefore(record_preds=False)
    mte1, mte2 = lane_of(0, Pipe.MTE1), lane_of(0, Pipe.MTE2)
    read = OpPlan(_Reads([access.Access("l1", 0, 64, buffer="%t")]), None, 0, Pipe.MTE1, mte1)
    write = OpPlan(_Reads([access.Access("l1", 0, 64, write=True, buffer="%t")]), None, 0,
                   Pipe.MTE2, mte2)
    flag = FlagPlan(None, 0, Pipe.MTE1, Pipe.MTE2, 0)
    engine.run_batch([(OP, read, (), 1, (), False), (SET, flag, 2, ()),
                      (WAIT, mte2, flag.key, flag, 3), (OP, write, (), 4, (), False)])
    assert engine.record_count() == 2
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 64\) \(%t\): mte_l1_l0a "
                                        r"\(pipe mte1\) reads them, mte_l1_l0a \(pipe mte2\) "
                                        r"writes them"):
        engine.run_batch([(OP, read, (), 5, (), False)])


def test_kept_lookups_belong_to_one_engine():
    """An op's plan keeps the lookups of the engine that ran it last; another engine (a second
    run of the same seam's plans) makes its own: here it has an unordered MTE2 write the read
    races with."""
    from mmair.executor.engine.events import OP, OpPlan, lane_of
    from mmair.isa.ascend.pipes import Pipe

    mte1, mte2 = lane_of(0, Pipe.MTE1), lane_of(0, Pipe.MTE2)
    read = OpPlan(_Reads([access.Access("l1", 0, 64, buffer="%t")]), None, 0, Pipe.MTE1, mte1)
    write = OpPlan(_Reads([access.Access("l1", 0, 64, write=True, buffer="%t")]), None, 0,
                   Pipe.MTE2, mte2)
    first = HappensBefore(record_preds=False)
    first.run_batch([(OP, read, (), 1, (), False), (OP, read, (), 2, (), False)])
    assert read.kept is not None and read.kept[0] is first._token
    second = HappensBefore(record_preds=False)
    second.run_batch([(OP, write, (), 1, (), False)])
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 64\) \(%t\): mte_l1_l0a "
                                        r"\(pipe mte1\) reads them, mte_l1_l0a \(pipe mte2\) "
                                        r"writes them"):
        second.run_batch([(OP, read, (), 2, (), False)])
