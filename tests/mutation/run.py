"""Mutation harness for mmair: mutate verifier checks and executor numerics, run the tests that
should notice, print the score per area and the surviving mutants (docs/mutation.md).

    python tests/mutation/run.py                       # every area, 2 workers
    python tests/mutation/run.py --area executor-pto   # one area
    python tests/mutation/run.py --only executor/kernels.py:428 -v
    python tests/mutation/run.py --list                # the mutants, without running them

Each worker owns a copy of the repository's files under a temporary folder named `mmair`, put first
on the import path (PYTHONPATH), so the mutated module is what the tests and the lit subprocesses
import; the copy is restored after every mutant. A mutant runs in a child forked from a parent
that has already imported xdsl, numpy and pytest (not mmair), so each mutant pays only
for the mmair import and its tests. Byte-code caching is off in the copies (a same-size edit in
the same second would otherwise reuse a stale .pyc). Simple lit RUN lines (mmair-opt | filecheck)
run in the child too (inproc_lit.py); the others run under lit.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from areas import AREAS, DEEP_OPS, Area  # noqa: E402
from mutants import ALL_OPS, Mutant, mutants_of  # noqa: E402

REPO = HERE.parent.parent
# The text of every file as the run started: mutants are offsets into it, and a worker's copy is
# restored from it (editing the work tree during a run does not corrupt the run).
ORIGINAL: dict[str, bytes] = {}


def original(path: str) -> bytes:
    if path not in ORIGINAL:
        ORIGINAL[path] = (REPO / path).read_bytes()
    return ORIGINAL[path]


def repo_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, check=True, capture_output=True, text=True).stdout
    return sorted(p for p in out.splitlines() if (REPO / p).is_file())


def expand(patterns: tuple[str, ...], files: list[str]) -> list[str]:
    out: list[str] = []
    for pat in patterns:
        hits = [f for f in files if fnmatch.fnmatch(f, pat) or f.startswith(pat.rstrip("/") + "/")]
        out += [h for h in hits if h not in out]
    return out


@dataclass
class Result:
    mutant: Mutant
    area: str
    status: str  # killed | survived | timeout
    seconds: float
    killer: str = ""


@dataclass
class Plan:
    area: Area
    sources: list[str]
    pytest: list[str]
    lit: list[str]
    mutants: list[Mutant] = field(default_factory=list)
    timeout: float = 60.0
    # per source file: its own (pytest, lit) subset when the area maps it (Area.focus)
    focus: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)

    def tests_for(self, mutant: Mutant | None) -> tuple[list[str], list[str]]:
        if mutant is not None and mutant.path in self.focus:
            return self.focus[mutant.path]
        return self.pytest, self.lit


class Worker:
    """A copy of the repository that one mutant at a time is applied to."""

    def __init__(self, root: Path, files: list[str], index: int) -> None:
        self.index = index
        self.base = root / f"w{index}"
        self.copy = self.base / "mmair"
        for rel in files:
            dst = self.copy / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(original(rel))
        self.log = self.base / "log.txt"
        self.pid = 0
        self.started = 0.0
        self.job: tuple[Plan, Mutant | None] | None = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.base)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        return env

    def start(self, plan: Plan, mutant: Mutant | None) -> None:
        if mutant is not None:
            path = self.copy / mutant.path
            path.write_bytes(mutant.apply(original(mutant.path)))
        self.job = (plan, mutant)
        self.started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.setpgid(0, 0)
                code = self._child(*plan.tests_for(mutant))
            except BaseException:  # noqa: BLE001 - anything in the child is a kill, report it
                import traceback
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        self.pid = pid

    def _child(self, pytest_files: list[str], lit_files: list[str]) -> int:
        fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.chdir(self.copy)
        env = self.env()
        os.environ.update(env)
        sys.dont_write_bytecode = True
        sys.path.insert(0, str(self.base))
        # Cheapest first: the in-process lit files (the *_invalid files first: they pin the
        # verifier rules), then pytest, then the lit files that need subprocesses.
        rest: list[str] = []
        if lit_files:
            import inproc_lit

            examples = self.copy / "examples"
            files = sorted((self.copy / f for f in lit_files), key=lambda f: "_invalid" not in f.name)
            for f in files:
                if not inproc_lit.supported(f, examples):
                    rest.append(str(f))
                    continue
                ok, why = inproc_lit.run_file(f, examples)
                if not ok:
                    print(f"FAIL: {why}")
                    return 2
        if pytest_files:
            import pytest

            rc = pytest.main(["-q", "-x", "-W", "error", "-p", "no:cacheprovider", "-rf",
                              "--no-header", *pytest_files])
            if rc != 0:
                return 1
        if rest:
            lit = str(Path(sys.executable).parent / "lit")
            rc = subprocess.run([lit, "-q", "--max-failures=1", *rest], env=env).returncode
            if rc != 0:
                return 2
        return 0

    def poll(self) -> tuple[int, float] | None:
        """(exit code, seconds) once the running job ended; -1 = timed out."""
        plan, _ = self.job  # type: ignore[misc]
        elapsed = time.monotonic() - self.started
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            if elapsed < plan.timeout:
                return None
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            return -1, elapsed
        return os.waitstatus_to_exitcode(status), elapsed

    def finish(self) -> None:
        _, mutant = self.job  # type: ignore[misc]
        if mutant is not None:
            (self.copy / mutant.path).write_bytes(original(mutant.path))
        self.job = None

    def killer(self, code: int) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        if code == 2:
            failed = [ln for ln in text.splitlines() if ln.startswith("FAIL: ")]
            return "lit " + (failed[0][6:] if failed else "?")
        for line in text.splitlines():
            if line.startswith("FAILED ") or line.startswith("ERROR "):
                return line
        return text.strip().splitlines()[-1] if text.strip() else ""


def sample(mutants: list[Mutant], n: int | None, seed: int) -> list[Mutant]:
    if n is None or len(mutants) <= n:
        return mutants
    rng = random.Random(seed)
    return sorted(rng.sample(mutants, n), key=lambda m: (m.path, m.start))


def build_plans(args: argparse.Namespace, files: list[str]) -> list[Plan]:
    plans = []
    for area in AREAS:
        if args.area and area.name not in args.area:
            continue
        ops = tuple(args.ops.split(",")) if args.ops else area.ops
        if args.deep:
            ops = ops + tuple(o for o in DEEP_OPS if o not in ops)
        sources = [f for f in expand(area.sources, files)
                   if not any(fnmatch.fnmatch(f, x) for x in area.exclude)]
        plan = Plan(area, sources, expand(area.pytest, files), expand(area.lit, files))
        for src in plan.sources:
            if args.file and not any(f in src for f in args.file):
                continue
            for m in mutants_of(src, original(src), ops):
                if args.only and not any(
                        f"{m.path}:{m.line}" == o or m.key == o for o in args.only):
                    continue
                plan.mutants.append(m)
        plan.mutants = sample(plan.mutants, args.sample, args.seed)
        for glob, py, lit in area.focus:
            for src in plan.sources:
                if fnmatch.fnmatch(src, glob) and src not in plan.focus:
                    plan.focus[src] = (expand(py, files), expand(lit, files))
        plans.append(plan)
    return plans


def diff(m: Mutant) -> str:
    old = original(m.path).decode().splitlines(keepends=True)
    new = m.apply(original(m.path)).decode().splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, m.path, m.path, n=0))


def run(plans: list[Plan], jobs: int, verbose: bool, files: list[str]) -> list[Result]:
    for mod in ("numpy", "ml_dtypes", "pytest", "xdsl.ir", "xdsl.parser",
                "xdsl.printer", "xdsl.irdl", "xdsl.dialects.builtin", "xdsl.dialects.arith",
                "xdsl.dialects.func", "xdsl.dialects.scf", "xdsl.context", "xdsl.passes"):
        try:
            __import__(mod)
        except ImportError:
            pass
    assert "mmair" not in sys.modules, "the parent must not import mmair (children import the copy)"
    root = Path(tempfile.mkdtemp(prefix="mmair-mutation-"))
    workers = [Worker(root, files, i) for i in range(jobs)]
    results: list[Result] = []
    try:
        queue: list[tuple[Plan, Mutant | None]] = []
        for plan in plans:
            if not plan.mutants:
                continue
            if not (plan.pytest or plan.lit):
                print(f"[{plan.area.name}] no tests match the area's test subset: not run")
                plan.mutants = []
                continue
            # Baseline: the unmutated subset must pass; its time sets the per-mutant timeout.
            w = workers[0]
            plan.timeout = 900
            w.start(plan, None)
            while (done := w.poll()) is None:
                time.sleep(0.05)
            w.finish()
            code, secs = done
            if code != 0:
                print(f"[{plan.area.name}] baseline FAILS (exit {code}): {w.killer(code)}; "
                      f"area skipped")
                plan.mutants = []
                continue
            plan.timeout = max(30.0, 4 * secs + 10)
            print(f"[{plan.area.name}] {len(plan.mutants)} mutants of {len(plan.sources)} files; "
                  f"tests: {len(plan.pytest)} pytest + {len(plan.lit)} lit, baseline {secs:.1f} s",
                  flush=True)
            queue += [(plan, m) for m in plan.mutants]
        total = len(queue)
        t0 = time.monotonic()
        while queue or any(w.job for w in workers):
            for w in workers:
                if w.job is None and queue:
                    w.start(*queue.pop(0))
                if w.job is None:
                    continue
                done = w.poll()
                if done is None:
                    continue
                plan, m = w.job
                code, secs = done
                status = "timeout" if code == -1 else ("survived" if code == 0 else "killed")
                r = Result(m, plan.area.name, status, secs,  # type: ignore[arg-type]
                           w.killer(code) if status == "killed" else "")
                w.finish()
                results.append(r)
                if verbose or status == "survived":
                    print(f"  {len(results)}/{total} {status:8} {m.path}:{m.line} [{m.op}] "
                          f"{m.description}" + (f"\n      by {r.killer}" if verbose and r.killer
                                                else ""), flush=True)
                elif len(results) % 25 == 0:
                    rate = (time.monotonic() - t0) / len(results)
                    print(f"  {len(results)}/{total} done, ~{rate * (total - len(results)) / 60:.0f}"
                          f" min left", flush=True)
            time.sleep(0.02)
    finally:
        for w in workers:
            if w.job is not None:
                os.killpg(w.pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
    return results


def report(plans: list[Plan], results: list[Result]) -> int:
    print("\nmutation score per area (killed + timed out / mutants):")
    print(f"  {'area':20} {'mutants':>8} {'killed':>7} {'timeout':>8} {'survived':>9} {'score':>7}")
    worst = 100.0
    for plan in plans:
        rs = [r for r in results if r.area == plan.area.name]
        if not rs:
            continue
        k = sum(r.status == "killed" for r in rs)
        t = sum(r.status == "timeout" for r in rs)
        s = sum(r.status == "survived" for r in rs)
        score = 100.0 * (k + t) / len(rs)
        worst = min(worst, score)
        print(f"  {plan.area.name:20} {len(rs):8} {k:7} {t:8} {s:9} {score:6.1f}%")
    survivors = [r for r in results if r.status == "survived"]
    if survivors:
        print("\nsurvivors:")
        for r in sorted(survivors, key=lambda r: (r.area, r.mutant.path, r.mutant.line)):
            print(f"  [{r.area}] {r.mutant.path}:{r.mutant.line} [{r.mutant.op}] "
                  f"{r.mutant.description}")
    return 0 if worst >= 95.0 else 1


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--area", action="append", help="area name (repeatable); default all")
    p.add_argument("--file", action="append", help="only sources whose path contains this")
    p.add_argument("--only", action="append", help="only mutants at PATH:LINE (or a mutant key)")
    p.add_argument("--ops", help=f"comma-separated operators, overriding the area's ({', '.join(ALL_OPS)})")
    p.add_argument("--deep", action="store_true",
                   help="also mutate the conditions of checks (gcmp, gbool) in every area")
    p.add_argument("--sample", type=int, help="at most N mutants per area, drawn with --seed")
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--diff", action="store_true", help="with --list: show each mutant's diff")
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    files = repo_files()
    plans = build_plans(args, files)
    if args.list:
        for plan in plans:
            print(f"[{plan.area.name}] {len(plan.mutants)} mutants; tests: {plan.pytest + plan.lit}")
            for m in plan.mutants:
                print(f"  {m.path}:{m.line} [{m.op}] {m.description}")
                if args.diff:
                    print("    " + diff(m).replace("\n", "\n    "))
        return 0
    # A terminated run still removes its copies and its children (the `finally` of `run`).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    t0 = time.monotonic()
    results = run(plans, args.jobs, args.verbose, files)
    code = report(plans, results)
    print(f"\n{len(results)} mutants in {(time.monotonic() - t0) / 60:.1f} min with {args.jobs} workers")
    if args.json:
        Path(args.json).write_text(json.dumps([
            {"area": r.area, "path": r.mutant.path, "line": r.mutant.line, "op": r.mutant.op,
             "description": r.mutant.description, "status": r.status,
             "seconds": round(r.seconds, 2), "killer": r.killer} for r in results], indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
