"""The raw GM -> L1 loads: DataCopy with Nd2NzParams / Dn2NzParams or DataCopyParams, and
LoadData from GM.

`pto.copy_nd2nz` / `pto.copy_dn2nz` are the MTE2 format-converting copies (ND or DN matrices in GM
to NZ fractals in L1, several matrices per call, free strides); `pto.load_2d_gm` and
`pto.load_2d_v2_gm` are LoadData's load_gm_to_cbuf forms (whole fractals, addrMode; the a5 2Dv2
form); `pto.copy_gm_l1` is the plain DataCopy (bursts of 32-byte blocks, bytes unchanged);
field ranges per target from `isa/ascend/params.py`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, UnitAttr, i64
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
    _gm_memref,
    _memref_element,
    _tile_in,
    static_value,
    target_of,
)
from mmair.dialects.pto.raw_fields import (
    PARAM_TRAITS,
    check_fields,
    check_sid,
    check_src_offset,
    gm_l1_load_operands,
    offset_bytes,
    ordered,
)
from mmair.dialects.pto.raw_load2d import LOAD2D_FORMAT
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target


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

    traits = PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, src: Value, dst: Value, dst_offset: Value, *params: Value,
                 small_c0: bool = False) -> None:
        assert len(params) == len(self.FIELDS)
        values = {"src": src, "dst": dst, "dst_offset": dst_offset, **dict(zip(self.FIELDS, params, strict=True))}
        super().__init__(operands=ordered(type(self), values),
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
        values = check_fields(self, self.fields(target))
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
        offset_bytes(self, "dst", self.dst_offset, dst, isa.ND2NZ_DST_ALIGN)


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


@irdl_op_definition
class CopyGmL1Op(IRDLOperation):
    """DataCopy(dst[dst_offset], src[src_offset], DataCopyParams) from GM to L1, the CCE
    `copy_gm_to_cbuf` on PIPE_MTE2: for i < block_count, the burst of block_len x 32 bytes at
    i*(block_len + src_gap)*32 bytes of src goes to i*(block_len + dst_gap)*32 bytes of dst
    (gaps end to start). Bytes are copied as they are: no layout change."""

    name = "pto.copy_gm_l1"
    MEMO_VERIFY: ClassVar[bool] = True

    src = operand_def(MemRefType)
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

    def verify_(self) -> None:
        src = _gm_memref(self, "src", self.src)
        dst = _tile_in(self, "dst", self.dst, ("l1",))
        elem = _memref_element(self, "src", src)
        if isa.element_bits(elem) != dst.element_bits:
            raise _error(self, f"requires src and dst element widths to match, got {elem} and "
                               f"{dst.element_name}")
        values = check_fields(self, dict(isa_params.GM_L1_FIELDS))
        check_src_offset(self, self.src_offset)
        offset_bytes(self, "dst", self.dst_offset, dst, isa.ND2NZ_DST_ALIGN)
        count, length, gap = values["block_count"], values["block_len"], values["dst_gap"]
        off = static_value(self.dst_offset)
        if None in (count, length, gap, off):
            return
        unit = isa_params.GM_L1_UNIT_BYTES
        end = off * dst.element_bits // 8 + (count * length + (count - 1) * gap) * unit
        if end > dst.footprint_bytes():
            raise _error(self, f"requires the bursts inside the {dst.footprint_bytes()}-byte dst "
                               f"tile, they end at byte {end}")


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

    traits = PARAM_TRAITS
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = LOAD2D_FORMAT.format(tail="")

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
        src, dst = gm_l1_load_operands(self, self.src, self.dst, target, isa_params.load2d_gm_types(target))
        values = check_fields(self, self.FIELDS)
        check_sid(self, self.sid)
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
        offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_GM_DST_ALIGN)
        off = static_value(self.dst_offset)
        if off is not None and repeat is not None and gap is not None:
            end = off * dst.element_bits // 8 + ((repeat - 1) * (gap + 1) + 1) * isa.FRACTAL_BYTES
            if end > dst.footprint_bytes():
                raise _error(self, f"requires the fractals inside the {dst.footprint_bytes()}-byte "
                                   f"dst tile, they end at byte {end}")
        check_src_offset(self, self.src_offset)


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

    traits = PARAM_TRAITS
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
        super().__init__(operands=ordered(type(self), values))

    def verify_(self) -> None:
        target = target_of(self)
        if not isa_params.load2d_v2_supported(target):
            raise _error(self, f"load_2d_v2_gm is not supported on target {target.name} "
                               f"(LoadData2DParamsV2 is Ascend 950 only)")
        src, dst = gm_l1_load_operands(self, self.src, self.dst, target, isa_params.load2d_v2_gm_types(target))
        check_fields(self, self.FIELDS)
        check_sid(self, self.sid)
        offset_bytes(self, "dst", self.dst_offset, dst, isa.LOAD2D_GM_DST_ALIGN)
        check_src_offset(self, self.src_offset)

