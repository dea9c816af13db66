"""GM -> L1 -> L0 -> Mmad -> (Fixpipe) equals numpy matmul on every Ascend target and Mmad type.

For every target in `TARGET_NAMES` and every (lhs, rhs, dst) of `get_target(t).mmad_types`,
hypothesis draws M, N, K in [1, 300] (plus fixed edge shapes built from 1, 15, 16, 17, 300), the
test writes a tiled kernel as pto IR (static sizes; one function per 128 x 128 output tile shape,
called with the tile origin; the K loop unrolled in steps of 128), verifies it for the target and
executes it. For each output tile the operand panels A[m0:m0+ms, 0:K] and B[0:K, n0:n0+ns] are
staged in L1, K slices of them move to L0A / L0B (`src[row, col]` starts), `pto.mad` then
`pto.mad_acc` accumulate in L0C, and Fixpipe writes C to GM.

The IR contains exactly the instructions the target has (docs/ascend.md "Targets and buffers", `Target`
fields); the test harness stands in for the pieces it lacks:

| piece                  | in IR when                                   | otherwise (host, kernels API)  |
|------------------------|----------------------------------------------|--------------------------------|
| GM -> L1 (ND2NZ)       | `target.nd2nz`, both types in `nd2nz_types`  | `kernels.write_logical` into   |
|                        |                                              | the L1 panels (same addresses) |
| L1 -> L0A/L0B (Load2D) | both types in `load2d_types`                 | `write_logical` of the whole   |
|                        |                                              | K panel into L0A / L0B; one    |
|                        |                                              | `pto.mad` with k = K           |
| Mmad                   | always                                       | -                              |
| Fixpipe L0C -> GM      | `fixpipe_quant_ok("gm", "none", acc, acc)`   | L0C read back after each tile  |
|                        |                                              | with `layouts.unpack`          |

B reaches L0B either as Zz of B in L1 with a per-fractal hardware transpose, or, when the target
cannot transpose fractals of the rhs width into L0B (`fractal_transpose_bits`: 4-bit except
on a2/a3, 8-bit on 310p and 910) or hypothesis asks for it, as B^T (GM holds B^T[N, K]) in Nz with the `transpose` flag.

What each target exercises (every combination of its Mmad table, hif8 excepted, see below):

* a2, a3, a5: the whole path in IR (GM -> L1 -> L0 -> mad/mad_acc -> Fixpipe), run with
  `run_module`; a5 with its Nz L0A and the fp8 pairs.
* 200i_a2 (no ND2NZ): L1 staged by the host; L1 -> L0, Mmad and Fixpipe (M300) in IR. s4 has no
  LoadData2D there either: L0A / L0B staged by the host, Mmad and Fixpipe in IR.
* 310p (no Fixpipe; ND2NZ only for b16/b32): f16 x f16 -> f32 / f16 runs GM -> L1 -> L0 -> Mmad
  in IR; s8, u8 x s8, u8 and s4 have L1 staged by the host, L1 -> L0 and Mmad in IR. L0C is read
  back by the host.
* 910 (no ND2NZ, no Fixpipe): L1 staged by the host; L1 -> L0 and Mmad in IR; L0C read back.

Reference (independent numpy, in f64 / int64 from the same rounded inputs, |A|, |B| elementwise):

* Integers (s8, u8, s4; s32 or u32 accumulator): exact. The executor's accumulator semantics
  (docs/executor.md: the integer result saturates to the accumulator range when added to L0C or a
  bias) are asserted not to be reached: |A| @ |B| stays inside the accumulator range for K <= 300,
  so wrap and saturation cannot change the result. `test_integer_accumulation_saturates` checks the
  saturation itself for the accumulators only these targets have (u8 x s8 -> s32, u8 x u8 -> u32).
* f32 accumulator: |C - ref| <= 2 * (K + 2) * 2^-24 * (|A| @ |B|), the bound of an f32 sum of K
  f32-rounded products in any order (the executor multiplies with BLAS sgemm and adds the
  `mad_acc` partial sums in f32).
* f16 accumulator (f16 x f16 -> f16, 310p and 910): the executor computes each Mmad in f32 and
  rounds C to f16 once per Mmad write (a `mad_acc` adds the f32 partial sum to the f16 C and rounds
  again). With S = ceil(K / 128) Mmads this gives
  |C - ref| <= S * 2^-11 * (1 + 2^-11)^S * (|A| @ |B|) + 2 * (K + 2) * 2^-24 * (|A| @ |B|) + S * 2^-25
  (one f16 rounding per Mmad, relative to a partial sum bounded by |A| @ |B|; the f32 sum; half the
  f16 subnormal step per rounding). Hardware that accumulates in f16 product by product is less
  precise (Ascend C Mmad page: "cannot reach double-thousandth precision"); this bound is that of the
  executor's model, not of the hardware.

hif8 x hif8 -> f32 (a5) is not in these plans (numpy has no HiFloat8 type to stage it with): the
executor decodes hif8 operands with `isa/ascend/hif8.py` (`test_hif8_mad_uses_the_values`,
tests/unit/isa/ascend/test_hif8.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.dialects.types import element_type
from mmair.executor.ascend import kernels
from mmair.executor.engine.memory import Memory
from mmair.executor.runner import make_interpreter, run_module
from mmair.isa.ascend import layouts
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import TARGET_NAMES, element_bits, get_target
from mmair.isa.dtypes import numpy_dtype
from mmair.tools.diagnostics import LocatingParser, verify_module

TILE = 128  # output tile edge (M, N) and K step
EDGES = (1, 15, 16, 17, 300)

# ------------------------------------------------------------------------------------------------
# What the target has
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One (target, lhs, rhs, acc) combination and the pieces of the path it runs in IR."""

    target: str
    lhs: str
    rhs: str
    acc: str
    gm_l1: bool  # GM -> L1 ND2NZ in IR (else the host stages L1)
    l1_l0: bool  # L1 -> L0A/L0B LoadData2D in IR (else the host stages L0, k = K)
    fixpipe: bool  # Fixpipe L0C -> GM in IR (else the host reads L0C)
    must_transpose_b: bool  # no fractal transpose of the rhs width: B goes as B^T

    @property
    def l0a_layout(self) -> str:
        return get_target(self.target).l0a_layout


def make_plan(target_name: str, lhs: str, rhs: str, acc: str) -> Plan:
    t = get_target(target_name)
    return Plan(
        target=target_name,
        lhs=lhs,
        rhs=rhs,
        acc=acc,
        gm_l1=t.nd2nz and {lhs, rhs} <= t.nd2nz_types,
        l1_l0={lhs, rhs} <= t.load2d_types,
        fixpipe=t.fixpipe_quant_ok("gm", "none", acc, acc),
        must_transpose_b=element_bits(rhs) not in isa_params.fractal_transpose_bits(t, "l0b"),
    )


PLANS = [
    make_plan(t, lhs, rhs, acc)
    for t in TARGET_NAMES
    for lhs, rhs, acc in sorted(get_target(t).mmad_types)
    if lhs != "hif8"
]


def test_plans_cover_every_mmad_combination_but_hif8():
    covered = {(p.target, p.lhs, p.rhs, p.acc) for p in PLANS}
    every = {(t, *combo) for t in TARGET_NAMES for combo in get_target(t).mmad_types}
    assert every - covered == {("a5", "hif8", "hif8", "f32")}
    # The pieces each target lacks are really staged by the host (docs/ascend.md "Targets and buffers").
    by = {(p.target, p.lhs, p.acc): p for p in PLANS}
    assert not by["910", "f16", "f16"].gm_l1 and not by["910", "f16", "f16"].fixpipe
    assert by["310p", "f16", "f32"].gm_l1 and not by["310p", "s8", "s32"].gm_l1
    assert not by["200i_a2", "f16", "f32"].gm_l1 and by["200i_a2", "f16", "f32"].fixpipe
    assert not by["200i_a2", "s4", "s32"].l1_l0
    assert all(p.gm_l1 and p.l1_l0 and p.fixpipe for p in PLANS if p.target in ("a2", "a3", "a5"))


# ------------------------------------------------------------------------------------------------
# The kernel as IR
# ------------------------------------------------------------------------------------------------


def _mlir(elem: str) -> str:
    return str(element_type(elem))


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Kernel:
    """Static shapes and buffer placement of one tiled matmul."""

    plan: Plan
    m: int
    n: int
    k: int
    transpose_b: bool

    @property
    def kp(self) -> int:  # K padded to whole K steps: the L1 panels' width
        return _ceil(self.k, TILE) * TILE

    @property
    def tk(self) -> int:  # the L0 tiles' K extent
        return TILE if self.plan.l1_l0 else self.kp

    def tiles(self) -> list[tuple[int, int, int, int]]:
        return [(m0, min(TILE, self.m - m0), n0, min(TILE, self.n - n0))
                for m0 in range(0, self.m, TILE) for n0 in range(0, self.n, TILE)]

    # tile types ---------------------------------------------------------------------------------
    def gemv_nd(self, ms: int) -> bool:
        """A one-row tile follows the GEMV rule: an nd vector in L1 and L0A, except where
        `disable_gemv` exists (a5), which keeps the zz/nz path."""
        return ms == 1 and not get_target(self.plan.target).gemv_disable

    def l1a(self, ms: int = TILE) -> tuple[tuple[int, int], str]:
        return ((1, self.kp), "nd") if self.gemv_nd(ms) else ((TILE, self.kp), "nz")

    def l0a(self, ms: int) -> tuple[tuple[int, int], str]:
        if self.gemv_nd(ms):
            return (1, self.tk), "nd"
        return (TILE, self.tk), self.plan.l0a_layout

    def l1b(self) -> tuple[tuple[int, int], str]:
        if self.transpose_b:
            return (TILE, self.kp), "nz"
        # b8 B is staged nz: its transposing load (LoadDataWithTranspose) stacks fractals along k
        return (self.kp, TILE), isa_params.b_l1_layout_for_transpose(self.plan.rhs)

    def b_offset(self) -> int:
        shape, layout = self.l1a()
        nbytes = layouts.footprint_bytes(layout, shape, self.plan.lhs, "l1")
        return _ceil(nbytes, 512) * 512

    @staticmethod
    def tile_type(space: str, shape: tuple[int, int], elem: str, layout: str) -> str:
        return f"!pto.tile<{space}, {shape[0]}x{shape[1]}x{_mlir(elem)}, {layout}>"

    def gm_types(self) -> tuple[str, str, str]:
        p = self.plan
        b_shape = (self.n, self.k) if self.transpose_b else (self.k, self.n)
        return (f"memref<{self.m}x{self.k}x{_mlir(p.lhs)}>",
                f"memref<{b_shape[0]}x{b_shape[1]}x{_mlir(p.rhs)}>",
                f"memref<{self.m}x{self.n}x{_mlir(p.acc)}>")

    @staticmethod
    def func_name(ms: int, ns: int) -> str:
        return f"tile_{ms}x{ns}"

    def text(self) -> str:
        """One function per output tile shape (at most 4), called with the tile origin; `@main`
        calls them for every tile."""
        p = self.plan
        ta, tb, tc = self.gm_types()
        sig = f"%a: {ta}, %b: {tb}, %c: {tc}"
        shapes = sorted({(ms, ns) for _, ms, _, ns in self.tiles()})
        funcs = [self._tile_func(ms, ns, sig) for ms, ns in shapes]
        origins = sorted({v for m0, _, n0, _ in self.tiles() for v in (m0, n0)})
        calls = [f"    %o{v} = arith.constant {v} : index" for v in origins]
        calls += [f"    func.call @{self.func_name(ms, ns)}(%a, %b, %c, %o{m0}, %o{n0}) : "
                  f"({ta}, {tb}, {tc}, index, index) -> ()" for m0, ms, n0, ns in self.tiles()]
        main = f"  func.func @main({sig}) {{\n" + "\n".join(calls) + "\n    func.return\n  }"
        body = "\n".join([*funcs, main])
        return f'builtin.module attributes {{pto.target = "{p.target}"}} {{\n{body}\n}}'

    def _tile_func(self, ms: int, ns: int, sig: str) -> str:
        """C[m0:m0+ms, n0:n0+ns] for the origin (%m0, %n0): static sizes, K steps unrolled."""
        p = self.plan
        K = self.k
        steps = [(k0, min(TILE, K - k0)) for k0 in range(0, K, TILE)]
        consts = sorted({0, ms, ns, K, *(v for step in steps for v in step)})
        lines = [f"    %i{v} = arith.constant {v} : index" for v in consts]
        a_shape, a_layout = self.l0a(ms)
        l0a = self.tile_type("l0a", a_shape, p.lhs, a_layout)
        gemv_off = " disable_gemv" if ms == 1 and not self.gemv_nd(ms) else ""
        l0b = self.tile_type("l0b", (self.tk, TILE), p.rhs, "zn")
        l0c = self.tile_type("l0c", (TILE, TILE), p.acc, "nz")
        lines += [f"    %a0 = pto.alloc {{offset = 0}} : {l0a}",
                  f"    %b0 = pto.alloc {{offset = 0}} : {l0b}",
                  f"    %acc = pto.alloc {{offset = 0}} : {l0c}"]
        if p.l1_l0:
            (sa, la), (sb, lb) = self.l1a(ms), self.l1b()
            l1a, l1b = self.tile_type("l1", sa, p.lhs, la), self.tile_type("l1", sb, p.rhs, lb)
            lines += [f"    %a1 = pto.alloc {{offset = 0}} : {l1a}",
                      f"    %b1 = pto.alloc {{offset = {self.b_offset()}}} : {l1b}"]
            if p.gm_l1:
                lines += self._gm_l1(ms, ns, l1a, l1b)
            for k0, ks in steps:
                lines.append(f"    pto.mte_l1_l0a %a1[%i0, %i{k0}], %a0, %i{ms}, %i{ks} : {l1a}, {l0a}")
                if self.transpose_b:
                    lines.append(f"    pto.mte_l1_l0b %b1[%i0, %i{k0}], %b0, %i{ks}, %i{ns} transpose"
                                 f" : {l1b}, {l0b}")
                else:
                    lines.append(f"    pto.mte_l1_l0b %b1[%i{k0}, %i0], %b0, %i{ks}, %i{ns} : {l1b}, {l0b}")
                op = "pto.mad" if k0 == 0 else "pto.mad_acc"
                lines.append(f"    {op} %a0, %b0, %acc, %i{ms}, %i{ns}, %i{ks}{gemv_off} : {l0a}, {l0b}, {l0c}")
        else:
            lines.append(f"    pto.mad %a0, %b0, %acc, %i{ms}, %i{ns}, %i{K}{gemv_off} : {l0a}, {l0b}, {l0c}")
        if p.fixpipe:
            tc = self.gm_types()[2]
            window = f"memref<{ms}x{ns}x{_mlir(p.acc)}, strided<[{self.n}, 1], offset: ?>>"
            lines += [f"    %cw = memref.subview %c[%m0, %n0] [{ms}, {ns}] [1, 1] : {tc} to {window}",
                      f"    pto.fixpipe %acc, %cw, %i{ms}, %i{ns} : {l0c}, {window}"]
        lines.append("    func.return")
        head = f"  func.func @{self.func_name(ms, ns)}({sig}, %m0: index, %n0: index) {{\n"
        return head + "\n".join(lines) + "\n  }"

    def _gm_l1(self, ms: int, ns: int, l1a: str, l1b: str) -> list[str]:
        p, K = self.plan, self.k
        ta, tb, _ = self.gm_types()
        wa = f"memref<{ms}x{K}x{_mlir(p.lhs)}, strided<[{K}, 1], offset: ?>>"
        lines = [f"    %aw = memref.subview %a[%m0, 0] [{ms}, {K}] [1, 1] : {ta} to {wa}",
                 f"    pto.mte_gm_l1 %aw, %a1, %i{ms}, %i{K} : {wa}, {l1a}"]
        if self.transpose_b:  # GM holds B^T[N, K]
            wb = f"memref<{ns}x{K}x{_mlir(p.rhs)}, strided<[{K}, 1], offset: ?>>"
            lines += [f"    %bw = memref.subview %b[%n0, 0] [{ns}, {K}] [1, 1] : {tb} to {wb}",
                      f"    pto.mte_gm_l1 %bw, %b1, %i{ns}, %i{K} : {wb}, {l1b}"]
        else:
            wb = f"memref<{K}x{ns}x{_mlir(p.rhs)}, strided<[{self.n}, 1], offset: ?>>"
            lines += [f"    %bw = memref.subview %b[0, %n0] [{K}, {ns}] [1, 1] : {tb} to {wb}",
                      f"    pto.mte_gm_l1 %bw, %b1, %i{K}, %i{ns} : {wb}, {l1b}"]
        return lines


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "test.mlir").parse_module()
    verify_module(module)  # the target's verifiers: types, layouts, transposes, ranges
    return module


# ------------------------------------------------------------------------------------------------
# Running it
# ------------------------------------------------------------------------------------------------


def random_operand(rng: np.random.Generator, elem: str, shape: tuple[int, int]) -> np.ndarray:
    """Integers over the whole type range; floats standard normal rounded to the type."""
    dtype = numpy_dtype(elem)
    if elem in ("s8", "u8", "s4"):
        info = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7)}[elem]
        return rng.integers(info[0], info[1] + 1, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def _stage(tile, values: np.ndarray) -> None:
    """Host staging of an on-chip buffer: zero it, then write the logical values."""
    tile.will_write()  # the executor's protocol before any byte write (drops operand images)
    tile.physical[...] = 0
    kernels.write_logical(tile, values)


def execute(kern: Kernel, a: np.ndarray, b_gm: np.ndarray) -> tuple[np.ndarray, dict[str, int]]:
    """Run the kernel; C [M, N] in the accumulator dtype and the executed op counts."""
    p = kern.plan
    module = parse(kern.text())
    c = np.zeros((kern.m, kern.n), numpy_dtype(p.acc))
    if p.gm_l1 and p.fixpipe:  # the whole path is IR
        result = run_module(module, "main", {"a": a, "b": b_gm, "c": c})
        return result.outputs["c"], result.op_counts
    interp, memory = make_interpreter(module, p.target)
    b = b_gm.T if kern.transpose_b else b_gm  # logical B[K, N]
    def stage_a_tile(ms: int):  # the A buffer the tile function reads (nd for a GEMV row)
        if p.l1_l0:
            return memory.place("l1", *kern.l1a(ms), p.lhs, 0)
        return memory.place("l0a", *kern.l0a(ms), p.lhs, 0)

    if p.l1_l0:
        (sb, lb) = kern.l1b()
        stage_b = memory.place("l1", sb, lb, p.rhs, kern.b_offset())
    else:
        stage_b = memory.place("l0b", (kern.tk, TILE), "zn", p.rhs, 0)
    l0c = memory.place("l0c", (TILE, TILE), "nz", p.acc, 0)
    for m0, ms, n0, ns in kern.tiles():
        stage_a = stage_a_tile(ms)
        if not p.gm_l1:
            _stage(stage_a, a[m0 : m0 + ms, :])
            if kern.transpose_b and p.l1_l0:
                _stage(stage_b, b_gm[n0 : n0 + ns, :])
            else:
                _stage(stage_b, b[:, n0 : n0 + ns])
        interp.call_op(kern.func_name(ms, ns), (a, b_gm, c, m0, n0))
        if not p.fixpipe:
            got = layouts.unpack(l0c.physical, "nz", (TILE, TILE), p.acc, "l0c")
            c[m0 : m0 + ms, n0 : n0 + ns] = got[:ms, :ns]
    return c, dict(interp.op_counts)


def check(plan: Plan, m: int, n: int, k: int, transpose_b: bool, seed: int) -> None:
    kern = Kernel(plan, m, n, k, transpose_b or plan.must_transpose_b)
    rng = np.random.default_rng(seed)
    a = random_operand(rng, plan.lhs, (m, k))
    b = random_operand(rng, plan.rhs, (k, n))
    b_gm = np.ascontiguousarray(b.T) if kern.transpose_b else b
    got, counts = execute(kern, a, b_gm)

    steps = _ceil(k, TILE) if plan.l1_l0 else 1
    tiles = len(kern.tiles())
    assert counts["pto.mad"] == tiles and counts.get("pto.mad_acc", 0) == tiles * (steps - 1)
    assert counts.get("pto.fixpipe", 0) == (tiles if plan.fixpipe else 0)
    assert counts.get("pto.mte_gm_l1", 0) == (2 * tiles if plan.gm_l1 else 0)
    assert counts.get("pto.mte_l1_l0b", 0) == (tiles * steps if plan.l1_l0 else 0)

    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64
    bound = np.abs(a64) @ np.abs(b64)
    dtype = numpy_dtype(plan.acc)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        # No partial sum can leave the accumulator range: neither wrap nor saturation applies.
        assert bound.max() <= min(info.max, -float(info.min) if info.min else info.max)
        np.testing.assert_array_equal(got.astype(np.int64), ref.astype(np.int64))
        return
    tol = 2 * (k + 2) * 2.0**-24 * bound
    if plan.acc == "f16":
        u = 2.0**-11
        tol += steps * u * (1 + u) ** steps * bound + steps * 2.0**-25
    err = np.abs(got.astype(np.float64) - ref)
    bad = err > tol
    assert not bad.any(), (
        f"{int(bad.sum())} of {bad.size} elements off, worst excess {np.max(err - tol)}"
    )


def _edge_shape(index: int) -> tuple[int, int, int]:
    """Row `index % 5` of a Latin square over EDGES: the combinations of a target (at least 5,
    consecutive in PLANS) together put every edge value in every dimension."""
    return EDGES[index % 5], EDGES[(index + 1) % 5], EDGES[(index + 2) % 5]


EDGE_CASES = [
    pytest.param(plan, *_edge_shape(i), id=f"{plan.target}-{plan.lhs}x{plan.rhs}-{plan.acc}")
    for i, plan in enumerate(PLANS)
]


def test_edge_shapes_cover_every_edge_value_on_every_target():
    for target in TARGET_NAMES:
        shapes = [_edge_shape(i) for i, p in enumerate(PLANS) if p.target == target]
        for dim in range(3):
            assert {s[dim] for s in shapes} == set(EDGES), (target, dim)


@pytest.mark.parametrize("plan,m,n,k", EDGE_CASES)
def test_edge_shapes_equal_numpy(plan, m, n, k):
    check(plan, m, n, k, transpose_b=False, seed=m * 1000 + n * 10 + k)


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: f"{p.target}-{p.lhs}x{p.rhs}-{p.acc}")
def test_wide_transposed_shape_equals_numpy(plan):
    check(plan, 17, 300, 16, transpose_b=True, seed=1)


# One search over every plan and shape (one ~0.1 s run per example): 60 examples cost what 2 per
# plan did, and each example draws the plan too.
@settings(max_examples=60, deadline=None)
@given(
    plan=st.sampled_from(PLANS),
    m=st.integers(1, 300),
    n=st.integers(1, 300),
    k=st.integers(1, 300),
    transpose_b=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_random_shapes_equal_numpy(plan, m, n, k, transpose_b, seed):
    check(plan, m, n, k, transpose_b, seed)


def _with(plan: Plan, **changes) -> Plan:
    return Plan(**{**plan.__dict__, **changes})


MISSING = [
    pytest.param(_with(p, **{field: value}), op, id=f"{p.target}-{p.lhs}x{p.rhs}-{p.acc}-{field}")
    for p in PLANS
    for field, value, op, lacking in (
        ("gm_l1", True, "pto.mte_gm_l1", p.l1_l0 and not p.gm_l1),
        ("l1_l0", True, "pto.mte_l1_l0a", not p.l1_l0),
        ("fixpipe", True, "pto.fixpipe", not p.fixpipe),
        ("must_transpose_b", False, "pto.mte_l1_l0b", p.l1_l0 and p.must_transpose_b),
    )
    if lacking
]


@pytest.mark.parametrize("plan,op", MISSING)
def test_the_pieces_the_harness_stages_are_rejected_in_ir(plan, op):
    """Each piece the host stands in for is one the target's verifier refuses: the IR of
    `test_*_equal_numpy` uses everything the target has and nothing it lacks."""
    kern = Kernel(plan, 40, 40, 40, plan.must_transpose_b)
    with pytest.raises(Exception, match=f"'{op}' op .*(not supported|requires element type)"):
        parse(kern.text())


# ------------------------------------------------------------------------------------------------
# Accumulator semantics and refusals
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target,lhs,rhs,acc,start,a_val,b_val,expected",
    [
        # u8 x s8 -> s32 (310p, 910): negative products saturate at the s32 minimum
        ("910", "u8", "s8", "s32", -(2**31) + 10, 255, -128, -(2**31)),
        # u8 x u8 -> u32 (910): saturates at 2^32 - 1, not wrapping to small values
        ("910", "u8", "u8", "u32", 2**32 - 10, 255, 255, 2**32 - 1),
        ("310p", "u8", "u8", "s32", 2**31 - 10, 255, 255, 2**31 - 1),
    ],
)
def test_integer_accumulation_saturates(target, lhs, rhs, acc, start, a_val, b_val, expected):
    assert (lhs, rhs, acc) in get_target(target).mmad_types
    mem = Memory(target)
    a0 = mem.place("l0a", (16, 32), "zz", lhs)
    b0 = mem.place("l0b", (32, 16), "zn", rhs)
    c = mem.place("l0c", (16, 16), "nz", acc)
    kernels.write_logical(a0, np.full((16, 32), a_val, numpy_dtype(lhs)))
    kernels.write_logical(b0, np.full((32, 16), b_val, numpy_dtype(rhs)))
    c.physical[...] = np.array(start, dtype=np.int64).astype(numpy_dtype(acc))
    kernels.mad(a0, b0, c, 16, 16, 32, accumulate=True)
    got = layouts.unpack(c.physical, "nz", (16, 16), acc, "l0c")
    assert (got.astype(np.int64) == expected).all()
    # Without accumulation the exact product sum is written.
    kernels.mad(a0, b0, c, 16, 16, 32)
    got = layouts.unpack(c.physical, "nz", (16, 16), acc, "l0c")
    assert (got.astype(np.int64) == 32 * a_val * b_val).all()


def test_hif8_mad_uses_the_values():
    mem = Memory("a5")
    a0 = mem.place("l0a", (16, 32), "nz", "hif8")
    b0 = mem.place("l0b", (32, 16), "zn", "hif8")
    c = mem.place("l0c", (16, 16), "nz", "f32")
    kernels.write_logical(a0, np.full((16, 32), 0x10, np.uint8))  # HiF8 2.0
    kernels.write_logical(b0, np.full((32, 16), 0x30, np.uint8))  # HiF8 0.25
    kernels.mad(a0, b0, c, 16, 16, 32)
    got = layouts.unpack(c.physical, "nz", (16, 16), "f32", "l0c")
    np.testing.assert_array_equal(got, np.full((16, 16), 16.0, np.float32))
