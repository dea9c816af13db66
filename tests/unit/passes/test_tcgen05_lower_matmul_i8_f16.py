"""tcgen05-lower-matmul for kind::i8 (s8/u8 in every pair -> s32) and an f16 D (f16 x f16 ->
f16): the lowered kernel runs clean under the asynchronous checker, is bit-exact against numpy
(integers: the int64 product; f16 D: numpy rounding the accumulator to f16 after every MMA of
K = 16, which is what an f16 accumulator does), in the default and the exact numerics mode, on
remainder shapes (rows, columns, K) and both operand majors, and passes --check-numpy."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from tcgen05_testing import matmul_kernel_file

from mmair.isa.tcgen05 import shapes
from mmair.tools.opt import main as opt_main
from mmair.tools.run import main

MLIR = {"s8": "i8", "u8": "ui8", "s32": "i32", "f16": "f16"}
NUMPY = {"s8": np.int8, "u8": np.uint8, "s32": np.int32, "f16": np.float16}


def _kernel(tmp_path: Path, m: int, n: int, k: int, a_type: str, b_type: str, d_type: str,
            ta: bool, tb: bool) -> Path:
    return matmul_kernel_file(tmp_path, m, n, k, MLIR[a_type], MLIR[b_type], MLIR[d_type], ta, tb)


def _save(tmp_path: Path, a: np.ndarray, b: np.ndarray) -> list[str]:
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    return ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]


def _run(tmp_path: Path, path: Path, inputs: list[str], mode: str, capsys) -> np.ndarray:
    out = tmp_path / f"d_{mode}.npy"
    code = main([str(path), *inputs, "--numerics", mode, "--sync-check=on", "--check-numpy",
                 "--output", f"d={out}"])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert "check d = numpy tcgen05.matmul reference (the logical product)" in text.out
    assert text.out.endswith(": ok\n")
    return np.load(out)


I8_CASES = [
    (200, 80, 112, "s8", "u8", False, False),  # remainder rows, K < one K block, B N-major
    (130, 48, 256, "u8", "s8", False, True),  # 2 remainder rows, two K blocks, B K-major
    (144, 208, 384, "s8", "s8", True, False),  # A M-major, remainder columns of a 256-wide tile
    (128, 40, 160, "u8", "u8", False, True),  # N = 40 (tile 48: the i8 shape row), K remainder
]


@pytest.mark.parametrize(("m", "n", "k", "at", "bt", "ta", "tb"), I8_CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}x{c[4]}{'-ta' * c[5]}{'-tb' * c[6]}"
                              for c in I8_CASES])
def test_i8_matmul_is_bit_exact(tmp_path: Path, capsys, m: int, n: int, k: int, at: str,
                                bt: str, ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(31)
    # the whole range of each type: products up to 255 * 255 and sums far beyond f32's 2**24
    a = rng.integers(np.iinfo(NUMPY[at]).min, np.iinfo(NUMPY[at]).max + 1,
                     (k, m) if ta else (m, k)).astype(NUMPY[at])
    b = rng.integers(np.iinfo(NUMPY[bt]).min, np.iinfo(NUMPY[bt]).max + 1,
                     (n, k) if tb else (k, n)).astype(NUMPY[bt])
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    want = ((a64.T if ta else a64) @ (b64.T if tb else b64)).astype(np.int32)
    path = _kernel(tmp_path, m, n, k, at, bt, "s32", ta, tb)
    inputs = _save(tmp_path, a, b)
    for mode in ("default", "exact"):
        got = _run(tmp_path, path, inputs, mode, capsys)
        assert got.dtype == np.int32
        assert np.array_equal(got, want)


def test_i8_overflowing_sums_saturate_or_wrap(tmp_path: Path, capsys) -> None:
    """K = 33296 u8 x u8: the rows of A near 255 sum past 2**31 - 1 (254 * 254 * 33296 =
    2148124736), row 0 (codes <= 60) stays below. With `saturate` each MMA clamps its sum, which
    for one-signed products is numpy's clip of the int64 product; without it D wraps mod 2**32."""
    m, n, k = 3, 5, 33296
    rng = np.random.default_rng(4)
    a = rng.integers(254, 256, (m, k)).astype(np.uint8)
    a[0] = rng.integers(0, 61, k)
    b = rng.integers(254, 256, (n, k)).astype(np.uint8)
    exact = a.astype(np.int64) @ b.astype(np.int64).T
    assert (exact[1:] > np.iinfo(np.int32).max).all() and (exact[0] < 2**31).all()
    inputs = _save(tmp_path, a, b)
    clipped = np.clip(exact, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
    wrapped = ((exact + 2**31) % 2**32 - 2**31).astype(np.int32)
    for saturate, mode, want in ((True, "exact", clipped), (False, "default", wrapped)):
        path = matmul_kernel_file(tmp_path, m, n, k, "ui8", "ui8", "i32", False, True, saturate)
        got = _run(tmp_path, path, inputs, mode, capsys)
        assert got.dtype == np.int32 and np.array_equal(got, want)


def _f16_accumulated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy's D of an f16 accumulator: each MMA (K = 16) adds its products to D exactly and
    rounds to nearest-even f16 (float64 is exact here: every product is a multiple of 2**-8 and
    every sum below 2**14)."""
    mma_k = shapes.mma_k("f16", False)
    d = np.zeros((a.shape[0], b.shape[1]), np.float16)
    for k0 in range(0, a.shape[1], mma_k):
        part = a[:, k0:k0 + mma_k].astype(np.float64) @ b[k0:k0 + mma_k].astype(np.float64)
        d = (d.astype(np.float64) + part).astype(np.float16)
    return d


F16_CASES = [
    (200, 13, 104, False, True),  # N = 13: a packed load of one stored column, K remainder
    (136, 264, 136, True, False),  # A M-major, B N-major, two column tiles with a remainder
    (128, 64, 512, False, False),  # 32 MMAs of rounding into one accumulator, a 4-stage ring
]


@pytest.mark.parametrize(("m", "n", "k", "ta", "tb"), F16_CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}{'-ta' * c[3]}{'-tb' * c[4]}"
                              for c in F16_CASES])
def test_f16_accumulator_rounds_after_every_mma(tmp_path: Path, capsys, m: int, n: int, k: int,
                                                ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(16)
    # multiples of 2**-4 in [-4, 4]: sums reach a few hundred, where an f16 ulp is 0.25
    a = (rng.integers(-64, 65, (k, m) if ta else (m, k)) / 16).astype(np.float16)
    b = (rng.integers(-64, 65, (n, k) if tb else (k, n)) / 16).astype(np.float16)
    want = _f16_accumulated(a.T if ta else a, b.T if tb else b)
    once = ((a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64))
    assert not np.array_equal(want, once.astype(np.float16))  # the roundings are visible
    path = _kernel(tmp_path, m, n, k, "f16", "f16", "f16", ta, tb)
    inputs = _save(tmp_path, a, b)
    for mode in ("default", "exact"):
        got = _run(tmp_path, path, inputs, mode, capsys)
        assert got.dtype == np.float16
        assert np.array_equal(got, want)


def test_f16_accumulator_on_real_inputs_is_within_an_ulp_of_the_rounding_model(
        tmp_path: Path, capsys) -> None:
    # f16 values of [-2, 2]: the exact mode truncates each MMA's terms below 2**(emax - 25)
    # before its one rounding, so it may differ from float64-then-round by one f16 ulp
    rng = np.random.default_rng(5)
    a = rng.uniform(-2, 2, (200, 104)).astype(np.float16)
    b = rng.uniform(-2, 2, (104, 72)).astype(np.float16)
    want = _f16_accumulated(a, b)
    path = _kernel(tmp_path, 200, 72, 104, "f16", "f16", "f16", False, False)
    got = _run(tmp_path, path, _save(tmp_path, a, b), "exact", capsys)
    ulp = np.spacing(np.abs(want).astype(np.float16)).astype(np.float64)
    assert np.all(np.abs(got.astype(np.float64) - want.astype(np.float64)) <= ulp)


@pytest.mark.parametrize(("types", "message"), [
    (("bf16", "bf16", "f16"), "d element type = f16 is not legal with atype = bf16; legal: f32 "
                              r"\(a bf16 MMA accumulates in f32\) \[R3\]"),
    (("s8", "u8", "f32"), r"d element type = f32 is not a kind::i8 accumulator; legal: s32 \[R2\]"),
])
def test_illegal_d_is_one_diagnostic(tmp_path: Path, capsys, types: tuple[str, str, str],
                                     message: str) -> None:
    a, b, d = types
    mlir = {**MLIR, "bf16": "bf16", "f32": "f32"}
    at, bt, dt = (f"memref<128x64x{mlir[a]}>", f"memref<64x64x{mlir[b]}>",
                  f"memref<128x64x{mlir[d]}>")
    path = tmp_path / "bad.mlir"
    path.write_text(f'builtin.module attributes {{tcgen05.target = "sm_100a"}} {{\n'
                    f"  func.func @f(%a: {at}, %b: {bt}, %d: {dt}) {{\n"
                    f"    tcgen05.matmul %a, %b, %d transpose_b : {at}, {bt}, {dt}\n"
                    f"    func.return\n  }}\n}}\n")
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("error:") == 1
    assert err.startswith(f"{path}:3:5: error: 'tcgen05.matmul' op cannot be lowered: ")
    assert re.search(message, err)


def test_checker_sees_the_packed_loads_of_an_f16_accumulator(tmp_path: Path, capsys) -> None:
    # the lowered kernel without the epilogue's acc_full waits: the first packed load (.x4, 8
    # columns of f16 D cells) races with the MMA that writes them
    path = _kernel(tmp_path, 200, 13, 104, "f16", "f16", "f16", False, True)
    lowered = tmp_path / "lowered.mlir"
    assert opt_main([str(path), "-p", "tcgen05-lower-matmul", "-o", str(lowered)]) == 0
    lines = lowered.read_text().split("\n")
    kept = [line for i, line in enumerate(lines)
            if not ("tcgen05.mbarrier_wait" in line
                    and any("%ephase" in x for x in lines[max(0, i - 6):i]))]
    assert len(lines) - len(kept) == 2  # the two epilogue waits (inside the loop and after it)
    lowered.write_text("\n".join(kept))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower"]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x columns [0, 8) (%acc0): " \
           "'tcgen05.ld' at " in err
    assert "'tcgen05.mma' at " in err and "no tcgen05.commit after it whose mbarrier phase the " \
           "thread waited (tcgen05.mbarrier_wait) orders them" in err
