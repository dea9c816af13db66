"""Does an MMA read TMA-written SMEM the way the copy laid it out? (the asynchronous checker's
layout check, docs/tcgen05-tma.md).

Every SMEM byte remembers the TMA copy that last wrote it. An MMA operand read through an SMEM
descriptor is then checked twice against the copies that wrote its bytes:

* the swizzle: the descriptor's swizzle mode must be the tensor map's;
* the elements: `isa.tcgen05.tma.global_coordinates` inverts the copy (the XOR swizzle is its own
  inverse), so the operand's elements (mn, k) must be one box's elements in order, (row0 + mn,
  col0 + k) of a 2-D map for a K-major operand and (row0 + k, col0 + mn) for an MN-major one (a
  wrong SBO / LBO or major-ness). Only dense operands of 8/16/32-bit elements read from 2-D boxes
  of the same width are compared element by element.

A disagreement is a `SyncError` of kind "layout" at the MMA naming the copy's event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Operation

from mmair.dialects import tcgen05
from mmair.dialects.value_names import value_label
from mmair.executor.engine.events import Event, SyncError
from mmair.executor.tcgen05.tma import TmaWrite
from mmair.isa.tcgen05 import layouts, rules, tma
from mmair.isa.tcgen05.idesc import decode_idesc
from mmair.isa.tcgen05.smem import decode_smem_desc


def _tensor_label(op: Operation) -> str:
    """The global tensor a `tcgen05.tma_load` copies from (through its make_tensor_map)."""
    assert isinstance(op, tcgen05.TmaLoadOp)
    owner = op.tensor_map.owner
    if isinstance(owner, tcgen05.MakeTensorMapOp):
        return value_label(owner.tensor, "the tensor")
    return "the tensor"


class TmaLayouts:
    """The TMA copies into one CTA's SMEM and the byte -> copy map (module docstring)."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int, str, Event]] = []
        """SMEM bytes [lo, hi) of each live copy, its map's swizzle and its event."""
        self.copies: list[tuple[TmaWrite, Event]] = []
        self.owner: np.ndarray | None = None
        """SMEM byte -> index into `copies` of the copy that last wrote it (-1: none)."""

    def record(self, write: TmaWrite, ev: Event) -> None:
        self.writes = [w for w in self.writes if not (write.lo <= w[0] and w[1] <= write.hi)]
        self.writes.append((write.lo, write.hi, write.swizzle, ev))
        if self.owner is None:
            self.owner = np.full(layouts.SMEM_BYTES_PER_CTA, -1, dtype=np.int32)
        self.owner[tma.smem_addresses(write.map, write.dst)] = len(self.copies)
        self.copies.append((write, ev))

    def check_mma(self, op: tcgen05.MmaOp, footprint: Any, idesc: int, a: int | None, b: int,
                  smem_name: Callable[[int], str]) -> None:
        """Check each SMEM operand of an MMA (`footprint.smem`: A's then B's byte hull)."""
        if not self.writes:
            return
        from mmair.executor.tcgen05.operands import checked_operand_map, storage

        kind = op.kind.data
        desc = decode_idesc(idesc, kind)
        m, n, k = rules.mma_shape(desc)
        operands = [("B", b, desc.btype, desc.transpose_b, n, k)]
        if a is not None:
            operands.insert(0, ("A", a, desc.atype, desc.transpose_a, m, k))
        for (name, word, type_name, transposed, mn, kk), (lo, end) in zip(
                operands, footprint.smem, strict=True):
            self._check_swizzle(op, name, word, lo, end, smem_name)
            bits, width = storage(kind, type_name)
            if op.sparse is not None or width != bits or bits % 8:
                continue  # sub-byte or sparse operands: only the swizzle is compared
            major = "mn" if transposed else "k"
            addresses = checked_operand_map(word, major, bits, mn, kk, "operand",
                                            width).addresses >> 3
            self._check_elements(op, name, major, word, addresses, bits, smem_name)

    def _check_swizzle(self, op: tcgen05.MmaOp, name: str, word: int, lo: int, end: int,
                       smem_name: Callable[[int], str]) -> None:
        swizzle = decode_smem_desc(word).swizzle
        for t_lo, t_hi, t_swizzle, ev in reversed(self.writes):
            if t_lo < end and lo < t_hi and t_swizzle != swizzle:
                raise SyncError(
                    "layout",
                    f"layout mismatch on {smem_name(max(lo, t_lo))}: '{op.name}' reads "
                    f"{name} through an SMEM descriptor with swizzle {swizzle}, but "
                    f"{ev.describe()} wrote SMEM bytes [{max(lo, t_lo):#x}, {min(end, t_hi):#x}) "
                    f"with the tensor map's swizzle {t_swizzle} (the MMA would read the box's "
                    f"bytes in the wrong order)", op, (ev,))

    def _check_elements(self, op: tcgen05.MmaOp, name: str, major: str, word: int,
                        addresses: np.ndarray, bits: int,
                        smem_name: Callable[[int], str]) -> None:
        assert self.owner is not None
        owner = self.owner[addresses]
        copies = np.unique(owner[owner >= 0])
        if copies.size == 0:
            return
        if any(self.copies[c][0].map.rank != 2 or self.copies[c][0].map.element_bits != bits
               for c in copies):
            return  # only 2-D boxes of the operand's element width are compared
        g = np.zeros((2, *addresses.shape), dtype=np.int64)
        for c in copies:
            write = self.copies[c][0]
            mask = owner == c
            g[:, mask] = tma.global_coordinates(write.map, write.dst, write.coords,
                                                addresses[mask])
        mn_index, k_index = np.indices(addresses.shape)
        inner, outer = (k_index, mn_index) if major == "k" else (mn_index, k_index)
        written = owner >= 0
        first = tuple(int(i[0]) for i in np.nonzero(written))
        wrong = written & ((g[0] - inner != g[0][first] - inner[first])
                           | (g[1] - outer != g[1][first] - outer[first]))
        if not wrong.any():
            return
        at = tuple(int(i[0]) for i in np.nonzero(wrong))
        write, ev = self.copies[int(owner[at])]
        tensor = _tensor_label(ev.op)
        # Coordinates row-major (outermost first), as the memref indexes the tensor.
        got = (int(g[1][at]), int(g[0][at]))
        want = (int(g[1][first] - outer[first] + outer[at]),
                int(g[0][first] - inner[first] + inner[at]))
        d = decode_smem_desc(word)
        mn_name = "m" if name == "A" else "n"
        raise SyncError(
            "layout",
            f"layout mismatch on {smem_name(int(addresses[at]))}: '{op.name}' reads "
            f"{name}[{mn_name}={at[0]}, k={at[1]}] at SMEM {int(addresses[at]):#x}, which holds "
            f"{tensor}[{got[0]}, {got[1]}] as {ev.describe()} wrote it; "
            f"{name}[{mn_name}={first[0]}, k={first[1]}] holds "
            f"{tensor}[{int(g[1][first])}, {int(g[0][first])}], so it should be "
            f"{tensor}[{want[0]}, {want[1]}] (the {major.upper()}-major descriptor with swizzle "
            f"{d.swizzle}, LBO {d.lbo}, SBO {d.sbo} does not walk the box the tensor map "
            f"(swizzle {write.map.swizzle}) laid out)", op, (ev,))
