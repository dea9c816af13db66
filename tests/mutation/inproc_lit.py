"""Run the simple RUN lines of lit tests inside the current Python process.

A lit file costs one Python start per command (mmair-opt, filecheck), ~1 s each on a loaded
machine; a mutant of a verifier re-runs ~20 of them. The mutation harness runs the RUN lines of
the form `mmair-opt ARGS [| mmair-opt ARGS]... | filecheck ARGS` (and the MMAIR_ROUNDTRIP
substitution) here, through `mmair.tools.opt.main` and `filecheck.main.main`, and leaves every
other file (`not`, redirections, mmair-run, mmair-desc) to lit. The harness's baseline run checks
that the unmutated files pass this way.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import sys
from pathlib import Path

ROUNDTRIP = ("mmair-opt %s --split-input-file --print-op-generic | mmair-opt --split-input-file "
             "| filecheck %s")


def run_lines(path: Path, examples: Path) -> list[str]:
    lines, current = [], ""
    for raw in path.read_text().splitlines():
        text = raw.strip()
        if not text.startswith("// RUN:"):
            continue
        part = text[len("// RUN:"):].strip()
        if part.endswith("\\"):
            current += part[:-1] + " "
            continue
        lines.append(current + part)
        current = ""
    out = []
    for line in lines:
        line = line.replace("MMAIR_ROUNDTRIP", ROUNDTRIP)
        line = line.replace("%examples", str(examples)).replace("%s", str(path))
        out.append(line)
    return out


def _supported(stages: list[list[str]]) -> bool:
    if not stages or stages[-1][:1] != ["filecheck"]:
        return False
    return all(s[:1] == ["mmair-opt"] for s in stages[:-1]) and all(
        not any(tok in ("<", ">", "2>&1", "&&", ";") for tok in s) for s in stages)


def _stages(line: str) -> list[list[str]] | None:
    try:
        tokens = shlex.split(line)
    except ValueError:
        return None
    stages: list[list[str]] = [[]]
    for tok in tokens:
        if tok == "|":
            stages.append([])
        else:
            stages[-1].append(tok)
    return stages if _supported(stages) else None


def supported(path: Path, examples: Path) -> bool:
    lines = run_lines(path, examples)
    return bool(lines) and all(_stages(line) is not None for line in lines)


def _run_opt(argv: list[str], data: str | None) -> tuple[int, str]:
    from mmair.tools.opt import main

    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(data if data is not None else "")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = int(exit_.code or 0)
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue()


def _run_filecheck(argv: list[str], data: str) -> tuple[int, str]:
    from filecheck.main import main

    out = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(data)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            try:
                main(["filecheck", *argv])
                code = 0
            except SystemExit as exit_:
                code = int(exit_.code or 0)
    finally:
        sys.stdin = old_stdin
    return code, out.getvalue()


def run_file(path: Path, examples: Path) -> tuple[bool, str]:
    """(passed, what failed) for a file whose every RUN line is supported."""
    for line in run_lines(path, examples):
        stages = _stages(line)
        assert stages is not None
        data: str | None = None
        for stage in stages[:-1]:
            code, data = _run_opt(stage[1:], data)
            if code != 0:
                return False, f"{path.name}: `{' '.join(stage)}` exited {code}"
        code, message = _run_filecheck(stages[-1][1:], data or "")
        if code != 0:
            return False, f"{path.name}: filecheck failed: {message.strip()[:300]}"
    return True, ""
