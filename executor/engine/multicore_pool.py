"""Blocks of a multi-core launch on a process pool (`run_module(blocks=N, jobs=J)`,
`mmair-run --blocks N --jobs J`).

The J worker processes each run a contiguous share of the N blocks with the in-process hand-off
of `executor/engine/multicore.py` (one thread per block, one at a time); every worker's numpy work runs
in parallel with the others'. GM is one `multiprocessing.shared_memory` segment: the parent copies
the prepared arguments into it once, every worker maps it (no copies) and the parent copies the
results back; arguments no op can write (`runner.read_only_arguments`) stay in the parent's
arrays, which the workers read through the fork. Workers are forked from this process, once per
launch: they inherit the parsed module and the imports (made before the fork, with the
collector's generations frozen so that no worker copies the inherited heap by walking it).

`pto.sync_all` across workers: when no block of a worker can run, the worker meets the others at
a process barrier and every worker publishes how many of its blocks wait at a sync_all and how
many ended. All wait: the barrier opens everywhere. All ended: the launch is over. Anything else
(a block ended without reaching the sync_all the others wait at) is a deadlock.

Checking. Inside a worker, the sync checker (one `Scheduler` over the worker's blocks) finds the
races inside a core and between the worker's own blocks. Between workers, each block logs its GM
accesses (exact footprints, the same `dialects/pto/effects.py` rows the race checker uses) with
its epoch, the number of `sync_all`s it passed. Two blocks can only be ordered by a `sync_all`,
so two accesses of different blocks in the same epoch to overlapping bytes, one a write, are a
race: exactly the cross-core races the in-process happens-before reports. The parent checks the
logs (a byte-owner map per written buffer and epoch).

Launches whose module writes GM outside the logged footprints (a scalar `memref.store` or
`memref.copy`, tcgen05 ops) do not use the pool (`pool_safe`); scalar `memref.load`s are logged.

Identical results and diagnostics: whenever anything is wrong (a fault or deadlock in a worker,
or a cross-core overlap in the logs, with or without the sync checker) the parent discards the
workers' GM and re-runs the launch in process, deterministically: that run gives the diagnostic
(or, with the checker off, the deterministic result of the racy kernel) exactly as without
`jobs`. A clean launch has no cross-core overlap, so the order in which the workers ran cannot
change any byte: its outputs equal the in-process run's (tested), and the logs give
`--check-coverage` too.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import queue
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from math import gcd
from multiprocessing import shared_memory
from typing import Any

import numpy as np

from mmair.dialects.pto.access import Access
from mmair.dialects.pto.gm_access import gm_root

_TIMEOUT = 24 * 3600.0  # a worker that waits this long at a barrier gives up (never in practice)


@dataclass
class PoolResult:
    """What the workers of a clean launch give back (GM is already in the caller's arrays)."""

    results: tuple[Any, ...]
    per_core: list[dict[str, Any]]
    log: list[tuple[int, int, int, int, int, int, int, bool]] = field(default_factory=list)
    """GM accesses: (block, epoch, argument index, start, width, rows, stride, write)."""

    def accesses(self, values: list[Any]) -> list[Access]:
        """The logged GM writes as `Access`es of the caller's arrays (for `Coverage.record`)."""
        return [Access("gm", start, width, rows, stride, True, "", id(values[arg]))
                for _b, _e, arg, start, width, rows, stride, write in self.log if write]


def available() -> bool:
    """The pool forks its workers (they inherit the parsed module and the GM mapping); without
    `fork` (Windows, macOS default) launches run in process."""
    return "fork" in multiprocessing.get_all_start_methods()


def pool_safe(module: Any) -> bool:
    """Whether every GM write of `module` has a footprint in the logs: the writes of scalar
    `memref.store` / `memref.copy` (checked in a core's own events, not logged) and of tcgen05
    ops are not, so such launches run in process, where their order is deterministic."""
    from xdsl.dialects import memref

    return not any(isinstance(op, memref.StoreOp | memref.CopyOp)
                   or op.name.startswith("tcgen05.") for op in module.walk())


def shares(blocks: int, jobs: int) -> list[list[int]]:
    """Contiguous shares of the blocks, one per worker (at most `blocks` workers)."""
    jobs = max(1, min(jobs, blocks))
    return [list(range(w * blocks // jobs, (w + 1) * blocks // jobs)) for w in range(jobs)]


def run_pool(module: Any, entry: Any, target: str, values: list[Any],
             blocks: int, jobs: int, sync_check: bool, numerics: str,
             max_ops: int | None, max_gm_bytes: int | None,
             make_interpreter: Callable[..., tuple[Any, Any]],
             read_only: frozenset[int] = frozenset()) -> PoolResult | None:
    """Run the launch on `jobs` workers; GM results are copied into the arrays of `values`.
    None: something went wrong (module docstring); `values` are then unchanged.
    `make_interpreter` (`mmair.executor.runner.make_interpreter`) builds each block's
    interpreter: the pool is engine, the dialects' interpreter functions are not.
    `read_only`: positions in `values` of the GM arguments no op can write
    (`runner.read_only_arguments`): each worker converts them whole once for its blocks
    (`memory.ReadOnlyGm`), reading the caller's arrays (not copied to shared memory)."""
    # Arguments nothing writes stay where they are: the forked workers read the caller's
    # arrays (copy-on-write pages that are never written), no copy into or out of the segment.
    arrays = [(i, v) for i, v in enumerate(values)
              if isinstance(v, np.ndarray) and i not in read_only]
    offsets, total = {}, 0
    for i, v in arrays:
        offsets[i] = total
        total += -(-v.nbytes // 64) * 64  # 64-byte aligned views
    ctx = multiprocessing.get_context("fork")
    shm = shared_memory.SharedMemory(create=True, size=max(total, 1))
    try:
        gm: list[Any] = []  # the arguments, GM arrays as views of the shared segment
        for i, v in enumerate(values):
            if isinstance(v, np.ndarray) and i in offsets:
                # a view of the segment's array: the footprints' root (`gm_root`) is then the
                # argument's own array, as for an in-process argument
                view = np.ndarray(v.shape, v.dtype, buffer=shm.buf, offset=offsets[i]).view()
                view[...] = v
                gm.append(view)
            else:
                gm.append(v)
        parts = shares(blocks, jobs)
        barrier = ctx.Barrier(len(parts))
        status = ctx.Array("i", 2 * len(parts), lock=False)
        out = ctx.Queue()
        procs = [ctx.Process(target=_worker, daemon=True, args=(
            w, part, module, entry, target, gm, blocks, sync_check, numerics,
            max_ops, max_gm_bytes, make_interpreter, barrier, status, out, read_only))
            for w, part in enumerate(parts)]
        _worker_imports(sync_check)
        with warnings.catch_warnings():
            # Python >= 3.12 warns about fork() in a process with threads: the only other threads
            # are idle BLAS workers (OpenBLAS re-initialises them in the child)
            warnings.simplefilter("ignore", DeprecationWarning)
            # The parent's objects go to the collector's permanent generation while the workers
            # fork: a collection in a worker then never walks (and so never copies on write)
            # the inherited heap: the parsed module, the imported modules.
            gc.freeze()
            try:
                for p in procs:
                    p.start()
            finally:
                gc.unfreeze()
        reports: dict[int, Any] = {}
        try:
            while len(reports) < len(procs):
                try:
                    w, report = out.get(timeout=1.0)
                    reports[w] = report
                except queue.Empty:
                    dead = [w for w, p in enumerate(procs) if w not in reports and not p.is_alive()]
                    if dead:  # a worker died without a report (killed, out of memory)
                        barrier.abort()
                        for w in dead:
                            reports[w] = None
        except BaseException:  # Ctrl-C in the parent: no worker outlives it
            for p in procs:
                p.terminate()
            for p in procs:
                p.join()
            raise
        for p in procs:
            p.join()
        if any(r is None for r in reports.values()):
            return None
        log = [entry for w in sorted(reports) for entry in reports[w]["log"]]
        if _cross_core_overlap(log, values):
            if os.environ.get("MMAIR_POOL_DEBUG"):
                print("mmair pool: cross-core overlap", flush=True)
            return None
        for i, v in arrays:
            v[...] = gm[i]
        per_core = sorted((c for r in reports.values() for c in r["per_core"]),
                          key=lambda c: c["block"])
        return PoolResult(reports[0]["results"], per_core, log)
    finally:
        del gm
        shm.close()
        shm.unlink()


def _worker_imports(sync_check: bool) -> None:
    """Import what a worker imports before the fork, so that no worker imports it again (each
    run forks fresh workers; an import in each took a sizeable share of a short launch)."""
    import threadpoolctl  # noqa: F401  (`one_blas_thread`)

    from mmair.executor.engine import blas, coverage, memory, multicore  # noqa: F401

    if sync_check:
        from mmair.executor.engine import scheduler, seam  # noqa: F401


def _cross_core_overlap(log: list[tuple], values: list[Any]) -> bool:
    """Whether two blocks touch overlapping GM bytes in the same epoch, one of them writing.

    One owner mask per written buffer and epoch, in units of the greatest common divisor of
    every start, width and row stride of its records: every region then begins and ends on a
    unit, so a unit is either wholly inside a region's row or outside it and the coarse mask
    answers as a byte mask would (a 16 MiB f32 C written in 512-byte rows: 32 Ki entries instead
    of 16 Mi, which had made this check the parent's largest serial cost)."""
    by_key: dict[tuple[int, int], list[tuple]] = {}
    for rec in log:
        by_key.setdefault((rec[1], rec[2]), []).append(rec)
    for (_epoch, arg), recs in by_key.items():
        if not any(r[7] for r in recs):
            continue  # only reads of this buffer in this epoch
        unit = 0
        for _b, _e, _a, start, width, rows, stride, _w in recs:
            unit = gcd(unit, start, width, stride if rows > 1 else 0)
        unit = max(unit, 1)
        owner = np.full(-(-values[arg].nbytes // unit), -1, np.int16)
        for write_pass in (True, False):
            for block, _e, _a, start, width, rows, stride, write in recs:
                if write != write_pass:
                    continue
                region = _region(owner, start // unit, width // unit, rows, stride // unit)
                if np.any((region != -1) & (region != block)):
                    return True
                if write:
                    region[...] = block
    return False


def _region(mask: np.ndarray, start: int, width: int, rows: int, stride: int) -> np.ndarray:
    if rows <= 1:
        return mask[start:start + width]
    return np.lib.stride_tricks.as_strided(mask[start:], shape=(rows, width),
                                           strides=(stride * mask.itemsize, mask.itemsize))


# ------------------------------------------------------------------------------------------------
# The worker process
# ------------------------------------------------------------------------------------------------


class _Peers:
    """The barrier rounds between the workers (module docstring)."""

    def __init__(self, w: int, workers: int, blocks: int, barrier: Any, status: Any):
        self.w, self.workers, self.blocks = w, workers, blocks
        self.barrier, self.status = barrier, status

    def round(self, waiting: int, done: int) -> str:
        self.status[2 * self.w], self.status[2 * self.w + 1] = waiting, done
        try:
            self.barrier.wait(_TIMEOUT)
            total_wait = sum(self.status[2 * i] for i in range(self.workers))
            total_done = sum(self.status[2 * i + 1] for i in range(self.workers))
            self.barrier.wait(_TIMEOUT)  # everyone has read before the next round writes
        except threading.BrokenBarrierError:
            return "fault"
        if total_wait == self.blocks:
            return "open"
        if total_done == self.blocks:
            return "end"
        return "fault"  # a deadlock: the in-process re-run reports it

    def abort(self) -> None:
        self.barrier.abort()


class _GmLog:
    """Records one block's GM accesses with its epoch (an `IssueSeam.observer` or the
    `coverage` of a `CoverageSeam`)."""

    def __init__(self, block: int, launch: Any, index: int, args: dict[int, int], log: list):
        self.block, self.launch, self.index, self.args, self.log = block, launch, index, args, log

    def record(self, accesses: Any) -> None:
        epoch = self.launch.passed[self.index]
        for a in accesses:
            if a.space != "gm":
                continue
            arg = self.args.get(a.memory)
            if arg is None:
                continue  # a memref.alloc of this core: not shared
            self.log.append((self.block, epoch, arg, a.start, a.width, a.rows, a.stride,
                             a.write))


def _worker(w: int, part: list[int], module: Any, entry: Any, target: str, values: list[Any],
            blocks: int, sync_check: bool, numerics: str, max_ops: int | None,
            max_gm_bytes: int | None, make_interpreter: Callable[..., tuple[Any, Any]],
            barrier: Any, status: Any, out: Any, read_only: frozenset[int]) -> None:
    peers = _Peers(w, len(status) // 2, blocks, barrier, status)
    try:
        from mmair.executor.engine.blas import one_blas_thread
        from mmair.executor.engine.coverage import CoverageSeam
        from mmair.executor.engine.memory import ReadOnlyGm
        from mmair.executor.engine.multicore import Launch

        args = {id(gm_root(v)): i for i, v in enumerate(values) if isinstance(v, np.ndarray)}
        scheduler = None
        if sync_check:
            from mmair.executor.engine.scheduler import Scheduler

            scheduler = Scheduler(blocks, gm_names={k: f"%{i}" for k, i in args.items()})
        launch = Launch(blocks, scheduler, cores=part, peers=peers)
        log: list[tuple] = []
        interps = []
        images = ReadOnlyGm([values[i] for i in sorted(read_only)])  # one for the worker's blocks
        for index, block in enumerate(part):
            interp, memory = make_interpreter(module, target, max_ops, max_gm_bytes, numerics,
                                              block=block, blocks=blocks, launch=launch)
            memory.gm.read_only = images
            gm_log = _GmLog(block, launch, index, args, log)
            if scheduler is not None:
                from mmair.executor.engine.seam import IssueSeam

                interp.seam = IssueSeam(memory.target, core=block, scheduler=scheduler)
                interp.seam.observer = gm_log.record
            else:
                interp.seam = CoverageSeam(gm_log)  # type: ignore[arg-type]
            interps.append((interp, memory))
        with one_blas_thread():
            results = launch.run([lambda i=i: i.call_op(entry, tuple(values))
                                  for i, _ in interps])
            if scheduler is not None:
                scheduler.finish()
        out.put((w, {
            "results": tuple(results[0]) if part[0] == 0 else (),
            "per_core": [{"block": block, "op_counts": dict(interps[i][0].op_counts),
                          "peak_bytes": interps[i][1].peak_bytes()}
                         for i, block in enumerate(part)],
            "log": log,
        }))
    except BaseException:  # any fault: the parent re-runs the launch in process
        if os.environ.get("MMAIR_POOL_DEBUG"):
            import traceback

            traceback.print_exc()
        peers.abort()
        out.put((w, None))


def default_jobs() -> int:
    """The machine's cores available to this process."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1

