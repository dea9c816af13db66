"""mmair benchmarks: every ratio measured side by side in one run, printed as a markdown table.

    python benchmarks/run.py            # full run (a few minutes on the 2-core VM)
    python benchmarks/run.py --quick    # fewer repetitions and no 2048^3 rows except the goal rows

Workloads (issue 6):

* P1 executor: `pto.matmul` lowered by `mmair-lower{tiling=rule multi-buffer=1}` (the fixed
  workload, `common.P1_LOWERING`) and run by the executor (`run_module`), against
  numpy's float32 matmul of the same matrices (already in f32: the baseline is the BLAS call alone).
* P2 tcgen05: a loop of `tcgen05.mma` kind::f16 (M = 128, N = 256, K = 4096 in steps of 16) reading
  A and B through 128B-swizzled SMEM descriptors, against numpy on the same data.
* P2x tcgen05 numerics: one `tcgen05.mma` per kind in exact mode (the tensor core's fused dot
  product) against the same call in the default mode; the goal row is the 128x256x16 f16 MMA (20x).
* P3 tools: `mmair-opt` start-up on a small pto file against `xdsl-opt` on an arith file with the same
  op count (subprocesses); parse + verify of generated pto kernels against the stock xDSL parser and
  verifier (what `xdsl-opt` runs) on arith-only modules of the same op count (in process).
* P1 sync: the race checker's cost, the flagged 2048^3 kernel with `sync_check` on against off,
  idle and with one busy process per CPU beside it (`--only SYNC` runs just these rows; 15
  repetitions unless `--reps` or `--quick`): CPU time, the median of the paired differences
  over the median checker-off time.
* P1 floor: the executor against the same mads as plain numpy sgemms with one BLAS thread
  (`mad_floor`), at 2048^3 and 1000x3000x700, idle and loaded (`--only FLOOR` runs just
  these rows); goal 1.5x (issue 30).
* MEM: peak RSS of a fresh process that runs the 2048^3 f16 matmul, against 3x the bytes of the
  three matrices in f32.

Each pair is measured in alternation (mmair, baseline, mmair, ...; the order flips every repetition)
and reported as the median of N repetitions, so that machine load hits both sides alike.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from common import (  # noqa: E402
    P1_LOWERING,
    Row,
    background_load,
    check_matmul,
    lowered_matmul,
    matmul_inputs,
    matmul_operands,
    render,
    side_by_side,
)
from kernels import arith_kernel, pto_kernel  # noqa: E402

# ------------------------------------------------------------------------------------------------
# P1: pto.matmul through mmair-lower and the executor
# ------------------------------------------------------------------------------------------------


def bench_matmul(label: str, size: int, ab: str, c: str, goal: float | None, reps: int) -> Row:
    import numpy as np

    from mmair.executor.runner import run_module
    from mmair.isa.dtypes import numpy_dtype

    module = lowered_matmul(size, size, size, ab, c)
    a, b, a32, b32 = matmul_inputs(size, size, size, ab)
    inputs = {"a": a, "b": b, "c": np.zeros((size, size), dtype=numpy_dtype(c))}
    result = run_module(module, "matmul", inputs)
    err = check_matmul(result.outputs["c"], a32, b32, ab)
    mads = sum(v for name, v in result.op_counts.items() if name.startswith("pto.mad"))
    t_m, t_b = side_by_side(lambda: run_module(module, "matmul", inputs), lambda: a32 @ b32, reps)
    flops = 2 * size**3
    return Row(
        "P1", f"{label}: {ab} x {ab} -> {c}, {size}^3", f"{flops / 1e9:.2f} GFLOP", t_m, t_b, goal,
        rate=f"{flops / t_m / 1e9:.1f} GFLOP/s", note=f"{mads} mads; max rel err {err:.1e}",
    )


def flagged_matmul(size: int):
    """The lowered f16 matmul with its set_flag / wait_flag: `mmair-lower` output, through
    `pto-insert-sync` when the lowering does not run it; None when neither gives flags."""
    from xdsl.context import Context

    from mmair.dialects import get_all_dialects, pto
    from mmair.passes import get_all_passes

    module = lowered_matmul(size, size, size, "f16", "f32")
    if not any(isinstance(op, pto.SetFlagOp) for op in module.walk()):
        passes = get_all_passes()
        if "pto-insert-sync" not in passes:
            return None
        ctx = Context()
        for name, factory in get_all_dialects().items():
            ctx.register_dialect(name, factory)
        passes["pto-insert-sync"]()().apply(ctx, module)
    return module


def bench_timing_only(size: int, blocks_list: tuple[int, ...], reps: int) -> list[Row]:
    """`--timing-only` against the numeric run of the same lowered kernel (issue 30 item 2:
    >= 10x faster, i.e. a ratio <= 0.1): events, footprints and costs only, no data."""
    import numpy as np

    from mmair.executor.runner import run_module
    from mmair.isa.dtypes import numpy_dtype

    rows: list[Row] = []
    a, b, _, _ = matmul_inputs(size, size, size, "f16")
    for blocks in blocks_list:
        split = f" blocks={blocks}" if blocks > 1 else ""
        module = lowered_matmul(size, size, size, "f16", "f32",
                                P1_LOWERING.replace("}", f"{split}}}"))
        inputs = {"a": a, "b": b, "c": np.zeros((size, size), dtype=numpy_dtype("f32"))}
        timed = run_module(module, "matmul", timing_only=True, blocks=blocks).timeline.summary()
        numeric = run_module(module, "matmul", inputs, blocks=blocks, timing=True)
        same = (numeric.timeline.summary().total, numeric.timeline.summary().report()) == \
            (timed.total, timed.report())
        # the timing-only side is what `mmair-run --timing-only` does: the run and its summary
        # (the schedule, the L2 model); the numeric side computes the outputs, no timeline
        t_m, t_b = side_by_side(
            lambda m=module, b=blocks: run_module(m, "matmul", timing_only=True,
                                                  blocks=b).timeline.summary(),
            lambda m=module, b=blocks, i=inputs: run_module(m, "matmul", i, blocks=b), reps)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        rows.append(Row("TIMING", f"--timing-only (run + summary) vs the numeric run, f16 "
                                  f"{size}^3, blocks={blocks}",
                        f"{timed.total} cycles", t_m, t_b, 0.1,
                        note=("cycles equal to the numeric run's timeline" if same else
                              "cycles DIFFER from the numeric run's timeline") +
                        f"; load {load:.1f}"))
    return rows


def bench_tune(shape: tuple[int, int, int], reps: int) -> list[Row]:
    """`mmair-tune` with its grid pruned by the closed-form estimate (`--keep`, default) against
    every legal configuration lowered and timed (`--keep 0`): wall time, and whether both find
    the same best cycles (issue 30 item 2: the sweep <= 10 s at 1024^3)."""
    import contextlib
    import io
    import json

    from mmair.tools import tune

    m, n, k = shape
    found: dict[str, dict] = {}

    def run(keep: str) -> Callable[[], None]:
        def go() -> None:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                tune.main([str(m), str(n), str(k), "--workers", "2", "--no-verify",
                           "--progress", "off", "--json", *(["--keep", keep] if keep else [])])
            found[keep] = json.loads(out.getvalue())
        return go

    t_m, t_b = side_by_side(run(""), run("0"), reps, warmup=0)
    pruned, full = found[""], found["0"]
    same = pruned["results"][0]["cycles"] == full["results"][0]["cycles"]
    return [Row("TUNE", f"mmair-tune {m}x{n}x{k} f16: pruned (--keep default) vs every config",
                f"{pruned['timed']} / {full['timed']} timed", t_m, t_b, None,
                note=("same best cycles" if same else
                      f"best {pruned['results'][0]['cycles']} vs {full['results'][0]['cycles']}")
                + f"; 2 workers, {pruned['legal']} legal")]


SYNC_REPS = 15
"""Default repetitions of the sync rows (each about 1.3 s idle): the checker adds about a tenth
of the run, less than the run-to-run spread of the checker-off time alone, so the figure needs
the paired differences of many repetitions."""


def paired_figure(on: list[float], off: list[float]) -> tuple[float, float, float, float]:
    """(median checker-off time, median of the per-repetition differences on - off, their
    lower and upper quartiles) of CPU times measured back to back: the headline ratio is
    1 + median difference / median off time, which moves less with the machine's load than the
    ratio of the medians (both runs of one repetition see the same load)."""
    diffs = sorted(a - b for a, b in zip(on, off, strict=True))
    if len(diffs) >= 2:
        q1, _, q3 = statistics.quantiles(diffs, n=4)
    else:
        q1 = q3 = diffs[0]
    return statistics.median(off), statistics.median(diffs), q1, q3


def bench_sync_check(size: int, reps: int) -> list[Row]:
    """The race checker's cost: the same flagged kernel with `sync_check` on and off, back to
    back in this process (the order flips every repetition), idle and again with one busy
    process per CPU beside it (the load of `p1_cli.py`). Measured in CPU time of this thread
    (the executor runs on it: one job, one BLAS thread); the ratio is 1 + the median of the
    per-repetition differences over the median checker-off time (`paired_figure`, the
    headline), the note gives the quartiles of the differences, the fastest run of each side
    (the least disturbed by other processes), the ratio of the median CPU times and of the
    median wall times, and the load average before and after the row."""
    import numpy as np

    from mmair.executor.runner import run_module

    module = flagged_matmul(size)
    if module is None:
        return [Row("P1", f"sync checker on vs off: flagged lowered f16 matmul, {size}^3", "-",
                     None, None, 1.15, note="no flags: pto-insert-sync missing")]
    a, b, _, _ = matmul_inputs(size, size, size, "f16")
    inputs = {"a": a, "b": b, "c": np.zeros((size, size), dtype=np.float32)}
    result = run_module(module, "matmul", inputs, sync_check=True)
    ops = result.op_counts
    events = sum(v for name, v in ops.items() if name.startswith("pto.")
                 and name not in ("pto.alloc", "pto.reinterpret"))
    flags = ops.get("pto.set_flag", 0) + ops.get("pto.wait_flag", 0)
    rows = []
    for mode in ("idle", "loaded"):
        load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        load = background_load(os.cpu_count() or 2, 900) if mode == "loaded" \
            else contextlib.nullcontext()
        with load:
            runs = {True: ([], []), False: ([], [])}
            for check in (True, False):  # warm-up
                run_module(module, "matmul", inputs, sync_check=check)
            for i in range(reps):
                for check in (True, False) if i % 2 == 0 else (False, True):
                    gc.collect()
                    t0, c0 = time.perf_counter(), time.thread_time()
                    run_module(module, "matmul", inputs, sync_check=check)
                    runs[check][0].append(time.perf_counter() - t0)
                    runs[check][1].append(time.thread_time() - c0)
        load_after = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        t_on, t_off = (statistics.median(runs[c][0]) for c in (True, False))
        c_on = statistics.median(runs[True][1])
        c_off, paired, q1, q3 = paired_figure(runs[True][1], runs[False][1])
        fast_on, fast_off = min(runs[True][1]), min(runs[False][1])
        busy = f"; {os.cpu_count() or 2} busy processes beside it" if mode == "loaded" else ""
        rows.append(Row(
            "P1", f"sync checker on vs off ({mode}): flagged lowered f16 matmul, {size}^3",
            f"{events} pipe events ({flags} set/wait)", c_off + paired, c_off, 1.15,
            rate=f"{paired / events * 1e6:.1f} µs CPU/event",
            note=f"CPU: checker off {c_off:.3f} s, the checker adds {paired * 1e3:+.0f} ms "
                 f"(median of {reps} back-to-back differences; quartiles {q1 * 1e3:+.0f} / "
                 f"{q3 * 1e3:+.0f} ms); fastest runs {fast_on:.3f} s vs {fast_off:.3f} s = "
                 f"{fast_on / fast_off:.2f}x; ratio of the median CPU times {c_on / c_off:.2f}x, "
                 f"of the median wall times {t_on / t_off:.2f}x; load average "
                 f"{load_before:.1f} -> {load_after:.1f}{busy}"))
    return rows


def mad_tiles(module) -> tuple[int, int, int]:
    """(tile-m, tile-n, tile-k) of the lowered kernel's first mad (its L0A and L0B tile types)."""
    for op in module.walk():
        if op.name in ("pto.mad", "pto.mad_acc"):
            tm, tk = op.operands[0].type.logical_shape
            _, tn = op.operands[1].type.logical_shape
            return tm, tn, tk
    raise SystemExit("the lowered matmul has no pto.mad")


def mad_floor(module, a32, b32):
    """The arithmetic of the lowered kernel without any simulation: one numpy sgemm per mad on
    f32 views of the inputs (the kernel's tiles, its K order and f32 accumulation per mad, the
    remainder tiles included), with one BLAS thread as the executor runs (`engine.blas`).
    Returns (the loop, its number of mads, the tiles)."""
    import numpy as np

    from mmair.executor.engine.blas import one_blas_thread

    tm, tn, tk = mad_tiles(module)
    (m, k), n = a32.shape, b32.shape[1]
    out = np.empty((m, n), np.float32)

    def tiled() -> None:
        with one_blas_thread():
            for i in range(0, m, tm):
                for j in range(0, n, tn):
                    acc = a32[i:i + tm, 0:tk] @ b32[0:tk, j:j + tn]
                    for kk in range(tk, k, tk):
                        acc += a32[i:i + tm, kk:kk + tk] @ b32[kk:kk + tk, j:j + tn]
                    out[i:i + tm, j:j + tn] = acc

    mads = -(-m // tm) * -(-n // tn) * -(-k // tk)
    return tiled, mads, (tm, tn, tk)


def bench_mad_floor(size: int, reps: int) -> Row:
    """The floor against one numpy sgemm (numpy's default BLAS threads)."""
    module = lowered_matmul(size, size, size, "f16", "f32")
    _, _, a32, b32 = matmul_inputs(size, size, size, "f16")
    tiled, mads, (tm, tn, tk) = mad_floor(module, a32, b32)
    t_m, t_b = side_by_side(tiled, lambda: a32 @ b32, reps)
    return Row("P1", f"floor: the same {mads} mads as plain numpy sgemms (no simulation, one "
                     f"BLAS thread), {size}^3",
               f"{2 * size**3 / 1e9:.2f} GFLOP", t_m, t_b, None,
               rate=f"{2 * size**3 / t_m / 1e9:.1f} GFLOP/s",
               note=f"tiles m={tm} n={tn} k={tk}: what any per-mad executor pays for the arithmetic")


FLOOR_SHAPES = ((2048, 2048, 2048), (1000, 3000, 700))
"""(M, K, N) of the floor-goal rows (issue 30)."""


def bench_floor_goal(shapes, reps: int, modes=("idle", "loaded")) -> list[Row]:
    """The executor (default mode, `run_module` as the P1 rows run it) against its floor
    (`mad_floor`), side by side in this process with the same single BLAS thread, idle and with
    one busy process per CPU beside it; goal 1.5x. The note gives the ratio of the fastest runs
    and the CPU-time ratio of the medians (CPU time moves less with the machine's load)."""
    import numpy as np

    from mmair.executor.runner import run_module

    rows = []
    for m, k, n in shapes:
        module = lowered_matmul(m, n, k, "f16", "f32")
        a, b, a32, b32 = matmul_inputs(m, n, k, "f16")
        inputs = {"a": a, "b": b, "c": np.zeros((m, n), np.float32)}
        check_matmul(run_module(module, "matmul", inputs).outputs["c"], a32, b32, "f16")
        tiled, mads, _ = mad_floor(module, a32, b32)
        for mode in modes:
            load_before = os.getloadavg()[0]
            load = background_load(os.cpu_count() or 2, 900) if mode == "loaded" \
                else contextlib.nullcontext()
            with load:
                times = {0: ([], []), 1: ([], [])}
                fns = (lambda module=module, inputs=inputs: run_module(module, "matmul", inputs),
                       tiled)
                for fn in fns:
                    fn()
                for i in range(reps):
                    for side in (0, 1) if i % 2 == 0 else (1, 0):
                        gc.collect()
                        t0, c0 = time.perf_counter(), time.thread_time()
                        fns[side]()
                        times[side][0].append(time.perf_counter() - t0)
                        times[side][1].append(time.thread_time() - c0)
            load_after = os.getloadavg()[0]
            (w_m, c_m), (w_f, c_f) = ((statistics.median(x) for x in times[s]) for s in (0, 1))
            fastest = min(times[0][0]) / min(times[1][0])
            rows.append(Row(
                "P1", f"executor vs its floor ({mode}): f16 x f16 -> f32, {m}x{k}x{n} (MxKxN)",
                f"{mads} mads", w_m, w_f, 1.5,
                rate=f"{2 * m * n * k / w_m / 1e9:.1f} GFLOP/s",
                note=f"fastest runs {fastest:.2f}x; CPU {c_m:.3f} s vs {c_f:.3f} s = "
                     f"{c_m / c_f:.2f}x; load average {load_before:.1f} -> {load_after:.1f}"
                     + ("; 2 busy processes beside it" if mode == "loaded" else "")))
    return rows


# ------------------------------------------------------------------------------------------------
# P2: tcgen05.mma loop
# ------------------------------------------------------------------------------------------------


def bench_p2(reps: int) -> list[Row]:
    try:
        from p2_tcgen05 import run_p2
    except ImportError as err:  # the tcgen05 executor is not there yet
        return [Row("P2", "tcgen05.mma kind::f16 M=128 N=256 K=4096, SW128 SMEM descriptors",
                    "0.27 GFLOP", None, None, 2.0, note=f"not measured: tcgen05 executor not available ({err})")]
    from tcgen05_numerics import bench_exact  # exact vs default numerics per kind (issue 16)

    return run_p2(reps) + bench_exact(max(reps, 9))


# ------------------------------------------------------------------------------------------------
# P3: tools
# ------------------------------------------------------------------------------------------------


def _tool(name: str) -> list[str]:
    """The console script next to this Python (so both tools come from the same environment)."""
    local = Path(sys.executable).with_name(name)
    found = str(local) if local.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install mmair (`pip install -e .`)")
    return [found]


def _count_ops(text: str) -> int:
    """Operations in a module (the module itself included), counted on the parsed IR."""
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    module = MmairOptMain(args=["-"]).parse_and_verify(text, SourceFile("<count>", text), 0)
    return sum(1 for _ in module.walk())


def bench_startup(reps: int, tmp: Path) -> list[Row]:
    small_pto = (ROOT / "examples" / "gemm_f16_128.mlir").read_text()
    ops = _count_ops(small_pto)
    pto_file = tmp / "small_pto.mlir"
    pto_file.write_text(small_pto)
    arith_file = tmp / "small_arith.mlir"
    arith_file.write_text(arith_kernel(ops))
    mmair = _tool("mmair-opt") + [str(pto_file)]
    xdsl = _tool("xdsl-opt") + [str(arith_file)]

    def run(cmd: list[str], env: dict[str, str] | None = None) -> Callable[[], None]:
        return lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env)

    t_m, t_b = side_by_side(run(mmair), run(xdsl), reps)
    rows = [Row("P3", "start-up: mmair-opt on examples/gemm_f16_128.mlir vs xdsl-opt on arith",
                f"{ops} ops", t_m, t_b, 1.3, note="whole process: imports, parse, verify, print")]
    # With PYTHONDONTWRITEBYTECODE=1 (this environment) the editable mmair has no bytecode and
    # compiles every module it imports from source at each start (~30 ms), while xdsl-opt's
    # site-packages bytecode was written by pip at install. The second row gives both sides a
    # bytecode cache (in a temporary PYTHONPYCACHEPREFIX, written by one warm-up run each), as a
    # regular `pip install` of mmair has.
    cache = tmp / "pycache"
    warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    warm["PYTHONPYCACHEPREFIX"] = str(cache)
    for cmd in (mmair, xdsl):
        run(cmd, warm)()
    cached = dict(os.environ, PYTHONPYCACHEPREFIX=str(cache))
    t_m, t_b = side_by_side(run(mmair, cached), run(xdsl, cached), reps)
    rows.append(Row("P3", "start-up as above, both with a bytecode cache (as installed)",
                    f"{ops} ops", t_m, t_b, None, note="PYTHONPYCACHEPREFIX, warmed once"))
    return rows


def bench_parse_verify(sizes: list[tuple[int, float | None]], reps: int) -> list[Row]:
    from xdsl.parser import Parser
    from xdsl.xdsl_opt_main import xDSLOptMain

    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    rows: list[Row] = []
    for ops, goal in sizes:
        pto_text, arith_text = pto_kernel(ops), arith_kernel(ops)
        mtool = MmairOptMain(args=["-"])
        xtool = xDSLOptMain(args=["-"])
        source = SourceFile("<pto>", pto_text)

        def mmair(tool=mtool, text=pto_text, source=source) -> None:
            tool.parse_and_verify(text, source, 0)

        def xdsl(tool=xtool, text=arith_text) -> None:
            Parser(tool.ctx, text, "<arith>").parse_module().verify()

        t_m, t_b = side_by_side(mmair, xdsl, reps)
        rows.append(Row("P3", f"parse + verify, generated pto kernel vs arith-only ({ops} ops)",
                        f"{ops} ops", t_m, t_b, goal, rate=f"{t_m / ops * 1e6:.0f} µs/op",
                        note=f"xdsl {t_b / ops * 1e6:.0f} µs/op"))
    return rows


# ------------------------------------------------------------------------------------------------
# MEM: peak RSS of the 2048^3 run, in a fresh process
# ------------------------------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def rss_child(size: int) -> None:
    """Runs in a fresh process: lower and run the f16 matmul, print RSS figures as JSON."""
    from mmair.executor.runner import run_module

    module = lowered_matmul(size, size, size, "f16", "f32")
    gc.collect()
    try:  # reset the high-water mark so that it covers the run only (Linux >= 4.0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    before = _status_kib("VmRSS")
    import numpy as np

    a, b = matmul_operands(size, size, size, "f16")
    run_module(module, "matmul", {"a": a, "b": b, "c": np.zeros((size, size), np.float32)},
               sync_check=True)  # as mmair-run runs it: the checker on, --jobs default
    print(json.dumps({"before_kib": before, "hwm_kib": _status_kib("VmHWM")}))


def bench_memory(size: int) -> list[Row]:
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--rss-child", str(size)],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    used = (data["hwm_kib"] - data["before_kib"]) * 1024
    limit = 3 * 3 * size * size * 4
    return [Row("MEM", f"peak RSS of the {size}^3 f16 run (inputs included) vs 3x three f32 matrices",
                f"{3 * size * size * 4 / 2**20:.0f} MiB of f32 matrices", used, limit, 1.0,
                note=f"peak {used / 2**20:.0f} MiB over the {data['before_kib'] / 1024:.0f} MiB process "
                     f"(imports and IR); limit {limit / 2**20:.0f} MiB")]


# ------------------------------------------------------------------------------------------------
# Table
# ------------------------------------------------------------------------------------------------


def machine_header(reps: int, quick: bool) -> str:
    import numpy as np

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    return (f"mmair benchmarks ({'quick' if quick else 'full'}; median of {reps} side-by-side "
            f"repetitions) on {platform.machine()} with {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}, numpy {np.__version__}, BLAS threads {threads}; "
            f"load average {load:.2f} at start")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and sizes")
    parser.add_argument("--reps", type=int, default=None, help="repetitions per measurement")
    parser.add_argument("--only", default="P1,P2,P3,MEM", help="comma-separated groups to run")
    parser.add_argument("--output", type=Path, default=None, help="also write the table here")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="run with OPENBLAS_NUM_THREADS/OMP_NUM_THREADS set to this (both sides)")
    parser.add_argument("--rss-child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.blas_threads is not None and os.environ.get("OPENBLAS_NUM_THREADS") != str(args.blas_threads):
        # BLAS reads its thread count when numpy loads: start over in a process that has it.
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(args.blas_threads),
                   OMP_NUM_THREADS=str(args.blas_threads))
        return subprocess.run([sys.executable, str(Path(__file__).resolve()), *sys.argv[1:]],
                              env=env).returncode
    if args.rss_child is not None:
        rss_child(args.rss_child)
        return 0
    groups = {g.strip().upper() for g in args.only.split(",")}
    reps = args.reps or (3 if args.quick else 7)
    rows: list[Row] = []
    if "P1" in groups:
        cases: list[tuple[str, int, str, str, float | None]] = [
            ("scaling", 512, "f16", "f32", None),
            ("scaling", 1024, "f16", "f32", None),
            ("numpy", 2048, "f16", "f32", None),  # the goal is the floor (issue 30)
            ("path", 1024, "bf16", "f32", None),
            ("path", 1024, "s8", "s32", None),
        ]
        rows += [bench_matmul(*case, reps) for case in cases]
        rows.append(bench_mad_floor(2048, reps))
    if "P1" in groups or "FLOOR" in groups:
        rows += bench_floor_goal(FLOOR_SHAPES, reps)
    if "P1" in groups or "SYNC" in groups:
        rows += bench_sync_check(2048, args.reps or (reps if args.quick else SYNC_REPS))
    if "TUNE" in groups:
        rows += bench_tune((1024, 1024, 1024), 1)
    if "TIMING" in groups:
        rows += bench_timing_only(2048, (1, 24), reps)
    if "P2" in groups:
        rows += bench_p2(reps)
    if "P3" in groups:
        with tempfile.TemporaryDirectory() as tmp:
            rows += bench_startup(max(reps, 5), Path(tmp))
        sizes = [(1000, 1.3), (10000, 1.3)] if args.quick else [(1000, 1.3), (3000, None), (10000, 1.3)]
        rows += bench_parse_verify(sizes, reps if args.quick else 2 * reps + 1)
    if "MEM" in groups:
        rows += bench_memory(2048)
    table = render(rows, machine_header(reps, args.quick))
    print(table)
    if args.output is not None:
        args.output.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
