"""`pto-assign-addresses`: give every `pto.alloc` without an offset a byte offset in its space.

An Ascend AI Core has fixed-size on-chip buffers (L1, L0A, L0B, L0C, UB, BT, FB; capacities in
`mmair.isa.ascend.targets`) and no allocator at run time: the compiler decides where each tile
lives. This pass does that statically, per `func.func`, reusing the bytes of tiles that are dead:

* Liveness is over the function body in program order (a pre-order numbering of the ops). A tile
  is live from its first use to its last use, where a use nested in a loop (or any region op) that
  the alloc is outside of counts as a use of that whole op: a tile allocated before a loop and used
  in it stays live for the whole loop (its contents may be carried from one iteration to the
  next). Uses through `pto.reinterpret` views are uses of the tile. A tile handed to an op that
  may keep or forward it (a terminator, a call, an op with regions or results) stays live to the
  end of the alloc's block. Each time an alloc runs its contents are undefined, so a tile
  allocated inside a loop is live only within one iteration.
* Placement is first-fit by aligned offset, largest tiles first: a tile takes the lowest offset,
  aligned to the space granularity and to the strictest alignment of the ops that use it (the
  operand roles of `dialects/pto/effects.py`, e.g. 1024 B for a Mmad dst in L0C), that overlaps
  no tile live at the same time. Allocs that already have an offset are fixed obstacles for the
  whole function.
* The slots of a multi-buffered tile (discardable attribute `pto.multi_buffer = <group>`, set by
  `mmair.passes.multi_buffer`) are live together, over the union of their intervals: they
  alternate between loop iterations whose pipes overlap, so they need distinct bytes.
* A tile that does not fit is an error naming the space, its capacity and the tiles live at the
  peak (the program point with the most live bytes) with their sizes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator

from mmair.dialects import pto
from mmair.dialects.pto import effects
from mmair.dialects.value_names import value_label
from mmair.isa.ascend.targets import Target
from mmair.passes.multi_buffer import SLOT_GROUP_ATTR
from mmair.passes.pass_errors import PassOpError, resolve_target


@dataclass
class TileBuffer:
    """One `pto.alloc` with its live interval [start, end] in program order."""

    alloc: pto.AllocOp
    space: str
    size: int
    alignment: int
    start: int
    end: int
    fixed: bool
    offset: int | None = None
    index: int = field(default=0)

    @property
    def label(self) -> str:
        return value_label(self.alloc.buffer, f"{self.alloc.buffer.type}")

    def describe(self) -> str:
        return f"{self.label} ({self.size} bytes)"

    def live_with(self, other: TileBuffer) -> bool:
        return self.start <= other.end and other.start <= self.end


class _Numbering:
    """Pre-order numbers of the ops of a function: `start[op]`, and `end[op]` = the largest
    number inside op (itself when it has no regions)."""

    def __init__(self, root: Operation) -> None:
        self.start: dict[Operation, int] = {}
        self.end: dict[Operation, int] = {}
        self._count = 0
        for region in root.regions:
            for block in region.blocks:
                self._number_block(block)

    def _number_block(self, block: Block) -> None:
        for op in block.ops:
            self.start[op] = self._count
            self._count += 1
            for region in op.regions:
                for inner in region.blocks:
                    self._number_block(inner)
            self.end[op] = self._count - 1


def _uses(value: SSAValue) -> Iterator[tuple[Operation, int]]:
    """(op, operand index) of every use of a tile, through `pto.reinterpret` views."""
    for use in list(value.uses):
        op = use.operation
        if isinstance(op, pto.ReinterpretOp):
            yield from _uses(op.result)
        else:
            yield op, use.index


def _forwards(op: Operation) -> bool:
    """True if `op` may keep or pass on a tile operand beyond itself."""
    return (
        op.has_trait(IsTerminator)
        or isinstance(op, func.CallOp)
        or bool(op.regions)
        or any(isinstance(r.type, pto.TileType) for r in op.results)
    )


def _buffer(alloc: pto.AllocOp, numbering: _Numbering, target: Target) -> TileBuffer:
    tile = alloc.buffer.type
    assert isinstance(tile, pto.TileType)
    space = tile.space_name
    alignment = target.alignment[space]
    block = alloc.parent_block()
    assert block is not None
    block_end = numbering.end[block.last_op] if block.last_op is not None else 0
    first = last = None
    for op, index in _uses(alloc.buffer):
        alignment = max(alignment, effects.operand_alignment(op, index))
        # The use counts at the op of the alloc's block that contains it (a loop, an if, ...).
        anchor: Operation | None = op
        while anchor is not None and anchor.parent_block() is not block:
            anchor = anchor.parent_op()
        if anchor is None:  # not dominated by the alloc's block: be conservative
            lo, hi = numbering.start[alloc], block_end
        else:
            lo, hi = numbering.start[anchor], numbering.end[anchor]
            if _forwards(op):
                hi = block_end
        first = lo if first is None else min(first, lo)
        last = hi if last is None else max(last, hi)
    fixed = alloc.offset is not None
    if fixed:  # an explicitly placed tile is an obstacle for the whole function
        first, last = 0, max(numbering.end.values(), default=0)
    if first is None or last is None:  # unused: occupies its own position only
        first = last = numbering.start[alloc]
    return TileBuffer(
        alloc, space, tile.footprint_bytes(), alignment, first, last, fixed,
        alloc.offset.value.data if alloc.offset is not None else None,
    )


def _first_fit(buf: TileBuffer, placed: list[TileBuffer]) -> int:
    """The lowest offset aligned for `buf` that overlaps no placed buffer live at the same time."""
    conflicts = sorted(
        (p.offset, p.offset + p.size)
        for p in placed
        if p.offset is not None and p.space == buf.space and p.live_with(buf)
    )
    offset = 0
    for lo, hi in conflicts:
        if offset + buf.size <= lo:
            break
        offset = max(offset, -(-hi // buf.alignment) * buf.alignment)
    return offset


def _peak(buffers: list[TileBuffer]) -> tuple[int, list[TileBuffer]]:
    """The most bytes live at one program point, and the buffers live there."""
    best: tuple[int, list[TileBuffer]] = (0, [])
    for point in sorted({b.start for b in buffers}):
        live = [b for b in buffers if b.start <= point <= b.end]
        total = sum(b.size for b in live)
        if total > best[0]:
            best = (total, live)
    return best


def _join_slot_groups(buffers: list[TileBuffer]) -> None:
    """The slots of a multi-buffered tile (same `pto.multi_buffer` group) are used in turn by
    consecutive iterations, whose loads and mads overlap on different pipes: each slot is live
    whenever any of them is, so no slot's bytes go to another tile in between."""
    groups: dict[int, list[TileBuffer]] = {}
    for buf in buffers:
        attr = buf.alloc.attributes.get(SLOT_GROUP_ATTR)
        if isinstance(attr, IntegerAttr) and not buf.fixed:
            groups.setdefault(attr.value.data, []).append(buf)
    for members in groups.values():
        start, end = min(b.start for b in members), max(b.end for b in members)
        for buf in members:
            buf.start, buf.end = start, end


def assign_function(function: func.FuncOp, target: Target) -> list[TileBuffer]:
    """Place the allocs of `function`; returns the buffers with their offsets."""
    numbering = _Numbering(function)
    allocs = [op for op in function.walk() if isinstance(op, pto.AllocOp)]
    buffers = [_buffer(a, numbering, target) for a in allocs]
    for i, buf in enumerate(buffers):
        buf.index = i
    _join_slot_groups(buffers)
    placed = [b for b in buffers if b.fixed]
    for buf in sorted((b for b in buffers if not b.fixed), key=lambda b: (-b.size, b.start, b.index)):
        offset = _first_fit(buf, placed)
        capacity = target.capacity[buf.space]
        assert capacity is not None, "verified allocs are in spaces of the target"
        if offset + buf.size > capacity:
            same_space = [b for b in buffers if b.space == buf.space]
            total, live = _peak(same_space)
            listed = ", ".join(b.describe() for b in sorted(live, key=lambda b: b.index))
            raise PassOpError(
                buf.alloc,
                f"does not fit in {buf.space}: {buf.describe()} aligned to {buf.alignment} needs "
                f"[{offset}, {offset + buf.size}), {buf.space} capacity is {capacity} bytes on "
                f"target {target.name}; live at the peak ({total} bytes): {listed}",
            )
        buf.offset = offset
        placed.append(buf)
    for buf in buffers:
        if not buf.fixed:
            assert buf.offset is not None
            buf.alloc.properties["offset"] = IntegerAttr(buf.offset, i64)
    return buffers


@dataclass(frozen=True)
class PtoAssignAddressesPass(ModulePass):
    """Give every `pto.alloc` without an offset a static, aligned byte offset in its space,
    reusing the bytes of dead tiles.

    The module docstring has the details."""

    name = "pto-assign-addresses"

    target: str | None = None
    """Ascend target; sets the module's `pto.target` when it has none (default: the module's)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        resolve_target(op, self.target, self.name)
        for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if function.body.blocks:
                assign_function(function, pto.target_of(function))
