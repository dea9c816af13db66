"""--check-numpy on kernels in the raw Ascend C parameter forms (`pto-expand-params` output):
copy_nd2nz / copy_dn2nz, load_2d / load_2d_transpose / load_2d_v2, mmad, fixpipe_copy. The
reference follows the parameters on the tiles' physical images; every lowered example passes,
random lowered matmuls equal numpy's float64 product, and a wrong executor fails the check."""

from __future__ import annotations

import pathlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import matmul_text, random_operand
from xdsl.dialects import func

from mmair.dialects import pto
from mmair.executor.ascend import raw_kernels
from mmair.executor.ascend.reference import _element_map
from mmair.executor.reference import reference_outputs
from mmair.executor.runner import run_module
from mmair.tools.run import main
from tests.unit.passes.test_pto_expand_params import COMBOS, combo_constraints, lowered

EXAMPLES = pathlib.Path(__file__).parents[3] / "examples"
RAW = (pto.CopyNd2NzOp, pto.CopyDn2NzOp, pto.Load2DOp, pto.Load2DTransposeOp, pto.Load2DV2Op,
       pto.MmadOp, pto.FixpipeCopyOp)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def check_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("check ")]


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.mlir")))
def test_every_example_lowered_to_raw_forms_passes(capsys, example):
    """With the sync checker on: the raw kernels are race-free and match numpy."""
    code, out, err = run(capsys, EXAMPLES / example, "-p", "mmair-lower,pto-expand-params",
                         "--check-numpy")
    assert code == 0, err
    lines = check_lines(out)
    assert lines and all(line.endswith(": ok") for line in lines), out


def test_lowered_examples_use_the_raw_forms(capsys, tmp_path):
    """The previous test is about raw kernels: the cube examples really lower to them."""
    from mmair.tools.opt import main as opt_main

    for name in ("matmul_f16.mlir", "gemm_f16_128.mlir", "gemm_kloop_double_buffer.mlir"):
        out_path = tmp_path / name
        assert opt_main([str(EXAMPLES / name), "-p", "mmair-lower,pto-expand-params",
                         "-o", str(out_path)]) == 0
        text = out_path.read_text()
        for op in ("pto.copy_nd2nz", "pto.load_2d", "pto.mmad", "pto.fixpipe_copy"):
            assert op in text, (name, op)
    capsys.readouterr()


def _entry(module) -> func.FuncOp:
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


@settings(max_examples=25, deadline=None)
@given(
    combo=st.sampled_from(COMBOS),
    m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 90),
    tm=st.sampled_from([0, 16, 32]), tk=st.sampled_from([0, 32, 64]),
    ta=st.booleans(), tb=st.booleans(), bias=st.booleans(), seed=st.integers(0, 999),
)
def test_random_lowered_matmuls_pass_and_equal_numpy(combo, m, n, k, tm, tk, ta, tb, bias, seed):
    target, lhs, rhs, out = combo
    from mmair.isa.ascend import targets as isa

    acc = pto.matmul_accumulator(isa.get_target(target), lhs, rhs)
    tm, tn, tk, ta, tb, bias = combo_constraints(lhs, tm, tk, ta, tb, bias)
    if ta and m > 1 and tm and m % tm == 1 and not isa.get_target(target).gemv_disable:
        tm = 0  # a one-row tile of a transposed A is refused (test_gemv_rule)
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    module = lowered(text, f"tile-m={tm} tile-n={tn} tile-k={tk}", True)
    assert any(isinstance(op, RAW) for op in module.walk())
    rng = np.random.default_rng(seed)
    inputs = {"a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
              "b": random_operand(rng, rhs, (n, k) if tb else (k, n))}
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    result = run_module(module, inputs=inputs)
    refs, _ = reference_outputs(module, _entry(module), inputs, result, None)
    (ref,) = refs
    got = result.outputs["c"].astype(np.float64)
    assert np.all(np.abs(got - ref.values.astype(np.float64))
                  <= ref.atol + ref.rtol * np.abs(ref.values.astype(np.float64)))
    # the reference itself is numpy's product in float64, rounded to the output type
    a = inputs["a"].astype(np.float64)
    b = inputs["b"].astype(np.float64)
    want = (a.T if ta else a) @ (b.T if tb else b)
    if bias:
        want = want + inputs["bias"].astype(np.float64)
    if np.dtype(ref.values.dtype).kind in "iu":
        np.testing.assert_array_equal(ref.values, np.clip(want, -2**31, 2**31 - 1))
    else:
        eps = float(ml_dtypes.finfo(ref.values.dtype).eps)
        np.testing.assert_allclose(ref.values.astype(np.float64), want, rtol=eps,
                                   atol=eps * float(np.abs(want).max(initial=1.0)))


def _reference_agrees(module, inputs):
    result = run_module(module, inputs=inputs)
    refs, _ = reference_outputs(module, _entry(module), inputs, result, None)
    for ref in refs:
        got = result.outputs[ref.name].astype(np.float64)
        want = ref.values.astype(np.float64)
        assert np.all(np.abs(got - want) <= ref.atol + ref.rtol * np.abs(want)), ref.name
    return {ref.name: ref.values for ref in refs}


def test_a5_dn2nz_copy(capsys, tmp_path):
    """a5 stages a transposed A with copy_dn2nz; the lowered kernel passes the check."""
    path = tmp_path / "k.mlir"
    path.write_text(matmul_text(40, 48, 72, "f16", "f16", "f32", "a5", True, False))
    out_path = tmp_path / "raw.mlir"
    from mmair.tools.opt import main as opt_main

    assert opt_main([str(path), "-p", "mmair-lower,pto-expand-params", "-o", str(out_path)]) == 0
    assert "pto.copy_dn2nz" in out_path.read_text()
    code, out, err = run(capsys, out_path, "--check-numpy")
    assert code == 0, err
    assert check_lines(out) and all(x.endswith(": ok") for x in check_lines(out))


def test_load_2d_v2_with_transposes():
    """The load_data_2dv2_l12l0 scenario-4 kernel (both operands transposed by
    LoadData2DParamsV2 on the way to L0A Nz / L0B Zn): the reference is A @ B."""
    from pto_testing import parse

    from tests.unit.passes.test_pto_expand_params import LOAD2D_V2_KERNEL

    _ctx, module = parse(LOAD2D_V2_KERNEL)
    rng = np.random.default_rng(5)
    a = rng.uniform(-2, 2, (40, 70)).astype(np.float16)
    b = rng.uniform(-2, 2, (70, 50)).astype(np.float16)
    refs = _reference_agrees(module, {"at": np.ascontiguousarray(a.T), "b": b})
    np.testing.assert_allclose(refs["c"], a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_b8_load_2d_transpose_and_channel_merged_fixpipe(target):
    """s8 B staged Nz in L1 reaches L0B through LoadDataWithTranspose squares, and C leaves
    through a REQ8 NZ Fixpipe with channel merge: the reference is clip(A @ B) in 16 x 32 blocks."""
    from pto_testing import parse

    from mmair.isa.ascend.quant import encode_quant_word
    from tests.unit.passes.test_pto_expand_params import nz2nz_kernel

    m = k = n = 32
    word = encode_quant_word(1.0, signed_output=True)
    text = nz2nz_kernel(target, "i8", "i32", "i8", "req8", m, n, k, 32, word, n).replace(
        f"l1, {k}x{n}xi8, zz>", f"l1, {k}x{n}xi8, nz>")
    ctx, module = parse(text)
    from xdsl.passes import PassPipeline

    from mmair.passes import get_all_passes

    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    kinds = {type(op) for op in module.walk()}
    assert pto.Load2DTransposeOp in kinds and pto.FixpipeCopyOp in kinds
    rng = np.random.default_rng(7)
    inputs = {"a": rng.integers(-8, 9, (m, k)).astype(np.int8),
              "b": rng.integers(-8, 9, (k, n)).astype(np.int8)}
    refs = _reference_agrees(module, inputs)
    c = np.clip(inputs["a"].astype(np.int64) @ inputs["b"], -128, 127)
    np.testing.assert_array_equal(refs["c"].transpose(1, 2, 0, 3).reshape(m, n), c)


@pytest.mark.parametrize("target", ["a2", "a5"])
def test_f16_nz_fixpipe_copy_and_gemv_rows(target):
    """An NZ Fixpipe (f32 -> f16 blocks of a (N1, M1, 16, 16) memref) and a one-row GEMV matmul,
    both in raw forms: the reference is numpy's product in the destination's layout."""
    from pto_testing import parse
    from xdsl.passes import PassPipeline

    from mmair.passes import get_all_passes
    from tests.unit.passes.test_pto_expand_params import nz2nz_kernel

    m, n, k = 32, 48, 16
    ctx, module = parse(nz2nz_kernel(target, "f16", "f32", "f16", "f322f16", m, n, k, 16)
                        .replace(" scalar %w", ""))
    PassPipeline.parse_spec(get_all_passes(), "pto-expand-params").apply(ctx, module)
    assert any(isinstance(op, pto.FixpipeCopyOp) for op in module.walk())
    rng = np.random.default_rng(3)
    inputs = {"a": rng.uniform(-2, 2, (m, k)).astype(np.float16),
              "b": rng.uniform(-2, 2, (k, n)).astype(np.float16)}
    refs = _reference_agrees(module, inputs)
    c = inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)
    np.testing.assert_allclose(refs["c"].astype(np.float64),
                               c.reshape(2, 16, 3, 16).transpose(2, 0, 1, 3), rtol=1e-3)
    gemv = lowered(matmul_text(1, 32, 256, "f16", "f16", "f32", target), "", True)
    a = rng.uniform(-2, 2, (1, 256)).astype(np.float16)
    b = rng.uniform(-2, 2, (256, 32)).astype(np.float16)
    refs = _reference_agrees(gemv, {"a": a, "b": b})
    np.testing.assert_allclose(refs["c"], a.astype(np.float64) @ b.astype(np.float64), rtol=1e-6,
                               atol=1e-5)


@pytest.mark.parametrize("kernel, entry", [("MATMULS", "bias"), ("MATMULS", "transposes"),
                                           ("MATMULS", "int8"), ("TWO_PRODUCTS", "k"),
                                           ("REQ8", "rq"), ("REINTERPRET_MAD", "k")])
def test_hand_written_kernels_in_raw_forms(tmp_path, capsys, kernel, entry):
    """The hand-written kernels of test_check_numpy (bias, transposes, two accumulated products,
    REQ8 / DEQF16 quantized outputs, a pto.reinterpret view feeding the mad) expanded to raw forms:
    the check passes. They carry no flags, so they run in program order."""
    from mmair.isa.ascend.quant import encode_quant_word
    from tests.unit.executor import test_check_numpy

    path = tmp_path / "k.mlir"
    path.write_text(getattr(test_check_numpy, kernel))
    expanded = tmp_path / "raw.mlir"
    from mmair.tools.opt import main as opt_main

    assert opt_main([str(path), "-p", "mmair-lower,pto-expand-params", "-o", str(expanded)]) == 0
    assert "pto.mmad" in expanded.read_text() and "pto.fixpipe_copy" in expanded.read_text()
    word = ["--input", f"word={encode_quant_word(0.25, signed_output=True)}"]
    extra = {"TWO_PRODUCTS": ["--input", "unused=1", *word],
             "REQ8": [*word, "--input", f"dword={encode_quant_word(0.125)}"]}.get(kernel, [])
    code, out, err = run(capsys, expanded, "--entry", entry, "--check-numpy", "--sync-check", "off",
                         "--seed", "3", *extra)
    assert code == 0, err
    assert check_lines(out) and all(x.endswith(": ok") for x in check_lines(out)), out


CHAIN = """builtin.module attributes {pto.target = "a2"} {
  func.func @chain(%x: memref<32x32xf16>, %w: memref<32x32xf16>, %v: memref<32x16xf16>, %out: memref<32x16xf32>) {
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %x1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %w1 = pto.alloc : !pto.tile<l1, 32x32xf16, zz>
    %v1 = pto.alloc : !pto.tile<l1, 32x16xf16, zz>
    %h1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %a0 = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x32xf16, zn>
    %b1 = pto.alloc : !pto.tile<l0b, 32x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    %acc2 = pto.alloc : !pto.tile<l0c, 32x16xf32, nz>
    pto.mte_gm_l1 %x, %x1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_gm_l1 %w, %w1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>
    pto.mte_gm_l1 %v, %v1, %c32, %c16 : memref<32x16xf16>, !pto.tile<l1, 32x16xf16, zz>
    pto.mte_l1_l0a %x1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %w1, %b0, %c32, %c32 : !pto.tile<l1, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mad %a0, %b0, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe %acc, %h1, %c32, %c32 {layout = "nz2nz", quant = "f322f16"} : !pto.tile<l0c, 32x32xf32, nz>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_l1_l0a %h1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %v1, %b1, %c32, %c16 : !pto.tile<l1, 32x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>
    pto.mad %a0, %b1, %acc2, %c32, %c16, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 32x16xf32, nz>
    pto.fixpipe %acc2, %out, %c32, %c16 : !pto.tile<l0c, 32x16xf32, nz>, memref<32x16xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("passes", ["", "pto-expand-params"])
def test_a_fixpipe_into_l1_feeds_a_second_matmul(tmp_path, capsys, passes):
    """(X @ W) goes through a Fixpipe into an f16 L1 tile and is multiplied again: the reference
    rounds the intermediate to f16 (it kept float64 and failed a correct kernel by 0.035), and
    its tolerance carries the intermediate's rounding (`LogicalTile.rel_error`)."""
    path = tmp_path / "chain.mlir"
    path.write_text(CHAIN)
    rng = np.random.default_rng(2)
    x, w, v = (rng.uniform(-2, 2, shape).astype(np.float16)
               for shape in ((32, 32), (32, 32), (32, 16)))
    for name, value in (("x", x), ("w", w), ("v", v)):
        np.save(tmp_path / f"{name}.npy", value)
    code, out, err = run(capsys, path, "-p", passes, "--sync-check", "off", "--check-numpy",
                         *[f"--input={n}={tmp_path / n}.npy" for n in "xwv"],
                         "--output", f"out={tmp_path / 'out.npy'}")
    assert code == 0, err
    assert check_lines(out)[0].endswith(": ok"), out
    h = (x.astype(np.float32) @ w.astype(np.float32)).astype(np.float16)
    want = h.astype(np.float64) @ v.astype(np.float64)
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), want, rtol=1e-3, atol=2e-2)


@pytest.mark.parametrize("fault", ["mmad drops the last k", "fixpipe_copy applies a ReLU"])
def test_a_wrong_raw_executor_fails_the_check(capsys, monkeypatch, fault):
    """The check catches an executor whose raw kernels compute something else (the reference
    does not call the executor's mmad, nor its tile views)."""
    if fault.startswith("mmad"):
        real = raw_kernels.mmad

        def wrong(a, b, c, m, n, k, **kw):
            real(a, b, c, m, n, max(k - 1, 1), **kw)

        monkeypatch.setattr(raw_kernels, "mmad", wrong)
    else:
        real_fixpipe = raw_kernels.fixpipe

        def relu(src, dst, p, layout, quant, _relu, *rest, **kw):
            real_fixpipe(src, dst, p, layout, quant, True, *rest, **kw)

        monkeypatch.setattr(raw_kernels, "fixpipe", relu)
    code, out, err = run(capsys, EXAMPLES / "gemm_f16_128.mlir", "-p",
                         "mmair-lower,pto-expand-params", "--check-numpy", "--sync-check", "off")
    assert code == 1, out
    assert any("FAILED" in line for line in check_lines(out)), out


def test_element_map_follows_the_byte_kernel_for_any_buffer_size():
    """`_element_map` recovers which source element each destination element holds, also when
    the element count needs several digits (8-bit elements, more than 255 of them)."""
    rng = np.random.default_rng(3)
    for bits in (8, 16, 32):
        width = bits // 8
        count = 4096 // width * 3
        perm = rng.permutation(count)

        def kernel(src, dst, perm=perm, width=width):
            dst.view(f"u{width}")[:perm.size - 5] = src.view(f"u{width}")[perm[:-5]]

        source = _element_map(kernel, bits, count, 0, count, 0)
        np.testing.assert_array_equal(source[:count - 5], perm[:-5])
        assert (source[count - 5:] == -1).all()


def test_missing_reference_names_the_op_not_a_lowering(tmp_path, capsys, monkeypatch):
    """An op the reference has no numpy form for is named as such (the old message blamed a
    missing lowering)."""
    from xdsl.interpreter import _IMPL_DICT_KEY  # pyright: ignore[reportPrivateUsage]

    from mmair.executor import reference

    impls = getattr(reference.ReferencePtoFunctions, _IMPL_DICT_KEY)
    monkeypatch.setattr(reference.ReferencePtoFunctions, _IMPL_DICT_KEY,
                        {k: v for k, v in impls.items() if k is not pto.MmadOp})
    code, out, err = run(capsys, EXAMPLES / "gemm_f16_128.mlir", "-p",
                         "mmair-lower,pto-expand-params", "--check-numpy", "--sync-check", "off")
    assert code == 1
    assert "error: 'pto.mmad' op --check-numpy: no numpy reference for this op" in err
    assert "lowering" not in err
