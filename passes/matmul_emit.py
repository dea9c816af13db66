"""The IR a `MatmulPlan` becomes: allocs, GM windows, the tile loops and the cube ops in them.

`lower_matmul` replaces one `pto.matmul` by the loop nest of the plan (i, j and k loops over the
tiles, `memref.subview` windows with dynamic remainder sizes, mte_gm_l1 / mte_l1_l0a / mte_l1_l0b /
mad / mad_acc / mad_bias / fixpipe, the GEMV peel and the per-core split by `pto.block_idx`) and
returns the allocs it made; `multi_buffer_matmul` then gives the reloaded ones their slots
(passes/multi_buffer.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from mmair.dialects import pto
from mmair.dialects.locations import derive
from mmair.passes.matmul_plan import Buffer, MatmulPlan
from mmair.passes.multi_buffer import SLOT_GROUP_ATTR, constant_index, innermost_loop, multi_buffer

Index = int | SSAValue  # a static or runtime index


class _Emitter:
    """Appends ops to a block (or before an anchor op); index constants go to the root emitter's
    position, so they dominate every loop of the nest."""

    def __init__(self, block: Block, before: Operation | None, root: _Emitter | None = None):
        self.block = block
        self.before = before
        self.root = root or self
        self.constants: dict[int, SSAValue] = {} if root is None else root.constants
        self.first: Operation | None = None  # of the root: constants go before it
        self.made: list[Operation] = []  # of the root: its ops, which hold all the others

    def emit(self, op: Operation, name: str | None = None) -> Operation:
        if self.first is None:
            self.first = op
        if self is self.root:
            self.made.append(op)
        if self.before is not None:
            self.block.insert_op_before(op, self.before)
        else:
            self.block.add_op(op)
        if name is not None and op.results:
            op.results[0].name_hint = name
        return op

    def value(self, v: Index) -> SSAValue:
        if isinstance(v, SSAValue):
            return v
        found = self.constants.get(v)
        if found is None:
            const = arith.ConstantOp(IntegerAttr(v, IndexType()))
            const.result.name_hint = f"c{v}"
            root = self.root
            if root.first is None:
                root.emit(const)
            else:
                root.block.insert_op_before(const, root.first)
                root.made.append(const)
            found = self.constants[v] = const.result
        return found

    def nested(self, block: Block) -> _Emitter:
        return _Emitter(block, None, self.root)


def _alloc(em: _Emitter, buf: Buffer, elem_types: dict[str, Attribute], name: str) -> SSAValue:
    tile = pto.TileType(buf.space, buf.shape, elem_types[buf.element], buf.layout)
    return em.emit(pto.AllocOp(tile), name).results[0]


def _window(
    em: _Emitter, source: SSAValue, offsets: Sequence[Index], sizes: Sequence[Index], name: str
) -> SSAValue:
    """`memref.subview` of GM (the source itself when the window is all of it)."""
    src_type = source.type
    assert isinstance(src_type, MemRefType)
    if all(o == 0 for o in offsets) and tuple(sizes) == tuple(src_type.get_shape()):
        return source
    ones = [1] * len(offsets)
    result_type = memref.SubviewOp.infer_result_type(src_type, offsets, sizes, ones)
    dyn_offsets = [o for o in offsets if isinstance(o, SSAValue)]
    dyn_sizes = [s for s in sizes if isinstance(s, SSAValue)]
    static_offsets = [memref.DYNAMIC_INDEX if isinstance(o, SSAValue) else o for o in offsets]
    static_sizes = [memref.DYNAMIC_INDEX if isinstance(s, SSAValue) else s for s in sizes]
    op = memref.SubviewOp(
        source, dyn_offsets, dyn_sizes, [], static_offsets, static_sizes, ones, result_type
    )
    return em.emit(op, name).results[0]


def _loop(
    em: _Emitter,
    extent: int,
    step: int,
    iv_name: str,
    size_name: str,
    body: Callable[[_Emitter, Index, Index], None],
) -> None:
    """for iv in range(0, extent, step): body(em, iv, min(step, extent - iv)). One trip is
    straight-line code with iv = 0; the size is a constant when step divides extent."""
    if extent <= step:
        body(em, 0, extent)
        return
    block = Block(arg_types=[IndexType()])
    iv = block.args[0]
    iv.name_hint = iv_name
    loop = scf.ForOp(em.value(0), em.value(extent), em.value(step), [], block)
    em.emit(loop)
    inner = em.nested(block)
    if extent % step == 0:
        size: Index = step
    else:
        rest = inner.emit(arith.SubiOp(inner.value(extent), iv), f"{iv_name}_rest").results[0]
        size = inner.emit(arith.MinSIOp(inner.value(step), rest), size_name).results[0]
    body(inner, iv, size)
    block.add_op(scf.YieldOp())


def _chunk_loop(
    em: _Emitter,
    extent: Index,
    step: int,
    iv_name: str,
    size_name: str,
    body: Callable[[_Emitter, Index, Index], None],
) -> None:
    """`_loop` over [0, extent) where extent may be a runtime size (the last K chunk); a static
    extent is `_loop` itself (constant bounds: the L0 tiles inside can be multi-buffered)."""
    if isinstance(extent, int):
        _loop(em, extent, step, iv_name, size_name, body)
        return
    block = Block(arg_types=[IndexType()])
    iv = block.args[0]
    iv.name_hint = iv_name
    em.emit(scf.ForOp(em.value(0), extent, em.value(step), [], block))
    inner = em.nested(block)
    rest = inner.emit(arith.SubiOp(extent, iv), f"{iv_name}_rest").results[0]
    size = inner.emit(arith.MinSIOp(inner.value(step), rest), size_name).results[0]
    body(inner, iv, size)
    block.add_op(scf.YieldOp())


def _add(em: _Emitter, a: Index, b: Index, name: str) -> Index:
    """a + b, folded when either is the constant 0."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return em.emit(arith.AddiOp(em.value(a), em.value(b)), name).results[0]


def _start(em: _Emitter, start: tuple[Index, Index]) -> tuple[SSAValue, SSAValue] | None:
    """A source start operand pair, or None for the default [0, 0]."""
    if start == (0, 0):
        return None
    return em.value(start[0]), em.value(start[1])


def lower_matmul(op: pto.MatmulOp, plan: MatmulPlan) -> list[tuple[Buffer, pto.AllocOp]]:
    """Replace `op` by the loop nest of `plan` (allocs, loads, mads and fixpipes before it), with
    one slot per buffer; returns the buffers and their allocs."""
    block = op.parent_block()
    assert block is not None
    root = _Emitter(block, op)
    elem_types: dict[str, Attribute] = {}
    for value, elem in ((op.a, plan.lhs), (op.b, plan.rhs), (op.c, plan.out)):
        t = value.type
        assert isinstance(t, MemRefType)
        elem_types[elem] = t.element_type
    if plan.bias:
        assert op.bias is not None and isinstance(op.bias.type, MemRefType)
        elem_types[plan.acc] = op.bias.type.element_type
    elif plan.acc not in elem_types:
        elem_types[plan.acc] = pto_element_type(plan.acc)
    allocs: list[tuple[Buffer, SSAValue]] = []

    def alloc(buf: Buffer, name: str) -> SSAValue:
        allocs.append((buf, _alloc(root, buf, elem_types, name)))
        return allocs[-1][1]

    a_l1 = alloc(plan.a_l1(), "a_l1")
    b_l1 = alloc(plan.b_l1(), "b_l1")
    a_l0a = alloc(plan.a_l0a(), "a_l0a")
    b_l0b = alloc(plan.b_l0b(), "b_l0b")
    a_slots, b_slots = [a_l0a], [b_l0b]
    if plan.subtiled and plan.slots(plan.a_l0a()) > 1:
        # The L0 tiles of a subtiled step alternate between two slots move by move (CATLASS's
        # ping-pong L0A / L0B), instead of `multi_buffer` over the step loop: a slot written
        # twice in one clone of the unrolled loop loses the sync chain to the next round.
        del allocs[-2:]
        for slots, buf, name in ((a_slots, plan.a_l0a(), "a_l0a"), (b_slots, plan.b_l0b(), "b_l0b")):
            slots.append(_alloc(root, buf, elem_types, f"{name}_s1"))
            slots[0].name_hint = f"{name}_s0"
            group = IntegerAttr(_next_group(block), i64)
            for slot in slots:
                assert isinstance(slot.owner, pto.AllocOp)
                slot.owner.attributes[SLOT_GROUP_ATTR] = group
    sub_m, sub_n = plan.sub_tiles
    # one L0C tile per output sub-tile of an L1 tile (mad writes C[0:m, 0:n] of its dst)
    c_tiles = [[alloc(plan.c_l0c(), "c_l0c" if (a, b) == (0, 0) else f"c_l0c_{a}_{b}")
                for b in range(sub_n)] for a in range(sub_m)]
    c_l0c = c_tiles[0][0]
    bias_l1 = bias_bt = None
    bias_rows: list[tuple[SSAValue, SSAValue]] = []  # (L1, BT) per sub-tile column
    if plan.bias:
        for b in range(sub_n):
            tag = "" if b == 0 else f"_{b}"
            bias_rows.append((alloc(plan.bias_l1(), f"bias_l1{tag}"),
                              alloc(plan.bias_bt(), f"bias_bt{tag}")))
        bias_l1, bias_bt = bias_rows[0]
    m, n, k = plan.m, plan.n, plan.k
    ta, tb = plan.transpose_a, plan.transpose_b
    a_gm = op.a
    if plan.gemv_nd and ta:  # M = 1: A^T[K, 1] is the row A[0, :] as one contiguous vector
        src_type = op.a.type
        assert isinstance(src_type, MemRefType) and m == 1
        flat = MemRefType(src_type.element_type, [k])
        assoc = ArrayAttr([ArrayAttr([IntegerAttr(0, i64), IntegerAttr(1, i64)])])
        collapse = memref.CollapseShapeOp(
            operands=[op.a], result_types=[flat], properties={"reassociation": assoc}
        )
        a_gm = root.emit(collapse, "a_row").results[0]
    gemv_path = plan.m == 1 and plan.gemv_nd  # the only panel is the GEMV row

    def load(em: _Emitter, src: SSAValue, dst: SSAValue, rows: Index, cols: Index,
             dn2nz: bool = False) -> None:
        em.emit(pto.MteGmL1Op(src, dst, em.value(rows), em.value(cols), dn2nz=dn2nz))

    if plan.b_whole:  # all of B, loaded once
        rows, cols = (n, k) if tb else (k, n)
        load(root, op.b, b_l1, rows, cols)

    # With one K tile the A tile in L0A is the same for every j: move it once per i.
    a_hoisted = plan.trips[2] == 1 and not plan.subtiled

    def emit_a(em: _Emitter, i: Index, ms: Index, kk: Index, ks: Index) -> None:
        """A[i:i+ms, kk:kk+ks] into L0A (from the resident panel, or through an L1 tile)."""
        a_start: tuple[SSAValue, SSAValue] | None = None
        if gemv_path:  # the GEMV row: an nd vector in L1 and L0A
            if plan.a_panel:
                a_start = _start(em, (0, kk))
            elif ta:
                load(em, _window(em, a_gm, [kk], [ks], "a_win"), a_l1, 1, ks)
            else:
                load(em, _window(em, op.a, [i, kk], [1, ks], "a_win"), a_l1, 1, ks)
            em.emit(pto.MteL1L0AOp(a_l1, a_l0a, em.value(1), em.value(ks), a_start))
            return
        if plan.a_panel:
            start = (kk, 0) if plan.a_staged_transposed else (0, kk)
            a_start = _start(em, start)
        elif ta:
            window = _window(em, op.a, [kk, i], [ks, ms], "a_win")
            if plan.a_dn2nz:
                load(em, window, a_l1, ms, ks, dn2nz=True)
            else:
                load(em, window, a_l1, ks, ms)
        else:
            window = _window(em, op.a, [i, kk], [ms, ks], "a_win")
            load(em, window, a_l1, ms, ks)
        em.emit(pto.MteL1L0AOp(a_l1, a_l0a, em.value(ms), em.value(ks), a_start,
                               transpose=plan.a_staged_transposed))

    def emit_mad(em: _Emitter, k: Index, msv: SSAValue, nsv: SSAValue, ksv: SSAValue,
                 c: SSAValue | None = None, bt: SSAValue | None = None,
                 lhs: SSAValue | None = None, rhs: SSAValue | None = None) -> None:
        """The mad of the K step at offset `k` into `c` (default: the L0C tile) from `lhs` and
        `rhs` (default: the L0A and L0B tiles): the first (mad / mad_bias) at k = 0, else
        mad_acc; `scf.if k == 0` when k is a runtime index."""
        off = plan.disable_gemv  # a5: one-row panels read the nz L0A with GEMV off
        dst = c_l0c if c is None else c
        bias = bias_bt if bt is None else bt
        # the L0 tiles by name, late: the peeled GEMV row rebinds `a_l0a` to its nd tile
        l0a = a_l0a if lhs is None else lhs
        l0b = b_l0b if rhs is None else rhs

        def first() -> Operation:
            if bias is not None:
                return pto.MadBiasOp(l0a, l0b, dst, bias, msv, nsv, ksv, off)
            return pto.MadOp(l0a, l0b, dst, msv, nsv, ksv, off)

        if isinstance(k, int):
            em.emit(first() if k == 0 else pto.MadAccOp(l0a, l0b, dst, msv, nsv, ksv, off))
            return
        is_first = em.emit(arith.CmpiOp(k, em.value(0), "eq"), "first").results[0]
        then_ops = [first(), scf.YieldOp()]
        else_ops = [pto.MadAccOp(l0a, l0b, dst, msv, nsv, ksv, off), scf.YieldOp()]
        em.emit(scf.IfOp(is_first, [], Region(Block(then_ops)), Region(Block(else_ops))))

    def load_l1_tiles(em: _Emitter, i: Index, ms: Index, j: Index, ns: Index, kc: Index,
                      cs: Index) -> None:
        """The reloaded L1 tiles of the K range [kc, kc + cs): A[i:i+ms] and B[:, j:j+ns]."""
        if not plan.a_panel:
            if ta:
                window = _window(em, op.a, [kc, i], [cs, ms], "a_win")
                if plan.a_dn2nz:
                    load(em, window, a_l1, ms, cs, dn2nz=True)
                else:
                    load(em, window, a_l1, cs, ms)
            else:
                load(em, _window(em, op.a, [i, kc], [ms, cs], "a_win"), a_l1, ms, cs)
        if not plan.b_whole:
            if tb:
                load(em, _window(em, op.b, [j, kc], [ns, cs], "b_win"), b_l1, ns, cs)
            else:
                load(em, _window(em, op.b, [kc, j], [cs, ns], "b_win"), b_l1, cs, ns)

    def l1_tile_body(em: _Emitter, i: Index, ms: Index, j: Index, ns: Index) -> None:
        """Output L1 tile C[i:i+ms, j:j+ns] of a subtiled plan: per K range (a chunk, else
        tile-k) its L1 tiles are loaded once and moved to L0 tile by tile, the sub-tile (a, b)
        accumulating in L0C tile c_tiles[a][b]; then one fixpipe per sub-tile."""
        for b, (row_l1, row_bt) in enumerate(bias_rows):
            def bias_part(em: _Emitter, off: Index, size: Index, row_l1=row_l1,
                          row_bt=row_bt) -> None:
                assert op.bias is not None
                jb = _add(em, j, off, "jb")
                rank = len(op.bias.type.get_shape())  # type: ignore[union-attr]
                offsets, sizes = ([jb], [size]) if rank == 1 else ([0, jb], [1, size])
                load(em, _window(em, op.bias, offsets, sizes, "bias_win"), row_l1, 1, size)
                em.emit(pto.MteL1BtOp(row_l1, row_bt, em.value(size)))
            _sub_tile(em, ns, b, plan.tn, "nb", bias_part)

        def chunk_body(em: _Emitter, kc: Index, cs: Index) -> None:
            load_l1_tiles(em, i, ms, j, ns, kc, cs)

            def step(em: _Emitter, kin: Index, ks: Index) -> None:
                kg = _add(em, kc, kin, "kg")  # the step's K offset in the whole matmul
                a_k = kg if plan.a_panel else kin
                b_k = kg if plan.b_whole else kin
                ksv = em.value(ks)
                moves = [0, 0]  # A and B moves so far in this step: the slot of the next one

                def slot(operand: int) -> SSAValue:
                    slots = (a_slots, b_slots)[operand]
                    moves[operand] += 1
                    return slots[(moves[operand] - 1) % len(slots)]

                for a in range(sub_m):
                    def a_part(em: _Emitter, ioff: Index, msa: Index, a: int = a) -> None:
                        start = (a_k, ioff) if plan.a_staged_transposed else (ioff, a_k)
                        msv = em.value(msa)
                        lhs = slot(0)
                        em.emit(pto.MteL1L0AOp(a_l1, lhs, msv, ksv, _start(em, start),
                                               transpose=plan.a_staged_transposed))
                        for b in range(sub_n):
                            def b_part(em: _Emitter, joff: Index, nsb: Index, b: int = b) -> None:
                                jb = _add(em, j, joff, "jb") if plan.b_whole else joff
                                nsv = em.value(nsb)
                                rhs = slot(1)
                                em.emit(pto.MteL1L0BOp(
                                    b_l1, rhs, ksv, nsv,
                                    _start(em, (jb, b_k) if tb else (b_k, jb)), transpose=tb))
                                emit_mad(em, kg, msv, nsv, ksv, c_tiles[a][b],
                                         bias_rows[b][1] if bias_rows else None, lhs, rhs)
                            _sub_tile(em, ns, b, plan.tn, "nb", b_part)
                    _sub_tile(em, ms, a, plan.tm, "ma", a_part)

            _chunk_loop(em, cs, plan.tk, "kin", "ks", step)

        _loop(em, k, plan.l1_k, "kc", "cs", chunk_body)
        for a in range(sub_m):
            def fix_row(em: _Emitter, ioff: Index, msa: Index, a: int = a) -> None:
                for b in range(sub_n):
                    def fix(em: _Emitter, joff: Index, nsb: Index, b: int = b) -> None:
                        window = _window(em, op.c, [_add(em, i, ioff, "ia"), _add(em, j, joff, "jb")],
                                         [msa, nsb], "c_win")
                        em.emit(pto.FixpipeOp(c_tiles[a][b], window, em.value(msa),
                                              em.value(nsb), quant=plan.quant))
                    _sub_tile(em, ns, b, plan.tn, "nb", fix)
            _sub_tile(em, ms, a, plan.tm, "ma", fix_row)

    def j_body(em: _Emitter, i: Index, ms: Index, j: Index, ns: Index) -> None:
        if plan.subtiled:
            l1_tile_body(em, i, ms, j, ns)
            return
        if plan.bias:
            assert op.bias is not None and bias_l1 is not None and bias_bt is not None
            rank = len(op.bias.type.get_shape())  # type: ignore[union-attr]
            offsets, sizes = ([j], [ns]) if rank == 1 else ([0, j], [1, ns])
            window = _window(em, op.bias, offsets, sizes, "bias_win")
            load(em, window, bias_l1, 1, ns)
            em.emit(pto.MteL1BtOp(bias_l1, bias_bt, em.value(ns)))

        def k_body(em: _Emitter, kk: Index, ks: Index) -> None:
            if not a_hoisted:
                emit_a(em, i, ms, kk, ks)
            b_start: tuple[SSAValue, SSAValue] | None = None
            if plan.b_whole:
                start = (j, kk) if tb else (kk, j)
                b_start = _start(em, start)
            elif tb:
                window = _window(em, op.b, [j, kk], [ns, ks], "b_win")
                load(em, window, b_l1, ns, ks)
            else:
                window = _window(em, op.b, [kk, j], [ks, ns], "b_win")
                load(em, window, b_l1, ks, ns)
            msv, nsv, ksv = em.value(ms), em.value(ns), em.value(ks)
            em.emit(pto.MteL1L0BOp(b_l1, b_l0b, ksv, nsv, b_start, transpose=tb))
            emit_mad(em, kk, msv, nsv, ksv)

        def chunk_body(em: _Emitter, kc: Index, cs: Index) -> None:
            """One K chunk: its L1 tiles once, then tk steps from them into L0 (plan.chunked)."""
            load_l1_tiles(em, i, ms, j, ns, kc, cs)

            def step(em: _Emitter, kin: Index, ks: Index) -> None:
                kg = _add(em, kc, kin, "kg")  # the step's K offset in the whole matmul
                a_at = kg if plan.a_panel else kin
                a_start = _start(em, (a_at, 0) if plan.a_staged_transposed else (0, a_at))
                msv, nsv, ksv = em.value(ms), em.value(ns), em.value(ks)
                em.emit(pto.MteL1L0AOp(a_l1, a_l0a, msv, ksv, a_start,
                                       transpose=plan.a_staged_transposed))
                if plan.b_whole:
                    b_start = _start(em, (j, kg) if tb else (kg, j))
                else:
                    b_start = _start(em, (0, kin) if tb else (kin, 0))
                em.emit(pto.MteL1L0BOp(b_l1, b_l0b, ksv, nsv, b_start, transpose=tb))
                emit_mad(em, kg, msv, nsv, ksv)

            _chunk_loop(em, cs, plan.tk, "kin", "ks", step)

        if plan.chunked:
            _loop(em, k, plan.k1, "kc", "cs", chunk_body)
        else:
            _loop(em, k, plan.tk, "k", "ks", k_body)
        window = _window(em, op.c, [i, j], [ms, ns], "c_win")
        em.emit(pto.FixpipeOp(c_l0c, window, em.value(ms), em.value(ns), quant=plan.quant))

    def i_body(em: _Emitter, i: Index, ms: Index) -> None:
        if plan.a_panel and gemv_path:  # the GEMV row, loaded once
            window = _window(em, a_gm, [0], [k], "a_panel") if ta else \
                _window(em, op.a, [i, 0], [1, k], "a_panel")
            load(em, window, a_l1, 1, k)
        elif plan.a_panel:  # the A row panel, loaded once per i
            if ta:
                window = _window(em, op.a, [0, i], [k, ms], "a_panel")
                if plan.a_dn2nz:
                    load(em, window, a_l1, ms, k, dn2nz=True)
                else:
                    load(em, window, a_l1, k, ms)
            else:
                window = _window(em, op.a, [i, 0], [ms, k], "a_panel")
                load(em, window, a_l1, ms, k)

        if a_hoisted:
            emit_a(em, i, ms, 0, k)

        _loop(em, n, plan.l1_n, "j", "ns", lambda em, j, ns: j_body(em, i, ms, j, ns))

    def tile_body(em: _Emitter, t: SSAValue) -> None:
        """Output tile t of a split kernel (`_tile_coordinates`: row-major, or swizzled)."""
        mt, nt = plan.l1_trips

        def start(tile: Index, size: int, dim: int, name: str, size_name: str
                  ) -> tuple[Index, Index]:
            if isinstance(tile, int):
                return 0, dim  # one tile: all of the dimension (as `_loop`)
            at = em.emit(arith.MuliOp(tile, em.value(size)), name).results[0]
            if dim % size == 0:
                return at, size
            rest = em.emit(arith.SubiOp(em.value(dim), at), f"{name}_rest").results[0]
            return at, em.emit(arith.MinSIOp(em.value(size), rest), size_name).results[0]

        ti, tj = _tile_coordinates(em, t, mt, nt, plan.swizzle)
        i, ms = start(ti, plan.l1_m, m, "i", "ms")
        j, ns = start(tj, plan.l1_n, n, "j", "ns")
        if a_hoisted:
            emit_a(em, i, ms, 0, k)
        j_body(em, i, ms, j, ns)

    if plan.blocks > 1:
        # Block b computes output tiles b, b + block_num, ... (any launch size is covered).
        mt, nt = plan.l1_trips
        bid = root.emit(pto.BlockIdxOp(), "block").results[0]
        bnum = root.emit(pto.BlockNumOp(), "blocks").results[0]
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = "t"
        root.emit(scf.ForOp(bid, root.value(mt * nt), bnum, [], body))
        tile_body(root.nested(body), body.args[0])
        body.add_op(scf.YieldOp())
    elif plan.gemv_nd and m > 1:
        # The last panel has one row: full panels in the loop, then the row on the GEMV path
        # with its own nd buffers (live after the loop only; not multi-buffered).
        _loop(root, m - 1, plan.tm, "i", "ms", i_body)
        row_l1, row_l0a = plan.a_row_buffers()
        a_l1 = _alloc(root, row_l1, elem_types, "a_row_l1")
        a_l0a = _alloc(root, row_l0a, elem_types, "a_row_l0a")
        gemv_path = True
        i_body(root, m - 1, 1)
    else:
        _loop(root, m, plan.l1_m, "i", "ms", i_body)
    for new in root.made:  # races and timing lines in the nest name the matmul's line
        derive(new, op)
    op.detach()
    op.erase()
    found = []
    for buf, value in allocs:
        assert isinstance(value.owner, pto.AllocOp)
        found.append((buf, value.owner))
    return found


def _next_group(block: Block) -> int:
    """A slot group number (`SLOT_GROUP_ATTR`) no alloc of the enclosing module uses yet."""
    root: Operation | None = block.parent_op()
    while root is not None and root.parent_op() is not None:
        root = root.parent_op()
    groups = [a.attributes[SLOT_GROUP_ATTR] for a in (root.walk() if root else [])
              if isinstance(a, pto.AllocOp) and SLOT_GROUP_ATTR in a.attributes]
    return 1 + max((g.value.data for g in groups if isinstance(g, IntegerAttr)), default=0)


def _sub_tile(em: _Emitter, total: Index, index: int, size: int, name: str,
              body: Callable[[_Emitter, Index, Index], None]) -> None:
    """body(em, offset, extent) of L0 tile `index` (offset index * size) of an L1 tile `total`
    long. A static `total` skips the tiles it does not have. A runtime one (the last L1 tile)
    clamps them to its last L0 tile, which they compute again and store with the same bits: a
    guard (`scf.if`) would leave the pipe ops inside it out of the sync chains that
    pto-insert-sync builds for every iteration (its static stream runs both branches)."""
    off = index * size
    if isinstance(total, int):
        if off < total:
            body(em, off, min(size, total - off))
        return
    if index == 0:
        body(em, 0, em.emit(arith.MinSIOp(em.value(size), total), f"{name}0").results[0])
        return
    before = em.emit(arith.SubiOp(total, em.value(1)), f"{name}_end").results[0]
    tiles = em.emit(arith.DivUIOp(before, em.value(size)), f"{name}_tiles").results[0]
    last = em.emit(arith.MuliOp(tiles, em.value(size)), f"{name}_last").results[0]
    at = em.emit(arith.MinSIOp(em.value(off), last), f"{name}{index}_at").results[0]
    rest = em.emit(arith.SubiOp(total, at), f"{name}{index}_rest").results[0]
    body(em, at, em.emit(arith.MinSIOp(em.value(size), rest), f"{name}{index}").results[0])


def _tile_coordinates(em: _Emitter, t: SSAValue, mt: int, nt: int, swizzle: int
                      ) -> tuple[Index, Index]:
    """(row, column) of output tile t among mt x nt. swizzle 1: row-major (t // nt, t % nt);
    s > 1: CATLASS's GemmIdentityBlockSwizzle<s, 0> order, strips of s tile rows walked column
    by column, every other strip right to left, so that the tiles the cores run at the same
    time share rows of A and columns of B (L2 locality)."""
    if swizzle == 1 or mt == 1:
        ti: Index = 0 if mt == 1 else t if nt == 1 else \
            em.emit(arith.DivUIOp(t, em.value(nt)), "ti").results[0]
        tj: Index = 0 if nt == 1 else t if mt == 1 else \
            em.emit(arith.RemUIOp(t, em.value(nt)), "tj").results[0]
        return ti, tj
    s = min(swizzle, mt)
    strip = em.emit(arith.DivUIOp(t, em.value(s * nt)), "strip").results[0]
    within = em.emit(arith.RemUIOp(t, em.value(s * nt)), "in_strip").results[0]
    base = em.emit(arith.MuliOp(strip, em.value(s)), "strip_row").results[0]
    left = em.emit(arith.SubiOp(em.value(mt), base), "rows_left").results[0]
    rows = em.emit(arith.MinSIOp(em.value(s), left), "strip_rows").results[0]
    row = em.emit(arith.RemUIOp(within, rows), "row_in").results[0]
    ti = em.emit(arith.AddiOp(base, row), "ti").results[0]
    col = em.emit(arith.DivUIOp(within, rows), "col").results[0]
    if nt == 1:
        return ti, 0
    # odd strips run right to left: tj = col + odd * (nt - 1 - 2 col)
    odd = em.emit(arith.RemUIOp(strip, em.value(2)), "odd").results[0]
    twice = em.emit(arith.MuliOp(col, em.value(2)), "col2").results[0]
    back = em.emit(arith.SubiOp(em.value(nt - 1), twice), "back").results[0]
    flip = em.emit(arith.MuliOp(odd, back), "flip").results[0]
    return ti, em.emit(arith.AddiOp(col, flip), "tj").results[0]


def multi_buffer_matmul(plan: MatmulPlan, allocs: Sequence[tuple[Buffer, pto.AllocOp]],
                        jam_l0c: bool = False) -> None:
    """Give every buffer of a lowered matmul `plan.slots(buffer)` ping-pong slots over the loop
    that reloads it (`multi_buffer`), innermost loops first: unrolling an outer loop clones the
    inner ones, whose slots are allocated outside the whole nest."""
    by_loop: dict[scf.ForOp, list[pto.AllocOp]] = {}
    for buf, alloc in allocs:
        if plan.slots(buf) == 1:
            continue
        loop = innermost_loop(alloc)
        if loop is None:  # its uses left one loop (a peeled last iteration): one slot
            continue
        if any(constant_index(v) is None for v in (loop.lb, loop.ub, loop.step)):
            continue  # the tile loop of a split kernel (block index bounds): one slot

        by_loop.setdefault(loop, []).append(alloc)

    def depth(loop: Operation) -> int:
        return 0 if loop.parent_op() is None else 1 + depth(loop.parent_op())  # type: ignore[arg-type]

    # `jam_l0c`: the loop of the L0C slots is jammed, one K loop feeds the chains of
    # `multi_buffer` output tiles, which the executor's pool can run side by side; on the
    # hardware the chains then share the operand slots, so loads overlap mads less
    # (docs/benchmarks.md).
    for loop in sorted(by_loop, key=depth, reverse=True):
        jam = jam_l0c and any(isinstance(a.buffer.type, pto.TileType) and a.buffer.type.space.data == "l0c"
                  for a in by_loop[loop])
        multi_buffer(by_loop[loop], loop, plan.multi_buffer, jam=jam)


def pto_element_type(name: str) -> Attribute:
    """The xDSL type of an accumulator element name (f32, s32)."""
    return {"f32": f32, "s32": i32}[name]

