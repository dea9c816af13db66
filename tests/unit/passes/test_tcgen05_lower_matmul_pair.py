"""tcgen05-lower-matmul{cta-group=2} (and mmair-lower{cta-group=2}): the CTA-pair kernel runs on
the executor's CTA pair clean under the asynchronous checker and equals numpy, remainder tiles
included (CTA 1's part of the last tile partly or wholly outside D); in the exact numerics mode it
equals the one-CTA kernel bit for bit; the checker reports a pair kernel without the cluster
barrier that orders an accumulator's reuse, the executor one without the barrier that orders the
mbarriers' initialisation before the other CTA signals them; a cta-group option out of range is
one diagnostic. Block-scaled pairs: test_tcgen05_lower_matmul_pair_scaled.py."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tcgen05_testing import matmul_kernel_file

from mmair.tools.opt import main as opt_main
from mmair.tools.run import main

PAIR = "mmair-lower{cta-group=2}"
TYPES = {"f16": ("f16", np.float16), "bf16": ("bf16", ml_dtypes.bfloat16),
         "f32": ("f32", np.float32), "e4m3": ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
         "s8": ("i8", np.int8)}


def _inputs(tmp_path: Path, m: int, n: int, k: int, elem: str, ta: bool, tb: bool,
            real: bool = False) -> tuple[np.ndarray, list[str]]:
    """Small integers (exact in every type and f32 sum) or, `real`, normal values; numpy's D."""
    rng = np.random.default_rng(11)
    dtype = TYPES[elem][1]
    shape_a, shape_b = ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
    if real:
        a, b = rng.standard_normal(shape_a).astype(dtype), rng.standard_normal(shape_b).astype(dtype)
    else:
        a, b = rng.integers(-3, 4, shape_a).astype(dtype), rng.integers(-3, 4, shape_b).astype(dtype)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    want = (a64.T if ta else a64) @ (b64.T if tb else b64)
    return want, ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]


CASES = [
    (200, 72, 104, "f16", False, False),  # CTA 1 holds 72 of its 128 rows; B MN-major
    (300, 200, 100, "f32", True, True),  # tf32, two tile rows: CTA 1's part of the last is empty
    (200, 80, 112, "s8", False, True),  # kind::i8 -> s32
    (520, 48, 512, "f16", False, True),  # 3 tiles, 8 K blocks: refills, accumulator reuse
]


@pytest.mark.parametrize(("m", "n", "k", "elem", "ta", "tb"), CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}{'-ta' * c[4]}{'-tb' * c[5]}"
                              for c in CASES])
def test_pair_kernel_is_clean_on_the_cta_pair_and_equals_numpy(tmp_path: Path, capsys, m: int,
                                                               n: int, k: int, elem: str,
                                                               ta: bool, tb: bool) -> None:
    d_type = "i32" if elem == "s8" else "f32"
    path = matmul_kernel_file(tmp_path, m, n, k, TYPES[elem][0], TYPES[elem][0], d_type, ta, tb)
    want, inputs = _inputs(tmp_path, m, n, k, elem, ta, tb)
    code = main([str(path), "-p", PAIR, *inputs, "--output", f"d={tmp_path / 'd.npy'}",
                 "--check-numpy"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert out.out.endswith(": ok\n")
    assert np.array_equal(np.load(tmp_path / "d.npy").astype(np.float64), want)


def test_pair_kernel_equals_the_one_cta_kernel_bit_for_bit_in_exact_numerics(
        tmp_path: Path, capsys) -> None:
    # every D row is the same chain of fused dot products, whichever CTA holds it
    path = matmul_kernel_file(tmp_path, 200, 72, 104, "bf16", "bf16", "f32", False, False)
    _, inputs = _inputs(tmp_path, 200, 72, 104, "bf16", False, False, real=True)
    results = []
    for pipeline in ("mmair-lower", PAIR):
        out = tmp_path / "d.npy"
        code = main([str(path), "-p", pipeline, "--numerics", "exact", *inputs,
                     "--output", f"d={out}"])
        assert code == 0, capsys.readouterr().err
        results.append(np.load(out).view(np.uint32))
    assert np.array_equal(results[0], results[1])
    assert np.count_nonzero(results[0])  # real values, not all zeros


def _lowered(tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    path = matmul_kernel_file(tmp_path, 520, 48, 512, "f16", "f16", "f32", False, True)
    _, inputs = _inputs(tmp_path, 520, 48, 512, "f16", False, True)
    lowered = tmp_path / "lowered.mlir"
    assert opt_main([str(path), "-p", "tcgen05-lower-matmul{cta-group=2}", "-o",
                     str(lowered)]) == 0
    return lowered, lowered.read_text().splitlines(), inputs


def test_reusing_an_accumulator_without_the_cluster_barrier_is_a_race(tmp_path: Path,
                                                                      capsys) -> None:
    lowered, lines, inputs = _lowered(tmp_path)
    syncs = [i for i, line in enumerate(lines) if "tcgen05.cluster_sync" in line]
    assert len(syncs) == 2  # after the allocations, after an epilogue that frees a buffer
    lowered.write_text("\n".join(line for i, line in enumerate(lines) if i != syncs[1]))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", *inputs]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.ld' op race on TMEM lanes [0, 32) x columns [0, 32) (%acc0 of CTA " \
           "1) between CTAs 0 and 1 of the CTA pair" in err
    assert "'tcgen05.mma'" in err and "Traceback" not in err


@pytest.mark.parametrize("sync_check", ["on", "off"])
def test_signalling_the_other_ctas_barrier_before_the_first_cluster_barrier_is_reported(
        tmp_path: Path, capsys, sync_check: str) -> None:
    # the peer's copies complete on the leader's barrier: its mbarrier_init must be ordered
    # before them by a cluster barrier, whichever CTA the hand-off happens to run first
    lowered, lines, inputs = _lowered(tmp_path)
    first = next(i for i, line in enumerate(lines) if "tcgen05.cluster_sync" in line)
    lowered.write_text("\n".join(line for i, line in enumerate(lines) if i != first))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", f"--sync-check={sync_check}", *inputs]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.tma_load' op arrives on the mbarrier at SMEM 0x34400 of CTA 0 of the " \
           "CTA pair, whose tcgen05.mbarrier_init no tcgen05.cluster_sync orders before it " \
           "(initialise the pair's mbarriers, then tcgen05.cluster_sync, then signal the other " \
           "CTA's) (in CTA 1 of the CTA pair)" in err


def test_announcing_only_the_leaders_bytes_overdraws_the_barrier(tmp_path: Path,
                                                                  capsys) -> None:
    # the leader's full barrier receives the copies of both CTAs; announcing one CTA's bytes
    # completes phases early, and a copy then lands on a phase that does not expect it
    lowered, lines, inputs = _lowered(tmp_path)
    text = "\n".join(lines)
    assert text.count("expect_tx(38912)") == 1  # (A 128 x 64 + B 24 x 64) x 2 bytes x 2 CTAs
    lowered.write_text(text.replace("expect_tx(38912)", "expect_tx(19456)"))
    capsys.readouterr()
    assert main([str(lowered), "-p", "mmair-lower", *inputs]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.tma_load' op completes 16384 transaction bytes on the mbarrier" in err
    assert "more bytes than expect_tx announced" in err


def test_cta_group_option_out_of_range_is_one_diagnostic(tmp_path: Path, capsys) -> None:
    path = matmul_kernel_file(tmp_path, 128, 64, 64, "f16", "f16", "f32", False, True)
    assert opt_main([str(path), "-p", "tcgen05-lower-matmul{cta-group=3}"]) == 1
    err = capsys.readouterr().err
    assert "tcgen05-lower-matmul: requires cta-group in [1, 2], got 3" in err
    assert "Traceback" not in err
