"""mmair-run --check-numpy: a reference derived from the IR for every kind of kernel (pto.matmul
with bias and transposes, hand-written cube kernels of any argument list, quantized outputs,
tcgen05), real-valued random inputs, the printed pass/fail rule and the all-zero reference."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from mmair.isa.ascend.quant import encode_quant_word
from mmair.tools.run import main

EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"
RULE = re.compile(r"pass if \|got - ref\| <= atol \+ rtol \* \|ref\| with rtol ([\d.e+-]+), "
                  r"atol ([\d.e+-]+): (ok|FAILED.*)$")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, text: str) -> pathlib.Path:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    return path


MATMULS = """builtin.module attributes {pto.target = "a2"} {
  func.func @bias(%a: memref<40x24xf16>, %b: memref<24x56xf16>, %bias: memref<56xf32>, %c: memref<40x56xf32>) {
    pto.matmul %a, %b, %c bias %bias : memref<56xf32> : memref<40x24xf16>, memref<24x56xf16>, memref<40x56xf32>
    func.return
  }
  func.func @transposes(%at: memref<24x40xbf16>, %bt: memref<56x24xbf16>, %c: memref<40x56xbf16>) {
    pto.matmul %at, %bt, %c transpose_a transpose_b : memref<24x40xbf16>, memref<56x24xbf16>, memref<40x56xbf16>
    func.return
  }
  func.func @int8(%a: memref<7x9xi8>, %b: memref<9x5xi8>, %c: memref<7x5xi32>, %bias: memref<5xi32>) {
    pto.matmul %a, %b, %c bias %bias : memref<5xi32> : memref<7x9xi8>, memref<9x5xi8>, memref<7x5xi32>
    func.return
  }
}
"""


@pytest.mark.parametrize("entry", ["bias", "transposes", "int8"])
def test_pto_matmul_forms(tmp_path, capsys, entry):
    path = write(tmp_path, MATMULS)
    code, out, err = run(capsys, path, "--entry", entry, "--check-numpy", "--seed", "5")
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("check ")]
    m = RULE.search(line)
    assert m is not None and m.group(3) == "ok", line
    if entry == "transposes":  # the reference is rounded to bf16: two bf16 ulps relative
        assert float(m.group(1)) == pytest.approx(2 * 2.0**-7)
    if entry == "int8":  # exact integers: no tolerance at all
        assert line.startswith("check c = numpy reference of the IR: max abs error 0,")
        assert (float(m.group(1)), float(m.group(2))) == (0.0, 0.0)


def test_bias_reference_matches_an_independent_numpy_computation(tmp_path, capsys):
    rng = np.random.default_rng(1)
    a = rng.uniform(-2, 2, (40, 24)).astype(np.float16)
    b = rng.uniform(-2, 2, (24, 56)).astype(np.float16)
    bias = rng.uniform(-2, 2, 56).astype(np.float32)
    for name, value in (("a", a), ("b", b), ("bias", bias)):
        np.save(tmp_path / f"{name}.npy", value)
    path = write(tmp_path, MATMULS)
    code, out, err = run(capsys, path, "--entry", "bias", "--check-numpy", "--output",
                         f"c={tmp_path / 'c.npy'}",
                         *[f"--input={n}={tmp_path / n}.npy" for n in ("a", "b", "bias")])
    assert code == 0, err
    got = np.load(tmp_path / "c.npy")
    want = a.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)


# A hand-written kernel that is not "a, b, c": two products accumulated (mad then mad_acc) from
# four GM inputs, an unrelated scalar argument, and a quantized s8 output through a QUANT_PRE word.
TWO_PRODUCTS = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%x: memref<32x32xf16>, %unused: index, %w1: memref<32x16xf16>, %y: memref<32x32xf16>,
               %w2: memref<32x16xf16>, %out: memref<32x16xi8>, %word: i64) {
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %x1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %y1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    %w11 = pto.alloc : !pto.tile<l1, 32x16xf16, zz>
    %w21 = pto.alloc : !pto.tile<l1, 32x16xf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x16xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x16xf32, nz>
    pto.mte_gm_l1 %x, %x1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_gm_l1 %y, %y1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_gm_l1 %w1, %w11, %c32, %c16 : memref<32x16xf16>, !pto.tile<l1, 32x16xf16, zz>
    pto.mte_gm_l1 %w2, %w21, %c32, %c16 : memref<32x16xf16>, !pto.tile<l1, 32x16xf16, zz>
    pto.mte_l1_l0a %x1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %w11, %b0, %c32, %c16 : !pto.tile<l1, 32x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>
    pto.mad %a0, %b0, %acc, %c32, %c16, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 32x16xf32, nz>
    pto.mte_l1_l0a %y1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_l1_l0b %w21, %b0, %c32, %c16 : !pto.tile<l1, 32x16xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>
    pto.mad_acc %a0, %b0, %acc, %c32, %c16, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x16xf16, zn>, !pto.tile<l0c, 32x16xf32, nz>
    pto.fixpipe %acc, %out, %c32, %c16 scalar %word {quant = "qf322b8_pre"} : !pto.tile<l0c, 32x16xf32, nz>, memref<32x16xi8>
    func.return
  }
}
"""


def test_hand_written_two_product_kernel_with_quantized_output(tmp_path, capsys):
    path = write(tmp_path, TWO_PRODUCTS)
    word = encode_quant_word(0.25, offset=3, signed_output=True)
    code, out, err = run(capsys, path, "--check-numpy", "--input", "unused=7",
                         "--input", f"word={word}", "--seed", "2")
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("check ")]
    assert line.startswith("check out = numpy reference of the IR:")
    m = RULE.search(line)
    assert m is not None and m.group(3) == "ok"
    assert float(m.group(2)) == 1.0  # quantized s8: one unit for a different .5 rounding


def test_quantized_output_against_independent_numbers(tmp_path, capsys):
    rng = np.random.default_rng(4)
    arrays = {"x": rng.uniform(-2, 2, (32, 32)), "y": rng.uniform(-2, 2, (32, 32)),
              "w1": rng.uniform(-2, 2, (32, 16)), "w2": rng.uniform(-2, 2, (32, 16))}
    for name, value in arrays.items():
        arrays[name] = value.astype(np.float16)
        np.save(tmp_path / f"{name}.npy", arrays[name])
    f = {k: v.astype(np.float64) for k, v in arrays.items()}
    acc = f["x"] @ f["w1"] + f["y"] @ f["w2"]
    # qf322b8_pre, scale 0.25, offset 3, s8 output: round half to even, +offset, saturate.
    want = np.clip(np.clip(np.rint(acc * 0.25), -256, 255) + 3, -128, 127)
    np.save(tmp_path / "want.npy", want.astype(np.int8))
    path = write(tmp_path, TWO_PRODUCTS)
    word = encode_quant_word(0.25, offset=3, signed_output=True)
    code, out, err = run(capsys, path, "--check-numpy", "--check", f"out={tmp_path / 'want.npy'}",
                         "--input", "unused=0", "--input", f"word={word}",
                         *[f"--input={n}={tmp_path / n}.npy" for n in arrays])
    assert code == 0, out + err
    assert out.count(": ok") == 2


def test_tcgen05_kernel(capsys):
    code, out, err = run(capsys, EXAMPLES / "tcgen05_mma_f16.mlir", "--check-numpy", "--seed", "1")
    assert code == 0, err
    assert out.startswith("check d = numpy tcgen05.mma reference: ")
    assert RULE.search(out.splitlines()[0]).group(3) == "ok"


def test_a_wrong_executor_result_fails_the_check(tmp_path, capsys, monkeypatch):
    from mmair.executor import kernels

    real_mad = kernels.mad

    def off_by_a_bit(a, b, c, m, n, k, accumulate=False, bias=None, **flags):
        real_mad(a, b, c, m, n, k, accumulate, bias, **flags)
        from mmair.executor.kernels import read_logical, write_logical

        write_logical(c, read_logical(c) * np.float32(1.001))

    monkeypatch.setattr(kernels, "mad", off_by_a_bit)
    path = write(tmp_path, MATMULS)
    code, out, _ = run(capsys, path, "--entry", "bias", "--check-numpy")
    assert code == 1 and "FAILED (" in out


def test_all_zero_reference(tmp_path, capsys):
    for name, shape in (("a", (40, 24)), ("b", (24, 56)), ("bias", (56,))):
        np.save(tmp_path / f"{name}.npy", np.zeros(shape, np.float16 if name != "bias" else np.float32))
    path = write(tmp_path, MATMULS)
    code, out, err = run(capsys, path, "--entry", "bias", "--check-numpy",
                         *[f"--input={n}={tmp_path / n}.npy" for n in ("a", "b", "bias")])
    assert code == 0, err
    assert "max abs error 0, max rel error n/a (reference all zero);" in out


def test_real_inputs_by_default_and_int_on_request(tmp_path, capsys):
    path = write(tmp_path, MATMULS)
    for inputs, integral in (("real", False), ("int", True)):
        code, _, err = run(capsys, path, "--entry", "bias", "--inputs", inputs, "--output",
                           f"a={tmp_path / 'a.npy'}")
        assert code == 0, err
        a = np.load(tmp_path / "a.npy").astype(np.float64)
        assert bool(np.all(a == np.round(a))) is integral
        assert np.all(np.abs(a) <= 3)


def test_gather_mask_kernel_is_refused_with_the_reason(capsys):
    code, _, err = run(capsys, EXAMPLES / "gather_mask.mlir", "--check-numpy")
    assert code == 1 and "--check-numpy: pto.gather_mask has no numpy reference" in err
