"""Run NVIDIA's PTX assembler (`ptxas`) on PTX text: the syntax oracle for tcgen05 forms.

`ptxas` ships in the `nvidia-cuda-nvcc` wheel on PyPI (CUDA 13: `site-packages/nvidia/cu13/bin/
ptxas`) and runs on any x86-64/aarch64 Linux CPU; no GPU is needed. It reports every malformed
instruction of a file as `ptxas <file>, line N; error   : <message>` in one pass, so many forms can
be judged with one call (about 40 ms). Some checks (e.g. one `.cta_group` per kernel) run only
after the file parsed cleanly; `judge_lines` therefore re-assembles the lines that passed until the
file is clean.

`find_ptxas()` looks at `$MMAIR_PTXAS`, the nvidia wheel, then `PATH`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mmair.isa.tcgen05.targets import PTX_VERSION

_ERROR_RE = re.compile(r"^ptxas [^,]*, line (\d+); error\s*:\s*(.*)$")


def find_ptxas() -> str | None:
    """Path of a ptxas binary, or None when none is installed."""
    env = os.environ.get("MMAIR_PTXAS")
    if env:
        return env if Path(env).is_file() else None
    try:
        import nvidia  # type: ignore[import-not-found]

        for root in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cuda_nvcc"):
                candidate = Path(root) / sub / "bin" / "ptxas"
                if candidate.is_file():
                    return str(candidate)
    except ImportError:
        pass
    return shutil.which("ptxas")


def ptxas_version(ptxas: str) -> str:
    """The release line of `ptxas --version` (e.g. `release 13.5, V13.5.37`)."""
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, check=False).stdout
    for line in out.splitlines():
        if "release" in line:
            return line.split(", ", 1)[-1].strip()
    return out.strip().splitlines()[-1] if out.strip() else "unknown"


@dataclass
class PtxasResult:
    returncode: int
    #: line number -> error messages on that line
    errors: dict[int, list[str]]
    #: error lines without a line number (fatal messages)
    other: list[str]


def assemble(ptx: str, arch: str, ptxas: str | None = None) -> PtxasResult:
    """Assemble `ptx` for `-arch=arch`; the output object is discarded."""
    binary = ptxas or find_ptxas()
    if binary is None:
        raise FileNotFoundError("ptxas not found (pip install nvidia-cuda-nvcc)")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "m.ptx"
        src.write_text(ptx)
        proc = subprocess.run(
            [binary, f"-arch={arch}", str(src), "-o", str(Path(tmp) / "m.cubin")],
            capture_output=True, text=True, check=False,
        )
    errors: dict[int, list[str]] = {}
    other: list[str] = []
    for line in (proc.stdout + proc.stderr).splitlines():
        match = _ERROR_RE.match(line)
        if match:
            errors.setdefault(int(match.group(1)), []).append(match.group(2))
        elif "error" in line or "fatal" in line:
            other.append(line)
    return PtxasResult(proc.returncode, errors, other)


_PRELUDE = """\
.version {version}
.target {target}
.address_size 64

.visible .entry forms()
{{
  .reg .b32 %r<160>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
"""


def _kernel(lines: Sequence[str], target: str) -> tuple[str, int]:
    """A module with one kernel holding `lines`; returns it and the line number of lines[0]."""
    head = _PRELUDE.format(version=PTX_VERSION, target=target)
    first = head.count("\n") + 1
    return head + "".join(f"  {line};\n" for line in lines) + "  ret;\n}\n", first


def judge_lines(
    lines: Sequence[str], target: str, arch: str, ptxas: str | None = None
) -> dict[int, str | None]:
    """ptxas's verdict on each instruction line: index -> None (accepted) or the first error.

    All lines go into one kernel, so they must share whatever ptxas checks per kernel.
    """
    verdict: dict[int, str | None] = {}
    pending = list(range(len(lines)))
    while pending:
        text, first = _kernel([lines[i] for i in pending], target)
        result = assemble(text, arch, ptxas)
        if result.returncode == 0:
            verdict.update(dict.fromkeys(pending, None))
            break
        rejected = {
            pending[n - first]: msgs[0]
            for n, msgs in result.errors.items()
            if 0 <= n - first < len(pending)
        }
        if not rejected:
            if len(pending) == 1:
                verdict[pending[0]] = "; ".join(result.other) or f"exit {result.returncode}"
                break
            half = len(pending) // 2  # an error without a line: bisect
            for part in (pending[:half], pending[half:]):
                sub = judge_lines([lines[i] for i in part], target, arch, ptxas)
                verdict.update({part[j]: v for j, v in sub.items()})
            break
        verdict.update(rejected)
        pending = [i for i in pending if i not in rejected]
    return verdict


__all__ = ["PTX_VERSION", "PtxasResult", "assemble", "find_ptxas", "judge_lines", "ptxas_version"]
