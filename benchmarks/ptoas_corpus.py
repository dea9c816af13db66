"""How much of PTOAS's own test corpus mmair reads, checks and runs.

    python benchmarks/ptoas_corpus.py PTOAS_CHECKOUT [--commit SHA] [--json OUT] [--timeout S]

PTOAS_CHECKOUT is a checkout (or an extracted `git archive`) of github:hw-native-sys/PTOAS or a
fork; the script reads every `.pto` file under its `test/` folder. A file is cube-related when it
uses a cube op or tile (`CUBE`). Files written with `split-file` (`//--- name.pto` parts) count
part by part. What PTOAS expects of a unit comes from its RUN lines: `not ptoas` on it means PTOAS
rejects it, and the CHECK lines of that RUN's prefix that contain `error:` give the reason.

Each unit is given, in-process, to `mmair-opt` (parse, PTOAS's and mmair's verifiers, conversion),
then, when it is valid and accepted, to `mmair-run` (the executor with the race / deadlock checker
on, seeded random inputs, 0 for scalar arguments, 1 for counts and for a tensor size the
largest window of that axis (`size_arguments`), a bounded op count; with
`-p pto-insert-sync` when PTOAS compiles the file with `--enable-insert-sync` (or
`--enable-graph-sync-solver`) or the file has no
flag at all, which PTOAS's pipeline then inserts: pypto's generated samples are such input). The
table counts:

* valid units: accepted by mmair-opt; of those, run clean, or reported by the checker (race,
  deadlock, lost set), or stopped in the run (why);
* invalid units: rejected, with the reason PTOAS gives (its CHECK text is part of mmair's message)
  or another reason; or accepted (mmair misses PTOAS's check);
* what stops the rest: the first diagnostic of each unit mmair does not accept, grouped (a refused
  op kind, or the message with its numbers and names blanked).

The suite does not need a PTOAS checkout; tests/unit/project/test_ptoas_corpus_script.py runs the
classification on a small made-up one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

CUBE = re.compile(
    r"\bpto\.(?:tmatmul|tgemv|mad|mad_acc|mad_bias|mad_raw|mte_l1_l0a|mte_l1_l0b|mte_gm_l1"
    r"|mte_gm_l1_frac|mte_l0c_gm|mte_l0c_l1|mte_l0c_ub|load_cbuf_to_c[ab]|copy_matrix_cc_to"
    r"|copy_gm_to_cbuf|section\.cube)\b"
    r"|loc\s*=\s*(?:left|right|acc)\b|kernel_kind<cube>"
)
_RUN = re.compile(r"^\s*//\s*RUN:(.*)$", re.M)
_PART = re.compile(r"^//--- (\S+)\s*$", re.M)
_CHECK = re.compile(r"^\s*//\s*([A-Za-z0-9_-]+):\s*(.*)$", re.M)
_FLAGS = re.compile(r"\bpto\.(?:set_flag|wait_flag|barrier|pipe_barrier)\b")
_SCALAR_ARG = re.compile(r"%([\w$.-]+)\s*:\s*(?:index|i1|i32|i64)\b")


_VIEW = re.compile(r"(%[\w$.-]+)\s*=\s*pto\.make_tensor_view\s+%[\w$.-]+,\s*shape\s*=\s*\[([^\]]*)\]")
_WINDOW = re.compile(r"pto\.partition_view\s+(%[\w$.-]+),\s*offsets\s*=\s*\[[^\]]*\],\s*"
                     r"sizes\s*=\s*\[([^\]]*)\]")
_CONSTANT = re.compile(r"(%[\w$.-]+)\s*=\s*arith\.constant\s+(-?\d+)\s*:")


def size_arguments(text: str) -> dict[str, int]:
    """A value for each scalar argument written as a `make_tensor_view` shape: the largest
    constant size of the windows (`partition_view`s) of those views along that axis, 16 when no
    window says (the kernel's tensors are then as large as its block-0 windows reach)."""
    constants = {name: int(value) for name, value in _CONSTANT.findall(text)}
    windows: dict[str, list[list[str]]] = {}
    for view, sizes in _WINDOW.findall(text):
        windows.setdefault(view, []).append([v.strip() for v in sizes.split(",")])
    out: dict[str, int] = {}
    for view, shape in _VIEW.findall(text):
        for axis, dim in enumerate(v.strip() for v in shape.split(",")):
            if dim in constants or not dim.startswith("%"):
                continue
            seen = [constants[w[axis]] for w in windows.get(view, [])
                    if axis < len(w) and w[axis] in constants]
            out[dim[1:]] = max([out.get(dim[1:], 0), *seen]) or 16
    return out


def scalar_inputs(text: str) -> list[str]:
    """`--input NAME=V` for each scalar argument of the kernels (index, i1, i32, i64; an i1 is a
    flag, 0 = false): a tensor size its windows imply
    (`size_arguments`), 1 for a count (a name with `num`), else 0 (block 0 of the launch, offset
    0). pypto's SPMD block arguments get none: the launch gives them (passes/ptoas_spmd.py)."""
    from mmair.passes.ptoas_spmd import is_spmd_block_argument

    sizes = size_arguments(text)
    out = []
    for signature in re.findall(r"func\.func\s+@[\w$.-]+\s*\(([^)]*)\)", text):
        for name in _SCALAR_ARG.findall(signature):
            if is_spmd_block_argument(name):
                continue
            value = sizes.get(name, 1 if "num" in name else 0)
            out += ["--input", f"{name}={value}"]
    return out


@dataclass
class Unit:
    """One kernel text of the corpus and what PTOAS expects of it."""

    name: str
    text: str
    invalid: bool
    reasons: list[str] = field(default_factory=list)
    insert_sync: bool = False  # PTOAS compiles it with --enable-insert-sync


@dataclass
class Outcome:
    name: str
    invalid: bool
    accepted: bool
    stage: str  # "opt", "run", "clean", "checker", "rejected"
    message: str = ""
    reason_matches: bool = False


def _prefix(run: str) -> str:
    found = re.search(r"--check-prefix[es]*[= ]([A-Za-z0-9_,-]+)", run)
    return found.group(1).split(",")[0] if found else "CHECK"


def _reasons(text: str, prefix: str) -> list[str]:
    """The `error:` texts of the CHECK lines of `prefix`, FileCheck patterns removed; when none of
    its lines says `error:` (PTOAS's VPTO tests often check the bare message), the text of its
    positive CHECK lines."""
    lines = [(name, line) for name, line in _CHECK.findall(text)
             if name.split("-")[0] == prefix and not name.endswith(("-NOT", "-LABEL"))]
    errors = [line.split("error:", 1)[1] for _name, line in lines if "error:" in line]
    out = []
    for reason in errors or [line for _name, line in lines]:
        parts = re.split(r"\{\{.*?\}\}|\[\[.*?\]\]", reason.strip())
        longest = max(parts, key=len).strip()
        if longest:
            out.append(longest)
    return out


def units_of(path: Path) -> Iterator[Unit]:
    """The units of one `.pto` file: the file, or each `split-file` part of it."""
    text = path.read_text(encoding="utf-8", errors="replace")
    runs = _RUN.findall(text)
    parts = _PART.split(text)
    if len(parts) == 1:
        rejecting = [r for r in runs if re.search(r"\bnot\s+ptoas\b", r)]
        reasons = [x for r in rejecting for x in _reasons(text, _prefix(r))]
        yield Unit(path.name, text, bool(rejecting), reasons,
                   any(_inserts_sync(r) for r in runs))
        return
    head = parts[0]
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        mine = [r for r in runs if f"/{name}" in r]
        rejecting = [r for r in mine if re.search(r"\bnot\s+ptoas\b", r)]
        reasons = [x for r in rejecting for x in _reasons(head, _prefix(r))]
        yield Unit(f"{path.name}:{name}", body, bool(rejecting), reasons,
                   any(_inserts_sync(r) for r in mine))


def _inserts_sync(run: str) -> bool:
    """PTOAS inserts the flags itself: `--enable-insert-sync` or its graph-based solver
    (`--enable-graph-sync-solver`, tools/ptoas/ptoas.cpp: "the graph-based intra-core sync
    solver", exclusive with --enable-insert-sync)."""
    return "--enable-insert-sync" in run or "--enable-graph-sync-solver" in run


class _Timeout(BaseException):
    """Raised by SIGALRM: a run took longer than --timeout (BaseException: no tool catches it)."""


def _on_alarm(signum, frame) -> None:
    raise _Timeout


def _call(main: Callable[[Sequence[str]], int], argv: list[str], timeout: float) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    except _Timeout:
        return 1, f"error: timed out after {timeout:g} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return code, err.getvalue()


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return stderr.strip().splitlines()[0] if stderr.strip() else ""


def classify(unit: Unit, timeout: float = 20.0, max_ops: int = 2_000_000) -> Outcome:
    from mmair.tools import opt, run

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.pto")
        with open(path, "w", encoding="utf-8") as f:
            f.write(unit.text)
        code, stderr = _call(opt.main, [path, "-o", os.path.join(tmp, "out.pto")], timeout)
        if code != 0:
            message = _first_error(stderr)
            matches = any(reason in message for reason in unit.reasons)
            return Outcome(unit.name, unit.invalid, False, "rejected" if unit.invalid else "opt",
                           message, matches)
        if unit.invalid:
            return Outcome(unit.name, True, True, "accepted")
        argv = [path, "--max-ops", str(max_ops), "--max-gm-bytes", str(256 << 20),
                *scalar_inputs(unit.text)]
        if unit.insert_sync or not _FLAGS.search(unit.text):
            argv += ["-p", "pto-insert-sync"]
        code, stderr = _call(run.main, argv, timeout)
        if code == 0:
            return Outcome(unit.name, False, True, "clean")
        message = _first_error(stderr)
        checker = re.search(r"\b(race|deadlock|again while it is still set|unbalanced)\b", message)
        return Outcome(unit.name, False, True, "checker" if checker else "run", message)


def _group(message: str) -> str:
    """A diagnostic with its numbers, names and types blanked, so that alike ones group."""
    refused = re.match(r"'(pto\.[\w.]+)' is an? PTOAS (.+?) op that mmair does not model", message)
    if refused:
        return f"refused: {refused.group(2)} op"
    text = re.sub(r"'[^']*'", "'_'", message)
    text = re.sub(r"%[\w.#]+|@\w+|!\w[\w.]*<[^>]*>|\b\d+\b", "_", text)
    return " ".join(text.split()[:14])


def survey(root: Path, timeout: float = 20.0, progress: bool = False) -> dict:
    files = sorted((root / "test").rglob("*.pto"))
    cube = [p for p in files if CUBE.search(p.read_text(encoding="utf-8", errors="replace"))]
    outcomes: list[Outcome] = []
    for i, path in enumerate(cube):
        for unit in units_of(path):
            outcomes.append(classify(unit, timeout))
        if progress:
            print(f"{i + 1}/{len(cube)} {path.relative_to(root)}", file=sys.stderr)
    valid = [o for o in outcomes if not o.invalid]
    invalid = [o for o in outcomes if o.invalid]
    stops = Counter(_group(o.message) for o in outcomes
                    if o.stage in ("opt", "run") or (o.invalid and not o.reason_matches
                                                     and o.stage == "rejected"))
    return {
        "pto_files": len(files), "cube_files": len(cube), "units": len(outcomes),
        "valid": {"units": len(valid), "accepted": sum(o.accepted for o in valid),
                  "clean": sum(o.stage == "clean" for o in valid),
                  "checker": sum(o.stage == "checker" for o in valid),
                  "run_stopped": sum(o.stage == "run" for o in valid)},
        "invalid": {"units": len(invalid),
                    "rejected_same_reason": sum(o.stage == "rejected" and o.reason_matches
                                                for o in invalid),
                    "rejected_other_reason": sum(o.stage == "rejected" and not o.reason_matches
                                                 for o in invalid),
                    "accepted": sum(o.stage == "accepted" for o in invalid)},
        "stops": stops.most_common(),
        "outcomes": [asdict(o) for o in outcomes],
    }


def markdown(result: dict, commit: str) -> str:
    v, n = result["valid"], result["invalid"]
    lines = [f"PTOAS at {commit}: {result['pto_files']} `.pto` files under test/, "
             f"{result['cube_files']} cube-related, {result['units']} units.", "",
             "| | units | |", "|---|---|---|",
             f"| valid | {v['units']} | accepted {v['accepted']}: run clean {v['clean']}, "
             f"checker reports {v['checker']}, run stopped {v['run_stopped']} |",
             f"| invalid | {n['units']} | rejected with PTOAS's reason {n['rejected_same_reason']}, "
             f"with another {n['rejected_other_reason']}, accepted {n['accepted']} |", "",
             "| what stops the rest | units |", "|---|---|"]
    lines += [f"| {text} | {count} |" for text, count in result["stops"][:25]]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a PTOAS checkout (its test/ folder is read)")
    parser.add_argument("--commit", default="(unnamed commit)", help="the commit, for the table")
    parser.add_argument("--json", type=Path, help="write every unit's outcome here")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per tool call")
    args = parser.parse_args(argv)
    if not (args.checkout / "test").is_dir():
        parser.error(f"{args.checkout} has no test/ folder")
    result = survey(args.checkout, args.timeout, progress=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
    print(markdown(result, args.commit), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
