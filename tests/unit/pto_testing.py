"""Shared helpers of the pto pass and sync tests: parsing and lowering IR text, `pto.matmul`
kernels as text, seeded operands, the hand-written and lowered kernels the sync checker runs."""

from __future__ import annotations

import pathlib

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from mmair.dialects import get_all_dialects, pto
from mmair.executor.engine.events import SyncError
from mmair.executor.runner import run_module
from mmair.isa.ascend import targets as isa
from mmair.isa.dtypes import numpy_dtype
from mmair.passes import get_all_passes
from mmair.tools.diagnostics import LocatingParser, verify_module

MLIR_TYPE = {
    "f16": "f16", "bf16": "bf16", "f32": "f32", "s8": "i8", "s4": "i4", "s32": "i32",
    "e4m3": "f8E4M3FN", "e5m2": "f8E5M2",
}


UNIT_ROUNDOFF = {"f32": 0.0, "f16": 2.0**-11, "bf16": 2.0**-8}


TINY = {"f32": 0.0, "f16": 2.0**-25, "bf16": 0.0}


def parse(text: str) -> tuple[Context, ModuleOp]:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "test.mlir").parse_module()
    verify_module(module)
    return ctx, module


def lower(text: str, pipeline: str = "mmair-lower") -> ModuleOp:
    ctx, module = parse(text)
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    verify_module(module)
    return module


def matmul_text(m: int, n: int, k: int, lhs: str, rhs: str, out: str, target: str = "a2",
                transpose_a: bool = False, transpose_b: bool = False, bias: str | None = None,
                bias_rank: int = 1) -> str:
    a = f"memref<{k}x{m}x{MLIR_TYPE[lhs]}>" if transpose_a else f"memref<{m}x{k}x{MLIR_TYPE[lhs]}>"
    b = f"memref<{n}x{k}x{MLIR_TYPE[rhs]}>" if transpose_b else f"memref<{k}x{n}x{MLIR_TYPE[rhs]}>"
    c = f"memref<{m}x{n}x{MLIR_TYPE[out]}>"
    flags = (" transpose_a" if transpose_a else "") + (" transpose_b" if transpose_b else "")
    bias_arg = bias_use = ""
    if bias is not None:
        shape = f"{n}" if bias_rank == 1 else f"1x{n}"
        bias_type = f"memref<{shape}x{MLIR_TYPE[bias]}>"
        bias_arg, bias_use = f", %bias: {bias_type}", f" bias %bias : {bias_type}"
    return f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @mm(%a: {a}, %b: {b}, %c: {c}{bias_arg}) {{
    pto.matmul %a, %b, %c{flags}{bias_use} : {a}, {b}, {c}
    func.return
  }}
}}"""


def random_operand(rng: np.random.Generator, elem: str, shape: tuple[int, ...]) -> np.ndarray:
    dtype = numpy_dtype(elem)
    if elem == "s8":
        return rng.integers(-128, 128, size=shape).astype(dtype)
    if elem == "s4":
        return rng.integers(-8, 8, size=shape).astype(dtype)
    if elem == "s32":
        return rng.integers(-(2**20), 2**20, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def matmul_combos(target_name: str) -> list[tuple[str, str, str, str]]:
    """(target, lhs, rhs, out) for every Mmad type pair a matmul takes on the target and every
    output type of its accumulator."""
    target = isa.get_target(target_name)
    combos = []
    for lhs, rhs, _dst in sorted(target.mmad_types):
        if lhs == "hif8":  # no numpy reference type
            continue
        acc = pto.matmul_accumulator(target, lhs, rhs)
        if acc is None:
            continue
        for out in sorted(pto.matmul_output_types(target, acc)):
            combos.append((target_name, lhs, rhs, out))
    return combos


COMBOS = matmul_combos("a2") + matmul_combos("a5")


EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"


HAND_WRITTEN = ["gemm_f16_128.mlir", "gather_mask.mlir", "gemm_kloop_double_buffer.mlir"]


def example(name: str) -> ModuleOp:
    return parse((EXAMPLES / name).read_text())[1]


def inputs_for(module: ModuleOp, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs for every memref argument of the entry function."""
    from mmair.dialects.types import element_name
    from mmair.executor.runner import find_entry

    rng = np.random.default_rng(seed)
    found = {}
    for arg in find_entry(module).body.block.args:
        shape = tuple(arg.type.get_shape())
        elem = element_name(arg.type.element_type)
        if elem == "u16":
            found[arg.name_hint] = rng.integers(0, 2**16, size=shape).astype(np.uint16)
        else:
            found[arg.name_hint] = random_operand(rng, elem, shape)
    return found


def run(module: ModuleOp, inputs: dict, check: bool):
    return run_module(module, inputs={k: v.copy() for k, v in inputs.items()}, sync_check=check)


LOWERED = {
    "k loop": (matmul_text(32, 32, 256, "f16", "f16", "f32"),
               "pto-tile-matmul{tile-k=64},pto-assign-addresses,pto-insert-sync"),
    "k loop, double-buffered": (
        matmul_text(32, 32, 256, "f16", "f16", "f32"),
        "pto-tile-matmul{tile-k=64 multi-buffer=2},pto-assign-addresses,pto-insert-sync"),
    "m/n/k loops": (matmul_text(64, 64, 96, "f16", "f16", "f32"),
                    "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,"
                    "pto-insert-sync"),
    "m/n/k loops, double-buffered": (
        matmul_text(64, 48, 96, "f16", "f16", "f32"),
        "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32 multi-buffer=2},pto-assign-addresses,"
        "pto-insert-sync"),
}


def _kernels() -> list[tuple[str, int]]:
    cases = []
    for name in HAND_WRITTEN:
        module = example(name)
        count = sum(isinstance(op, pto.WaitFlagOp | pto.PipeBarrierOp) for op in module.walk())
        cases += [(name, i) for i in range(count)]
    for name in LOWERED:
        module = _build(name)
        count = sum(isinstance(op, pto.WaitFlagOp | pto.PipeBarrierOp) for op in module.walk())
        cases += [(name, i) for i in range(count)]
    return cases


_LOWERED_TEXT: dict[str, str] = {}


def _build(name: str) -> ModuleOp:
    """A fresh copy of a kernel (lowered ones are lowered once, then reparsed)."""
    if name in LOWERED:
        if name not in _LOWERED_TEXT:
            _LOWERED_TEXT[name] = str(lower(*LOWERED[name]))
        return parse(_LOWERED_TEXT[name])[1]
    return example(name)


LOOP = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @f(%src: memref<{rows}x16xf16>, %ub: index) {{
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %end = arith.constant {end} : index
    %t = pto.alloc : !pto.tile<l1, 16x16xf16, nz>
    %d = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    scf.for %i = %c0 to %{upper} step %c16 {{
      %w = memref.subview %src[%i, 0] [16, 16] [1, 1] : memref<{rows}x16xf16> to memref<16x16xf16, strided<[16, 1], offset: ?>>
      pto.mte_gm_l1 %w, %t, %c16, %c16 : memref<16x16xf16, strided<[16, 1], offset: ?>>, !pto.tile<l1, 16x16xf16, nz>
      pto.mte_l1_l0a %t, %d, %c16, %c16 : !pto.tile<l1, 16x16xf16, nz>, !pto.tile<l0a, 16x16xf16, zz>
    }}
    func.return
  }}
}}"""


def _outcome(name: str, index: int) -> tuple:
    module = _build(name)
    if index >= 0:
        victim = [op for op in module.walk()
                  if isinstance(op, pto.WaitFlagOp | pto.PipeBarrierOp)][index]
        victim.detach()
        victim.erase()
    try:
        result = run(module, inputs_for(module), True)
    except SyncError as err:  # the diagnostic is the outcome to compare
        fault = (err.kind, str(err), [(ev.seq, ev.kind, ev.epoch) for ev in err.events])
    else:
        fault = None
    if fault is not None:
        return fault
    return "clean", {k: v.tobytes() for k, v in result.outputs.items()}, dict(result.op_counts)


def check_matmul(m, n, k, lhs, rhs, out, target, ta, tb, bias=False, bias_rank=1, seed=0,
                 pipeline="mmair-lower"):
    """Lower and run one pto.matmul; assert it equals numpy within the module's tolerance."""
    acc = pto.matmul_accumulator(isa.get_target(target), lhs, rhs)
    assert acc is not None
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None, bias_rank)
    module = lower(text, pipeline)
    assert not any(isinstance(op, pto.MatmulOp) for op in module.walk())
    rng = np.random.default_rng(seed)
    inputs = {
        "a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
        "b": random_operand(rng, rhs, (n, k) if tb else (k, n)),
    }
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,) if bias_rank == 1 else (1, n))
    result = run_module(module, inputs=inputs)
    a = inputs["a"].astype(np.float64)
    b = inputs["b"].astype(np.float64)
    a, b = (a.T if ta else a), (b.T if tb else b)
    ref = a @ b + (inputs["bias"].astype(np.float64).reshape(1, n) if bias else 0.0)
    got = result.outputs["c"].astype(np.float64)
    if acc == "s32":
        np.testing.assert_array_equal(got, ref)
    else:
        bound = (np.abs(a) @ np.abs(b)) * (2 * (k + 2) * 2.0**-24)
        tol = UNIT_ROUNDOFF[out] * np.abs(ref) + (1 + UNIT_ROUNDOFF[out]) * bound + TINY[out]
        if bias:
            tol += np.abs(inputs["bias"].astype(np.float64)).reshape(1, n) * 2.0**-23
        bad = np.abs(got - ref) > tol
        assert not bad.any(), (
            f"{int(bad.sum())} elements off, worst {np.max(np.abs(got - ref) - tol)} over tolerance"
        )
    return result
