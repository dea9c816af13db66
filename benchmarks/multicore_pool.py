"""Blocks on a process pool (issue 12): a 2048^3 f16 matmul split over 24 blocks
(`pto-tile-matmul{blocks=24}`), run with `run_module(blocks=24, jobs=1)` (every block in this
process) and `jobs=J` (J worker processes, GM in shared memory), in alternation, in one run.

    python benchmarks/multicore_pool.py                  # 2048^3, jobs = the machine's cores
    python benchmarks/multicore_pool.py --size 1024 --jobs 2 --reps 3 --sync-check

Prints the median wall time of each and the speed-up jobs=1 / jobs=J, the CPU seconds of this
process and of the workers (how the work was split), and checks that the outputs are
bit-identical. The speed-up is bounded by the cores the machine gives this process
(`os.sched_getaffinity`) and by the load of other processes: the script prints the load average
before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time


def build(size: int, blocks: int):
    from xdsl.context import Context
    from xdsl.passes import PassPipeline

    from mmair.dialects import get_all_dialects
    from mmair.passes import get_all_passes
    from mmair.tools.diagnostics import LocatingParser

    t = f"memref<{size}x{size}xf16>"
    c = f"memref<{size}x{size}xf32>"
    text = (f'builtin.module attributes {{pto.target = "a2"}} {{\n'
            f"  func.func @mm(%a: {t}, %b: {t}, %c: {c}) {{\n"
            f"    pto.matmul %a, %b, %c : {t}, {t}, {c}\n    func.return\n  }}\n}}\n")
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "mm.mlir").parse_module()
    PassPipeline.parse_spec(get_all_passes(), f"mmair-lower{{blocks={blocks}}}").apply(ctx, module)
    return module


def main() -> None:
    import numpy as np

    from mmair.executor.engine.multicore_pool import default_jobs
    from mmair.executor.runner import run_module

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--blocks", type=int, default=24)
    p.add_argument("--jobs", type=int, default=0, help="0: the machine's cores")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--sync-check", action="store_true")
    args = p.parse_args()
    jobs = args.jobs or default_jobs()
    module = build(args.size, args.blocks)
    rng = np.random.default_rng(0)
    inputs = {"a": rng.uniform(-2, 2, (args.size, args.size)).astype(np.float16),
              "b": rng.uniform(-2, 2, (args.size, args.size)).astype(np.float16)}
    print(f"load average before: {os.getloadavg()[0]:.2f}; cores for this process: "
          f"{default_jobs()}")
    times: dict[int, list[float]] = {1: [], jobs: []}
    cpu: dict[int, list[tuple[float, float]]] = {1: [], jobs: []}
    outputs: dict[int, np.ndarray] = {}

    def children() -> float:
        r = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r.ru_utime + r.ru_stime

    for _ in range(args.reps):
        for j in (1, jobs):
            start, own, kids = time.perf_counter(), time.process_time(), children()
            result = run_module(module, inputs=inputs, blocks=args.blocks, jobs=j,
                                sync_check=args.sync_check)
            times[j].append(time.perf_counter() - start)
            cpu[j].append((time.process_time() - own, children() - kids))
            outputs[j] = result.outputs["c"]
    one, many = statistics.median(times[1]), statistics.median(times[jobs])
    same = np.array_equal(outputs[1], outputs[jobs])
    print(f"{args.size}^3 f16 on {args.blocks} blocks, sync check "
          f"{'on' if args.sync_check else 'off'}, {args.reps} reps (medians):")
    print(f"  jobs=1: {one:.2f} s   jobs={jobs}: {many:.2f} s   speed-up {one / many:.2f}x   "
          f"outputs identical: {same}")
    for j in (1, jobs):
        own = statistics.median(c[0] for c in cpu[j])
        kids = statistics.median(c[1] for c in cpu[j])
        print(f"  CPU seconds jobs={j}: this process {own:.2f}, workers {kids:.2f} "
              f"(per worker {kids / j:.2f})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
