"""examples/tcgen05_gemm_kloop.mlir: the K-looped tcgen05 GEMM (stages, commit, mbarrier waits,
tcgen05.ld of D) against numpy, and the executor's mbarrier phases (a wait that can never
complete is reported as a deadlock)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = ROOT / "examples" / "tcgen05_gemm_kloop.mlir"


def _run(tmp_path: Path, source: Path, a: np.ndarray, b: np.ndarray,
         *extra: str) -> subprocess.CompletedProcess:
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    return subprocess.run(
        [sys.executable, "-m", "mmair.tools.run", str(source), "-p", "mmair-lower",
         "--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}",
         "--output", f"d={tmp_path / 'd.npy'}", *extra],
        capture_output=True, text=True, check=False,
    )


def _k_blocked(x: np.ndarray) -> np.ndarray:
    """rows x K -> [K/8][rows][8] (the canonical K-major no-swizzle SMEM order)."""
    rows, k = x.shape
    return x.reshape(rows, k // 8, 8).transpose(1, 0, 2).copy()


def test_kloop_gemm_matches_numpy(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-4, 5, (128, 64)).astype(np.float16)
    b = rng.integers(-4, 5, (64, 128)).astype(np.float16)
    proc = _run(tmp_path, EXAMPLE, _k_blocked(a), _k_blocked(b.T))
    assert proc.returncode == 0, proc.stderr
    d = np.load(tmp_path / "d.npy")
    assert np.array_equal(d, a.astype(np.float32) @ b.astype(np.float32))  # small integers: exact


def test_wait_on_a_phase_that_never_completes_is_a_deadlock(tmp_path: Path) -> None:
    # Sequential model (checker off, every MMA completes at issue): the final wait asks for
    # parity 0 of stage 1's mbarrier, whose phases 0 and 1 completed: the current phase (2) has
    # parity 0 and nothing will arrive. (The async checker reports the race this wait allows when
    # the MMAs are slow: test_tcgen05_async.py.)
    text = EXAMPLE.read_text().replace("%last = arith.constant true", "%last = arith.constant false")
    source = tmp_path / "deadlock.mlir"
    source.write_text(text)
    rng = np.random.default_rng(1)
    x = rng.integers(-2, 3, (8, 128, 8)).astype(np.float16)
    proc = _run(tmp_path, source, x, x, "--sync-check=off")
    assert proc.returncode == 1
    assert "tcgen05.mbarrier_wait" in proc.stderr
    assert "waits on phase parity 0 of the mbarrier at SMEM 0x4008, which can never complete" \
        in proc.stderr
    assert "Traceback" not in proc.stderr
