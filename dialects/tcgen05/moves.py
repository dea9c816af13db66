"""TMEM data movement: `ld`, `st`, `wait_ld`, `wait_st`, `cp`, `shift`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    I32,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    MemoryReadEffect,
    MemoryWriteEffect,
)

from mmair.dialects.tcgen05._verify import (
    _check_cta_group,
    _error,
    _target_of,
)
from mmair.dialects.tcgen05.types import (
    TMEM,
    _in_space,
)
from mmair.isa.tcgen05 import rules, tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError


def _static_2d(op: Operation, name: str, type_: Attribute) -> tuple[int, int]:
    if not isinstance(type_, MemRefType) or len(type_.get_shape()) != 2 or any(
        d < 0 for d in type_.get_shape()
    ):
        raise _error(op, f"requires {name} to be a static 2-D memref, got {type_}")
    rows, cols = type_.get_shape()
    return rows, cols


def _check_b32(op: Operation, name: str, type_: MemRefType, packed: bool = False) -> int:
    """The element bits of a TMEM operand or register memref: 32, or 16 with `.pack::16b` /
    `.unpack::16b` (a 16-bit TMEM operand is a D layout, one value in the low half of each
    cell; 16-bit registers are the halves of the b32 registers, the low half first)."""
    bits = getattr(type_.element_type, "bitwidth", None)
    if bits == 32 or (packed and bits == 16):
        return bits
    pack = "pack" if isinstance(op, LdOp) else "unpack"
    if packed:
        raise _error(op, f"requires {name} of 32-bit or 16-bit elements (b32 registers / TMEM "
                         f"cells, or their 16-bit halves with {pack}), got {type_.element_type}")
    raise _error(op, f"requires {name} of 32-bit elements (b32 registers / TMEM cells; 16-bit "
                     f"only with {pack}), got {type_.element_type}")


def _verify_ld_st(op: LdOp | StOp, tmem_type: Attribute, regs_type: Attribute) -> int:
    """Shape, repetition count, warp, lane and column of a tcgen05.ld/st (R33)."""
    shape, num = op.shape.data, op.num.value.data
    try:
        regs = rules.check_ld_st(shape, num, lane=op.lane.value.data, warp=op.warp.value.data)
    except DescriptorError as err:
        raise _error(op, str(err)) from err
    if not _in_space(tmem_type, TMEM):
        raise _error(op, f"requires a tensor-memory operand (a memref in "
                         f"#tcgen05.space<tmem>), got {tmem_type}")
    rows, cols = _static_2d(op, "the TMEM operand", tmem_type)
    split = 0 if op.split is None else op.split.value.data
    if op.split is not None and shape != "16x32bx2":
        raise _error(op, f"requires .16x32bx2 for split (immHalfSplitoff), got .{shape}")
    if split < 0:
        raise _error(op, f"requires split (immHalfSplitoff) >= 0, got {split}")
    packed = (op.pack if isinstance(op, LdOp) else op.unpack) is not None
    lanes = tmem_moves.LD_ST_SHAPES[shape][0]
    columns = max(tmem_moves.ld_st_columns(shape, num) * (2 if packed else 1),
                  tmem_moves.ld_st_extent(shape, num, split, packed)[1])
    lane, column = op.lane.value.data, op.column.value.data
    if lane + lanes > rows or column < 0 or column + columns > cols:
        raise _error(op, f"requires lanes {lane}..{lane + lanes - 1} and columns {column}.."
                         f"{column + columns - 1} inside the TMEM operand {rows}x{cols}")
    assert isinstance(regs_type, MemRefType)
    _check_b32(op, "the TMEM operand", tmem_type, packed)  # type: ignore[arg-type]
    halves = 32 // _check_b32(op, "the registers", regs_type, packed)
    if tuple(regs_type.get_shape()) != (tmem_moves.LANES_PER_WARP, regs * halves):
        what = f"{regs} registers" if halves == 1 else f"the 16-bit halves of {regs} registers"
        raise _error(op, f"requires registers memref<32x{regs * halves}x...> (32 threads x "
                         f"{what} of .{shape}.x{num}), got {regs_type}")
    return regs


@irdl_op_definition
class LdOp(IRDLOperation):
    """`%r = tcgen05.ld shape(32x32b) num(8) warp(0) lane(0) column(0) %t : <tmem> -> memref<32x8xf32>`.

    PTX `tcgen05.ld.sync.aligned.<shape>.x<num>{.pack::16b}.b32`: one warp (number `warp` in
    its warpgroup) loads TMEM lanes/columns at (`lane`, `column`) of `%t` into its registers: the
    result is the warp's registers, 32 threads x registers. The values are usable after
    `tcgen05.wait_ld`. With `pack` the TMEM operand may be a 16-bit D (one value per cell) and
    the registers 16-bit, 32 x (2 x registers): the low and high half of each register.
    """

    name = "tcgen05.ld"
    shape = prop_def(StringAttr)
    num = prop_def(IntegerAttr[I32])
    warp = prop_def(IntegerAttr[I32])
    lane = prop_def(IntegerAttr[I32])
    column = prop_def(IntegerAttr[I32])
    split = opt_prop_def(IntegerAttr[I32])
    """`.16x32bx2`'s immHalfSplitoff: the column offset of the second half-warp (default 0)."""
    pack = opt_prop_def(UnitAttr)
    tmem = operand_def(MemRefType)
    regs = result_def(MemRefType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "`shape` `(` $shape `)` `num` `(` $num `)` `warp` `(` $warp `)` `lane` `(` $lane `)` "
        "`column` `(` $column `)` (`split` `(` $split^ `)`)? (`pack` $pack^)? $tmem attr-dict "
        "`:` type($tmem) `->` type($regs)"
    )

    def verify_(self) -> None:
        _verify_ld_st(self, self.tmem.type, self.regs.type)


@irdl_op_definition
class StOp(IRDLOperation):
    """`tcgen05.st shape(32x32b) num(8) warp(0) lane(0) column(0) %t, %r : <tmem>, memref<32x8xf32>`.

    PTX `tcgen05.st.sync.aligned.<shape>.x<num>{.unpack::16b}.b32`: a warp's registers to TMEM;
    complete for the issuing thread after `tcgen05.wait_st`.
    """

    name = "tcgen05.st"
    shape = prop_def(StringAttr)
    num = prop_def(IntegerAttr[I32])
    warp = prop_def(IntegerAttr[I32])
    lane = prop_def(IntegerAttr[I32])
    column = prop_def(IntegerAttr[I32])
    split = opt_prop_def(IntegerAttr[I32])
    """`.16x32bx2`'s immHalfSplitoff: the column offset of the second half-warp (default 0)."""
    unpack = opt_prop_def(UnitAttr)
    tmem = operand_def(MemRefType)
    regs = operand_def(MemRefType)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "`shape` `(` $shape `)` `num` `(` $num `)` `warp` `(` $warp `)` `lane` `(` $lane `)` "
        "`column` `(` $column `)` (`split` `(` $split^ `)`)? (`unpack` $unpack^)? $tmem `,` $regs "
        "attr-dict `:` type($tmem) `,` type($regs)"
    )

    def verify_(self) -> None:
        _verify_ld_st(self, self.tmem.type, self.regs.type)


@irdl_op_definition
class WaitLdOp(IRDLOperation):
    """`tcgen05.wait_ld`: PTX `tcgen05.wait::ld.sync.aligned` (prior tcgen05.ld complete)."""

    name = "tcgen05.wait_ld"
    assembly_format = "attr-dict"


@irdl_op_definition
class WaitStOp(IRDLOperation):
    """`tcgen05.wait_st`: PTX `tcgen05.wait::st.sync.aligned` (prior tcgen05.st complete)."""

    name = "tcgen05.wait_st"
    assembly_format = "attr-dict"


@irdl_op_definition
class CpOp(IRDLOperation):
    """`tcgen05.cp cta_group(1) shape(128x256b) {multicast(warpx4)} {decompress(...)} %t, %desc`.

    PTX `tcgen05.cp.cta_group::N.<shape>{.<multicast>}{.<decompress>} [taddr], s-desc`: an
    asynchronous copy from SMEM (matrix descriptor) to TMEM, tracked by `tcgen05.commit`.
    """

    name = "tcgen05.cp"
    cta_group = prop_def(IntegerAttr[I32])
    shape = prop_def(StringAttr)
    multicast = opt_prop_def(StringAttr)
    decompress = opt_prop_def(StringAttr)
    tmem = operand_def(MemRefType)
    src = operand_def(i64)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = (
        "`cta_group` `(` $cta_group `)` `shape` `(` $shape `)` "
        "(`multicast` `(` $multicast^ `)`)? (`decompress` `(` $decompress^ `)`)? "
        "$tmem `,` $src attr-dict `:` type($tmem)"
    )

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        try:
            tmem_moves.check_cp(self.shape.data,
                                None if self.multicast is None else self.multicast.data,
                                None if self.decompress is None else self.decompress.data)
        except DescriptorError as err:
            raise _error(self, str(err)) from err
        if not _in_space(self.tmem.type, TMEM):
            raise _error(self, f"requires a tensor-memory destination, got {self.tmem.type}")


@irdl_op_definition
class ShiftOp(IRDLOperation):
    """`tcgen05.shift cta_group(1) %t`: PTX `tcgen05.shift.cta_group::N.down [taddr]` (rows of
    32-byte cells move down one lane; asynchronous, tracked by `tcgen05.commit`)."""

    name = "tcgen05.shift"
    cta_group = prop_def(IntegerAttr[I32])
    tmem = operand_def(MemRefType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "`cta_group` `(` $cta_group `)` $tmem attr-dict `:` type($tmem)"

    def verify_(self) -> None:
        _check_cta_group(self, self.cta_group.value.data)
        if not _in_space(self.tmem.type, TMEM):
            raise _error(self, f"requires a tensor-memory operand, got {self.tmem.type}")
        target = _target_of(self)
        if target is not None:
            try:
                rules.check_shift_target(target)
            except DescriptorError as err:
                raise _error(self, str(err)) from err
