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

EXAMPLES = pathlib.Path(__file__).parents[3] / "examples"
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
# The hand-written kernels below have no set_flag / wait_flag: they test the numpy reference, so
# they run with the sync checker off (every op in program order).
UNSYNCED = ("--sync-check=off",)

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
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--input", "unused=7",
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
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--check", f"out={tmp_path / 'want.npy'}",
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
    from mmair.executor.ascend import kernels

    real_mad = kernels.mad

    def off_by_a_bit(a, b, c, m, n, k, accumulate=False, bias=None, **flags):
        real_mad(a, b, c, m, n, k, accumulate, bias, **flags)
        from mmair.executor.ascend.kernels import read_logical, write_logical

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


def test_gather_mask_kernel_output_and_kept_count(tmp_path, capsys):
    src = np.arange(128, dtype=np.uint16) * 3
    np.save(tmp_path / "src.npy", src)
    code, out, err = run(capsys, EXAMPLES / "gather_mask.mlir", "--check-numpy",
                         "--input", f"src={tmp_path / 'src.npy'}", "--output", f"dst={tmp_path / 'dst.npy'}")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "result 0: 64 : index"
    assert any(x.startswith("check dst = numpy reference of the IR: max abs error 0,") for x in lines)
    assert any(x.startswith("check result 0 = numpy reference of the IR: max abs error 0,") for x in lines)
    # pattern 2 keeps the odd elements (bit 1 of the motif 0b1010), packed from dst[0]
    dst = np.load(tmp_path / "dst.npy")
    np.testing.assert_array_equal(dst[:64], src[1::2])


USER_PATTERN = """builtin.module attributes {pto.target = "a2"} {
  func.func @g(%src: memref<256xf16>, %pat: memref<16xui16>, %dst: memref<256xf16>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %s = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 256xf16, nd>
    %p = pto.alloc {offset = 512 : i64} : !pto.tile<ub, 16xui16, nd>
    %d = pto.alloc {offset = 1024 : i64} : !pto.tile<ub, 256xf16, nd>
    pto.mte_gm_ub %src, %s : memref<256xf16>, !pto.tile<ub, 256xf16, nd>
    pto.mte_gm_ub %pat, %p : memref<16xui16>, !pto.tile<ub, 16xui16, nd>
    %kept = pto.gather_mask %d, %s, pattern %p : !pto.tile<ub, 16xui16, nd>, %c0, %c2, %c1, %c8, %c0 : !pto.tile<ub, 256xf16, nd>, !pto.tile<ub, 256xf16, nd>
    pto.mte_ub_gm %d, %dst : !pto.tile<ub, 256xf16, nd>, memref<256xf16>
    func.return %kept : index
  }
}
"""


def test_gather_mask_user_pattern(tmp_path, capsys):
    rng = np.random.default_rng(3)
    words = rng.integers(0, 1 << 16, 16).astype(np.uint16)
    np.save(tmp_path / "pat.npy", words)
    path = write(tmp_path, USER_PATTERN)
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--input", f"pat={tmp_path / 'pat.npy'}")
    assert code == 0, err
    # two repeats of 128 elements with src1 repeat stride 0: both read the first 128 bits
    bits = np.unpackbits(words[:8].view(np.uint8), bitorder="little").astype(bool)
    want = 2 * int(bits.sum())
    assert out.splitlines()[0] == f"result 0: {want} : index"
    assert out.count(": ok") == 2


def test_gather_mask_counter_mode(tmp_path, capsys):
    rng = np.random.default_rng(5)
    words = rng.integers(0, 1 << 16, 16).astype(np.uint16)
    np.save(tmp_path / "pat.npy", words)
    text = USER_PATTERN.replace("%c0, %c2, %c1, %c8, %c0 :", "%c70, %c2, %c1, %c8, %c0 {counter} :")
    text = text.replace("%c8 = arith.constant 8 : index",
                        "%c8 = arith.constant 8 : index\n    %c70 = arith.constant 70 : index")
    path = write(tmp_path, text)
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--input", f"pat={tmp_path / 'pat.npy'}")
    assert code == 0, err
    # counter mode (a2: method 1): each of the 2 repeats covers 70 elements, reading pattern
    # bits 0-69 (src1 repeat stride 0)
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:70]
    assert out.splitlines()[0] == f"result 0: {2 * int(bits.sum())} : index"
    assert out.count(": ok") == 2


# s8 x s8 -> s32, then two fixpipes: req8 (MCB shift, ReLU, offset) to s8 and deqf16 to f16.
REQ8 = """builtin.module attributes {pto.target = "a2"} {
  func.func @rq(%a: memref<16x32xi8>, %b: memref<32x32xi8>, %out: memref<16x32xi8>, %out16: memref<16x32xf16>, %word: i64, %dword: i64) {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a1 = pto.alloc : !pto.tile<l1, 16x32xi8, nz>
    %b1 = pto.alloc : !pto.tile<l1, 32x32xi8, nz>
    %a0 = pto.alloc : !pto.tile<l0a, 16x32xi8, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x32xi8, zn>
    %acc = pto.alloc : !pto.tile<l0c, 16x32xi32, nz>
    pto.mte_gm_l1 %a, %a1, %c16, %c32 : memref<16x32xi8>, !pto.tile<l1, 16x32xi8, nz>
    pto.mte_gm_l1 %b, %b1, %c32, %c32 : memref<32x32xi8>, !pto.tile<l1, 32x32xi8, nz>
    pto.mte_l1_l0a %a1, %a0, %c16, %c32 : !pto.tile<l1, 16x32xi8, nz>, !pto.tile<l0a, 16x32xi8, zz>
    pto.mte_l1_l0b %b1, %b0, %c32, %c32 : !pto.tile<l1, 32x32xi8, nz>, !pto.tile<l0b, 32x32xi8, zn>
    pto.mad %a0, %b0, %acc, %c16, %c32, %c32 : !pto.tile<l0a, 16x32xi8, zz>, !pto.tile<l0b, 32x32xi8, zn>, !pto.tile<l0c, 16x32xi32, nz>
    pto.fixpipe %acc, %out, %c16, %c32 scalar %word {quant = "req8", relu} : !pto.tile<l0c, 16x32xi32, nz>, memref<16x32xi8>
    pto.fixpipe %acc, %out16, %c16, %c32 scalar %dword {quant = "deqf16"} : !pto.tile<l0c, 16x32xi32, nz>, memref<16x32xf16>
    func.return
  }
}
"""


def test_req8_and_deqf16_outputs_against_independent_numbers(tmp_path, capsys):
    rng = np.random.default_rng(8)
    a = rng.integers(-8, 9, (16, 32)).astype(np.int8)
    b = rng.integers(-8, 9, (32, 32)).astype(np.int8)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    word = encode_quant_word(0.75, shift=2, mcb=True, offset=-5, signed_output=True)
    dword = encode_quant_word(0.0625, shift=1, mcb=False)
    path = write(tmp_path, REQ8)
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--input", f"word={word}",
                         "--input", f"dword={dword}", "--input", f"a={tmp_path / 'a.npy'}",
                         "--input", f"b={tmp_path / 'b.npy'}", "--output", f"out={tmp_path / 'o.npy'}",
                         "--output", f"out16={tmp_path / 'o16.npy'}")
    assert code == 0, err
    assert out.count(": ok") == 2
    acc = a.astype(np.int64) @ b.astype(np.int64)
    shifted = acc >> 2  # MCB: arithmetic shift right by N = 2
    y = np.where(shifted < 0, 0.0, shifted * 0.75)  # ReLU zeroes negative inputs
    want = np.clip(np.clip(np.rint(y), -256, 255) - 5, -128, 127)
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), want)
    np.testing.assert_array_equal(np.load(tmp_path / "o16.npy"), (acc * 0.0625).astype(np.float16))


# ---- pto.reinterpret ----------------------------------------------------------------------------

REINTERPRET_MAD = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a_bits: memref<32x32xui16>, %b: memref<32x16xbf16>, %out: memref<32x16xf32>) {
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %a1u = pto.alloc : !pto.tile<l1, 32x32xui16, nz>
    %a1 = pto.reinterpret %a1u : !pto.tile<l1, 32x32xui16, nz> to !pto.tile<l1, 32x32xbf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 32x16xbf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 32x32xbf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x16xbf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x16xf32, nz>
    pto.mte_gm_l1 %a_bits, %a1u, %c32, %c32 : memref<32x32xui16>, !pto.tile<l1, 32x32xui16, nz>
    pto.mte_gm_l1 %b, %b1, %c32, %c16 : memref<32x16xbf16>, !pto.tile<l1, 32x16xbf16, zz>
    pto.mte_l1_l0a %a1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xbf16, nz>, !pto.tile<l0a, 32x32xbf16, zz>
    pto.mte_l1_l0b %b1, %b0, %c32, %c16 : !pto.tile<l1, 32x16xbf16, zz>, !pto.tile<l0b, 32x16xbf16, zn>
    pto.mad %a0, %b0, %acc, %c32, %c16, %c32 : !pto.tile<l0a, 32x32xbf16, zz>, !pto.tile<l0b, 32x16xbf16, zn>, !pto.tile<l0c, 32x16xf32, nz>
    pto.fixpipe %acc, %out, %c32, %c16 : !pto.tile<l0c, 32x16xf32, nz>, memref<32x16xf32>
    func.return
  }
}
"""


def reinterpret_inputs(tmp_path, seed: int) -> tuple[list[str], np.ndarray]:
    """bf16 A given as its raw bits (u16), B as bf16; the expected D in float64."""
    import ml_dtypes

    rng = np.random.default_rng(seed)
    a = rng.uniform(-2, 2, (32, 32)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-2, 2, (32, 16)).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "a_bits.npy", a.view(np.uint16))
    np.save(tmp_path / "b.npy", b)
    args = ["--input", f"a_bits={tmp_path / 'a_bits.npy'}", "--input", f"b={tmp_path / 'b.npy'}",
            "--output", f"out={tmp_path / 'out.npy'}"]
    return args, a.astype(np.float64) @ b.astype(np.float64)


def test_reinterpret_feeds_a_mad_with_the_bits_as_bf16(tmp_path, capsys):
    path = write(tmp_path, REINTERPRET_MAD)
    args, expected = reinterpret_inputs(tmp_path, 11)
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, *args)
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("check ")]
    m = RULE.search(line)
    assert m is not None and m.group(3) == "ok"
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=2.4e-7,
                               atol=float(m.group(2)))


def test_reinterpret_executor_fault_is_caught(tmp_path, capsys, monkeypatch):
    from mmair.executor.engine.memory import Memory

    real = Memory.reinterpret

    def as_f16(self, tile, shape, layout, element, name=""):  # the view reads bf16 bits as f16
        return real(self, tile, shape, layout, "f16" if element == "bf16" else element, name)

    monkeypatch.setattr(Memory, "reinterpret", as_f16)
    path = write(tmp_path, REINTERPRET_MAD)
    args, _ = reinterpret_inputs(tmp_path, 12)
    code, out, _ = run(capsys, path, "--check-numpy", *UNSYNCED, *args)
    assert code == 1 and "FAILED (" in out


REINTERPRET_WRITE_THROUGH = """builtin.module attributes {pto.target = "a2"} {
  func.func @g(%src: memref<128xf16>, %dst: memref<128xf16>) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = pto.alloc : !pto.tile<ub, 128xf16, nd>
    %d = pto.alloc : !pto.tile<ub, 128xf16, nd>
    %su = pto.reinterpret %s : !pto.tile<ub, 128xf16, nd> to !pto.tile<ub, 128xui16, nd>
    %du = pto.reinterpret %d : !pto.tile<ub, 128xf16, nd> to !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %dst, %d : memref<128xf16>, !pto.tile<ub, 128xf16, nd>
    pto.mte_gm_ub %src, %s : memref<128xf16>, !pto.tile<ub, 128xf16, nd>
    %n = pto.gather_mask %du, %su, %c0, %c1, %c1, %c0, %c0 {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.mte_ub_gm %d, %dst : !pto.tile<ub, 128xf16, nd>, memref<128xf16>
    func.return %n : index
  }
}
"""


def test_reinterpret_write_through_the_view_reaches_the_source(tmp_path, capsys):
    # GatherMask pattern 2 (keep every odd element) on u16 views of f16 tiles; the f16 tile is
    # stored: its first 64 elements are the odd source elements, the rest its loaded values.
    src = np.random.default_rng(13).uniform(-2, 2, 128).astype(np.float16)
    dst = np.full(128, -7.0, np.float16)
    np.save(tmp_path / "src.npy", src)
    np.save(tmp_path / "dst.npy", dst)
    path = write(tmp_path, REINTERPRET_WRITE_THROUGH)
    code, out, err = run(capsys, path, "--check-numpy", *UNSYNCED, "--input",
                         f"src={tmp_path / 'src.npy'}", "--input", f"dst={tmp_path / 'dst.npy'}",
                         "--output", f"dst={tmp_path / 'out.npy'}")
    assert code == 0, err
    (line,) = [x for x in out.splitlines() if x.startswith("check dst")]
    assert RULE.search(line).group(3) == "ok"
    got = np.load(tmp_path / "out.npy")
    np.testing.assert_array_equal(got[:64], src[1::2])
    np.testing.assert_array_equal(got[64:], dst[64:])
