"""The VPTO half of mmair-to-ptoas: mmair's raw parameter-form ops written as PTOAS's VPTO cube
micro-ops (include/PTO/IR/VPTOOps.td, docs/isa/micro-isa/16-cube-matmul.md at tonibohnlein/PTOAS
e32488c9), the inverse of passes/ptoas_vpto.py:

    pto.copy_nd2nz / copy_dn2nz  ->  mte_gm_l1_frac nd2nz / dn2nz  (strides elements -> bytes,
                                     dst_loop4_stride = dstNzMatrixStride x sizeof(T) / 32 B)
    pto.copy_gm_l1               ->  mte_gm_l1 (32-byte blocks and end-to-start gaps -> bytes
                                     and start-to-start strides)
    pto.load_2d (a5)             ->  mte_l1_l0a / mte_l1_l0b full control: the LoadData2DParams
                                     walk {start, repeat, srcStride} as the LoadData2DParamsV2
                                     window m_start = start, k_start = 0, m_step = 1,
                                     k_step = repeat, src_stride = srcStride, dst_stride = 1
    pto.load_2d_transpose        ->  the same with {transpose = true}, where its squares are one
                                     transposed V2 window (`_square_window`)
    pto.load_2d_v2               ->  mte_l1_l0a / mte_l1_l0b full control, fields unchanged
    pto.copy_l1_bt               ->  mte_l1_bt
    pto.mmad                     ->  mad / mad_acc / mad_bias
    pto.fixpipe_copy             ->  mte_l0c_gm / mte_l0c_l1 / mte_l0c_ub

Local buffers are pointers from `tile_buf_addr` of the written alloc_tile (plus `addptr` by the
raw op's element offset); GM operands are `tensor_view_addr` of the views the tile-level writer
makes of the kernel's arguments and their subviews (a partition_view's first element: PTOAS's
FoldTileBufIntrinsics folds it to base + offset x stride). Index operands become i64.

Why the V1 walk is a V2 window: LoadData2DParams moves fractal startIndex + srcStride*i to
slot i (dstGap is ignored on Ascend 950); a V2 window of one M fractal by `repeat` K fractals
reads fractal (k_start + j)*srcStride + m_start = startIndex + srcStride*j into slot
j*dstStride = j. With ifTranspose (b16 only) V1 transposes each 16 x 16 fractal; the V2 window
[16, repeat*16] transposed whole and written Nz puts fractal j's transpose into slot j, the same
bytes.

PTOAS's VPTO cube ops are the Ascend 950 (a5) forms: PTOAS's `load_cbuf_to_ca` is the
LoadData2DParamsV2 intrinsic, which A2 / A3 do not have, so a raw form on target a2 is refused
at the op; so is any raw form or field PTOAS cannot say exactly (each with its reason). Every
written op is verified with PTOAS's own rules (dialects/ptoas/vpto.py) before it replaces the
raw op, so a refusal is made here, at the mmair op, never by the reader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BoolAttr,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    bf16,
    f16,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from mmair.dialects import pto
from mmair.dialects.pto._verify import static_value
from mmair.dialects.ptoas import vpto as V
from mmair.dialects.ptoas.types import PtrType, TileBufType
from mmair.dialects.ptoas.vpto_fixpipe import ATOMIC_TYPES
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend.targets import element_bits
from mmair.passes.pass_errors import PassOpError

if TYPE_CHECKING:
    from mmair.passes.mmair_to_ptoas import _Writer

C0_BYTES = 32  # DataCopy blocks and dst_loop4_stride are 32-byte units
A2_REFUSAL = ("is a raw parameter form on target {target}: PTOAS's VPTO cube ops are the Ascend "
              "950 (a5) forms (its load_cbuf_to_ca / mte_l1_l0a take LoadData2DParamsV2, which "
              "A2 / A3 do not have) and its tile level has no parameter forms, so it has no "
              "PTOAS spelling (docs/ptoas.md, \"Writing PTOAS\")")
# PTOAS's full-control L1 -> L0 field ranges (VPTO.cpp, dialects/ptoas/vpto.py _L1L0Base)
_FULL_CONTROL_RANGES = dict(zip(V.FULL_CONTROL, ((0, 65535), (0, 65535), (1, 255), (1, 255),
                                                 (1, 65535), (1, 65535)), strict=True))


def _space(tile: SSAValue) -> str:
    from mmair.passes.ptoas_to_mmair import LOC_SPACE

    return LOC_SPACE[str(tile.type.get("loc"))]


def _element(value: SSAValue) -> Attribute:
    t = value.type
    return t.get("dtype") if isinstance(t, TileBufType) else t.element_type


def _bytes(op: Operation, value: SSAValue) -> int:
    name = element_name_or_none(_element(value))
    bits = element_bits(name) if name is not None else 0
    if bits < 8:
        raise PassOpError(op, f"moves {name} elements: PTOAS's VPTO carries packed 4-bit data "
                              f"only through the S4 loads, which mmair does not read")
    return bits // 8


class VptoWriter:
    """The pointers and i64 values one function's VPTO ops take."""

    def __init__(self, w: _Writer) -> None:
        self.w = w
        self.tile_ptrs: dict[SSAValue, SSAValue] = {}
        self.flags: dict[bool, SSAValue] = {}

    def i64(self, at: Operation, value: SSAValue | int, scale: int = 1) -> SSAValue:
        """`value` (index) x `scale` as an i64: a constant, or an index_cast (and a muli)."""
        v = value if isinstance(value, int) else static_value(value)
        if v is not None:
            return self.w.constant(at, v * scale, i64)
        cast = self.w.insert(at, arith.IndexCastOp(value, i64)).results[0]
        if scale == 1:
            return cast
        return self.w.insert(at, arith.MuliOp(cast, self.w.constant(at, scale, i64))).results[0]

    def flag(self, at: Operation, value: bool) -> SSAValue:
        """An i1 constant, once per function at its start."""
        if value not in self.flags:
            const = arith.ConstantOp(IntegerAttr(int(value), i1))
            const.location = at.location
            Rewriter.insert_op(const, InsertPoint.at_start(self.w.fn.body.block))
            const.results[0].name_hint = "true" if value else "false"
            self.flags[value] = const.results[0]
        return self.flags[value]

    def tile(self, at: Operation, tile: SSAValue, offset: SSAValue | None = None) -> SSAValue:
        """A pointer to `tile`'s start (one tile_buf_addr, after the tile is made), moved by the
        element offset."""
        if not isinstance(tile.type, TileBufType):
            raise PassOpError(at, f"takes {tile.type}, which is not a tile PTOAS can point at")
        if tile not in self.tile_ptrs:
            new = V.TileBufAddrOp.build(operands=[tile],
                                        result_types=[PtrType(_element(tile), _space(tile))])
            new.location = at.location
            owner = tile.owner
            where = (InsertPoint.after(owner) if isinstance(owner, Operation)
                     else InsertPoint.at_start(self.w.fn.body.block))
            Rewriter.insert_op(new, where)
            new.results[0].name_hint = f"{tile.name_hint or 'tile'}_ptr"
            self.tile_ptrs[tile] = new.results[0]
        ptr = self.tile_ptrs[tile]
        if offset is None or static_value(offset) == 0:
            return ptr
        return self.w.insert(at, V.AddPtrOp.build(operands=[ptr, offset],
                                                  result_types=[ptr.type])).results[0]

    def gm(self, at: Operation, value: SSAValue, offset: SSAValue | None = None) -> SSAValue:
        """A GM pointer to the first element of a kernel argument or a subview of one."""
        view = self.w.views.get(value, self.w.tensors.get(value))
        if view is None:
            raise PassOpError(at, "reads or writes GM through a value PTOAS cannot view (a "
                                  "function argument or a memref.subview of one)")
        ptr = self.w.insert(at, V.TensorViewAddrOp.build(
            operands=[view], result_types=[PtrType(value.type.element_type)])).results[0]
        if offset is None or static_value(offset) == 0:
            return ptr
        return self.w.insert(at, V.AddPtrOp.build(operands=[ptr, offset],
                                                  result_types=[ptr.type])).results[0]

    def emit(self, at: Operation, cls: type[V.SlotOp], values: dict[str, SSAValue],
             properties: dict[str, Attribute] | None = None,
             attributes: dict[str, Attribute] | None = None) -> None:
        """Insert the VPTO op for `at` after PTOAS's own checks of it, and erase `at`."""
        new = cls.from_slots(values, properties or {}, attributes)
        new.location = at.location
        try:
            new.verify()
        except VerifyException as e:
            new.erase()
            raise PassOpError(at, f"would be written as '{cls.name}', which PTOAS refuses: "
                                  f"{str(e).splitlines()[0]}") from None
        Rewriter.insert_op(new, InsertPoint.before(at))
        at.detach()
        at.erase()


def _static(op: Operation, value: SSAValue, field: str, why: str) -> int:
    v = static_value(value)
    if v is None:
        raise PassOpError(op, f"has a run-time {field}: {why}")
    return v


def _check(w: _Writer, op: Operation) -> VptoWriter:
    if w.target != "a5":
        raise PassOpError(op, A2_REFUSAL.format(target=w.target))
    if w.vpto is None:
        w.vpto = VptoWriter(w)
    return w.vpto


def _frac(w: _Writer, op: pto.CopyNd2NzOp | pto.CopyDn2NzOp) -> None:
    v = _check(w, op)
    size = _bytes(op, op.dst)
    dn = isinstance(op, pto.CopyDn2NzOp)
    count, stride = (op.dn_num, op.src_dn_matrix_stride) if dn else (op.nd_num, op.src_nd_matrix_stride)
    matrix = _static(op, op.dst_nz_matrix_stride, "dst_nz_matrix_stride",
                     "PTOAS's dst_loop4_stride is a constant the reader converts")
    if matrix * size % C0_BYTES:
        raise PassOpError(op, f"has dst_nz_matrix_stride {matrix} ({matrix * size} bytes): PTOAS's "
                              f"dst_loop4_stride counts 32-byte blocks")
    values = {
        "src": v.gm(op, op.src), "dst": v.tile(op, op.dst, op.dst_offset),
        "n_value": v.i64(op, op.n_value), "d_value": v.i64(op, op.d_value),
        "src_inner_stride": v.i64(op, op.src_d_value, size),
        "src_outer_stride": v.i64(op, stride, size), "group_count": v.i64(op, count),
        "dst_loop2_stride": v.i64(op, op.dst_nz_n_stride),
        "dst_loop3_stride": v.i64(op, op.dst_nz_c0_stride),
        "dst_loop4_stride": v.i64(op, matrix * size // C0_BYTES),
        "l2_cache_ctrl": v.i64(op, 0), "smallc0_en": v.flag(op, op.small_c0 is not None),
    }
    v.emit(op, V.MteGmL1FracOp, values, {"mode": StringAttr("dn2nz" if dn else "nd2nz")})


def _bursts(w: _Writer, op: pto.CopyGmL1Op) -> None:
    v = _check(w, op)
    why = "PTOAS's reader converts mte_gm_l1 bursts at conversion (constants)"
    count, length = (_static(op, x, n, why) for x, n in ((op.block_count, "block_count"),
                                                          (op.block_len, "block_len")))
    src_gap, dst_gap = (_static(op, x, n, why) for x, n in ((op.src_gap, "src_gap"),
                                                             (op.dst_gap, "dst_gap")))
    values = {
        "src": v.gm(op, op.src, op.src_offset), "dst": v.tile(op, op.dst, op.dst_offset),
        "len_burst": v.i64(op, length * C0_BYTES), "count": v.i64(op, count),
        "src_stride": v.i64(op, (length + src_gap) * C0_BYTES),
        "dst_stride": v.i64(op, (length + dst_gap) * C0_BYTES),
    }
    v.emit(op, V.MteGmL1Op, values)


def _l1_l0(w: _Writer, op: pto.Load2DOp | pto.Load2DV2Op | pto.Load2DTransposeOp) -> None:
    v = _check(w, op)
    _bytes(op, op.src)
    cls = V.MteL1L0aOp if _space(op.dst) == "l0a" else V.MteL1L0bOp
    transpose = not isinstance(op, pto.Load2DOp | pto.Load2DV2Op) or op.if_transpose is not None
    if isinstance(op, pto.Load2DV2Op):
        fields: list[int | SSAValue] = [op.m_start_position, op.k_start_position, op.m_step,
                                        op.k_step, op.src_stride, op.dst_stride]
    elif isinstance(op, pto.Load2DTransposeOp):
        fields = _square_window(w, op)
    else:
        if op.addr_mode is not None and op.addr_mode.value.data:
            raise PassOpError(op, "has addr_mode 1, which LoadData2DParamsV2 has no field for")
        stride, repeat = static_value(op.src_stride), static_value(op.repeat_times)
        if stride == 0 and repeat != 1:
            raise PassOpError(op, "re-reads one fractal (src_stride 0, repeat_times not 1): the "
                                  "LoadData2DParamsV2 window it would be needs src_stride >= 1 "
                                  "(PTOAS's verifier)")
        # one M fractal by `repeat` K fractals (module docstring); dst_gap is ignored on a5
        fields = [op.start_index, 0, 1, op.repeat_times, 1 if stride == 0 else op.src_stride, 1]
    for name, value in zip(V.FULL_CONTROL, fields, strict=True):
        lo, hi = _FULL_CONTROL_RANGES[name]
        s = value if isinstance(value, int) else static_value(value)
        if s is not None and not lo <= s <= hi:
            raise PassOpError(op, f"has {name} {s} as PTOAS's full-control {cls.name}, which "
                                  f"takes [{lo}, {hi}]")
    values = {"src": v.tile(op, op.src, op.src_offset), "dst": v.tile(op, op.dst, op.dst_offset),
              **{n: v.i64(op, x) for n, x in zip(V.FULL_CONTROL, fields, strict=True)}}
    # the transpose flag is an attribute of PTOAS's op (`{transpose = true}`)
    v.emit(op, cls, values, attributes={"transpose": BoolAttr(True, i1)} if transpose else None)


def _square_window(w: _Writer, op: pto.Load2DTransposeOp) -> list[int | SSAValue]:
    """LoadDataWithTranspose's walk as one transposed LoadData2DParamsV2 window, where the two
    lay out the same bytes (executor/ascend/raw_kernels.py: load2d_transpose, load2d_v2). Square
    i sits at fractals (start + s*i) * F (F fractals a square); its transpose's fractal h goes to
    slot (dstGap + 1)*i + h*(dstFracGap + 1). The window writes R^T Nz, fractal (r1, c1) at
    c1*dstStride + r1:
      b16 (F = 1): m_step 1, k_step = repeat, src_stride s: slot i, so dstGap 0;
      b8 (F = 2, two 16 x 32 fractals stacked): m_step 2, k_step = repeat, m_start 2*start,
        src_stride 2s: slot 2i + h, so dstGap 1 and dstFracGap 0;
      b32 (F = 2, two 16 x 8 fractals side by side): m_step 1, k_step 2*repeat, m_start 2*start,
        src_stride 1 (so s = 1): slot h*dstStride + i, so dstGap 0, dstStride = dstFracGap + 1."""
    bits = element_bits(element_name_or_none(_element(op.src)) or "")
    if op.addr_mode is not None and op.addr_mode.value.data:
        raise PassOpError(op, "has addr_mode 1, which LoadData2DParamsV2 has no field for")
    s, gap, frac_gap, repeat = (static_value(getattr(op, n)) for n in (
        "src_stride", "dst_gap", "dst_frac_gap", "repeat_times"))
    if s == 0 and repeat != 1:
        raise PassOpError(op, "re-reads one square (src_stride 0, repeat_times not 1): the "
                              "LoadData2DParamsV2 window it would be needs src_stride >= 1 "
                              "(PTOAS's verifier)")
    needs = {16: (gap == 0, "dst_gap 0"),
             8: (gap == 1 and frac_gap == 0, "dst_gap 1 and dst_frac_gap 0"),
             32: (gap == 0 and (s == 1 or repeat == 1), "dst_gap 0 and src_stride 1")}
    ok, what = needs.get(bits, (False, "b8, b16 or b32 elements"))
    if not ok:
        shown = ", ".join(f"{n} {'run-time' if x is None else x}" for n, x in (
            ("src_stride", s), ("dst_gap", gap), ("dst_frac_gap", frac_gap)))
        raise PassOpError(op, f"writes its transposed squares where no LoadData2DParamsV2 window "
                              f"provably does (one window needs {what}; {shown})")
    if bits == 16:
        return [op.start_index, 0, 1, op.repeat_times, 1 if s == 0 else op.src_stride, 1]
    start = _scaled(w, op, op.start_index, 2)
    if bits == 8:
        return [start, 0, 2, op.repeat_times, 1 if s == 0 else _scaled(w, op, op.src_stride, 2), 1]
    stride = frac_gap + 1 if frac_gap is not None else w.insert(
        op, arith.AddiOp(op.dst_frac_gap, w.constant(op, 1))).results[0]
    return [start, 0, 1, _scaled(w, op, op.repeat_times, 2), 1, stride]


def _scaled(w: _Writer, at: Operation, value: SSAValue, factor: int) -> int | SSAValue:
    v = static_value(value)
    if v is not None:
        return v * factor
    return w.insert(at, arith.MuliOp(value, w.constant(at, factor))).results[0]


def _l1_bt(w: _Writer, op: pto.CopyL1BtOp) -> None:
    v = _check(w, op)
    values = {"src": v.tile(op, op.src, op.src_offset), "dst": v.tile(op, op.dst, op.dst_offset),
              "len_burst": v.i64(op, op.block_len), "count": v.i64(op, op.block_count),
              "src_gap": v.i64(op, op.src_gap), "dst_gap": v.i64(op, op.dst_gap)}
    v.emit(op, V.MteL1BtOp, values)


_MAD_UNIT_FLAG = {2: "check_only", 3: "check_and_set"}
_FIX_UNIT_FLAG = {2: "check_only", 3: "check_and_clear"}


def _mad(w: _Writer, op: pto.MmadOp) -> None:
    v = _check(w, op)
    if op.k_direction_align is not None:
        raise PassOpError(op, "has k_direction_align, which PTOAS's mad has no clause for")
    values = {"lhs": v.tile(op, op.lhs), "rhs": v.tile(op, op.rhs), "dst": v.tile(op, op.dst),
              "m": v.i64(op, op.m), "n": v.i64(op, op.n), "k": v.i64(op, op.k)}
    if op.bias is not None:
        cls, values["bias"] = V.MadBiasOp, v.tile(op, op.bias)
    else:
        cls = V.MadOp if op.init_zero else V.MadAccOp
    props: dict[str, Attribute] = {}
    flag = op.unit_flag.value.data if op.unit_flag is not None else 0
    if flag:
        props["unit_flag"] = StringAttr(_MAD_UNIT_FLAG[flag])
    if op.disable_gemv is not None:
        props["disable_gemv"] = UnitAttr()
    v.emit(op, cls, values, props)


_PRE_QUANT = {"f322f16": ("f32_f16", f16), "f322bf16": ("f32_bf16", bf16)}


def _acc_store(w: _Writer, op: pto.FixpipeCopyOp) -> None:
    v = _check(w, op)
    if op.scalar is not None or op.vector is not None:
        raise PassOpError(op, "takes a quantization scale, which mmair's VPTO reader does not "
                              "model (FIXPIPE pre-quant payloads other than f32 -> f16 / bf16)")
    to_gm = isinstance(op.dst.type, MemRefType)
    values = {"src": v.tile(op, op.src, op.src_offset),
              "dst": v.gm(op, op.dst) if to_gm else v.tile(op, op.dst),
              "m": v.i64(op, op.m_size), "n": v.i64(op, op.n_size),
              "src_stride": v.i64(op, op.src_stride), "dst_stride": v.i64(op, op.dst_stride)}
    if to_gm:
        cls = V.MteL0cGmOp
        values["sid"], values["l2_cache_ctrl"] = v.i64(op, 0), v.i64(op, 0)
    elif _space(op.dst) == "l1":
        cls = V.MteL0cL1Op
    else:
        cls = V.MteL0cUbOp
        values["sub_blockid"] = v.i64(op, 0)
    props: dict[str, Attribute] = {"layout": StringAttr(op.layout.data)}
    quant = op.quant.data
    if quant != "none":
        if quant not in _PRE_QUANT:
            raise PassOpError(op, f"quantizes with {quant}: mmair's VPTO reader models pre_quant "
                                  f"f32_f16 and f32_bf16 only")
        mode, payload_type = _PRE_QUANT[quant]
        one = w.insert(op, arith.ConstantOp(FloatAttr(1.0, payload_type)))
        values["quant_payload"], props["quant_mode"] = one.results[0], StringAttr(mode)
    if op.relu is not None:
        props["relu_mode"] = StringAttr("normal_relu")
    flag = op.unit_flag.value.data if op.unit_flag is not None else 0
    if flag:
        props["unit_flag"] = StringAttr(_FIX_UNIT_FLAG[flag])
    if op.layout.data == "nz2dn":
        values["loop0_src_stride"] = v.i64(op, op.src_nz_c0_stride)
    if op.channel_split is not None:
        values["split"] = v.i64(op, 1)
    if static_value(op.nd_num) != 1:  # loop3: ndNum matrices (nz2nd / nz2dn only)
        values.update(loop3_count=v.i64(op, op.nd_num),
                      loop3_src_stride=v.i64(op, op.src_nd_stride),
                      loop3_dst_stride=v.i64(op, op.dst_nd_stride))
    if op.atomic is not None:
        kind = element_name_or_none(op.dst.type.element_type)
        if kind not in ATOMIC_TYPES:
            raise PassOpError(op, f"stores atomically into {kind}: PTOAS's atomic(type = ...) is "
                                  f"one of {', '.join(ATOMIC_TYPES)}")
        props["atomic_type"], props["atomic_op"] = StringAttr(kind), StringAttr(op.atomic.data)
    v.emit(op, cls, values, props)


def _refused(w: _Writer, op: Operation) -> None:
    _check(w, op)
    what = {pto.Load2DGmOp: "LoadData GM -> L1 (VPTO has no load_gm_to_cbuf op)",
            pto.Load2DV2GmOp: "LoadData V2 GM -> L1 (VPTO has no load_gm_to_cbuf op)"}[type(op)]
    raise PassOpError(op, f"is {what}: no PTOAS VPTO spelling")


HANDLERS = {
    pto.CopyNd2NzOp: _frac, pto.CopyDn2NzOp: _frac, pto.CopyGmL1Op: _bursts,
    pto.Load2DOp: _l1_l0, pto.Load2DV2Op: _l1_l0, pto.CopyL1BtOp: _l1_bt, pto.MmadOp: _mad,
    pto.FixpipeCopyOp: _acc_store, pto.Load2DTransposeOp: _l1_l0, pto.Load2DGmOp: _refused,
    pto.Load2DV2GmOp: _refused,
}
"""mmair raw op class -> its VPTO writer (writer, op)."""

__all__ = ["A2_REFUSAL", "HANDLERS", "VptoWriter"]
