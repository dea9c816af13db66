"""The vector side: GM <-> UB moves and GatherMask (vreducev2), which packs the elements of a
UB buffer that a bit pattern keeps (built-in patterns 1..7 or a UB tile of pattern words)."""

from __future__ import annotations

from math import prod
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, MemRefType, UnitAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from mmair.dialects.pto._verify import (
    _check_layout,
    _check_widths,
    _error,
    _fmt_set,
    _gm_memref,
    _memref_dims,
    _memref_element,
    _static_in_range,
    _tile_in,
    static_value,
    target_of,
)
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import gather
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

# ----------------------------------------------------------------------------------------------
# Vector side: GM <-> UB and GatherMask
# ----------------------------------------------------------------------------------------------


def _verify_gm_ub(
    op: Operation, gm_value: SSAValue, ub_value: SSAValue, gm_role: str, ub_role: str
) -> None:
    """GM <-> UB moves: a GM memref, an nd UB tile of the same element width that holds it all."""
    target = target_of(op)
    gm = _gm_memref(op, gm_role, gm_value)
    ub = _tile_in(op, ub_role, ub_value, ("ub",))
    _check_layout(op, ub_role, ub, target)
    elem = _memref_element(op, gm_role, gm)
    if gm_role == "src":
        _check_widths(op, elem, ub.element_name)
    else:
        _check_widths(op, ub.element_name, elem)
    dims = _memref_dims(gm)
    if all(d is not None for d in dims):
        count = prod(d for d in dims if d is not None)
        if count > ub.num_elements():
            raise _error(
                op,
                f"requires {ub_role} tile of at least {count} elements (the {gm_role} memref), "
                f"got {ub.num_elements()}",
            )


@irdl_op_definition
class MteGmUbOp(IRDLOperation):
    """GM -> UB: the memref's elements, row-major, to the start of the (nd) UB tile."""

    name = "pto.mte_gm_ub"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    src = operand_def(MemRefType)
    dst = operand_def(TileType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: SSAValue | Operation, dst: SSAValue | Operation) -> None:
        super().__init__(operands=[src, dst])

    def verify_(self) -> None:
        _verify_gm_ub(self, self.src, self.dst, "src", "dst")


@irdl_op_definition
class MteUbGmOp(IRDLOperation):
    """UB -> GM: the first elements of the (nd) UB tile fill the memref, row-major."""

    name = "pto.mte_ub_gm"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    src = operand_def(TileType)
    dst = operand_def(MemRefType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: SSAValue | Operation, dst: SSAValue | Operation) -> None:
        super().__init__(operands=[src, dst])

    def verify_(self) -> None:
        _verify_gm_ub(self, self.dst, self.src, "dst", "src")


@irdl_op_definition
class GatherMaskOp(IRDLOperation):
    """GatherMask (vreducev2): pack the src0 elements a bit pattern keeps into dst; the result is
    the kept count. `pattern` = built-in pattern 1..7, or `src1` = a UB tile of pattern words."""

    name = "pto.gather_mask"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    dst = operand_def(TileType)
    src0 = operand_def(TileType)
    src1 = opt_operand_def(TileType)
    mask = operand_def(IndexType)
    repeat_times = operand_def(IndexType)
    src0_block_stride = operand_def(IndexType)
    src0_repeat_stride = operand_def(IndexType)
    src1_repeat_stride = operand_def(IndexType)

    pattern = opt_prop_def(IntegerAttr[IntegerType])
    counter = opt_prop_def(UnitAttr)

    count = result_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$dst `,` $src0 `,` (`pattern` $src1^ `:` type($src1) `,`)? $mask `,` $repeat_times "
        "`,` $src0_block_stride `,` $src0_repeat_stride `,` $src1_repeat_stride attr-dict "
        "`:` type($dst) `,` type($src0)"
    )

    def __init__(
        self,
        dst: SSAValue | Operation,
        src0: SSAValue | Operation,
        mask: SSAValue | Operation,
        repeat_times: SSAValue | Operation,
        src0_block_stride: SSAValue | Operation,
        src0_repeat_stride: SSAValue | Operation,
        src1_repeat_stride: SSAValue | Operation,
        *,
        pattern: int | None = None,
        src1: SSAValue | Operation | None = None,
        counter: bool = False,
    ) -> None:
        super().__init__(
            operands=[
                dst,
                src0,
                [] if src1 is None else [src1],
                mask,
                repeat_times,
                src0_block_stride,
                src0_repeat_stride,
                src1_repeat_stride,
            ],
            result_types=[IndexType()],
            properties={
                "pattern": None if pattern is None else IntegerAttr(pattern, i64),
                "counter": UnitAttr() if counter else None,
            },
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.has_gather_mask:
            raise _error(self, f"gather_mask is not supported on target {target.name}")
        dst = _tile_in(self, "dst", self.dst, ("ub",))
        src0 = _tile_in(self, "src0", self.src0, ("ub",))
        for role, tile in (("dst", dst), ("src0", src0)):
            _check_layout(self, role, tile, target)
        elem = src0.element_name
        if dst.element_name != elem:
            raise _error(
                self, f"requires dst element type {elem} (the src0 type), got {dst.element_name}"
            )
        types = target.gather_mask_types
        if elem not in types:
            raise _error(
                self,
                f"requires src0 element type in {_fmt_set(types)} on target {target.name}, "
                f"got {elem}",
            )
        if (self.pattern is None) == (self.src1 is None):
            raise _error(self, "requires exactly one of a built-in pattern or a src1 pattern tile")
        src1: TileType | None = None
        if self.pattern is not None:
            p = self.pattern.value.data
            if p not in target.gather_mask_patterns:
                lo, hi = min(target.gather_mask_patterns), max(target.gather_mask_patterns)
                raise _error(
                    self, f"requires pattern in [{lo}, {hi}] on target {target.name}, got {p}"
                )
        else:
            assert self.src1 is not None
            src1 = _tile_in(self, "src1", self.src1, ("ub",))
            _check_layout(self, "src1", src1, target)
            if src1.element_name != types[elem]:
                raise _error(
                    self,
                    f"requires src1 pattern word type {types[elem]} for {elem} on target "
                    f"{target.name}, got {src1.element_name}",
                )
        counter = self.counter is not None
        mask = static_value(self.mask)
        if counter and mask is not None:
            lo, hi = isa.GATHER_COUNTER_MASK_RANGE
            if mask < lo:
                raise _error(self, f"counter mode requires mask >= {lo}, got {mask}")
            if mask > hi:
                raise _error(self, f"requires mask in [{lo}, {hi}], got {mask}")
        # Counter method 2 (310p) ignores repeat_times: mask is the total element count.
        repeat = None
        if not (counter and target.gather_counter_method == 2):
            repeat = _static_in_range(
                self, "repeat_times", self.repeat_times, isa.GATHER_REPEAT_TIMES_RANGE
            )
        blk = _static_in_range(
            self, "src0_block_stride", self.src0_block_stride, isa.GATHER_BLOCK_STRIDE_RANGE
        )
        rep0 = _static_in_range(
            self, "src0_repeat_stride", self.src0_repeat_stride, isa.GATHER_SRC0_REPEAT_STRIDE_RANGE
        )
        rep1 = _static_in_range(
            self, "src1_repeat_stride", self.src1_repeat_stride, isa.GATHER_SRC1_REPEAT_STRIDE_RANGE
        )
        self._verify_footprints(target, src0, dst, src1, counter, mask, repeat, blk, rep0, rep1)

    def _verify_footprints(
        self,
        target: Target,
        src0: TileType,
        dst: TileType,
        src1: TileType | None,
        counter: bool,
        mask: int | None,
        repeat: int | None,
        blk: int | None,
        rep0: int | None,
        rep1: int | None,
    ) -> None:
        """X3: with static parameters, the repeats stay inside src0 (and src1) and dst can hold
        every element the repeats cover."""
        runs = self._repeat_runs(target, src0.element_name, counter, mask, repeat)
        if not runs:
            return
        # Repeats of one run have the same length, so the last repeat of each run reaches
        # furthest into src0 and src1.
        last_of: list[tuple[int, int]] = []  # (elements, index of the run's last repeat)
        first = 0
        for length, times in runs:
            first += times
            last_of.append((length, first - 1))
        if blk is not None and rep0 is not None:
            need = max(
                gather.src0_footprint_bytes(src0.element_name, r + 1, c, blk, rep0)
                for c, r in last_of
            )
            have = src0.footprint_bytes()
            if need > have:
                raise _error(self, f"requires src0 of at least {need} bytes, got {have}")
        if src1 is not None and rep1 is not None:
            word_bits = src1.element_bits
            bits = max(r * rep1 * isa.GATHER_BLOCK_BYTES * 8 + c for c, r in last_of)
            need = -(-bits // word_bits) * word_bits // 8
            have = src1.footprint_bytes()
            if need > have:
                raise _error(
                    self, f"requires src1 pattern of at least {need} bytes for all repeats, got {have}"
                )
        if self.pattern is not None:
            motif = gather.BUILTIN_PATTERN_MOTIFS[self.pattern.value.data]
            kept = sum(times * _motif_kept(motif, length) for length, times in runs)
        else:
            kept = sum(times * length for length, times in runs)
        if kept > dst.num_elements():
            raise _error(
                self,
                f"requires dst of at least {kept} elements (the most the pattern can keep), "
                f"got {dst.num_elements()}",
            )

    @staticmethod
    def _repeat_runs(
        target: Target, elem: str, counter: bool, mask: int | None, repeat: int | None
    ) -> list[tuple[int, int]] | None:
        """The repeats as (elements per repeat, number of repeats) runs, the compressed form of
        `gather.repeat_counts` (a counter-mode mask may cover 2^32 elements), or None when the
        values that decide them are not static."""
        method = target.gather_counter_method
        if counter and method == 2:
            if mask is None:
                return None
            full, tail = divmod(mask, gather.elements_per_repeat(elem))
            runs = [(gather.elements_per_repeat(elem), full)] if full else []
            return runs + ([(tail, 1)] if tail else [])
        if repeat is None:
            return None
        if not counter:
            return [(gather.elements_per_repeat(elem), repeat)]
        return None if mask is None else [(mask, repeat)]


def _motif_kept(motif: int, count: int) -> int:
    """Elements a built-in pattern keeps among the first `count` of a repeat: its 4-bit motif
    repeats, bit i keeping element e with e % 4 == i."""
    whole, rest = divmod(count, 4)
    return whole * motif.bit_count() + (motif & ((1 << rest) - 1)).bit_count()
