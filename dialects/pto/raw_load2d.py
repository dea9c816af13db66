"""The raw L1 -> L0A / L0B / BT moves: LoadData 2D, its transpose and V2 forms, and copy_cbuf_to_bt.

MTE1 moves whole 512-byte fractals from L1 into the cube's operand buffers: `pto.load_2d`
(LoadData2DParams: start index, repeats, strides, `if_transpose`), `pto.load_2d_transpose`
(LoadDataWithTranspose, into L0B), `pto.load_2d_v2` (the a5 LoadData2DParamsV2) and
`pto.copy_l1_bt` (DataCopy of a bias row into the bias table).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, UnitAttr
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
)

from mmair.dialects.pto._verify import (
    Value,
    _error,
    _fmt_set,
    _tile_in,
    check_bias_load_types,
    static_value,
    target_of,
)
from mmair.dialects.pto.raw_fields import (
    PARAM_TRAITS,
    check_fields,
    check_sid,
    offset_bytes,
    ordered,
)
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target


class _L1L0Base(IRDLOperation):
    """L1 -> L0A / L0B operands every LoadData form has, and their verifier."""

    MEMO_VERIFY: ClassVar[bool] = True
    FIELDS: ClassVar[dict[str, isa_params.Field]]

    src = operand_def(TileType)
    src_offset = operand_def(IndexType)
    dst = operand_def(TileType)
    dst_offset = operand_def(IndexType)

    traits = PARAM_TRAITS

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
        check_fields(self, self.FIELDS)
        offset_bytes(self, "src", self.src_offset, src, isa.LOAD2D_SRC_ALIGN)
        offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_DST_ALIGN)
        return src, dst


LOAD2D_FORMAT = (
    "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `start_index` $start_index "
    "`repeat_times` $repeat_times `src_stride` $src_stride `dst_gap` $dst_gap {tail} attr-dict "
    "`:` type($src) `,` type($dst)"
)


class _Load2DBase(_L1L0Base):
    """The LoadData2DParams operands both LoadData (V1) forms share."""

    start_index = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src_stride = operand_def(IndexType)
    dst_gap = operand_def(IndexType)

    def __init__(self, *operands: Value, properties: dict | None = None) -> None:
        names = ("src", "src_offset", "dst", "dst_offset", "start_index", "repeat_times",
                 "src_stride", "dst_gap", "dst_frac_gap")
        super().__init__(operands=ordered(type(self), dict(zip(names, operands, strict=False))),
                         properties=properties or {})


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
    assembly_format = LOAD2D_FORMAT.format(tail="(`if_transpose` $if_transpose^)?")

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
        check_sid(self, self.sid)
        if self.addr_mode is not None and self.addr_mode.value.data not in isa_params.LOAD2D_L1_ADDR_MODES:
            raise _error(self, f"requires addr_mode in {_fmt_set(isa_params.LOAD2D_L1_ADDR_MODES)} "
                               f"(addrMode 1 exists only on the GM -> L1 path, pto.load_2d_gm), got "
                               f"{self.addr_mode.value.data}")
        gap = static_value(self.dst_gap)
        if gap and not isa_params.load2d_dst_gap_effective(target):
            raise _error(self, f"dst_gap has no effect on target {target.name} (LoadData2DParams "
                               f"dstGap is ignored on Ascend 950), got {gap}")


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

    assembly_format = LOAD2D_FORMAT.format(tail="`dst_frac_gap` $dst_frac_gap")

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
        super().__init__(operands=ordered(type(self), values),
                         properties={"if_transpose": UnitAttr() if if_transpose else None})

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_v2_supported(target):
            raise _error(self, f"load_2d_v2 is not supported on target {target.name}")
        src, _dst = self._verify_common(target)
        check_sid(self, self.sid)
        if self.if_transpose is not None:
            field, multiple = isa_params.LOAD2D_V2_TRANSPOSE_MULTIPLE[src.element_bits]
            v = static_value(getattr(self, field))
            if v is not None and v % multiple:
                raise _error(self, f"if_transpose of b{src.element_bits} requires {field} to be a "
                                   f"multiple of {multiple}, got {v}")


@irdl_op_definition
class CopyL1BtOp(IRDLOperation):
    """DataCopy(dst[dst_offset], src[src_offset], DataCopyParams) with dst in the bias table (C2),
    the CCE `copy_cbuf_to_bt`: for i < block_count, burst i of block_len units (64 B; 32 B on a5)
    is read at i*(block_len*unit + src_gap*32) bytes of src and written at
    i*(block_len*unit + dst_gap*unit) bytes of dst (gaps end to start). The element type is kept
    (f32, s32: the Mmad bias types), or widened where the target's bias load converts (isa
    `bias_load_conversions`: f16 -> f32, and bf16 -> f32 on a5; the CCE convControl bit): a
    burst's block_len*unit source bytes then fill twice as many destination bytes."""

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

    traits = PARAM_TRAITS
    assembly_format = (
        "$src `[` $src_offset `]` `,` $dst `[` $dst_offset `]` `block_count` $block_count "
        "`block_len` $block_len `src_gap` $src_gap `dst_gap` $dst_gap attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(self, src: Value, src_offset: Value, dst: Value, dst_offset: Value,
                 block_count: Value, block_len: Value, src_gap: Value, dst_gap: Value) -> None:
        super().__init__(operands=[src, src_offset, dst, dst_offset, block_count, block_len,
                                   src_gap, dst_gap])

    def widening(self) -> tuple[str, str] | None:
        """(src, dst) element types where the load converts (convControl), else None."""
        src, dst = self.src.type, self.dst.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        return None if src.element_name == dst.element_name else (src.element_name,
                                                                    dst.element_name)

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
        check_bias_load_types(self, "src", src.element_name, dst.element_name, target)
        values = check_fields(self, dict(isa_params.L1_BT_FIELDS))
        offset_bytes(self, "src", self.src_offset, src, isa.L1_BT_SRC_ALIGN)
        offset_bytes(self, "dst", self.dst_offset, dst, isa.MMAD_BIAS_ALIGN)
        count, length, gap = values["block_count"], values["block_len"], values["dst_gap"]
        off = static_value(self.dst_offset)
        if None in (count, length, gap, off):
            return
        unit = isa_params.l1_bt_unit_bytes(target)
        burst = length * unit * dst.element_bits // src.element_bits
        end = off * dst.element_bits // 8 + count * burst + (count - 1) * gap * unit
        if end > dst.footprint_bytes():
            raise _error(self, f"requires the bursts inside the {dst.footprint_bytes()}-byte dst "
                               f"tile ({unit}-byte units on target {target.name}), they end at "
                               f"byte {end}")

