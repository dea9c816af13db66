"""P1 through the command line, idle and under load (issue 13).

    python benchmarks/p1_cli.py                 # idle and loaded, all shapes
    python benchmarks/p1_cli.py --quick         # 2 repetitions, 512^3 / 1024^3 / 2048^3 f16 only

mmair side: `mmair.tools.run.main([...])` called in this process on a `pto.matmul` file (so the
whole CLI run minus the interpreter's start-up: parse, verify, `mmair-lower`, reading A and B from
.npy, the executor, writing C to .npy). Baseline: numpy's float32 `a32 @ b32` of the same matrices
(already converted, numpy's default BLAS threads) in the same process. The two are timed in
alternation; medians. "loaded": the same measurement while one busy process per core spins
(started and stopped by this script; each also ends by itself after `--load-seconds`).
Each shape is run with every `--jobs` value of `--jobs` (default: 1 and the CPU count), timed in
rotation with the baseline, so the table shows what the thread pool over independent ops gives.
`--pipelines` compares `-p` pipelines the same way (e.g. the default lowering against
`mmair-lower{multi-buffer=2}`, every pipeline with every `--jobs` value).
The notes give the median CPU time of the mmair run (all threads of the process), which moves
much less than the wall time on a shared machine.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import (  # noqa: E402
    Row,
    background_load,
    check_matmul,
    matmul_inputs,
    matmul_source,
    render,
)

_ACC = {"f16": "f32", "bf16": "f32", "s8": "s32"}


def case(tmp: Path, m: int, n: int, k: int, ab: str, jobs: int | None = None,
         pipeline: str | None = None):
    import numpy as np

    from mmair.isa.dtypes import numpy_dtype
    from mmair.tools.run import main as run_main

    acc = _ACC[ab]
    src = tmp / f"mm_{m}_{n}_{k}_{ab}.mlir"
    src.write_text(matmul_source(m, n, k, ab, acc))
    a, b, a32, b32 = matmul_inputs(m, n, k, ab)
    np.save(tmp / "a.npy", a.view(np.uint16) if ab == "bf16" else a)
    np.save(tmp / "b.npy", b.view(np.uint16) if ab == "bf16" else b)
    np.save(tmp / "c.npy", np.zeros((m, n), numpy_dtype(acc)))
    argv = [str(src), "--input", f"a={tmp / 'a.npy'}", "--input", f"b={tmp / 'b.npy'}",
            "--input", f"c={tmp / 'c.npy'}", "--output", f"c={tmp / 'out.npy'}"]
    if ab == "bf16":
        argv.append("--raw-bits")
    if jobs is not None:
        argv += ["--jobs", str(jobs)]
    if pipeline is not None:
        argv += ["-p", pipeline]

    def mmair() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            if run_main(argv) != 0:
                raise SystemExit(f"mmair-run failed on {src}")

    def base() -> None:
        a32 @ b32

    return mmair, base, (tmp / "out.npy", a32, b32)


def measure(runs: list, base, reps: int) -> tuple[list[float], float, list[float]]:
    """Medians of each mmair variant in `runs` and of `base`, all timed in rotation, and the
    median CPU time of this process (all its threads) during each mmair variant: on a shared
    machine the wall times move with the other work, the CPU times much less."""
    import gc

    for fn in (*runs, base):
        fn()
    times: list[list[float]] = [[] for _ in range(len(runs) + 1)]
    cpu: list[list[float]] = [[] for _ in range(len(runs) + 1)]
    fns = [*runs, base]
    for i in range(reps):
        order = list(range(len(fns)))
        if i % 2:
            order.reverse()
        for j in order:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            fns[j]()
            times[j].append(time.perf_counter() - t0)
            cpu[j].append(time.process_time() - c0)
    return ([statistics.median(t) for t in times[:-1]], statistics.median(times[-1]),
            [statistics.median(c) for c in cpu[:-1]])


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--load-seconds", type=float, default=600.0,
                        help="upper bound on the life of each background process")
    parser.add_argument("--modes", default="idle,loaded")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--jobs", default=None,
                        help="comma-separated --jobs values to compare (default: 1 and the CPU "
                             "count)")
    parser.add_argument("--pipelines", default=None,
                        help="';'-separated mmair-run -p pipelines to compare, e.g. "
                             "'mmair-lower;mmair-lower{multi-buffer=2}' (default: the automatic "
                             "lowering)")
    parser.add_argument("--shapes", default=None,
                        help="only these shapes, e.g. 2048x2048x2048:f16,1024x1024x1024:s8")
    args = parser.parse_args(argv)
    reps = args.reps or (2 if args.quick else 5)
    shapes = [(512, 512, 512, "f16", None), (1024, 1024, 1024, "f16", None),
              (2048, 2048, 2048, "f16", "goal")]
    if not args.quick:
        shapes += [(1000, 700, 3000, "f16", None), (1024, 1024, 1024, "bf16", None),
                   (1024, 1024, 1024, "s8", None)]
    cores = os.cpu_count() or 1
    if args.shapes:
        shapes = []
        for spec in args.shapes.split(","):
            dims, _, ab = spec.partition(":")
            m, n, k = (int(x) for x in dims.split("x"))
            shapes.append((m, n, k, ab or "f16", "goal" if (m, n, k) == (2048,) * 3 else None))
    jobs_list = [int(j) for j in args.jobs.split(",")] if args.jobs else sorted({1, cores})
    pipelines: list[str | None] = args.pipelines.split(";") if args.pipelines else [None]
    configs = [(j, p) for p in pipelines for j in jobs_list]
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for c, _ in enumerate(configs):
            (tmp / f"c{c}").mkdir()
        for mode in args.modes.split(","):
            load = (background_load(cores, args.load_seconds) if mode == "loaded"
                    else contextlib.nullcontext())
            goal = 3.0 if mode == "loaded" else 1.5
            with load:
                for m, n, k, ab, tag in shapes:
                    variants = [case(tmp / f"c{c}", m, n, k, ab, j, p)
                                for c, (j, p) in enumerate(configs)]
                    t_ms, t_b, cpus = measure([v[0] for v in variants], variants[0][1], reps)
                    flops = 2 * m * n * k
                    for (jobs, pipeline), (_, _, (out, a32, b32)), t_m, cpu in zip(
                            configs, variants, t_ms, cpus, strict=True):
                        err = check_matmul(np.load(out).astype(np.float64), a32, b32, ab)
                        rows.append(Row(
                            f"P1 {mode}",
                            f"mmair-run --jobs {jobs}"
                            + (f" -p '{pipeline}'" if pipeline is not None else "")
                            + f" {ab} x {ab} -> {_ACC[ab]}, "
                            f"M={m} N={n} K={k}",
                            f"{flops / 1e9:.2f} GFLOP", t_m, t_b, goal if tag else None,
                            rate=f"{flops / t_m / 1e9:.1f} GFLOP/s",
                            note=f"CPU {cpu:.2f} s; max rel err {err:.1e}" + (
                                f"; {cores} busy processes" if mode == "loaded" else "")))
    load = os.getloadavg()[0]
    header = (f"P1 through mmair-run (median of {reps} alternating runs), {cores} CPUs, "
              f"numpy {np.__version__}; load average {load:.2f} at the end")
    table = render(rows, header)
    print(table)
    if args.output is not None:
        args.output.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
