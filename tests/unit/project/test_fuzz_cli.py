"""The quick command-line fuzz run (tests/fuzz/fuzz_cli.py): mutated options, values and file
kinds through every tool, no traceback, hang or crash. The full run is
`python tests/fuzz/fuzz_cli.py --commands 3000 --seed 1`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

FUZZ_DIR = Path(__file__).resolve().parents[2] / "fuzz"


def _load(name: str, file: str):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, FUZZ_DIR / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fuzz_cli = _load("mmair_fuzz_cli", "fuzz_cli.py")


def test_quick_cli_fuzz_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    summary = fuzz_cli.run_commands(range(60), seed=0, timeout=60.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # relative outputs stayed in its folder
    print(summary.table())
    assert summary.tried == 60
    assert summary.failed == 0, "\n".join(summary.failures)
    diag = sum(c["diag"] for c in summary.per_tool.values())
    ok = sum(c["ok"] for c in summary.per_tool.values())
    assert diag > 0 and ok > 0


def test_command_lines_are_reproducible(tmp_path):
    files = fuzz_cli.make_files(tmp_path)
    first = [fuzz_cli.command(3, i, files, "out").argv for i in range(40)]
    assert first == [fuzz_cli.command(3, i, files, "out").argv for i in range(40)]
    assert len({tuple(a) for a in first}) > 30
    assert {fuzz_cli.command(3, i, files, "out").tool for i in range(40)} == set(fuzz_cli.TOOLS)


def test_exit_2_with_an_error_line_is_a_diagnostic():
    result = fuzz_cli.fuzz_ir.run_tool(lambda argv: (print("x: error: bad option", file=sys.stderr), 2)[1],
                                       [], timeout=5)
    assert fuzz_cli.classify(result) == "diag"
    result = fuzz_cli.fuzz_ir.run_tool(lambda argv: 2, [], timeout=5)
    assert fuzz_cli.classify(result) == "crash"
