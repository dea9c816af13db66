"""Robustness fuzzer of `mmair-opt` and `mmair-run` over mutated IR.

    python tests/fuzz/fuzz_ir.py --mutants 10000 --seed 1            # the full run (2 workers)
    python tests/fuzz/fuzz_ir.py --replay 1234 --seed 1              # re-run one mutant, verbosely

The corpus is every `// -----` chunk (comments removed) of the files named in
`tests/fuzz/corpus.txt`. Mutant i of seed s is a pure function of (s, i) (`mutators.mutate`).
Each mutant is written to a temporary file and given, IN-PROCESS, to `mmair.tools.opt.main` and to
`mmair.tools.run.main`, both with the pass pipeline of its corpus file's RUN line (70% of the time;
`mmair-lower` for chunks with `pto.matmul` or tcgen05 make-ops; a quarter of the chunks with
tile-level pto moves get `pto-expand-params` after it); mmair-run also gets `--max-gm-bytes` (and `--max-ops` only if given: the default is the tool's),
random values for the scalar entry arguments, sometimes a `--target`, an `--output` file for
the last memref argument, and a mode (`RUN_MODES`: --check-numpy, --timing, --timing-only,
--sync-check=off, --numerics=exact, --jobs 2, --blocks 2, --inputs=int; `--run-mode`). Mutants of kind `inputs_only` (12%) keep the IR and vary only those
scalar arguments. Each tool run is classified:

* `ok`        exit 0;
* `diag`      exit 1 with an `error:` line on stderr;
* `internal`  exit 1, but the diagnostic only relays a Python exception (`op failed: KeyError: ...`),
              i.e. a crash turned into a message by a catch-all: counted as a failure;
* `crash`     an exception escaped `main` (traceback recorded), any other exit code, exit 1
              without `error:`, a traceback printed, or an `--output` file left after a failure;
* `wrong`     exit 1 because a `--check-numpy` comparison FAILED (printed or in --json): the
              executor and its numpy reference disagree on a kernel both accepted (a silently
              wrong result); a FAILED `--check` against a user's file is a `diag`;
* `hang`      the run exceeded the time bound: `--timeout` seconds of the process's CPU time
              (SIGPROF in the worker's main thread, so that other load on the machine does not
              make a slow run a hang), or 3x that in wall-clock time (SIGALRM: a run blocked
              without spending CPU); a worker silent for 3x the bound is killed and its mutant
              counted as a hang;
* `oom`       `MemoryError` escaped (each worker runs under an RLIMIT_AS of `--memory-limit`),
              or a worker was killed by SIGKILL (the kernel's OOM killer).

The run prints the counts per tool and overall, saves each failing mutant (and its traceback) under
`--save-dir`, and exits 1 if any mutant failed. `run_in_process` is the entry point of the quick
pytest run (`tests/unit/project/test_fuzz_quick.py`).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.util
import io
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

FUZZ_DIR = Path(__file__).resolve().parent
REPO_ROOT = FUZZ_DIR.parent.parent


def _load_mutators():
    """`tests/fuzz/mutators.py` (a sibling file, not an installed package)."""
    name = "mmair_fuzz_mutators"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FUZZ_DIR / "mutators.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


mutators = _load_mutators()

OUTCOMES: tuple[str, ...] = ("ok", "diag", "internal", "crash", "wrong", "hang", "oom")
FAILURES: frozenset[str] = frozenset({"internal", "crash", "wrong", "hang", "oom"})
# A diagnostic that merely relays a Python exception raised inside the tools.
_INTERNAL_RE = re.compile(
    r"op failed: \w+:|\b(?:KeyError|IndexError|TypeError|AttributeError|AssertionError|ZeroDivisionError|"
    r"UnboundLocalError|NameError|RecursionError|StopIteration|NotImplementedError|MemoryError|"
    r"OverflowError|UnicodeError|SystemError)\b"
)
SCALAR_VALUES: tuple[int, ...] = (0, 1, 16, 16, 32, 32, 48, 64, 64, 128, 128, 256, 1024, -1, -16,
                                  2**31, 2**63, 10**20)
TARGETS: tuple[str, ...] = ("a2", "a5", "310p", "910")
# mmair-run's modes (`--run-mode`): by default each mutant draws one, so the reference, the timing
# model, the sync checker switched off and the threaded and multi-core executors all see mutants.
RUN_MODES: dict[str, tuple[str, ...]] = {
    "plain": (),
    "check-numpy": ("--check-numpy",),
    "timing": ("--timing",),
    "timing-only": ("--timing-only",),
    "sync-off": ("--sync-check=off",),
    "check-numpy-sync-off": ("--check-numpy", "--sync-check=off"),
    "exact": ("--numerics=exact", "--check-numpy"),
    "jobs2": ("--jobs", "2"),
    "blocks2": ("--blocks", "2"),
    "int-inputs": ("--inputs=int", "--check-numpy", "--stats"),
}
EXPAND_SHARE = 0.25  # mutants with tile-level pto moves whose pipeline ends in pto-expand-params
MIXED_MODES: tuple[str, ...] = ("plain", "plain", "plain", *[m for m in RUN_MODES if m != "plain"])
INPUTS_ONLY = 0.12  # share of mutants that keep the IR and vary only the scalar arguments


# ---- corpus ----------------------------------------------------------------------------------


@dataclass
class Entry:
    """One corpus chunk."""

    name: str
    text: str
    passes: str = ""
    group: int = 0
    """Index of the (corpus line, file) it came from: a mutant picks a group, then a chunk, so a
    file of 60 invalid-IR chunks weighs as much as a one-kernel example."""


_COMMENT_RE = re.compile(r"//[^\n]*")
_PASSES_RE = re.compile(r"(?:-p|--passes)[ =]([\w,{}=.-]+)")


def load_corpus(list_file: Path = FUZZ_DIR / "corpus.txt") -> list[Entry]:
    entries: list[Entry] = []
    group = 0
    patterns = [line.strip() for line in list_file.read_text().splitlines()
                if line.strip() and not line.lstrip().startswith("#")]
    for pattern in patterns:
        for path in sorted(glob.glob(str(REPO_ROOT / pattern), recursive=True)):
            text = Path(path).read_text(encoding="utf-8")
            run_lines = [line for line in text.splitlines() if "RUN:" in line and "mmair-opt" in line]
            passes = ""
            for line in run_lines:
                if (m := _PASSES_RE.search(line)) is not None:
                    passes = m.group(1)
                    break
            rel = os.path.relpath(path, REPO_ROOT)
            for k, chunk in enumerate(text.split("// -----")):
                code = _COMMENT_RE.sub("", chunk)
                code = "\n".join(line.rstrip() for line in code.splitlines() if line.strip())
                # pto.matmul runs only lowered: give its chunks the lowering pipeline.
                chunk_passes = passes or (
                    "mmair-lower" if "pto.matmul" in code or "tcgen05.make_" in code else "")
                if code:
                    entries.append(Entry(f"{rel}#{k}", code + "\n", chunk_passes, group))
            group += 1
    return entries


# ---- one tool run ------------------------------------------------------------------------------


class MutantTimeout(BaseException):
    """Raised by SIGPROF / SIGALRM in the main thread: the tool ran past its time bound."""

    def __init__(self, bound: str) -> None:
        super().__init__(bound)
        self.bound = bound


WALL_FACTOR = 3
"""The wall-clock bound of a run is this many times its CPU-time bound."""


def _on_cpu_limit(signum, frame) -> None:
    raise MutantTimeout("CPU")


def _on_alarm(signum, frame) -> None:
    raise MutantTimeout("wall-clock")


@dataclass
class ToolResult:
    outcome: str
    rc: int | None = None
    stderr: str = ""
    detail: str = ""


def run_tool(main: Callable[[Sequence[str]], int], argv: Sequence[str], timeout: float) -> ToolResult:
    """Call a tool's `main(argv)` in this process with captured output and a time bound."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    previous_prof = signal.signal(signal.SIGPROF, _on_cpu_limit)
    rc: object = None
    try:
        try:
            signal.setitimer(signal.ITIMER_PROF, timeout)
            signal.setitimer(signal.ITIMER_REAL, WALL_FACTOR * timeout)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(list(argv))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.setitimer(signal.ITIMER_PROF, 0)
    except MutantTimeout as limit:
        spent = timeout if limit.bound == "CPU" else WALL_FACTOR * timeout
        return ToolResult("hang", None, err.getvalue()[-2000:],
                          f"exceeded {spent} s of {limit.bound} time")
    except MemoryError:
        return ToolResult("oom", None, err.getvalue()[-2000:], traceback.format_exc())
    except BaseException:  # noqa: BLE001 - anything escaping the tool is the finding
        return ToolResult("crash", None, err.getvalue()[-2000:], traceback.format_exc())
    finally:
        signal.signal(signal.SIGALRM, previous)
        signal.signal(signal.SIGPROF, previous_prof)
    stderr = err.getvalue()
    stdout = out.getvalue()
    if "Traceback (most recent call last)" in stderr or "Traceback (most recent call last)" in stdout:
        return ToolResult("crash", rc if isinstance(rc, int) else None, stderr[-2000:], "traceback printed")
    if rc == 0:
        return ToolResult("ok", 0)
    if rc == 1 and "error:" in stderr:
        first = next((line for line in stderr.splitlines() if "error:" in line), "")
        if _INTERNAL_RE.search(first):
            return ToolResult("internal", 1, stderr[-2000:], first)
        return ToolResult("diag", 1, stderr[:300])
    failed_checks = _failed_checks(stdout)
    if rc == 1 and failed_checks:
        numpy = [label for label in failed_checks if "numpy" in label]
        if numpy:
            return ToolResult("wrong", 1, stderr[-2000:], "\n".join(numpy)[-2000:])
        # A user's --check against an expected file that differs: a result, not a tool failure.
        return ToolResult("diag", 1, "\n".join(failed_checks)[:300])
    return ToolResult("crash", rc if isinstance(rc, int) else None, stderr[-2000:],
                      f"exit code {rc!r} {'without an error: line' if rc == 1 else ''}".strip())


def _failed_checks(stdout: str) -> list[str]:
    """The FAILED comparisons mmair-run printed: `check LABEL: ... FAILED` lines, or the `checks`
    of its --json summary. A --check-numpy label names the numpy reference."""
    lines = [line for line in stdout.splitlines() if line.startswith("check ") and ": FAILED" in line]
    if lines or not stdout.lstrip().startswith("{"):
        return lines
    try:
        summary = json.loads(stdout)
    except ValueError:
        return []
    checks = summary.get("checks", []) if isinstance(summary, dict) else []
    return [f"check {c.get('label')}: FAILED" for c in checks
            if isinstance(c, dict) and c.get("ok") is False]


# ---- one mutant --------------------------------------------------------------------------------


@dataclass
class Config:
    seed: int = 1
    timeout: float = 10.0
    max_ops: int | None = None
    """`--max-ops` for mmair-run; None: the tool's default (what a user gets)."""
    max_gm_bytes: int = 64 << 20
    save_dir: str | None = None
    run_mode: str = "mixed"
    """A key of RUN_MODES for every mutant, or "mixed": one drawn per mutant."""


@dataclass
class MutantRecord:
    index: int
    source: str
    mutations: list[str]
    opt: ToolResult
    run: ToolResult
    half_written: bool = False

    @property
    def failed(self) -> bool:
        return self.opt.outcome in FAILURES or self.run.outcome in FAILURES

    def worst(self) -> str:
        order = {name: i for i, name in enumerate(OUTCOMES)}
        return max(self.opt.outcome, self.run.outcome, key=order.__getitem__)


_ENTRY_RE = re.compile(r"func\.func\s+(?:public\s+)?@[\w$.-]+\s*\(([^)]*)\)")
_SCALAR_ARG_RE = re.compile(r"%([\w$.-]+)\s*:\s*(?:index|i\d+)\b")
_MEMREF_ARG_RE = re.compile(r"%([\w$.-]+)\s*:\s*memref<")


@dataclass
class Fuzzer:
    corpus: list[Entry]
    config: Config
    vocab: object = None
    workdir: str = field(default_factory=tempfile.gettempdir)

    def __post_init__(self) -> None:
        if self.vocab is None:
            self.vocab = mutators.Vocabulary.build([e.text for e in self.corpus])
        groups: dict[int, list[Entry]] = {}
        for entry in self.corpus:
            groups.setdefault(entry.group, []).append(entry)
        self._groups = list(groups.values())

    def mutant(self, index: int) -> tuple[Entry, bytes, list[str], random.Random]:
        rng = random.Random(f"{self.config.seed}:{index}")
        entry = rng.choice(rng.choice(self._groups))
        if rng.random() < INPUTS_ONLY:
            # The IR unchanged: only the random scalar arguments (sizes, strides) vary.
            return entry, entry.text.encode(), ["inputs_only"], rng
        data, applied = mutators.mutate(rng, entry.text, self.vocab)
        return entry, data, applied, rng

    def run_mode(self, index: int) -> str:
        """The mmair-run mode of mutant `index` (its own random stream: the mutants and their
        other arguments stay those of runs without modes)."""
        if self.config.run_mode != "mixed":
            return self.config.run_mode
        return random.Random(f"{self.config.seed}:{index}:mode").choice(MIXED_MODES)

    def with_expansion(self, index: int, text: str, passes: list[str]) -> list[str]:
        """A share (`EXPAND_SHARE`, own random stream) of the mutants with tile-level pto moves
        get `pto-expand-params` after their pipeline, so the expansion to the raw forms sees
        mutated shapes, layouts and element types too."""
        if "pto.mte_" not in text and "pto.matmul" not in text:
            return passes
        if random.Random(f"{self.config.seed}:{index}:expand").random() >= EXPAND_SHARE:
            return passes
        pipeline = passes[1] if passes else ("mmair-lower" if "pto.matmul" in text else "")
        return ["-p", f"{pipeline},pto-expand-params" if pipeline else "pto-expand-params"]

    @staticmethod
    def _mode_for(mode: str, text: str) -> str:
        """--numerics=exact is an error without a tcgen05 op: compare with numpy instead."""
        return "check-numpy" if mode == "exact" and "tcgen05." not in text else mode

    def run_argv(self, path: str, text: str, rng: random.Random,
                 mode: str = "plain") -> tuple[list[str], str | None]:
        ops = ["--max-ops", str(self.config.max_ops)] if self.config.max_ops is not None else []
        argv = [path, *ops, "--max-gm-bytes",
                str(self.config.max_gm_bytes), "--seed", str(rng.randrange(4)),
                *RUN_MODES[self._mode_for(mode, text)]]
        output = None
        m = _ENTRY_RE.search(text)
        if m is not None:
            for name in _SCALAR_ARG_RE.findall(m.group(1)):
                argv += ["--input", f"{name}={rng.choice(SCALAR_VALUES)}"]
            memrefs = _MEMREF_ARG_RE.findall(m.group(1))
            if memrefs and mode != "timing-only":  # --timing-only computes no outputs
                output = os.path.join(self.workdir, "out.npy")
                argv += ["--output", f"{memrefs[-1]}={output}"]
        if rng.random() < 0.1:
            argv += ["--target", rng.choice(TARGETS)]
        return argv, output

    def run_one(self, index: int) -> MutantRecord:
        from mmair.tools import opt, run

        entry, data, applied, rng = self.mutant(index)
        path = os.path.join(self.workdir, f"mutant-{index}.mlir")
        with open(path, "wb") as f:
            f.write(data)
        text = data.decode("utf-8", "replace")
        try:
            passes = ["-p", entry.passes] if entry.passes and rng.random() < 0.7 else []
            passes = self.with_expansion(index, text, passes)
            opt_argv = [path, *passes]
            opt_result = run_tool(opt.main, opt_argv, self.config.timeout)
            run_argv, output = self.run_argv(path, text, rng, self.run_mode(index))
            run_argv += passes
            if output is not None and os.path.exists(output):
                os.unlink(output)
            run_result = run_tool(run.main, run_argv, self.config.timeout)
            half = output is not None and run_result.rc != 0 and run_result.outcome != "wrong" \
                and os.path.exists(output)
            if half:
                run_result = ToolResult("crash", run_result.rc, run_result.stderr,
                                        "an --output file exists after a failed run")
            record = MutantRecord(index, entry.name, applied, opt_result, run_result, half)
            if record.failed and self.config.save_dir:
                self.save(record, data, opt_argv, run_argv)
            return record
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def save(self, record: MutantRecord, data: bytes, opt_argv: list[str], run_argv: list[str]) -> None:
        assert self.config.save_dir is not None
        os.makedirs(self.config.save_dir, exist_ok=True)
        stem = os.path.join(self.config.save_dir, f"seed{self.config.seed}-{record.index}")
        with open(stem + ".mlir", "wb") as f:
            f.write(data)
        info = asdict(record)
        info["opt_argv"] = opt_argv[1:]
        info["run_argv"] = run_argv[1:]
        with open(stem + ".json", "w") as f:
            json.dump(info, f, indent=1)


# ---- drivers -----------------------------------------------------------------------------------


@dataclass
class Summary:
    tried: int = 0
    per_tool: dict[str, Counter] = field(default_factory=lambda: {"mmair-opt": Counter(), "mmair-run": Counter()})
    worst: Counter = field(default_factory=Counter)
    failures: list[dict] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, record: MutantRecord) -> None:
        self.tried += 1
        self.per_tool["mmair-opt"][record.opt.outcome] += 1
        self.per_tool["mmair-run"][record.run.outcome] += 1
        self.worst[record.worst()] += 1
        if record.failed:
            self.failures.append({
                "index": record.index, "source": record.source, "mutations": record.mutations,
                "opt": f"{record.opt.outcome}: {record.opt.detail.strip().splitlines()[-1:] }",
                "run": f"{record.run.outcome}: {record.run.detail.strip().splitlines()[-1:]}",
            })

    def add_lost(self, index: int, outcome: str, detail: str, config: Config | None = None) -> None:
        """A mutant whose worker died or was killed (both tools counted with that outcome); saved
        under `config.save_dir` for `--replay`."""
        if config is not None and config.save_dir:
            _entry, data, _applied, _rng = Fuzzer(load_corpus(), config).mutant(index)
            os.makedirs(config.save_dir, exist_ok=True)
            with open(os.path.join(config.save_dir, f"seed{config.seed}-{index}.mlir"), "wb") as f:
                f.write(data)
        self.tried += 1
        for counter in self.per_tool.values():
            counter[outcome] += 1
        self.worst[outcome] += 1
        self.failures.append({"index": index, "source": "?", "mutations": [], "opt": detail, "run": detail})

    @property
    def failed(self) -> int:
        return sum(self.worst[o] for o in FAILURES)

    def table(self) -> str:
        lines = [f"{self.tried} mutants in {self.seconds:.0f} s",
                 f"{'':10}" + "".join(f"{o:>10}" for o in OUTCOMES)]
        for name, counter in [*self.per_tool.items(), ("worst", self.worst)]:
            lines.append(f"{name:10}" + "".join(f"{counter[o]:>10}" for o in OUTCOMES))
        return "\n".join(lines)


def run_in_process(indices: Iterable[int], config: Config, corpus: list[Entry] | None = None) -> Summary:
    """Run the given mutants sequentially in this process (the quick pytest run)."""
    summary = Summary()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mmair-fuzz-") as workdir:
        fuzzer = Fuzzer(corpus if corpus is not None else load_corpus(), config, workdir=workdir)
        for index in indices:
            summary.add(fuzzer.run_one(index))
    summary.seconds = time.perf_counter() - start
    return summary


def _worker(conn, indices: list[int], config: Config, memory_limit: int) -> None:
    """Worker process: run `indices`, sending ("start", i) before and ("done", record) after each."""
    import resource

    if memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    with tempfile.TemporaryDirectory(prefix="mmair-fuzz-") as workdir:
        fuzzer = Fuzzer(load_corpus(), config, workdir=workdir)
        for index in indices:
            conn.send(("start", index))
            record = fuzzer.run_one(index)
            conn.send(("done", record))
    conn.send(("end", None))


def run_parallel(count: int, config: Config, workers: int, memory_limit: int,
                 progress: bool = True) -> Summary:
    """Run mutants 0..count-1 in `workers` processes; a worker that dies or stalls is replaced."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    summary = Summary()
    start = time.perf_counter()
    pending = [list(range(w, count, workers)) for w in range(workers)]
    hard_limit = (WALL_FACTOR + 1) * config.timeout + 10  # after the worker's own bounds
    live: dict = {}  # conn -> [process, remaining indices, current index, started]

    def launch(indices: list[int]) -> None:
        if not indices:
            return
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_worker, args=(child, indices, config, memory_limit), daemon=True)
        proc.start()
        child.close()
        live[parent] = [proc, list(indices), None, time.monotonic()]

    def terminate(signum, frame) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        for indices in pending:
            launch(indices)
        _drive(live, launch, summary, config, count, hard_limit, start, progress)
    finally:  # killed or interrupted: take the workers down too
        signal.signal(signal.SIGTERM, previous)
        for state in live.values():
            state[0].kill()
            state[0].join()
    summary.seconds = time.perf_counter() - start
    return summary


def _drive(live: dict, launch, summary: Summary, config: Config, count: int, hard_limit: float,
           start: float, progress: bool) -> None:
    """The parent's loop: collect records, replace dead or stalled workers."""
    from multiprocessing.connection import wait

    last_report = time.monotonic()
    while live:
        ready = wait(list(live), timeout=1.0)
        for conn in ready:
            state = live[conn]
            try:
                kind, payload = conn.recv()
            except (EOFError, OSError):
                proc = state[0]
                proc.join()
                current = state[2]
                code = proc.exitcode
                # SIGKILL: the kernel's OOM killer (RLIMIT_AS failures are MemoryErrors).
                outcome = "oom" if code == -signal.SIGKILL else "crash"
                if current is not None:
                    summary.add_lost(current, outcome, f"worker died with exit code {code}", config)
                del live[conn]
                launch(state[1][1:] if current is not None else state[1])
                continue
            if kind == "start":
                state[2], state[3] = payload, time.monotonic()
            elif kind == "done":
                summary.add(payload)
                state[1].pop(0)  # the remaining indices, in the worker's order
                state[2] = None
            else:
                state[0].join()
                del live[conn]
        now = time.monotonic()
        for conn, state in list(live.items()):
            if state[2] is not None and now - state[3] > hard_limit:
                proc, current = state[0], state[2]
                proc.kill()
                proc.join()
                summary.add_lost(current, "hang", f"worker killed after {hard_limit:.0f} s", config)
                del live[conn]
                launch(state[1][1:])
        if progress and now - last_report > 30:
            last_report = now
            print(f"  ... {summary.tried}/{count} mutants, {summary.failed} failing, "
                  f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds per tool run")
    p.add_argument("--max-ops", type=int, default=None,
                   help="passed to mmair-run (default: mmair-run's own default)")
    p.add_argument("--max-gm-bytes", type=int, default=64 << 20, help="passed to mmair-run")
    p.add_argument("--memory-limit", type=int, default=6 << 30,
                   help="RLIMIT_AS of each worker in bytes (0: none)")
    p.add_argument("--save-dir", default=os.path.join(tempfile.gettempdir(), "mmair-fuzz-failures"),
                   help="where failing mutants are saved")
    p.add_argument("--replay", type=int, action="append", default=[],
                   help="re-run this mutant in-process and print both tool results")
    p.add_argument("--json", help="write the summary as JSON to this file")
    p.add_argument("--run-mode", default="mixed", choices=["mixed", *RUN_MODES],
                   help="mmair-run's extra options for every mutant (mixed: one mode drawn per mutant)")
    args = p.parse_args(argv)
    config = Config(args.seed, args.timeout, args.max_ops, args.max_gm_bytes, args.save_dir,
                    args.run_mode)

    if args.replay:
        fuzzer = Fuzzer(load_corpus(), config)
        for index in args.replay:
            entry, data, applied, _ = fuzzer.mutant(index)
            record = fuzzer.run_one(index)
            print(f"== mutant {index} of {entry.name}: {', '.join(applied)} "
                  f"(mmair-run mode {fuzzer.run_mode(index)})")
            print(data.decode("utf-8", "replace"))
            for name, result in (("mmair-opt", record.opt), ("mmair-run", record.run)):
                print(f"-- {name}: {result.outcome} (exit {result.rc})")
                print(result.stderr.rstrip())
                if result.detail:
                    print(result.detail.rstrip())
        return 0

    summary = run_parallel(args.mutants, config, args.workers, args.memory_limit)
    print(summary.table())
    for failure in summary.failures[:50]:
        print(f"FAIL {failure}")
    if summary.failures:
        print(f"failing mutants saved under {args.save_dir}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tried": summary.tried, "seconds": round(summary.seconds),
                       "per_tool": {k: dict(v) for k, v in summary.per_tool.items()},
                       "worst": dict(summary.worst), "failures": summary.failures}, f, indent=1)
    return 1 if summary.failed else 0


if __name__ == "__main__":
    # One BLAS thread per worker: two workers already use both cores.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    sys.exit(main())
