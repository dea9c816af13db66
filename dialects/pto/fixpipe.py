"""Fixpipe: L0C (nz) -> GM / L1 / UB with quantization, ReLU and a layout transform
(NZ2ND, NZ2NZ, NZ2DN); destinations, type pairs and quant modes depend on the target."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, MemRefType, StringAttr, UnitAttr, i64
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
    _check_atomic,
    _check_covers,
    _check_layout,
    _check_memref_covers,
    _error,
    _fmt_set,
    _gm_memref,
    _memref_dims,
    _memref_element,
    _static_in_range,
    _tile_in,
    target_of,
)
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

# ----------------------------------------------------------------------------------------------
# Fixpipe
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class FixpipeOp(IRDLOperation):
    """L0C (nz) -> GM / L1 / UB with quantization, ReLU and a layout transform."""

    name = "pto.fixpipe"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    src = operand_def(TileType)
    dst = operand_def(base(MemRefType) | base(TileType))
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    scalar = opt_operand_def(eq(i64))
    vector = opt_operand_def(TileType)

    layout = prop_def(StringAttr, default_value=StringAttr("nz2nd"))
    quant = prop_def(StringAttr, default_value=StringAttr("none"))
    relu = opt_prop_def(UnitAttr)
    atomic = opt_prop_def(StringAttr)
    """GM atomic mode (`isa.GM_ATOMIC_OPS`): each value is combined with the GM element it
    updates (read-modify-write in the GM element type) instead of replacing it."""

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src `,` $dst `,` $m `,` $n (`scalar` $scalar^)? "
        "(`vector` $vector^ `:` type($vector))? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        m: SSAValue | Operation,
        n: SSAValue | Operation,
        *,
        layout: str = "nz2nd",
        quant: str = "none",
        relu: bool = False,
        scalar: SSAValue | Operation | None = None,
        vector: SSAValue | Operation | None = None,
        atomic: str | None = None,
    ) -> None:
        super().__init__(
            operands=[src, dst, m, n, [] if scalar is None else [scalar], [] if vector is None else [vector]],
            properties={
                "layout": StringAttr(layout),
                "quant": StringAttr(quant),
                "relu": UnitAttr() if relu else None,
                "atomic": None if atomic is None else StringAttr(atomic),
            },
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.has_fixpipe:
            raise _error(self, f"fixpipe is not supported on target {target.name}")
        src = _tile_in(self, "src", self.src, ("l0c",))
        _check_layout(self, "src", src, target)
        if src.element_name not in isa.FIXPIPE_SRC_TYPES:
            raise _error(
                self,
                f"requires src element type in {_fmt_set(isa.FIXPIPE_SRC_TYPES)}, "
                f"got {src.element_name}",
            )
        layout = self.layout.data
        if layout not in isa.FIXPIPE_LAYOUTS:
            raise _error(self, f"requires layout in {_fmt_set(isa.FIXPIPE_LAYOUTS)}, got {layout}")
        if layout == "nz2dn" and not target.nz2dn:
            raise _error(self, f"nz2dn is not supported on target {target.name}")

        dst_type = self.dst.type
        if isinstance(dst_type, MemRefType):
            _gm_memref(self, "dst", self.dst)
            dst_space = "gm"
            dst_elem = _memref_element(self, "dst", dst_type)
        else:
            dst_tile = _tile_in(self, "dst", self.dst, ("l1", "ub"))
            dst_space = dst_tile.space_name
            dst_elem = dst_tile.element_name
        if dst_space not in target.fixpipe_destinations:
            raise _error(self, f"fixpipe to {dst_space} is not supported on target {target.name}")

        pairs = target.fixpipe_types.get(dst_space, frozenset())
        if (src.element_name, dst_elem) not in pairs:
            raise _error(
                self,
                f"requires (src, dst) element types in "
                f"{_fmt_set(f'({a}, {b})' for a, b in pairs)} for fixpipe to {dst_space} on "
                f"target {target.name}, got ({src.element_name}, {dst_elem})",
            )
        self._verify_quant(target, dst_space, src.element_name, dst_elem)
        _check_atomic(self, target, "l0c", dst_space, dst_elem)

        m = _static_in_range(self, "m", self.m, isa.FIXPIPE_M_SIZE_RANGE[layout])
        n = _static_in_range(self, "n", self.n, isa.FIXPIPE_N_SIZE_RANGE)
        # NZ output moves whole 16-column fractals; NZ2ND/NZ2DN convert per column (CCE Fixpipe:
        # the ND loop stops at j*16 + c < nSize), so any n is legal there.
        if layout == "nz2nz" and n is not None and n % isa.FIXPIPE_N_SIZE_MULTIPLE:
            raise _error(
                self,
                f"requires n to be a multiple of {isa.FIXPIPE_N_SIZE_MULTIPLE} for nz2nz, got {n}",
            )
        _check_covers(self, "src", src, (m, n), "m x n")
        self._verify_dst_shape(target, layout, m, n)
        if layout == "nz2nz":
            self._verify_nz_blocks(dst_space, dst_elem, n)
        if self.vector is not None:
            vec = _tile_in(self, "vector", self.vector, ("l1", "fb"))
            _check_layout(self, "vector", vec, target)
            if vec.element_name != "u64":
                raise _error(
                    self, f"requires vector element type ui64, got {vec.element_type}"
                )
            _check_covers(self, "vector", vec, (1, n), "1 x n")

    def _verify_quant(self, target: Target, dst_space: str, src: str, dst: str) -> None:
        quant = self.quant.data
        if quant not in isa.QUANT_MODES:
            raise _error(self, f"requires quant in {_fmt_set(isa.QUANT_MODES)}, got {quant}")
        if quant not in target.quant_modes:
            raise _error(self, f"quant mode {quant} is not supported on target {target.name}")
        mode = isa.get_quant_mode(quant)
        if (src, dst) not in mode.pairs:
            raise _error(
                self,
                f"requires quant mode for source element type {src} and destination element "
                f"type {dst} in {_fmt_set(target.fixpipe_quant_modes_for(dst_space, src, dst))}, "
                f"got {quant}",
            )
        if not target.fixpipe_quant_ok(dst_space, quant, src, dst):
            raise _error(
                self, f"quant mode {quant} to {dst_space} is not supported on target {target.name}"
            )
        for kind, value in (("scalar", self.scalar), ("vector", self.vector)):
            if mode.operand == kind and value is None:
                raise _error(self, f"requires a {kind} operand for quant mode {quant}")
            if mode.operand != kind and value is not None:
                raise _error(
                    self, f"requires no {kind} operand for quant mode {quant}, got one"
                )

    def _verify_nz_blocks(self, dst_space: str, dst_elem: str, n: int | None) -> None:
        """NZ output writes Z blocks of the hardware's width (isa params.fixpipe_nz_dst_widths);
        the destination's own block width (an nz tile's c0, a GM memref's last dimension) must
        be one of them, and a merged b8 block needs whole blocks of n."""
        dst_type = self.dst.type
        if isinstance(dst_type, TileType):
            c0: int | None = isa.c0_elements(dst_elem, dst_space)
        else:
            dims = _memref_dims(dst_type)  # type: ignore[arg-type]
            c0 = dims[-1]
        widths = isa_params.fixpipe_nz_dst_widths(dst_elem, dst_space)
        if c0 is not None and c0 not in widths:
            raise _error(
                self,
                f"requires an nz2nz dst block width (c0) in {_fmt_set(widths)} for {dst_elem} "
                f"output to {dst_space} (the Fixpipe writes Z blocks of 16 channels, 32 for 8-bit "
                f"output by channel merge, 8 for f32 by channel split to gm only), got {c0}",
            )
        merged = isa_params.fixpipe_nz_block_cols(isa.element_bits(dst_elem), False)
        if merged > isa.FIXPIPE_N_SIZE_MULTIPLE and n is not None and n % merged:
            raise _error(
                self,
                f"requires n to be a multiple of {merged} for nz2nz with {dst_elem} output (channel "
                f"merge writes 16 x {merged} blocks; the last {n % merged} channels would form a "
                f"narrower block that the {merged}-wide dst fractals do not hold), got {n}",
            )

    def _verify_dst_shape(self, target: Target, layout: str, m: int | None, n: int | None) -> None:
        dst_type = self.dst.type
        if isinstance(dst_type, MemRefType):
            if layout == "nz2nz":
                dims = _memref_dims(dst_type)
                if len(dims) != 4:
                    raise _error(
                        self,
                        f"requires an nz2nz dst memref of rank 4 (N1, M1, 16, c0), "
                        f"got rank {len(dims)}",
                    )
                return
            need = (n, m) if layout == "nz2dn" else (m, n)
            names = "n x m" if layout == "nz2dn" else "m x n"
            _check_memref_covers(self, "dst", dst_type, need, names)
            return
        assert isinstance(dst_type, TileType)
        _check_layout(self, "dst", dst_type, target)
        want = "nz" if layout == "nz2nz" else "nd"
        if dst_type.layout_name != want:
            raise _error(
                self, f"requires dst layout {want} for {layout}, got {dst_type.layout_name}"
            )
        if layout == "nz2dn":
            _check_covers(self, "dst", dst_type, (n, m), "n x m")
        else:
            _check_covers(self, "dst", dst_type, (m, n), "m x n")
