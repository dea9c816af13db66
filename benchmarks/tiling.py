"""The tiling `mmair-lower` chooses against the best an `mmair-tune` search finds (a2, f16 -> f32),
in the L2 cost model: the rows of docs/benchmarks.md, "Tiling by the cost model".

    python benchmarks/tiling.py                    # the four goal rows (tens of minutes on 2 cores)
    python benchmarks/tiling.py --rows 2048x2048x2048@1 --workers 2

Each row lowers the matmul with the default `mmair-lower{blocks=B}` (the cost model's choice,
passes/matmul_choice.py) and times it with `run_module(timing_only=True)`; then `mmair-tune`'s
sweep (tools/tune.py) times every legal configuration of the grid below on a process pool and
the row reports the best, the ratio default / best, cube utilization, L2 hit rate and the
roofline that bounds each (docs/costs.md, "What --timing tells").
"""

from __future__ import annotations

import argparse
import time

from mmair.tools import tune

ROWS = ("2048x2048x2048@1", "2048x2048x2048@24", "4096x4096x512@24", "1x4096x4096@24")
"""M x N x K @ blocks: the goals of the tiling work."""
GRID = {
    "tiles_m": [16, 128, 256],
    "tiles_n": [128, 256],
    "tiles_k": [32, 64, 128],
    "chunks": [0, 256, 512],
    "buffers": [1, 2],
}
"""The tuner's search: every legal combination (`tune.candidates`)."""


def _default(m: int, n: int, k: int, blocks: int) -> tuple[dict, float]:
    from mmair.executor.runner import run_module
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    text = tune.matmul_source(m, n, k, "f16", "f32", "a2")
    tool = MmairOptMain(args=["-p", f"mmair-lower{{blocks={blocks}}}"])
    module = tool.parse_and_verify(text, SourceFile("<row>", text), 0)
    tool.pipeline.apply(tool.ctx, module)
    t0 = time.perf_counter()
    summary = run_module(module, timing_only=True, blocks=blocks).timeline.summary()
    return {"cycles": summary.total, **summary.report()}, time.perf_counter() - t0


def _describe(report: dict) -> str:
    bound = report["bound"]
    hit = report["l2_hit_rate"]
    return (f"{100 * report['cube_utilization']:.1f} % | "
            f"{'-' if hit is None else f'{100 * hit:.1f} %'} | "
            f"{bound['roofline']} {100 * bound['fraction']:.0f} %")


def row(spec: str, workers: int | None) -> str:
    shape, _, blocks_text = spec.partition("@")
    m, n, k = (int(x) for x in shape.split("x"))
    blocks = int(blocks_text or 1)
    default, wall = _default(m, n, k, blocks)
    configs = tune.candidates(m, n, k, "f16", "f32", "a2", GRID["tiles_m"], GRID["tiles_n"],
                              GRID["tiles_k"], GRID["buffers"], blocks, GRID["chunks"])
    jobs = [tune.Job(m, n, k, "f16", "f32", "a2", cfg) for cfg in configs]
    t0 = time.perf_counter()
    results = [r for r in tune.sweep(jobs, workers) if not r.error]
    sweep = time.perf_counter() - t0
    best = results[0]
    return (f"| {m}x{n}x{k} | {blocks} | {default['cycles']} | {_describe(default)} | "
            f"{best.cycles} ({best.config.label()}) | {_describe(best.report)} | "
            f"{default['cycles'] / best.cycles:.3f} | {len(jobs)} in {sweep:.0f} s | "
            f"{wall:.1f} s |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default=",".join(ROWS), help="M x N x K @ blocks, comma-separated")
    p.add_argument("--workers", type=int, default=None, help="processes of the tuner's pool")
    args = p.parse_args()
    print("| M x N x K | blocks | mmair-lower cycles | cube | L2 hit | bound | tuner best | "
          "cube | L2 hit | bound | default / best | configurations | default run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.rows.split(","):
        print(row(spec, args.workers), flush=True)


if __name__ == "__main__":
    main()
