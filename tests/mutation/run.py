"""Mutation harness for mmair: mutate verifier checks and executor numerics, run the tests that
should notice, print the score per area and the surviving mutants (docs/mutation.md).

    python tests/mutation/run.py                       # every area, 2 workers
    python tests/mutation/run.py --area executor-pto   # one area
    python tests/mutation/run.py --only executor/ascend/kernels.py:428 -v
    python tests/mutation/run.py --list                # the mutants, without running them

Test selection: each area's test subset runs once under coverage.py with one context per test
(selection.py), so a mutant runs only the tests that execute its lines (a mutant no test executes
survives without a run). `--confirm` re-runs every survivor on the area's whole subset.

Warm children: the parent imports numpy, xdsl, pytest and all of mmair (from an unmutated copy)
once; the child forked for a mutant drops the mutated module and the modules that import it from
`sys.modules` and loads the mutated module from its worker's copy. Each worker owns a copy of the
repository's files under a temporary folder named `mmair`, on PYTHONPATH for the subprocesses the
tests start (lit, CLI tests), with the mutant written into it; the copy is restored after every
mutant. Byte-code caching is off in the copies (a same-size edit in the same second would
otherwise reuse a stale .pyc). Simple lit RUN lines (mmair-opt | filecheck) run in the child
(inproc_lit.py); the others run under lit.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import fnmatch
import hashlib
import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from areas import AREAS, DEEP_OPS, Area  # noqa: E402
from mutants import ALL_OPS, Mutant, mutants_of  # noqa: E402
from selection import (  # noqa: E402
    COLLECT,
    LIT_PREFIX,
    CoverageMap,
    Selection,
    dependents,
    module_name,
    select,
    statement_lines,
)

REPO = HERE.parent.parent
# The text of every file as the run started: mutants are offsets into it, and a worker's copy is
# restored from it (editing the work tree during a run does not corrupt the run).
ORIGINAL: dict[str, bytes] = {}
# Folders of the repository that are not part of the mmair package (never pre-imported).
NOT_PACKAGE = ("tests/", "benchmarks/", "examples/", "docs/", ".ci/")
# The parent imported hypothesis (a pytest plugin) before pytest could rewrite its asserts.
_WARM_OK = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mmair-mutation"


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


def package_modules(files: list[str]) -> dict[str, str]:
    """path -> text of every module of the mmair package."""
    return {p: original(p).decode() for p in files
            if p.endswith(".py") and not p.startswith(NOT_PACKAGE) and module_name(p)}


@dataclass
class Result:
    mutant: Mutant
    area: str
    status: str  # killed | survived | timeout | uncovered (survived: no test runs its lines)
    seconds: float
    killer: str = ""
    tests: int = 0  # how many pytest items + lit files were selected


@dataclass
class Plan:
    area: Area
    sources: list[str]
    pytest: list[str]
    lit: list[str]
    mutants: list[Mutant] = field(default_factory=list)
    # per source file: its own (pytest, lit) subset when the area maps it (Area.focus)
    focus: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    coverage: CoverageMap | None = None
    failing: list[str] = field(default_factory=list)  # subset tests failing unmutated
    baseline: float = 0.0

    def tests_for(self, mutant: Mutant | None) -> tuple[list[str], list[str]]:
        if mutant is not None and mutant.path in self.focus:
            return self.focus[mutant.path]
        return self.pytest, self.lit

    def all_tests(self) -> tuple[list[str], list[str]]:
        py, lit = list(self.pytest), list(self.lit)
        for fpy, flit in self.focus.values():
            py += [t for t in fpy if t not in py]
            lit += [t for t in flit if t not in lit]
        return py, lit

    def selection(self, mutant: Mutant, whole: bool) -> Selection:
        py, lit = self.tests_for(mutant)
        if whole or self.coverage is None:
            return Selection(py, lit, self.baseline, whole=True)
        tree = _tree(mutant.path)
        lines = statement_lines(tree, original(mutant.path), mutant.start, mutant.end)
        chosen = select(self.coverage, mutant.path, lines, py, lit)
        # only tests of the mutant's (focus) subset that pass unmutated
        files = set(py)
        chosen.pytest = [t for t in chosen.pytest if t.split("::")[0] in files
                         and t not in self.failing]
        chosen.lit = [t for t in chosen.lit if t in lit]
        return chosen


_TREES: dict[str, ast.Module] = {}


def _tree(path: str) -> ast.Module:
    if path not in _TREES:
        _TREES[path] = ast.parse(original(path))
    return _TREES[path]


class _MutantFinder(importlib.abc.MetaPathFinder):
    """Loads the mutated module from the worker's copy (the rest comes from the warm parent)."""

    def __init__(self, name: str, path: Path) -> None:
        self.name, self.path = name, path

    def find_spec(self, fullname, path=None, target=None):  # noqa: ANN001 - importlib protocol
        if fullname != self.name:
            return None
        package = [str(self.path.parent)] if self.path.name == "__init__.py" else None
        return importlib.util.spec_from_file_location(fullname, self.path,
                                                      submodule_search_locations=package)


class Runner:
    """The copies of the repository, the warm parent state, and the children it forks."""

    def __init__(self, root: Path, files: list[str], jobs: int) -> None:
        self.root = root
        self.files = files
        self.pristine = root / "p"
        _copy(files, self.pristine / "mmair")
        self.workers = [Worker(self, i) for i in range(jobs)]
        self.dependents = dependents(package_modules(files))
        self.cov_pid = 0  # the coverage run in progress (killed with the harness)

    def warm(self) -> None:
        """Import the third-party stack and every mmair module (unmutated) in the parent."""
        for mod in ("numpy", "ml_dtypes", "pytest", "hypothesis", "filecheck.main",
                    "xdsl.ir", "xdsl.parser", "xdsl.printer", "xdsl.irdl",
                    "xdsl.dialects.builtin", "xdsl.dialects.arith", "xdsl.dialects.func",
                    "xdsl.dialects.scf", "xdsl.context", "xdsl.passes"):
            try:
                importlib.import_module(mod)
            except ImportError:
                pass
        assert "mmair" not in sys.modules or Path(sys.modules["mmair"].__file__ or "").is_relative_to(
            self.pristine), "the parent imported mmair from elsewhere than the unmutated copy"
        sys.path.insert(0, str(self.pristine))
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        sys.dont_write_bytecode = True
        for path in sorted(package_modules(self.files)):
            name = module_name(path)
            try:
                importlib.import_module(name)  # type: ignore[arg-type]
            except Exception as err:  # noqa: BLE001 - a module that cannot import stays cold
                print(f"note: {name} not pre-imported ({type(err).__name__}: {err})")
        # `mmair.tools.*` CLIs hold no state; the tests' own modules load in the children.

    def coverage(self, plan: Plan) -> None:
        """Run the area's whole subset once under coverage (in a child), fill plan.coverage."""
        py, lit = plan.all_tests()
        key = hashlib.sha256()
        for rel in self.files:
            key.update(rel.encode() + b"\0" + original(rel) + b"\0")
        key.update(json.dumps([plan.area.name, py, lit, plan.sources]).encode())
        cached = CACHE / f"{plan.area.name}-{key.hexdigest()[:20]}.json"
        if cached.exists():
            data = json.loads(cached.read_text())
        else:
            out = self.root / f"cov-{plan.area.name}.json"
            pid = os.fork()
            if pid == 0:
                code = 3
                try:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                    code = _coverage_child(self, plan, py, lit, out)
                except BaseException:  # noqa: BLE001 - report and exit the child
                    import traceback
                    traceback.print_exc()
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            self.cov_pid = pid
            _, status = os.waitpid(pid, 0)
            self.cov_pid = 0
            if os.waitstatus_to_exitcode(status) != 0 or not out.exists():
                log = (self.root / "coverage-log.txt").read_text(errors="replace")
                raise SystemExit(f"[{plan.area.name}] the coverage run failed:\n{log[-3000:]}")
            data = json.loads(out.read_text())
            CACHE.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(data))
        plan.coverage = CoverageMap.from_json(json.dumps(data["map"]))
        plan.failing = data["failing"]
        plan.baseline = data["seconds"]


def _copy(files: list[str], dest: Path) -> None:
    for rel in files:
        dst = dest / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(original(rel))


def _coverage_child(runner: Runner, plan: Plan, py: list[str], lit: list[str], out: Path) -> int:
    import coverage

    log = runner.root / "coverage-log.txt"
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    copy = runner.pristine / "mmair"
    os.chdir(copy)
    data_dir = runner.root / f"cov-{plan.area.name}"
    data_dir.mkdir()
    include = [str(copy / s) for s in plan.sources]
    # Subprocesses (lit, the CLI tests) measure themselves through coverage's .pth hook, under
    # the context of the test that started them (MMAIR_MUT_CONTEXT).
    rc = runner.root / f"cov-{plan.area.name}.rc"
    rc.write_text("[run]\nparallel = True\n"
                  f"data_file = {data_dir / 'sub'}\n"
                  "include =\n" + "".join(f"    {p}\n" for p in include) +
                  "context = ${MMAIR_MUT_CONTEXT}\n")
    os.environ.update(PYTHONPATH=str(runner.pristine), PYTHONDONTWRITEBYTECODE="1", CI="true",
                      COVERAGE_PROCESS_START=str(rc), MMAIR_MUT_CONTEXT=COLLECT)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    cov = coverage.Coverage(data_file=str(data_dir / "main"), include=include, config_file=False)
    cov.start()
    cov.switch_context(COLLECT)
    seconds: dict[str, float] = {}
    failing: list[str] = []
    examples = copy / "examples"
    import inproc_lit

    for rel in lit:
        context = LIT_PREFIX + rel
        cov.switch_context(context)
        os.environ["MMAIR_MUT_CONTEXT"] = context
        t0 = time.monotonic()
        if inproc_lit.supported(copy / rel, examples):
            ok, why = inproc_lit.run_file(copy / rel, examples)
        else:
            lit_bin = str(Path(sys.executable).parent / "lit")
            ok = subprocess.run([lit_bin, "-q", str(copy / rel)]).returncode == 0
            why = "lit failed"
        seconds[context] = time.monotonic() - t0
        if not ok:
            print(f"baseline FAIL {rel}: {why}")
            failing.append(rel)
    cov.switch_context(COLLECT)
    os.environ["MMAIR_MUT_CONTEXT"] = COLLECT
    plugin = _ContextPlugin(cov, seconds, failing)
    if py:
        pytest.main(["-q", "-W", "error", *_WARM_OK, "-p", "no:cacheprovider", "--no-header", "-rf", *py],
                     plugins=[plugin])
    cov.stop()
    cov.save()
    cmap = CoverageMap(seconds=seconds, shared=plugin.shared)
    prefix = str(copy) + "/"
    for data_file in data_dir.iterdir():
        data = coverage.CoverageData(basename=str(data_file))
        data.read()
        for measured in data.measured_files():
            if not measured.startswith(prefix):
                continue
            rel = measured[len(prefix):]
            by_line = cmap.lines.setdefault(rel, {})
            for line, contexts in data.contexts_by_lineno(measured).items():
                by_line.setdefault(line, set()).update(c or COLLECT for c in contexts)
    out.write_text(json.dumps({"map": json.loads(cmap.to_json()), "failing": failing,
                               "seconds": sum(seconds.values())}))
    return 0


class _ContextPlugin:
    """Switches the coverage context to each test; records its time, failures and the tests that
    share a module- or session-scoped fixture of the project's own."""

    def __init__(self, cov, seconds: dict[str, float], failing: list[str]) -> None:  # noqa: ANN001
        self.cov, self.seconds, self.failing = cov, seconds, failing
        self.shared: dict[str, list[str]] = {}

    def pytest_collection_modifyitems(self, items) -> None:  # noqa: ANN001
        users: dict[tuple[str, str, str], list[str]] = {}
        for item in items:
            info = getattr(item, "_fixtureinfo", None)
            if info is None:
                continue
            for name, defs in info.name2fixturedefs.items():
                fd = defs[-1]
                module = getattr(fd.func, "__module__", "") or ""
                if fd.scope == "function" or module.startswith(("_pytest", "pytest", "hypothesis")):
                    continue
                users.setdefault((item.nodeid.split("::")[0], name, fd.baseid), []).append(item.nodeid)
        for ids in users.values():
            for nodeid in ids:
                self.shared.setdefault(nodeid, [])
                self.shared[nodeid] += [i for i in ids if i != nodeid and i not in self.shared[nodeid]]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):  # noqa: ANN001
        self.cov.switch_context(item.nodeid)
        os.environ["MMAIR_MUT_CONTEXT"] = item.nodeid
        self._t0 = time.monotonic()

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001
        if report.failed and report.nodeid not in self.failing:
            self.failing.append(report.nodeid)
        if report.when == "teardown":
            self.seconds[report.nodeid] = time.monotonic() - self._t0
            self.cov.switch_context(COLLECT)
            os.environ["MMAIR_MUT_CONTEXT"] = COLLECT


class Worker:
    """A copy of the repository that one mutant at a time is applied to."""

    def __init__(self, runner: Runner, index: int) -> None:
        self.runner = runner
        self.index = index
        self.base = runner.root / f"w{index}"
        self.copy = self.base / "mmair"
        _copy(runner.files, self.copy)
        self.log = self.base / "log.txt"
        self.pid = 0
        self.started = 0.0
        self.timeout = 60.0
        self.job: tuple[Plan, Mutant | None, Selection] | None = None

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.base)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["CI"] = "true"  # derandomized hypothesis: the runs the coverage map was made from
        env.pop("COVERAGE_PROCESS_START", None)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        return env

    def start(self, plan: Plan, mutant: Mutant | None, chosen: Selection) -> None:
        if mutant is not None:
            path = self.copy / mutant.path
            path.write_bytes(mutant.apply(original(mutant.path)))
        self.job = (plan, mutant, chosen)
        self.timeout = max(30.0, 4 * chosen.seconds + 20)
        self.started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # child
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.setpgid(0, 0)
                self._stale(mutant)
                code = self._child(chosen.pytest, chosen.lit)
            except BaseException:  # noqa: BLE001 - anything in the child is a kill, report it
                import traceback
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        self.pid = pid

    def _stale(self, mutant: Mutant | None) -> None:
        """Forget the mutated module and its importers; load the mutated one from the copy."""
        if mutant is None:
            return
        name = module_name(mutant.path)
        if name is None or mutant.path.startswith(NOT_PACKAGE):
            return
        stale = {name} | self.runner.dependents.get(name, set())
        for mod in stale:
            sys.modules.pop(mod, None)
        for mod in stale:
            parent, _, child = mod.rpartition(".")
            if parent in sys.modules and getattr(sys.modules[parent], child, None) is not None:
                delattr(sys.modules[parent], child)
        sys.meta_path.insert(0, _MutantFinder(name, self.copy / mutant.path))

    def _child(self, pytest_ids: list[str], lit_files: list[str]) -> int:
        fd = os.open(self.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.chdir(self.copy)
        env = self.env()
        os.environ.clear()
        os.environ.update(env)
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
        if pytest_ids:
            rc = pytest.main(["-q", "-x", "-W", "error", *_WARM_OK, "-p", "no:cacheprovider", "-rf",
                              "--no-header", *pytest_ids])
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
        elapsed = time.monotonic() - self.started
        pid, status = os.waitpid(self.pid, os.WNOHANG)
        if pid == 0:
            if elapsed < self.timeout:
                return None
            os.killpg(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            return -1, elapsed
        return os.waitstatus_to_exitcode(status), elapsed

    def finish(self) -> None:
        _, mutant, _ = self.job  # type: ignore[misc]
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
        plan = Plan(area, list(sources), expand(area.pytest, files), expand(area.lit, files))
        for src in plan.sources:
            if args.file and not any(f in src for f in args.file):
                continue
            for m in mutants_of(src, original(src), ops):
                if args.only and not any(
                        f"{m.path}:{m.line}" == o or m.key == o for o in args.only):
                    continue
                plan.mutants.append(m)
        for glob, extra_ops, functions in area.extra:
            if args.ops:
                continue  # --ops replaces every operator of the area
            for src in expand((glob,), files):
                if args.file and not any(f in src for f in args.file):
                    continue
                if src not in plan.sources:
                    plan.sources.append(src)
                own = ops if src in sources else ()
                known = {(m.start, m.end, m.replacement) for m in plan.mutants}
                for m in mutants_of(src, original(src), tuple(o for o in extra_ops if o not in own),
                                    functions):
                    if (m.start, m.end, m.replacement) in known or args.only and not any(
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


def run(plans: list[Plan], jobs: int, verbose: bool, files: list[str], whole: bool = False,
        confirm: bool = False) -> list[Result]:
    root = Path(tempfile.mkdtemp(prefix="mmair-mutation-"))
    runner = Runner(root, files, jobs)
    results: list[Result] = []
    try:
        runner.warm()
        queue: list[tuple[Plan, Mutant, Selection]] = []
        for plan in plans:
            if not plan.mutants:
                continue
            if not (plan.pytest or plan.lit):
                print(f"[{plan.area.name}] no tests match the area's test subset: not run")
                plan.mutants = []
                continue
            t0 = time.monotonic()
            runner.coverage(plan)
            print(f"[{plan.area.name}] {len(plan.mutants)} mutants of {len(plan.sources)} files; "
                  f"tests: {len(plan.pytest)} pytest + {len(plan.lit)} lit files, unmutated "
                  f"{plan.baseline:.1f} s under coverage (map in {time.monotonic() - t0:.0f} s)",
                  flush=True)
            if plan.failing:
                print(f"  failing unmutated, never selected: {', '.join(plan.failing[:5])}"
                      + (" ..." if len(plan.failing) > 5 else ""))
            for m in plan.mutants:
                chosen = plan.selection(m, whole)
                if not (chosen.pytest or chosen.lit):
                    results.append(Result(m, plan.area.name, "uncovered", 0.0,
                                          "no test of the subset runs these lines"))
                    print(f"  uncovered {m.path}:{m.line} [{m.op}] {m.description}")
                    continue
                queue.append((plan, m, chosen))
        _drain(runner, queue, results, verbose)
        if confirm:
            again = [r for r in results if r.status in ("survived", "uncovered")]
            if again:
                print(f"\nconfirming {len(again)} survivors on their area's whole subset", flush=True)
            by_key = {id(r): r for r in again}
            plan_of = {p.area.name: p for p in plans}
            confirm_queue = [(plan_of[r.area], r.mutant, plan_of[r.area].selection(r.mutant, True))
                             for r in by_key.values()]
            redo: list[Result] = []
            _drain(runner, confirm_queue, redo, verbose, save=False)
            outcome = {(r.area, r.mutant.key): r for r in redo}
            results = [outcome.get((r.area, r.mutant.key), r) if r.status in ("survived", "uncovered")
                       else r for r in results]
    finally:
        if runner.cov_pid:
            os.kill(runner.cov_pid, signal.SIGKILL)
            os.waitpid(runner.cov_pid, 0)
        for w in runner.workers:
            if w.job is not None:
                os.killpg(w.pid, signal.SIGKILL)
        shutil.rmtree(root, ignore_errors=True)
    return results


def _drain(runner: Runner, queue: list[tuple[Plan, Mutant, Selection]], results: list[Result],
           verbose: bool, save: bool = True) -> None:
    total = len(queue) + len(results)
    t0 = time.monotonic()
    done_here = 0
    workers = runner.workers
    while queue or any(w.job for w in workers):
        for w in workers:
            if w.job is None and queue:
                w.start(*queue.pop(0))
            if w.job is None:
                continue
            done = w.poll()
            if done is None:
                continue
            plan, m, chosen = w.job
            code, secs = done
            status = "timeout" if code == -1 else ("survived" if code == 0 else "killed")
            r = Result(m, plan.area.name, status, secs,  # type: ignore[arg-type]
                       w.killer(code) if status == "killed" else "",
                       len(chosen.pytest) + len(chosen.lit))
            w.finish()
            results.append(r)
            done_here += 1
            if save and done_here % 10 == 0:
                write_json(results)
            if verbose or status == "survived":
                print(f"  {len(results)}/{total} {status:8} {m.path}:{m.line} [{m.op}] "  # type: ignore[union-attr]
                      f"{m.description} ({r.tests} tests, {secs:.1f} s)"  # type: ignore[union-attr]
                      + (f"\n      by {r.killer}" if verbose and r.killer else ""), flush=True)
            elif done_here % 25 == 0:
                rate = (time.monotonic() - t0) / done_here
                print(f"  {len(results)}/{total} done, ~{rate * len(queue) / 60:.0f}"
                      f" min left", flush=True)
        time.sleep(0.02)


_JSON: list[Path] = []  # --json: rewritten as results come in (a stopped run keeps its results)


def write_json(results: list[Result]) -> None:
    for path in _JSON:
        path.write_text(json.dumps([
            {"area": r.area, "path": r.mutant.path, "line": r.mutant.line, "op": r.mutant.op,
             "description": r.mutant.description, "status": r.status, "tests": r.tests,
             "seconds": round(r.seconds, 2), "killer": r.killer} for r in results], indent=1))


def report(plans: list[Plan], results: list[Result]) -> int:
    print("\nmutation score per area (killed + timed out / mutants; uncovered = survived, "
          "no test of the subset runs the line):")
    print(f"  {'area':20} {'mutants':>8} {'killed':>7} {'timeout':>8} {'survived':>9} "
          f"{'uncovered':>10} {'score':>7}")
    worst = 100.0
    for plan in plans:
        rs = [r for r in results if r.area == plan.area.name]
        if not rs:
            continue
        k = sum(r.status == "killed" for r in rs)
        t = sum(r.status == "timeout" for r in rs)
        s = sum(r.status == "survived" for r in rs)
        u = sum(r.status == "uncovered" for r in rs)
        score = 100.0 * (k + t) / len(rs)
        worst = min(worst, score)
        print(f"  {plan.area.name:20} {len(rs):8} {k:7} {t:8} {s:9} {u:10} {score:6.1f}%")
    survivors = [r for r in results if r.status in ("survived", "uncovered")]
    if survivors:
        print("\nsurvivors:")
        for r in sorted(survivors, key=lambda r: (r.area, r.mutant.path, r.mutant.line)):
            print(f"  [{r.area}] {r.mutant.path}:{r.mutant.line} [{r.mutant.op}] "
                  f"{r.mutant.description}" + (" (uncovered)" if r.status == "uncovered" else ""))
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
    p.add_argument("--whole", action="store_true",
                   help="run each mutant on the area's whole subset (no coverage selection)")
    p.add_argument("--confirm", action="store_true",
                   help="re-run every survivor on the area's whole subset")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--diff", action="store_true", help="with --list: show each mutant's diff")
    p.add_argument("--json", help="write the results to this file")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if not args.list:
        try:  # the per-test coverage map (selection.py) needs coverage.py
            import coverage  # noqa: F401
        except ImportError:
            print("error: the mutation harness needs coverage.py: pip install -e \".[test,mutation]\"",
                  file=sys.stderr)
            return 2
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
    if args.json:
        _JSON.append(Path(args.json))
    t0 = time.monotonic()
    results = run(plans, args.jobs, args.verbose, files, args.whole, args.confirm)
    code = report(plans, results)
    cpu = sum(getattr(resource.getrusage(who), f) for who in
              (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ("ru_utime", "ru_stime"))
    # On a shared machine the wall time measures the load; the CPU time the harness used (its
    # children included) is what an idle machine with `jobs` cores needs, divided by `jobs`.
    print(f"\n{len(results)} mutants in {(time.monotonic() - t0) / 60:.1f} min with {args.jobs} "
          f"workers; {cpu / 60:.1f} CPU-min (~{cpu / 60 / args.jobs:.1f} min on {args.jobs} idle cores)")
    write_json(results)
    return code


if __name__ == "__main__":
    sys.exit(main())
