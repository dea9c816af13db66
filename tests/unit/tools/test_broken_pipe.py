"""Every tool ends quietly when the reader of its stdout is gone (`tool ... | head -1`): exit 1,
nothing on stderr, no BrokenPipeError traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def run_with_closed_stdout(module: str, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run `python -m module args` with stdout a pipe whose read end is already closed, so that
    the tool's first write (or its final flush) fails with EPIPE, as under `| head -1`."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", module, *args], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, check=False, cwd=cwd,
                              timeout=120)
    finally:
        os.close(write_end)


CASES = {
    "mmair-opt": ("mmair.tools.opt", str(EXAMPLES / "matmul_f16.mlir")),
    "mmair-run": ("mmair.tools.run", str(EXAMPLES / "matmul_f16.mlir"), "--json"),
    "mmair-desc": ("mmair.tools.desc", "decode", "idesc", "0x08400010", "--kind", "f16"),
    "mmair-translate": ("mmair.tools.translate", "--target", "ptx",
                        str(EXAMPLES / "tcgen05_gemm_kloop.mlir")),
    "mmair-show": ("mmair.tools.show", "layout", "--shape", "16x16", "--type", "f16", "-o",
                   "layout.png"),
    "python -m mmair": ("mmair",),
    "mmair-tune": ("mmair.tools.tune", "32", "32", "32", "--tiles-m", "32", "--tiles-n", "32",
                   "--tiles-k", "32", "--workers", "1", "--no-verify", "--progress", "off"),
}


@pytest.mark.parametrize("tool", sorted(CASES))
def test_closed_stdout_ends_quietly(tool: str, tmp_path: Path) -> None:
    proc = run_with_closed_stdout(*CASES[tool], cwd=tmp_path)
    assert proc.stderr == ""
    assert proc.returncode == 1


def test_open_stdout_is_unchanged(tmp_path: Path) -> None:
    # The wrapper only acts on a closed pipe: with a reader, the output and status are the tool's.
    proc = subprocess.run([sys.executable, "-m", "mmair.tools.desc", "decode", "idesc",
                           "0x08400010", "--kind", "f16"], capture_output=True, text=True,
                          check=False, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, "
                           "m = 128, n = 256>\n")
