"""Multi-buffering of on-chip tiles over an `scf.for` (ping-pong buffers), a reusable transform.

On an Ascend AI Core the loads of a tile (MTE2: GM -> L1, MTE1: L1 -> L0A/L0B) and the cube's
`mad` (pipe M) run on different pipes. With one buffer per tile the load of iteration i+1 must
wait until the mad of iteration i has read the buffer (a write-after-read dependency), so the pipes
take turns. With n buffers ("slots") used round-robin, iteration i+1 writes another slot and its
load overlaps the mad of iteration i; only iteration i+n reuses a slot.

`multi_buffer(allocs, loop, n)` follows MLIR's `memref::multiBuffer(alloc, loop, n)`
(mlir/lib/Dialect/MemRef/Transforms/MultiBuffer.cpp), which widens the alloc by a leading
dimension of n and indexes it with `(iv - lb) / step mod n`. A `pto.alloc` is a fixed tile with no
dynamic slot view, so here the slots are n separate allocs and the loop is unrolled n times: the
body is cloned once per slot, clone s uses slot s and the induction value iv + s * step; when n
does not divide the trip count, the clones that would run past the end in the last round are
guarded by `scf.if iv + s * step < ub` (a loop of at most n trips becomes straight-line code).
Every op keeps its own iteration's operands, so results are unchanged; each slot is a
separate tile, marked with the discardable attribute `pto.multi_buffer = <group>`: the
slots of a group are live together for `pto-assign-addresses` (distinct bytes, also when a short
loop unrolls to straight-line code), and `pto-insert-sync` orders each slot with its own events.

With `jam=True` the loop is unrolled and jammed (MLIR's `loopUnrollJamByFactor`): when the body
holds exactly one inner `scf.for` (no iter_args) and no clone needs a guard, the n clones share
one copy of that inner loop whose body runs the n clones' inner bodies in turn (clone prefixes
before it, clone suffixes after it). The tiled matmul jams the loop of its L0C slots: each K step
then feeds the K chains of n output tiles, which accumulate in different L0C slots and so are
independent, instead of running chain j+1 after chain j on the same operand slots (the
executor's `--jobs` pool then runs a mad of each chain side by side). The caller must also
guarantee that the clones touch disjoint memory apart from the inner loop's tiles, which each
inner iteration writes before reading (true of the tiled matmul: every output tile has its own
C window and L0C slot).

Preconditions (the caller's contract; the structural ones are checked, PreconditionError):
* `loop` has constant bounds and step and no loop-carried values (`iter_args`);
* every alloc is defined outside `loop`, and all its uses are inside `loop`;
* every iteration writes the bytes of an alloc that it reads before reading them (no data is
  carried from one iteration to the next through the tile), as in MLIR's override analysis.
  This is not checked here: the tiled matmul lowering loads each tile it multi-buffers in the
  iteration that uses it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from mmair.dialects import pto
from mmair.dialects.locations import derive
from mmair.dialects.value_names import name_derived, value_label

SLOT_GROUP_ATTR = "pto.multi_buffer"
"""Discardable attribute of the slots of one multi-buffered tile: the same group number on each.
`pto-assign-addresses` keeps the slots of a group live together (they alternate in time even when
the unrolled code places them one after the other)."""


def _group_of(alloc: pto.AllocOp) -> int | None:
    attr = alloc.attributes.get(SLOT_GROUP_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


class PreconditionError(ValueError):
    """`multi_buffer` was called on a loop or alloc that breaks a structural precondition."""


def constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` index/integer, else None."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def innermost_loop(alloc: pto.AllocOp) -> scf.ForOp | None:
    """The innermost `scf.for` that contains every use of `alloc` (through `pto.reinterpret`
    views), or None when the uses are not all inside one loop that the alloc is outside of."""
    users: list[Operation] = []
    pending = [alloc.buffer]
    while pending:
        value = pending.pop()
        for use in value.uses:
            if isinstance(use.operation, pto.ReinterpretOp):
                pending.append(use.operation.result)
            else:
                users.append(use.operation)
    if not users:
        return None
    chains = []
    for user in users:
        chain: list[scf.ForOp] = []
        parent = user.parent_op()
        while parent is not None:
            if isinstance(parent, scf.ForOp):
                chain.append(parent)
            parent = parent.parent_op()
        chains.append(chain[::-1])  # outermost first
    common: scf.ForOp | None = None
    for loops in zip(*chains, strict=False):  # the common prefix of the loop chains
        if any(loop is not loops[0] for loop in loops):
            break
        common = loops[0]
    if common is None or common.is_ancestor(alloc):
        return None
    return common


def multi_buffer(
    allocs: Sequence[pto.AllocOp], loop: scf.ForOp, n: int, jam: bool = False
) -> list[list[pto.AllocOp]]:
    """Give each alloc `n` slots used round-robin by the iterations of `loop` (module docstring).

    Returns, per alloc, its slots in order (slot 0 is the original alloc). The loop is replaced:
    afterwards it steps by n * step (or is gone when it would run at most one round).
    """
    if n < 1:
        raise PreconditionError(f"multi-buffering needs n >= 1 slots, got {n}")
    bounds = [constant_index(v) for v in (loop.lb, loop.ub, loop.step)]
    if any(b is None for b in bounds):
        raise PreconditionError("multi-buffering needs a loop with constant bounds and step")
    lb, ub, step = (b for b in bounds if b is not None)
    if loop.iter_args:
        raise PreconditionError("multi-buffering needs a loop without iter_args")
    for alloc in allocs:
        if loop.is_ancestor(alloc) or not _inside(alloc, loop):
            raise PreconditionError(
                f"multi-buffering needs every use of {_label(alloc)} inside the loop and the "
                "alloc outside it"
            )
    block = loop.parent_block()
    assert block is not None
    root: Operation = loop
    while root.parent_op() is not None:
        root = root.parent_op()  # type: ignore[assignment]
    group = 1 + max(
        (_group_of(op) or 0 for op in root.walk() if isinstance(op, pto.AllocOp)), default=0
    )
    slots: list[list[pto.AllocOp]] = []
    for alloc in allocs:
        alloc.attributes[SLOT_GROUP_ATTR] = IntegerAttr(group, i64)
        group += 1
        row = [alloc]
        for s in range(1, n):
            clone = alloc.clone()
            name_derived(clone.buffer, alloc.buffer, f"_s{s}")
            alloc_block = alloc.parent_block()
            assert alloc_block is not None
            alloc_block.insert_op_after(clone, row[-1])
            row.append(clone)
        name_derived(alloc.buffer, alloc.buffer, "_s0")
        slots.append(row)
    if n == 1:
        return slots

    trips = max(0, -(-(ub - lb) // step))
    rounds = -(-trips // n)
    body = loop.body.block
    iv = body.args[0]
    constants: dict[int, SSAValue] = {}

    def const(v: int) -> SSAValue:
        if v not in constants:
            found = _dominating_constant(loop, v)
            if found is not None:
                constants[v] = found
                return found
            op = arith.ConstantOp(IntegerAttr(v, IndexType()))
            op.result.name_hint = f"c{v}"
            block.insert_op_before(derive(op, loop), loop)
            constants[v] = op.result
        return constants[v]

    def clone_body(target: Block, before: Operation | None, index: SSAValue, s: int) -> None:
        mapping: dict[SSAValue, SSAValue] = {iv: index}
        mapping.update({row[0].buffer: row[s].buffer for row in slots})
        for op in body.ops:
            if isinstance(op, scf.YieldOp):
                continue
            new = op.clone(value_mapper=mapping)
            if before is None:
                target.add_op(new)
            else:
                target.insert_op_before(new, before)

    inner = [op for op in body.ops if isinstance(op, scf.ForOp)]
    jammed = jam and len(inner) == 1 and not inner[0].iter_args and (
        rounds <= 1 or trips % n == 0)

    def jam_bodies(target: Block, before: Operation | None, indices: list[SSAValue]) -> None:
        """The clones of `indices` with their inner loops fused into one (unroll-and-jam)."""
        mappings: list[dict[SSAValue, SSAValue]] = []
        for s, index in enumerate(indices):
            mapping = {iv: index}
            mapping.update({row[0].buffer: row[s].buffer for row in slots})
            mappings.append(mapping)

        def put(op: Operation) -> None:
            if before is None:
                target.add_op(op)
            else:
                target.insert_op_before(op, before)

        ops = [op for op in body.ops if not isinstance(op, scf.YieldOp)]
        at = ops.index(inner[0])
        for part in (ops[:at], ops[at:at + 1], ops[at + 1:]):
            if part and part[0] is not inner[0]:
                for mapping in mappings:
                    for op in part:
                        put(op.clone(value_mapper=mapping))
                continue
            old_loop = inner[0]
            first = mappings[0]
            fused = scf.ForOp(first.get(old_loop.lb, old_loop.lb),
                              first.get(old_loop.ub, old_loop.ub),
                              first.get(old_loop.step, old_loop.step), [],
                              [_index_block(old_loop.body.block.args[0].name_hint)])
            fused_iv = fused.body.block.args[0]
            for mapping in mappings:
                inner_map = dict(mapping)
                inner_map[old_loop.body.block.args[0]] = fused_iv
                for op in old_loop.body.block.ops:
                    if not isinstance(op, scf.YieldOp):
                        fused.body.block.add_op(op.clone(value_mapper=inner_map))
            fused.body.block.add_op(scf.YieldOp())
            put(derive(fused, old_loop))

    if rounds <= 1 and jammed:
        jam_bodies(block, loop, [const(lb + s * step) for s in range(trips)])
    elif rounds <= 1:  # at most one round: straight-line clones
        for s in range(trips):
            clone_body(block, loop, const(lb + s * step), s)
    else:  # clone s runs iteration iv + s * step with slot s
        new_loop = scf.ForOp(const(lb), const(lb + rounds * n * step), const(n * step), [],
                             [_index_block(iv.name_hint)])
        new_body = new_loop.body.block
        new_iv = new_body.args[0]
        if jammed:
            indices: list[SSAValue] = [new_iv]
            for s in range(1, n):
                add = arith.AddiOp(new_iv, const(s * step))
                add.result.name_hint = f"{iv.name_hint}{s}" if iv.name_hint else None
                new_body.add_op(add)
                indices.append(add.result)
            jam_bodies(new_body, None, indices)
        for s in range(n if not jammed else 0):
            if not s:
                clone_body(new_body, None, new_iv, s)
                continue
            add = arith.AddiOp(new_iv, const(s * step))
            add.result.name_hint = f"{iv.name_hint}{s}" if iv.name_hint else None
            new_body.add_op(add)
            if trips % n == 0 or s < trips % n:
                clone_body(new_body, None, add.result, s)
                continue
            # The last round runs trips mod n clones: the others are guarded off.
            inside = arith.CmpiOp(add.result, const(ub), "slt")
            inside.result.name_hint = f"{iv.name_hint}{s}_in" if iv.name_hint else None
            then = Block()
            clone_body(then, None, add.result, s)
            then.add_op(scf.YieldOp())
            new_body.add_ops([inside, scf.IfOp(inside.result, [], Region(then))])
        new_body.add_op(scf.YieldOp())
        block.insert_op_before(derive(new_loop, loop), loop)
    loop.detach()
    loop.erase()
    return slots


def _dominating_constant(op: Operation, value: int) -> SSAValue | None:
    """An index `arith.constant` of `value` that comes before `op` or one of its ancestors in
    their blocks (so it dominates `op`), else None."""
    current: Operation | None = op
    while current is not None:
        block = current.parent_block()
        if block is None:
            return None
        for before in block.ops:
            if before is current:
                break
            if (
                isinstance(before, arith.ConstantOp)
                and isinstance(before.result.type, IndexType)
                and constant_index(before.result) == value
            ):
                return before.result
        current = current.parent_op()
    return None


def _index_block(name: str | None) -> Block:
    new = Block(arg_types=[IndexType()])
    new.args[0].name_hint = name
    return new


def _inside(alloc: pto.AllocOp, loop: scf.ForOp) -> bool:
    """True if every use of `alloc` is inside `loop`."""
    found = innermost_loop(alloc)
    return found is not None and (found is loop or loop.is_ancestor(found))


def _label(alloc: pto.AllocOp) -> str:
    return value_label(alloc.buffer, str(alloc.buffer.type))
