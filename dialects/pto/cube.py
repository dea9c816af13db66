"""The cube unit's data movement and compute:

    GM --mte_gm_l1 (ND2NZ)--> L1 --mte_l1_l0a/l0b (LoadData)--> L0A / L0B --mad--> L0C
    L1 --mte_l1_bt--> BT (the bias table `mad_bias` reads)
    L1 --mte_l1_fb--> FB (the fixpipe buffer: the quant words a vector-quant fixpipe reads)

Sizes are `index` operands (registers); static ones are checked against the target's ranges.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType, MemRefType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from mmair.dialects.pto._verify import (
    Value,
    _check_covers,
    _check_layout,
    _check_memref_covers,
    _check_widths,
    _error,
    _fmt_set,
    _fmt_shape,
    _gm_memref,
    _memref_dims,
    _memref_element,
    _static_in_range,
    _tile_in,
    check_bias_load_types,
    static_value,
    target_of,
)
from mmair.dialects.pto.buffers import AllocOp
from mmair.dialects.pto.types import TileType
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target


def _check_op_alignment(op: Operation, role: str, value: SSAValue, align: int) -> None:
    """G5 for op-level alignments stricter than the space's: a tile placed by `pto.alloc` at a
    static offset must start on a multiple of `align` bytes."""
    owner = value.owner
    if isinstance(owner, AllocOp) and owner.offset is not None:
        offset = owner.offset.value.data
        if offset % align:
            raise _error(op, f"requires {role} offset aligned to {align} bytes, got {offset}")



# ----------------------------------------------------------------------------------------------
# Cube data movement
# ----------------------------------------------------------------------------------------------


@irdl_op_definition
class MteGmL1Op(IRDLOperation):
    """GM -> L1 with ND2NZ (or, `dn2nz`, DN2NZ: GM holds the transpose): dst[0:rows, 0:cols].

    A 1-D src memref (a GEMV vector or a bias row) is one row: it needs an nd dst and rows = 1."""

    name = "pto.mte_gm_l1"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    src = operand_def(MemRefType)
    dst = operand_def(TileType)
    rows = operand_def(IndexType)
    cols = operand_def(IndexType)
    dn2nz = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $dst `,` $rows `,` $cols (`dn2nz` $dn2nz^)? attr-dict "
        "`:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        rows: SSAValue | Operation,
        cols: SSAValue | Operation,
        dn2nz: bool = False,
    ) -> None:
        super().__init__(
            operands=[src, dst, rows, cols],
            properties={"dn2nz": UnitAttr() if dn2nz else None},
        )

    def verify_(self) -> None:
        target = target_of(self)
        if not target.nd2nz:
            raise _error(self, f"mte_gm_l1 (nd2nz) is not supported on target {target.name}")
        dn = self.dn2nz is not None
        if dn and not target.dn2nz:
            raise _error(self, f"dn2nz is not supported on target {target.name}")
        src = _gm_memref(self, "src", self.src)
        dst = _tile_in(self, "dst", self.dst, ("l1",))
        _check_layout(self, "dst", dst, target)
        src_elem = _memref_element(self, "src", src)
        if dst.element_name not in target.nd2nz_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.nd2nz_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        _check_widths(self, src_elem, dst.element_name)
        ranges = target.nd2nz_ranges(dn)
        rows = _static_in_range(self, "rows", self.rows, ranges["n_value"])
        cols = _static_in_range(self, "cols", self.cols, ranges["d_value"])
        _check_covers(self, "dst", dst, (rows, cols), "rows x cols")
        if src.get_num_dims() == 1 and not dn and dst.layout_name == "nd":
            # A 1-D vector (GEMV operand, bias) is one row of an nd tile.
            if rows is not None and rows != 1:
                raise _error(self, f"requires rows = 1 for a 1-D src memref, got {rows}")
            (length,) = _memref_dims(src)
            if cols is not None and length is not None and cols > length:
                raise _error(
                    self, f"requires src of at least {cols} elements (cols), got {length}"
                )
        elif dn:
            _check_memref_covers(self, "src", src, (cols, rows), "dn2nz: cols x rows")
        else:
            _check_memref_covers(self, "src", src, (rows, cols), "rows x cols")


class _MteL1L0Base(IRDLOperation):
    """Shared verifier of `mte_l1_l0a` / `mte_l1_l0b` (LoadData of whole fractals)."""

    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    DST_SPACE: ClassVar[str]
    SIZE_NAMES: ClassVar[tuple[str, str]]  # the dst's (rows, cols) operands

    # Operands (src, src_row, src_col, dst, two sizes) and `transpose` are declared in each
    # subclass: xDSL puts a subclass's own fields before inherited ones.

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        raise NotImplementedError

    def _hardware_transposes(self) -> bool:
        raise NotImplementedError

    def verify_(self) -> None:
        target = target_of(self)
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, (self.DST_SPACE,))
        _check_layout(self, "src", src, target)
        _check_layout(self, "dst", dst, target)
        _check_widths(self, src.element_name, dst.element_name)
        if dst.element_name not in target.load2d_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(target.load2d_types)} on target "
                f"{target.name}, got {dst.element_name}",
            )
        transpose = self.transpose is not None
        gemv = dst.layout_name == "nd"
        if gemv and (src.layout_name != "nd" or transpose):
            raise _error(
                self,
                f"requires an nd src without transpose for an nd (GEMV) dst, "
                f"got {src.layout_name}{' with transpose' if transpose else ''}",
            )
        if not gemv and src.layout_name not in ("nz", "zz"):
            raise _error(
                self,
                f"requires src layout in [nz, zz] for a {dst.layout_name} dst, got {src.layout_name}",
            )
        if (self.src_row is None) != (self.src_col is None):
            raise _error(self, "requires both src_row and src_col, or neither")
        rname, cname = self.SIZE_NAMES
        rows_v, cols_v = self._sizes()
        rows = _static_in_range(self, rname, rows_v, isa.MMAD_MNK_RANGE)
        cols = _static_in_range(self, cname, cols_v, isa.MMAD_MNK_RANGE)
        if gemv and rows is not None and rows != 1:
            raise _error(self, f"requires {rname} = 1 for an nd (GEMV) dst, got {rows}")
        _check_covers(self, "dst", dst, (rows, cols), f"{rname} x {cname}")
        # Whole fractals move, so a source start lies on a fractal boundary.
        fr, fc = src.fractal_shape()
        start: list[int | None] = []
        for field, value, unit in (("src_row", self.src_row, fr), ("src_col", self.src_col, fc)):
            v = static_value(value)
            if v is not None and (v < 0 or v % unit):
                raise _error(
                    self, f"requires {field} to be a non-negative multiple of {unit}, got {v}"
                )
            start.append(0 if value is None else v)
        # The source holds the operand, or with `transpose` its transpose.
        extent = (cols, rows) if transpose else (rows, cols)
        need = tuple(
            None if e is None or s is None else s + e for s, e in zip(start, extent, strict=True)
        )
        names = f"{cname} x {rname}" if transpose else f"{rname} x {cname}"
        _check_covers(self, "src", src, (need[0], need[1]), f"start + {names}")
        if self.load3d is not None:
            self._check_load3d(src, dst)
        elif self._hardware_transposes():
            self._check_transpose(src, dst, target)
            self._check_transpose_source(src)

    def _check_load3d(self, src: TileType, dst: TileType) -> None:
        """A Load3Dv2 move (`load3d`) transposes the fractals of a 16- or 32-bit operand read
        from an Nz L1 tile (isa LOAD3D_TRANSPOSE_BITS, LOAD3D_L1_LAYOUT)."""
        if not self._hardware_transposes():
            raise _error(self, "requires load3d only on a move that transposes fractals (the "
                               "Load3Dv2 form of a transposing TEXTRACT / TMOV)")
        bits = src.element_bits
        if bits not in isa_params.LOAD3D_TRANSPOSE_BITS:
            raise _error(self, f"requires load3d element width in "
                               f"{_fmt_set(isa_params.LOAD3D_TRANSPOSE_BITS)} bits, got {bits} "
                               f"({src.element_name})")
        if src.layout_name != isa_params.LOAD3D_L1_LAYOUT:
            raise _error(self, f"requires src layout in [{isa_params.LOAD3D_L1_LAYOUT}] for a "
                               f"load3d move (Load3Dv2 reads an Nz feature map), got "
                               f"{src.layout_name}")
        self._check_transpose_blocks(src, dst, bits)

    def _check_transpose_blocks(self, src: TileType, dst: TileType, bits: int) -> None:
        """Both tiles hold whole transpose blocks of the element width."""
        block = isa.TRANSPOSE_BLOCK_ELEMENTS[bits]
        for role, tile in (("src", src), ("dst", dst)):
            padded = tile.padded_shape()
            if any(d % block for d in padded):
                raise _error(
                    self,
                    f"transpose requires {role} padded extents to be multiples of {block} "
                    f"for {tile.element_name}, got {_fmt_shape(padded)}",
                )

    def _check_transpose_source(self, src: TileType) -> None:
        """L2: the source layout the hardware's transposing load reads (L0B only)."""

    def _check_transpose(self, src: TileType, dst: TileType, target: Target) -> None:
        """L2: the target can transpose this element width, in whole transpose blocks."""
        bits = src.element_bits
        widths = isa_params.fractal_transpose_bits(target, dst.space_name)
        if bits not in widths:
            raise _error(
                self,
                f"requires a fractal transpose of {bits}-bit elements ({src.element_name}) "
                f"for this {src.layout_name} -> {dst.layout_name} move, which is not supported "
                f"on target {target.name} (transposable widths {_fmt_set(widths)})",
            )
        self._check_transpose_blocks(src, dst, bits)


def _load3d_hint(src: TileType, target: Target, operand: str) -> str:
    """The way out when a Load3Dv2 move reads this source (what pto-isa's TEXTRACT / TMOV do)."""
    if isa_params.load3d_needed(src.element_name, target, operand, src.layout_name):
        return " (a load3d move, Load3Dv2, reads it)"
    return ""


@irdl_op_definition
class MteL1L0AOp(_MteL1L0Base):
    """L1 -> L0A: dst[0:m, 0:k] = src[row + i, col + j] (`transpose`: src holds A^T)."""

    name = "pto.mte_l1_l0a"
    DST_SPACE: ClassVar[str] = "l0a"
    SIZE_NAMES: ClassVar[tuple[str, str]] = ("m", "k")

    src = operand_def(TileType)
    src_row = opt_operand_def(IndexType)
    src_col = opt_operand_def(IndexType)
    dst = operand_def(TileType)
    m = operand_def(IndexType)
    k = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)
    load3d = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src (`[` $src_row^ `,` $src_col `]`)? `,` $dst `,` $m `,` $k "
        "(`transpose` $transpose^)? (`load3d` $load3d^)? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        m: SSAValue | Operation,
        k: SSAValue | Operation,
        start: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        transpose: bool = False,
        load3d: bool = False,
    ) -> None:
        row, col = ([start[0]], [start[1]]) if start is not None else ([], [])
        super().__init__(
            operands=[src, row, col, dst, m, k],
            properties={"transpose": UnitAttr() if transpose else None,
                        "load3d": UnitAttr() if load3d else None},
        )

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        return self.m, self.k

    def _hardware_transposes(self) -> bool:
        return self.transpose is not None

    def _check_transpose_source(self, src: TileType) -> None:
        target = target_of(self)
        legal = isa_params.a_l1_layouts_for_transpose(src.element_name, target)
        if src.layout_name in legal:
            return
        if src.element_bits == 32:
            why = ("its LoadDataWithTranspose squares put two 16 x 8 fractals side by side along "
                   "m, which zz keeps adjacent")
        else:
            why = ("LoadDataWithTranspose takes squares of two fractals stacked along k, which nz "
                   "keeps adjacent")
        raise _error(
            self,
            f"requires src layout in {_fmt_set(legal)} for a transposed {src.element_bits}-bit A "
            f"moved to {target.l0a_layout} on target {target.name} ({why}: no LoadData turns "
            f"{src.layout_name} {src.element_bits}-bit fractals of A^T into zz ones of A), got "
            f"{src.layout_name}{_load3d_hint(src, target, 'a')}",
        )


@irdl_op_definition
class MteL1L0BOp(_MteL1L0Base):
    """L1 -> L0B (zn): dst[0:k, 0:n] = src[row + i, col + j] (`transpose`: src holds B^T).

    Without `transpose` each fractal is transposed on the way (B in L1 zz or nz -> zn)."""

    name = "pto.mte_l1_l0b"
    DST_SPACE: ClassVar[str] = "l0b"
    SIZE_NAMES: ClassVar[tuple[str, str]] = ("k", "n")

    src = operand_def(TileType)
    src_row = opt_operand_def(IndexType)
    src_col = opt_operand_def(IndexType)
    dst = operand_def(TileType)
    k = operand_def(IndexType)
    n = operand_def(IndexType)
    transpose = opt_prop_def(UnitAttr)
    load3d = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = (
        "$src (`[` $src_row^ `,` $src_col `]`)? `,` $dst `,` $k `,` $n "
        "(`transpose` $transpose^)? (`load3d` $load3d^)? attr-dict `:` type($src) `,` type($dst)"
    )

    def __init__(
        self,
        src: SSAValue | Operation,
        dst: SSAValue | Operation,
        k: SSAValue | Operation,
        n: SSAValue | Operation,
        start: tuple[SSAValue | Operation, SSAValue | Operation] | None = None,
        transpose: bool = False,
        load3d: bool = False,
    ) -> None:
        row, col = ([start[0]], [start[1]]) if start is not None else ([], [])
        super().__init__(
            operands=[src, row, col, dst, k, n],
            properties={"transpose": UnitAttr() if transpose else None,
                        "load3d": UnitAttr() if load3d else None},
        )

    def _sizes(self) -> tuple[SSAValue, SSAValue]:
        return self.k, self.n

    def _hardware_transposes(self) -> bool:
        # B in L1 (zz / nz, fractals 16 x c0) becomes zn (c0 x 16): a per-fractal transpose.
        # A transposed B (Nz of B^T) is already zn inside each fractal.
        return self.transpose is None

    def _check_transpose_source(self, src: TileType) -> None:
        target = target_of(self)
        legal = isa_params.b_l1_layouts_for_transpose(src.element_name, target)
        if src.layout_name in legal:
            return
        if src.element_bits == 32:
            why = ("its LoadDataWithTranspose squares put two 16 x 8 fractals side by side along "
                   "n, which zz keeps adjacent")
        else:
            why = ("LoadDataWithTranspose takes squares of two fractals stacked along k, which nz "
                   "keeps adjacent")
        raise _error(
            self,
            f"requires src layout in {_fmt_set(legal)} for a {src.element_bits}-bit B moved to zn "
            f"on target {target.name} ({why}: no LoadData turns {src.layout_name} "
            f"{src.element_bits}-bit fractals into zn ones), got {src.layout_name}"
            f"{_load3d_hint(src, target, 'b')}",
        )


class _L1RowMoveBase(IRDLOperation):
    """An L1 row moved to a side buffer of the cube (BT, FB): `src, dst, n`."""

    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    src = operand_def(TileType)
    dst = operand_def(TileType)
    n = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$src `,` $dst `,` $n attr-dict `:` type($src) `,` type($dst)"

    def __init__(self, src: Value, dst: Value, n: Value) -> None:
        super().__init__(operands=[src, dst, n])


@irdl_op_definition
class MteL1BtOp(_L1RowMoveBase):
    """L1 -> BT (bias table): dst[0, 0:n] = src[0, 0:n], the bias row `mad_bias` reads.

    Ascend C stages a bias GM -> L1 (DataCopy into the C1 position) -> BT (DataCopy into C2);
    dst's element type is the Mmad bias type (f32, or s32 for integer inputs), src's the same or
    one the target's bias load widens to it (isa `bias_load_conversions`: f16, bf16 on a5)."""

    name = "pto.mte_l1_bt"

    def verify_(self) -> None:
        target = target_of(self)
        if not target.mmad_bias:
            raise _error(self, f"mte_l1_bt is not supported on target {target.name}")
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, ("bt",))
        _check_layout(self, "dst", dst, target)
        # (every L1 layout is legal on every target: the src check is the nd one below)
        if src.layout_name != "nd":
            raise _error(self, f"requires src layout nd (a bias row), got {src.layout_name}")
        bias_types = {d for _a, _b, d in target.mmad_bias_types}
        if dst.element_name not in bias_types:
            raise _error(
                self,
                f"requires element type in {_fmt_set(bias_types)} (the bias types) on target "
                f"{target.name}, got {dst.element_name}",
            )
        check_bias_load_types(self, "src", src.element_name, dst.element_name, target)
        n = _static_in_range(self, "n", self.n, isa.MMAD_MNK_RANGE)
        _check_covers(self, "src", src, (1, n), "1 x n")
        _check_covers(self, "dst", dst, (1, n), "1 x n")


@irdl_op_definition
class MteL1FbOp(_L1RowMoveBase):
    """L1 -> FB (fixpipe buffer): dst[0:n] = src[0:n], a byte copy of n elements.

    FB holds the parameters the fixpipe reads while it moves L0C out: for the vector-quant modes
    one u64 QUANT_PRE word per output channel (`pto.fixpipe ... vector %fb`). The copy is CCE
    `copy_cbuf_to_fbuf` (pto-isa `TMovToFb`, the TMOV mat -> scaling), bursts of whole FB units
    (isa `l1_fb_unit_bytes`: 128 B on A2/A3, 64 B on a5); it runs on the FIX pipe (PTOAS
    PTOOps.td TMovOp::getPipe: "Regular Scaling tiles are FBUF loads (TMOV_M2S) and run on"
    PIPE_FIX; its insert-sync pairs MTE2 -> FIX before it, test/lit/pto/tmov_fbuf_pipe_selection)."""

    name = "pto.mte_l1_fb"

    def verify_(self) -> None:
        target = target_of(self)
        if not target.capacity.get("fb"):
            raise _error(self, f"mte_l1_fb is not supported on target {target.name} (no fixpipe "
                               f"buffer)")
        src = _tile_in(self, "src", self.src, ("l1",))
        dst = _tile_in(self, "dst", self.dst, ("fb",))
        _check_layout(self, "dst", dst, target)
        if src.layout_name != "nd":
            raise _error(self, f"requires src layout nd (a parameter row), got {src.layout_name}")
        if dst.element_name != src.element_name:
            raise _error(self, f"requires dst element type {src.element_name} (the src type), "
                               f"got {dst.element_name}")
        n = static_value(self.n)
        if n is None:
            return
        if n < 1:
            raise _error(self, f"requires n >= 1, got {n}")
        unit = isa_params.l1_fb_unit_bytes(target)
        nbytes = n * src.element_bits // 8
        if nbytes % unit:
            raise _error(self, f"requires n x {src.element_bits // 8} bytes to be whole FB burst "
                               f"units ({unit} bytes on target {target.name}), got {nbytes} bytes")
        _check_covers(self, "src", src, (1, n), "1 x n")
        _check_covers(self, "dst", dst, (1, n), "1 x n")


# ----------------------------------------------------------------------------------------------
# Mmad
# ----------------------------------------------------------------------------------------------


class _MadBase(IRDLOperation):
    """Shared verifier of `mad`, `mad_acc` and `mad_bias`."""

    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)

    # Mmad `disableGemv` (a5 only): with m = 1 read a zz/nz L0A normally instead of as GEMV.
    disable_gemv = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)

    def _bias(self) -> SSAValue | None:
        return None

    def _verify_gemv(self, target: Target, lhs: TileType, m: int | None) -> None:
        """The GEMV rule (isa params.gemv_active): with m = 1 the cube reads L0A as an nd vector
        unless `disable_gemv` (a5) turns GEMV off; a runtime m is checked by the executor."""
        off = self.disable_gemv is not None
        if off and not target.gemv_disable:
            raise _error(self, f"disable_gemv is not supported on target {target.name}")
        if off and lhs.layout_name == "nd":
            raise _error(
                self,
                f"disable_gemv requires a {target.l0a_layout} lhs (GEMV off reads L0A as "
                f"{target.l0a_layout}), got nd",
            )
        if m == 1 and lhs.layout_name != "nd" and isa_params.gemv_active(target, m, off):
            hint = " or disable_gemv" if target.gemv_disable else ""
            raise _error(
                self,
                f"requires an nd lhs{hint} for m = 1 (GEMV rule: {isa_params.GEMV_RULE} on "
                f"target {target.name}), got a {lhs.layout_name} lhs",
            )

    def verify_(self) -> None:
        target = target_of(self)
        lhs = _tile_in(self, "lhs", self.lhs, ("l0a",))
        rhs = _tile_in(self, "rhs", self.rhs, ("l0b",))
        dst = _tile_in(self, "dst", self.dst, ("l0c",))
        for role, tile in (("lhs", lhs), ("rhs", rhs), ("dst", dst)):
            _check_layout(self, role, tile, target)
        combo = (lhs.element_name, rhs.element_name, dst.element_name)
        if combo not in target.mmad_types:
            legal = ", ".join(f"({a}, {b}) -> {c}" for a, b, c in sorted(target.mmad_types))
            raise _error(
                self,
                f"requires (lhs, rhs) -> dst element types in [{legal}] on target "
                f"{target.name}, got ({combo[0]}, {combo[1]}) -> {combo[2]}",
            )
        m = _static_in_range(self, "m", self.m, isa.MMAD_MNK_RANGE)
        n = _static_in_range(self, "n", self.n, isa.MMAD_MNK_RANGE)
        k = _static_in_range(self, "k", self.k, isa.MMAD_MNK_RANGE)
        if lhs.layout_name == "nd" and m is not None and m != 1:
            raise _error(self, f"requires m = 1 for an nd (GEMV) lhs, got {m}")
        self._verify_gemv(target, lhs, m)
        _check_covers(self, "lhs", lhs, (m, k), "m x k")
        _check_covers(self, "rhs", rhs, (k, n), "k x n")
        _check_covers(self, "dst", dst, (m, n), "m x n")
        _check_op_alignment(self, "dst", self.dst, isa.MMAD_DST_ALIGN)
        bias_value = self._bias()
        if bias_value is not None:
            if not target.mmad_bias:
                raise _error(self, f"mad_bias is not supported on target {target.name}")
            if combo not in target.mmad_bias_types:
                raise _error(
                    self,
                    f"requires an element type combination with a bias form on target "
                    f"{target.name}, got ({combo[0]}, {combo[1]}) -> {combo[2]}",
                )
            bias = _tile_in(self, "bias", bias_value, ("bt",))
            _check_layout(self, "bias", bias, target)
            if bias.element_name != dst.element_name:
                raise _error(
                    self,
                    f"requires bias element type to match dst element type {dst.element_name}, "
                    f"got {bias.element_name}",
                )
            _check_covers(self, "bias", bias, (1, n), "1 x n")


@irdl_op_definition
class MadOp(_MadBase):
    """C[0:m, 0:n] = A[0:m, 0:k] x B[0:k, 0:n] (Mmad with cmatrixInitVal)."""

    name = "pto.mad"
    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $m `,` $n `,` $k (`disable_gemv` $disable_gemv^)? attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value,
        disable_gemv: bool = False,
    ) -> None:
        super().__init__(
            operands=[lhs, rhs, dst, m, n, k],
            properties={"disable_gemv": UnitAttr() if disable_gemv else None},
        )


@irdl_op_definition
class MadAccOp(_MadBase):
    """C[0:m, 0:n] += A[0:m, 0:k] x B[0:k, 0:n]."""

    name = "pto.mad_acc"
    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $m `,` $n `,` $k (`disable_gemv` $disable_gemv^)? attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, m: Value, n: Value, k: Value,
        disable_gemv: bool = False,
    ) -> None:
        super().__init__(
            operands=[lhs, rhs, dst, m, n, k],
            properties={"disable_gemv": UnitAttr() if disable_gemv else None},
        )


@irdl_op_definition
class MadBiasOp(_MadBase):
    """C[0:m, 0:n] = A[0:m, 0:k] x B[0:k, 0:n] + bias[0, 0:n] (bias in BT)."""

    name = "pto.mad_bias"

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    dst = operand_def(TileType)
    bias = operand_def(TileType)
    m = operand_def(IndexType)
    n = operand_def(IndexType)
    k = operand_def(IndexType)

    assembly_format = (
        "$lhs `,` $rhs `,` $dst `,` $bias `,` $m `,` $n `,` $k (`disable_gemv` $disable_gemv^)? attr-dict "
        "`:` type($lhs) `,` type($rhs) `,` type($dst) `,` type($bias)"
    )

    def __init__(
        self, lhs: Value, rhs: Value, dst: Value, bias: Value, m: Value, n: Value, k: Value,
        disable_gemv: bool = False,
    ) -> None:
        super().__init__(
            operands=[lhs, rhs, dst, bias, m, n, k],
            properties={"disable_gemv": UnitAttr() if disable_gemv else None},
        )

    def _bias(self) -> SSAValue | None:
        return self.bias
