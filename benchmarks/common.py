"""What the benchmark scripts share: the row of a table and its rendering, side-by-side timing,
the P1 matmul (its source, lowering, operands, check) and the background load.

Imports no other benchmark module: `run.py`, `p1_cli.py`, `p2_tcgen05.py` and
`tcgen05_numerics.py` import from here, so the benchmark modules form no import cycle
(tests/unit/project/test_benchmark_imports.py).
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

# ------------------------------------------------------------------------------------------------
# Rows, timing, the table
# ------------------------------------------------------------------------------------------------


@dataclass
class Row:
    group: str
    workload: str
    work: str
    mmair_s: float | None
    base_s: float | None
    goal: float | None = None
    rate: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.mmair_s is None or self.base_s is None or self.base_s <= 0:
            return None
        return self.mmair_s / self.base_s


def side_by_side(mmair: Callable[[], object], base: Callable[[], object], reps: int,
                 warmup: int = 1) -> tuple[float, float]:
    """Median wall time of `mmair` and `base`, run alternately (order flipped every repetition)."""
    for _ in range(warmup):
        mmair()
        base()
    tm: list[float] = []
    tb: list[float] = []
    for i in range(reps):
        pair = ((mmair, tm), (base, tb)) if i % 2 == 0 else ((base, tb), (mmair, tm))
        for fn, out in pair:
            gc.collect()
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return statistics.median(tm), statistics.median(tb)


def fmt_time(s: float | None) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.0f} µs"


def render(rows: list[Row], header: str) -> str:
    lines = [header, "",
             "| | workload | work | mmair | baseline | ratio | goal | met? | mmair rate | notes |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = r.ratio
        if r.group == "MEM":
            m, b = f"{r.mmair_s / 2**20:.0f} MiB", f"{r.base_s / 2**20:.0f} MiB"
        else:
            m, b = fmt_time(r.mmair_s), fmt_time(r.base_s)
        ratio_s = "-" if ratio is None else f"{ratio:.2f}x"
        goal_s = "-" if r.goal is None else f"<= {r.goal:g}x"
        met = "-" if r.goal is None else ("not measured" if ratio is None else
                                          ("yes" if ratio <= r.goal else "**no**"))
        lines.append(f"| {r.group} | {r.workload} | {r.work} | {m} | {b} | {ratio_s} | {goal_s} | "
                     f"{met} | {r.rate} | {r.note} |")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------
# P1: the pto.matmul kernel
# ------------------------------------------------------------------------------------------------

_MEMREF_ELT = {"f16": "f16", "bf16": "bf16", "s8": "i8", "f32": "f32", "s32": "i32"}


def matmul_source(m: int, n: int, k: int, ab: str, c: str) -> str:
    ta, tb, tc = (f"memref<{m}x{k}x{_MEMREF_ELT[ab]}>", f"memref<{k}x{n}x{_MEMREF_ELT[ab]}>",
                  f"memref<{m}x{n}x{_MEMREF_ELT[c]}>")
    return (
        'builtin.module attributes {pto.target = "a2"} {\n'
        f"  func.func @matmul(%a: {ta}, %b: {tb}, %c: {tc}) {{\n"
        f"    pto.matmul %a, %b, %c : {ta}, {tb}, {tc}\n"
        "    func.return\n"
        "  }\n"
        "}\n"
    )


P1_LOWERING = "mmair-lower{tiling=rule multi-buffer=1}"
"""The lowering of the executor-speed rows: the fixed tile rule with one slot, the kernel those
rows have always measured (128 x 128 x 256 tiles at 2048^3: 2048 mads). `mmair-lower`'s own
default picks its tiles by the cost model (4x more, smaller mads at 2048^3), which would change
the workload, not the executor (docs/benchmarks.md)."""


def lowered_matmul(m: int, n: int, k: int, ab: str, c: str, pipeline: str = P1_LOWERING):
    """The matmul module after `pipeline` (parsed, verified and lowered as mmair-opt does)."""
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    text = matmul_source(m, n, k, ab, c)
    tool = MmairOptMain(args=["-p", pipeline])
    module = tool.parse_and_verify(text, SourceFile("<matmul>", text), 0)
    tool.pipeline.apply(tool.ctx, module)
    return module


def matmul_operands(m: int, n: int, k: int, ab: str, seed: int = 0):
    """Random operands: normal floats, full-range int8."""
    import numpy as np

    from mmair.isa.dtypes import numpy_dtype

    rng = np.random.default_rng(seed)
    dtype = numpy_dtype(ab)
    if ab == "s8":
        return (rng.integers(-128, 128, size=(m, k), dtype=np.int8),
                rng.integers(-128, 128, size=(k, n), dtype=np.int8))
    return (rng.standard_normal((m, k), dtype=np.float32).astype(dtype),
            rng.standard_normal((k, n), dtype=np.float32).astype(dtype))


def matmul_inputs(m: int, n: int, k: int, ab: str, seed: int = 0):
    """Random operands and their float32 copies (the baseline's inputs)."""
    import numpy as np

    a, b = matmul_operands(m, n, k, ab, seed)
    return a, b, a.astype(np.float32), b.astype(np.float32)


def check_matmul(out, a32, b32, ab: str) -> float:
    """Max relative error of the executor's C against a float64 reference (exact for s8)."""
    import numpy as np

    ref = a32.astype(np.float64) @ b32.astype(np.float64)
    if ab == "s8":
        if not np.array_equal(out.astype(np.int64), ref.astype(np.int64)):
            raise SystemExit("P1: the executor's s8 matmul differs from the exact result")
        return 0.0
    err = float(np.max(np.abs(out - ref)) / max(np.max(np.abs(ref)), 1e-30))
    if err > 1e-5:
        raise SystemExit(f"P1: the executor's {ab} matmul is off by {err:.2e} (relative)")
    return err


# ------------------------------------------------------------------------------------------------
# Background load
# ------------------------------------------------------------------------------------------------

_SPIN = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end:\n    pass\n"


@contextlib.contextmanager
def background_load(processes: int, seconds: float):
    """`processes` busy Python loops, each ending by itself after `seconds` at the latest."""
    procs = [subprocess.Popen([sys.executable, "-c", _SPIN.format(seconds=seconds)])
             for _ in range(processes)]
    try:
        time.sleep(0.2)
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
