"""examples/tcgen05_mma_f16.mlir: verifies, lowers, and computes A x B through the SMEM descriptors."""

from pathlib import Path

import numpy as np

from mmair.tools.run import main

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_mma_f16.mlir"


def test_example_mma_matches_numpy(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    a = rng.integers(-4, 5, size=(2, 128, 8)).astype(np.float16)
    b = rng.integers(-4, 5, size=(2, 256, 8)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "d.npy"
    argv = [str(EXAMPLE), "-p", "mmair-lower", "--input", f"a={tmp_path / 'a.npy'}",
            "--input", f"b={tmp_path / 'b.npy'}", "--output", f"d={out}"]
    assert main(argv) == 0
    # The example's comment: A[m, k] = a[k / 8, m, k % 8] and B[k, n] = b[k / 8, n, k % 8].
    a_logical = a.astype(np.float64).transpose(1, 0, 2).reshape(128, 16)
    b_logical = b.astype(np.float64).transpose(1, 0, 2).reshape(256, 16).T
    np.testing.assert_array_equal(np.load(out), a_logical @ b_logical)


def test_example_mma_with_exact_numerics(tmp_path: Path) -> None:
    # Row 0 of A: 1 and fifteen 2^-13; column 0 of B the same. Exact mode truncates each product
    # 2^-26 below the quantum 2^-25 of emax = 0 (docs/tcgen05-numerics.md): D[0, 0] = 1, though
    # 1 + 15 * 2^-26 truncates to 1 + 2^-23 in f32. Other entries are small integers (exact in
    # both modes).
    rng = np.random.default_rng(6)
    a = rng.integers(-4, 5, size=(2, 128, 8)).astype(np.float16)
    b = rng.integers(-4, 5, size=(2, 256, 8)).astype(np.float16)
    a[:, 0, :] = 2.0**-13
    a[0, 0, 0] = 1.0
    b[:, 0, :] = 2.0**-13
    b[0, 0, 0] = 1.0
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    results = {}
    for numerics in ("exact", "default"):
        out = tmp_path / f"d_{numerics}.npy"
        argv = [str(EXAMPLE), "-p", "mmair-lower", "--input", f"a={tmp_path / 'a.npy'}",
                "--input", f"b={tmp_path / 'b.npy'}", "--output", f"d={out}",
                "--numerics", numerics]
        assert main(argv) == 0
        results[numerics] = np.load(out)
    assert results["exact"][0, 0] == 1.0
    np.testing.assert_array_equal(results["exact"][1:, 1:], results["default"][1:, 1:])


def test_bad_numerics_mode_exits_2(capsys) -> None:
    assert main([str(EXAMPLE), "--numerics", "fast"]) == 2
    assert "invalid choice: 'fast'" in capsys.readouterr().err
