"""The asynchronous tcgen05 checker: a tcgen05 kernel's ops as events of the shared engine.

With the sync checker on (the `mmair-run` default), a module that holds tcgen05 ops runs through
`Tcgen05Seam` instead of the Ascend `IssueSeam`. Every op still computes its values when it is
issued (one legal schedule: each async unit as fast as possible), and every access becomes an
`Event` of the engine (`executor/engine/events.py`, `executor/engine/hb.py`) on one lane of the CTA's units
(`isa/tcgen05/units.py`):

* `thread` (in order): `memref.copy` into or out of shared memory (its SMEM bytes),
  `memref.load` / `memref.store` of a shared-memory element,
  `tcgen05.dealloc` (a write of the whole allocation: nothing may still use it),
  `tcgen05.mbarrier_arrive`;
* `tc` (in order, async to the thread): `tcgen05.mma` (reads the SMEM bytes its A/B descriptors
  address, or A's TMEM cells, writes D's lanes x columns), `tcgen05.commit`;
* `ld` / `st`: `tcgen05.ld` (reads its TMEM cells; its registers are defined only after
  `tcgen05.wait_ld`) and `tcgen05.st` (writes TMEM cells, visible after `tcgen05.wait_st`).

Happens-before edges, all expressed as joins of the engine's vector clocks:

* issue: an op issued to `tc`, `ld` or `st` starts after everything the thread did before;
* `tcgen05.commit` snapshots the `tc` clock (every earlier MMA of the thread, PTX ISA
  "tcgen05.commit"); the mbarrier phase completes with its last arrival; phase k's snapshot
  includes phase k-1's (the phases of one mbarrier complete in order);
* `tcgen05.mbarrier_wait %bar, parity` joins the snapshot of the phase it observes. The async
  units may be slow: between the phases the thread already observed and all phases whose arrivals
  were issued, the wait may see the EARLIEST phase with that parity, so the checker joins that one
  (a wrong parity that works only if the MMA is fast is reported as the race it can cause); when
  no such phase exists the wait can never return: a deadlock;
* `tcgen05.wait_ld` / `wait_st` join the `ld` / `st` lane into the thread.

Reported (one `file:line:col: error:` each, both ops located): races on SMEM bytes and TMEM lanes x
columns between unordered accesses (D read by `tcgen05.ld` before the wait, SMEM refilled under an
in-flight MMA, TMEM deallocated under it), the thread reading `tcgen05.ld` registers before
`tcgen05.wait_ld`, a wait that can never complete, a wait whose barrier can complete phases back to
the awaited parity before it looks (phase aliasing: it hangs in some legal schedule), and at
kernel end async work the thread never waited for (an MMA never committed, a commit whose phase
was never waited, an ld/st never waited).

TMA (`tcgen05.tma_load`, PTX `cp.async.bulk.tensor`) is the `tma` unit: its SMEM write is an event
issued after the thread's earlier accesses, and its complete-tx is an arrival on the mbarrier with
the `tma` clock, so the phase that completes with the copy's bytes carries it to the waiter. A stage
refilled by TMA while an MMA that read it may still run is a race naming both ops; an MMA that
reads TMA-written bytes through a descriptor of another swizzle is a layout mismatch naming both.

Not modelled: the async proxy (`fence.proxy.async` is assumed where the thread's SMEM writes feed
an MMA), the `tcgen05.fence_*_thread_sync` ops (they order tcgen05 ops across thread
synchronisation, which a one-thread model does not have), the GM reads of TMA copies.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from mmair.dialects import tcgen05
from mmair.dialects.pto.access import Access
from mmair.dialects.value_names import value_label
from mmair.executor.engine.events import Event, SyncError, format_iteration, lane_of
from mmair.executor.engine.scheduler import Scheduler
from mmair.executor.tcgen05.tma_layout import TmaLayouts
from mmair.isa.tcgen05 import layouts
from mmair.isa.tcgen05.tmem_moves import ld_st_extent
from mmair.isa.tcgen05.units import TMEM_ROW_BYTES, UNITS, Unit

_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1
MAX_VIEW_ACCESSES = 64
"""Accesses one strided SMEM view becomes at most (beyond: its byte hull, conservative)."""


_ASYNC_OPS = (tcgen05.MmaOp, tcgen05.CpOp, tcgen05.ShiftOp, tcgen05.LdOp, tcgen05.StOp,
              tcgen05.CommitOp, tcgen05.TmaLoadOp)


def holds_tcgen05(module: Operation) -> bool:
    """True when `module` holds an asynchronous tcgen05 op (mma, cp, shift, ld, st, commit): its
    kernel runs through `Tcgen05Seam`."""
    return any(isinstance(op, _ASYNC_OPS) for op in module.walk())


def is_descriptor_level(module: Operation) -> bool:
    """True when `module` has no `tcgen05.commit`: the descriptor-level form (an MMA whose D is
    read back through its TMEM memref, examples/tcgen05_mma_f16.mlir). Its model: a thread
    access of a TMEM memref (`memref.copy`, `memref.load`/`store`) stands for the commit, wait,
    tcgen05.ld/st and wait::ld/st sequence a lowering emits, so it first completes every async
    op issued before it; the kernel end (where the runner reads the results) completes the rest.
    A `tcgen05.ld` is not such an access: reading D with it still needs a commit and a wait."""
    return not any(isinstance(op, tcgen05.CommitOp) for op in module.walk())


class PairCheck:
    """What the seams of a CTA pair share: the seams by rank, and each cluster barrier's thread
    clocks (by barrier generation)."""

    def __init__(self) -> None:
        self.seams: list[Tcgen05Seam] = []
        self.arrivals: dict[int, list[list[int]]] = {}


def _idesc_n(kind: str, idesc: int) -> int:
    from mmair.isa.tcgen05 import rules
    from mmair.isa.tcgen05.idesc import decode_idesc

    return rules.mma_shape(decode_idesc(idesc, kind))[1]


def pair_scale_reads(fn: Any, op: tcgen05.MmaOp, values: dict,
                     n: int) -> list[tuple[int, int, int, int]]:
    """(lane, lanes, column, columns) hulls of the scale factors a block-scaled cta_group::2 MMA
    reads in EACH CTA's TMEM: its 128 A rows' at scale_a, all N columns' at scale_b (the
    one-CTA layout, `tcgen05_kernels.mma_pair`); none for a dense kind."""
    from mmair.isa.tcgen05.layouts import TMEM_LANES, scale_factor_cells, tmem_column

    reads = []
    for value, rows in ((op.scale_a, TMEM_LANES), (op.scale_b, n)):
        if value is not None:
            _, offsets = scale_factor_cells(np.arange(rows))
            column = tmem_column(fn.tmem_address(values[value], "scale"))
            reads.append((0, TMEM_LANES, column, int(offsets.max()) + 1))
    return reads


def _pointer(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _label(value: SSAValue) -> str:
    return value_label(value, "a value")


class Tcgen05Seam:
    """The checker-on seam of one CTA running a tcgen05 kernel (module docstring). It has the
    interface of `executor.seam.IssueSeam` that the interpreter and runner use: `handlers`,
    `produced`, `scalar_reads`, `finish`."""

    def __init__(self, gm_names: dict[Hashable, str] | None = None, core: int = 0,
                 descriptor_level: bool = False, scheduler: Scheduler | None = None,
                 pair: PairCheck | None = None):
        self.core = core
        self.descriptor_level = descriptor_level
        """No tcgen05.commit in the kernel: a thread access of a TMEM memref and the kernel end
        complete every earlier async op (`is_descriptor_level`)."""
        self.pair = pair
        """A CTA pair (cta_group::2): the seams of both CTAs share one scheduler; `core` is the
        CTA's rank, and its SMEM and TMEM are the engine memories keyed by it."""
        self.memory: Hashable = None if pair is None else core
        self.gm_names = gm_names if gm_names is not None else {}
        self.scheduler = scheduler if scheduler is not None else Scheduler(
            gm_names=gm_names, record_preds=False, units=UNITS)
        self.hb = self.scheduler.hb
        self.thread = lane_of(core, Unit.THREAD)
        self.lanes = {unit: lane_of(core, unit) for unit in UNITS}
        self.handlers: dict[type[Operation], Callable[[Any, Operation, tuple], Any]] = {
            tcgen05.SmemAllocOp: self._smem_alloc,
            tcgen05.MmaOp: self._mma,
            tcgen05.CommitOp: self._commit,
            tcgen05.MbarrierInitOp: self._mbarrier_init,
            tcgen05.MbarrierInvalOp: self._mbarrier_inval,
            tcgen05.MbarrierArriveOp: self._mbarrier_arrive,
            tcgen05.MbarrierWaitOp: self._mbarrier_wait,
            tcgen05.LdOp: self._ld,
            tcgen05.StOp: self._st,
            tcgen05.WaitLdOp: self._wait_ld,
            tcgen05.WaitStOp: self._wait_st,
            tcgen05.CpOp: self._cp,
            tcgen05.TmaLoadOp: self._tma_load,
            tcgen05.ShiftOp: self._shift,
            tcgen05.DeallocOp: self._dealloc,
            tcgen05.ClusterSyncOp: self._cluster_sync,
            memref.CopyOp: self._copy,
            memref.LoadOp: self._load,
            memref.StoreOp: self._store,
        }
        self.produced: dict[int, Event] = {}
        """`tcgen05.ld` results not yet read by the thread after a `tcgen05.wait_ld`."""
        self.functions: Any = None  # the interpreter's Tcgen05Functions (SMEM, TMEM, mbarriers)
        self.buffers: list[tuple[int, int, str]] = []
        """SMEM allocations (start, end, name) for messages."""
        self.phases: dict[int, list[list[int]]] = {}
        """mbarrier (SMEM address) -> the clock snapshot of each completed phase."""
        self.completers: dict[int, list[Event]] = {}
        """mbarrier -> the event (commit, arrive, TMA copy) whose arrival completed each phase."""
        self.arrivals: dict[int, list[int] | None] = {}
        """mbarrier -> the joined snapshot of the arrivals of its current phase."""
        self.known: dict[int, int] = {}
        """mbarrier -> phases the thread has observed complete (waits returned)."""
        self.async_events: dict[Unit, list[Event]] = {
            Unit.TC: [], Unit.TMA: [], Unit.LD: [], Unit.ST: []}
        self.tma = TmaLayouts()
        """What the TMA copies into this CTA wrote (the layout checks of the MMAs reading it)."""
        self.timing: Any = None  # (the runner's seam attributes; tcgen05 timing is not modelled)
        self.observer: Callable[[Any], None] | None = None
        """--check-coverage: told the GM bytes each memref.copy of the thread writes."""
        self.numerics = True

    # --- plumbing -----------------------------------------------------------------------------

    def _run(self, interp: Any, op: Operation, args: tuple) -> tuple:
        """The op's own implementation (its numerics and runtime checks)."""
        ft, fn = interp._impls._impl_dict[type(op)]  # pyright: ignore[reportPrivateUsage]
        return fn(ft, interp, op, args)[0]  # (values, terminator)

    def _fn(self, interp: Any) -> Any:
        if self.functions is None:
            self.functions = interp._impls._impl_dict[tcgen05.MmaOp][0]  # pyright: ignore
        return self.functions

    def _issue(self, interp: Any, op: Operation, unit: Unit, accesses: list[Access]) -> Event:
        """An event of `unit`: an async unit first joins the thread's clock (issue order)."""
        sched = self.scheduler
        lane = self.lanes[unit]
        if unit is not Unit.THREAD:
            sched.flush()
            self._join(lane, self.hb.clock[self.thread])
        ev = Event(sched.next_seq(), self.core, unit, op, op.name, accesses, interp.iteration)
        sched.issue(ev)
        if unit is not Unit.THREAD:
            self.async_events[unit].append(ev)
        return ev

    def _join(self, lane: int, snapshot: list[int]) -> None:
        clock = self.hb.clock[lane]
        clock[:] = map(max, clock, snapshot)

    def _snapshot(self, lane: int) -> list[int]:
        self.scheduler.flush()
        return list(self.hb.clock[lane])

    def _smem_name(self, start: int) -> str:
        for lo, hi, name in self.buffers:
            if lo <= start < hi:
                return name if self.pair is None else f"{name} of CTA {self.core}"
        return "shared memory" if self.pair is None else f"shared memory of CTA {self.core}"

    def _smem_span(self, lo: int, end: int, write: bool) -> Access:
        return Access("smem", lo, end - lo, write=write, buffer=self._smem_name(lo),
                      memory=self.memory)

    def _tmem(self, value: SSAValue, array: np.ndarray, lane: int, column: int, lanes: int,
              columns: int, write: bool) -> Access:
        """TMEM cells lanes [lane, +lanes) x columns [column, +columns) as an engine access."""
        name = _label(value) if self.pair is None else f"{_label(value)} of CTA {self.core}"
        return Access("tmem", lane * TMEM_ROW_BYTES + column * 4, columns * 4, lanes,
                      TMEM_ROW_BYTES, write, name, self.memory)

    def _view_accesses(self, view: np.ndarray, write: bool, root: np.ndarray | None = None,
                       space: str = "smem", memory: Hashable = None) -> list[Access]:
        """The bytes of a numpy view inside `root` (default: shared memory; empty when the view
        is not inside it)."""
        if root is None:  # `_copy`, the only caller, set `self.functions` through `_fn` first
            root = self.functions.smem.data
        if root is None or not isinstance(view, np.ndarray):
            return []
        start = _pointer(view) - _pointer(root)
        if not 0 <= start < root.nbytes or view.size == 0:
            return []
        name = self._smem_name(start) if space == "smem" else ""
        if space == "smem":
            memory = self.memory
        item = view.itemsize
        shape, strides = list(view.shape), list(view.strides)
        # Merge the innermost contiguous dimensions into one run of `width` bytes.
        width = item
        while shape and strides[-1] == width:
            width *= shape.pop()
            strides.pop()
        if not shape:
            return [Access(space, start, width, write=write, buffer=name, memory=memory)]
        rows, stride = shape.pop(), strides.pop()
        outer = [(0,)]
        for n, s in zip(shape, strides, strict=True):
            outer = [(o[0] + i * s,) for o in outer for i in range(n)]
            if len(outer) > MAX_VIEW_ACCESSES:
                lo = start + min(0, sum(min(0, (k - 1) * t) for k, t in zip(view.shape,
                                 view.strides, strict=True)))
                hi = start + sum(max(0, (k - 1) * t) for k, t in zip(view.shape, view.strides,
                                                                     strict=True)) + item
                return [Access(space, lo, hi - lo, write=write, buffer=name, memory=memory)]
        return [Access(space, start + o[0], width, rows, stride, write, name, memory)
                for o in outer]

    # --- buffers --------------------------------------------------------------------------------

    def _smem_alloc(self, interp: Any, op: tcgen05.SmemAllocOp, args: tuple) -> Any:
        result = self._run(interp, op, args)
        view = result[0]
        start = _pointer(view) - _pointer(self._fn(interp).smem.data)
        self.buffers.append((start, start + view.nbytes, _label(op.buffer)))
        return result, None

    def _dealloc(self, interp: Any, op: tcgen05.DeallocOp, args: tuple) -> Any:
        fn = self._fn(interp)
        address = fn.tmem_address(args[0], "the dealloc operand")
        column = layouts.tmem_column(address)
        columns = fn.tmem.allocations.get(column)
        result = self._run(interp, op, args)
        if columns is not None:
            self._issue(interp, op, Unit.THREAD, [
                self._tmem(op.tmem, args[0], 0, column, layouts.TMEM_LANES, columns, True)])
        return result, None

    def _tmem_view_access(self, value: SSAValue, view: Any, write: bool) -> list[Access]:
        """The TMEM cells a (2-D) TMEM memref view covers, as one lanes x columns access; empty
        when `view` is not in tensor memory."""
        fn = self.functions
        if fn is None or not isinstance(view, np.ndarray) or view.ndim != 2 or view.size == 0:
            return []
        cells = fn.tmem.cells
        start = _pointer(view) - _pointer(cells)
        if not 0 <= start < cells.nbytes:
            return []
        lane, byte = divmod(start, TMEM_ROW_BYTES)
        rows, cols = view.shape
        row_stride, col_stride = view.strides
        lanes = rows if row_stride == TMEM_ROW_BYTES else layouts.TMEM_LANES - lane
        end = byte + (cols - 1) * col_stride + view.itemsize
        return [self._tmem(value, view, lane, byte // 4, lanes, -(-end // 4) - byte // 4, write)]

    def _complete_async(self) -> None:
        """Descriptor-level form: every async op issued so far has completed (the implicit
        commit and wait a lowering emits before the thread touches TMEM)."""
        self._join_unit(Unit.TC)

    def _join_unit(self, unit: Unit) -> None:
        """The thread waits for everything `unit` was issued so far."""
        lane = self.lanes[unit]
        snap = self._snapshot(lane)
        snap[lane] = self.hb.count[lane]  # mutation: skip (a unit's own entry is its count once its events ran: async units never wait)
        self._join(self.thread, snap)

    def _copy(self, interp: Any, op: memref.CopyOp, args: tuple) -> Any:
        self._fn(interp)
        result = self._run(interp, op, args)
        tmem = (self._tmem_view_access(op.source, args[0], False)
                + self._tmem_view_access(op.destination, args[1], True))
        if tmem and self.descriptor_level:
            self._complete_async()
        accesses = (self._view_accesses(args[0], False) + self._view_accesses(args[1], True)
                    + tmem)
        if accesses:
            self._issue(interp, op, Unit.THREAD, accesses)
        if self.observer is not None and isinstance(args[1], np.ndarray):
            # --check-coverage: the GM bytes the thread writes (one thread: no race to check)
            root = args[1]
            while isinstance(root.base, np.ndarray):
                root = root.base
            if id(root) in self.gm_names:
                self.observer(self._view_accesses(args[1], True, root, "gm", id(root)))
        return result, None

    def _element(self, interp: Any, op: Operation, args: tuple, view: Any, index: tuple,
                 write: bool) -> Any:
        """memref.load/store of one element: an SMEM access of the thread when `view` is in
        shared memory (after the op ran: its index check comes first)."""
        fn = self._fn(interp)
        result = self._run(interp, op, args)
        if isinstance(view, np.ndarray):
            offset = sum(int(i) * s for i, s in zip(index, view.strides, strict=True))
            start = _pointer(view) - _pointer(fn.smem.data)
            if 0 <= start < fn.smem.data.nbytes:
                self._issue(interp, op, Unit.THREAD, [Access(
                    "smem", start + offset, view.itemsize, write=write,
                    buffer=self._smem_name(start + offset), memory=self.memory)])
            elif 0 <= _pointer(view) - _pointer(fn.tmem.cells) < fn.tmem.cells.nbytes:
                memref_value = op.operands[0 if isinstance(op, memref.LoadOp) else 1]
                element = view[tuple(slice(int(i), int(i) + 1) for i in index)]
                accesses = self._tmem_view_access(memref_value, element, write)
                if self.descriptor_level:
                    self._complete_async()
                self._issue(interp, op, Unit.THREAD, accesses)
        return result, None

    def _load(self, interp: Any, op: memref.LoadOp, args: tuple) -> Any:
        return self._element(interp, op, args, args[0], tuple(args[1:]), False)

    def _store(self, interp: Any, op: memref.StoreOp, args: tuple) -> Any:
        return self._element(interp, op, args, args[1], tuple(args[2:]), True)

    # --- the tensor core ------------------------------------------------------------------------

    def _mma_pair(self, interp: Any, op: tcgen05.MmaOp, args: tuple) -> Any:
        """A cta_group::2 MMA: it reads the A and B halves in the SMEM of both CTAs and writes
        D's 128 rows in the TMEM of both (`tcgen05_kernels.mma_pair`), on this CTA's unit."""
        from mmair.executor.tcgen05.kernels import PAIR_ROWS, pair_smem_spans

        self._run(interp, op, args)  # refuses what mma_pair does not model, A in TMEM included
        fn = self._fn(interp)
        values = dict(zip(op.operands, args, strict=True))
        d = fn.tmem_address(values[op.d], "d")
        idesc = int(values[op.idesc]) & _MASK32
        n = _idesc_n(op.kind.data, idesc)
        # (Were A in TMEM modelled, its cells would be a TMEM read here, as in `_mma`.)
        a_word = None  # A in TMEM has no SMEM span
        if not op.a_in_tmem:  # mutation: skip (A in TMEM is refused by self._run above)
            a_word = int(values[op.a]) & _MASK64
        accesses = []
        assert self.pair is not None
        first = self.core & ~1
        for seam in self.pair.seams[first:first + 2]:
            for lo, end in pair_smem_spans(op.kind.data, idesc, a_word,
                                           int(values[op.b]) & _MASK64):
                accesses.append(seam._smem_span(lo, end, False))
            accesses.append(seam._tmem(op.d, values[op.d], layouts.tmem_lane(d),
                                       layouts.tmem_column(d), PAIR_ROWS, n, True))
            for value, (lane, lanes, column, columns) in zip(
                    (op.scale_a, op.scale_b), pair_scale_reads(fn, op, values, n), strict=False):
                accesses.append(seam._tmem(value, values[value], lane, column, lanes, columns,
                                           False))  # each CTA's scale factors, in its TMEM
        self._issue(interp, op, Unit.TC, accesses)
        return (), None

    def _mma(self, interp: Any, op: tcgen05.MmaOp, args: tuple) -> Any:
        from mmair.executor.tcgen05.kernels import mma_footprint

        if op.cta_group.value.data == 2:
            return self._mma_pair(interp, op, args)
        self._run(interp, op, args)
        fn = self._fn(interp)
        values = dict(zip(op.operands, args, strict=True))
        d_view = values[op.d]
        d = fn.tmem_address(d_view, "d")
        a_view = values[op.a]
        footprint = mma_footprint(
            fn.smem, kind=op.kind.data, idesc=int(values[op.idesc]) & _MASK32,
            a=None if op.a_in_tmem else int(a_view) & _MASK64,
            b=int(values[op.b]) & _MASK64, ws=op.ws is not None,
            sparse=op.sparse is not None,
            zero_column_mask=None if op.zero_column_mask is None
            else int(values[op.zero_column_mask]) & _MASK64,
            **{name: fn.tmem_address(values[v], name)
               for name, v in (("sparse_metadata", op.sparse_metadata), ("scale_a", op.scale_a),
                               ("scale_b", op.scale_b)) if v is not None})
        m, n = footprint.m, footprint.n
        self.tma.check_mma(op, footprint, int(values[op.idesc]) & _MASK32,
                           None if op.a_in_tmem else int(a_view) & _MASK64,
                           int(values[op.b]) & _MASK64, self._smem_name)
        accesses = [self._smem_span(lo, end, False) for lo, end in footprint.smem]
        extra = [v for v in (op.sparse_metadata, op.scale_a, op.scale_b) if v is not None]
        for value, (lane, lanes, column, columns) in zip(extra, footprint.tmem_reads,
                                                          strict=True):
            accesses.append(self._tmem(value, values[value], lane, column, lanes, columns, False))
        if op.a_in_tmem:  # (.ashift also moves A's rows: a write)
            a = fn.tmem_address(a_view, "a")
            accesses.append(self._tmem(op.a, a_view, layouts.tmem_lane(a), layouts.tmem_column(a),
                                       m, footprint.a_columns, op.ashift is not None))
        accesses.append(self._tmem(op.d, d_view, layouts.tmem_lane(d), layouts.tmem_column(d),
                                   m, n, True))
        self._issue(interp, op, Unit.TC, accesses)
        return (), None

    def _tma_load(self, interp: Any, op: tcgen05.TmaLoadOp, args: tuple) -> Any:
        """A TMA copy: an SMEM write of the `tma` unit in every destination CTA, then its
        complete-tx on the mbarrier (an arrival with the `tma` clock)."""
        fn = self._fn(interp)
        key = self._bar(interp, args[2 + len(op.coords)])
        seams = {self.core: self} if self.pair is None else dict(enumerate(self.pair.seams))
        owners: dict[int, Tcgen05Seam] = {}
        for rank in fn.tma_targets(op, args):
            owner = fn.tma_barrier_cta(op, rank).rank if self.pair is not None else self.core
            owners[owner] = seams[owner]
        befores = {rank: (state.phase if (state := seam.functions.mbarriers.get(key)) else 0)
                   for rank, seam in owners.items() if seam.functions is not None}
        self._run(interp, op, args)
        accesses = [seams[rank if self.pair is not None else self.core]._smem_span(
            write.lo, write.hi, True) for rank, write in fn.last_tma]
        ev = self._issue(interp, op, Unit.TMA, accesses)
        for rank, write in fn.last_tma:
            seams[rank if self.pair is not None else self.core].tma.record(write, ev)
        snap = self._snapshot(self.lanes[Unit.TMA])
        for rank, seam in owners.items():
            state = seam.functions.mbarriers[key]
            seam._record_arrival(key, snap, state.phase > befores.get(rank, 0), ev)
        return (), None

    def _cp(self, interp: Any, op: tcgen05.CpOp, args: tuple) -> Any:
        self._run(interp, op, args)
        f = self._fn(interp).last_cp
        seams = [self]
        if self.pair is not None and op.cta_group.value.data == 2:  # each CTA's SMEM -> its TMEM
            seams = self.pair.seams[self.core & ~1:(self.core & ~1) + 2]
        self._issue(interp, op, Unit.TC, [access for seam in seams for access in (
            seam._smem_span(*f.smem, False),
            seam._tmem(op.tmem, args[0], f.lane, f.column, f.lane_end - f.lane,
                       f.column_end - f.column, True))])
        return (), None

    def _shift(self, interp: Any, op: tcgen05.ShiftOp, args: tuple) -> Any:
        self._run(interp, op, args)
        lane, lanes, column, columns = self._fn(interp).last_shift
        seams = [self]
        if self.pair is not None and op.cta_group.value.data == 2:  # both CTAs' TMEM
            seams = self.pair.seams[self.core & ~1:(self.core & ~1) + 2]
        self._issue(interp, op, Unit.TC, [
            seam._tmem(op.tmem, args[0], lane, column, lanes, columns, True) for seam in seams])
        return (), None

    # --- mbarriers ------------------------------------------------------------------------------

    def _bar(self, interp: Any, view: np.ndarray) -> int:
        return _pointer(view) - _pointer(self._fn(interp).smem.data)

    def _mbarrier_init(self, interp: Any, op: tcgen05.MbarrierInitOp, args: tuple) -> Any:
        # A fresh barrier: never used, or its state dropped by its mbarrier_inval (the
        # executor refuses the init of a live one).
        self._run(interp, op, args)
        return (), None

    def _mbarrier_inval(self, interp: Any, op: tcgen05.MbarrierInvalOp, args: tuple) -> Any:
        """The end of an mbarrier's life: an asynchronous arrival (a commit, a TMA copy's
        complete-tx) that completed a phase the thread has not observed may still be in
        flight, and would then arrive on an invalidated object (PTX ISA mbarrier.inval:
        undefined). Pending arrivals of the current phase are the executor's to refuse."""
        key = self._bar(interp, args[0])
        known = self.known.get(key, 0)
        late = [ev for ev in self.completers.get(key, [])[known:] if ev.pipe is not Unit.THREAD]
        if late:
            raise SyncError(
                "race",
                f"race: invalidates the mbarrier at SMEM {key:#x} ({self._smem_name(key)}) while "
                f"the arrival of {late[0].describe()} on it may still be in flight (no "
                "tcgen05.mbarrier_wait observed the phase it completes): an arrival on an "
                "invalidated mbarrier is undefined (PTX ISA mbarrier.inval); wait for that "
                "phase first", op, (late[0],))
        self._run(interp, op, args)
        for table in (self.phases, self.completers, self.arrivals, self.known):
            table.pop(key, None)
        return (), None

    def _arrive(self, interp: Any, op: Operation, args: tuple, lane: int, ev: Event) -> None:
        """One arrival with the clock of `lane` (after the op's own event); completes a phase
        when the interpreter's mbarrier state says so. A commit's multicast in a CTA pair
        arrives on the mbarrier at the same offset in each CTA its mask names."""
        key = self._bar(interp, args[0])
        targets = [self]
        if self.pair is not None and isinstance(op, tcgen05.CommitOp) and op.cta_mask is not None:
            mask = int(args[1]) & 0xFFFF
            targets = [seam for rank, seam in enumerate(self.pair.seams) if mask >> rank & 1]
        befores = []
        for seam in targets:
            state = seam.functions.mbarriers.get(key) if seam.functions is not None else None
            befores.append(state.phase if state is not None else 0)
        self._run(interp, op, args)  # counts the arrivals (raises before mbarrier_init)
        snap = self._snapshot(lane)
        for seam, before in zip(targets, befores, strict=True):
            seam._record_arrival(key, snap, seam.functions.mbarriers[key].phase > before, ev)

    def _record_arrival(self, key: int, snap: list[int], completed: bool, ev: Event) -> None:
        """An arrival (of event `ev`) with clock `snap` on this CTA's mbarrier `key`;
        `completed`: it completed the current phase."""
        held = self.arrivals.get(key)
        if held is not None:
            snap = list(map(max, snap, held))
        phases = self.phases.setdefault(key, [])
        if completed:
            if phases:
                snap = list(map(max, snap, phases[-1]))
            phases.append(snap)
            self.completers.setdefault(key, []).append(ev)
            self.arrivals[key] = None  # mutation: skip (held arrivals are in the phase's snapshot, which later phases join)
        else:
            self.arrivals[key] = snap

    def _commit(self, interp: Any, op: tcgen05.CommitOp, args: tuple) -> Any:
        ev = self._issue(interp, op, Unit.TC, [])
        self._arrive(interp, op, args, self.lanes[Unit.TC], ev)
        return (), None

    def _mbarrier_arrive(self, interp: Any, op: tcgen05.MbarrierArriveOp, args: tuple) -> Any:
        ev = self._issue(interp, op, Unit.THREAD, [])
        self._arrive(interp, op, args, self.thread, ev)
        return (), None

    def _mbarrier_wait(self, interp: Any, op: tcgen05.MbarrierWaitOp, args: tuple) -> Any:
        key = self._bar(interp, args[0])
        state = self._fn(interp).mbarriers.get(key)
        if state is None or self.pair is not None:
            # the "before mbarrier_init" error; in a pair: the other CTA runs until the phase
            # completes (or the pair deadlocks)
            self._run(interp, op, args)
        parity = int(bool(args[1]))
        known = self.known.get(key, 0)
        issued = len(self.phases.get(key, ()))
        # The wait returns at the first phase j >= known - 1 with parity j % 2 == parity that is
        # complete; phases known .. issued - 1 may complete at any time (async units).
        j = known - 1 if (known - 1) % 2 == parity else known
        if j >= issued:
            raise SyncError(
                "deadlock",
                f"deadlock: waits on phase parity {parity} of the mbarrier at SMEM {key:#x} "
                f"({self._smem_name(key)}), which can never complete "
                f"({issued} phase{'s' if issued != 1 else ''} completed, the thread has observed "
                f"{known}; {state.pending_text()}, nothing left to arrive)", op)
        if issued % 2 == parity:
            self._aliasing(op, key, parity, known, issued)
        if j >= 0:
            self.scheduler.flush()
            self._join(self.thread, self.phases[key][j])
        self.known[key] = max(known, j + 1)
        return (), None

    def _aliasing(self, op: Operation, key: int, parity: int, known: int, issued: int) -> None:
        """A wait whose phase can be followed by another completed phase before it looks: every
        phase whose arrivals were issued before the wait may complete first (async units may be
        fast), and after `issued` phases the barrier's phase parity is `issued % 2`. PTX ISA
        mbarrier.test_wait/try_wait.parity: the wait returns once the phase of parity P has
        completed, i.e. while the current phase's parity differs from P; at parity P again it
        waits for phase `issued`, which nothing issued before it completes."""
        done = self.completers.get(key, [])
        shown = [f"phase {i} by {done[i].describe()}" for i in range(max(0, issued - 2), issued)
                 if i < len(done)]
        count = f"{issued} phase{'s' if issued != 1 else ''}"
        raise SyncError(
            "deadlock",
            f"deadlock (phase aliasing): waits on phase parity {parity} of the mbarrier at SMEM "
            f"{key:#x} ({self._smem_name(key)}), but {count} of it can complete before the wait "
            f"looks ({', '.join(shown)}; the thread has observed {known}): the barrier's phase "
            f"parity is then {parity} again and try_wait.parity {parity} waits for phase "
            f"{issued}, which nothing issued before it completes; wait for each phase before "
            f"the next one can complete (e.g. a wait between the commits)",
            op, tuple(done[max(0, issued - 2):issued]))

    def _cluster_sync(self, interp: Any, op: tcgen05.ClusterSyncOp, args: tuple) -> Any:
        """The cluster barrier: the thread continues after every CTA's thread arrived (their
        clocks joined)."""
        if self.pair is None:
            return self._run(interp, op, args), None
        cluster = self._fn(interp).cluster
        generation = cluster.barrier_generation
        self.pair.arrivals.setdefault(generation, []).append(self._snapshot(self.thread))
        result = self._run(interp, op, args)
        for snap in self.pair.arrivals[generation]:
            self._join(self.thread, snap)
        return result, None

    # --- TMEM loads and stores ------------------------------------------------------------------

    def _ld_st_access(self, interp: Any, op: tcgen05.LdOp | tcgen05.StOp, view: np.ndarray,
                      write: bool) -> Access:
        fn = self._fn(interp)
        address = fn.tmem_address(view, "the TMEM operand")
        packed = (op.pack if isinstance(op, tcgen05.LdOp) else op.unpack) is not None
        lanes, columns = ld_st_extent(op.shape.data, op.num.value.data,
                                      0 if op.split is None else op.split.value.data, packed)
        return self._tmem(op.tmem, view, layouts.tmem_lane(address) + op.lane.value.data,
                          layouts.tmem_column(address) + op.column.value.data, lanes, columns,
                          write)

    def _ld(self, interp: Any, op: tcgen05.LdOp, args: tuple) -> Any:
        result = self._run(interp, op, args)
        ev = self._issue(interp, op, Unit.LD, [self._ld_st_access(interp, op, args[0], False)])
        self.produced[id(op.regs)] = ev
        return result, None

    def _st(self, interp: Any, op: tcgen05.StOp, args: tuple) -> Any:
        result = self._run(interp, op, args)
        self._issue(interp, op, Unit.ST, [self._ld_st_access(interp, op, args[0], True)])
        return result, None

    def _wait(self, interp: Any, op: Operation, args: tuple, unit: Unit) -> Any:
        self._run(interp, op, args)
        self._join_unit(unit)
        return (), None

    def _wait_ld(self, interp: Any, op: tcgen05.WaitLdOp, args: tuple) -> Any:
        return self._wait(interp, op, args, Unit.LD)

    def _wait_st(self, interp: Any, op: tcgen05.WaitStOp, args: tuple) -> Any:
        return self._wait(interp, op, args, Unit.ST)

    # --- the thread reading ld registers --------------------------------------------------------

    def scalar_reads(self, interp: Any, op: Operation, args: tuple) -> tuple:
        """An op of the thread reads a `tcgen05.ld` result: it must come after a `wait_ld`."""
        produced = self.produced
        for value in op.operands:
            ev = produced.get(id(value))
            if ev is None:
                continue
            self.scheduler.flush()
            if ev.epoch > self.hb.clock[self.thread][ev.lane]:
                where = format_iteration(interp.iteration)
                raise SyncError(
                    "race",
                    f"race on registers {_label(value)}: '{op.name}' (the issuing thread"
                    f"{', ' + where if where else ''}) reads them, {ev.describe()} loads them; "
                    f"no tcgen05.wait_ld after the load orders them (tcgen05.ld is asynchronous)",
                    op, (ev,))
            del produced[id(value)]  # mutation: skip (a kept entry is checked again and passes: the clock only grows)
        return args

    # --- kernel end -----------------------------------------------------------------------------

    def finish(self) -> None:
        """Async work the thread never waited for: the first such op of each unit."""
        self.scheduler.finish()
        if self.descriptor_level:  # the runner reads the results: everything completed
            self._complete_async()
        clock = self.hb.clock[self.thread]
        for unit, events in self.async_events.items():
            lane = self.lanes[unit]
            late = [ev for ev in events if ev.epoch > clock[lane]]
            if not late:
                continue
            ev = late[0]
            if unit is Unit.TC:
                commits = [e for e in late if isinstance(e.op, tcgen05.CommitOp)]
                if commits and len(commits) == len(late):
                    # every MMA was waited through an earlier commit: only this arrive is left
                    ev = commits[0]
                    what = (f"{ev.describe()} is never waited: its arrive on the mbarrier is "
                            "still pending when the kernel ends (no tcgen05.mbarrier_wait "
                            "observes the phase it completes); every MMA before it was already "
                            "waited")
                elif commits:
                    ev = commits[0]
                    what = (f"{ev.describe()} is never waited: no tcgen05.mbarrier_wait observes "
                            "the mbarrier phase it completes (or a later one), so the kernel ends "
                            "with the MMAs it tracks possibly in flight")
                else:
                    what = (f"{ev.describe()} is never committed: no tcgen05.commit after it is "
                            "waited on, so the kernel ends with it possibly in flight")
            elif unit is Unit.TMA:
                what = (f"{ev.describe()} is never waited: no tcgen05.mbarrier_wait observes the "
                        "mbarrier phase its complete-tx finished, so the kernel ends with the copy "
                        "possibly in flight")
            else:
                what = (f"{ev.describe()} is never waited: no tcgen05.wait_{unit.value} after it "
                        "before the kernel ends")
            raise SyncError("unbalanced", what, ev.op, (ev,))
