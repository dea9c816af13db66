"""The raw Fixpipe: L0C -> GM / L1 / UB with FixpipeParamsV220 / FixpipeParamsArch3510.

Quantization, ReLU, the NZ2ND / NZ2NZ / NZ2DN reorders, strides and the unit flag field by field,
checked per target (the a5 Arch3510 fields only on a5).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, UnitAttr, i64
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
)

from mmair.dialects.pto._verify import (
    Value,
    _check_atomic,
    _error,
    _fmt_set,
    _gm_memref,
    _memref_element,
    _tile_in,
    static_value,
    target_of,
)
from mmair.dialects.pto.fixpipe import FixpipeOp
from mmair.dialects.pto.raw_fields import PARAM_TRAITS, check_fields, offset_bytes
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa


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
    atomic = opt_prop_def(StringAttr)  # GM atomic mode, as `pto.fixpipe`'s

    traits = PARAM_TRAITS
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
                 unit_flag: int = 0, channel_split: bool = False,
                 atomic: str | None = None) -> None:
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
                "atomic": None if atomic is None else StringAttr(atomic),
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
        _check_atomic(self, target, "l0c", dst_space, dst_elem)
        fields = dict(isa_params.fixpipe_fields(target))
        fields.pop("src_nz_c0_stride", None)
        values = check_fields(self, fields)
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
        offset_bytes(self, "src", self.src_offset, src, isa.FIXPIPE_SRC_ALIGN)

