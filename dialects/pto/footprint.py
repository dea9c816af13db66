"""The footprint of one pto op execution: the exact bytes it reads and writes with run-time operand
values, or the conservative ones statically.
"""


from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation

from mmair.dialects.pto._verify import atomic_kind
from mmair.dialects.pto.access import Access
from mmair.dialects.pto.effects import EFFECTS, memory_operands, operand_index
from mmair.dialects.pto.gm_access import gm_access, static_access
from mmair.dialects.pto.raw_footprints import RAW_EXACT


class Footprint:
    """The footprint of one op instance, decoded once: `accesses(values)` is the per-execution
    part (the executor caches a Footprint per op)."""

    __slots__ = ("op", "kind", "_plan", "_sizes", "_tiles", "_roots", "_exact", "_operands",
                 "_last", "_atomic")

    def __init__(self, op: Operation, unread: frozenset[int] = frozenset()):
        """`unread`: indices of read-only operands whose reads are left out (the race checker's
        footprint of a GM buffer that nothing writes, `gm_written_roots`; not for the raw
        forms, whose exact footprint is one function of all operands)."""
        eff = EFFECTS[type(op)]
        self.op = op
        self.kind = eff.kind
        plan = []
        for index, role in memory_operands(op):
            if index in unread and not role.write:
                continue
            region = eff.region(op, role.name) if eff.region is not None else None
            if region is not None:
                rows_i, cols_i = operand_index(op, region[0]), operand_index(op, region[1])
                region = (rows_i, cols_i, region[2])
            for flag in (False, True):  # a read-write operand is two accesses
                if (role.write if flag else role.read):
                    plan.append((index, flag, region))
        self._plan = tuple(plan)
        exact = RAW_EXACT.get(type(op))
        self._exact = exact(op) if exact is not None else None
        self._atomic = atomic_kind(op) if "atomic" in op.properties else ""
        """A store in GM atomic mode: the kind its GM writes carry (`Access.atomic`)."""
        sizes = (operand_index(op, n) for n in eff.sizes)
        self._sizes = tuple(i for i in sizes if i is not None)
        self._tiles: dict[int, tuple[Any, Access, Access]] = {}  # by id(tile), checked
        self._roots: dict[int, tuple[Any, int]] = {}  # GM root array addresses, by id
        self._operands = tuple(dict.fromkeys(i for i, _, _ in plan))
        self._last: tuple[Sequence[Any], list[Access]] | None = None
        """(values, accesses) of the last call whose memory operands were all tiles: the same
        tiles give the same list again (callers only read it)."""

    def accesses(self, values: Sequence[Any] | None = None) -> list[Access]:
        """Exact accesses for runtime operand `values`, conservative ones for None."""
        if self._atomic:
            return [a._replace(atomic=self._atomic) if a.write and a.space == "gm" else a
                    for a in self._accesses(values)]
        return self._accesses(values)

    def _accesses(self, values: Sequence[Any] | None) -> list[Access]:
        op = self.op
        if values is None:
            operands = op.operands
            return [static_access(operands[i], write) for i, write, _ in self._plan]
        for i in self._sizes:
            if values[i] == 0:
                return []  # a runtime size of 0 is a no-op
        if self._exact is not None:
            return self._exact(values, self._roots)
        last = self._last
        if last is not None:
            seen = last[0]
            for i in self._operands:
                if values[i] is not seen[i]:
                    break
            else:
                return last[1]  # the same tiles (a tile's Access ignores the sizes)
        out = []
        tiles = self._tiles
        on_chip = True
        for i, write, region in self._plan:
            v = values[i]
            if type(v) is not np.ndarray:  # an executor Tile: its Access is cached
                hit = tiles.get(id(v))
                if hit is None or hit[0] is not v:
                    hit = tiles[id(v)] = (v, Access(v.space, v.offset, v.nbytes, 1, 0, False,
                                                    v.name, None),
                                          Access(v.space, v.offset, v.nbytes, 1, 0, True,
                                                 v.name, None))
                out.append(hit[2] if write else hit[1])
            elif region is not None:
                on_chip = False
                r, c = values[region[0]], values[region[1]]
                out.append(gm_access(v, write, (c, r) if region[2] else (r, c), self._roots))
            else:
                on_chip = False
                out.append(gm_access(v, write, None, self._roots))
        if on_chip:
            self._last = (values, out)
        return out


def accesses(op: Operation, values: Sequence[Any] | None = None) -> list[Access]:
    """The reads and writes of `op`, per memory (module docstring): exact for the executor's
    runtime operand `values`, conservative (whole tiles, whole GM buffers) for None. Ops
    without a memory effect return []."""
    if type(op) not in EFFECTS:
        return []
    return Footprint(op).accesses(values)
