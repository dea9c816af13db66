"""What the race checker's bookkeeping means (issue 28 item 7), pinned by behaviour rather than
by its switches: which pairs are races, which flag bit a set and a wait name, what a new access
replaces, what pruning may drop, where two strided windows meet. Each rule is checked on the
engine's Event path (`Scheduler.issue`) and, where the executor takes another path (the batched
items of a run), on IR through `run_module`."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from sync_testing import line_of, parse

from mmair.dialects.pto.access import Access, overlap
from mmair.dialects.pto.gm_access import gm_written_roots
from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT, Event, SyncError
from mmair.executor.engine.scheduler import Scheduler
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import Pipe
from mmair.tools.diagnostics import op_location

_seq = itertools.count(1)


def _op(pipe: Pipe, *accesses: Access, core: int = 0, name: str = "") -> Event:
    return Event(next(_seq), core, pipe, None, name or f"op_{pipe}", list(accesses), ())


def _flag(kind: str, src: Pipe, dst: Pipe, core: int = 0, event_id: int = 0) -> Event:
    return Event(next(_seq), core, src if kind == SET else dst, None, kind, (), src=src, dst=dst,
                 event_id=event_id)


def _issue(sched: Scheduler, *events: Event) -> Scheduler:
    for ev in events:
        sched.issue(ev)
    return sched


TILE = Access("l1", 0, 512, write=True, buffer="%t")
READ = Access("l1", 0, 512, buffer="%t")
OTHER = Access("l1", 4096, 512, write=True, buffer="%u")


# -- a read-read pair is never a race ---------------------------------------------------------

def test_a_read_read_pair_on_two_pipes_is_never_a_race() -> None:
    # Both readers also write elsewhere (their lanes have unordered write records, so the checker
    # scans them), and neither is ordered with the other.
    sched = _issue(Scheduler(), _op(Pipe.MTE2, TILE), _flag(SET, Pipe.MTE2, Pipe.MTE1),
                   _flag(WAIT, Pipe.MTE2, Pipe.MTE1), _flag(SET, Pipe.MTE2, Pipe.V),
                   _flag(WAIT, Pipe.MTE2, Pipe.V), _op(Pipe.MTE1, READ, OTHER),
                   _op(Pipe.V, READ, Access("l1", 8192, 64, write=True)))
    sched.finish()
    assert sched.hb.record_count() == 5  # the write, two reads, two other writes


_UB = "!pto.tile<ub, 128xui16, nd>"
# V gathers from %ub_src into %ub_dst while MTE3 copies %ub_src out: two unordered reads of
# %ub_src (and MTE3's copy of %ub_dst waits for the gather).
READ_READ = f"""builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%src: memref<128xui16>, %dst: memref<128xui16>, %copy: memref<128xui16>) -> index {{
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {{offset = 0 : i64}} : {_UB}
    %ub_dst = pto.alloc {{offset = 256 : i64}} : {_UB}
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> v, 0
    pto.wait_flag mte2 -> v, 0
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_UB}, {_UB}
    pto.mte_ub_gm %ub_src, %copy : {_UB}, memref<128xui16>
    pto.set_flag v -> mte3, 1
    pto.wait_flag v -> mte3, 1
    pto.mte_ub_gm %ub_dst, %dst : {_UB}, memref<128xui16>
    pto.set_flag v -> s, 0
    pto.wait_flag v -> s, 0
    func.return %kept : index
  }}
}}
"""


def _ramp() -> dict[str, np.ndarray]:
    return {"src": np.arange(1, 129, dtype=np.uint16)}


def test_a_read_read_pair_in_a_run_is_never_a_race() -> None:
    out = run_module(parse(READ_READ), inputs=_ramp(), sync_check=True).outputs
    np.testing.assert_array_equal(out["copy"], np.arange(1, 129))
    np.testing.assert_array_equal(out["dst"][:64], np.arange(2, 129, 2))


# -- a write's record survives a later read of its pipe ---------------------------------------

def test_a_record_for_a_write_survives_a_later_read_by_the_same_pipe() -> None:
    # MTE2 writes %t, then (after its own barrier) reads it: MTE1's read is still unordered with
    # the write, a read-after-write race naming the write.
    write = _op(Pipe.MTE2, TILE, name="write")
    sched = _issue(Scheduler(), write, Event(next(_seq), 0, Pipe.MTE2, None, BARRIER),
                   _op(Pipe.MTE2, READ, name="reread"))
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): reader \(pipe "
                                        r"mte1\) reads them, write \(pipe mte2\) writes them"):
        _issue(sched, _op(Pipe.MTE1, READ, name="reader")).finish()


def test_a_record_for_a_write_survives_a_later_read_by_the_same_pipe_in_a_run() -> None:
    # The gather writes %ub_dst; a second gather (V, after pipe_barrier(v)) reads it; MTE3's copy
    # of %ub_dst without the v -> mte3 flag races with the first gather's write.
    text = READ_READ.replace(
        f"    pto.mte_ub_gm %ub_src, %copy : {_UB}, memref<128xui16>\n",
        "    pto.pipe_barrier v\n"
        f"    %again = pto.gather_mask %ub_src, %ub_dst, %zero, %one, %one, %eight, %zero "
        f"{{pattern = 2 : i64}} : {_UB}, {_UB}\n"
        f"    pto.mte_ub_gm %ub_dst, %copy : {_UB}, memref<128xui16>\n")
    with pytest.raises(SyncError, match=r"race on ub bytes \[256, 512\) \(%ub_dst\)") as info:
        run_module(parse(text), inputs=_ramp(), sync_check=True)
    first = line_of(text, "%kept = pto.gather_mask")
    assert f"'pto.gather_mask' at k.mlir:{first}:" in info.value.message
    assert info.value.message.endswith("(pipe v) writes them; no set_flag/wait_flag chain or "
                                       "pipe_barrier orders them")
    assert op_location(info.value.op)[1] == line_of(text, "pto.mte_ub_gm %ub_dst, %copy")


def test_two_dependent_vector_ops_without_a_barrier_race_in_a_run() -> None:
    # The second gather reads what the first wrote, on the same pipe: V overlaps dependent
    # instructions, so only pipe_barrier(v) orders them.
    text = READ_READ.replace(
        f"    pto.mte_ub_gm %ub_src, %copy : {_UB}, memref<128xui16>\n",
        f"    %again = pto.gather_mask %ub_src, %ub_dst, %zero, %one, %one, %eight, %zero "
        f"{{pattern = 2 : i64}} : {_UB}, {_UB}\n")
    with pytest.raises(SyncError, match=r"race on ub bytes \[256, 512\) \(%ub_dst\): "
                                        r"'pto.gather_mask' at k.mlir:14:5 \(pipe v\) reads them, "
                                        r"'pto.gather_mask' at k.mlir:13:5 \(pipe v\) writes them; "
                                        r"no pipe_barrier\(v\) between them"):
        run_module(parse(text), inputs=_ramp(), sync_check=True)



@pytest.mark.parametrize("second", [
    "%again = pto.gather_mask %ub_c, %ub_dst",  # writes fresh bytes, reads what the first wrote
    "%again = pto.gather_mask %ub_src, %ub_c",  # writes what the first read, reads fresh bytes
], ids=["read after write", "write after read"])
def test_every_access_of_a_vector_op_is_checked_against_its_own_pipe(second: str) -> None:
    """Every access of an op on a pipe that overlaps dependent instructions is checked against
    that pipe's unordered records, not only the first access that has some: the second gather
    touches two UB tiles, one of them free of conflicts, and without pipe_barrier(v) the other
    races with the first gather (docs/pipes.md: only pipe_barrier(v) orders two vector ops)."""
    text = READ_READ.replace(
        "    %ub_dst = pto.alloc",
        f"    %ub_c = pto.alloc {{offset = 512 : i64}} : {_UB}\n    %ub_dst = pto.alloc").replace(
        f"    pto.mte_ub_gm %ub_src, %copy : {_UB}, memref<128xui16>\n",
        f"    {second}, %zero, %one, %one, %eight, %zero {{pattern = 2 : i64}} : {_UB}, {_UB}\n")
    first, again = line_of(text, "%kept = pto.gather_mask"), line_of(text, "%again =")
    tile, span, verbs = (("%ub_dst", "256, 512", ("reads", "writes")) if "%ub_dst" in second
                         else ("%ub_src", "0, 256", ("writes", "reads")))
    with pytest.raises(SyncError, match=rf"race on ub bytes \[{span}\) \({tile}\): "
                                        rf"'pto.gather_mask' at k.mlir:{again}:5 \(pipe v\) "
                                        rf"{verbs[0]} them, 'pto.gather_mask' at "
                                        rf"k.mlir:{first}:5 \(pipe v\) {verbs[1]} them; "
                                        r"no pipe_barrier\(v\) between them"):
        run_module(parse(text), inputs=_ramp(), sync_check=True)



# MTE3 stores into a GM buffer the kernel allocates, MTE2 loads it back.
SCRATCH = f"""builtin.module attributes {{{{pto.target = "a2"}}}} {{{{
  func.func @k(%src: memref<128xui16>) {{{{
    %tmp = memref.alloc() : memref<128xui16>
    %ub_a = pto.alloc {{{{offset = 0 : i64}}}} : {_UB}
    %ub_b = pto.alloc {{{{offset = 256 : i64}}}} : {_UB}
    pto.mte_gm_ub %src, %ub_a : memref<128xui16>, {_UB}
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub_a, %tmp : {_UB}, memref<128xui16>
{{back}}
    pto.mte_gm_ub %tmp, %ub_b : memref<128xui16>, {_UB}
    func.return
  }}}}
}}}}
"""


def test_a_gm_buffer_the_kernel_allocates_and_writes_is_not_read_only() -> None:
    """Reads of a GM buffer no op writes are not recorded (nothing can race with them); a
    buffer the kernel allocates (`memref.alloc`) and a pipe op writes is written GM like a
    function argument: MTE2's load of what MTE3 stored, without a flag mte3 -> mte2, is a
    read-after-write race (docs/pipes.md: only a set_flag/wait_flag chain orders two pipes)."""
    text = SCRATCH.format(back="")
    module = parse(text)
    (tmp,) = (op.results[0] for op in module.walk() if op.name == "memref.alloc")
    assert tmp in gm_written_roots(module)  # the buffers pto ops may write: %tmp among them
    with pytest.raises(SyncError, match=r"race on bytes \[0, 256\) of GM buffer [^:]*: "
                                        r"'pto.mte_gm_ub' at k.mlir:\d+:5 \(pipe mte2\) reads "
                                        r"them, 'pto.mte_ub_gm' at k.mlir:\d+:5 \(pipe mte3\) "
                                        r"writes them") as info:
        run_module(parse(text), inputs=_ramp(), sync_check=True)
    assert op_location(info.value.op)[1] == line_of(text, "pto.mte_gm_ub %tmp")
    back = ("    pto.set_flag mte3 -> mte2, 0\n"
            "    pto.wait_flag mte3 -> mte2, 0")
    run_module(parse(SCRATCH.format(back=back)), inputs=_ramp(), sync_check=True)


# A loop: MTE2 loads %l1 and flags MTE1, which reads it; nothing orders the next iteration's
# load after that read. MTE1's first access of L1 comes after the first load ran.
RELOAD = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n16 = arith.constant 16 : index
    %l1 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, 16x16xf16, nz>
    %l0a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    scf.for %i = %c0 to %c2 step %c1 {{
      pto.mte_gm_l1 %a, %l1, %n16, %n16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
      pto.set_flag mte2 -> mte1, 0
      pto.wait_flag mte2 -> mte1, 0
      pto.mte_l1_l0a %l1, %l0a, %n16, %n16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
{back}
    }}
    func.return
  }}
}}
"""


def test_a_pipes_first_access_of_a_memory_is_seen_by_later_ops_of_other_pipes() -> None:
    # The second load races with the first iteration's read (a write after an unordered read),
    # although the load's own footprint was looked up before MTE1 had any L1 record.
    text = RELOAD.format(back="")
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%l1\): 'pto.mte_gm_l1' "
                                        r"at k.mlir:10:7 \(pipe mte2, iteration %i = 1\) writes "
                                        r"them, 'pto.mte_l1_l0a' at k.mlir:13:7 \(pipe mte1, "
                                        r"iteration %i = 0\) reads them"):
        run_module(parse(text), inputs={"a": np.ones((16, 16), np.float16)}, sync_check=True)
    back = ("      pto.set_flag mte1 -> mte2, 0\n"
            "      pto.wait_flag mte1 -> mte2, 0")
    run_module(parse(RELOAD.format(back=back)), inputs={"a": np.ones((16, 16), np.float16)},
               sync_check=True)


def test_a_replaced_record_is_checked_in_epoch_order() -> None:
    # MTE1 reads %t, then %u, then %t again; only the reads up to %u are ordered before FIX's
    # write of %t: the newest read of %t (after the flag) still races with it.
    u = Access("l1", 4096, 512, buffer="%u")
    sched = _issue(Scheduler(), _op(Pipe.MTE1, READ), _op(Pipe.MTE1, u),
                   _flag(SET, Pipe.MTE1, Pipe.FIX), _flag(WAIT, Pipe.MTE1, Pipe.FIX),
                   _op(Pipe.MTE1, READ, name="late read"))
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): w \(pipe fix\) "
                                        r"writes them, late read \(pipe mte1\) reads them"):
        _issue(sched, _op(Pipe.FIX, TILE, name="w")).finish()
    # the same with writes: MTE2 writes %t, %u, then (after its barrier) %t again
    sched = _issue(Scheduler(), _op(Pipe.MTE2, TILE), _op(Pipe.MTE2, OTHER),
                   _flag(SET, Pipe.MTE2, Pipe.FIX), _flag(WAIT, Pipe.MTE2, Pipe.FIX),
                   Event(next(_seq), 0, Pipe.MTE2, None, BARRIER),
                   _op(Pipe.MTE2, TILE, name="late write"))
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): r \(pipe fix\) "
                                        r"reads them, late write \(pipe mte2\) writes them"):
        _issue(sched, _op(Pipe.FIX, READ, name="r")).finish()



# MTE2 loads %t and %u, MTE1 moves %t, %u, flags MTE2, then moves %t again; MTE2 then reloads %t.
REREAD = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<16x16xf16>) {{
    %n16 = arith.constant 16 : index
    %t = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, 16x16xf16, nz>
    %u = pto.alloc {{offset = 512 : i64}} : !pto.tile<l1, 16x16xf16, nz>
    %x = pto.alloc {{offset = 0 : i64}} : !pto.tile<l0a, 16x16xf16, zz>
    %y = pto.alloc {{offset = 512 : i64}} : !pto.tile<l0a, 16x16xf16, zz>
    %z = pto.alloc {{offset = 1024 : i64}} : !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_gm_l1 %a, %t, %n16, %n16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.mte_gm_l1 %a, %u, %n16, %n16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %t, %x, %n16, %n16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.mte_l1_l0a %u, %y, %n16, %n16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    pto.set_flag mte1 -> mte2, 0
    pto.wait_flag mte1 -> mte2, 0
    pto.mte_l1_l0a %t, %z, %n16, %n16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
{back}
    pto.mte_gm_l1 %a, %t, %n16, %n16 : memref<16x16xf16>, !pto.tile<l1, 16x16xf16, nz>
    func.return
  }}
}}
"""


def test_a_replaced_record_is_checked_in_epoch_order_in_a_run() -> None:
    """A pipe's newer read of bytes it read before replaces the older record and is checked as
    the newest (the records are scanned newest first, up to the first ordered one): MTE2's reload
    of %t after the mte1 -> mte2 flag is ordered after MTE1's first reads of %t and %u, not after
    its third move, which reads %t again after the set_flag (docs/pipes.md: a set_flag fires after
    the earlier ops of its pipe only)."""
    text = REREAD.format(back="")
    inputs = {"a": np.ones((16, 16), np.float16)}
    late = line_of(text, "pto.mte_l1_l0a %t, %z")
    reload = [i for i, line in enumerate(text.splitlines(), 1) if "pto.mte_gm_l1 %a, %t" in line][-1]
    with pytest.raises(SyncError, match=rf"race on l1 bytes \[0, 512\) \(%t\): 'pto.mte_gm_l1' "
                                        rf"at k.mlir:{reload}:5 \(pipe mte2\) writes them, "
                                        rf"'pto.mte_l1_l0a' at k.mlir:{late}:5 \(pipe mte1\) "
                                        r"reads them"):
        run_module(parse(text), inputs=inputs, sync_check=True)
    back = ("    pto.set_flag mte1 -> mte2, 1\n"
            "    pto.wait_flag mte1 -> mte2, 1")
    run_module(parse(REREAD.format(back=back)), inputs=inputs, sync_check=True)


# -- flags are per core -----------------------------------------------------------------------

def test_flags_are_per_core_a_set_on_one_core_never_releases_a_wait_on_another() -> None:
    sched = _issue(Scheduler(cores=2), _flag(SET, Pipe.MTE2, Pipe.MTE1, core=0),
                   _flag(WAIT, Pipe.MTE2, Pipe.MTE1, core=1))
    with pytest.raises(SyncError, match=r"deadlock") as info:
        sched.finish()
    assert info.value.kind == "deadlock"
    assert [(ev.core, ev.kind) for ev in sched.stuck()] == [(1, WAIT)]


# Block 0 sets a flag, block 1 waits for the same pipe pair and id: another core's bit.
PER_CORE = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<64xf16>) {{
    %i = pto.block_idx
    %z = arith.constant 0 : index
    %ev = arith.constant 0 : index
    %ev_run = arith.muli %i, %z : index
    %first = arith.cmpi eq, %i, %z : index
    scf.if %first {{
      pto.set_flag mte2 -> mte3, {ev}
    }} else {{
      pto.wait_flag mte2 -> mte3, {ev}
    }}
    func.return
  }}
}}
"""


# "%ev" is a constant the flag plan folds; "%ev_run" (0 on every core) is known only when the
# op runs, the seam's run-time event-id path, whose flag key must hold the core too.
@pytest.mark.parametrize("event_id", ["0", "%ev", "%ev_run"],
                         ids=["static id", "constant id", "run-time id"])
def test_a_set_on_one_core_never_releases_a_wait_on_another_in_a_run(event_id: str) -> None:
    text = PER_CORE.format(ev=event_id)
    with pytest.raises(SyncError, match=r"deadlock") as info:
        run_module(parse(text), inputs={"a": np.zeros(64, np.float16)}, blocks=2, sync_check=True)
    assert info.value.kind == "deadlock"
    assert op_location(info.value.op)[1] == line_of(text, "pto.wait_flag")


# A launch's scheduler records predecessors (for the timeline), which keeps its waits off the
# light path (`Scheduler.light_wait`); without them, the run-time id's wait takes it: its bit
# must still be the waiting core's, not block 0's bit of the same pipe pair and id.
@pytest.mark.parametrize("event_id", ["0", "%ev_run"], ids=["static id", "run-time id"])
def test_a_wait_on_the_light_path_never_takes_another_cores_bit(event_id: str,
                                                                  monkeypatch) -> None:
    from mmair.executor.engine import scheduler

    light = functools.partialmethod(scheduler.Scheduler.__init__, record_preds=False)
    monkeypatch.setattr(scheduler.Scheduler, "__init__", light)
    taken = []
    real = scheduler.Scheduler.light_wait
    monkeypatch.setattr(scheduler.Scheduler, "light_wait",
                        lambda self, *a: taken.append(real(self, *a)) or taken[-1])
    text = PER_CORE.format(ev=event_id)
    with pytest.raises(SyncError, match=r"deadlock") as info:
        run_module(parse(text), inputs={"a": np.zeros(64, np.float16)}, blocks=2, sync_check=True)
    assert op_location(info.value.op)[1] == line_of(text, "pto.wait_flag")
    assert taken == [False]  # the wait asked the light path, which found no bit of its core



@pytest.mark.parametrize("sources", [1, 3], ids=["8 waits", "24 waits"])
def test_a_set_not_ordered_after_the_wait_of_its_bits_previous_set_overflows(sources: int) -> None:
    """A set_flag of a bit whose previous set's wait_flag may not have passed when it fires is
    an overflow (docs/pipes.md "Legal schedules": data instructions take any time): MTE1's move
    may still run when its waits pass, and nothing orders MTE2's second set of event 7 after
    them. The verdict does not depend on how many waits come in a row (past 16 the pairs that
    guarantee a wait passed are kept one per lane)."""
    srcs = (Pipe.FIX, Pipe.V, Pipe.MTE2)[-sources:]
    events = [_flag(SET, s, Pipe.MTE1, event_id=i) for s in srcs for i in range(8)]
    events.append(_op(Pipe.MTE1, Access("l0a", 0, 512, write=True), name="move"))
    events += [_flag(WAIT, s, Pipe.MTE1, event_id=i) for s in srcs for i in range(8)]
    sched = _issue(Scheduler(), *events)
    with pytest.raises(SyncError, match=r"sets flag mte2 -> mte1 event 7 again, but "
                                        r"nothing orders it after wait_flag \(pipe mte1\)") as info:
        _issue(sched, _flag(SET, Pipe.MTE2, Pipe.MTE1, event_id=7)).finish()
    assert info.value.kind == "overflow"


# -- pruning ----------------------------------------------------------------------------------

def test_pruning_never_drops_a_record_a_later_access_is_still_unordered_with() -> None:
    # MTE1 knows MTE2's write (a flag), V does not: the record must stay for V's read.
    sched = _issue(Scheduler(), _op(Pipe.MTE2, TILE, name="load"),
                   _flag(SET, Pipe.MTE2, Pipe.MTE1), _flag(WAIT, Pipe.MTE2, Pipe.MTE1),
                   _op(Pipe.MTE1, READ))
    sched.flush()
    sched.hb.prune()
    assert sched.hb.record_count() == 2
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): read \(pipe v\) "
                                        r"reads them, load \(pipe mte2\) writes them"):
        _issue(sched, _op(Pipe.V, READ, name="read")).finish()


def test_pruning_drops_exactly_the_records_every_lane_is_ordered_after() -> None:
    # pipe_barrier(all) orders the first write before every later access of the core: prune
    # drops it; MTE2's second write, after the barrier, stays and races with MTE1's read.
    sched = _issue(Scheduler(), _op(Pipe.MTE2, OTHER), Event(next(_seq), 0, Pipe.S, None,
                                                             BARRIER_ALL),
                   _op(Pipe.MTE2, TILE, name="load"))
    sched.flush()
    assert sched.hb.record_count() == 2
    sched.hb.prune()
    assert sched.hb.record_count() == 1
    with pytest.raises(SyncError, match=r"race on l1 bytes \[0, 512\) \(%t\): move \(pipe mte1\) "
                                        r"reads them, load \(pipe mte2\) writes them"):
        _issue(sched, _op(Pipe.MTE1, READ, name="move")).finish()


# -- overlap arithmetic -----------------------------------------------------------------------

def _bytes(a: Access) -> set[int]:
    return {a.start + r * a.stride + i for r in range(a.rows) for i in range(a.width)}


def test_two_equal_stride_windows_that_share_only_their_last_row_overlap() -> None:
    # 4 rows of 64 bytes every 256: a's last row [768, 832) is b's first row.
    a = Access("gm", 0, 64, 4, 256)
    b = Access("gm", 768, 64, 4, 256)
    assert overlap(a, b) == overlap(b, a) == (768, 832)
    # one byte of the last row, then none
    assert overlap(a, Access("gm", 831, 64, 4, 256)) == (831, 832)
    assert overlap(a, Access("gm", 832, 64, 4, 256)) is None
    # b's last row on a's first, and on a's gap between rows
    assert overlap(a, Access("gm", -768, 64, 4, 256)) == (0, 64)
    assert overlap(a, Access("gm", -704, 64, 4, 256)) is None


def _accesses():
    for start in range(0, 7):
        for width in (1, 2, 3):
            for rows in (1, 2, 3):
                for stride in ((0,) if rows == 1 else (1, 3, 4, 5)):
                    yield Access("gm", start, width, rows, stride)


def test_overlap_is_the_lowest_common_byte_range_for_every_small_pair() -> None:
    # Every pair of small strided windows (equal and different strides, touching rows, one-row
    # windows) against the byte sets: the range starts at the lowest common byte, and its bytes
    # are common bytes.
    shapes = list(_accesses())
    for a, b in itertools.product(shapes, shapes):
        common = _bytes(a) & _bytes(b)
        hit = overlap(a, b)
        if not common:
            assert hit is None, (a, b)
            continue
        assert hit is not None and hit[0] == min(common), (a, b)
        assert set(range(*hit)) <= common, (a, b)
