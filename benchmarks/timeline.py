"""Estimated cycles of `pto.matmul` (f16 x f16 -> f32, target a2) per size, tile choice and
multi-buffer count, with each pipe's utilisation: the table in docs/benchmarks.md.

    python benchmarks/timeline.py                 # 256^3, 1024^3, 2048^3 (minutes on 2 cores)
    python benchmarks/timeline.py --sizes 256,1024 --png docs/images/timeline_k_loop.png

Each configuration is lowered with `pto-tile-matmul{tile-m tile-n tile-k multi-buffer},
pto-assign-addresses,pto-insert-sync` and run with `run_module(timing_only=True)` (the sync
checker's events scheduled with isa/ascend/costs.py; docs/costs.md), on a process pool
(`tools/tune.py`). The wall-clock column is the time of that timing-only run. `--png` draws the
timeline of one double-buffered K loop (256 x 128 x 1024, tiles 128 x 128 x 128, 2 buffers).
"""

from __future__ import annotations

import argparse
import time

from mmair.tools import tune

TILES = ((128, 128, 128), (64, 64, 256), (256, 128, 64))
PIPES = ("mte2", "mte1", "m", "fix")


def table(sizes: list[int], workers: int | None) -> str:
    jobs = [tune.Job(s, s, s, "f16", "f32", "a2", tune.Config(*tiles, mb))
            for s in sizes for tiles in TILES for mb in (1, 2)]
    t0 = time.perf_counter()
    by_job: dict[tune.Job, tune.Estimate] = {}
    for size in sizes:  # one sweep per size: its configurations are distinct
        mine = [j for j in jobs if j.m == size]
        for r in tune.sweep(mine, workers):
            by_job[next(j for j in mine if j.config == r.config)] = r
    wall = time.perf_counter() - t0
    lines = [
        "| M=N=K | tile m x n x k | buffers | est. cycles | est. time | "
        + " | ".join(f"{p} util" for p in PIPES) + " | busiest | timing-only run |",
        "|---|---|---|---|---|" + "---|" * len(PIPES) + "---|---|",
    ]
    for job in jobs:
        r = by_job[job]
        cfg = job.config
        if r.error:
            lines.append(f"| {job.m} | {cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k} | "
                         f"{cfg.multi_buffer} | {r.error} |" + " |" * (len(PIPES) + 3))
            continue
        util = " | ".join(f"{100 * r.utilisation.get(p, 0.0):.0f} %" for p in PIPES)
        lines.append(f"| {job.m} | {cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k} | {cfg.multi_buffer} | "
                     f"{r.cycles} | {r.seconds * 1e6:.1f} us | {util} | {r.busiest} | "
                     f"{r.wall:.1f} s |")
    lines.append("")
    lines.append(f"{len(jobs)} configurations estimated in {wall:.1f} s wall-clock.")
    return "\n".join(lines)


def k_loop_png(path: str) -> None:
    from mmair.executor.runner import run_module

    job = tune.Job(256, 128, 1024, "f16", "f32", "a2", tune.Config(128, 128, 128, 2))
    tl = run_module(tune.lower(job), timing_only=True).timeline
    tl.write_png(path)
    print(tl.summary().format())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="256,1024,2048")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--png", metavar="FILE.png")
    args = p.parse_args(argv)
    if args.png:
        k_loop_png(args.png)
    print(table([int(s) for s in args.sizes.split(",")], args.workers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
