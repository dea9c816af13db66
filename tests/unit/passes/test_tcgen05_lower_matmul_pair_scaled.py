"""tcgen05-lower-matmul{cta-group=2} of block-scaled matmuls (kind::mxf8f6f4, mxf4, mxf4nvf4):
each CTA of the pair copies the scale atoms of its 128 A rows and of all the tile's B columns
onto the leader's barrier, and the leader's `tcgen05.cp.cta_group::2` moves each CTA's atoms
into its own tensor memory before the `.block_scale` `cta_group::2` MMAs. The kernel runs on the
executor's CTA pair clean under the asynchronous checker and equals numpy (--check-numpy
follows the logical product); in the exact numerics mode it equals the one-CTA kernel bit for
bit; lowered, it passes --check-numpy MMA by MMA; a pair kernel whose CTA 1 copies CTA 0's
scale rows gets CTA 1's D rows wrong (and only those), and one that announces only one CTA's
bytes (scale atoms included) overdraws the barrier."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tcgen05_scaled_testing import scaled_inputs as _inputs
from tcgen05_scaled_testing import scaled_kernel_file as _kernel

from mmair.isa.tcgen05 import matmul as plan_module
from mmair.isa.tcgen05.scale_atoms import atoms_from_logical
from mmair.tools.opt import main as opt_main
from mmair.tools.run import main

PAIR = "mmair-lower{cta-group=2}"

CASES = [
    (200, 80, 208, "e4m3", "e5m2", False, False, "ue8m0"),  # mxf8f6f4, B MN-major, partial K
    (304, 264, 144, "e5m2", "e4m3", True, True, "ue8m0"),  # A MN-major, two column tiles
    (520, 48, 512, "e4m3", "e4m3", False, True, "ue8m0"),  # 3 tiles, 4 K blocks: refills
    (200, 80, 320, "e2m1", "e2m1", False, True, "ue8m0"),  # kind::mxf4: 2 scales per MMA
    (200, 80, 320, "e2m1", "e2m1", False, True, "ue4m3"),  # kind::mxf4nvf4 block16
]


@pytest.mark.parametrize(("m", "n", "k", "ea", "eb", "ta", "tb", "scale"), CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}x{c[4]}{'-ta' * c[5]}{'-tb' * c[6]}"
                              f"-{c[7]}" for c in CASES])
def test_block_scaled_pair_is_clean_on_the_cta_pair_and_equals_numpy(
        tmp_path: Path, capsys, m: int, n: int, k: int, ea: str, eb: str, ta: bool, tb: bool,
        scale: str) -> None:
    path = _kernel(tmp_path, m, n, k, ea, eb, ta, tb, scale)
    want, inputs = _inputs(tmp_path, m, n, k, ea, eb, ta, tb, scale)
    code = main([str(path), "-p", PAIR, *inputs, "--output", f"d={tmp_path / 'd.npy'}",
                 "--check-numpy"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "check d = numpy tcgen05.matmul reference (the logical product)" in out.out
    assert out.out.endswith(": ok\n")
    assert np.array_equal(np.load(tmp_path / "d.npy"), want)


def test_block_scaled_pair_equals_the_one_cta_kernel_bit_for_bit_in_exact_numerics(
        tmp_path: Path, capsys) -> None:
    # real e4m3 values and scales 2^-3 .. 2^3 over K = 512: the sums round, and every D row is
    # the same chain of fused dot products whichever CTA holds it
    m, n, k = 200, 72, 512
    path = _kernel(tmp_path, m, n, k, "e4m3", "e4m3", False, True)
    rng = np.random.default_rng(5)
    arrays = {"a": rng.standard_normal((m, k)), "b": rng.standard_normal((n, k))}
    inputs = []
    for name, values in arrays.items():
        np.save(tmp_path / f"{name}.npy", values.astype(ml_dtypes.float8_e4m3fn))
    for name, rows in (("sa", m), ("sb", n)):
        codes = rng.integers(124, 131, (rows, k // 32)).astype(np.uint8)
        np.save(tmp_path / f"{name}.npy",
                atoms_from_logical(codes, fill=127).view(ml_dtypes.float8_e8m0fnu))
    for name in ("a", "b", "sa", "sb"):
        inputs += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    results = []
    for pipeline in ("mmair-lower", PAIR):
        out = tmp_path / "d.npy"
        code = main([str(path), "-p", pipeline, "--numerics", "exact", *inputs,
                     "--output", f"d={out}", "--check-numpy"])
        assert code == 0, capsys.readouterr().err
        results.append(np.load(out).view(np.uint32))
    assert np.array_equal(results[0], results[1])
    assert np.count_nonzero(results[0])


def _lowered(tmp_path: Path) -> tuple[Path, str, list[str]]:
    path = _kernel(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    _, inputs = _inputs(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    lowered = tmp_path / "lowered.mlir"
    assert opt_main([str(path), "-p", "tcgen05-lower-matmul{cta-group=2}", "-o",
                     str(lowered)]) == 0
    return lowered, lowered.read_text(), inputs


def test_the_pair_kernel_copies_scales_with_cta_group_2_only(tmp_path: Path) -> None:
    _, text, _ = _lowered(tmp_path)
    # a K block's atoms: one of SFA (a CTA's 128 rows), two of SFB (the tile's 256 columns)
    assert text.count('tcgen05.cp cta_group(2) shape("32x128b") multicast("warpx4")') == 3
    assert "cta_group(1)" not in text  # ptxas refuses both CTA groups in one kernel
    assert "cta_group(2) block_scale" in text
    plan = plan_module.plan_matmul(200, 80, 208, "e4m3", "e5m2", "f32", False, False,
                                   scale_types=("ue8m0", "ue8m0"), cta_group=2)
    assert plan.scales is not None
    # MN-major 8-bit B: N / 2 whole 128-byte atoms, so the tile is N = 256 (128 B rows per CTA);
    # scales: one CTA's A rows (one 128-row atom) and ALL the tile's B columns (two atoms), and
    # the leader's barrier counts both CTAs' bytes
    assert (plan.scales.a.atoms_mn, plan.scales.b.atoms_mn, plan.tile_n) == (1, 2, 256)
    assert plan.tx_bytes == 2 * (128 * 128 + 128 * 128 + 512 + 1024)
    assert f"expect_tx({plan.tx_bytes})" in text


def test_the_lowered_pair_kernel_passes_check_numpy_per_mma(tmp_path: Path, capsys) -> None:
    # run after mmair-opt, --check-numpy replaces each pair MMA by numpy on the operands and the
    # scale factors in each CTA's tensor memory
    lowered, _, inputs = _lowered(tmp_path)
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", *inputs, "--check-numpy"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(": ok\n") and "FAILED" not in out


def test_cta_1_copying_cta_0s_scale_rows_changes_only_its_d_rows(tmp_path: Path,
                                                                 capsys) -> None:
    # CTA 1 copies the SFA atom of the tile's first 128 rows instead of its own: D rows 0..127
    # (CTA 0) stay numpy's, rows 128..199 (CTA 1, scaled with rows 0..71's factors) do not; so
    # each CTA's tcgen05.cp.cta_group::2 reads that CTA's SMEM
    lowered, text, _ = _lowered(tmp_path)
    want, inputs = _inputs(tmp_path, 200, 80, 208, "e4m3", "e5m2", False, False)
    lines = text.splitlines()
    row = [i for i, line in enumerate(lines) if "%tm_cta" in line and "arith.addi" in line]
    assert len(row) == 1 and "%rank" in lines[row[0]]
    lines[row[0]] = lines[row[0]].replace("%rank", "%c0")
    lowered.write_text("\n".join(lines))
    out = tmp_path / "d.npy"
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", *inputs, "--output", f"d={out}"]) == 0
    got = np.load(out)
    assert np.array_equal(got[:128], want[:128])
    assert not np.array_equal(got[128:], want[128:])


def test_announcing_one_ctas_bytes_overdraws_the_block_scaled_barrier(tmp_path: Path,
                                                                       capsys) -> None:
    lowered, text, inputs = _lowered(tmp_path)
    full = 2 * (128 * 128 + 128 * 128 + 512 + 1024)
    assert text.count(f"expect_tx({full})") == 1
    lowered.write_text(text.replace(f"expect_tx({full})", f"expect_tx({full // 2})"))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", *inputs]) == 1
    err = capsys.readouterr().err
    assert "more bytes than expect_tx announced" in err and "Traceback" not in err
