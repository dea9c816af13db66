"""Output coverage (`mmair-run --check-coverage NAME`): which bytes of a GM output no core wrote.

A wrong multi-core split (a remainder tile nobody owns) leaves part of an output as it was. Every
pto op's GM writes come from its exact footprint (`dialects/pto/effects.py`, the same one the race
checker uses), a scalar `memref.store` writes its element and a `memref.copy` its target view;
a byte mask per watched output records them. With the sync checker on, the issue seam reports
each event's accesses (`IssueSeam.observer`); with it off, `CoverageSeam` computes the footprint
of each pto op (and scalar load, store or copy) before running it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

from mmair.dialects.pto.effects import EFFECTS
from mmair.dialects.pto.footprint import Footprint
from mmair.dialects.pto.gm_access import gm_access, gm_element_access, scalar_gm_operands


class Coverage:
    """Byte masks of the watched GM arrays (by name)."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays
        self.masks: dict[int, np.ndarray] = {id(a): np.zeros(a.nbytes, bool)
                                             for a in arrays.values()}

    def record(self, accesses: Any) -> None:
        for a in accesses:
            if not a.write or a.space != "gm":
                continue
            mask = self.masks.get(a.memory)
            if mask is None:
                continue
            if a.rows <= 1:
                mask[a.start:a.start + a.width] = True
            else:
                view = np.lib.stride_tricks.as_strided(
                    mask[a.start:], shape=(a.rows, a.width), strides=(a.stride, 1))
                view[...] = True

    def unwritten(self, name: str) -> list[tuple[int, int]]:
        """Byte ranges [lo, hi) of output `name` that no op wrote."""
        mask = self.masks[id(self.arrays[name])]
        edges = np.flatnonzero(np.diff(np.concatenate(([1], mask.view(np.int8), [1]))))
        return [(int(lo), int(hi)) for lo, hi in zip(edges[::2], edges[1::2], strict=True)]


_UNSEEN: Any = object()


class CoverageSeam:
    """The interpreter seam with the sync checker off: records each pto op's GM writes, then runs
    the op at once (same order and speed class as no seam)."""

    def __init__(self, coverage: Coverage):
        self.coverage = coverage
        self.produced: dict = {}
        self.handlers = {cls: self._run for cls in EFFECTS}
        for cls in (memref.LoadOp, memref.StoreOp, memref.CopyOp):
            self.handlers[cls] = self._scalar
        self._footprints: dict[Operation, Footprint | None] = {}

    sync_ops_idle = True
    """Sync ops order nothing here (the checker is off): the interpreter only counts them."""

    def _scalar(self, interp: Any, op: Operation, args: tuple) -> Any:
        """A scalar `memref.load` / `store` of GM reads / writes one element, a `memref.copy`
        reads and writes two views: recorded like a pto op's accesses (the reads matter to a
        pool worker's log, `multicore_pool._GmLog`; coverage counts the writes)."""
        ft, fn = interp._impls._impl_dict[type(op)]  # pyright: ignore[reportPrivateUsage]
        result = fn(ft, interp, op, args)  # checks the index and shapes first
        roles = scalar_gm_operands(op)
        if roles is not None:
            if isinstance(op, memref.CopyOp):
                self.coverage.record([gm_access(args[0], False), gm_access(args[1], True)])
            else:
                at, write = roles[0]
                self.coverage.record([gm_element_access(args[at], args[at + 1:], write)])
        return result

    def _run(self, interp: Any, op: Operation, args: tuple) -> Any:
        fp = self._footprints.get(op, _UNSEEN)
        if fp is _UNSEEN:  # an op without a memref operand (L1 -> L0, mad) touches no GM
            fp = self._footprints[op] = Footprint(op) if any(
                isinstance(o.type, MemRefType) for o in op.operands) else None
        if fp is not None:
            self.coverage.record(fp.accesses(args))
        entry = interp._impls._impl_dict.get(type(op))  # pyright: ignore[reportPrivateUsage]
        if entry is None:
            from mmair.executor.engine.interpreter import _unimplemented

            raise _unimplemented(op)
        ft, fn = entry
        return fn(ft, interp, op, args)

    def scalar_reads(self, interp: Any, op: Operation, args: tuple) -> tuple:
        return args

    def finish(self) -> None:
        pass
