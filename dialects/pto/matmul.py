"""`pto.matmul`: C = A x B (+ bias) on GM memrefs of any static shape, lowered to the cube
pipeline by `pto-tile-matmul`; the accumulator and output conversions follow the target's Mmad and
Fixpipe tables."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import MemRefType, UnitAttr
from xdsl.ir import SSAValue
from xdsl.irdl import (
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
    _error,
    _fmt_set,
    _fmt_shape,
    _gm_memref,
    _memref_element,
    target_of,
)
from mmair.dialects.types import element_name_or_none
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.targets import Target

# ----------------------------------------------------------------------------------------------
# High level: matmul on GM operands (lowered to the cube pipeline by `pto-tile-matmul`)
# ----------------------------------------------------------------------------------------------

# Output element type -> Fixpipe quant mode, per accumulator type: the conversions a matmul makes
# without scale parameters (the deq/quant modes need scale words and are not offered).
MATMUL_QUANT: dict[str, dict[str, str]] = {
    "f32": {"f32": "none", "f16": "f322f16", "bf16": "f322bf16"},
    "s32": {"s32": "none"},
}


def matmul_accumulator(target: Target, lhs: str, rhs: str) -> str | None:
    """The L0C element type of an `lhs` x `rhs` matmul: the Mmad dst type Fixpipe reads (f32 or
    s32), or None if the target has no such Mmad."""
    dsts = target.mmad_dst_types(lhs, rhs) & isa.FIXPIPE_SRC_TYPES
    return min(dsts) if dsts else None  # at most one on every target


def matmul_output_types(target: Target, acc: str) -> dict[str, str]:
    """Output element type -> quant mode of the matmul outputs Fixpipe can write to GM."""
    return {
        out: quant
        for out, quant in MATMUL_QUANT.get(acc, {}).items()
        if target.fixpipe_quant_ok("gm", quant, acc, out)
    }


def matmul_hardware_transposes(
    target: Target, transpose_a: bool, transpose_b: bool
) -> tuple[bool, bool]:
    """Whether the lowered matmul's L1 -> L0A and L1 -> L0B moves transpose inside fractals.

    A given transposed is loaded with DN2NZ where the target has it (a5), else staged as Nz of
    A^T and transposed on the way to L0A. B is staged as Zz of B (seed-NZ; Nz for b8/b4, whose
    LoadDataWithTranspose squares stack fractals along k) and transposed on the way to L0B,
    unless B is given transposed (Nz of B^T is already Zn inside each fractal)."""
    return transpose_a and not target.dn2nz, not transpose_b


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """C[M, N] = A[M, K] x B[K, N] (+ bias[N]) on GM memrefs of any static M, N, K.

    `transpose_a` / `transpose_b`: the GM memref holds the operand's transpose (A^T[K, M],
    B^T[N, K]). The accumulator is the Mmad dst type of (A, B) on the target (f32, or s32 for
    integer inputs); C's element type selects the Fixpipe conversion (`MATMUL_QUANT`: f32 -> f32,
    f16, bf16; s32 -> s32). The bias (`[N]` or `[1, N]`, accumulator type) is added to every
    row. There is no executor implementation: `pto-tile-matmul` lowers it to tiled cube ops."""

    name = "pto.matmul"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    bias = opt_operand_def(MemRefType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? "
        "(`bias` $bias^ `:` type($bias))? attr-dict `:` type($a) `,` type($b) `,` type($c)"
    )

    def __init__(
        self,
        a: Value,
        b: Value,
        c: Value,
        bias: Value | None = None,
        *,
        transpose_a: bool = False,
        transpose_b: bool = False,
    ) -> None:
        super().__init__(
            operands=[a, b, c, [] if bias is None else [bias]],
            properties={
                "transpose_a": UnitAttr() if transpose_a else None,
                "transpose_b": UnitAttr() if transpose_b else None,
            },
        )

    @property
    def is_transpose_a(self) -> bool:
        return self.transpose_a is not None

    @property
    def is_transpose_b(self) -> bool:
        return self.transpose_b is not None

    def problem(self) -> tuple[int, int, int]:
        """(M, N, K) of a verified matmul."""
        a, b = self.a.type, self.b.type
        assert isinstance(a, MemRefType) and isinstance(b, MemRefType)
        m, k = a.get_shape()[::-1] if self.is_transpose_a else a.get_shape()
        n = b.get_shape()[0] if self.is_transpose_b else b.get_shape()[1]
        return m, n, k

    def element_names(self) -> tuple[str, str, str]:
        """isa names of the (A, B, C) element types of a verified matmul."""
        names = []
        for v in (self.a, self.b, self.c):
            t = v.type
            assert isinstance(t, MemRefType)
            name = element_name_or_none(t.element_type)
            assert name is not None
            names.append(name)
        return names[0], names[1], names[2]

    def _static_dims(self, role: str, value: SSAValue, ranks: tuple[int, ...]) -> tuple[int, ...]:
        t = _gm_memref(self, role, value)
        if t.get_num_dims() not in ranks:
            legal = " or ".join(str(r) for r in ranks)
            raise _error(self, f"requires {role} memref of rank {legal}, got rank {t.get_num_dims()}")
        dims = t.get_shape()
        if any(d < 0 for d in dims):
            raise _error(self, f"requires a static {role} shape, got {_fmt_shape(dims)}")
        if any(d == 0 for d in dims):
            raise _error(self, f"requires a non-empty {role}, got shape {_fmt_shape(dims)}")
        return tuple(dims)

    def verify_(self) -> None:
        target = target_of(self)
        missing = [
            feature
            for feature, present in (
                ("nd2nz", target.nd2nz),
                ("fixpipe to gm", "gm" in target.fixpipe_destinations),
            )
            if not present
        ]
        if missing:
            raise _error(
                self, f"matmul is not supported on target {target.name} (no {', '.join(missing)})"
            )
        ta, tb = self.is_transpose_a, self.is_transpose_b
        a_dims = self._static_dims("a", self.a, (2,))
        b_dims = self._static_dims("b", self.b, (2,))
        c_dims = self._static_dims("c", self.c, (2,))
        m, k = a_dims[::-1] if ta else a_dims
        kb, n = b_dims[::-1] if tb else b_dims
        if kb != k:
            raise _error(
                self,
                f"requires b with K = {k} (from a) {'columns' if tb else 'rows'}, "
                f"got shape {_fmt_shape(b_dims)}",
            )
        if c_dims != (m, n):
            raise _error(self, f"requires c shape {m}x{n}, got {_fmt_shape(c_dims)}")

        ea, eb, ec = (
            _memref_element(self, role, v.type)  # type: ignore[arg-type]
            for role, v in (("a", self.a), ("b", self.b), ("c", self.c))
        )
        acc = matmul_accumulator(target, ea, eb)
        if acc is None:
            pairs = sorted(
                {f"({x}, {y})" for x, y, d in target.mmad_types if d in isa.FIXPIPE_SRC_TYPES}
            )
            raise _error(
                self,
                f"requires (a, b) element types in [{', '.join(pairs)}] on target {target.name}, "
                f"got ({ea}, {eb})",
            )
        for role, elem in (("a", ea), ("b", eb)):
            legal = target.nd2nz_types & target.load2d_types
            if elem not in legal:
                raise _error(
                    self,
                    f"requires {role} element type in {_fmt_set(legal)} (nd2nz and load2d) on "
                    f"target {target.name}, got {elem}",
                )
        outputs = matmul_output_types(target, acc)
        if ec not in outputs:
            raise _error(
                self,
                f"requires c element type in {_fmt_set(outputs)} for a {acc} accumulator on "
                f"target {target.name}, got {ec}",
            )
        for role, needed, elem, hint in zip(
            ("a", "b"),
            matmul_hardware_transposes(target, ta, tb),
            (ea, eb),
            ("", "; give b transposed (transpose_b)"),
            strict=True,
        ):
            bits = isa.element_bits(elem)
            widths = isa_params.fractal_transpose_bits(target, "l0a" if role == "a" else "l0b")
            if needed and bits not in widths:
                raise _error(
                    self,
                    f"requires a fractal transpose of {bits}-bit elements ({elem}) to load {role}, "
                    f"which is not supported on target {target.name} (transposable widths "
                    f"{_fmt_set(widths)}){hint}",
                )
        if self.bias is not None:
            if (ea, eb, acc) not in target.mmad_bias_types:
                raise _error(
                    self,
                    f"matmul with bias is not supported for ({ea}, {eb}) -> {acc} on target "
                    f"{target.name}",
                )
            bias_dims = self._static_dims("bias", self.bias, (1, 2))
            if bias_dims not in ((n,), (1, n)):
                raise _error(self, f"requires bias shape {n} or 1x{n}, got {_fmt_shape(bias_dims)}")
            eb_bias = _memref_element(self, "bias", self.bias.type)  # type: ignore[arg-type]
            if eb_bias != acc:
                raise _error(
                    self,
                    f"requires bias element type {acc} (the accumulator type), got {eb_bias}",
                )
