"""A CTA pair: the two CTAs of a `cta_group::2` tcgen05 kernel, run on two simulated CTAs.

PTX ISA §9.7.16.5 ("Issue Granularity") and §9.7.16.3 ("CTA pair"): with `.cta_group::2`, one
thread of one CTA of a pair (cluster ranks 2i and 2i + 1) issues `tcgen05.mma` / `commit`, and the
operation uses the shared and tensor memory of both CTAs. The run is one cluster of two CTAs
(ranks 0 and 1, `tcgen05.cluster_rank`), each with its own interpreter (its thread of control),
shared memory, tensor memory and mbarriers, all sharing the GM arrays:

* a `cta_group::2` MMA issued by either CTA computes with both CTAs' SMEM and writes both CTAs'
  TMEM (`tcgen05_kernels.mma_pair`);
* `tcgen05.commit` with a multicast mask arrives on the mbarrier at the same SMEM offset in every
  CTA of the cluster whose bit is set; without a mask, on the issuing CTA's;
* `tcgen05.cluster_sync` is the cluster barrier;
* a CTA waiting on an mbarrier phase that has not completed, or at the cluster barrier, lets the
  other CTA run.

The CTAs run one at a time in a deterministic hand-off (rank 0 first, as in
`executor/engine/multicore.py`): a CTA runs until it must wait, then the other runnable CTA takes over.
When no CTA can run and one waits, the run ends with a deadlock report, never a hang. Each CTA is a
Python thread only to keep its interpreter's call stack while it waits; exactly one thread runs at
any time.

Checked: a pair MMA reads the peer CTA's shared memory, so the peer's writes to those bytes must
come before a `tcgen05.cluster_sync` that the issuer passed before the MMA (and the peer must not
rewrite them before the next one): an SMEM access of each CTA's thread and a pair MMA in the same
barrier interval overlapping is reported as a race, whatever order the hand-off ran them in.

With the sync checker on (the `mmair-run` default), both CTAs run through the asynchronous checker
of executor/tcgen05/async_checker.py on one engine (the CTA's rank is its core): a pair MMA reads both
CTAs' SMEM and writes both CTAs' TMEM on the issuer's tensor-core unit, a multicast commit
completes phases of both CTAs' mbarriers, and the cluster barrier joins the threads' clocks; the
interval check above is what `--sync-check=off` keeps.

Not modelled: `--timing`, `--check-coverage`, more than two CTAs per cluster.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.turns import Abort, TurnTaking

PAIR = 2
"""CTAs in the cluster of a `cta_group::2` kernel (one CTA pair)."""


class Cluster(TurnTaking):
    """The hand-off between the CTAs of one cluster (module docstring)."""

    def __init__(self, size: int = PAIR) -> None:
        self.size = size
        self.ctas: list[Any] = []
        """Each CTA's `Tcgen05Functions` (its SMEM, TMEM, mbarriers), by rank."""
        self.cond = threading.Condition()
        self.turn = 0
        self.done = [False] * size
        self.waiting: dict[int, tuple[Callable[[], bool], str, Any]] = {}
        self.error: BaseException | None = None
        self.aborted = False
        self.barrier_arrived = 0
        self.barrier_generation = 0
        self.passed = [0] * size
        """Cluster barriers each CTA has passed: accesses of two CTAs in the same barrier
        interval are unordered."""
        self.peer_reads: list[tuple[int, int, int, int, Any]] = []
        """(CTA whose SMEM is read, lo, end, barrier interval, the MMA) of pair MMAs."""
        self.smem_writes: list[tuple[int, int, int, int, Any]] = []
        """(CTA, lo, end, barrier interval, op) of each CTA thread's SMEM writes."""

    # --- waiting ------------------------------------------------------------------------------

    def _runnable(self, rank: int) -> bool:
        if self.done[rank]:
            return False
        waiting = self.waiting.get(rank)
        return waiting is None or waiting[0]()

    def _hand_off(self, rank: int) -> None:
        """Give the turn to the next runnable CTA after `rank` (itself last); none: the end, or a
        deadlock when a CTA still waits."""
        for step in range(1, self.size + 1):
            nxt = (rank + step) % self.size
            if self._runnable(nxt):
                self.turn = nxt
                self.cond.notify_all()
                return
        if self.waiting and self.error is None:
            first = min(self.waiting)
            others = [str(r) for r in range(self.size) if r != first]
            _, what, op = self.waiting[first]
            self.error = ExecutionError(
                f"deadlock: CTA {first} of the CTA pair {what}, which can never happen (CTA "
                f"{', '.join(others)} {'ended' if all(self.done[int(r)] for r in others) else 'waits too'})",
                op)
        self.aborted = True
        self.turn = -1
        self.cond.notify_all()

    def wait_until(self, rank: int, ready: Callable[[], bool], what: str, op: Any) -> None:
        """CTA `rank` (holding the turn) waits at `op` until `ready()`: the other CTA runs
        meanwhile."""
        if ready():
            return
        with self.cond:
            self.waiting[rank] = (ready, what, op)
            self._hand_off(rank)
            self.cond.wait_for(lambda: self.turn == rank or self.aborted)
            if self.turn != rank:  # deadlock or the other CTA faulted
                raise Abort
            del self.waiting[rank]

    def barrier(self, rank: int, op: Any) -> None:
        """`tcgen05.cluster_sync` of CTA `rank`."""
        generation = self.barrier_generation
        self.barrier_arrived += 1
        self.passed[rank] += 1
        if self.barrier_arrived == self.size:
            self.barrier_arrived = 0
            self.barrier_generation += 1
            return
        self.wait_until(rank, lambda: self.barrier_generation != generation,
                        "waits at tcgen05.cluster_sync (barrier.cluster)", op)

    # --- cross-CTA races on shared memory ----------------------------------------------------------

    def smem_write(self, rank: int, lo: int, end: int, op: Any) -> None:
        """CTA `rank`'s thread writes its SMEM bytes [lo, end): a race with a pair MMA of the
        other CTA reading them in the same barrier interval."""
        interval = self.passed[rank]
        for reader, r_lo, r_end, r_interval, mma_op in self.peer_reads:
            if reader == rank and r_interval == interval and lo < r_end and r_lo < end:
                raise self._race(rank, max(lo, r_lo), min(end, r_end), op, mma_op, "writes",
                                 "reads")
        self.smem_writes.append((rank, lo, end, interval, op))

    def peer_read(self, issuer: int, rank: int, lo: int, end: int, op: Any) -> None:
        """A pair MMA issued by CTA `issuer` reads CTA `rank`'s SMEM bytes [lo, end)."""
        interval = self.passed[issuer]
        for writer, w_lo, w_end, w_interval, write_op in self.smem_writes:
            if writer == rank and w_interval == interval and lo < w_end and w_lo < end:
                raise self._race(rank, max(lo, w_lo), min(end, w_end), op, write_op, "reads",
                                 "writes")
        self.peer_reads.append((rank, lo, end, interval, op))

    def _race(self, rank: int, lo: int, end: int, op: Any, other: Any, does: str,
              other_does: str) -> ExecutionError:
        from mmair.executor.engine.events import op_where

        where = op_where(other)
        return ExecutionError(
            f"race on smem bytes [{lo}, {end}) of CTA {rank} of the CTA pair: '{op.name}' "
            f"{does} them, '{other.name}'{f' at {where}' if where else ''} {other_does} them, "
            f"in the same interval between tcgen05.cluster_sync barriers (a cta_group::2 MMA "
            f"reads the peer CTA's shared memory: a cluster barrier must order the peer's writes "
            f"before it)", op)

    # --- the run (executor/engine/turns.py) -----------------------------------------------------------

    def _mark_done(self, rank: int) -> None:
        self.done[rank] = True

    def _fault_label(self, rank: int) -> str:
        return f"in CTA {rank} of the CTA pair"

    def _thread_name(self, rank: int) -> str:
        return f"mmair-cta{rank}"


def uses_cta_pair(module: Any) -> bool:
    """True when a tcgen05 op of `module` names `cta_group(2)`: it runs on a CTA pair."""
    from mmair.dialects import tcgen05

    for op in module.walk():
        if isinstance(op, tcgen05.ClusterRankOp | tcgen05.ClusterSyncOp):
            return True
        group = op.properties.get("cta_group") if op.name.startswith("tcgen05.") else None
        if group is not None and getattr(getattr(group, "value", None), "data", None) == 2:
            return True
    return False


class PairSeam:
    """The seam of one CTA of a pair: its thread's SMEM writes (`memref.copy` into a shared-memory
    view, `memref.store` of a shared-memory element) go to `Cluster.smem_write`."""

    def __init__(self, cluster: Cluster, rank: int) -> None:
        from xdsl.dialects import memref

        self.cluster = cluster
        self.rank = rank
        self.produced: dict[int, Any] = {}
        self.handlers = {memref.CopyOp: self._copy, memref.StoreOp: self._store}

    def _run(self, interp: Any, op: Any, args: tuple) -> Any:
        ft, fn = interp._impls._impl_dict[type(op)]  # pyright: ignore[reportPrivateUsage]
        return fn(ft, interp, op, args)

    def _record(self, view: Any, op: Any, element: tuple | None = None) -> None:
        import numpy as np

        smem = self.cluster.ctas[self.rank].smem.data
        if not isinstance(view, np.ndarray) or view.size == 0:
            return
        start = view.__array_interface__["data"][0] - smem.__array_interface__["data"][0]
        if not 0 <= start < smem.nbytes:
            return
        if element is not None:
            lo = start + sum(int(i) * st for i, st in zip(element, view.strides, strict=True))
            self.cluster.smem_write(self.rank, lo, lo + view.itemsize, op)
            return
        extent = sum((n - 1) * abs(st) for n, st in zip(view.shape, view.strides, strict=True))
        self.cluster.smem_write(self.rank, start, start + extent + view.itemsize, op)

    def _copy(self, interp: Any, op: Any, args: tuple) -> Any:
        result = self._run(interp, op, args)
        self._record(args[1], op)
        return result

    def _store(self, interp: Any, op: Any, args: tuple) -> Any:
        result = self._run(interp, op, args)
        self._record(args[1], op, tuple(args[2:]))
        return result

    def finish(self) -> None:
        return None


def run_pair(make_interpreter: Callable[[int], Any], entry_op: Any,
             values: list[Any], sync_check: bool = False,
             gm_names: dict | None = None) -> tuple[list[Any], list[Any]]:
    """Run `entry_op` on the two CTAs of a pair sharing the GM `values`: `make_interpreter(rank)`
    gives each CTA's (interpreter, memory). With `sync_check`, each CTA runs through the
    asynchronous checker (`tcgen05_async.Tcgen05Seam`, one engine for both CTAs: rank = core);
    otherwise through `PairSeam` (the cross-CTA shared-memory interval check). Returns the
    interpreters and each CTA's results."""
    from mmair.dialects import tcgen05
    from mmair.executor.engine.scheduler import Scheduler
    from mmair.executor.tcgen05.async_checker import PairCheck, Tcgen05Seam, is_descriptor_level
    from mmair.isa.tcgen05.units import UNITS

    cluster = Cluster()
    interps = []
    check = PairCheck()
    scheduler = Scheduler(cores=cluster.size, gm_names=gm_names, record_preds=False,
                          units=UNITS) if sync_check else None
    for rank in range(cluster.size):
        interp, _ = make_interpreter(rank)
        functions = interp._impls._impl_dict[tcgen05.MmaOp][0]  # pyright: ignore
        functions.rank = rank
        functions.cluster = cluster
        cluster.ctas.append(functions)
        if sync_check:
            seam = Tcgen05Seam(gm_names, core=rank, scheduler=scheduler, pair=check,
                               descriptor_level=is_descriptor_level(entry_op))
            seam.functions = functions
            check.seams.append(seam)
            interp.seam = seam
        else:
            interp.seam = PairSeam(cluster, rank)
        interps.append(interp)
    results = cluster.run([
        (lambda i=interp: i.call_op(entry_op, tuple(values))) for interp in interps])
    for seam in check.seams:
        seam.finish()
    return interps, results
