"""`tcgen05.matmul`: D = A x B on global memrefs of any static shape, the Blackwell counterpart
of `pto.matmul`.

There is no instruction behind it: `mmair-lower` (`passes/tcgen05_lower_matmul.py`) turns it into
the kernel CUTLASS writes for one CTA (`mmair-lower{cta-group=2}`: for a CTA pair), a TMA-filled
SMEM ring, `tcgen05.mma` issued by one elected
thread with commits releasing the stages, the accumulator in TMEM and a `tcgen05.ld` epilogue
(docs/tcgen05-tma.md, "The tcgen05.matmul lowering"). The operand types select the MMA kind (f32
operands run as kind::tf32, 8-bit integers as kind::i8), D's type the accumulator; the plan of
the kernel, and every limit the verifier reports, come from `mmair.isa.tcgen05.matmul`.

A block-scaled matmul takes its scale factors as `scale(%sa, %sb)` in CUTLASS's scale-factor atom
layout (`isa.tcgen05.scale_atoms`): `%sa` is memref<ceil(M/128) x ceil(K/(4 VS)) x 32 x 16>, `%sb`
the same with N; the kind follows the operand and scale types (`isa.tcgen05.matmul.BLOCK_SCALED`:
mxf8f6f4 e4m3/e5m2/e2m3/e3m2/e2m1 with ue8m0, mxf4 e2m1 x e2m1 with ue8m0, mxf4nvf4 e2m1 with
e4m3 read as UE4M3) unless the `kind` attribute names one.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import MemRefType, StringAttr, UnitAttr
from xdsl.ir import SSAValue
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

from mmair.dialects.tcgen05._verify import _error, _target_of
from mmair.dialects.tcgen05.types import SpaceAttr
from mmair.dialects.types import element_name_or_none
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.matmul import MatmulPlan, plan_matmul
from mmair.isa.tcgen05.scale_atoms import ATOM_LANES, ATOM_ROW_BYTES


def _shape(dims: tuple[int, ...]) -> str:
    return "x".join("?" if d < 0 else str(d) for d in dims)


@irdl_op_definition
class MatmulOp(IRDLOperation):
    """D[M, N] = A[M, K] x B[K, N] on global memrefs of static shape, in a `tcgen05.target` module.

    `transpose_a` / `transpose_b`: the memref holds the operand's transpose (A^T[K, M], B^T[N, K]);
    the lowering reads a transposed A (and a B given as is) MN-major. A and B: f16, bf16 (kind::f16),
    f32 (kind::tf32), e4m3, e5m2, e2m3, e3m2, e2m1 (kind::f8f6f4; the sub-byte ones packed in
    global memory), s8 (i8), u8 (ui8) (kind::i8), one kind for both;
    D: the kind's accumulator types the lowering plans (`isa.tcgen05.matmul.D_TYPES`: f32, f16 for
    f16 x f16, s32 (i32) for kind::i8). `saturate` (kind::i8 only, R4): every MMA of the
    lowering clamps its s32 sum to [-2^31, 2^31 - 1] instead of wrapping. With `scale(%sa, %sb)`
    (scale-factor atoms, module docstring) it is block-scaled: D = (A x SA) (B x SB), the kind
    of the operand and scale types unless `kind` says otherwise. Executed only through
    `mmair-lower`; `--check-numpy` compares the lowered kernel with this op's logical product."""

    name = "tcgen05.matmul"
    MEMO_VERIFY: ClassVar[bool] = True  # the verifier reads only this op (tools/diagnostics.py)

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    d = operand_def(MemRefType)
    scale_a = opt_operand_def(MemRefType)
    scale_b = opt_operand_def(MemRefType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    saturate = opt_prop_def(UnitAttr)
    kind = opt_prop_def(StringAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments())
    assembly_format = (
        "$a `,` $b `,` $d (`scale` `(` $scale_a^ `,` $scale_b `)`)? "
        "(`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? (`saturate` $saturate^)? "
        "attr-dict `:` type($a) `,` type($b) `,` type($d) "
        "(`,` type($scale_a)^ `,` type($scale_b))?"
    )

    def __init__(self, a: SSAValue, b: SSAValue, d: SSAValue, *, transpose_a: bool = False,
                 transpose_b: bool = False,
                 scales: tuple[SSAValue, SSAValue] | None = None,
                 kind: str | None = None, saturate: bool = False) -> None:
        super().__init__(operands=[a, b, d, [] if scales is None else [scales[0]],
                                   [] if scales is None else [scales[1]]], properties={
            "transpose_a": UnitAttr() if transpose_a else None,
            "transpose_b": UnitAttr() if transpose_b else None,
            "saturate": UnitAttr() if saturate else None,
            "kind": StringAttr(kind) if kind is not None else None,
        })

    @property
    def is_block_scaled(self) -> bool:
        return self.scale_a is not None

    @property
    def is_transpose_a(self) -> bool:
        return self.transpose_a is not None

    @property
    def is_transpose_b(self) -> bool:
        return self.transpose_b is not None

    @property
    def is_saturate(self) -> bool:
        return self.saturate is not None

    def _dims(self, role: str, value: SSAValue) -> tuple[int, ...]:
        t = value.type
        assert isinstance(t, MemRefType)
        if isinstance(t.memory_space, SpaceAttr):
            raise _error(self, f"requires {role} in global memory, got {t}")
        if t.get_num_dims() != 2:
            raise _error(self, f"requires {role} memref of rank 2, got rank {t.get_num_dims()}")
        dims = tuple(t.get_shape())
        if any(d < 0 for d in dims):
            raise _error(self, f"requires a static {role} shape, got {_shape(dims)}")
        if any(d == 0 for d in dims):
            raise _error(self, f"requires a non-empty {role}, got shape {_shape(dims)}")
        strides = t.get_strides()
        if strides is not None and tuple(strides) != (dims[1], 1):
            raise _error(self, f"requires a row-major (contiguous) {role}, got {t}")
        return dims

    def problem(self) -> tuple[int, int, int]:
        """(M, N, K), after the shape checks of the verifier."""
        a, b = self.a.type, self.b.type
        assert isinstance(a, MemRefType) and isinstance(b, MemRefType)
        m, k = a.get_shape()[::-1] if self.is_transpose_a else a.get_shape()
        n = b.get_shape()[0] if self.is_transpose_b else b.get_shape()[1]
        return m, n, k

    def scale_names(self) -> tuple[str, str] | None:
        """The element types of the scale operands (None without them)."""
        if self.scale_a is None or self.scale_b is None:
            return None
        names = []
        for role, v in (("scale_a", self.scale_a), ("scale_b", self.scale_b)):
            t = v.type
            assert isinstance(t, MemRefType)
            name = element_name_or_none(t.element_type)
            if name is None:
                raise _error(self, f"requires a {role} element type mmair knows, got "
                                   f"{t.element_type}")
            names.append(name)
        return names[0], names[1]

    def element_names(self) -> tuple[str, str, str]:
        names = []
        for role, v in (("a", self.a), ("b", self.b), ("d", self.d)):
            t = v.type
            assert isinstance(t, MemRefType)
            name = element_name_or_none(t.element_type)
            if name is None:
                raise _error(self, f"requires a {role} element type mmair knows, got "
                                   f"{t.element_type}")
            names.append(name)
        return names[0], names[1], names[2]

    def plan(self, cta_group: int = 1) -> MatmulPlan:
        """The lowering's plan (`isa.tcgen05.matmul.plan_matmul`) of a verified op; `cta_group`
        2: the CTA-pair kernel (`tcgen05-lower-matmul{cta-group=2}`)."""
        m, n, k = self.problem()
        ea, eb, ed = self.element_names()
        return plan_matmul(m, n, k, ea, eb, ed, self.is_transpose_a, self.is_transpose_b,
                           _target_of(self) or "sm_100a", self.scale_names(),
                           None if self.kind is None else self.kind.data, self.is_saturate,
                           cta_group)

    def _verify_scale_shapes(self, plan: MatmulPlan) -> None:
        """The scale operands hold the plan's atoms: [rows / 128, K / (4 VS), 32, 16]."""
        assert plan.scales is not None
        for role, value, want, rows in (("scale_a", self.scale_a, plan.scales.a_shape, "M"),
                                        ("scale_b", self.scale_b, plan.scales.b_shape, "N")):
            t = value.type  # type: ignore[union-attr]
            assert isinstance(t, MemRefType)
            if isinstance(t.memory_space, SpaceAttr):
                raise _error(self, f"requires {role} in global memory, got {t}")
            dims = tuple(t.get_shape())
            if len(dims) == 2:
                raise _error(self, f"cannot be lowered: {role} in the logical layout "
                                   f"{_shape(dims)} ({rows} x K / {plan.scales.vector}) is not "
                                   f"what tcgen05.cp .32x128b.warpx4 reads: a TMEM lane's 16 "
                                   f"bytes are the scales of rows r, r + 32, r + 64, r + 96 for 4 "
                                   f"K blocks, 4-byte pieces of 4 rows here (a TMA box row must "
                                   f"be 16 bytes, TMA8); legal: the scale-factor atom layout "
                                   f"{_shape(want)} ({rows} / 128 x K / {4 * plan.scales.vector}"
                                   f" x {ATOM_LANES} x {ATOM_ROW_BYTES}, CUTLASS's "
                                   f"Sm1xxBlockScaledConfig)")
            if dims != want:
                raise _error(self, f"requires {role} of shape {_shape(want)} (the scale-factor "
                                   f"atoms of {rows} = {plan.m if rows == 'M' else plan.n}, "
                                   f"K = {plan.k}), got {_shape(dims)}")
            strides = t.get_strides()
            if strides is not None and tuple(strides) != (want[1] * want[2] * want[3],
                                                          want[2] * want[3], want[3], 1):
                raise _error(self, f"requires a row-major (contiguous) {role}, got {t}")

    def verify_(self) -> None:
        if _target_of(self) is None:
            raise _error(self, "requires a module with the tcgen05.target attribute")
        ta, tb = self.is_transpose_a, self.is_transpose_b
        a_dims = self._dims("a", self.a)
        b_dims = self._dims("b", self.b)
        d_dims = self._dims("d", self.d)
        m, k = a_dims[::-1] if ta else a_dims
        kb, n = b_dims[::-1] if tb else b_dims
        if kb != k:
            raise _error(self, f"requires b with K = {k} (from a) {'columns' if tb else 'rows'}, "
                               f"got shape {_shape(b_dims)}")
        if d_dims != (m, n):
            raise _error(self, f"requires d shape {m}x{n}, got {_shape(d_dims)}")
        if (self.scale_a is None) != (self.scale_b is None):
            raise _error(self, "requires both scale operands or neither")
        try:
            plan = self.plan()
        except DescriptorError as err:
            raise _error(self, f"cannot be lowered: {err}") from err
        if plan.scales is not None:
            self._verify_scale_shapes(plan)


__all__ = ["MatmulOp"]
