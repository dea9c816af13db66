"""The tiling `mmair-lower` chooses against the best an exhaustive `mmair-tune` search finds
(a2, f16 -> f32), in the L2 cost model: the goal rows of issue 29 (docs/costs.md, "The goals").

    python benchmarks/tiling.py                    # the four goal rows (tens of minutes on 2 cores)
    python benchmarks/tiling.py --rows 2048x2048x2048@1 --workers 2
    python benchmarks/tiling.py --keep 8           # only the tuner's default pruning

Each row lowers the matmul with the default `mmair-lower{blocks=B}` (the cost model's choice,
passes/matmul_choice.py) and times it with `run_module(timing_only=True)` (`mmair-run
--timing-only`); then `mmair-tune`'s sweep (tools/tune.py) times every legal configuration of
the tuner's own default grid (`mmair-tune M N K` without grid options; `--swizzle` 0 only: while
A and B fit L2 the order does not change the estimate) on a process pool (`--keep 0`: all of
them), and the row reports the best, the ratio default / best, cube utilization, L2 hit rate and
the roofline that bounds each (docs/costs.md, "What --timing tells"), and whether the row's goal
holds (default within 10 % of the best; 2048^3 on 24 blocks also cube utilization >= 70 %).
It also tells what the tuner's pruning would have kept: the best of the first `PRUNE` (8, the
`--keep` default) by estimate against the true best, and the range of estimate / timeline over
every configuration timed. `--json FILE` writes every configuration with its estimate and cycles.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import asdict

from mmair.tools import tune

ROWS = ("2048x2048x2048@1", "2048x2048x2048@24", "4096x4096x512@24", "1x4096x4096@24")
"""M x N x K @ blocks: the goals of the tiling work."""
WITHIN = 1.10
"""Goal: the default's cycles at most this times the tuner's best."""
CUBE_GOAL = {"2048x2048x2048@24": 0.70}
"""Goal: the default's cube utilization at least this (rows named)."""
PRUNE = 8
"""`mmair-tune --keep`'s default: the pruned sweep the exhaustive one is compared with."""


def default_run(m: int, n: int, k: int, blocks: int) -> tuple[dict, float]:
    """The default `mmair-lower{blocks=B}` timed: (cycles and `--timing` report, wall s)."""
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


def tuner_grid(m: int, n: int, k: int, blocks: int) -> list[tuple[tune.Config, float]]:
    """Every legal configuration of `mmair-tune M N K --blocks B`'s default grid (swizzle 0),
    with its estimate, fastest estimate first."""
    args = tune.build_parser().parse_args([str(m), str(n), str(k)])
    grid = tune.Grid(args.tiles_k_l1, args.tiles_m_l1, args.tiles_n_l1, args.l1_slots,
                     args.l0c_slots, (0,))
    return tune.ranked_candidates(m, n, k, "f16", "f32", "a2", args.tiles_m, args.tiles_n,
                                  args.tiles_k, args.buffers, blocks, grid)


def _describe(report: dict) -> str:
    bound = report["bound"]
    hit = report["l2_hit_rate"]
    return (f"{100 * report['cube_utilization']:.1f} % | "
            f"{'-' if hit is None else f'{100 * hit:.1f} %'} | "
            f"{bound['roofline']} {100 * bound['fraction']:.0f} %")


def row(spec: str, workers: int | None, keep: int, dump: list[dict]) -> str:
    shape, _, blocks_text = spec.partition("@")
    m, n, k = (int(x) for x in shape.split("x"))
    blocks = int(blocks_text or 1)
    default, wall = default_run(m, n, k, blocks)
    ranked = tuner_grid(m, n, k, blocks)
    rank = {config: i for i, (config, _) in enumerate(ranked)}
    estimates = dict(ranked)
    configs = [config for config, _ in (ranked[:keep] if keep else ranked)]
    jobs = [tune.Job(m, n, k, "f16", "f32", "a2", cfg) for cfg in configs]
    t0 = time.perf_counter()
    results = [r for r in tune.sweep(jobs, workers) if not r.error]
    sweep = time.perf_counter() - t0
    best = results[0]
    ratio = default["cycles"] / best.cycles
    goals = [f"within 10 %: {'yes' if ratio <= WITHIN else 'NO'}"]
    if spec in CUBE_GOAL:
        met = default["cube_utilization"] >= CUBE_GOAL[spec]
        goals.append(f"cube >= {100 * CUBE_GOAL[spec]:.0f} %: {'yes' if met else 'NO'}")
    pruned = min((r for r in results if rank[r.config] < PRUNE), key=lambda r: r.cycles,
                 default=None)
    kept = "-" if pruned is None else f"{pruned.cycles / best.cycles:.3f}"
    errors = [estimates[r.config] / r.cycles for r in results]
    dump.append({"row": spec, "default": default, "sweep_seconds": sweep,
                 "configurations": [{**asdict(r.config), "label": r.config.label(),
                                     "estimate": estimates[r.config], "cycles": r.cycles,
                                     "rank": rank[r.config] + 1,
                                     "cube": r.report.get("cube_utilization"),
                                     "bound": r.report.get("bound")} for r in results]})
    return (f"| {m}x{n}x{k} | {blocks} | {default['cycles']} | {_describe(default)} | "
            f"{best.cycles} ({best.config.label()}, estimate rank {rank[best.config] + 1}) | "
            f"{_describe(best.report)} | {ratio:.3f} | {'; '.join(goals)} | {kept} | "
            f"{min(errors):.2f}-{max(errors):.2f} | "
            f"{len(jobs)} of {len(ranked)} in {sweep:.0f} s | {wall:.1f} s |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", default=",".join(ROWS), help="M x N x K @ blocks, comma-separated")
    p.add_argument("--workers", type=int, default=None, help="processes of the tuner's pool")
    p.add_argument("--keep", type=int, default=0,
                   help="time only the best N by estimate (0: every configuration, default)")
    p.add_argument("--json", metavar="FILE", help="write every configuration timed to FILE")
    args = p.parse_args()
    dump: list[dict] = []
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print("| M x N x K | blocks | mmair-lower cycles | cube | L2 hit | bound | tuner best | "
          "cube | L2 hit | bound | default / best | goals | best of the estimate's first "
          f"{PRUNE} / best | estimate / timeline | configurations timed | default run |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.rows.split(","):
        print(row(spec, args.workers, args.keep, dump), flush=True)
        if args.json:  # after every row: a long run keeps what it measured
            with open(args.json, "w") as out:
                json.dump(dump, out, indent=1)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
