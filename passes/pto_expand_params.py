"""`pto-expand-params`: lower the tile-level cube ops to the raw Ascend C parameter forms.

The tile-level ops say what moves in logical coordinates; this pass writes the same data flow with
the parameters the hardware takes (dialects/pto/params.py), exactly as the Ascend C samples do:

* `mte_gm_l1` (nz dst)  -> `copy_nd2nz` {1, rows, cols, 0, row pitch, dstNzC0Stride = tile rows
  rounded to 16, 1, 0}; zz dst (B staged row-major over fractals, the "Nd2Zz" of the Ascend C
  load_data sample) -> one ND matrix per 16-row slab (`nd_num` slabs of 16 rows, dstNzMatrixStride
  = one fractal row of the tile, plus the last partial slab); nd dst (a GEMV vector, a bias row) ->
  {1, 1, cols, 0, cols, 1, 1, 0}.
* `mte_l1_l0a` / `mte_l1_l0b` -> `load_2d` loops (the SplitA / SplitB loops of the sample): L0A Zz
  (a2/a3) `for i < M1: {repeat K1, srcStride = L1 row fractals}`, Nz (a5) `for j < K1:
  {repeat M1, srcStride 1}`; the b16 transposes with `if_transpose`; f32 B from a zz L1 tile with
  `load_2d_transpose` (SplitBTransposeForB32); GEMV vectors as whole fractals.
* `mad`, `mad_acc`, `mad_bias` -> `mmad` (cmatrixInitVal true / false, the bias form), carrying
  `disable_gemv`.
* `fixpipe` -> `fixpipe_copy` {nSize n, mSize m, srcStride ceil(m/16)*16, dstStride = destination
  row pitch (nz2nz: column-block stride), ndNum 1}.
* `mte_l1_bt` -> `copy_l1_bt` {1, ceil(n*sizeof/unit), 0, 0} (one burst of whole BT units, as
  the pto-isa and vllm-ascend bias copies) when both tiles hold n rounded up to the unit.

The raw forms lay the L0 operands out with the fractal grids of the op sizes (M1 = ceil(m/16),
K1 = ceil(k/K0), N1 = ceil(n/16)), as the hardware reads them, so within one function every L0
tile is read with the sizes it was written with (true of every kernel pto-tile-matmul emits and of
the Ascend C samples). A `dn2nz` load to an nz tile becomes `copy_dn2nz` {1, rows, cols, 0, GM row
pitch, tile rows rounded to 16, 1, 0} (the transposed-A call of the Ascend C DN2NZ page). Not
expanded (left as tile-level ops, which the executor runs): dn2nz to other layouts, hardware
transposes of b8/b32 operands other than f32 B from zz, b8 B from nz (the
SplitBTransposeForS4S8 squares: source starts provably multiples of 32, `_b8_nz_b_square_loads`),
b8 A from nz of A^T into a zz L0A (`_b8_nz_a_square_loads`), f32 A from zz of A^T into a zz
L0A (`_b32_zz_a_square_loads`) and, on a5, b8/b32 A from nz of A^T into the Nz L0A and b32 B
from nz into Zn (the LoadData2DParamsV2 ifTranspose windows, `_v2_transposed_a_windows`,
`_v2_transposed_b32_b_window`), a 4-bit A in a zz L1 tile, a b8/b32 A^T in a zz L1 tile on a5
(the V2 windows read Nz), a 4-bit B moved nz -> zn without `transpose` on a5,
an `mte_l1_bt` whose tiles do not hold whole BT units, a `load3d` move (Load3Dv2: its
img2colv2 parameters are not modelled). 4-bit (s4) copies take the b8 fields in
bytes (cols / 2, pitch / 2), so a GM -> L1 copy whose columns or GM row pitch are not provably
even (an odd K), or a 4-bit dn2nz, stays tile-level.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from mmair.dialects import pto
from mmair.dialects.locations import derive
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.pipes import Pipe
from mmair.isa.ascend.targets import M0, Target, c0_elements, element_bits
from mmair.passes.pass_errors import PassOpError

Index = int | SSAValue


class _Builder:
    """Inserts before `anchor` (or appends to a loop body); folds arithmetic on constants."""

    def __init__(self, block: Block, anchor: Operation | None):
        self.block, self.anchor = block, anchor

    def emit(self, op: Operation) -> Operation:
        if self.anchor is not None:
            self.block.insert_op_before(op, self.anchor)
        else:
            self.block.add_op(op)
        return op

    def v(self, x: Index) -> SSAValue:
        if isinstance(x, SSAValue):
            return x
        return self.emit(arith.ConstantOp(IntegerAttr(x, IndexType()))).results[0]

    @staticmethod
    def s(x: Index) -> int | None:
        return x if isinstance(x, int) else pto.static_value(x)

    def _bin(self, a: Index, b: Index, fold, op) -> Index:
        sa, sb = self.s(a), self.s(b)
        if sa is not None and sb is not None:
            return fold(sa, sb)
        return self.emit(op(self.v(a), self.v(b))).results[0]

    def add(self, a: Index, b: Index) -> Index:
        if self.s(b) == 0:
            return a
        return self._bin(a, b, lambda x, y: x + y, arith.AddiOp)

    def mul(self, a: Index, b: Index) -> Index:
        if self.s(b) == 1:
            return a
        return self._bin(a, b, lambda x, y: x * y, arith.MuliOp)

    def cdiv(self, a: Index, b: int) -> Index:
        if b == 1:
            return a
        return self._bin(a, b, lambda x, y: -(-x // y), arith.CeilDivUIOp)

    def div(self, a: Index, b: int) -> Index:
        if b == 1:
            return a
        return self._bin(a, b, lambda x, y: x // y, arith.DivUIOp)

    def rem(self, a: Index, b: int) -> Index:
        return self._bin(a, b, lambda x, y: x % y, arith.RemUIOp)

    def loop(self, count: Index, body) -> None:
        """for i < count: body(builder, i); a static count of 1 is straight-line code."""
        if self.s(count) == 1:
            body(self, 0)
            return
        if self.s(count) == 0:
            return
        block = Block(arg_types=[IndexType()])
        self.emit(scf.ForOp(self.v(0), self.v(count), self.v(1), [], block))
        inner = _Builder(block, None)
        body(inner, block.args[0])
        block.add_op(scf.YieldOp())


@dataclass
class _Expander:
    target: Target

    # -- GM -> L1 --------------------------------------------------------------------------

    def gm_l1(self, op: pto.MteGmL1Op) -> bool:
        dst = op.dst.type
        assert isinstance(dst, pto.TileType)
        src_t = op.src.type
        assert isinstance(src_t, MemRefType)
        b = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        rows, cols = op.rows, op.cols
        if src_t.get_num_dims() == 1:
            pitch: Index = cols
        else:
            strides = src_t.get_strides()
            if strides is None or strides[0] is None or strides[0] < 0:
                raise PassOpError(op, "requires a static GM row pitch to expand to copy_nd2nz")
            pitch = strides[0]
        c0 = c0_elements(dst.element_name, "l1")
        r_tile, c_tile = dst.matrix_shape
        # 4-bit: the b8 instruction, whose dValue, srcDValue and both matrix strides count bytes
        # (two elements; Ascend C passes an int4b_t Nd2NzParams unchanged to the b8 copy, and
        # CANN kernels halve dValue and srcDValue), so a row and the GM pitch must be whole bytes
        per_byte = 8 // dst.element_bits if dst.element_bits < 8 else 1
        if per_byte > 1 and (op.dn2nz is not None or not _known_multiple(cols, per_byte)
                             or not _known_multiple(pitch, per_byte)):
            return False

        def nd2nz(bb: _Builder, src: SSAValue, off: Index, nd: Index, n: Index, d: Index,
                  src_matrix: Index, src_d: Index, c0_stride: Index, n_stride: Index,
                  dst_matrix: Index) -> None:
            d, src_matrix, src_d, dst_matrix = (bb.div(x, per_byte)
                                                for x in (d, src_matrix, src_d, dst_matrix))
            bb.emit(pto.CopyNd2NzOp(src, op.dst, bb.v(off), *(bb.v(p) for p in (
                nd, n, d, src_matrix, src_d, c0_stride, n_stride, dst_matrix))))

        layout = dst.layout_name
        if op.dn2nz is not None:  # GM holds the cols x rows transpose: its row is a tile column
            if layout != "nz" or src_t.get_num_dims() != 2:
                return False
            r1 = -(-r_tile // M0)
            b.emit(pto.CopyDn2NzOp(op.src, op.dst, b.v(0), *(b.v(p) for p in (
                1, rows, cols, 0, pitch, r1 * M0, 1, 0))))
            return True
        if layout == "nd":
            nd2nz(b, op.src, 0, 1, 1, cols, 0, pitch, 1, 1, 0)
        elif layout == "nz":
            r1 = -(-r_tile // M0)
            nd2nz(b, op.src, 0, 1, rows, cols, 0, pitch, r1 * M0, 1, 0)
        elif layout == "zz":
            c1 = -(-c_tile // c0)
            slab = c1 * M0 * c0  # elements of one row of fractals
            # dstNzMatrixStride is `slab` for the full slabs and full * slab for a partial last
            # slab (`_zz_tail`); past the field's range a static staging copies the partial slab
            # first (`_zz_tail_first`), a dynamic one stays tile-level (an L1 layout both forms
            # share). Checked before any emission, with the largest `full` a dynamic count allows.
            static_rows = _Builder.s(rows)
            tail_slabs = (static_rows // M0 if static_rows % M0 else 0) \
                if static_rows is not None else (r_tile - 1) // M0
            stride_max = isa_params.ND2NZ_FIELDS["dst_nz_matrix_stride"].range[1]
            if slab // per_byte > stride_max:
                return False
            full, rest = b.div(rows, M0), b.rem(rows, M0)
            if tail_slabs * slab // per_byte > stride_max:
                if static_rows is None:
                    return False
                # The partial slab is too far from slab 0 for one matrix stride: copy it first as
                # matrix 1 of a transfer based at the last full slab (matrix 0 lands there), then
                # let the full-slab transfer rewrite that slab; the barrier orders the overlap.
                self._zz_tail_first(b, op, tail_slabs, rest, cols, pitch, slab, nd2nz)
                return True
            if b.s(full) != 0:
                nd2nz(b, op.src, 0, full, M0, cols, M0 * pitch, pitch, M0, 1, slab)
            if b.s(rest) != 0:
                self._zz_tail(op, b, full, rest, cols, pitch, slab, nd2nz)
        else:
            return False
        return True

    @staticmethod
    def _zz_tail_first(b: _Builder, op: pto.MteGmL1Op, full: int, rest: Index, cols: Index,
                       pitch: int, slab: int, nd2nz) -> None:
        """A zz staging of `full` (>= 1, static) whole slabs and a partial one whose slab offset
        exceeds dstNzMatrixStride's range: a two-matrix transfer at slab `full - 1` (matrix 0: GM
        rows [0, rest), a placeholder; matrix 1: the partial slab at one slab stride), then,
        after a `pipe_barrier(mte2)` (overlapping MTE2 destinations), the full-slab transfer,
        which rewrites slab `full - 1` with its own rows."""
        nd2nz(b, op.src, (full - 1) * slab, 2, rest, cols, full * M0 * pitch, pitch, M0, 1, slab)
        b.emit(pto.PipeBarrierOp(Pipe.MTE2))
        nd2nz(b, op.src, 0, full, M0, cols, M0 * pitch, pitch, M0, 1, slab)

    def _zz_tail(self, op, b: _Builder, full: Index, rest: Index, cols: Index, pitch: int,
                 slab: int, nd2nz) -> None:
        """The last partial slab (`rest` rows) of a zz staging. The GM window's start cannot move,
        so it is matrix 1 of a two-matrix transfer (srcNdMatrixStride = full*16 rows, dstNz-
        MatrixStride = full slabs); matrix 0 rewrites rows [0, rest) of slab 0 with the data the
        full-slab transfer just wrote there (with full = 0 both matrices are slab 0). That rewrite
        overlaps the full-slab transfer's destination on the same pipe, so a `pipe_barrier(mte2)`
        orders the two (docs/pipes.md: overlapping MTE2 destinations need one)."""
        if b.s(full) == 0:
            nd2nz(b, op.src, 0, 1, rest, cols, 0, pitch, M0, 1, 0)
            return
        b.emit(pto.PipeBarrierOp(Pipe.MTE2))
        nd2nz(b, op.src, 0, 2, rest, cols, b.mul(full, M0 * pitch), pitch, M0, 1,
              b.mul(full, slab))

    # -- L1 -> L0A / L0B ------------------------------------------------------------------

    def l1_l0(self, op: pto.MteL1L0AOp | pto.MteL1L0BOp) -> bool:
        src, dst = op.src.type, op.dst.type
        assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
        elem = src.element_name
        bits = element_bits(elem)
        b = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        rows, cols = (op.m, op.k) if isinstance(op, pto.MteL1L0AOp) else (op.k, op.n)
        row: Index = op.src_row if op.src_row is not None else 0
        col: Index = op.src_col if op.src_col is not None else 0
        transpose = op.transpose is not None
        frac = isa_params.fractal_elements(elem)
        c0 = c0_elements(elem, "l1")
        sr, sc = src.matrix_shape

        def load(bb: _Builder, s_off: Index, d_off: Index, repeat: Index, stride: Index,
                 tr: bool = False) -> None:
            bb.emit(pto.Load2DOp(op.src, bb.v(s_off), op.dst, bb.v(d_off), bb.v(0), bb.v(repeat),
                                 bb.v(stride), bb.v(0), tr))

        if dst.layout_name == "nd":  # a GEMV vector: whole fractals from the column start
            load(b, col, 0, b.cdiv(cols, frac), 1)
            return True
        if isinstance(op, pto.MteL1L0AOp):
            m, k = rows, cols
            mm1, kk1 = b.cdiv(m, M0), b.cdiv(k, c0)
            if not transpose and src.layout_name == "zz":  # fractal (r1, c1) at r1*C1 + c1
                c1 = -(-sc // c0)
                base = b.add(b.mul(b.div(row, M0), c1), b.div(col, c0))
                if self.target.l0a_layout == "zz":
                    b.loop(mm1, lambda bb, i: load(bb, bb.mul(bb.add(base, bb.mul(i, c1)), frac),
                                                  bb.mul(bb.mul(i, kk1), frac), kk1, 1))
                else:
                    b.loop(kk1, lambda bb, j: load(bb, bb.mul(bb.add(base, j), frac),
                                                  bb.mul(bb.mul(j, mm1), frac), mm1, c1))
                return True
            if transpose and bits == 16 and src.layout_name == "zz":
                # L1 zz of A^T[k, m]: fractal (k1, m1) at k1*C1 + m1, transposed on the way
                c1 = -(-sc // M0)
                base = b.add(b.mul(b.div(row, M0), c1), b.div(col, M0))
                if self.target.l0a_layout == "zz":
                    b.loop(mm1, lambda bb, i: load(bb, bb.mul(bb.add(base, i), frac),
                                                  bb.mul(bb.mul(i, kk1), frac), kk1, c1, True))
                else:
                    b.loop(kk1, lambda bb, j: load(bb, bb.mul(bb.add(base, bb.mul(j, c1)), frac),
                                                  bb.mul(bb.mul(j, mm1), frac), mm1, 1, True))
                return True
            if not transpose:  # L1 nz of A: fractal (r1, c1) at c1*R1 + r1
                r1 = -(-sr // M0)
                base = b.add(b.mul(b.div(col, c0), r1), b.div(row, M0))
                if self.target.l0a_layout == "zz":
                    b.loop(mm1, lambda bb, i: load(bb, bb.mul(bb.add(base, i), frac),
                                                  bb.mul(bb.mul(i, kk1), frac), kk1, r1))
                else:
                    b.loop(kk1, lambda bb, j: load(bb, bb.mul(bb.add(base, bb.mul(j, r1)), frac),
                                                  bb.mul(bb.mul(j, mm1), frac), mm1, 1))
                return True
            if bits in (8, 32) and self.target.l0a_layout == "nz":
                if not _v2_transposed_a_windows(op, self.target):
                    return False
                self.v2_transposed_windows(b, op, src, mm1, kk1, bits)
                return True
            if bits == 32:
                if not _b32_zz_a_square_loads(op, self.target):
                    return False
                # L1 zz of A^T[k, m] (b32): LoadDataWithTranspose squares of two 16 x 8 fractals
                # side by side along m (square (kb, mb) at kb*C1/2 + mb), one load per 16 rows
                # of m: square kb becomes Zz fractals (mb, 2kb) and (mb, 2kb + 1) (the float
                # "Zz -> Zz" example of LoadDataWithTranspose.md, there with K padded to 16)
                half_c1 = -(-sc // c0) // 2  # squares per L1 row of fractals
                base = b.add(b.mul(b.div(row, M0), half_c1), b.div(col, M0))
                squares = b.cdiv(k, M0)
                # With an odd (or dynamic) K1 the last square of an m row writes one fractal past
                # the row: the next row's first fractal, which that row's load rewrites (two MTE1
                # writes of the same bytes, ordered by a pipe_barrier(mte1)), and for the last
                # row one fractal past the grid, inside the tile (its K1 is even).
                overhang = b.s(kk1) is None or b.s(kk1) % 2 == 1

                def body_a32(bb: _Builder, i: Index) -> None:
                    if overhang:
                        bb.emit(pto.PipeBarrierOp(Pipe.MTE1))
                    s_off = bb.mul(bb.add(base, i), 2 * frac)
                    d_off = bb.mul(bb.mul(i, kk1), frac)
                    bb.emit(pto.Load2DTransposeOp(op.src, bb.v(s_off), op.dst, bb.v(d_off), bb.v(0),
                                                  bb.v(squares), bb.v(half_c1), bb.v(1), bb.v(0)))
                b.loop(mm1, body_a32)
                return True
            if bits != 16:
                if not _b8_nz_a_square_loads(op, self.target):
                    return False
                # L1 nz of A^T[k, m] (b8): LoadDataWithTranspose squares of two 16 x 32 fractals
                # stacked along k (square (kb, mb) at mb*R1'/2 + kb), one load per 32 rows of m:
                # square kb becomes Zz fractals (2mb, kb) and (2mb + 1, kb), K1 apart
                half_r1 = -(-sr // M0) // 2
                base = b.add(b.mul(b.div(col, 2 * M0), half_r1), b.div(row, 2 * M0))
                gap = b.add(kk1, -1) if b.s(kk1) is None else b.s(kk1) - 1  # type: ignore[operator]

                def body_a8(bb: _Builder, j: Index) -> None:
                    s_off = bb.mul(bb.add(base, bb.mul(j, half_r1)), 2 * frac)
                    d_off = bb.mul(bb.mul(j, bb.mul(kk1, 2)), frac)
                    bb.emit(pto.Load2DTransposeOp(op.src, bb.v(s_off), op.dst, bb.v(d_off), bb.v(0),
                                                  bb.v(kk1), bb.v(1), bb.v(0), bb.v(gap)))
                b.loop(b.cdiv(m, 2 * M0), body_a8)
                return True
            # L1 nz of A^T[k, m]: fractal (k1, m1) at m1*R1' + k1, transposed on the way
            r1t = -(-sr // M0)
            base = b.add(b.mul(b.div(col, M0), r1t), b.div(row, M0))
            if self.target.l0a_layout == "zz":
                b.loop(mm1, lambda bb, i: load(bb, bb.mul(bb.add(base, bb.mul(i, r1t)), frac),
                                              bb.mul(bb.mul(i, kk1), frac), kk1, 1, True))
            else:
                b.loop(kk1, lambda bb, j: load(bb, bb.mul(bb.add(base, j), frac),
                                              bb.mul(bb.mul(j, mm1), frac), mm1, r1t, True))
            return True
        k, n = rows, cols
        kk1, nn1 = b.cdiv(k, c0), b.cdiv(n, M0)
        if transpose:  # L1 nz of B^T[n, k]: fractal (n1, k1) at k1*N1' + n1 is already Zn
            n1t = -(-sr // M0)
            base = b.add(b.mul(b.div(col, c0), n1t), b.div(row, M0))
            b.loop(kk1, lambda bb, i: load(bb, bb.mul(bb.add(base, bb.mul(i, n1t)), frac),
                                          bb.mul(bb.mul(i, nn1), frac), nn1, 1))
            return True
        if src.layout_name == "zz" and bits == 16:  # fractal (k1, n1) at k1*N1t + n1
            n1t = -(-sc // c0)
            base = b.add(b.mul(b.div(row, M0), n1t), b.div(col, c0))
            b.loop(kk1, lambda bb, i: load(bb, bb.mul(bb.add(base, bb.mul(i, n1t)), frac),
                                          bb.mul(bb.mul(i, nn1), frac), nn1, 1, True))
            return True
        if src.layout_name == "nz" and bits == 16:  # fractal (k1, n1) at n1*K1t + k1
            k1t = -(-sr // M0)
            base = b.add(b.mul(b.div(col, c0), k1t), b.div(row, M0))
            b.loop(kk1, lambda bb, i: load(bb, bb.mul(bb.add(base, i), frac),
                                          bb.mul(bb.mul(i, nn1), frac), nn1, k1t, True))
            return True
        if _b8_nz_b_square_loads(op, self.target):
            # SplitBTransposeForS4S8: per c0-row k block, squares of q fractals (b8: two 16 x 32,
            # b4: four 16 x 64) stacked along k (consecutive in Nz), one per c0 columns of n,
            # transposed into q Zn fractals
            q = isa_params.transpose_square(elem)[0]
            part_r1 = -(-sr // M0) // q  # squares per L1 column of fractals
            base = b.add(b.mul(b.div(col, c0), part_r1), b.div(row, c0))
            squares = b.cdiv(n, c0)
            # With a fractal count not a multiple of q (or a dynamic one) the last square of a
            # block writes the next block's first fractals, which that block rewrites: two MTE1
            # writes of the same bytes, ordered by a pipe_barrier(mte1) (docs/pipes.md).
            overhang = b.s(nn1) is None or b.s(nn1) % q != 0

            def body8(bb: _Builder, i: Index) -> None:
                if overhang:
                    bb.emit(pto.PipeBarrierOp(Pipe.MTE1))
                s_off = bb.mul(bb.add(base, i), q * frac)
                d_off = bb.mul(bb.mul(i, nn1), frac)
                bb.emit(pto.Load2DTransposeOp(op.src, bb.v(s_off), op.dst, bb.v(d_off), bb.v(0),
                                              bb.v(squares), bb.v(part_r1), bb.v(q - 1), bb.v(0)))
            b.loop(kk1, body8)
            return True
        if _v2_transposed_b32_b_window(op, self.target):  # a5: B nz, one V2 window (as A^T)
            self.v2_transposed_windows(b, op, src, nn1, kk1, bits)
            return True
        if src.layout_name == "zz" and bits == 32 and isa_params.load2d_transpose_supported(self.target):
            # SplitBTransposeForB32: per 16-row k slab, squares of two 16 x 8 fractals along n
            n1t = -(-sc // c0)  # 8-column fractals per L1 row of fractals
            slabs = b.cdiv(k, M0)
            base = b.add(b.mul(b.div(row, M0), n1t), b.div(col, c0))

            def body(bb: _Builder, i: Index) -> None:
                s_off = bb.mul(bb.add(base, bb.mul(i, n1t)), 128)
                d_off = bb.mul(bb.mul(bb.mul(i, 2), nn1), 128)
                gap = bb.add(nn1, -1) if bb.s(nn1) is None else bb.s(nn1) - 1
                bb.emit(pto.Load2DTransposeOp(op.src, bb.v(s_off), op.dst, bb.v(d_off), bb.v(0),
                                              bb.v(nn1), bb.v(1), bb.v(0), bb.v(gap)))
            b.loop(slabs, body)
            return True
        return False

    def v2_transposed_windows(self, b: _Builder, op: pto.MteL1L0AOp | pto.MteL1L0BOp,
                              src: pto.TileType, mm1: Index, kk1: Index, bits: int) -> None:
        """Ascend 950: A^T[k, m] in an nz L1 tile (fractal (k1, m1) at m1*R1 + k1, fractals of 16
        rows x C0) to an Nz L0A (fractal (m1, k1) at k1*M1 + m1), or (b32 only, `mm1` = N1) B[k, n]
        in an nz L1 tile to the Zn L0B (fractal (k1, n1) at k1*N1 + n1, each the 16 x 8 block of
        B^T: Nz of B^T), with LoadData2DParamsV2
        ifTranspose, which transposes its window [mStep*16, kStep*C0] as a whole and writes it Nz
        with K-direction stride dstStride (`load2d_v2`). mStep counts 16-row fractals of k, kStep
        C0-column fractals of m.
        * b32 (C0 8, kStep even): one window of ceil(k/16) x 2*M1 fractals, dstStride M1: M1
          rows and 2*ceil(k/16) columns of L0A, the last one past the K1 grid when K1 is odd
          (inside the tile, whose K1 the transpose padding rule makes even).
        * b8 (C0 32, mStep even): a window of 2*K1 x ceil(m/32) fractals writes 2*ceil(m/32)
          fractal rows. With M1 even that is one window (dstStride M1). Otherwise one window per
          32 columns of k (mStep 2): its extra row lands on the next column's first fractal,
          which the next load rewrites (a pipe_barrier(mte1) orders the two MTE1 writes), and
          for the last column one fractal past the grid, inside the tile (even fractal rows)."""
        r1 = -(-src.matrix_shape[0] // M0)  # the source's fractal rows: srcStride
        row: Index = op.src_row if op.src_row is not None else 0
        col: Index = op.src_col if op.src_col is not None else 0
        c0 = c0_elements(src.element_name, "l1")
        frac = isa_params.fractal_elements(src.element_name)
        m_start, k_start = b.div(row, M0), b.div(col, c0)

        def window(bb: _Builder, d_off: Index, m_pos: Index, m_step: Index, k_step: Index) -> None:
            bb.emit(pto.Load2DV2Op(op.src, bb.v(0), op.dst, bb.v(d_off), bb.v(m_pos),
                                   bb.v(k_start), bb.v(m_step), bb.v(k_step), bb.v(r1),
                                   bb.v(mm1), if_transpose=True))

        if bits == 32:
            window(b, 0, m_start, b.cdiv(op.k, M0), b.mul(mm1, 2))
            return
        m_windows = b.cdiv(op.m, 2 * M0)
        static_m1 = b.s(mm1)
        if static_m1 is not None and static_m1 % 2 == 0:
            window(b, 0, m_start, b.mul(kk1, 2), m_windows)
            return

        def column(bb: _Builder, j: Index) -> None:
            bb.emit(pto.PipeBarrierOp(Pipe.MTE1))
            window(bb, bb.mul(bb.mul(j, mm1), frac), bb.add(m_start, bb.mul(j, 2)), 2, m_windows)
        b.loop(kk1, column)

    # -- L1 -> BT ---------------------------------------------------------------------------

    def l1_bt(self, op: pto.MteL1BtOp) -> bool:
        """The bias row as one burst of whole BT units (copy_cbuf_to_bt with nBurst 1, as the
        pto-isa TMovToBt and vllm-ascend bias copies): the bytes past n up to the unit are copied too,
        so both tiles must hold n rounded up to the unit (with a dynamic n, their whole rows)."""
        src, dst = op.src.type, op.dst.type
        assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
        unit = isa_params.l1_bt_unit_bytes(self.target)
        elem_bytes = dst.element_bits // 8
        n = pto.static_value(op.n)
        most = dst.matrix_shape[1] if n is None else n
        if -(-most * elem_bytes // unit) * unit > min(src.footprint_bytes(), dst.footprint_bytes()):
            return False
        b = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        units = b.cdiv(b.mul(op.n, elem_bytes), unit)
        b.emit(pto.CopyL1BtOp(op.src, b.v(0), op.dst, b.v(0), b.v(1), b.v(units), b.v(0), b.v(0)))
        return True

    # -- Mmad and Fixpipe -------------------------------------------------------------------

    def mad(self, op: pto.MadOp | pto.MadAccOp | pto.MadBiasOp) -> bool:
        bias = op.bias if isinstance(op, pto.MadBiasOp) else None
        new = pto.MmadOp(op.lhs, op.rhs, op.dst, op.m, op.n, op.k, bias=bias,
                         init_zero=not isinstance(op, pto.MadAccOp),
                         disable_gemv=op.disable_gemv is not None)
        op.parent_block().insert_op_before(new, op)  # type: ignore[union-attr]
        return True

    def fixpipe(self, op: pto.FixpipeOp) -> bool:
        b = _Builder(op.parent_block(), op)  # type: ignore[arg-type]
        layout = op.layout.data
        dst_t = op.dst.type
        m, n = op.m, op.n
        if isinstance(dst_t, MemRefType):
            strides = dst_t.get_strides()
            if layout == "nz2nz":
                dims = dst_t.get_shape()  # (N1, M1, 16, c0)
                pitch: int | None = dims[1] * dims[2] * dims[3] if dims[1] > 0 else None
            elif dst_t.get_num_dims() == 2 and strides is not None and strides[0] is not None \
                    and strides[0] > 0:
                pitch = strides[0]
            else:
                pitch = None
            if pitch is None:
                raise PassOpError(op, "requires a static destination pitch to expand to fixpipe_copy")
            elem_bits = element_bits(pto.TileType(  # the destination element width
                "ub", (1, 1), dst_t.element_type, "nd").element_name)
        else:
            assert isinstance(dst_t, pto.TileType)
            elem_bits = dst_t.element_bits
            if layout == "nz2nz":
                pitch = -(-dst_t.matrix_shape[0] // M0) * M0 * c0_elements(
                    dst_t.element_name, dst_t.space_name)
            elif layout == "nz2dn" and dst_t.layout_name == "nd":
                pitch = dst_t.matrix_shape[1]
            elif layout == "nz2nd":
                pitch = dst_t.matrix_shape[1]
            else:
                return False
        split = False
        if layout == "nz2nz":
            block = _fixpipe_nz_block(op)
            if block is None:
                return False
            split = block == isa_params.FIXPIPE_SPLIT_BLOCK_COLS  # f32 16 x 8 blocks
            if self.target.fixpipe_params != "arch3510":
                pitch = pitch * elem_bits // 8 // 32  # V220: 32-byte units
        src_stride = b.mul(b.cdiv(m, M0), M0)
        new = pto.FixpipeCopyOp(
            op.src, b.v(0), op.dst, b.v(n), b.v(m), b.v(src_stride), b.v(pitch), b.v(1), b.v(0),
            b.v(0), src_nz_c0_stride=b.v(1) if layout == "nz2dn" else None, layout=layout,
            quant=op.quant.data, relu=op.relu is not None, scalar=op.scalar, vector=op.vector,
            channel_split=split,
        )
        b.emit(new)
        return True


@dataclass(frozen=True)
class PtoExpandParamsPass(ModulePass):
    """Lower the tile-level cube ops to the raw Ascend C parameter forms (copy_nd2nz,
    load_2d, mmad, fixpipe_copy, ...), as the Ascend C samples program them.

    The module docstring has the details."""

    name = "pto-expand-params"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            ops = [o for o in fn.walk() if isinstance(o, _EXPANDED)]
            # The raw forms lay L0 tiles out by the op sizes; mixing them with a tile-level L0
            # producer or consumer (an operand the expansion does not cover) would change the
            # data, so such a function keeps its L1 -> L0, mad and fixpipe ops tile-level.
            whole = all(_expandable(o, pto.target_of(o)) for o in ops)
            for inner in ops:
                if not whole and not isinstance(inner, pto.MteGmL1Op | pto.MteL1BtOp):
                    continue
                ex = _Expander(pto.target_of(inner))
                before = inner.prev_op  # the expansion goes between it and `inner`
                if isinstance(inner, pto.MteGmL1Op):
                    done = ex.gm_l1(inner)
                elif isinstance(inner, pto.MteL1BtOp):
                    done = ex.l1_bt(inner)
                elif isinstance(inner, pto.MteL1L0AOp | pto.MteL1L0BOp):
                    done = ex.l1_l0(inner)
                elif isinstance(inner, pto.FixpipeOp):
                    done = ex.fixpipe(inner)
                else:
                    done = ex.mad(inner)
                if done:
                    made = inner.prev_op
                    while made is not None and made is not before:
                        derive(made, inner)
                        made = made.prev_op
                    inner.detach()
                    inner.erase()


_EXPANDED = (pto.MteGmL1Op, pto.MteL1BtOp, pto.MteL1L0AOp, pto.MteL1L0BOp, pto.MadOp, pto.MadAccOp,
             pto.MadBiasOp, pto.FixpipeOp)


def _expandable(op: Operation, target: Target) -> bool:
    """Whether the L0-side op `op` has a raw expansion (the cases `_Expander` handles)."""
    if isinstance(op, pto.MteGmL1Op | pto.MteL1BtOp):
        return True
    if isinstance(op, pto.MadOp | pto.MadAccOp | pto.MadBiasOp):
        return True
    if isinstance(op, pto.FixpipeOp):
        return op.layout.data != "nz2nz" or _fixpipe_nz_block(op) is not None
    assert isinstance(op, pto.MteL1L0AOp | pto.MteL1L0BOp)
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    bits = src.element_bits
    if dst.layout_name == "nd":
        return True
    if op.load3d is not None:  # Load3Dv2 (img2colv2) parameters are not modelled
        return False
    transpose = op.transpose is not None
    if isinstance(op, pto.MteL1L0AOp):
        if transpose and bits in (8, 32) and target.l0a_layout == "nz":  # a5: V2 windows of nz
            return _v2_transposed_a_windows(op, target)
        # the SplitA loops read A in nz or (b8 and wider) zz, A^T in the layout pto-tile-matmul
        # stages (nz; zz for b32) or, b16, in zz
        staged = src.layout_name == isa_params.a_l1_layout_for_transpose(src.element_name)
        if not (staged if transpose else src.layout_name == "nz") \
                and not (src.layout_name == "zz" and (bits == 16 or not transpose and bits >= 8)):
            return False
        return not transpose or bits == 16 or _b8_nz_a_square_loads(op, target) \
            or _b32_zz_a_square_loads(op, target)
    if transpose or (src.layout_name in ("zz", "nz") and bits == 16):
        return True
    if _b8_nz_b_square_loads(op, target) or _v2_transposed_b32_b_window(op, target):
        return True
    return src.layout_name == "zz" and bits == 32 and isa_params.load2d_transpose_supported(target)


def _fixpipe_nz_block(op: pto.FixpipeOp) -> int | None:
    """The Z-block width (channels) of a tile-level nz2nz Fixpipe when the raw form writes the same
    bytes, else None. The destination's own c0 (an nz tile's, or the last dim of a (N1, M1, 16, c0)
    GM memref) is the width; the verifier keeps it to one the hardware writes
    (`isa_params.fixpipe_nz_dst_widths`: 16; b8 32 by channel merge, n a multiple of 32, checked
    at run time for a dynamic n; f32 8 by channel split, to GM)."""
    dst = op.dst.type
    if isinstance(dst, pto.TileType):
        elem, space = dst.element_name, dst.space_name
        c0 = c0_elements(elem, space)
    else:
        assert isinstance(dst, MemRefType)
        elem, space = pto.TileType("ub", (1, 1), dst.element_type, "nd").element_name, "gm"
        c0 = dst.get_shape()[-1]
    return c0 if c0 in isa_params.fixpipe_nz_dst_widths(elem, space) else None


def _b8_nz_b_square_loads(op: pto.MteL1L0AOp | pto.MteL1L0BOp, target: Target) -> bool:
    """Whether a b8 (or b4) B move from an nz L1 tile to zn L0B is the SplitBTransposeForS4S8
    loop of the Ascend C sample: LoadDataWithTranspose squares of q fractals stacked along k (b8:
    two 16 x 32, b4: four 16 x 64, into L0B on A2/A3/200I-500 A2). The L1 tile's fractal rows
    come in groups of q (rows a multiple of c0 = 16q) and the source start is a multiple of c0
    (a constant, or a loop index of pto-tile-matmul stepping by tile sizes: `_known_multiple`).
    Each square writes q 16-column Zn fractals, so with a count not a multiple of q (b8: n =
    32q + 16, or a dynamic n) the last square of a k block writes up to q - 1 fractals past the
    block's n: the next block's first fractals, which that block rewrites, and for the last block
    fractals past the grid, which must lie inside the L0B tile (its fractal columns a multiple of
    q, or n static with such a count)."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    bits = src.element_bits
    if not (isinstance(op, pto.MteL1L0BOp) and op.transpose is None and bits in (4, 8)
            and src.layout_name == "nz" and dst.layout_name == "zn"
            and bits in isa_params.load2d_transpose_bits(target, "l0b")):
        return False
    q = isa_params.transpose_square(src.element_name)[0]
    if (-(-src.matrix_shape[0] // M0)) % q:
        return False
    if not all(v is None or _known_multiple(v, q * M0) for v in (op.src_row, op.src_col)):
        return False
    n = pto.static_value(op.n)
    dst_n1 = -(-dst.matrix_shape[1] // M0)
    return dst_n1 % q == 0 or (n is not None and (-(-n // M0)) % q == 0)


def _b8_nz_a_square_loads(op: pto.MteL1L0AOp, target: Target) -> bool:
    """Whether a b8 A given transposed (nz of A^T in L1) moves to a zz L0A as LoadDataWithTranspose
    squares (Ascend C `LoadDataWithTranspose`: A1/B1 -> A2/B2, int8 squares of two 16 x 32
    fractals stacked along k): the L1 tile's fractal rows (k) come in pairs, the source start is a
    known multiple of 32, and each 32 rows of m write two fractal rows of L0A, so with an odd
    count (m = 32q + 16, or a dynamic m) the last square writes one row past the grid, which
    must lie inside the L0A tile (even fractal rows, or a static m with an even count)."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    if not (op.transpose is not None and src.element_bits == 8 and src.layout_name == "nz"
            and dst.layout_name == "zz" and isa_params.load2d_transpose_supported(target)):
        return False
    if (-(-src.matrix_shape[0] // M0)) % 2:
        return False
    if not all(v is None or _known_multiple(v, 2 * M0) for v in (op.src_row, op.src_col)):
        return False
    m = pto.static_value(op.m)
    return (-(-dst.matrix_shape[0] // M0)) % 2 == 0 or (m is not None and (-(-m // M0)) % 2 == 0)


def _b32_zz_a_square_loads(op: pto.MteL1L0AOp, target: Target) -> bool:
    """Whether a b32 A given transposed (zz of A^T in L1) moves to a zz L0A as LoadDataWithTranspose
    squares (Ascend C `LoadDataWithTranspose.md`, float A: "Zz -> Zz"): squares of two 16 x 8
    fractals side by side along m, so the L1 tile's fractal columns come in pairs and the source
    start (k row, m column) is a known multiple of 16. Each square writes two 8-column Zz
    fractals; with an odd K1 the last one of a row lands on the next row's first fractal (and,
    for the last row, one fractal past the grid: inside a tile whose K1 is even, which the
    transpose padding rule makes every b32 L0A tile's)."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    if not (op.transpose is not None and src.element_bits == 32 and src.layout_name == "zz"
            and dst.layout_name == "zz" and isa_params.load2d_transpose_supported(target)
            and target.l0a_layout == "zz"):
        return False
    # Both tiles' fractal columns come in pairs: the verifier's transpose padding rule makes a
    # transposed b32 tile's padded extents multiples of 16 (isa TRANSPOSE_BLOCK_ELEMENTS).
    return all(v is None or _known_multiple(v, M0) for v in (op.src_row, op.src_col))


def _v2_transposed_a_windows(op: pto.MteL1L0AOp, target: Target) -> bool:
    """Whether a b8 or b32 A given transposed (nz of A^T in L1) moves to an Nz L0A (Ascend 950) as
    LoadData2DParamsV2 ifTranspose windows: the window starts count whole fractals of the source
    (16 rows of k, C0 columns of m) and its transposed extents whole L0A fractals, so the source
    starts are known multiples of 32 (b8: a window holds 32 rows of k and 32 columns of m) or 16
    (b32: two 8-column fractals of m), which with the transpose padding rule (extents multiples of
    32 / 16) keeps every window inside both tiles."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    bits = src.element_bits
    if not (op.transpose is not None and bits in (8, 32) and src.layout_name == "nz"
            and dst.layout_name == "nz" and isa_params.load2d_v2_supported(target)):
        return False
    unit = 2 * M0 if bits == 8 else M0
    return all(v is None or _known_multiple(v, unit) for v in (op.src_row, op.src_col))


def _v2_transposed_b32_b_window(op: pto.MteL1L0AOp | pto.MteL1L0BOp, target: Target) -> bool:
    """Whether a b32 B in an nz L1 tile moves to the Zn L0B (Ascend 950) as one LoadData2DParamsV2
    ifTranspose window (the `load_data_2dv2_l12l0` sample's float B): Zn of B is Nz of B^T, so
    the window is the b32 A^T one with n for m; its starts are known multiples of 16."""
    src, dst = op.src.type, op.dst.type
    assert isinstance(src, pto.TileType) and isinstance(dst, pto.TileType)
    if not (isinstance(op, pto.MteL1L0BOp) and op.transpose is None and src.element_bits == 32
            and src.layout_name == "nz" and dst.layout_name == "zn"
            and isa_params.load2d_v2_supported(target)):
        return False
    return all(v is None or _known_multiple(v, M0) for v in (op.src_row, op.src_col))


def _known_multiple(value: Index, unit: int, depth: int = 8) -> bool:
    """Whether `value` is provably a multiple of `unit`: a constant, a sum, difference, min or max
    of such values, a product with one, or the index of an `scf.for` whose lower bound and step
    are (the tile loops of pto-tile-matmul, and their unrolled multi-buffer copies)."""
    known = value if isinstance(value, int) else pto.static_value(value)
    if known is not None:
        return known % unit == 0
    if depth == 0:
        return False
    owner = value.owner
    if isinstance(owner, Block):
        loop = owner.parent_op()
        return isinstance(loop, scf.ForOp) and value is owner.args[0] and all(
            _known_multiple(v, unit, depth - 1) for v in (loop.lb, loop.step))
    if isinstance(owner, arith.AddiOp | arith.SubiOp | arith.MinSIOp | arith.MaxSIOp
                  | arith.MinUIOp | arith.MaxUIOp):
        return all(_known_multiple(v, unit, depth - 1) for v in owner.operands)
    if isinstance(owner, arith.MuliOp):
        return any(_known_multiple(v, unit, depth - 1) for v in owner.operands)
    return False
