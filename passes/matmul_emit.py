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
from mmair.passes.multi_buffer import constant_index, innermost_loop, multi_buffer

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
    c_l0c = alloc(plan.c_l0c(), "c_l0c")
    bias_l1 = bias_bt = None
    if plan.bias:
        bias_l1 = alloc(plan.bias_l1(), "bias_l1")
        bias_bt = alloc(plan.bias_bt(), "bias_bt")
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
    a_hoisted = plan.trips[2] == 1

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

    def emit_mad(em: _Emitter, k: Index, msv: SSAValue, nsv: SSAValue, ksv: SSAValue) -> None:
        """The mad of the K step at offset `k`: the first (mad / mad_bias) at k = 0, else mad_acc;
        `scf.if k == 0` when k is a runtime index."""
        off = plan.disable_gemv  # a5: one-row panels read the nz L0A with GEMV off

        def first() -> Operation:
            if bias_bt is not None:
                return pto.MadBiasOp(a_l0a, b_l0b, c_l0c, bias_bt, msv, nsv, ksv, off)
            return pto.MadOp(a_l0a, b_l0b, c_l0c, msv, nsv, ksv, off)

        if isinstance(k, int):
            em.emit(first() if k == 0 else pto.MadAccOp(a_l0a, b_l0b, c_l0c, msv, nsv, ksv, off))
            return
        is_first = em.emit(arith.CmpiOp(k, em.value(0), "eq"), "first").results[0]
        then_ops = [first(), scf.YieldOp()]
        else_ops = [pto.MadAccOp(a_l0a, b_l0b, c_l0c, msv, nsv, ksv, off), scf.YieldOp()]
        em.emit(scf.IfOp(is_first, [], Region(Block(then_ops)), Region(Block(else_ops))))

    def j_body(em: _Emitter, i: Index, ms: Index, j: Index, ns: Index) -> None:
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

        _loop(em, n, plan.tn, "j", "ns", lambda em, j, ns: j_body(em, i, ms, j, ns))

    def tile_body(em: _Emitter, t: SSAValue) -> None:
        """Output tile t (row-major over the Mt x Nt tiles) of a split kernel."""
        mt, nt, _ = plan.trips

        def start(tile: Index, size: int, dim: int, name: str, size_name: str
                  ) -> tuple[Index, Index]:
            if isinstance(tile, int):
                return 0, dim  # one tile: all of the dimension (as `_loop`)
            at = em.emit(arith.MuliOp(tile, em.value(size)), name).results[0]
            if dim % size == 0:
                return at, size
            rest = em.emit(arith.SubiOp(em.value(dim), at), f"{name}_rest").results[0]
            return at, em.emit(arith.MinSIOp(em.value(size), rest), size_name).results[0]

        ti: Index = 0 if mt == 1 else t if nt == 1 else \
            em.emit(arith.DivUIOp(t, em.value(nt)), "ti").results[0]
        tj: Index = 0 if nt == 1 else t if mt == 1 else \
            em.emit(arith.RemUIOp(t, em.value(nt)), "tj").results[0]
        i, ms = start(ti, plan.tm, m, "i", "ms")
        j, ns = start(tj, plan.tn, n, "j", "ns")
        if a_hoisted:
            emit_a(em, i, ms, 0, k)
        j_body(em, i, ms, j, ns)

    if plan.blocks > 1:
        # Block b computes output tiles b, b + block_num, ... (any launch size is covered).
        mt, nt, _ = plan.trips
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
        _loop(root, m, plan.tm, "i", "ms", i_body)
    for new in root.made:  # races and timing lines in the nest name the matmul's line
        derive(new, op)
    op.detach()
    op.erase()
    found = []
    for buf, value in allocs:
        assert isinstance(value.owner, pto.AllocOp)
        found.append((buf, value.owner))
    return found


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

