"""tcgen05-lower-matmul (in mmair-lower): `tcgen05.matmul` of each kind and both operand majors,
remainder tiles included (M = 200, N = 72), runs clean under the asynchronous checker, equals
numpy on integer inputs, passes --check-numpy against the logical product in the default and the
exact numerics mode, and a wrong descriptor is caught: by the checker in lowered IR, and by
--check-numpy (which follows the matmul, not the lowering's descriptors) with the checker off."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tcgen05_testing import matmul_kernel_file

from mmair.isa.tcgen05 import matmul as plan_module
from mmair.tools.opt import main as opt_main
from mmair.tools.run import main

TYPES = {"f16": ("f16", np.float16), "bf16": ("bf16", ml_dtypes.bfloat16),
         "f32": ("f32", np.float32), "e4m3": ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
         "e5m2": ("f8E5M2", ml_dtypes.float8_e5m2)}


def _kernel(tmp_path: Path, m: int, n: int, k: int, elem: str, ta: bool, tb: bool) -> Path:
    mlir = TYPES[elem][0]
    return matmul_kernel_file(tmp_path, m, n, k, mlir, mlir, "f32", ta, tb)


def _integer_inputs(tmp_path: Path, m: int, n: int, k: int, elem: str, ta: bool, tb: bool
                    ) -> tuple[np.ndarray, list[str]]:
    """Small integers (exact in every type and in f32 sums) and numpy's D."""
    rng = np.random.default_rng(7)
    dtype = TYPES[elem][1]
    a = rng.integers(-3, 4, (k, m) if ta else (m, k)).astype(dtype)
    b = rng.integers(-3, 4, (n, k) if tb else (k, n)).astype(dtype)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = (a64.T if ta else a64) @ (b64.T if tb else b64)
    return want.astype(np.float32), ["--input", f"a={tmp_path / 'a.npy'}",
                                     "--input", f"b={tmp_path / 'b.npy'}"]


CASES = [
    (200, 72, 104, "f16", False, False),  # remainder rows and columns, B MN-major
    (200, 72, 100, "f32", False, False),  # kind::tf32, K not a multiple of the K block
    (136, 264, 136, "bf16", True, False),  # A MN-major, three column tiles
    (300, 200, 100, "f32", True, True),  # tf32 A MN-major (sw128_base32b), B K-major
    (200, 72, 112, "e4m3", False, True),  # kind::f8f6f4
    (128, 64, 1024, "f16", False, True),  # 16 K blocks through a 9-stage ring (refills)
]


@pytest.mark.parametrize(("m", "n", "k", "elem", "ta", "tb"), CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}{'-ta' * c[4]}{'-tb' * c[5]}"
                              for c in CASES])
def test_lowered_matmul_is_clean_and_equals_numpy(tmp_path: Path, capsys, m: int, n: int,
                                                  k: int, elem: str, ta: bool, tb: bool) -> None:
    path = _kernel(tmp_path, m, n, k, elem, ta, tb)
    want, inputs = _integer_inputs(tmp_path, m, n, k, elem, ta, tb)
    code = main([str(path), *inputs, "--output", f"d={tmp_path / 'd.npy'}", "--check-numpy"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "check d = numpy tcgen05.matmul reference (the logical product)" in out.out
    assert np.array_equal(np.load(tmp_path / "d.npy"), want)


def test_default_and_exact_numerics_agree_on_real_inputs(tmp_path: Path, capsys) -> None:
    path = _kernel(tmp_path, 200, 72, 104, "bf16", False, False)
    results = []
    for mode in ("default", "exact"):
        out = tmp_path / f"d_{mode}.npy"
        code = main([str(path), "--numerics", mode, "--check-numpy", "--output", f"d={out}"])
        text = capsys.readouterr()
        assert code == 0, text.err
        assert text.out.endswith(": ok\n")
        results.append(np.load(out))
    # both are within the f32 accumulation bound of the same float64 product
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5, atol=1e-4)


def test_mmair_run_lowers_the_matmul_by_itself(tmp_path: Path, capsys) -> None:
    path = _kernel(tmp_path, 64, 64, 64, "f16", True, True)
    assert main([str(path), "-v"]) == 0
    assert "mmair-run: running mmair-lower first: the module holds tcgen05.matmul" in \
        capsys.readouterr().err


def test_corrupted_descriptor_in_lowered_ir_is_a_layout_mismatch(tmp_path: Path, capsys) -> None:
    path = _kernel(tmp_path, 200, 72, 104, "f16", False, False)
    lowered = tmp_path / "lowered.mlir"
    assert opt_main([str(path), "-p", "tcgen05-lower-matmul", "-o", str(lowered)]) == 0
    text = lowered.read_text()
    good = "smem_desc<start = 0, lbo = 16, sbo = 1024,"
    assert text.count(good) == 1  # A's descriptor: K-major, 8 rows of 128 bytes per SBO
    lowered.write_text(text.replace(good, "smem_desc<start = 0, lbo = 16, sbo = 512,"))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", "--check-numpy"]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.mma' op layout mismatch on %a_stages: 'tcgen05.mma' reads A[m=8, " \
           "k=0] at SMEM 0x240, which holds %a[4, 0]" in err
    assert "(the K-major descriptor with swizzle sw128, LBO 16, SBO 512 does not walk the box " \
           "the tensor map (swizzle sw128) laid out)" in err


def test_wrong_lowering_fails_check_numpy_without_the_checker(tmp_path: Path, capsys,
                                                               monkeypatch) -> None:
    # B's SBO off by a factor of two in the plan: the kernel and its own tcgen05.mma reference
    # would agree (both read B through the same descriptor); the logical product does not.
    real = plan_module.OperandPlan.sbo.fget
    monkeypatch.setattr(plan_module.OperandPlan, "sbo",
                        property(lambda self: real(self) // (2 if self.role == "b" else 1)))
    path = _kernel(tmp_path, 200, 72, 104, "f16", False, False)
    assert main([str(path), "--sync-check=off", "--check-numpy"]) == 1
    out = capsys.readouterr().out
    assert "check d = numpy tcgen05.matmul reference (the logical product): max abs error" in out
    assert ": FAILED (" in out


def test_unlowerable_matmul_is_one_diagnostic(tmp_path: Path, capsys) -> None:
    path = _kernel(tmp_path, 200, 72, 100, "f16", False, False)  # a row of 200 bytes
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:5: error: 'tcgen05.matmul' op cannot be lowered: a row = "
                          "100 x f16 (200 bytes) cannot be a TMA tensor row")
    assert "Traceback" not in err


def test_two_matmuls_of_one_kernel_run_one_after_the_other(tmp_path: Path, capsys) -> None:
    # the first keeps its TMEM allocation permit (the second still allocates); a box of 128 rows
    # on the second's 64-row A is filled with zeros beyond the tensor
    path = tmp_path / "two.mlir"
    path.write_text("""builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @two(%a: memref<128x64xf16>, %b: memref<64x64xf16>, %d: memref<128x64xf32>,
                 %a2: memref<64x128xbf16>, %b2: memref<32x128xbf16>, %d2: memref<64x32xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x64xf16>, memref<128x64xf32>
    tcgen05.matmul %a2, %b2, %d2 transpose_b : memref<64x128xbf16>, memref<32x128xbf16>, memref<64x32xf32>
    func.return
  }
}
""")
    assert main([str(path), "--check-numpy"]) == 0
    out = capsys.readouterr().out
    assert out.count("numpy tcgen05.matmul reference (the logical product)") == 2
    assert out.count(": ok\n") == 2


def test_unlowered_matmul_is_refused_like_pto_matmul(tmp_path: Path, capsys) -> None:
    path = _kernel(tmp_path, 64, 64, 64, "f16", True, True)
    assert main([str(path), "-p", ""]) == 1
    err = capsys.readouterr().err
    assert f"{path}:3:5: error: 'tcgen05.matmul' op no implementation for op 'tcgen05.matmul' " \
           "in the executor; ops with a lowering run after it (e.g. mmair-run -p mmair-lower)" in err
