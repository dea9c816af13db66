"""The concurrency engine on hand-written event streams: footprints overlap, happens-before
(flags, barriers, same-pipe rules), the scheduler's queues (a wait blocks only its pipe),
deadlocks, unbalanced and overflowing flags, the static entry point (`pipe_barrier all` issued by
the scalar unit, statically unknown event ids) and the pruning, cores (`pto.sync_all`'s
predecessors, a race between cores names both blocks)."""

from __future__ import annotations

import itertools
import random

import pytest
from sync_testing import parse

from mmair.dialects import pto
from mmair.dialects.pto.access import Access, overlap
from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT, Event, FlagPlan, SyncError
from mmair.executor.engine.hb import HappensBefore
from mmair.executor.engine.scheduler import Scheduler, analyze
from mmair.executor.engine.seam import static_event
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import get_target

# ------------------------------------------------------------------------------------------------
# overlap of strided byte sets, against explicit byte sets
# ------------------------------------------------------------------------------------------------


def _bytes(a: Access) -> set[int]:
    out: set[int] = set()
    for r in range(a.rows):
        base = a.start + r * a.stride
        out.update(range(base, base + a.width))
    return out


def test_adjacent_column_windows_do_not_overlap():
    # Two 4-row windows of 8 bytes in rows of 16 bytes: columns [0, 8) and [8, 16).
    left = Access("gm", 0, 8, 4, 16, True)
    right = Access("gm", 8, 8, 4, 16, True)
    assert overlap(left, right) is None
    assert overlap(right, left) is None


def test_overlap_is_the_lowest_common_segment():
    a = Access("gm", 0, 8, 4, 16)
    b = Access("gm", 20, 8, 2, 16)  # rows 1-2, columns 4-12 -> first common bytes [20, 24)
    assert overlap(a, b) == (20, 24)


@pytest.mark.parametrize("seed", range(3))
def test_overlap_matches_byte_sets(seed):
    rng = random.Random(seed)
    for _ in range(400):
        accs = []
        for _ in range(2):
            rows = rng.randint(1, 5)
            width = rng.randint(1, 9)
            stride = rng.choice([0, width, width + rng.randint(1, 9), rng.randint(1, 20)])
            accs.append(Access("gm", rng.randint(0, 40), width, rows, stride if rows > 1 else 0))
        a, b = accs
        common = _bytes(a) & _bytes(b)
        hit = overlap(a, b)
        if not common:
            assert hit is None, (a, b)
        else:
            assert hit is not None, (a, b)
            lo, hi = hit
            assert lo == min(common), (a, b, hit)
            assert set(range(lo, hi)) <= common


# ------------------------------------------------------------------------------------------------
# hand-written streams
# ------------------------------------------------------------------------------------------------

_seq = itertools.count(1)


def op(pipe: Pipe, *accesses: Access, iteration: tuple = (), log: list | None = None,
       name: str = "") -> Event:
    ev = Event(next(_seq), 0, pipe, None, name or f"op_{pipe}", list(accesses), iteration)
    if log is not None:
        ev.run = lambda: log.append(ev) or ((), None)
    return ev


def flag(kind: str, src: Pipe, dst: Pipe, event_id: int = 0) -> Event:
    return Event(next(_seq), 0, src if kind == SET else dst, None, kind, (),
                 src=src, dst=dst, event_id=event_id)


def barrier(pipe: Pipe | None) -> Event:
    if pipe is None:
        return Event(next(_seq), 0, Pipe.S, None, BARRIER_ALL)
    return Event(next(_seq), 0, pipe, None, BARRIER)


def run(*events: Event) -> Scheduler:
    sched = Scheduler()
    for ev in events:
        sched.issue(ev)
    sched.finish()
    return sched


L1_TILE = Access("l1", 0, 1024, write=True, buffer="%a_l1")
L1_READ = Access("l1", 512, 1536, buffer="%a_view")


def test_unordered_write_then_read_is_a_race_naming_both_pipes_and_range():
    with pytest.raises(SyncError, match=r"race on l1 bytes \[512, 1024\)") as info:
        run(op(Pipe.MTE2, L1_TILE, name="load"), op(Pipe.MTE1, L1_READ, name="move"))
    err = info.value
    assert err.kind == "race"
    assert "l1 bytes [512, 1024)" in err.message
    assert "%a_view / %a_l1" in err.message
    assert "move (pipe mte1) reads them" in err.message
    assert "load (pipe mte2) writes them" in err.message


def test_flag_orders_the_pipes():
    log: list[Event] = []
    load = op(Pipe.MTE2, L1_TILE, log=log)
    move = op(Pipe.MTE1, L1_READ, log=log)
    sched = run(load, flag(SET, Pipe.MTE2, Pipe.MTE1), flag(WAIT, Pipe.MTE2, Pipe.MTE1), move)
    assert log == [load, move]
    assert not sched.stuck()


def test_wait_issued_before_its_set_blocks_only_its_pipe():
    # The MTE1 queue waits for a flag that MTE2 sets later in program order; MTE2 and M keep going.
    log: list[Event] = []
    wait = flag(WAIT, Pipe.MTE2, Pipe.MTE1)
    move = op(Pipe.MTE1, L1_READ, log=log)
    mad = op(Pipe.M, Access("l0c", 0, 64, write=True), log=log)
    load = op(Pipe.MTE2, L1_TILE, log=log)
    setf = flag(SET, Pipe.MTE2, Pipe.MTE1)
    sched = Scheduler()
    for ev in (wait, move, mad, load):
        sched.issue(ev)
    assert log == [mad, load]  # the move is queued behind the wait
    assert sched.stuck() == [wait]
    sched.issue(setf)
    assert log == [mad, load, move]
    sched.finish()
    assert wait.preds[-1] is setf  # the wait's happens-before predecessor is its set


def test_wait_without_set_is_a_deadlock_with_the_pipe_position():
    wait = flag(WAIT, Pipe.MTE2, Pipe.MTE1, 3)
    sched = Scheduler()
    sched.issue(wait)
    sched.issue(op(Pipe.MTE1, L1_READ))
    with pytest.raises(SyncError, match=r"pipe mte1 waits at wait_flag \(pipe mte1\) for flag mte2 -> mte1 event 3") as info:
        sched.finish()
    assert info.value.kind == "deadlock"
    assert "pipe mte1 waits at wait_flag (pipe mte1) for flag mte2 -> mte1 event 3" in info.value.message
    assert "(1 more op queued behind it)" in info.value.message


def test_scalar_wait_that_no_pipe_can_set_is_an_immediate_deadlock():
    # V waits for S (set later), S waits for V: the scalar unit can never issue the set.
    sched = Scheduler()
    sched.issue(flag(WAIT, Pipe.S, Pipe.V))
    sched.issue(flag(SET, Pipe.V, Pipe.S))  # queued behind V's wait
    with pytest.raises(SyncError, match=r"deadlock: the scalar unit waits at") as info:
        sched.issue(flag(WAIT, Pipe.V, Pipe.S))
    assert info.value.kind == "deadlock"
    assert info.value.message.startswith("deadlock: the scalar unit waits at")
    assert "pipe v waits at wait_flag (pipe v) for flag s -> v event 0" in info.value.message


def test_set_never_waited_is_unbalanced():
    with pytest.raises(SyncError, match=r"set_flag m -> fix event 2") as info:
        run(flag(SET, Pipe.M, Pipe.FIX, 2))
    assert info.value.kind == "unbalanced"
    assert "set_flag m -> fix event 2" in info.value.message


def test_second_set_of_a_held_flag_overflows():
    with pytest.raises(SyncError, match=r"sets flag m -> v event 0 again") as info:
        run(flag(SET, Pipe.M, Pipe.V, 0), flag(SET, Pipe.M, Pipe.V, 0))
    assert info.value.kind == "overflow"
    assert "sets flag m -> v event 0 again" in info.value.message


def test_vector_pipe_needs_a_barrier_between_dependent_ops():
    ub_w = Access("ub", 0, 256, write=True, buffer="%x")
    ub_r = Access("ub", 128, 256, buffer="%y")
    with pytest.raises(SyncError, match=r"no pipe_barrier\(v\) between them") as info:
        run(op(Pipe.V, ub_w), op(Pipe.V, ub_r))
    assert "no pipe_barrier(v) between them" in info.value.message
    assert "ub bytes [128, 256)" in info.value.message
    run(op(Pipe.V, ub_w), barrier(Pipe.V), op(Pipe.V, ub_r))


def test_every_pipe_but_s_needs_a_barrier_between_dependent_ops():
    with pytest.raises(SyncError, match=r"no pipe_barrier\(mte2\) between them"):
        run(op(Pipe.MTE2, L1_TILE), op(Pipe.MTE2, L1_TILE))
    run(op(Pipe.MTE2, L1_TILE), barrier(Pipe.MTE2), op(Pipe.MTE2, L1_TILE))
    gm = Access("gm", 0, 64, write=True, memory="g")
    run(op(Pipe.S, gm), op(Pipe.S, gm))  # the scalar unit keeps its own order


def test_a_large_mad_finishes_before_the_next_mad_reaches_its_bytes():
    c = Access("l0c", 0, 65536, write=True, buffer="%c")
    big = op(Pipe.M, c)
    big.sequential = True  # e.g. 128 x 128 outputs: 64 fractals (pipes.mad_needs_barrier)
    nxt = op(Pipe.M, c)
    run(big, nxt)
    assert big in nxt.preds
    with pytest.raises(SyncError, match=r"no pipe_barrier\(m\)"):
        run(op(Pipe.M, c), op(Pipe.M, c))


def test_barrier_all_orders_every_pipe():
    run(op(Pipe.MTE2, L1_TILE), barrier(None), op(Pipe.MTE1, L1_READ))  # ordered: no error
    with pytest.raises(SyncError, match=r"race on l1 bytes \[512, 1024\)"):
        run(op(Pipe.MTE2, L1_TILE), barrier(Pipe.MTE2), op(Pipe.MTE1, L1_READ))


def test_barrier_all_behind_a_blocked_queue_is_a_deadlock():
    sched = Scheduler()
    sched.issue(flag(WAIT, Pipe.M, Pipe.MTE1))
    with pytest.raises(SyncError, match=r"for every pipe to finish") as info:
        sched.issue(barrier(None))
    assert "for every pipe to finish" in info.value.message


def test_flag_chain_through_another_pipe_orders_vector_ops():
    # V write, set v->mte3, MTE3 wait + set mte3->v, V wait, V read: ordered without a barrier.
    ub_w = Access("ub", 0, 64, write=True)
    ub_r = Access("ub", 0, 64)
    events = [op(Pipe.V, ub_w), flag(SET, Pipe.V, Pipe.MTE3), flag(WAIT, Pipe.V, Pipe.MTE3),
              flag(SET, Pipe.MTE3, Pipe.V), flag(WAIT, Pipe.MTE3, Pipe.V), op(Pipe.V, ub_r)]
    run(*events)
    # each event's recorded predecessor is the one before it: the chain is what orders them
    assert [ev.preds for ev in events[1:]] == [[ev] for ev in events[:-1]]
    with pytest.raises(SyncError, match="race on ub bytes"):
        run(op(Pipe.V, ub_w), op(Pipe.V, ub_r))


def test_race_message_names_the_loop_iterations():
    gm = Access("gm", 0, 64, 2, 128, True, "%c", "c")
    with pytest.raises(SyncError, match=r"bytes \[0, 64\) of GM buffer %c") as info:
        run(op(Pipe.FIX, gm, iteration=(("%i", 0), ("%j", 128))),
            op(Pipe.MTE3, gm, iteration=(("%i", 128),)))
    message = info.value.message
    assert "bytes [0, 64) of GM buffer %c" in message
    assert "(pipe fix, iteration %i = 0, %j = 128)" in message
    assert "(pipe mte3, iteration %i = 128)" in message


def test_different_gm_buffers_never_conflict():
    run(op(Pipe.FIX, Access("gm", 0, 64, write=True, memory="a")),
        op(Pipe.MTE3, Access("gm", 0, 64, write=True, memory="b")))  # no error
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer"):
        run(op(Pipe.FIX, Access("gm", 0, 64, write=True, memory="a")),
            op(Pipe.MTE3, Access("gm", 0, 64, write=True, memory="a")))


def test_analyze_returns_every_conflict_of_a_loop_body_twice():
    # K loop body: MTE2 loads the L1 tile, MTE1 reads it (flagged inside the iteration). The second
    # copy's load overwrites the tile MTE1 of the first copy reads (a loop-carried WAR) and the one
    # the first load wrote (a WAW inside MTE2, which needs a barrier or a flag chain).
    def body(k: int) -> list[Event]:
        it = (("%k", k),)
        return [op(Pipe.MTE2, L1_TILE, iteration=it, name="load"), flag(SET, Pipe.MTE2, Pipe.MTE1),
                flag(WAIT, Pipe.MTE2, Pipe.MTE1), op(Pipe.MTE1, L1_READ, iteration=it, name="move")]

    result = analyze(body(0) + body(1))
    assert not result.faults
    pairs = [(c.first.kind, c.first.iteration, c.second.kind, c.second.iteration)
             for c in result.conflicts]
    assert sorted(pairs) == [("load", (("%k", 0),), "load", (("%k", 1),)),
                             ("move", (("%k", 0),), "load", (("%k", 1),))]
    ranges = {c.first.kind: (c.lo, c.hi) for c in result.conflicts}
    assert ranges == {"load": (0, 1024), "move": (512, 1024)}


def test_analyze_reports_faults_without_raising():
    result = analyze([flag(WAIT, Pipe.MTE2, Pipe.MTE1), flag(SET, Pipe.M, Pipe.FIX)])
    assert [f.kind for f in result.faults] == ["deadlock", "unbalanced"]


def test_predecessors_follow_pipe_order_and_flags():
    load = op(Pipe.MTE2, L1_TILE)
    setf = flag(SET, Pipe.MTE2, Pipe.MTE1)
    wait = flag(WAIT, Pipe.MTE2, Pipe.MTE1)
    move = op(Pipe.MTE1, L1_READ)
    run(load, setf, wait, move)
    assert setf.preds == [load]
    assert wait.preds == [setf]
    assert move.preds == [wait]
    assert (load.epoch, setf.epoch, wait.epoch, move.epoch) == (1, 2, 1, 2)


def test_records_stay_bounded_in_a_long_flagged_stream():
    sched = Scheduler()
    for i in range(3000):
        gm = Access("gm", (i % 50) * 4096, 512, 8, 1024, False, "%a", "a")
        for ev in (op(Pipe.MTE2, gm, L1_TILE), flag(SET, Pipe.MTE2, Pipe.MTE1),
                   flag(WAIT, Pipe.MTE2, Pipe.MTE1), op(Pipe.MTE1, L1_READ),
                   flag(SET, Pipe.MTE1, Pipe.MTE2), flag(WAIT, Pipe.MTE1, Pipe.MTE2)):
            sched.issue(ev)
    sched.finish()
    # One record per distinct byte set and pipe: 50 GM windows + the L1 tile (MTE2) + the read.
    assert sched.hb.record_count() <= 52
    assert len(sched.hb.since_mark[0]) <= 2  # pred lists do not grow with the stream


# ------------------------------------------------------------------------------------------------
# sync ops without Events (the seam's fast path) against the Event path
# ------------------------------------------------------------------------------------------------


def _light_stream(sched: Scheduler, steps: list[tuple[str, FlagPlan]]) -> None:
    """Issue `steps` the way the seam does: without Events where the scheduler allows it."""
    for what, plan in steps:
        if what == "pair":
            assert sched.light_set_wait(plan)
        elif what == SET:
            if not sched.light_set(plan, ()):
                sched.issue(flag(SET, plan.src, plan.dst))
        elif not sched.light_wait(plan.dst_lane, plan.key, plan.wait_item):
            sched.issue(flag(WAIT, plan.src, plan.dst))


def _event_stream(sched: Scheduler, steps: list[tuple[str, FlagPlan]]) -> None:
    for what, plan in steps:
        if what in ("pair", SET):
            sched.issue(flag(SET, plan.src, plan.dst))
        if what in ("pair", WAIT):
            sched.issue(flag(WAIT, plan.src, plan.dst))


@pytest.mark.parametrize("seed", range(4))
def test_light_sync_steps_advance_the_clocks_like_events(seed):
    # Random balanced flag traffic between the four cube pipes, with loads and moves between
    # them: the fast path (no Events, set+wait pairs fused) must leave the same vector clocks
    # and counts as the Event path, and find the same races.
    rng = random.Random(seed)
    pipes = [Pipe.MTE2, Pipe.MTE1, Pipe.M, Pipe.FIX]
    fast = Scheduler(collect=True, record_preds=False)
    slow = Scheduler(collect=True, record_preds=False)
    for _ in range(60):
        src, dst = rng.sample(pipes, 2)
        plan = FlagPlan(None, 0, src, dst, 0)
        form = rng.choice(["pair", "split"])
        steps = [("pair", plan)] if form == "pair" else [(SET, plan), (WAIT, plan)]
        _light_stream(fast, steps)
        _event_stream(slow, steps)
        tile = Access("l1", 0, 64, write=rng.random() < 0.5)
        for sched in (fast, slow):
            sched.issue(op(dst, tile))
    fast.finish()
    slow.finish()
    assert fast.hb.clock == slow.hb.clock
    assert fast.hb.count == slow.hb.count
    races = [[(c.first.pipe, c.second.pipe, c.lo, c.hi) for c in s.hb.conflicts]
             for s in (fast, slow)]
    assert races[0] == races[1]
    assert not fast.faults and not slow.faults


def test_light_set_never_waited_is_reported_with_its_op():
    sched = Scheduler(record_preds=False)
    set_op = pto.SetFlagOp(Pipe.MTE2, Pipe.MTE1, 3)
    plan = FlagPlan(set_op, 0, Pipe.MTE2, Pipe.MTE1, 3)
    assert sched.light_set(plan, ())
    with pytest.raises(SyncError, match=r"set_flag mte2 -> mte1 event 3") as info:
        sched.finish()
    assert info.value.kind == "unbalanced"
    assert info.value.events[0].op is set_op
    assert "set_flag mte2 -> mte1 event 3" in str(info.value)


def test_second_set_of_a_light_set_flag_is_an_overflow_naming_the_first():
    sched = Scheduler(record_preds=False)
    first_op, second_op = (pto.SetFlagOp(Pipe.MTE2, Pipe.MTE1, 0) for _ in range(2))
    assert sched.light_set(FlagPlan(first_op, 0, Pipe.MTE2, Pipe.MTE1, 0), ())
    assert not sched.light_set(FlagPlan(second_op, 0, Pipe.MTE2, Pipe.MTE1, 0), ())
    with pytest.raises(SyncError, match=r"sets flag mte2 -> mte1 event 0 again while it is still set by 'pto\.set_flag'") as info:
        sched.issue(Event(99, 0, Pipe.MTE2, second_op, SET, (), (), src=Pipe.MTE2,
                          dst=Pipe.MTE1, event_id=0))
        sched.flush()
    assert info.value.kind == "overflow"
    assert [e.op for e in info.value.events] == [second_op, first_op]
    assert "sets flag mte2 -> mte1 event 0 again while it is still set by 'pto.set_flag' " \
        "(pipe mte2)" in str(info.value)


def test_timeline_schedulers_keep_events_for_every_sync_op():
    sched = Scheduler(record_preds=True)
    plan = FlagPlan(None, 0, Pipe.MTE2, Pipe.MTE1, 0)
    assert not sched.light_set(plan, ())
    assert not sched.light_set_wait(plan)
    sched.issue(flag(SET, Pipe.MTE2, Pipe.MTE1))
    assert not sched.light_wait(plan.dst_lane, plan.key, plan.wait_item)


# The static entry point (pto-insert-sync's events), cores and `pto.sync_all` predecessors


_STATIC = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%src: memref<128xui16>, %dst: memref<128xui16>) {
    %ub = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    BARRIER
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    func.return
  }
}
"""


def _static_events(text: str) -> list[Event]:
    target = get_target("a2")
    events = []
    for op in parse(text).walk():
        ev = static_event(op, target)
        if ev is not None:
            events.append(ev)
    return events


def test_static_pipe_barrier_all_is_issued_by_the_scalar_unit_and_orders_every_pipe():
    events = _static_events(_STATIC.replace("BARRIER", "pto.pipe_barrier all"))
    assert [(ev.pipe, ev.kind) for ev in events] == [
        (Pipe.MTE2, "mte_gm_ub"), (Pipe.S, BARRIER_ALL), (Pipe.MTE3, "mte_ub_gm")]
    result = analyze(events)
    assert result.conflicts == [] and result.faults == []
    # pipe_barrier(mte2) orders only MTE2: the store on MTE3 still conflicts with the load.
    result = analyze(_static_events(_STATIC.replace("BARRIER", "pto.pipe_barrier mte2")))
    assert [(c.first.pipe, c.second.pipe, c.lo, c.hi) for c in result.conflicts] == [
        (Pipe.MTE2, Pipe.MTE3, 0, 256)]


def test_statically_unknown_event_ids_pair_by_pipes():
    # `static_event` leaves a runtime event id None; such a set and wait still pair up.
    text = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%e: index) {
    pto.set_flag mte2 -> v, %e
    pto.wait_flag mte2 -> v, %e
    func.return
  }
}
"""
    events = _static_events(text)
    assert [(ev.kind, ev.event_id) for ev in events] == [(SET, None), (WAIT, None)]
    assert events[0].key == events[1].key
    assert events[0].key != Event(0, 0, Pipe.MTE2, None, SET, src=Pipe.MTE2, dst=Pipe.V,
                                  event_id=0).key
    result = analyze(events)
    assert result.faults == [] and result.conflicts == []
    assert [f.kind for f in analyze(events[:1]).faults] == ["unbalanced"]


def test_sync_all_predecessors_are_each_cores_own_last_ops():
    hb = HappensBefore(2)
    gm = Access("gm", 0, 64, write=True, memory="c")
    a = Event(1, 0, Pipe.MTE3, None, "store0", [gm])
    b = Event(2, 1, Pipe.MTE3, None, "store1", [Access("gm", 64, 64, write=True, memory="c")])
    hb.execute(a)
    hb.execute(b)
    s0, s1 = Event(3, 0, Pipe.S, None, "sync_all"), Event(4, 1, Pipe.S, None, "sync_all")
    hb.barrier_cores([s0, s1])
    assert s0.preds == [a]
    assert s1.preds == [b]
    # After it, core 1 may overwrite what core 0 wrote.
    hb.execute(Event(5, 1, Pipe.MTE3, None, "store2", [gm]))


def test_race_between_cores_names_both_blocks():
    sched = Scheduler(2, gm_names={"c": "%c"})
    gm = Access("gm", 0, 64, write=True, memory="c")
    sched.issue(Event(1, 0, Pipe.MTE3, None, "store0", [gm]))
    sched.issue(Event(2, 1, Pipe.MTE3, None, "store1", [gm]))
    with pytest.raises(SyncError, match=r"race on bytes \[0, 64\) of GM buffer %c between blocks 0 and 1") as info:
        sched.finish()
    assert info.value.message == (
        "race on bytes [0, 64) of GM buffer %c between blocks 0 and 1: block 1 store1 (pipe mte3, "
        "core 1) writes them, block 0 store0 (pipe mte3) writes them; no pto.sync_all between "
        "them (the only order between cores)")
