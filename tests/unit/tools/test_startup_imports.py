"""What a tool imports before it reads an mmair file: not PTOAS's dialect (about 70 ms), which
only a `.pto` input needs. Run in a fresh interpreter, so other tests' imports do not count."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parents[3] / "examples" / "gemm_f16_128.mlir"

PROBE = """
import sys
from mmair.tools.opt import main
sys.argv = ["mmair-opt", sys.argv[1], "-o", sys.argv[2]]
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted(m for m in sys.modules if m.startswith("mmair.dialects.ptoas"))))
"""


def _ptoas_modules(path: Path, out: Path) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, str(path), str(out)],
                          capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_mmair_opt_on_an_mmair_file_does_not_import_the_ptoas_dialect(tmp_path) -> None:
    loaded = _ptoas_modules(EXAMPLE, tmp_path / "out.mlir")
    assert (tmp_path / "out.mlir").read_text().startswith("builtin.module")
    # the question is asked (detect, with its table of op names) without the ops and types
    assert loaded == {"mmair.dialects.ptoas", "mmair.dialects.ptoas.detect",
                      "mmair.dialects.ptoas.names"}


def test_mmair_opt_on_a_ptoas_file_builds_the_dialect(tmp_path) -> None:
    kernel = Path(__file__).parents[3] / "tests" / "filecheck" / "ptoas" / "matmul_tile.pto"
    loaded = _ptoas_modules(kernel, tmp_path / "out.mlir")
    assert "mmair.dialects.ptoas.dialect" in loaded
