"""`mmair-tune`: the fastest tiling of a `pto.matmul` by estimated cycles.

    mmair-tune M N K [--types f16,f32] [--target a2] [--buffers 1,2] [--tiles-m 64,128,256]
               [--tiles-n ...] [--tiles-k ...] [--tiles-k-l1 ...] [--tiles-m-l1 ...]
               [--tiles-n-l1 ...] [--l1-slots ...] [--l0c-slots ...] [--swizzle ...]
               [--keep 8] [--workers N | --cluster ADDRESS] [--top 5]
               [--no-verify] [--progress auto|on|off] [--json] [--version]

Every legal combination of tile-m / tile-n / tile-k, L1 tiles (K chunk, M and N), slots of L1
and L0C, tile order (`swizzle`, split kernels) and multi-buffer count (`pto-tile-matmul` checks
each against the target's buffers; illegal ones are skipped) is ranked by the closed-form
estimate of `passes/matmul_choice.py` (`estimate_cycles`: no lowering, microseconds each) and
the best `--keep` of them (0: all) are lowered with `mmair-lower{...}` and run in `--timing-only` mode
(`executor/engine/timeline.py`: the sync checker's events scheduled with `isa/ascend/costs.py`, no
numerics), on a local process pool (all cores by default) or on a Dask distributed cluster
(`--cluster tcp://host:8786`; install the `dask` extra). The best configurations are printed by
estimated cycles, with each pipe's utilisation; the best one is then run once with the numerics
and the race checker on and compared with numpy (`--no-verify` skips that). The winner's `pipeline` (printed with
`--json`, and as a line after the table) is the `-p` to give `mmair-opt` or `mmair-run` for the
same tiling (docs/costs.md). Ctrl-C stops the workers too (exit 130); `--json` prints a JSON object
on failure too (`"ok": false`, the diagnostics).

Python API: `candidates(...)`, `estimate(job)`, `sweep(...)`. Exit codes: 0 success, 1 no legal
configuration or the verification failed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from mmair.tools.stdio import quiet_broken_pipe

PROG = "mmair-tune"
_MEMREF_ELT = {"f16": "f16", "bf16": "bf16", "s8": "i8", "f32": "f32", "s32": "i32"}


@dataclass(frozen=True)
class Config:
    tile_m: int
    tile_n: int
    tile_k: int
    multi_buffer: int
    blocks: int = 1
    tile_k_l1: int = 0
    """The L1 K chunk (0: none, L1 tiles hold tile-k)."""
    tile_m_l1: int = 0
    """M of the L1 tiles (0: the L0 tile's)."""
    tile_n_l1: int = 0
    """N of the L1 tiles (0: the L0 tile's)."""
    l1_slots: int = 0
    """Slots of the A and B tiles of L1 (0: the lowering's choice, 1, 2)."""
    l0c_slots: int = 0
    """Slots of L0C (0: the lowering's choice, 1, 2)."""
    swizzle: int = 0
    """Tile order of a split kernel (0: the lowering's choice, 1 row-major, s: strips of s)."""

    def extras(self) -> list[tuple[str, int]]:
        """The options beyond the L0 tiles, in mmair-lower's spelling, where not the default."""
        return [(name, value) for name, value in (
            ("tile-k-l1", self.tile_k_l1), ("tile-m-l1", self.tile_m_l1),
            ("tile-n-l1", self.tile_n_l1), ("l1-slots", self.l1_slots),
            ("l0c-slots", self.l0c_slots), ("swizzle", self.swizzle)) if value]

    def pipeline(self) -> str:
        """The configuration as one `mmair-lower` pipeline (`-p` of mmair-opt / mmair-run)."""
        split = f" blocks={self.blocks}" if self.blocks > 1 else ""
        extras = "".join(f" {name}={value}" for name, value in self.extras())
        return (f"mmair-lower{{tile-m={self.tile_m} tile-n={self.tile_n} "
                f"tile-k={self.tile_k}{extras} multi-buffer={self.multi_buffer}{split}}}")

    def label(self) -> str:
        chunk = f"/{self.tile_k_l1}" if self.tile_k_l1 else ""
        more = "".join(f" {name}={value}" for name, value in self.extras()
                       if name != "tile-k-l1")
        return f"{self.tile_m}x{self.tile_n}x{self.tile_k}{chunk} mb={self.multi_buffer}{more}"


@dataclass(frozen=True)
class Job:
    m: int
    n: int
    k: int
    ab: str
    c: str
    target: str
    config: Config
    costs: Any = None
    """The `--costs` preset name or parsed document (None: the target's cost table)."""


@dataclass
class Estimate:
    config: Config
    cycles: int = 0
    seconds: float = 0.0
    utilisation: dict[str, float] = field(default_factory=dict)
    busiest: str = ""
    error: str = ""
    wall: float = 0.0
    """Seconds the estimate took (lowering + timing-only run)."""
    report: dict[str, Any] = field(default_factory=dict)
    """`timeline.Summary.report()`: cube utilization, bytes per level, L2 hit rate, bound."""


def matmul_source(m: int, n: int, k: int, ab: str = "f16", c: str = "f32",
                  target: str = "a2") -> str:
    ta, tb, tc = (f"memref<{m}x{k}x{_MEMREF_ELT[ab]}>", f"memref<{k}x{n}x{_MEMREF_ELT[ab]}>",
                  f"memref<{m}x{n}x{_MEMREF_ELT[c]}>")
    return (
        f'builtin.module attributes {{pto.target = "{target}"}} {{\n'
        f"  func.func @matmul(%a: {ta}, %b: {tb}, %c: {tc}) {{\n"
        f"    pto.matmul %a, %b, %c : {ta}, {tb}, {tc}\n"
        "    func.return\n  }\n}\n"
    )


def lower(job: Job):
    """The module of `job` lowered by its configuration's pipeline."""
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    text = matmul_source(job.m, job.n, job.k, job.ab, job.c, job.target)
    tool = MmairOptMain(args=["-p", job.config.pipeline()])
    module = tool.parse_and_verify(text, SourceFile("<matmul>", text), 0)
    tool.pipeline.apply(tool.ctx, module)
    return module


def estimate(job: Job) -> Estimate:
    """Lower `job` and run it in timing-only mode (a top-level function: pool and Dask workers
    call it)."""
    from mmair.executor.runner import run_module

    t0 = time.perf_counter()
    try:
        module = lower(job)
        summary = run_module(module, timing_only=True, blocks=job.config.blocks,
                             costs=job.costs).timeline.summary()
    except Exception as err:  # reported per configuration, the sweep goes on
        return Estimate(job.config, error=f"{type(err).__name__}: {err}".splitlines()[0],
                        wall=time.perf_counter() - t0)
    busiest = summary.bottleneck
    return Estimate(job.config, summary.total, summary.seconds,
                    {p.pipe: p.utilisation for p in summary.pipes},
                    busiest.pipe if busiest is not None else "", "",
                    time.perf_counter() - t0, summary.report())


@dataclass(frozen=True)
class Grid:
    """The values `candidates` tries for each option beyond the L0 tiles (0: the default)."""

    chunks: Sequence[int] = (0,)
    tiles_m_l1: Sequence[int] = (0,)
    tiles_n_l1: Sequence[int] = (0,)
    l1_slots: Sequence[int] = (0,)
    l0c_slots: Sequence[int] = (0,)
    swizzles: Sequence[int] = (0,)


def ranked_candidates(m: int, n: int, k: int, ab: str, c: str, target: str,
                      tiles_m: Iterable[int], tiles_n: Iterable[int], tiles_k: Iterable[int],
                      buffers: Iterable[int], blocks: int = 1, grid: Grid = Grid(),
                      costs: Any = None) -> list[tuple[Config, float]]:
    """The configurations `pto-tile-matmul` accepts for this matmul (its own legality check,
    `plan_matmul`), each with the closed-form estimate of its plan (`estimate_cycles` with the
    `costs` table), fastest first. Configurations that give the same plan are tried once."""
    import itertools

    from mmair.dialects import pto
    from mmair.isa.ascend.calibration import calibrate
    from mmair.isa.ascend.targets import get_target
    from mmair.passes.matmul_choice import choose_plan, estimate_cycles
    from mmair.passes.pass_errors import PassOpError
    from mmair.tools.diagnostics import SourceFile
    from mmair.tools.opt import MmairOptMain

    text = matmul_source(m, n, k, ab, c, target)
    tool = MmairOptMain(args=[])
    module = tool.parse_and_verify(text, SourceFile("<matmul>", text), 0)
    op = next(o for o in module.walk() if isinstance(o, pto.MatmulOp))
    tgt = get_target(target)
    table = calibrate(target, costs)
    out: list[tuple[Config, float]] = []
    seen = set()
    for mb, tm, tn, tk, k1, m1, n1, l1s, l0cs, sw in itertools.product(
            buffers, tiles_m, tiles_n, tiles_k, grid.chunks, grid.tiles_m_l1, grid.tiles_n_l1,
            grid.l1_slots, grid.l0c_slots, grid.swizzles if blocks > 1 else (0,)):
        if k1 and tk and (k1 <= tk or k1 % tk):
            continue  # a chunk is a multiple of tile-k above it
        try:  # the plan mmair-lower makes of these options (its swizzle choice included)
            plan = choose_plan(op, tgt, tm, tn, tk, mb, blocks, k1, table, l1_slots=l1s,
                               l0c_slots=l0cs, tile_m_l1=m1, tile_n_l1=n1, swizzle=sw)
        except PassOpError:
            continue
        chunk = plan.k1 if plan.chunked else 0
        config = Config(plan.tm, plan.tn, plan.tk, mb, blocks, chunk,  # the clamped sizes
                        plan.m1 if plan.m1 > plan.tm else 0, plan.n1 if plan.n1 > plan.tn else 0,
                        l1s, l0cs, sw if blocks > 1 else 0)
        if config not in seen:
            seen.add(config)
            out.append((config, estimate_cycles(plan, table)))
    out.sort(key=lambda pair: pair[1])
    return out


def candidates(m: int, n: int, k: int, ab: str, c: str, target: str,
               tiles_m: Iterable[int], tiles_n: Iterable[int], tiles_k: Iterable[int],
               buffers: Iterable[int], blocks: int = 1,
               chunks: Iterable[int] = (0,)) -> list[Config]:
    """The legal configurations over the L0 tiles, buffers and K chunks given (the options
    beyond them at their defaults), fastest estimate first."""
    return [config for config, _ in ranked_candidates(
        m, n, k, ab, c, target, tiles_m, tiles_n, tiles_k, buffers, blocks,
        Grid(chunks=tuple(chunks)))]


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal, or forced)."""

    def __init__(self, total: int, enabled: bool):
        self.total = total
        self.done = 0
        self.enabled = enabled and total > 1
        self.t0 = time.perf_counter()

    def step(self) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = width * self.done // self.total
        elapsed = time.perf_counter() - self.t0
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                         f"configurations, {elapsed:.1f} s")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def sweep(jobs: Sequence[Job], workers: int | None = None, cluster: str | None = None,
          progress: Callable[[], None] | None = None) -> list[Estimate]:
    """Estimate every job on a process pool of `workers` processes (default: all cores; 1 runs
    in this process) or on the Dask cluster at `cluster`; results sorted by cycles (errors last)."""
    results: list[Estimate] = []
    tick = progress or (lambda: None)
    if cluster is not None:
        try:
            from dask.distributed import Client, as_completed
        except ImportError:
            raise RuntimeError("--cluster needs dask.distributed: pip install 'mmair[dask]'") \
                from None
        with Client(cluster) as client:
            futures = client.map(estimate, list(jobs), pure=False)
            for fut in as_completed(futures):
                results.append(fut.result())
                tick()
    elif (workers or os.cpu_count() or 1) == 1 or len(jobs) == 1:
        for job in jobs:
            results.append(estimate(job))
            tick()
    else:
        import multiprocessing

        # The workers ignore SIGINT (Ctrl-C reaches the whole process group): this process alone
        # takes it, stops them (`terminate`, then `join`: none outlives the tool) and ends with
        # one line; a worker's own KeyboardInterrupt would print its traceback.
        pool = multiprocessing.get_context("spawn").Pool(workers or os.cpu_count(),
                                                         initializer=_ignore_sigint)
        try:
            for result in pool.imap_unordered(estimate, jobs):
                results.append(result)
                tick()
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    return sorted(results, key=lambda e: (bool(e.error), e.cycles, e.config.label()))


def _ignore_sigint() -> None:
    """A pool worker's initializer: Ctrl-C is for the parent (`sweep`)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def verify(job: Job) -> str:
    """Run `job` with the numerics and the race checker; compare C with numpy. Returns a line
    to print; raises RuntimeError when it fails."""
    import numpy as np

    from mmair.executor.runner import run_module

    module = lower(job)
    result = run_module(module, sync_check=True)
    a, b, c = (result.outputs[x] for x in "abc")
    want = a.astype(np.float64) @ b.astype(np.float64)
    err = float(np.max(np.abs(c.astype(np.float64) - want)) / max(1.0, float(np.max(np.abs(want)))))
    if not err < 1e-2:
        raise RuntimeError(f"{job.config.label()}: C differs from numpy (max rel error {err:.3g})")
    return (f"verified {job.config.label()}: runs clean under the race checker, C matches numpy "
            f"(max rel error {err:.2g})")


def _ints(text: str) -> list[int]:
    try:
        values = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got '{text}'") \
            from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got '{text}'")
    return values


def _slots(text: str) -> list[int]:
    values = _ints(text)
    if any(v > 2 for v in values):
        raise argparse.ArgumentTypeError(f"expected slot counts from 0, 1, 2, got '{text}'")
    return values


def _ints_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def build_parser() -> argparse.ArgumentParser:
    from mmair.tools.version import VersionAction

    p = argparse.ArgumentParser(
        prog=PROG, description="Find the fastest tiling of an M x N x K pto.matmul by estimated "
        "cycles (timing-only runs, docs/costs.md), verify the winner against numpy and print it "
        "as the pass pipeline to give mmair-opt or mmair-run with -p.")
    p.add_argument("m", type=_positive, help="rows of A and C")
    p.add_argument("n", type=_positive, help="columns of B and C")
    p.add_argument("k", type=_positive, help="columns of A, rows of B (the reduction)")
    p.add_argument("--types", default="f16,f32", metavar="AB,C",
                   help="element types of A/B and of C (default f16,f32)")
    p.add_argument("--target", default="a2", help="Ascend target (default a2)")
    p.add_argument("--buffers", type=_ints, default=[1, 2], metavar="1,2",
                   help="multi-buffer counts to try (default 1,2)")
    p.add_argument("--tiles-m", type=_ints, default=[64, 128, 256], metavar="LIST",
                   help="tile-m values to try, comma-separated (default 64,128,256)")
    p.add_argument("--tiles-n", type=_ints, default=[64, 128, 256], metavar="LIST",
                   help="tile-n values to try (default 64,128,256)")
    p.add_argument("--tiles-k", type=_ints, default=[64, 128, 256, 512], metavar="LIST",
                   help="tile-k values to try (default 64,128,256,512)")
    p.add_argument("--tiles-k-l1", type=_ints, default=[0, 256, 512], metavar="LIST",
                   help="L1 K chunks to try (0: none; a multiple of tile-k above it; default "
                        "0,256,512)")
    p.add_argument("--tiles-m-l1", type=_ints, default=[0, 256], metavar="LIST",
                   help="M of the L1 tiles to try (0: the L0 tile's; a multiple of tile-m above "
                        "it; default 0,256)")
    p.add_argument("--tiles-n-l1", type=_ints, default=[0, 256], metavar="LIST",
                   help="N of the L1 tiles to try (0: the L0 tile's; default 0,256)")
    p.add_argument("--l1-slots", type=_slots, default=[0], metavar="LIST",
                   help="slots of the A and B tiles of L1 to try (0: the lowering's choice, 1, "
                        "2; default 0)")
    p.add_argument("--l0c-slots", type=_slots, default=[0], metavar="LIST",
                   help="slots of L0C to try (0: the lowering's choice, 1, 2; default 0)")
    p.add_argument("--swizzle", type=_ints, default=[0, 1, 2, 4, 8], metavar="LIST",
                   help="tile orders of a split kernel to try (--blocks > 1; 0: the model's "
                        "choice, 1: row-major, s: strips of s tile rows; default 0,1,2,4,8)")
    p.add_argument("--keep", type=_ints_one, default=8, metavar="N",
                   help="lower and time only the N configurations with the best closed-form "
                        "estimate (0: every one; default 8)")
    p.add_argument("--blocks", type=_positive, default=1, metavar="N",
                   help="cores of the launch: each configuration splits the output tiles over "
                        "N blocks (mmair-lower's blocks option) and is timed on N cores")
    p.add_argument("--costs", metavar="FILE.json|PRESET",
                   help="cost figures of the estimates (as mmair-run --costs; docs/costs.md)")
    p.add_argument("--workers", type=_positive, default=None, metavar="N",
                   help="processes of the local pool (default: all cores)")
    p.add_argument("--cluster", metavar="ADDRESS",
                   help="run on the Dask distributed scheduler at ADDRESS instead")
    p.add_argument("--top", type=_positive, default=5, help="configurations to print (default 5)")
    p.add_argument("--no-verify", action="store_true",
                   help="do not run the best configuration with numerics and the race checker")
    p.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                   help="progress bar on stderr (auto: when stderr is a terminal)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--version", action=VersionAction)
    return p


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    import contextlib
    import io

    from mmair.tools.jsonout import failure, wants_json

    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # --help, --version, or argparse's error (one line, exit 2)
        lines = captured.getvalue().strip().splitlines()
        if lines:
            print(lines[-1], file=sys.stderr)
            if wants_json(argv):
                print(failure(lines[-1], int(exit_.code or 2)))
        return int(exit_.code or 0)
    code = _tune(args)
    if code != 0 and args.json and _FAILURE:
        print(failure("\n".join(_FAILURE), code))
    _FAILURE.clear()
    return code


_FAILURE: list[str] = []
"""The error lines of this run (`_error`), for the `--json` failure object."""


def _error(text: str) -> None:
    print(text, file=sys.stderr)
    _FAILURE.append(text)


def _percent(fraction: float | None) -> str:
    return f"{'-':>6}" if fraction is None else f"{100 * fraction:5.1f}%"


def _bound(report: dict[str, Any]) -> str:
    """`mte2 93%`: the roofline that bounds the kernel and its busy share of the cycles."""
    bound = report.get("bound")
    return "-" if not bound else f"{bound['roofline']} {100 * bound['fraction']:.0f}%"


def _tune(args: argparse.Namespace) -> int:
    from mmair.isa.ascend.targets import TARGET_NAMES

    ab, _, c = args.types.partition(",")
    if ab not in _MEMREF_ELT or c not in _MEMREF_ELT:
        _error(f"{PROG}: error: --types expects AB,C from {', '.join(_MEMREF_ELT)}, got "
               f"'{args.types}'")
        return 2
    if args.target not in TARGET_NAMES:
        _error(f"{PROG}: error: unknown --target '{args.target}' (expected one of "
               f"{', '.join(TARGET_NAMES)})")
        return 2
    from importlib.util import find_spec

    from xdsl.utils.exceptions import DiagnosticException

    if find_spec("mmair.passes.pto_insert_sync") is None:
        _error("error: mmair-tune needs the pto-insert-sync pass (the lowered kernels must carry "
               "their set_flag / wait_flag to be timed), which this installation lacks")
        return 1
    costs_spec = None
    if args.costs is not None:
        from mmair.isa.ascend.calibration import CalibrationError, calibrate, load_spec

        try:
            costs_spec = load_spec(args.costs)
            calibrate(args.target, costs_spec)
        except CalibrationError as err:
            _error(f"error: --costs: {err}")
            return 1
    grid = Grid(args.tiles_k_l1, args.tiles_m_l1, args.tiles_n_l1, args.l1_slots,
                args.l0c_slots, args.swizzle)
    try:
        ranked = ranked_candidates(args.m, args.n, args.k, ab, c, args.target, args.tiles_m,
                                   args.tiles_n, args.tiles_k, args.buffers, args.blocks, grid,
                                   costs_spec)
    except DiagnosticException as err:
        _error(f"error: {err}".splitlines()[0])
        return 1
    legal = len(ranked)
    configs = [config for config, _ in (ranked[:args.keep] if args.keep else ranked)]
    if not configs:
        _error(f"error: no legal tile configuration for {args.m}x{args.n}x{args.k} {ab} on "
               f"{args.target} among the tiles given (--tiles-m, --tiles-n, --tiles-k, "
               "--buffers, --tiles-k-l1, --tiles-m-l1, --tiles-n-l1, --l1-slots, --l0c-slots)")
        return 1
    jobs = [Job(args.m, args.n, args.k, ab, c, args.target, cfg, costs_spec) for cfg in configs]
    show = args.progress == "on" or (args.progress == "auto" and sys.stderr.isatty())
    bar = Progress(len(jobs), show)
    t0 = time.perf_counter()
    try:
        results = sweep(jobs, args.workers, args.cluster, bar.step)
    except (RuntimeError, OSError) as err:
        _error(f"error: {err}")
        return 1
    wall = time.perf_counter() - t0
    good = [r for r in results if not r.error]
    verified = ""
    if good and not args.no_verify:
        best = next(j for j in jobs if j.config == good[0].config)
        try:
            verified = verify(best)
        except Exception as err:
            _error(f"error: verification of the best configuration failed: {err}")
            return 1
    if args.json:
        print(json.dumps({"ok": bool(good), "shape": [args.m, args.n, args.k], "types": [ab, c],
                          "target": args.target, "seconds": wall, "verified": verified,
                          "legal": legal, "timed": len(jobs),
                          "pipeline": good[0].config.pipeline() if good else None,
                          "results": [asdict(r) for r in results]}, indent=2))
        return 0 if good else 1
    workers = args.workers or os.cpu_count() or 1
    where = f"Dask cluster {args.cluster}" if args.cluster else \
        f"{workers} process{'es' if workers != 1 else ''}"
    pruned = f" (the best {len(jobs)} of {legal} legal by the closed-form estimate)" \
        if len(jobs) < legal else ""
    print(f"{len(jobs)} configurations of {args.m}x{args.n}x{args.k} {ab}->{c} on {args.target} "
          f"timed in {wall:.1f} s on {where}{pruned}")
    print(f"{'rank':>4}  {'tile m x n x k[/l1]':>20}  {'buffers':>7}  {'cycles':>12}  {'time':>10}  "
          f"{'cube':>6}  {'L2 hit':>6}  bound by    utilisation per pipe")
    for i, r in enumerate(good[:args.top], 1):
        util = " ".join(f"{p}={100 * u:.0f}%" for p, u in r.utilisation.items())
        cfg = r.config
        chunk = f"/{cfg.tile_k_l1}" if cfg.tile_k_l1 else ""
        print(f"{i:>4}  {f'{cfg.tile_m}x{cfg.tile_n}x{cfg.tile_k}{chunk}':>20}  {cfg.multi_buffer:>7}  "
              f"{r.cycles:>12}  {r.seconds * 1e6:>8.1f}us  {_percent(r.report.get('cube_utilization'))}"
              f"  {_percent(r.report.get('l2_hit_rate'))}  {_bound(r.report):<10}  {util}"
              + "".join(f"  {name}={value}" for name, value in cfg.extras()
                        if name != "tile-k-l1"))
    failed = [r for r in results if r.error]
    for r in failed:
        print(f"  skipped {r.config.label()}: {r.error}")
    if verified:
        print(verified)
    if good:
        print(f"pipeline of rank 1 (mmair-opt / mmair-run -p): '{good[0].config.pipeline()}'")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
