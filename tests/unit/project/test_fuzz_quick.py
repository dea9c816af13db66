"""The quick robustness fuzz run (400 mutants in-process, a few seconds) and the harness's own
classification. The full run is `python tests/fuzz/fuzz_ir.py --mutants 10000 --seed 1`."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import pytest

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


fuzz_ir = _load("mmair_fuzz_ir", "fuzz_ir.py")

QUICK_MUTANTS = 400


def test_quick_fuzz_run(tmp_path):
    # The default --max-ops; the bound is 20 s of CPU time: a runaway TMA + MMA loop among these
    # mutants (40) stops at the default limit after 5-9 s of CPU (the more, the busier the
    # other core), which a 10 s bound made a 'hang' on a loaded machine.
    config = fuzz_ir.Config(seed=0, timeout=20.0, max_gm_bytes=64 << 20,
                            save_dir=str(tmp_path))
    summary = fuzz_ir.run_in_process(range(QUICK_MUTANTS), config)
    print(summary.table())
    assert summary.tried == QUICK_MUTANTS
    assert summary.failed == 0, "\n".join(map(str, summary.failures))
    # The run reached both the success and the diagnostic path of both tools.
    for tool in ("mmair-opt", "mmair-run"):
        assert summary.per_tool[tool]["ok"] > 0 and summary.per_tool[tool]["diag"] > 0


def test_mutants_are_reproducible():
    fuzzer = fuzz_ir.Fuzzer(fuzz_ir.load_corpus(), fuzz_ir.Config(seed=3))
    first = [fuzzer.mutant(i)[1] for i in range(30)]
    again = [fuzzer.mutant(i)[1] for i in range(30)]
    assert first == again
    assert len(set(first)) > 20  # and they differ from each other


def test_corpus_covers_examples_and_filecheck():
    names = {entry.name.split("#")[0] for entry in fuzz_ir.load_corpus()}
    assert "examples/gemm_f16_128.mlir" in names
    assert "tests/fuzz/seeds/tiled_gemm.mlir" in names
    assert any(name.startswith("tests/filecheck/dialects/pto/") for name in names)
    assert any(name.startswith("tests/filecheck/dialects/tcgen05/") for name in names)


def test_seed_kernels_cover_every_raw_form_and_4_bit_type():
    """Every raw Ascend C parameter op of the pto dialect is in a runnable seed (a kernel that
    mmair-run executes as is, not only a parse test of tests/filecheck), and so are the packed
    4-bit types: mutants of their operands reach the executor's runtime checks."""
    from mmair.dialects.pto import params

    raw_ops = {op.name for op in params.RAW_OPS}
    assert {"pto.load_2d_gm", "pto.load_2d_v2_gm", "pto.load_2d_transpose"} <= raw_ops
    seeds = "\n".join(entry.text for entry in fuzz_ir.load_corpus()
                      if entry.name.startswith(("tests/fuzz/seeds/", "examples/")))
    assert {name for name in raw_ops if name + " " not in seeds} == set()
    assert "xi4>" in seeds and "xf4E2M1FN>" in seeds and "addr_mode = 1" in seeds


def test_mixed_run_modes_reach_every_mode():
    fuzzer = fuzz_ir.Fuzzer(fuzz_ir.load_corpus(), fuzz_ir.Config(seed=3))
    assert {fuzzer.run_mode(i) for i in range(200)} == set(fuzz_ir.RUN_MODES)
    argv, _ = fuzzer.run_argv("k.mlir", "func.func @k() {", fuzzer.mutant(0)[3], "timing")
    assert "--timing" in argv


# ---- the harness classifies every failure mode ------------------------------------------------


def _raises(argv):
    raise KeyError("boom")


def _sleeps(argv):
    time.sleep(5)
    return 0


def _no_diagnostic(argv):
    print("something went wrong", file=sys.stderr)
    return 1


def _relays_exception(argv):
    print("k.mlir:1:1: error: 'pto.mad' op failed: IndexError: index 9 is out of bounds",
          file=sys.stderr)
    return 1


def _allocates(argv):
    raise MemoryError()


def _check_failed(argv):
    print("check c = numpy reference of the IR: max abs error 4, max rel error 1; pass if "
          "|got - ref| <= atol + rtol * |ref| with rtol 0, atol 0: FAILED (3 of 16 elements)")
    return 1


def _user_check_failed(argv):
    print("check a: shape 2x128x8 differs from the expected 30x40: FAILED")
    return 1


def _json_numpy_check_failed(argv):
    print('{"file": "k.mlir", "checks": [{"label": "c = numpy reference of the IR", "ok": false}],'
          ' "ok": false}')
    return 1


def _diagnostic(argv):
    print("k.mlir:1:1: error: 'pto.mad' op requires m in [0, 16], got 17", file=sys.stderr)
    return 1


@pytest.mark.parametrize(("main", "outcome"), [
    (lambda argv: 0, "ok"),
    (_diagnostic, "diag"),
    (_raises, "crash"),
    (_no_diagnostic, "crash"),
    (lambda argv: 2, "crash"),
    (_relays_exception, "internal"),
    (_check_failed, "wrong"),
    (_json_numpy_check_failed, "wrong"),
    (_user_check_failed, "diag"),
    (_sleeps, "hang"),
    (_allocates, "oom"),
])
def test_run_tool_classification(main, outcome):
    start = time.perf_counter()
    result = fuzz_ir.run_tool(main, [], timeout=0.3)
    assert result.outcome == outcome
    assert time.perf_counter() - start < 3
    if outcome == "crash" and main is _raises:
        assert "KeyError: 'boom'" in result.detail


def _spins(argv) -> int:
    while True:
        pass


def test_the_time_bound_is_cpu_time_and_a_blocked_run_is_caught_by_the_wall_clock(monkeypatch):
    with monkeypatch.context() as patch:  # a wall bound no load reaches: the CPU bound fires
        patch.setattr(fuzz_ir, "WALL_FACTOR", 100)
        spinning = fuzz_ir.run_tool(_spins, [], timeout=0.3)
    assert (spinning.outcome, spinning.detail) == ("hang", "exceeded 0.3 s of CPU time")
    start = time.perf_counter()
    blocked = fuzz_ir.run_tool(_sleeps, [], timeout=0.3)
    waited = time.perf_counter() - start
    assert blocked.outcome == "hang"
    assert blocked.detail == f"exceeded {fuzz_ir.WALL_FACTOR * 0.3} s of wall-clock time"
    assert fuzz_ir.WALL_FACTOR * 0.3 <= waited < 3


def test_parallel_driver_matches_in_process(tmp_path):
    # The full run's driver (2 worker processes, RLIMIT_AS) classifies the same mutants the same.
    # A smaller op bound than the tools' default: a runaway tcgen05 loop among these mutants
    # (mutant 23, with --check-numpy and the async checker) costs ~0.3 ms per op at load 14, so at
    # 2,000,000 or even 50,000 ops it came out 'hang' or 'diag' with the load; at 10,000 it is a
    # 'diag' in seconds. The time bound is 60 s: this test compares classifications, not speed.
    config = fuzz_ir.Config(seed=5, save_dir=str(tmp_path), max_ops=10_000, timeout=60.0)
    parallel = fuzz_ir.run_parallel(24, config, workers=2, memory_limit=8 << 30, progress=False)
    serial = fuzz_ir.run_in_process(range(24), config)
    assert parallel.tried == serial.tried == 24
    assert parallel.per_tool == serial.per_tool
    assert parallel.failed == 0
