"""Interpreter functions for the `tcgen05` dialect (Blackwell tensor core, one CTA, cta_group::1).

Runtime values:

* descriptors are i32/i64 integers (negative ints are read as the unsigned word). The
  `make_idesc` / `make_smem_desc` / `make_zcmask` ops are not interpreted: they have a lowering,
  `tcgen05-materialize-descriptors` (part of `mmair-lower`), which makes them the constants the
  hardware sees; the executor carries no second implementation of them;
* a `#tcgen05.space<smem>` memref is a numpy view of the CTA's shared memory (`SharedMemory.data`)
  at the `smem_alloc` offset, row-major, so `memref.copy` moves GM data into it; sub-byte element
  types (f4/f6) cannot be viewed and raise (allocate their containers as i8/ui8 instead);
* a `#tcgen05.space<tmem>` memref is a numpy view of the TMEM cells (`TensorMemory.cells`): row i is
  lane i of the allocation; 32-bit elements take one cell each; 16-bit elements take the low half
  of one cell each (the D layout) when the memref's columns fit the allocation, else two per cell
  (the packed A layout); 8-bit elements pack four per cell (scale factors, sparse metadata).
  The TMEM address an op needs is recovered from the view's position in the cell array, so
  `memref.subview` windows of an allocation address the right lanes and columns.

`tcgen05.mma` decodes and checks every descriptor at run time (`tcgen05_kernels.mma`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, StringAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from mmair.dialects import tcgen05
from mmair.dialects.types import element_name
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.executor.tcgen05.kernels import CpFootprint, cp, mma, mma_pair, pair_smem_spans, shift
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory, tmem_view_columns
from mmair.executor.tcgen05.tma import TmaWrite, make_tensor_map, tma_load
from mmair.isa.dtypes import numpy_dtype
from mmair.isa.tcgen05 import layouts, tmem_moves

_MASK32 = (1 << 32) - 1
_MASK64 = (1 << 64) - 1
DEFAULT_TARGET = "sm_100a"


def _base_pointer(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


@dataclass
class MbarrierState:
    """An mbarrier: arrivals expected per phase, arrivals and transaction bytes still pending, and
    the number of completed phases (the current phase's parity is `phase % 2`). `expected` and
    `received` count the current phase's expect-tx and complete-tx bytes (for messages)."""

    count: int
    pending: int
    tx: int = 0
    phase: int = 0
    expected: int = 0
    received: int = 0
    interval: int = 0
    """Cluster barriers its CTA had passed at its `mbarrier_init` (a CTA pair: another CTA's
    arrival on it must come after a later cluster barrier, `Tcgen05Functions.remote_arrival`)."""

    def arrive(self, tx: int = 0) -> None:
        self.tx += tx
        self.expected += tx
        self.pending -= 1
        self._complete()

    def complete_tx(self, nbytes: int, key: int, remote: bool = False) -> None:
        """A complete-tx of `nbytes` (a TMA copy landed). More bytes than the phase still expects
        is an error: the executor completes each copy when it is issued, so the expect-tx that
        covers a copy of the barrier's own CTA must come first (the CUTLASS order;
        docs/tcgen05-tma.md). A `remote` copy (the peer CTA's `.cta_group::2` copy into this
        barrier) may come before it while an arrival is pending: PTX's tx-count goes negative
        (range +-(2^20 - 1)) and the phase cannot complete before that arrival (CUTLASS's 2-SM
        kernel: only the leader announces both CTAs' bytes, the peer's copies do not wait)."""
        if nbytes > self.tx and not (remote and self.pending > 0):
            raise ExecutionError(
                f"completes {nbytes} transaction bytes on the mbarrier at SMEM {key:#x}, whose "
                f"phase {self.phase} expects only {self.tx} more ({self.expected} bytes announced "
                f"by expect_tx, {self.received} already arrived): more bytes than expect_tx "
                "announced")
        self.tx -= nbytes
        self.received += nbytes
        self._complete()

    def _complete(self) -> None:
        if self.pending <= 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count
            self.expected = self.received = 0

    def pending_text(self) -> str:
        """`1 of 1 arrivals pending, 8192 of 16384 expected transaction bytes arrived`."""
        return (f"{self.pending} of {self.count} arrivals pending, {self.received} of "
                f"{self.expected} expected transaction bytes arrived")


def _packed(op: tcgen05.LdOp | tcgen05.StOp) -> bool:
    return (op.pack if isinstance(op, tcgen05.LdOp) else op.unpack) is not None


@register_impls
@dataclass
class Tcgen05Functions(InterpreterFunctions):
    """`tcgen05` op implementations over one CTA's SMEM and TMEM.

    With a `Memory`, SMEM and TMEM are registered as its spaces `smem` and `tmem` (so the runner's
    peak-byte statistics include them); otherwise they are private arrays.
    """

    memory: Memory | None = None
    numerics: str = "default"  # "exact": the tensor core's fused dot product (tcgen05_exact)
    smem: SharedMemory = field(init=False)
    tmem: TensorMemory = field(init=False)
    _targets: dict[Operation, str] = field(default_factory=dict)
    #: mbarrier (by SMEM address) -> its state
    mbarriers: dict[int, MbarrierState] = field(default_factory=dict)
    #: mbarriers ended by `tcgen05.mbarrier_inval` and not initialised since
    invalidated: set[int] = field(default_factory=set)
    relinquished: bool = False
    rank: int = 0
    """This CTA's rank in its cluster (`tcgen05.cluster_rank`)."""
    cluster: Any = None
    """The `tcgen05_cluster.Cluster` of a CTA-pair run (None: one CTA, a cluster of one)."""
    last_cp: CpFootprint | None = None
    """The footprint of the last tcgen05.cp (the async checker's event)."""
    last_tma: list[tuple[int, TmaWrite]] = field(default_factory=list)
    """(CTA rank, what it wrote) of the last tcgen05.tma_load (the async checker's event)."""
    last_shift: tuple[int, int, int, int] | None = None
    """(lane, lanes, column, columns) the last tcgen05.shift moved (the async checker's event)."""

    def __post_init__(self) -> None:
        if self.memory is not None:
            smem_space = self.memory.add_space("smem", layouts.SMEM_BYTES_PER_CTA, 16)
            tmem_space = self.memory.add_space(
                "tmem", layouts.TMEM_LANES * layouts.TMEM_COLUMNS * 4, 4
            )
            self.smem = SharedMemory(smem_space.data)
            self.tmem = TensorMemory(tmem_space.cells(layouts.TMEM_LANES))
        else:
            self.smem = SharedMemory()
            self.tmem = TensorMemory()

    # -- helpers ---------------------------------------------------------------------------------

    def _note_peak(self, space: str, end: int) -> None:
        if self.memory is not None:
            mem = self.memory.spaces[space]
            mem.peak = max(mem.peak, end)

    def tmem_address(self, view: np.ndarray, what: str) -> int:
        """The TMEM address (lane << 16 | column) of the first cell of a TMEM memref view."""
        offset = _base_pointer(view) - _base_pointer(self.tmem.cells)
        row_bytes = layouts.TMEM_COLUMNS * 4
        if not isinstance(view, np.ndarray) or not 0 <= offset < self.tmem.cells.nbytes:
            raise ExecutionError(f"requires {what} to be a tensor-memory buffer")
        if offset % 4:
            raise ExecutionError(f"requires {what} to start on a 32-bit TMEM cell, got byte "
                                 f"{offset % 4} of a cell")
        return layouts.tmem_address(offset // row_bytes, (offset % row_bytes) // 4)

    def _tmem_view(self, column: int, columns: int, t: MemRefType) -> np.ndarray:
        shape = t.get_shape()
        dtype = numpy_dtype(element_name(t.element_type))
        bits = getattr(t.element_type, "bitwidth", dtype.itemsize * 8)
        if len(shape) != 2 or shape[0] > layouts.TMEM_LANES or bits not in (8, 16, 32):
            raise ExecutionError(f"cannot view {t} in tensor memory (2-D, at most "
                                 f"{layouts.TMEM_LANES} rows, 8/16/32-bit elements)")
        rows, cols = shape
        cells = self.tmem.cells[:rows, column:column + columns]
        if bits == 32:
            view = cells.view(dtype)[:, :cols]
        elif bits == 16 and cols <= columns:
            view = cells.view(dtype)[:, 0:2 * cols:2]  # low halves: one element per cell
        else:
            view = cells.view(dtype)[:, :cols]
        if view.shape != (rows, cols):
            raise ExecutionError(f"requires {t} to fit in {columns} TMEM columns")
        return view

    def _target(self, op: Operation) -> str:
        target = self._targets.get(op)
        if target is None:
            target = DEFAULT_TARGET
            current: Operation | None = op
            while current is not None:
                if isinstance(current, ModuleOp):
                    attr = current.attributes.get(tcgen05.TARGET_ATTR)
                    if isinstance(attr, StringAttr):
                        target = attr.data
                        break
                current = current.parent_op()
            self._targets[op] = target
        return target

    # -- buffers ---------------------------------------------------------------------------------

    @impl(tcgen05.SmemAllocOp)
    def run_smem_alloc(self, interp: Interpreter, op: tcgen05.SmemAllocOp,
                       args: PythonValues) -> PythonValues:
        t = op.buffer.type
        assert isinstance(t, MemRefType)
        offset = op.offset.value.data
        shape = tuple(t.get_shape())
        dtype = numpy_dtype(element_name(t.element_type))
        bits = getattr(t.element_type, "bitwidth", dtype.itemsize * 8)
        if bits != dtype.itemsize * 8:
            raise ExecutionError(f"cannot view {t.element_type} elements in shared memory "
                                 f"(sub-byte types: use an i8/ui8 container buffer)")
        nbytes = prod(shape) * dtype.itemsize
        self.smem.check_range(offset, offset + nbytes, "the buffer")
        self.smem.add_buffer(offset, nbytes)
        self._note_peak("smem", offset + nbytes)
        return (self.smem.data[offset:offset + nbytes].view(dtype).reshape(shape),)

    @impl(tcgen05.AllocOp)
    def run_alloc(self, interp: Interpreter, op: tcgen05.AllocOp,
                  args: PythonValues) -> PythonValues:
        if self.relinquished:
            raise ExecutionError("requires no tcgen05.alloc after tcgen05.relinquish_alloc_permit")
        t = op.tmem.type
        assert isinstance(t, MemRefType)
        columns = op.columns.value.data
        address = self.tmem.alloc(columns)
        column = layouts.tmem_column(address)
        self._note_peak("tmem", (column + columns) * 4 * layouts.TMEM_LANES)
        return (self._tmem_view(column, columns, t),)

    @impl(tcgen05.DeallocOp)
    def run_dealloc(self, interp: Interpreter, op: tcgen05.DeallocOp,
                    args: PythonValues) -> PythonValues:
        self.tmem.dealloc(self.tmem_address(args[0], "the dealloc operand"))
        return ()

    # -- the MMA ---------------------------------------------------------------------------------

    @impl(tcgen05.MmaOp)
    def run_mma(self, interp: Interpreter, op: tcgen05.MmaOp, args: PythonValues) -> PythonValues:
        values = dict(zip(op.operands, args, strict=True))

        def address(name: str) -> int | None:
            value = getattr(op, name)
            return None if value is None else self.tmem_address(values[value], name)

        a_in_tmem = op.a_in_tmem
        a_value = values[op.a]
        a_raw = None
        a_columns = None
        if a_in_tmem:
            a_raw = a_value.view(f"u{a_value.dtype.itemsize}")
            a_columns = tmem_view_columns(a_value)
        scale_input_d = op.scale_input_d
        if op.cta_group.value.data == 2:
            return self._mma_pair(op, values, scale_input_d)
        mma(
            self.smem,
            self.tmem,
            kind=op.kind.data,
            d=self.tmem_address(values[op.d], "d"),
            a=self.tmem_address(a_value, "a") if a_in_tmem else int(a_value) & _MASK64,
            a_in_tmem=a_in_tmem,
            a_raw=a_raw,
            b=int(values[op.b]) & _MASK64,
            idesc=int(values[op.idesc]) & _MASK32,
            enable_input_d=bool(values[op.enable_input_d]),
            cta_group=op.cta_group.value.data,
            ws=op.ws is not None,
            sparse=op.sparse is not None,
            sparse_metadata=address("sparse_metadata"),
            scale_a=address("scale_a"),
            scale_b=address("scale_b"),
            scale_vec=None if op.scale_vec is None else op.scale_vec.data,
            disable_output_lane=[int(values[v]) & _MASK32  # mutation: skip (the kernel masks each word again)
                                 for v in op.disable_output_lane] or None,
            zero_column_mask=None if op.zero_column_mask is None
            else int(values[op.zero_column_mask]) & _MASK64,
            scale_input_d=scale_input_d.value.data if isinstance(scale_input_d, IntegerAttr)
            else None,
            ashift=op.ashift is not None,
            collector=None if op.collector_usage is None else op.collector_usage.data,
            target=self._target(op),
            numerics=self.numerics,
            a_columns=a_columns,
        )
        return ()

    def _mma_pair(self, op: tcgen05.MmaOp, values: dict, scale_input_d: Any) -> PythonValues:
        """`cta_group::2`: the MMA uses both CTAs of the pair (`tcgen05_kernels.mma_pair`)."""
        if self.cluster is None:
            raise ExecutionError("uses cta_group::2 outside a CTA pair")
        first = self.rank & ~1
        pair = self.cluster.ctas[first:first + 2]
        idesc = int(values[op.idesc]) & _MASK32
        mma_pair(
            [(cta.smem, cta.tmem) for cta in pair],
            kind=op.kind.data,
            d=self.tmem_address(values[op.d], "d"),
            a=self.tmem_address(values[op.a], "a") if op.a_in_tmem else int(values[op.a]) & _MASK64,
            a_in_tmem=op.a_in_tmem,
            b=int(values[op.b]) & _MASK64,
            idesc=idesc,
            enable_input_d=bool(values[op.enable_input_d]),
            sparse=op.sparse is not None,
            scale_vec=None if op.scale_vec is None else op.scale_vec.data,
            disable_output_lane=[int(values[v]) & _MASK32  # mutation: skip (the kernel masks each word again)
                                 for v in op.disable_output_lane] or None,
            scale_input_d=scale_input_d.value.data if isinstance(scale_input_d, IntegerAttr)
            else None,
            ashift=op.ashift is not None,
            collector=None if op.collector_usage is None else op.collector_usage.data,
            target=self._target(op),
            numerics=self.numerics,
            scale_a=None if op.scale_a is None else self.tmem_address(values[op.scale_a],
                                                                      "scale_a"),
            scale_b=None if op.scale_b is None else self.tmem_address(values[op.scale_b],
                                                                      "scale_b"),
        )
        a_word = None  # A in TMEM (refused above by mma_pair) would have no SMEM span
        if not op.a_in_tmem:  # mutation: skip (A in TMEM is refused above)
            a_word = int(values[op.a]) & _MASK64
        for lo, end in pair_smem_spans(op.kind.data, idesc, a_word, int(values[op.b]) & _MASK64):
            for rank in range(first, first + 2):
                if rank != self.rank:
                    self.cluster.peer_read(self.rank, rank, lo, end, op)
        return ()

    @impl(tcgen05.ClusterRankOp)
    def run_cluster_rank(self, interp: Interpreter, op: tcgen05.ClusterRankOp,
                         args: PythonValues) -> PythonValues:
        return (self.rank,)

    @impl(tcgen05.ClusterSyncOp)
    def run_cluster_sync(self, interp: Interpreter, op: tcgen05.ClusterSyncOp,
                         args: PythonValues) -> PythonValues:
        if self.cluster is not None:
            self.cluster.barrier(self.rank, op)
        return ()

    # -- TMEM <-> registers, completion tracking -----------------------------------------------------

    def _ld_st_cells(self, op: tcgen05.LdOp | tcgen05.StOp,
                     view: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lanes, columns) index arrays of the TMEM cells a tcgen05.ld/st moves, (32 threads,
        registers) for `.b32` (`tmem_moves.ld_st_cells`: register r of thread t), (32,
        registers, 2) with `.pack::16b` / `.unpack::16b` (`tmem_moves.packed_cells`: the low
        and high halves of each register)."""
        shape = op.shape.data
        num = op.num.value.data
        split = 0 if op.split is None else op.split.value.data
        if shape == "16x32bx2" and isinstance(op, tcgen05.StOp) and split < num:
            raise ExecutionError(
                f"uses tcgen05.st .16x32bx2 with immHalfSplitoff {split} < .x{num}: both "
                "half-warps write the same cells (split must be at least the repetition count)")
        lanes, columns = tmem_moves.ld_st_cells(shape, num, split)
        if _packed(op):
            lanes, columns = tmem_moves.packed_cells(lanes, columns)
        address = self.tmem_address(view, "the TMEM operand")
        lane = layouts.tmem_lane(address) + op.lane.value.data
        column = layouts.tmem_column(address) + op.column.value.data
        self.tmem.check_access(lane, column, int(lanes.max()) + 1, int(columns.max()) + 1,
                               f"the tcgen05 .{shape} cells")
        return lane + lanes, column + columns

    @impl(tcgen05.LdOp)
    def run_ld(self, interp: Interpreter, op: tcgen05.LdOp, args: PythonValues) -> PythonValues:
        lanes, columns = self._ld_st_cells(op, args[0])
        self.tmem.check_defined(lanes, columns, "tcgen05.ld")
        t = op.regs.type
        assert isinstance(t, MemRefType)
        dtype = numpy_dtype(element_name(t.element_type))
        cells = self.tmem.cells[lanes, columns]  # (fancy indexing copies)
        if op.pack is not None:  # two 16-bit elements (low halves) per register
            # (the uint32 shift drops the second cell's high half: no mask needed there)
            cells = (cells[..., 0] & 0xFFFF) | (cells[..., 1] << 16)
        return (cells.view(dtype),)

    @impl(tcgen05.StOp)
    def run_st(self, interp: Interpreter, op: tcgen05.StOp, args: PythonValues) -> PythonValues:
        lanes, columns = self._ld_st_cells(op, args[0])
        regs = np.ascontiguousarray(args[1]).view(np.uint32)
        if op.unpack is not None:  # each register's halves into two cells (upper bits 0 [inf])
            regs = np.stack([regs & 0xFFFF, regs >> 16], axis=-1)
        self.tmem.cells[lanes, columns] = regs.reshape(lanes.shape)
        self.tmem.defined(lanes, columns)
        return ()

    @impl(tcgen05.WaitLdOp)
    def run_wait_ld(self, interp: Interpreter, op: tcgen05.WaitLdOp,
                    args: PythonValues) -> PythonValues:
        return ()  # loads complete at once in this sequential model

    @impl(tcgen05.WaitStOp)
    def run_wait_st(self, interp: Interpreter, op: tcgen05.WaitStOp,
                    args: PythonValues) -> PythonValues:
        return ()

    @impl(tcgen05.FenceBeforeThreadSyncOp)
    def run_fence_before(self, interp: Interpreter, op: tcgen05.FenceBeforeThreadSyncOp,
                         args: PythonValues) -> PythonValues:
        return ()

    @impl(tcgen05.FenceAfterThreadSyncOp)
    def run_fence_after(self, interp: Interpreter, op: tcgen05.FenceAfterThreadSyncOp,
                        args: PythonValues) -> PythonValues:
        return ()

    @impl(tcgen05.RelinquishAllocPermitOp)
    def run_relinquish(self, interp: Interpreter, op: tcgen05.RelinquishAllocPermitOp,
                       args: PythonValues) -> PythonValues:
        self.relinquished = True
        return ()

    def _mbarrier(self, view: np.ndarray, initialised: bool = True) -> tuple[int, MbarrierState]:
        key = _base_pointer(view) - _base_pointer(self.smem.data)
        if not 0 <= key < self.smem.data.nbytes:
            raise ExecutionError("requires an mbarrier in shared memory")
        state = self.mbarriers.get(key)
        if initialised and state is None:
            if key in self.invalidated:
                raise ExecutionError(
                    f"uses the mbarrier at SMEM {key:#x} after tcgen05.mbarrier_inval (PTX ISA "
                    "mbarrier.inval: only mbarrier.init may follow; any other operation on an "
                    "invalidated mbarrier is undefined)")
            raise ExecutionError(f"uses the mbarrier at SMEM {key:#x} before tcgen05.mbarrier_init")
        return key, state  # type: ignore[return-value]

    @impl(tcgen05.MbarrierInitOp)
    def run_mbarrier_init(self, interp: Interpreter, op: tcgen05.MbarrierInitOp,
                          args: PythonValues) -> PythonValues:
        key, live = self._mbarrier(args[0], initialised=False)
        if live is not None:
            # PTX ISA mbarrier.init: initialising a memory location that holds a valid
            # mbarrier object is undefined behaviour; mbarrier.inval ends the object first.
            raise ExecutionError(
                f"initialises the mbarrier at SMEM {key:#x} again while it is live (initialised "
                f"and not invalidated; phase {live.phase}, {live.pending_text()}): PTX ISA "
                "mbarrier.init of a valid mbarrier object is undefined behaviour; "
                "tcgen05.mbarrier_inval it first")
        count = op.count.value.data
        self.invalidated.discard(key)
        self.mbarriers[key] = MbarrierState(
            count, count, interval=0 if self.cluster is None else self.cluster.passed[self.rank])
        return ()

    @impl(tcgen05.MbarrierInvalOp)
    def run_mbarrier_inval(self, interp: Interpreter, op: tcgen05.MbarrierInvalOp,
                           args: PythonValues) -> PythonValues:
        key, _ = self._mbarrier(args[0])
        del self.mbarriers[key]
        self.invalidated.add(key)
        return ()

    @impl(tcgen05.MbarrierArriveOp)
    def run_mbarrier_arrive(self, interp: Interpreter, op: tcgen05.MbarrierArriveOp,
                            args: PythonValues) -> PythonValues:
        _, state = self._mbarrier(args[0])
        state.arrive(0 if op.expect_tx is None else op.expect_tx.value.data)
        return ()

    @impl(tcgen05.CommitOp)
    def run_commit(self, interp: Interpreter, op: tcgen05.CommitOp,
                   args: PythonValues) -> PythonValues:
        # Every earlier MMA already completed (the model is sequential): arrive at once.
        key, state = self._mbarrier(args[0])
        if op.cta_mask is not None:
            # .multicast::cluster: one arrival on the mbarrier at this offset in every CTA whose
            # bit is set (PTX ISA "tcgen05.commit").
            mask = int(args[1]) & 0xFFFF
            ctas = [self] if self.cluster is None else self.cluster.ctas
            if mask >> len(ctas):
                size = len(ctas)
                raise ExecutionError(
                    f"multicasts to CTA mask {mask:#06x}, which names CTAs beyond its cluster of "
                    + ("2 CTAs (ranks 0, 1)" if size == 2 else
                       "one CTA (rank 0): a cta_group::1 kernel runs as one CTA"))
            for rank, cta in enumerate(ctas):
                if mask >> rank & 1:
                    target = cta.mbarriers.get(key)
                    if target is None:
                        raise ExecutionError(
                            f"multicasts to CTA {rank}, whose mbarrier at SMEM {key:#x} was not "
                            "initialised (tcgen05.mbarrier_init)")
                    if cta is not self:
                        self.remote_arrival(rank, key, target)
                    target.arrive()
            return ()
        state.arrive()
        return ()

    @impl(tcgen05.MbarrierWaitOp)
    def run_mbarrier_wait(self, interp: Interpreter, op: tcgen05.MbarrierWaitOp,
                          args: PythonValues) -> PythonValues:
        key, state = self._mbarrier(args[0])
        parity = int(bool(args[1]))
        if self.cluster is not None:  # the other CTA may still complete it
            self.cluster.wait_until(
                self.rank, lambda: state.phase % 2 != parity,
                f"waits on phase parity {parity} of the mbarrier at SMEM {key:#x}", op)
        if state.phase % 2 == parity:  # the phase with this parity has not completed
            raise ExecutionError(
                f"waits on phase parity {parity} of the mbarrier at SMEM {key:#x}, which can "
                f"never complete (deadlock: {state.pending_text()}, nothing left to arrive)")
        return ()

    @impl(tcgen05.CpOp)
    def run_cp(self, interp: Interpreter, op: tcgen05.CpOp, args: PythonValues) -> PythonValues:
        ctas = [self]
        if op.cta_group.value.data == 2:
            # cta_group::2: each CTA of the pair copies from its own SMEM at the descriptor into
            # its own TMEM at the address [inf: CUTLASS's 2-SM block-scaled kernels issue one
            # `tcgen05.cp.cta_group::2` from the leader for scale factors that differ per CTA
            # (each CTA's SFA rows), so the copy cannot read one CTA's SMEM for both; PTX
            # `.cta_group::2`: the Tensor Memory of both the current and the peer CTA].
            if self.cluster is None:
                raise ExecutionError("uses cta_group::2 outside a CTA pair")
            first = self.rank & ~1
            ctas = self.cluster.ctas[first:first + 2]
        for cta in ctas:
            footprint = cp(
                cta.smem, cta.tmem,
                taddr=self.tmem_address(args[0], "the tcgen05.cp destination"),
                desc=int(args[1]) & _MASK64, shape=op.shape.data,
                multicast=None if op.multicast is None else op.multicast.data,
                decompress=None if op.decompress is None else op.decompress.data)
            if cta is not self:  # the peer's SMEM: ordered like a pair MMA's reads of it
                self.cluster.peer_read(self.rank, cta.rank, *footprint.smem, op)
            self.last_cp = footprint
        return ()

    @impl(tcgen05.ShiftOp)
    def run_shift(self, interp: Interpreter, op: tcgen05.ShiftOp,
                  args: PythonValues) -> PythonValues:
        address = self.tmem_address(args[0], "the tcgen05.shift address")
        if op.cta_group.value.data == 1:
            self.last_shift = shift(self.tmem, address)
            return ()
        # cta_group::2: "performed in the Tensor Memory of both the current and the peer CTAs"
        # (PTX ISA "tcgen05.shift").
        if self.cluster is None:
            raise ExecutionError("uses cta_group::2 outside a CTA pair")
        first = self.rank & ~1
        for cta in self.cluster.ctas[first:first + 2]:
            self.last_shift = shift(cta.tmem, address)
        return ()

    # -- TMA (executor/tcgen05/tma.py) -------------------------------------------------------------

    @impl(tcgen05.MakeTensorMapOp)
    def run_make_tensor_map(self, interp: Interpreter, op: tcgen05.MakeTensorMapOp,
                            args: PythonValues) -> PythonValues:
        return (make_tensor_map(args[0], op.map.map),)

    @impl(tcgen05.ElectSyncOp)
    def run_elect_sync(self, interp: Interpreter, op: tcgen05.ElectSyncOp,
                       args: PythonValues) -> PythonValues:
        return (True,)  # the one modelled thread is the elected lane

    @impl(tcgen05.FenceProxyAsyncOp)
    def run_fence_proxy_async(self, interp: Interpreter, op: tcgen05.FenceProxyAsyncOp,
                              args: PythonValues) -> PythonValues:
        return ()

    def remote_arrival(self, rank: int, key: int, state: MbarrierState) -> None:
        """This CTA arrives on (or completes bytes on) CTA `rank`'s mbarrier at `key`: that CTA's
        `mbarrier_init` must be ordered before it, and the only order between two CTAs' threads
        the dialect has is a cluster barrier passed by both in between (PTX: the mbarrier's
        initialisation must be visible to the other CTA; CUTLASS's `fence_barrier_init` +
        cluster sync). Checked by barrier interval, whichever order the hand-off ran the CTAs."""
        if self.cluster is not None and self.cluster.passed[self.rank] <= state.interval:
            raise ExecutionError(
                f"arrives on the mbarrier at SMEM {key:#x} of CTA {rank} of the CTA pair, whose "
                "tcgen05.mbarrier_init no tcgen05.cluster_sync orders before it (initialise the "
                "pair's mbarriers, then tcgen05.cluster_sync, then signal the other CTA's)")

    def tma_barrier_cta(self, op: tcgen05.TmaLoadOp, rank: int) -> Tcgen05Functions:
        """The CTA whose mbarrier a copy into CTA `rank` signals: that CTA, or with cta_group::2
        the even CTA of its pair (PTX `.cta_group`: the mbarrier may be the peer's)."""
        if self.cluster is None:
            return self
        if op.cta_group is not None and op.cta_group.value.data == 2:
            return self.cluster.ctas[rank & ~1]
        return self.cluster.ctas[rank]

    def tma_targets(self, op: tcgen05.TmaLoadOp, args: PythonValues) -> list[int]:
        """The ranks of the CTAs a copy writes: this one, or the multicast mask's."""
        if op.cta_mask is None:
            return [self.rank]
        mask = int(args[-1]) & 0xFFFF
        size = 1 if self.cluster is None else len(self.cluster.ctas)
        if mask >> size or not mask:
            raise ExecutionError(f"multicasts to CTA mask {mask:#06x}, which names no CTA or CTAs "
                                 f"beyond its cluster of {size}")
        return [rank for rank in range(size) if mask >> rank & 1]

    @impl(tcgen05.TmaLoadOp)
    def run_tma_load(self, interp: Interpreter, op: tcgen05.TmaLoadOp,
                     args: PythonValues) -> PythonValues:
        dst, value = args[0], args[1]
        count = len(op.coords)
        coords = tuple(int(c) for c in args[2:2 + count])
        bar = args[2 + count]
        offset = _base_pointer(dst) - _base_pointer(self.smem.data)
        if not isinstance(dst, np.ndarray) or not dst.flags.c_contiguous or \
                not 0 <= offset < self.smem.data.nbytes:
            raise ExecutionError("requires a contiguous shared-memory destination")
        key, _ = self._mbarrier(bar)
        writes = []
        for rank in self.tma_targets(op, args):
            cta = self if self.cluster is None else self.cluster.ctas[rank]
            write = tma_load(cta.smem, value, coords, offset, dst.nbytes)
            owner = self.tma_barrier_cta(op, rank)
            state = owner.mbarriers.get(key)
            if state is None:
                raise ExecutionError(f"signals the mbarrier at SMEM {key:#x} of CTA {rank}, which "
                                     "was not initialised (tcgen05.mbarrier_init)")
            if owner is not self:
                self.remote_arrival(owner.rank, key, state)
            state.complete_tx(write.nbytes, key, remote=owner is not self)
            writes.append((rank, write))
        self.last_tma = writes
        return ()
