"""`--jobs N` (issue 13): independent pipe ops run on N threads, ordered by the engine's footprints,
with outputs bit-identical to the sequential run (`--jobs 1`) on every example and on random
lowered matmuls; a kernel fault on a thread is reported at its op as in the sequential run."""

from __future__ import annotations

import pathlib
import threading
import time

import numpy as np
import pytest

import mmair.executor.runner as runner
from mmair.dialects.pto.access import Access
from mmair.executor.engine import multicore_pool
from mmair.executor.engine.events import Event
from mmair.executor.engine.scheduler import ThreadedRuns
from mmair.isa.ascend.pipes import Pipe
from mmair.tools.run import build_parser
from mmair.tools.run import main as run_main

EXAMPLES = sorted((pathlib.Path(__file__).parents[4] / "examples").glob("*.mlir"))


def _cli_outputs(monkeypatch, capsys, argv: list[str]) -> dict[str, np.ndarray]:
    """Run mmair-run with `argv`; the GM outputs of the run (exit 0 required)."""
    seen: list = []
    real = runner.run_module

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append((kwargs.get("jobs"), result))
        return result

    monkeypatch.setattr(runner, "run_module", spy)
    code = run_main(argv)
    out, err = capsys.readouterr()
    assert code == 0, (out, err)
    assert len(seen) == 1
    return {name: array.copy() for name, array in seen[0][1].outputs.items()}


def _same_bits(x: dict[str, np.ndarray], y: dict[str, np.ndarray]) -> None:
    assert x.keys() == y.keys()
    for name in x:
        assert x[name].dtype == y[name].dtype and x[name].shape == y[name].shape, name
        assert x[name].tobytes() == y[name].tobytes(), f"output {name} differs"


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_bit_identical(monkeypatch, capsys, example):
    sequential = _cli_outputs(monkeypatch, capsys, [str(example), "--jobs", "1"])
    threaded = _cli_outputs(monkeypatch, capsys, [str(example), "--jobs", "3"])
    _same_bits(sequential, threaded)


def _matmul(tmp_path, m: int, n: int, k: int, ab: str, acc: str) -> pathlib.Path:
    elt = {"f16": "f16", "bf16": "bf16", "s8": "i8", "f32": "f32", "s32": "i32"}
    ta, tb, tc = (f"memref<{m}x{k}x{elt[ab]}>", f"memref<{k}x{n}x{elt[ab]}>",
                  f"memref<{m}x{n}x{elt[acc]}>")
    path = tmp_path / f"mm_{m}_{n}_{k}_{ab}.mlir"
    path.write_text(
        'builtin.module attributes {pto.target = "a2"} {\n'
        f"  func.func @mm(%a: {ta}, %b: {tb}, %c: {tc}) {{\n"
        f"    pto.matmul %a, %b, %c : {ta}, {tb}, {tc}\n"
        "    func.return\n  }\n}\n")
    return path


@pytest.mark.parametrize("seed", range(6))
def test_random_lowered_matmuls_bit_identical(monkeypatch, capsys, tmp_path, seed):
    rng = np.random.default_rng(1000 + seed)
    m, n, k = (int(x) for x in rng.integers(1, 300, size=3))
    ab, acc = [("f16", "f32"), ("bf16", "f32"), ("s8", "s32"), ("f16", "f16")][seed % 4]
    path = _matmul(tmp_path, m, n, k, ab, acc)
    slots = 1 + seed % 2
    base = [str(path), "-p", f"mmair-lower{{multi_buffer={slots}}}", "--seed", str(seed)]
    sequential = _cli_outputs(monkeypatch, capsys, [*base, "--jobs", "1"])
    for jobs in ("2", "4"):
        _same_bits(sequential, _cli_outputs(monkeypatch, capsys, [*base, "--jobs", jobs]))


def test_jobs_default_is_sequential_and_0_is_the_cpu_count(monkeypatch, capsys, tmp_path):
    """Threads only pay on a busy machine (docs/benchmarks.md): the default is one job."""
    monkeypatch.setattr(multicore_pool, "default_jobs", lambda: 3)
    seen: list[int] = []
    real = ThreadedRuns.__init__

    def spy(self, jobs):
        seen.append(jobs)
        real(self, jobs)

    monkeypatch.setattr(ThreadedRuns, "__init__", spy)
    path = _matmul(tmp_path, 40, 40, 40, "f16", "f32")
    _cli_outputs(monkeypatch, capsys, [str(path)])
    assert seen == []  # no pool: every op runs at once on the interpreter thread
    _cli_outputs(monkeypatch, capsys, [str(path), "--jobs", "0"])  # 0: the machine's cores
    assert seen == [3]
    seen.clear()
    _cli_outputs(monkeypatch, capsys, [str(path), "--jobs", "1"])
    assert seen == []  # one job: no pool, every op runs at once


def test_mads_reach_the_threads_with_their_footprints(monkeypatch, capsys, tmp_path):
    """The dependency rule needs each op's exact footprint when it is handed to the threads,
    even where the engine computes footprints later (`Event.lazy`). Only mads go to the threads
    (`scheduler.OFFLOADED`): the moves run on the interpreter's thread, after the mads in flight
    whose bytes they touch."""
    seen: list[tuple[str, int]] = []
    real = ThreadedRuns.submit

    def spy(self, ev, run):
        seen.append((ev.op.name, len(ev.accesses)))
        real(self, ev, run)

    monkeypatch.setattr(ThreadedRuns, "submit", spy)
    path = _matmul(tmp_path, 100, 60, 70, "f16", "f32")
    _cli_outputs(monkeypatch, capsys, [str(path), "--jobs", "2"])
    names = {name for name, _ in seen}
    assert names and names <= {"pto.mad", "pto.mad_acc"}
    assert all(count >= 2 for _, count in seen), seen  # a source and a destination at least


@pytest.mark.parametrize("bad", ["-2", "two"])
def test_jobs_must_be_a_non_negative_integer(capsys, tmp_path, bad):
    path = _matmul(tmp_path, 16, 16, 16, "f16", "f32")
    assert run_main([str(path), f"--jobs={bad}"]) == 2
    err = capsys.readouterr().err
    expected = "must be >= 0" if bad.lstrip("-").isdigit() else "expected a non-negative integer"
    assert len(err.strip().splitlines()) == 1 and "--jobs" in err and expected in err, err


def test_jobs_help_says_threads_for_independent_ops():
    text = " ".join(build_parser().format_help().split())
    assert "threads for independent ops inside a core" in text


FAULT = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %rows: index) {
    %t = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    %u = pto.alloc : !pto.tile<l1, 32x64xf16, nz>
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    pto.mte_gm_l1 %b, %u, %c32, %c64 : memref<64x64xf16>, !pto.tile<l1, 32x64xf16, nz>
    pto.mte_gm_l1 %a, %t, %rows, %c64 : memref<64x64xf16>, !pto.tile<l1, 32x64xf16, nz>
    pto.mte_gm_l1 %b, %u, %c32, %c64 : memref<64x64xf16>, !pto.tile<l1, 32x64xf16, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fault_on_a_thread_is_reported_at_its_op(capsys, tmp_path, jobs):
    path = tmp_path / "fault.mlir"
    path.write_text(FAULT)
    code = run_main([str(path), "--input", "rows=40", "--jobs", jobs, "-p", ""])
    out, err = capsys.readouterr()
    assert code == 1
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    assert f"{path}:8:5: error:" in lines[0]
    assert "requires rows in [0, 32]" in lines[0] and "got 40" in lines[0]


def _event(seq: int, *accesses: Access) -> Event:
    return Event(seq, 0, Pipe.MTE2, None, "mte_gm_l1", list(accesses))


def test_conflicting_ops_run_in_order_disjoint_ones_side_by_side():
    """The dependency rule itself: a write after a write of overlapping bytes waits for the
    first; an op on disjoint bytes starts while the first is still running."""
    threads = ThreadedRuns(3)
    order: list[str] = []
    first_running = threading.Event()
    release = threading.Event()

    def slow_first():
        first_running.set()
        assert release.wait(10)
        order.append("first")

    try:
        threads.submit(_event(1, Access("l1", 0, 512, write=True)), slow_first)
        assert first_running.wait(10)
        # overlapping bytes [256, 768): must wait for `first`
        threads.submit(_event(2, Access("l1", 256, 512, write=True)),
                       lambda: order.append("overlapping"))
        # disjoint bytes, and a read of bytes only read before: may run now
        disjoint = threading.Event()
        threads.submit(_event(3, Access("l1", 4096, 512, write=True)),
                       lambda: (order.append("disjoint"), disjoint.set()))
        assert disjoint.wait(10), "an op on disjoint bytes waited for an unrelated one"
        time.sleep(0.05)
        assert order == ["disjoint"]
        release.set()
        assert threads.wait_all() is None
        assert order == ["disjoint", "first", "overlapping"]
    finally:
        release.set()
        threads.close()


def test_reads_of_the_same_bytes_do_not_wait_for_each_other():
    threads = ThreadedRuns(2)
    release = threading.Event()
    second = threading.Event()
    try:
        threads.submit(_event(1, Access("gm", 0, 64, memory=7)), lambda: release.wait(10))
        threads.submit(_event(2, Access("gm", 0, 64, memory=7)), second.set)
        assert second.wait(10), "a read waited for another read"
        release.set()
        # a strided GM window in another memory never conflicts with memory 7
        assert threads.wait_all() is None
    finally:
        release.set()
        threads.close()


MAD_FAULTS = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%n: index) {
    %c16 = arith.constant 16 : index
    %a = pto.alloc : !pto.tile<l0a, 16x16xf16, zz>
    %b = pto.alloc : !pto.tile<l0b, 16x32xf16, zn>
    %c = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    %d = pto.alloc : !pto.tile<l0c, 16x16xf32, nz>
    pto.mad %a, %b, %c, %c16, %n, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    pto.mad %a, %b, %d, %c16, %n, %c16 : !pto.tile<l0a, 16x16xf16, zz>, !pto.tile<l0b, 16x32xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_kernel_fault_on_a_thread_is_reported_at_the_first_failing_op(capsys, tmp_path, jobs):
    # n = 32 exceeds both 16-column destinations: the mads' numpy kernels fault (the footprints,
    # whole tiles, do not), on the worker threads with --jobs 2. Both fail; the run reports the
    # first one in program order (line 8), exactly as the sequential run does.
    from mmair.tools.run import main as run_main

    path = tmp_path / "faults.mlir"
    path.write_text(MAD_FAULTS)
    code = run_main([str(path), "--input", "n=32", "--jobs", jobs, "--sync-check=on", "-p", ""])
    err = capsys.readouterr().err
    assert code == 1
    lines = [line for line in err.splitlines() if "error:" in line]
    assert lines == [f"{path}:8:5: error: 'pto.mad' op requires n in [0, 16] (columns of the dst "
                     f"tile %c), got 32"], err
