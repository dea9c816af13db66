"""The valid region of every PTOAS tile operand, op by op (a helper of ptoas-to-mmair).

A PTOAS tile has a physical shape (rows x cols) and a valid region (v_row x v_col), "the
populated sub-rectangle ... The valid region drives the iteration domain of compute and DMA ops"
(PTOAS docs/isa/tile-op/01-tile-overview.md, 1.5). It is static in the type (`v_row=16`,
`valid=16x32`), or `?` and given at `alloc_tile ... valid_row = %r valid_col = %c`, and
`pto.set_validshape %t, %r, %c` changes it from there on. The tile ops take their sizes from it
(pto-isa's TLOAD / TSTORE, TMATMUL's `aMatrix.GetValidRow()` ...: docs/ptoas.md).

`valid_regions` walks one function in program order and gives, for each PTOAS op and each of its
tile_buf operands, the region that holds there: a pair of sizes (an int or the index value the
kernel computes), or a sentence saying why it is not known there (a set_validshape inside a loop or
one branch of an `scf.if` that reaches the op on some paths only). Regions are compared by value
identity, so one `%n` set in both branches of an `scf.if` is still known after it.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue

from mmair.dialects.locations import op_location
from mmair.dialects.ptoas import ops as P
from mmair.dialects.ptoas.types import TileBufType

Size = int | SSAValue
Region = tuple[Size, Size] | str  # a str: why the region is not known here


def _where(op: Operation) -> str:
    file, line, col = op_location(op)
    return f"at {line}:{col}" if line is not None else "in the kernel"


def type_region(tile: TileBufType, op: Operation | None = None) -> Region:
    """The region the type states: static sizes, or (for `?`) the alloc_tile's operands."""
    rows, cols = tile.valid_shape
    sizes: list[Size] = []
    for name, size in (("valid_row", rows), ("valid_col", cols)):
        if size >= 0:
            sizes.append(size)
            continue
        value = getattr(op, name, None) if isinstance(op, P.AllocTileOp) else None
        if value is None:
            return (f"has a run-time valid region ({'v_row' if name == 'valid_row' else 'v_col'}"
                    f"=?) that no alloc_tile {name} operand gives")
        sizes.append(value)
    return (sizes[0], sizes[1])


def valid_regions(body: Block) -> dict[tuple[Operation, int], Region]:
    """(op, operand index) -> the valid region of that tile_buf operand where `op` runs."""
    uses: dict[tuple[Operation, int], Region] = {}
    _block(body, {}, uses)
    return uses


def _block(block: Block, state: dict[SSAValue, Region],
           uses: dict[tuple[Operation, int], Region]) -> dict[SSAValue, Region]:
    for op in block.ops:
        if not isinstance(op, P.SetValidShapeOp):
            for index, operand in enumerate(op.operands):
                if isinstance(operand.type, TileBufType):
                    uses[(op, index)] = state.get(operand) or type_region(operand.type)
        if isinstance(op, P.AllocTileOp):
            state[op.result] = type_region(op.result.type, op)
        elif isinstance(op, P.SetValidShapeOp):
            state[op.source[0]] = (op.valid_row[0], op.valid_col[0])
        elif op.regions:
            _nested(op, state, uses)
    return state


def _nested(op: Operation, state: dict[SSAValue, Region],
            uses: dict[tuple[Operation, int], Region]) -> None:
    sets = [s for r in op.regions for s in r.walk() if isinstance(s, P.SetValidShapeOp)]
    if not sets:
        for region in op.regions:
            for block in region.blocks:
                _block(block, dict(state), uses)
        return
    from xdsl.dialects import scf

    if isinstance(op, scf.IfOp):
        # each branch from the state before the if; after it, what both leave alike
        ends = [_block(b, dict(state), uses) for r in op.regions for b in r.blocks]
        if len(ends) == 1:  # no else: the empty branch keeps the state
            ends.append(dict(state))
        # only a set_validshape changes a tile the if does not allocate
        for tile in {s.source[0] for s in sets}:
            regions = [end.get(tile) for end in ends]
            if all(r == regions[0] for r in regions):
                if regions[0] is not None:
                    state[tile] = regions[0]
            else:
                where = next(_where(s) for s in sets if s.source[0] is tile)
                state[tile] = (f"has a valid region set in one branch of an scf.if only "
                               f"(pto.set_validshape {where}), which mmair cannot follow")
        return
    # a loop: a set in its body reaches the next iteration's earlier ops and, when the loop
    # runs zero times, not the ops after it
    inner = dict(state)
    for s in sets:
        inner[s.source[0]] = (f"has a valid region set later in its loop (pto.set_validshape "
                              f"{_where(s)}), which reaches it from the previous iteration")
    for region in op.regions:
        for block in region.blocks:
            _block(block, dict(inner), uses)
    for s in sets:
        state[s.source[0]] = (f"has a valid region set inside a loop (pto.set_validshape "
                              f"{_where(s)}), which may not run")


__all__ = ["Region", "Size", "type_region", "valid_regions"]
