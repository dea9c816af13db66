"""`pto-raise-params`: raise the raw Ascend C parameter forms back to the tile-level cube ops.

The inverse of `pto-expand-params` (passes/pto_expand_params.py): a raw walk (`copy_nd2nz`,
`copy_dn2nz`, the `load_2d` / `load_2d_transpose` loops, `mmad`, `fixpipe_copy`, `copy_l1_bt`,
with the `pipe_barrier`s and the index arithmetic expand-params puts between them) becomes the one
tile-level op (`mte_gm_l1`, `mte_l1_l0a` / `mte_l1_l0b`, `mad*`, `fixpipe`, `mte_l1_bt`) whose
expansion it is. mmair-to-ptoas uses it on a2, where PTOAS's tile level has no parameter forms
and its VPTO cube ops are the a5 intrinsics.

There is one source of truth for the parameter arithmetic: a raw walk is raised only when
expand-params' own expansion of the raised op writes the same walk. Candidates come from the raw
fields (the sizes a count was rounded from, the size a loop runs to, fractal-aligned starts in
the source tile); each is expanded in place, its ops are compared with the raw ones field by
field (operands as expression trees over the index arithmetic, loop indices by nesting depth,
tiles and other values by identity, properties by value), and the expansion is removed again.
A hand-written raw op whose fields happen to match such a walk is raised the same way. A walk no
candidate reproduces keeps its raw form; the strict mode (mmair-to-ptoas) refuses it with one
diagnostic at its first raw op naming the first field whose value no tile-level op makes (the
nearest candidate's value beside it).

Exactness: raising is only accepted where expand-params would expand the raised op again. The
L0-side raw forms (L1 -> L0, mmad, fixpipe_copy) lay L0 tiles out by the op sizes, the tile-level
ops by the tile shapes, so a function's L0-side ops are raised all together or not at all (and
not when the function already holds a tile-level L0-side op, which expand-params would expand
along with them): then expand-params maps the raised function back to the input, and the raised
kernel computes what the raw one does. The GM -> L1 and L1 -> BT walks, which expand-params
expands on their own, are raised on their own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from mmair.dialects import pto
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import M0, Target, c0_elements
from mmair.passes.pass_errors import PassOpError
from mmair.passes.pto_expand_params import _Builder, _Expander

# The index arithmetic expand-params' builder writes: compared as expression trees.
_ARITH = (arith.ConstantOp, arith.AddiOp, arith.MuliOp, arith.CeilDivUIOp, arith.DivUIOp,
          arith.RemUIOp)
_COMMUTATIVE = (arith.AddiOp, arith.MuliOp)
_FOLD = {arith.AddiOp: lambda a, b: a + b, arith.MuliOp: lambda a, b: a * b,
         arith.CeilDivUIOp: lambda a, b: -(-a // b), arith.DivUIOp: lambda a, b: a // b,
         arith.RemUIOp: lambda a, b: a % b}
_LOADS = (pto.Load2DOp, pto.Load2DTransposeOp)
_GM_L1 = (pto.CopyNd2NzOp, pto.CopyDn2NzOp)
_L0_SIDE_TILE = (pto.MteL1L0AOp, pto.MteL1L0BOp, pto.MadOp, pto.MadAccOp, pto.MadBiasOp,
                 pto.FixpipeOp)
_GRID_LIMIT = 1024  # fractal-aligned start candidates tried for a constant source offset
Spec = int | SSAValue  # a candidate field: a constant, or a value of the kernel


def _significant(block: Block, start: Operation | None = None) -> Iterator[Operation]:
    op = block.first_op if start is None else start
    while op is not None:
        if not isinstance(op, (*_ARITH, scf.YieldOp)):
            yield op
        op = op.next_op


def _expr(value: SSAValue, ivs: dict[SSAValue, int]) -> object:
    known = pto.static_value(value)
    if known is not None:
        return known
    if value in ivs:
        return ("iv", ivs[value])
    owner = value.owner
    if not isinstance(owner, _ARITH):
        return ("value", id(value))
    # normalized, so that a canonicalized or hand-written walk compares equal: constants folded,
    # x + 0, x * 1, x / 1 dropped, the operands of + and * in one order
    args = [_expr(o, ivs) for o in owner.operands]
    if all(isinstance(a, int) for a in args) and (args[1] != 0 or isinstance(owner, _COMMUTATIVE)):
        return _FOLD[type(owner)](*args)
    if isinstance(owner, arith.AddiOp) and 0 in args:
        return args[1 - args.index(0)]
    if isinstance(owner, arith.MuliOp) and (0 in args or 1 in args):
        return 0 if 0 in args else args[1 - args.index(1)]
    if isinstance(owner, arith.CeilDivUIOp | arith.DivUIOp) and args[1] == 1:
        return args[0]
    if isinstance(owner, _COMMUTATIVE):
        args.sort(key=repr)
    return (owner.name, *args)


def _flat(ops: list[Operation], ivs: dict[SSAValue, int], mask: bool = False,
          ) -> list[tuple[str, object]]:
    """The walk `ops` as (field, value) pairs; `mask`: the loads' source offsets left out."""
    out: list[tuple[str, object]] = []
    for op in ops:
        if isinstance(op, scf.ForOp):
            body = op.body.block
            inner = {**ivs, body.args[0]: len(ivs)}
            out += [("op", "scf.for"), ("scf.for lower bound", _expr(op.lb, ivs)),
                    ("scf.for upper bound", _expr(op.ub, ivs)), ("scf.for step", _expr(op.step, ivs))]
            out += _flat(list(_significant(body)), inner, mask)
            out.append(("op", "end of scf.for"))
            continue
        out.append(("op", op.name))
        definition = type(op).get_irdl_definition()  # type: ignore[attr-defined]
        for name, _ in definition.operands:
            value = getattr(op, name)
            if mask and isinstance(op, _LOADS) and name == "src_offset":
                continue
            shown = None if value is None else tuple(_expr(v, ivs) for v in value) \
                if isinstance(value, tuple) else _expr(value, ivs)
            out.append((f"{op.name} {name}", shown))
        for name in sorted(definition.properties):
            if name == "operandSegmentSizes":
                continue
            prop = op.properties.get(name)
            out.append((f"{op.name} {name}", None if prop is None else str(prop)))
    return out


def _show(value: object) -> str:
    if value is None:
        return "absent"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    return "a run-time value"


def _available(value: SSAValue, at: Operation) -> bool:
    """Whether `value` is defined where an op inserted before `at` can use it."""
    home = value.owner if isinstance(value, BlockArgument) else value.owner.parent_block()
    cur: Operation | None = at
    while cur is not None:
        block = cur.parent_block()
        if block is None:
            return False
        if block is home:
            return isinstance(value, BlockArgument) or value.owner.is_before_in_block(cur)
        cur = block.parent_op()
    return False


def _values(ops: list[Operation]) -> list[SSAValue]:
    """Every value in the index-arithmetic trees of `ops`' operands (loop bounds included)."""
    seen: dict[int, SSAValue] = {}

    def visit(v: SSAValue) -> None:
        if id(v) in seen or not isinstance(v.type, IndexType) or pto.static_value(v) is not None:
            return
        seen[id(v)] = v
        if isinstance(v.owner, _ARITH):
            for o in v.owner.operands:
                visit(o)

    for op in ops:
        for inner in op.walk():
            for o in inner.operands:
                visit(o)
    return list(seen.values())


def _below(value: Spec, bound: int) -> bool:
    """Whether `value` can stay below `bound`: False when it provably reaches it (a constant, or
    a loop index whose last value does)."""
    known = value if isinstance(value, int) else pto.static_value(value)
    if known is not None:
        return known < bound
    owner = value.owner
    if isinstance(owner, Block) and isinstance(loop := owner.parent_op(), scf.ForOp) \
            and value is owner.args[0]:
        lb, ub, step = (pto.static_value(v) for v in (loop.lb, loop.ub, loop.step))
        if lb is not None and ub is not None and step and ub > lb:
            return lb + (ub - lb - 1) // step * step < bound
    return True


def _numerators(ops: list[Operation]) -> list[SSAValue]:
    """The run-time values a walk's fields divide (a start row or column over a fractal)."""
    return [v.owner.lhs for v in _values(ops) if isinstance(v.owner, arith.DivUIOp)
            and pto.static_value(v.owner.lhs) is None]


def _constants(ops: list[Operation]) -> set[int]:
    found: set[int] = set()
    for op in ops:
        for inner in op.walk():
            for o in inner.operands:
                c = pto.static_value(o)
                if c is not None and c > 0:
                    found.add(c)
    return found


@dataclass
class _Trial:
    """One function's raising: matches found, and the nearest miss of each refused walk."""

    target: Target
    matches: list[tuple[Operation, list[Operation], Callable[[_Builder], Operation]]] = \
        field(default_factory=list)
    refused: list[tuple[Operation, str]] = field(default_factory=list)

    def attempt(self, start: Operation, make: Callable[[_Builder], Operation],
                expand: Callable[[_Expander, Operation], bool], mask: bool = False,
                ) -> tuple[int, list[Operation], list[tuple[str, object]], list[tuple[str, object]]]:
        """Expand `make`'s op before `start` and compare with the raw walk from `start`: (index
        of the first differing field, or -1 for a match; the raw ops it covers; both walks)."""
        block = start.parent_block()
        assert block is not None
        marker = start.prev_op
        b = _Builder(block, start)
        cand = make(b)
        block.insert_op_before(cand, start)
        before = cand.prev_op
        try:
            done = expand(_Expander(self.target), cand)
            if done:
                cand.verify_()  # a candidate the verifier refuses is no tile-level op
        except (PassOpError, VerifyException):
            done = False
        made: list[Operation] = []
        op = cand.prev_op
        while op is not None and op is not before:
            made.append(op)
            op = op.prev_op
        made.reverse()
        mine = [o for o in made if not isinstance(o, _ARITH)] if done else []
        raw: list[Operation] = []
        for o in _significant(block, start):
            if len(raw) == len(mine) or isinstance(o, pto.SetFlagOp | pto.WaitFlagOp):
                break
            raw.append(o)
        theirs, ours = _flat(raw, {}, mask), _flat(mine, {}, mask)
        diff = next((i for i, (x, y) in enumerate(zip(theirs, ours, strict=False)) if x != y),
                    -1 if len(theirs) == len(ours) and done else min(len(theirs), len(ours)))
        # remove the trial: the candidate, its expansion and its constants
        op = start.prev_op
        while op is not None and op is not marker:
            prev = op.prev_op
            op.detach()
            op.erase()
            op = prev
        return diff, raw, theirs, ours


def _dims(tile: SSAValue) -> tuple[int, int]:
    t = tile.type
    assert isinstance(t, pto.TileType)
    shape = t.logical_shape
    return (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])


def _sizes(ops: list[Operation], start: Operation, units: tuple[int, ...], limit: int,
           extra: tuple[int, ...] = ()) -> list[Spec]:
    """Size candidates: the run-time values the walk's fields derive from, then counts times the
    fractal units, the tile extent and `extra`, within (0, limit], largest first. A raw walk moves
    whole fractals (BT units), so of the sizes it is the expansion of, the largest (the count
    rounded up, within the tile) is the tile-level op that moves what it moves: a smaller one
    would leave the rest of those fractals unwritten for the ops that read them."""
    out: list[Spec] = [v for v in _values(ops) if _available(v, start)]
    ints = {c * u for c in _constants(ops) for u in (1, *units)} | {limit, *extra}
    out += sorted((i for i in ints if 0 < i <= limit), reverse=True)
    return out


class _Raiser:
    def __init__(self, trial: _Trial):
        self.t = trial

    def best(self, start: Operation, lead: Operation,
             candidates: Iterator[tuple[Callable[[_Builder], Operation], Callable, bool]],
             ) -> tuple[list[Operation], Callable[[_Builder], Operation]] | str:
        """The first candidate whose expansion is the raw walk, or the refusal message."""
        nearest: tuple[int, list, list] | None = None
        longest: tuple[list[Operation], Callable[[_Builder], Operation]] | None = None
        for make, expand, mask in candidates:
            diff, raw, theirs, ours = self.t.attempt(start, make, expand, mask)
            if diff < 0 and not mask:
                if expand is _Expander.l1_l0:  # its starts do not change the ops it writes
                    return raw, make
                # the walk covering the most raw ops: a zz staging's full slabs alone are the
                # expansion of fewer rows
                if longest is None or len(raw) > len(longest[0]):
                    longest = (raw, make)
            if diff >= 0 and (nearest is None or diff > nearest[0]):
                nearest = (diff, theirs, ours)
        if longest is not None:
            return longest
        if nearest is None:
            return (f"is a raw {lead.name} that no tile-level op's expansion writes: it has no "
                    f"PTOAS tile-level spelling on target {self.t.target.name}")
        diff, theirs, ours = nearest
        if diff < len(theirs):
            name, value = theirs[diff]
            got = ours[diff][1] if diff < len(ours) and ours[diff][0] == name else None
            said = "" if got is None else f" (the nearest tile-level op writes {_show(got)})"
            what = f"{name} = {_show(value)}" if name != "op" else f"{_show(value)}"
            return (f"is a raw walk whose {what} no tile-level op's expansion writes{said}: it has "
                    f"no PTOAS tile-level spelling on target {self.t.target.name}")
        return (f"is a raw walk that ends where the nearest tile-level op's expansion goes on: it "
                f"has no PTOAS tile-level spelling on target {self.t.target.name}")

    # -- candidates per raw op ------------------------------------------------------------

    def gm_l1(self, start: Operation, lead: pto.CopyNd2NzOp | pto.CopyDn2NzOp):
        dst = lead.dst.type
        assert isinstance(dst, pto.TileType)
        rows_max, cols_max = _dims(lead.dst)
        look = list(_significant(start.parent_block(), start))[:3]  # type: ignore[arg-type]
        copies = [o for o in look if isinstance(o, _GM_L1)]
        nd = {pto.static_value(o.nd_num) for o in copies} - {None}
        ns = {pto.static_value(o.n_value) for o in copies} - {None}
        extra = tuple(M0 * a + r for a in nd for r in ns | {0}) + tuple(M0 * (a - 1) + r for a in nd
                                                                         for r in ns)
        per_byte = 8 // dst.element_bits if dst.element_bits < 8 else 1
        # an nd tile (a GEMV vector, a bias row) is one row, which its walk does not spell
        rows = [1] if dst.layout_name == "nd" else _sizes(copies, start, (), rows_max, extra)
        cols = _sizes(copies, start, (per_byte,) if per_byte > 1 else (), cols_max)
        dn = isinstance(lead, pto.CopyDn2NzOp)
        for r in rows:
            for c in cols:
                yield (lambda b, r=r, c=c: pto.MteGmL1Op(lead.src, lead.dst, b.v(r), b.v(c), dn),
                       _Expander.gm_l1, False)

    def l1_l0(self, start: Operation, lead: pto.Load2DOp | pto.Load2DTransposeOp):
        src, dst = lead.src.type, lead.dst.type
        assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
        is_a = dst.space_name == "l0a"
        walk = [start] + ([] if isinstance(start, scf.ForOp) else
                          [o for o in _significant(start.parent_block(), start.next_op)][:1])  # type: ignore[arg-type]
        c0 = c0_elements(src.element_name, "l1")
        frac = isa_params.fractal_elements(src.element_name)
        d_rows, d_cols = _dims(lead.dst)
        units = (M0, c0, 2 * M0, frac)
        nd = dst.layout_name == "nd"  # a GEMV vector: one row from row 0, which it does not spell
        first = [1] if nd else _sizes(walk, start, units, d_rows)
        second = _sizes(walk, start, units, d_cols)
        cls = pto.MteL1L0AOp if is_a else pto.MteL1L0BOp

        def make(a: Spec, b_: Spec, tr: bool, at: tuple[Spec, Spec] | None):
            def build(b: _Builder) -> Operation:
                where = None if at is None else (b.v(at[0]), b.v(at[1]))
                return cls(lead.src, lead.dst, b.v(a), b.v(b_), where, tr)
            return build

        found = None
        for tr in (False, True):
            for a in first:
                for b_ in second:
                    diff, *_ = self.t.attempt(start, make(a, b_, tr, None), _Expander.l1_l0, True)
                    if diff < 0:
                        found = (a, b_, tr)
                        break
                if found:
                    break
            if found:
                break
        if found is None:  # the nearest full walk, for the message
            yield make(first[-1], second[-1], False, None), _Expander.l1_l0, False
            return
        a, b_, tr = found
        yield make(a, b_, tr, None), _Expander.l1_l0, False
        s_rows, s_cols = _dims(lead.src)
        nums: list[Spec] = [v for v in _numerators(walk) if _available(v, start)]
        rows = [0] if nd else [*nums, *range(0, s_rows, M0)]
        cols = [*nums, *range(0, s_cols, min(c0, M0))]
        # a start past the source tile is no tile-level op (with one fractal row, a row and a
        # column start write the same walk: a loop index's range tells them apart)
        starts = [(r, c) for r in rows for c in cols if not (r == 0 and c == 0)
                  and _below(r, s_rows) and _below(c, s_cols)]
        for at in starts[:_GRID_LIMIT]:
            yield make(a, b_, tr, at), _Expander.l1_l0, False

    def mmad(self, start: Operation, lead: pto.MmadOp):
        gemv = lead.disable_gemv is not None

        def build(b: _Builder) -> Operation:
            if lead.bias is not None:
                return pto.MadBiasOp(lead.lhs, lead.rhs, lead.dst, lead.bias, lead.m, lead.n,
                                     lead.k, gemv)
            cls = pto.MadOp if lead.init_zero else pto.MadAccOp
            return cls(lead.lhs, lead.rhs, lead.dst, lead.m, lead.n, lead.k, gemv)
        yield build, _Expander.mad, False

    def fixpipe(self, start: Operation, lead: pto.FixpipeCopyOp):
        def build(b: _Builder) -> Operation:
            return pto.FixpipeOp(lead.src, lead.dst, lead.m_size, lead.n_size,
                                 layout=lead.layout.data, quant=lead.quant.data,
                                 relu=lead.relu is not None, scalar=lead.scalar, vector=lead.vector,
                                 atomic=None if lead.atomic is None else lead.atomic.data)
        yield build, _Expander.fixpipe, False

    def l1_bt(self, start: Operation, lead: pto.CopyL1BtOp):
        dst = lead.dst.type
        assert isinstance(dst, pto.TileType)
        unit = isa_params.l1_bt_unit_bytes(self.t.target)
        per_unit = max(1, unit // (dst.element_bits // 8))
        for n in _sizes([lead], start, (per_unit,), _dims(lead.dst)[1]):
            yield (lambda b, n=n: pto.MteL1BtOp(lead.src, lead.dst, b.v(n)),
                   _Expander.l1_bt, False)


def _lead(op: Operation) -> Operation | None:
    """The raw op a walk starting at `op` is about (a loop's or a barrier's first load)."""
    if isinstance(op, tuple(pto.params.RAW_OPS)):
        return op
    if isinstance(op, scf.ForOp):
        inner = next(_significant(op.body.block), None)
        if isinstance(inner, pto.PipeBarrierOp):
            inner = inner.next_op
            while isinstance(inner, _ARITH):
                inner = inner.next_op
        return inner if isinstance(inner, _LOADS) else None
    if isinstance(op, pto.PipeBarrierOp):
        nxt = next(_significant(op.parent_block(), op.next_op), None)  # type: ignore[arg-type]
        return _lead(nxt) if isinstance(nxt, (*_LOADS, scf.ForOp)) else None
    return None


def raise_function(fn: func.FuncOp, strict: bool = False) -> None:
    """Raise `fn`'s raw walks in place (module docstring). `strict`: a walk left raw is a
    `PassOpError` at its first raw op."""
    trial = _Trial(pto.target_of(fn))
    raiser = _Raiser(trial)
    kinds = {pto.CopyNd2NzOp: raiser.gm_l1, pto.CopyDn2NzOp: raiser.gm_l1,
             pto.Load2DOp: raiser.l1_l0, pto.Load2DTransposeOp: raiser.l1_l0,
             pto.MmadOp: raiser.mmad, pto.FixpipeCopyOp: raiser.fixpipe,
             pto.CopyL1BtOp: raiser.l1_bt}
    l0_side: list[int] = []  # indices into trial.matches

    def visit(block: Block) -> None:
        ops = list(_significant(block))
        taken: set[int] = set()
        for op in ops:
            if id(op) in taken:
                continue
            lead = _lead(op)
            if lead is None:
                for region in op.regions:
                    for inner in region.blocks:
                        visit(inner)
                continue
            kind = kinds.get(type(lead))
            found = "" if kind is not None else (
                f"is a raw {lead.name}, which no tile-level op's expansion writes: it has no PTOAS "
                f"tile-level spelling on target {trial.target.name}")
            if kind is not None:
                found = raiser.best(op, lead, kind(op, lead))
            if isinstance(found, str):
                if isinstance(op, pto.PipeBarrierOp):
                    continue  # a barrier of its own; the raw op after it is tried next
                if isinstance(op, scf.ForOp):  # a loop of the kernel's own
                    for inner in op.body.blocks:
                        visit(inner)
                    continue
                trial.refused.append((lead, found))
                continue
            raw, make = found
            taken.update(id(o) for o in raw)
            if not isinstance(lead, (*_GM_L1, pto.CopyL1BtOp)):
                l0_side.append(len(trial.matches))
            trial.matches.append((op, raw, make))

    visit(fn.body.block)
    mixed = next((o for o in fn.walk() if isinstance(o, _L0_SIDE_TILE)), None)
    l0_refused = [r for r in trial.refused if not isinstance(r[0], (*_GM_L1, pto.CopyL1BtOp))]
    if strict and trial.refused:
        op, message = trial.refused[0]
        raise PassOpError(op, message)
    if strict and mixed is not None and l0_side:
        op = trial.matches[l0_side[0]][1][0]
        raise PassOpError(op, f"is a raw L0-side walk in a function that also holds the tile-level "
                              f"{mixed.name}: the raw forms lay L0 tiles out by the op sizes, the "
                              f"tile-level ops by the tile shapes, so it has no exact PTOAS "
                              f"tile-level spelling")
    skip = set(l0_side) if (l0_refused or mixed is not None) else set()
    for index, (start, raw, make) in enumerate(trial.matches):
        if index in skip:
            continue
        block = start.parent_block()
        assert block is not None
        new = make(_Builder(block, start))
        new.location = raw[0].location if not isinstance(raw[0], scf.ForOp | pto.PipeBarrierOp) \
            else _lead(raw[0]).location  # type: ignore[union-attr]
        block.insert_op_before(new, start)
        for o in reversed(raw):
            o.detach()
            o.erase()
    _erase_dead_arith(fn)


def _erase_dead_arith(fn: func.FuncOp) -> None:
    changed = True
    while changed:
        changed = False
        for op in list(fn.walk()):
            if isinstance(op, _ARITH) and not any(r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class PtoRaiseParamsPass(ModulePass):
    """Raise the raw parameter forms to the tile-level cube ops whose pto-expand-params expansion
    they are (exactly: decided by re-expanding). `strict`: refuse a raw walk that has none.

    The module docstring has the details."""

    name = "pto-raise-params"
    strict: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [o for o in op.walk() if isinstance(o, func.FuncOp) and o.body.blocks]:
            raise_function(fn, self.strict)


__all__ = ["PtoRaiseParamsPass", "raise_function"]
