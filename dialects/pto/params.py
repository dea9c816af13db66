"""The cube instructions in their raw Ascend C parameter forms.

The tile-level ops (`mte_gm_l1`, `mte_l1_l0a/l0b`, `mad*`, `fixpipe`) say *what* moves, in the
tile's logical coordinates. These ops take the parameters of the Ascend C structs field by field
(`isa/ascend/params.py`: units, ranges per target), so every documented use of the instructions
can be written, including the ones the tile ops cannot say (several ND matrices, free strides,
re-reads with stride 0, fractal reorders, GEMV with an explicit `disable_gemv`):

    pto.copy_nd2nz      DataCopy(dst, src, Nd2NzParams)                   GM -> L1
    pto.load_2d         LoadData(dst, src, LoadData2DParams)              L1 -> L0A / L0B
    pto.load_2d_gm      LoadData(dst, src, LoadData2DParams) (load_gm_to_cbuf, addrMode)  GM -> L1
    pto.load_2d_v2_gm   LoadData(dst, src, LoadData2DParamsV2) (a5 load_gm_to_cbuf_2dv2)  GM -> L1
    pto.load_2d_transpose LoadDataWithTranspose(dst, src, LoadData2dTransposeParams)
    pto.copy_l1_bt      DataCopy(dst, src, DataCopyParams) (copy_cbuf_to_bt)   L1 -> BT
    pto.mmad            Mmad(dst, fm, filter[, bias], MmadParams)         L0A x L0B (+ BT) -> L0C
    pto.fixpipe_copy    Fixpipe(dst, src, FixpipeParamsV220 / FixpipeParamsArch3510)

Addresses are linear from the operand's start (plus an element offset `[%off]` where Ascend C
passes a sub-tensor `local[off]`), as the hardware sees them: the tile types only give the
buffers (space, element type, size); the layout inside is whatever the parameters make it.
Parameters are `index` operands (registers); static ones are checked against the struct's
ranges on the module's target, runtime ones by the executor. `pto-expand-params` lowers the
tile-level ops to these forms.

Packed 4-bit operands (s4 / int4b_t, e2m1 / fp4x2_e2m1_t; element 2i in the low nibble of byte i)
are moved as bytes: ND2NZ / DN2NZ are the b8 copies with their element fields counting bytes
("参数需要根据b8类型进行设置"), LoadData moves their 512-byte fractals, LoadDataWithTranspose
turns 64 x 64 squares of four 16 x 64 fractals (into L0B only), and Mmad reads the nibbles.
Element offsets `[%off]` of 4-bit tiles are even (byte boundaries).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, UnitAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    base,
    eq,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from mmair.dialects.pto._verify import (
    Value,
    _error,
    _fmt_set,
    _gm_memref,
    _memref_element,
    _tile_in,
    static_value,
    target_of,
)
from mmair.dialects.pto.fixpipe import FixpipeOp
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target


def _check_fields(op: Operation, fields: dict[str, isa_params.Field]) -> dict[str, int | None]:
    """Static values of the op's parameter operands named in `fields`, range-checked: a size
    field (0 = "not executed") rejects a static 0 (decision "zero sizes")."""
    found: dict[str, int | None] = {}
    for name, f in fields.items():
        value = getattr(op, name, None)
        v = static_value(value) if isinstance(value, SSAValue) else None
        found[name] = v
        if v is None:
            continue
        lo, hi = f.range
        if f.size and v == 0:
            raise _error(op, f"requires {name} ({f.c_name}) to be positive, got 0")
        if not lo <= v <= hi:
            raise _error(op, f"requires {name} ({f.c_name}) in [{lo}, {hi}], got {v}")
    return found


def _offset_bytes(op: Operation, role: str, value: SSAValue, tile: TileType, align: int) -> None:
    """A static element offset keeps the operand aligned (`align` bytes) and inside the tile."""
    v = static_value(value)
    if v is None:
        return
    if v < 0:
        raise _error(op, f"requires {role} offset >= 0, got {v}")
    nbytes = v * tile.element_bits // 8
    if (v * tile.element_bits) % 8 or nbytes % align:
        raise _error(op, f"requires {role} offset aligned to {align} bytes, got {v} elements")
    if nbytes >= tile.footprint_bytes():
        raise _error(
            op, f"requires {role} offset inside the {tile.footprint_bytes()}-byte tile, got {v}"
        )


def _check_sid(op: Operation, sid: IntegerAttr | None) -> None:
    """The optional `sid` property (the stream id of a load) is in the field's range."""
    if sid is not None and not 0 <= sid.value.data <= isa_params.SID_RANGE[1]:
        raise _error(op, f"requires sid in [0, {isa_params.SID_RANGE[1]}], got {sid.value.data}")


def _check_src_offset(op: Operation, offset: SSAValue) -> None:
    """A static GM source offset is not negative."""
    soff = static_value(offset)
    if soff is not None and soff < 0:
        raise _error(op, f"requires src offset >= 0, got {soff}")


def _gm_l1_load_operands(op: Operation, src_value: SSAValue, dst_value: SSAValue, target: Target,
                         legal: Collection[str]) -> tuple[MemRefType, TileType]:
    """The GM source and L1 destination of a GM -> L1 LoadData: the element type is one the target
    loads, and the same on both sides (LoadData copies fractals bit for bit)."""
    src = _gm_memref(op, "src", src_value)
    dst = _tile_in(op, "dst", dst_value, ("l1",))
    elem = _memref_element(op, "src", src)
    if dst.element_name not in legal:
        raise _error(op, f"requires element type in {_fmt_set(legal)} on target "
                         f"{target.name}, got {dst.element_name}")
    if elem != dst.element_name:
        raise _error(op, f"requires src element type {dst.element_name} (the dst type: "
                         f"LoadData copies fractals bit for bit), got {elem}")
    return src, dst


_PARAM_TRAITS = traits_def(MemoryReadEffect(), MemoryWriteEffect())


def operand_map(op: IRDLOperation, values) -> dict[str, object]:
    """The op's operands (or the interpreter's values of them) by their definition names: the
    raw-form ops share operand blocks through base classes, which puts a subclass's own operands
    first, so positions differ between ops while the struct field names do not."""
    return dict(zip((name for name, _ in type(op).get_irdl_definition().operands), values,
                    strict=True))


def _ordered(cls: type[IRDLOperation], values: dict[str, Value]) -> list[Value]:
    return [values[name] for name, _ in cls.get_irdl_definition().operands]


# ----------------------------------------------------------------------------------------------
# DataCopy GM -> L1 with ND2NZ / DN2NZ
# ----------------------------------------------------------------------------------------------


class _NzCopyBase(IRDLOperation):
    """The operands ND2NZ and DN2NZ share (the source D extent, row pitch and the destination NZ
    fields), the SmallC0 flag and the verifier; subclasses add the matrix count and stride under
    their struct's names."""

    MEMO_VERIFY: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[str, ...]]
    DN: ClassVar[bool]

    src = operand_def(MemRefType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)
    n_value = operand_def(IndexType)
    d_value = operand_def(IndexType)
    src_d_value = operand_def(IndexType)
    dst_nz_c0_stride = operand_def(IndexType)
    dst_nz_n_stride = operand_def(IndexType)
    dst_nz_matrix_stride = operand_def(IndexType)
    small_c0 = opt_prop_def(UnitAttr)

    traits = _PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, src: Value, dst: Value, dst_offset: Value, *params: Value,
                 small_c0: bool = False) -> None:
        assert len(params) == len(self.FIELDS)
        values = {"src": src, "dst": dst, "dst_offset": dst_offset, **dict(zip(self.FIELDS, params, strict=True))}
        super().__init__(operands=_ordered(type(self), values),
                         properties={"small_c0": UnitAttr() if small_c0 else None})

    def fields(self, target: Target) -> dict[str, isa_params.Field]:
        return dict(isa_params.DN2NZ_FIELDS if self.DN else isa_params.nd2nz_fields(target))

    def verify_(self) -> None:
        target = target_of(self)
        kind = "copy_dn2nz" if self.DN else "copy_nd2nz"
        if not (target.dn2nz if self.DN else target.nd2nz):
            raise _error(self, f"{kind} is not supported on target {target.name}")
        src = _gm_memref(self, "src", self.src)
        dst = _tile_in(self, "dst", self.dst, ("l1",))
        elem = _memref_element(self, "src", src)
        if dst.element_name not in target.nd2nz_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.nd2nz_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        if isa.element_bits(elem) != dst.element_bits:
            raise _error(self, f"requires src and dst element widths to match, got {elem} and "
                               f"{dst.element_name}")
        values = _check_fields(self, self.fields(target))
        n, multiple = values["n_value"], isa_params.DN2NZ_B4_N_MULTIPLE
        if self.DN and dst.element_bits < 8 and n is not None and n % multiple:
            raise _error(self, f"copy_dn2nz of 4-bit elements requires n_value (nValue) to be a "
                               f"multiple of {multiple} (Ascend C DataCopyGM2L1DN2NZImpl), got {n}")
        if self.small_c0 is not None:
            if not isa_params.small_c0_supported(target):
                raise _error(self, f"small_c0 (enableSmallC0) is not supported on target "
                                   f"{target.name}")
            d = values["d_value"]
            if d is not None and d > isa_params.SMALL_C0_MAX_D:
                raise _error(self, f"small_c0 requires d_value (dValue) <= "
                                   f"{isa_params.SMALL_C0_MAX_D}, got {d}")
        _offset_bytes(self, "dst", self.dst_offset, dst, isa.ND2NZ_DST_ALIGN)


_NZ_COPY_FORMAT = (
    "$src `,` $dst `[` $dst_offset `]` `{num}` ${num} `n_value` $n_value `d_value` $d_value "
    "`{stride}` ${stride} `src_d_value` $src_d_value "
    "`dst_nz_c0_stride` $dst_nz_c0_stride `dst_nz_n_stride` $dst_nz_n_stride "
    "`dst_nz_matrix_stride` $dst_nz_matrix_stride (`small_c0` $small_c0^)? attr-dict "
    "`:` type($src) `,` type($dst)"
)


@irdl_op_definition
class CopyNd2NzOp(_NzCopyBase):
    """DataCopy(dst[dst_offset], src, Nd2NzParams): for i < nd_num, n < n_value,
    d < ceil(d_value / c0) * c0 (c0 = 32 B / sizeof):
        dst[i*dst_nz_matrix_stride + (d//c0)*dst_nz_c0_stride*c0 + n*dst_nz_n_stride*c0 + d%c0]
          = d < d_value ? src[i*src_nd_matrix_stride + n*src_d_value + d] : 0.
    `small_c0` (a5 enableSmallC0, d_value <= 4): rows of 4 elements at n*4 (executor/ascend/raw_kernels.py).
    4-bit (s4, e2m1) data is copied as b8 ("参数需要根据b8类型进行设置"): d_value, src_d_value and the
    two matrix strides count bytes, two elements each."""

    name = "pto.copy_nd2nz"
    FIELDS: ClassVar[tuple[str, ...]] = tuple(isa_params.ND2NZ_FIELDS)
    DN: ClassVar[bool] = False

    nd_num = operand_def(IndexType)
    src_nd_matrix_stride = operand_def(IndexType)

    assembly_format = _NZ_COPY_FORMAT.format(num="nd_num", stride="src_nd_matrix_stride")


@irdl_op_definition
class CopyDn2NzOp(_NzCopyBase):
    """DataCopy(dst[dst_offset], src, Dn2NzParams) (a5): the source holds D rows of N columns, so
    src[i*src_dn_matrix_stride + d*src_d_value + n] goes where ND2NZ puts element (n, d)."""

    name = "pto.copy_dn2nz"
    FIELDS: ClassVar[tuple[str, ...]] = tuple(isa_params.DN2NZ_FIELDS)
    DN: ClassVar[bool] = True

    dn_num = operand_def(IndexType)
    src_dn_matrix_stride = operand_def(IndexType)

    assembly_format = _NZ_COPY_FORMAT.format(num="dn_num", stride="src_dn_matrix_stride")


# ----------------------------------------------------------------------------------------------
# LoadData 2D and LoadDataWithTranspose
# ----------------------------------------------------------------------------------------------


class _L1L0Base(IRDLOperation):
    """L1 -> L0A / L0B operands every LoadData form has, and their verifier."""

    MEMO_VERIFY: ClassVar[bool] = True
    FIELDS: ClassVar[dict[str, isa_params.Field]]

    src = operand_def(TileType)
    src_offset = operand_def(IndexType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)

    traits = _PARAM_TRAITS

    def _verify_common(self, target: Target) -> tuple[TileType, TileType]:
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, ("l0a", "l0b"))
        if src.element_bits != dst.element_bits:
            raise _error(self, f"requires src and dst element widths to match, got "
                               f"{src.element_name} and {dst.element_name}")
        if dst.element_name not in target.load2d_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.load2d_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        _check_fields(self, self.FIELDS)
        _offset_bytes(self, "src", self.src_offset, src, isa.LOAD2D_SRC_ALIGN)
        _offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_DST_ALIGN)
        return src, dst


class _Load2DBase(_L1L0Base):
    """The LoadData2DParams operands both LoadData (V1) forms share."""

    start_index = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_gap = operand_def(IndexType)

    def __init__(self, *operands: Value, properties: dict | None = None) -> None:
        names = ("src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times",
                 "src_stride", "dst_gap", "dst_frac_gap")
        super().__init__(operands=_ordered(type(self), dict(zip(names, operands, strict=False))),
                         properties=properties or {})


_LOAD2D_FORMAT = (
    "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `start_index` $start_index "
    "`repeat_times` $repeat_times `src_stride` $src_stride `dst_gap` $dst_gap {tail} attr-dict "
    "`:` type($src) `,` type($dst)"
)


@irdl_op_definition
class Load2DOp(_Load2DBase):
    """LoadData(dst[dst_offset], src[src_offset], LoadData2DParams): for i < repeat_times the 512-B
    fractal (start_index + src_stride*i) goes to fractal slot (dst_gap + 1)*i; `if_transpose`
    transposes each 16 x 16 b16 fractal. `sid` (u8) is deprecated and not processed; `addr_mode`
    1 (decrementing source index) exists only on the GM -> L1 path, so L1 -> L0 takes 0."""

    name = "pto.load_2d"
    FIELDS: ClassVar[dict[str, isa_params.Field]] = dict(isa_params.LOAD2D_FIELDS)

    if_transpose = opt_prop_def(UnitAttr)
    sid = opt_prop_def(IntegerAttr)
    addr_mode = opt_prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _LOAD2D_FORMAT.format(tail="(`if_transpose` $if_transpose^)?")

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 start_index: Value, repeat_times: Value, src_stride: Value, dst_gap: Value,
                 if_transpose: bool = False) -> None:
        super().__init__(src, src_offset, dst, dst_offset, start_index, repeat_times, src_stride,
                         dst_gap, properties={"if_transpose": UnitAttr() if if_transpose else None})

    def verify_(self) -> None:
        target = target_of(self)
        src, _dst = self._verify_common(target)
        if self.if_transpose is not None and src.element_bits != 16:
            raise _error(self, f"if_transpose requires b16 elements, got {src.element_name}")
        _check_sid(self, self.sid)
        if self.addr_mode is not None and self.addr_mode.value.data not in isa_params.LOAD2D_L1_ADDR_MODES:
            raise _error(self, f"requires addr_mode in {_fmt_set(isa_params.LOAD2D_L1_ADDR_MODES)} "
                               f"(addrMode 1 exists only on the GM -> L1 path, pto.load_2d_gm), got "
                               f"{self.addr_mode.value.data}")
        gap = static_value(self.dst_gap)
        if gap and not isa_params.load2d_dst_gap_effective(target):
            raise _error(self, f"dst_gap has no effect on target {target.name} (LoadData2DParams "
                               f"dstGap is ignored on Ascend 950), got {gap}")


@irdl_op_definition
class Load2DGmOp(IRDLOperation):
    """LoadData(dst[dst_offset], src[src_offset], LoadData2DParams) from GM to L1 (A1/B1), the CCE
    `load_gm_to_cbuf` on PIPE_MTE2: for i < repeat_times the 512-B fractal
    (start_index + src_stride*i), or with `addr_mode` 1 (dec) (start_index - src_stride*i), of
    the GM source goes to fractal slot (dst_gap + 1)*i of L1. No transpose on this path. `sid`
    is reserved (range-checked, not processed). Not on Ascend 950 (`isa_params.load2d_gm_supported`)."""

    name = "pto.load_2d_gm"
    MEMO_VERIFY: ClassVar[bool] = True
    FIELDS: ClassVar[dict[str, isa_params.Field]] = dict(isa_params.LOAD2D_GM_FIELDS)

    src = operand_def(MemRefType)
    src_offset = operand_def(IndexType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)
    start_index = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_gap = operand_def(IndexType)
    sid = opt_prop_def(IntegerAttr)
    addr_mode = opt_prop_def(IntegerAttr)

    traits = _PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = _LOAD2D_FORMAT.format(tail="")

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 start_index: Value, repeat_times: Value, src_stride: Value, dst_gap: Value,
                 addr_mode: int = 0) -> None:
        super().__init__(
            operands=[src, src_offset, dst, dst_offset, start_index, repeat_times, src_stride,
                      dst_gap],
            properties={"addr_mode": IntegerAttr(addr_mode, i64) if addr_mode else None})

    @property
    def decrements(self) -> bool:
        """addrMode 1: the source fractal index goes down by src_stride per repeat."""
        return self.addr_mode is not None and self.addr_mode.value.data == 1

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_gm_supported(target):
            raise _error(self, f"load_2d_gm is not supported on target {target.name} (Ascend 950 "
                               f"loads GM -> L1 with LoadData2DParamsV2)")
        src, dst = _gm_l1_load_operands(self, self.src, self.dst, target, isa_params.load2d_gm_types(target))
        values = _check_fields(self, self.FIELDS)
        _check_sid(self, self.sid)
        modes = isa_params.load2d_gm_addr_modes(target)
        if self.addr_mode is not None and self.addr_mode.value.data not in modes:
            raise _error(self, f"requires addr_mode in {_fmt_set(modes)} on target {target.name}, "
                               f"got {self.addr_mode.value.data}")
        gap = values["dst_gap"]
        if gap and not isa_params.load2d_gm_dst_gap_supported(target):
            raise _error(self, f"requires dst_gap 0 on target {target.name} (no dstGap on the "
                               f"GM -> L1 LoadData of the training series), got {gap}")
        start, repeat, stride = values["start_index"], values["repeat_times"], values["src_stride"]
        if self.decrements and start is not None and repeat is not None and stride is not None:
            lowest = stride * (repeat - 1)  # the last repeat reads fractal start - lowest
            if start < lowest:
                raise _error(self, f"requires start_index >= src_stride * (repeat_times - 1) = "
                                   f"{lowest} with addr_mode 1 (the source fractal index "
                                   f"decreases), got {start}")
        _offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_GM_DST_ALIGN)
        off = static_value(self.dst_offset)
        if off is not None and repeat is not None and gap is not None:
            end = off * dst.element_bits // 8 + ((repeat - 1) * (gap + 1) + 1) * isa.FRACTAL_BYTES
            if end > dst.footprint_bytes():
                raise _error(self, f"requires the fractals inside the {dst.footprint_bytes()}-byte "
                                   f"dst tile, they end at byte {end}")
        _check_src_offset(self, self.src_offset)


@irdl_op_definition
class Load2DTransposeOp(_Load2DBase):
    """LoadDataWithTranspose(dst[dst_offset], src[src_offset], LoadData2dTransposeParams): per
    iteration one square block (b8 32 x 32 of two fractals, b16 16 x 16, b32 16 x 16 of two 16 x 8
    fractals, b4 64 x 64 of four 16 x 64 fractals, into L0B only) at start_index + src_stride*i
    squares is transposed into fractals at (dst_gap + 1)*i and, for each further one,
    dst_frac_gap + 1 fractals later. `addr_mode` (LoadData2dTransposeParams.addrMode) takes 0
    only: the Ascend C a2 implementation (dav_c220) passes inc (docs/pto-raw-params.md, §3)."""

    name = "pto.load_2d_transpose"
    FIELDS: ClassVar[dict[str, isa_params.Field]] = dict(isa_params.LOAD2D_TRANSPOSE_FIELDS)

    dst_frac_gap = operand_def(IndexType)
    addr_mode = opt_prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)

    assembly_format = _LOAD2D_FORMAT.format(tail="`dst_frac_gap` $dst_frac_gap")

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 start_index: Value, repeat_times: Value, src_stride: Value, dst_gap: Value,
                 dst_frac_gap: Value) -> None:
        super().__init__(src, src_offset, dst, dst_offset, start_index, repeat_times, src_stride,
                         dst_gap, dst_frac_gap)

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_transpose_supported(target):
            raise _error(self, f"load_2d_transpose is not supported on target {target.name}")
        if self.addr_mode is not None and self.addr_mode.value.data not in isa_params.LOAD2D_L1_ADDR_MODES:
            raise _error(self, f"requires addr_mode in {_fmt_set(isa_params.LOAD2D_L1_ADDR_MODES)} "
                               f"(the Ascend C a2 implementation of "
                               f"LoadDataWithTranspose issues inc only), got {self.addr_mode.value.data}")
        src, dst = self._verify_common(target)
        widths = isa_params.load2d_transpose_bits(target, dst.space_name)
        if src.element_bits not in widths:
            raise _error(self, f"requires element widths in {_fmt_set(widths)} for a "
                               f"{dst.space_name} destination on target {target.name}, got "
                               f"{src.element_name}")


@irdl_op_definition
class Load2DV2Op(_L1L0Base):
    """LoadData(dst[dst_offset], src[src_offset], LoadData2DParamsV2) (a5): the window of m_step x
    k_step fractals of the Nz source starting at fractal (k_start_position * src_stride +
    m_start_position) goes to fractal (j * dst_stride + i); with `if_transpose` the window
    [m_step*16, k_step*C0] is transposed as a whole and written Nz (executor/ascend/raw_kernels.py).
    `sid` is the struct's reserved field: "Ascend 950 does not process it"."""

    name = "pto.load_2d_v2"
    FIELDS: ClassVar[dict[str, isa_params.Field]] = dict(isa_params.LOAD2D_V2_FIELDS)

    m_start_position = operand_def(IndexType)
    k_start_position = operand_def(IndexType)
    m_step = operand_def(IndexType)
    k_step = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    if_transpose = opt_prop_def(UnitAttr)
    sid = opt_prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `m_start_position` $m_start_position "
        "`k_start_position` $k_start_position `m_step` $m_step `k_step` $k_step `src_stride` "
        "$src_stride `dst_stride` $dst_stride (`if_transpose` $if_transpose^)? attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 *params: Value, if_transpose: bool = False) -> None:
        values = {"src": src, "src_offset": src_offset, "dst": dst, "dst_offset": dst_offset,
                  **dict(zip(self.FIELDS, params, strict=True))}
        super().__init__(operands=_ordered(type(self), values),
                         properties={"if_transpose": UnitAttr() if if_transpose else None})

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_v2_supported(target):
            raise _error(self, f"load_2d_v2 is not supported on target {target.name}")
        src, _dst = self._verify_common(target)
        _check_sid(self, self.sid)
        if self.if_transpose is not None:
            field, multiple = isa_params.LOAD2D_V2_TRANSPOSE_MULTIPLE[src.element_bits]
            v = static_value(getattr(self, field))
            if v is not None and v % multiple:
                raise _error(self, f"if_transpose of b{src.element_bits} requires {field} to be a "
                                   f"multiple of {multiple}, got {v}")


@irdl_op_definition
class Load2DV2GmOp(IRDLOperation):
    """LoadData(dst[dst_offset], src[src_offset], LoadData2DParamsV2) from GM to L1 (Ascend 950, CCE
    `load_gm_to_cbuf_2dv2`, PIPE_MTE2): the window of m_step x k_step 512-B fractals of the Nz GM
    source starting at fractal (k_start_position * src_stride + m_start_position), fractal (i, j)
    at (k_start_position + j) * src_stride + m_start_position + i, goes to L1 fractal
    (j * dst_stride + i). No transpose on this path; `sid` is reserved."""

    name = "pto.load_2d_v2_gm"
    MEMO_VERIFY: ClassVar[bool] = True
    FIELDS: ClassVar[dict[str, isa_params.Field]] = dict(isa_params.LOAD2D_V2_GM_FIELDS)

    src = operand_def(MemRefType)
    src_offset = operand_def(IndexType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)
    m_start_position = operand_def(IndexType)
    k_start_position = operand_def(IndexType)
    m_step = operand_def(IndexType)
    k_step = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    sid = opt_prop_def(IntegerAttr)

    traits = _PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `m_start_position` $m_start_position "
        "`k_start_position` $k_start_position `m_step` $m_step `k_step` $k_step `src_stride` "
        "$src_stride `dst_stride` $dst_stride attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 *params: Value) -> None:
        values = {"src": src, "src_offset": src_offset, "dst": dst, "dst_offset": dst_offset,
                  **dict(zip(self.FIELDS, params, strict=True))}
        super().__init__(operands=_ordered(type(self), values))

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_v2_supported(target):
            raise _error(self, f"load_2d_v2_gm is not supported on target {target.name} "
                               f"(LoadData2DParamsV2 is Ascend 950 only)")
        src, dst = _gm_l1_load_operands(self, self.src, self.dst, target, isa_params.load2d_v2_gm_types(target))
        _check_fields(self, self.FIELDS)
        _check_sid(self, self.sid)
        _offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_GM_DST_ALIGN)
        _check_src_offset(self, self.src_offset)


# ----------------------------------------------------------------------------------------------
# DataCopy L1 -> BiasTable
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class CopyL1BtOp(IRDLOperation):
    """DataCopy(dst[dst_offset], src[src_offset], DataCopyParams) with dst in the bias table (C2),
    the CCE `copy_cbuf_to_bt`: for i < block_count, burst i of block_len units (64 B; 32 B on a5)
    is read at i*(block_len*unit + src_gap*32) bytes of src and written at
    i*(block_len*unit + dst_gap*unit) bytes of dst (gaps end to start). The element type is kept
    (f32, s32: the Mmad bias types); the f16 -> f32 conversion (convControl) is not modelled."""

    name = "pto.copy_l1_bt"
    MEMO_VERIFY: ClassVar[bool] = True

    src = operand_def(TileType)
    src_offset = operand_def(IndexType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)
    block_count = operand_def(IndexType)
    block_len = operand_def(IndexType)
    src_gap = operand_def(IndexType)
    dst_gap = operand_def(IndexType)

    traits = _PARAM_TRAITS
    assembly_format = (
        "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `block_count` $block_count "
        "`block_len` $block_len `src_gap` $src_gap `dst_gap` $dst_gap attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 block_count: Value, block_len: Value, src_gap: Value, dst_gap: Value) -> None:
        super().__init__(operands=[src, src_offset, dst, dst_offset, block_count, block_len,
                                   src_gap, dst_gap])

    def verify_(self) -> None:
        target = target_of(self)
        if not target.mmad_bias:
            raise _error(self, f"copy_l1_bt is not supported on target {target.name} (no bias "
                               f"table)")
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, ("bt",))
        bias_types = {d for _a, _b, d in target.mmad_bias_types}
        if dst.element_name not in bias_types:
            raise _error(self, f"requires dst element type in {_fmt_set(bias_types)} (the bias "
                               f"types) on target {target.name}, got {dst.element_name}")
        if src.element_name != dst.element_name:
            raise _error(self, f"requires src element type {dst.element_name} (the dst type; the "
                               f"convControl conversion is not modelled), got {src.element_name}")
        values = _check_fields(self, dict(isa_params.L1_BT_FIELDS))
        _offset_bytes(self, "src", self.src_offset, src, isa.L1_BT_SRC_ALIGN)
        _offset_bytes(self, "dst", self.dst_offset, dst, isa.MMAD_BIAS_ALIGN)
        count, length, gap = values["block_count"], values["block_len"], values["dst_gap"]
        off = static_value(self.dst_offset)
        if None in (count, length, gap, off):
            return
        unit = isa_params.l1_bt_unit_bytes(target)
        end = off * dst.element_bits // 8 + count * length * unit + (count - 1) * gap * unit
        if end > dst.footprint_bytes():
            raise _error(self, f"requires the bursts inside the {dst.footprint_bytes()}-byte dst "
                               f"tile ({unit}-byte units on target {target.name}), they end at "
                               f"byte {end}")


# ----------------------------------------------------------------------------------------------
# Mmad
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class MmadOp(IRDLOperation):
    """Mmad(dst, fm, filter[, bias], MmadParams). L0A is read as Zz (Nz on a5) with
    ceil(m/16) x ceil(k/K0) fractals, or as an nd vector when the GEMV rule applies (m = 1 and no
    `disable_gemv`); L0B as Zn (ceil(k/K0) x ceil(n/16)); L0C written as Nz (ceil(m/16) rows of
    fractals). `cmatrix_init_val` (default true): C = A x B; false: C += A x B from L0C
    (`cmatrix_source` false) or C = A x B + bias from BT (`cmatrix_source` true, with the bias
    operand). `unit_flag` (0, 2, 3) is the Mmad/Fixpipe fine-grained handshake (ordering only);
    `k_direction_align` pads an f32 K to 16 (a2/a3)."""

    name = "pto.mmad"
    MEMO_VERIFY: ClassVar[bool] = True

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    bias = opt_operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)
    unit_flag = opt_prop_def(IntegerAttr)
    cmatrix_init_val = opt_prop_def(IntegerAttr)  # bool; absent = true (the struct default)
    cmatrix_source = opt_prop_def(UnitAttr)
    k_direction_align = opt_prop_def(UnitAttr)
    disable_gemv = opt_prop_def(UnitAttr)

    traits = _PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$lhs `,` $rhs `,` $dst (`bias` $bias^ `:` type($bias))? `,` $m `,` $n `,` $k attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value, *,
                 bias: Value | None = None, init_zero: bool = True, unit_flag: int = 0,
                 k_direction_align: bool = False, disable_gemv: bool = False) -> None:
        super().__init__(
            operands=[lhs, rhs, dst, [] if bias is None else [bias], m, n, k],
            properties={
                "unit_flag": IntegerAttr(unit_flag, i64) if unit_flag else None,
                "cmatrix_init_val": None if init_zero or bias is not None
                else IntegerAttr(0, 1),
                "cmatrix_source": UnitAttr() if bias is not None else None,
                "k_direction_align": UnitAttr() if k_direction_align else None,
                "disable_gemv": UnitAttr() if disable_gemv else None,
            },
        )

    @property
    def init_zero(self) -> bool:
        return self.cmatrix_init_val is None or bool(self.cmatrix_init_val.value.data)

    def verify_(self) -> None:
        target = target_of(self)
        lhs = _tile_in(self, "lhs", self.lhs, ("l0a",))
        rhs = _tile_in(self, "rhs", self.rhs, ("l0b",))
        dst = _tile_in(self, "dst", self.dst, ("l0c",))
        combo = (lhs.element_name, rhs.element_name, dst.element_name)
        if combo not in target.mmad_types:
            raise _error(self, f"unsupported element type combination ({combo[0]}, {combo[1]}) "
                               f"-> {combo[2]} on target {target.name}")
        _check_fields(self, dict(isa_params.MMAD_FIELDS))
        if self.unit_flag is not None:
            uf = self.unit_flag.value.data
            if uf not in isa_params.MMAD_UNIT_FLAG_VALUES:
                raise _error(self, f"requires unit_flag in {_fmt_set(isa_params.MMAD_UNIT_FLAG_VALUES)}"
                                   f", got {uf}")
            if uf and not target.unit_flag:
                raise _error(self, f"unit_flag is not supported on target {target.name}")
        if (self.cmatrix_source is not None) != (self.bias is not None):
            raise _error(self, "requires a bias operand in bt exactly when cmatrix_source is set")
        if self.bias is not None:
            if not target.mmad_bias:
                raise _error(self, f"cmatrix_source (bias) is not supported on target {target.name}")
            bias = _tile_in(self, "bias", self.bias, ("bt",))
            if bias.element_name != dst.element_name:
                raise _error(self, f"requires bias element type {dst.element_name}, got "
                                   f"{bias.element_name}")
            if self.cmatrix_init_val is not None and not self.init_zero:
                raise _error(self, "cmatrix_init_val = false takes C from L0C, not from the bias")
        if self.k_direction_align is not None:
            if not target.k_direction_align:
                raise _error(self, f"k_direction_align is not supported on target {target.name}")
            if lhs.element_name != "f32":
                raise _error(self, f"k_direction_align requires f32 operands, got {lhs.element_name}")
        if self.disable_gemv is not None and not target.gemv_disable:
            raise _error(self, f"disable_gemv is not supported on target {target.name}")


# ----------------------------------------------------------------------------------------------
# Fixpipe
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class FixpipeCopyOp(IRDLOperation):
    """Fixpipe(dst, src[src_offset], FixpipeParamsV220 / FixpipeParamsArch3510). With channel
    c < n_size, row r < m_size, matrix i < nd_num (srcStride / srcNdStride in C0_Size = 16
    L0C elements):
      nz2nd: dst[i*dst_nd_stride + r*dst_stride + c] = src[i*16*src_nd_stride + (c//16)*16*src_stride + 16r + c%16]
      nz2nz: dst[(c//16)*dst_stride*U + 16r + c%16]  (U = 32 B on V220, 1 element on a5)
      nz2dn: dst[i*dst_nd_stride + c*dst_stride + r] = src[i*16*src_nd_stride + (c//16)*16*src_stride
             + 16r*src_nz_c0_stride + c%16]   (a5)
    converted by `quant` / `relu` as `pto.fixpipe`."""

    name = "pto.fixpipe_copy"
    MEMO_VERIFY: ClassVar[bool] = True

    src = operand_def(TileType)
    src_offset = operand_def(IndexType)
    dst = operand_def(base(MemRefType) | base(TileType))
    n_size = operand_def(IndexType)
    m_size = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_stride = operand_def(IndexType)
    nd_num = operand_def(IndexType)
    src_nd_stride = operand_def(IndexType)
    dst_nd_stride = operand_def(IndexType)
    src_nz_c0_stride = opt_operand_def(IndexType)
    scalar = opt_operand_def(eq(i64))
    vector = opt_operand_def(TileType)

    layout = prop_def(StringAttr, default_value=StringAttr("nz2nd"))
    quant = prop_def(StringAttr, default_value=StringAttr("none"))
    relu = opt_prop_def(UnitAttr)
    unit_flag = opt_prop_def(IntegerAttr)
    channel_split = opt_prop_def(UnitAttr)

    traits = _PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `[` $src_offset `]` `,` $dst `n_size` $n_size `m_size` $m_size `src_stride` "
        "$src_stride `dst_stride` $dst_stride `nd_num` $nd_num `src_nd_stride` $src_nd_stride "
        "`dst_nd_stride` $dst_nd_stride (`src_nz_c0_stride` $src_nz_c0_stride^)? "
        "(`scalar` $scalar^)? (`vector` $vector^ `:` type($vector))? attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(self, src: Value, src_offset: Value, dst: Value, n_size: Value, m_size: Value,
                 src_stride: Value, dst_stride: Value, nd_num: Value, src_nd_stride: Value,
                 dst_nd_stride: Value, *, src_nz_c0_stride: Value | None = None,
                 layout: str = "nz2nd", quant: str = "none", relu: bool = False,
                 scalar: Value | None = None, vector: Value | None = None,
                 unit_flag: int = 0, channel_split: bool = False) -> None:
        opt = [] if src_nz_c0_stride is None else [src_nz_c0_stride]
        super().__init__(
            operands=[src, src_offset, dst, n_size, m_size, src_stride, dst_stride, nd_num,
                      src_nd_stride, dst_nd_stride, opt, [] if scalar is None else [scalar],
                      [] if vector is None else [vector]],
            properties={
                "layout": StringAttr(layout),
                "quant": StringAttr(quant),
                "relu": UnitAttr() if relu else None,
                "unit_flag": IntegerAttr(unit_flag, i64) if unit_flag else None,
                "channel_split": UnitAttr() if channel_split else None,
            },
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.has_fixpipe:
            raise _error(self, f"fixpipe is not supported on target {target.name}")
        src = _tile_in(self, "src", self.src, ("l0c",))
        if src.element_name not in isa.FIXPIPE_SRC_TYPES:
            raise _error(self, f"requires src element type in {_fmt_set(isa.FIXPIPE_SRC_TYPES)}, "
                               f"got {src.element_name}")
        layout = self.layout.data
        if layout not in isa.FIXPIPE_LAYOUTS:
            raise _error(self, f"requires layout in {_fmt_set(isa.FIXPIPE_LAYOUTS)}, got {layout}")
        if layout == "nz2dn" and not target.nz2dn:
            raise _error(self, f"nz2dn is not supported on target {target.name}")
        if (self.src_nz_c0_stride is not None) != (layout == "nz2dn"):
            raise _error(self, "requires src_nz_c0_stride exactly with layout nz2dn")
        if isinstance(self.dst.type, MemRefType):
            _gm_memref(self, "dst", self.dst)
            dst_space, dst_elem = "gm", _memref_element(self, "dst", self.dst.type)
        else:
            dst_tile = _tile_in(self, "dst", self.dst, ("l1", "ub"))
            dst_space, dst_elem = dst_tile.space_name, dst_tile.element_name
        if dst_space not in target.fixpipe_destinations:
            raise _error(self, f"fixpipe to {dst_space} is not supported on target {target.name}")
        pairs = target.fixpipe_types.get(dst_space, frozenset())
        if (src.element_name, dst_elem) not in pairs:
            raise _error(self, f"requires (src, dst) element types in "
                               f"{_fmt_set(f'({a}, {b})' for a, b in pairs)}, got "
                               f"({src.element_name}, {dst_elem})")
        FixpipeOp._verify_quant(self, target, dst_space, src.element_name, dst_elem)  # type: ignore[arg-type]
        fields = dict(isa_params.fixpipe_fields(target))
        fields.pop("src_nz_c0_stride", None)
        values = _check_fields(self, fields)
        m = values["m_size"]
        if layout != "nz2nz" and m is not None and m > isa_params.FIXPIPE_ND_M_MAX:
            raise _error(self, f"requires m_size in [1, {isa_params.FIXPIPE_ND_M_MAX}] for {layout}, "
                               f"got {m}")
        n = values["n_size"]
        split = self.channel_split is not None
        if split and not (layout == "nz2nz" and src.element_name == dst_elem == "f32"):
            raise _error(self, "channel split requires f32 source and destination with nz2nz")
        if split and dst_space != isa_params.FIXPIPE_CHANNEL_SPLIT_DST:
            raise _error(self, f"channel split requires a {isa_params.FIXPIPE_CHANNEL_SPLIT_DST} "
                               f"destination, got {dst_space}")
        if split and self.unit_flag is not None and self.unit_flag.value.data:
            raise _error(self, f"channel split requires unit_flag 0, got {self.unit_flag.value.data}")
        # Decision "NZ2ND with n not a multiple of 16": only NZ output moves whole 16-column
        # fractals; NZ2ND / NZ2DN write the columns c < n_size (docs/pto-raw-params.md).
        multiple = isa.FIXPIPE_N_SIZE_MULTIPLE_CHANNEL_SPLIT if split else isa.FIXPIPE_N_SIZE_MULTIPLE
        if layout == "nz2nz" and n is not None and n % multiple:
            raise _error(self, f"requires n_size to be a multiple of {multiple} for nz2nz, got {n}")
        if self.src_nz_c0_stride is not None:
            v = static_value(self.src_nz_c0_stride)
            if v is not None and not 1 <= v <= 65535:
                raise _error(self, f"requires src_nz_c0_stride (srcNzC0Stride) in [1, 65535], got {v}")
        if self.unit_flag is not None:
            uf = self.unit_flag.value.data
            if uf not in isa_params.MMAD_UNIT_FLAG_VALUES or (uf and not target.unit_flag):
                raise _error(self, f"requires unit_flag in [0, 2, 3] on a target with unitFlag, "
                                   f"got {uf} on {target.name}")
        _offset_bytes(self, "src", self.src_offset, src, isa.FIXPIPE_SRC_ALIGN)


RAW_OPS: tuple[type[IRDLOperation], ...] = (
    CopyNd2NzOp, CopyDn2NzOp, Load2DOp, Load2DGmOp, Load2DTransposeOp, Load2DV2Op, Load2DV2GmOp,
    MmadOp, FixpipeCopyOp,
)
