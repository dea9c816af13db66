"""How many mads the `--jobs` thread pool runs at once on a lowered `pto.matmul` (issue 13).

Not a timing test: every mad kernel is slowed by the same sleep (which releases the GIL, like
numpy's sgemm), so the moves on the interpreter's thread are negligible and the count of mads
running at the same time shows what the lowering's dependencies allow. A K chain accumulates in
one L0C tile (each mad after the previous one); two chains overlap only where the lowering gives
them independent L0C tiles and operand slots in an order the pool can run side by side.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import mmair.executor.runner as runner
from mmair.executor.engine.scheduler import ThreadedRuns
from mmair.tools.run import main as run_main

SLOW_MAD_SECONDS = 0.05
TILED = ("pto-tile-matmul{{tile-m=128 tile-n=128 tile-k=128 multi-buffer={multi_buffer}{jam}}},"
         "pto-assign-addresses,pto-insert-sync")
"""2 x 2 output tiles, 4 K tiles each: 16 mads."""


def _max_mads_in_flight(monkeypatch, capsys, tmp_path, pipeline: str) -> tuple[int, np.ndarray]:
    """Run a 256x256x512 f16 matmul lowered by `pipeline` with --jobs 2: the largest number of
    mads running at once, and the output C."""
    lock = threading.Lock()
    running = [0, 0]  # now, most
    real_run = ThreadedRuns._run

    def slow_run(self, task):
        inner = task.run

        def measured():
            with lock:
                running[0] += 1
                running[1] = max(running)
            try:
                time.sleep(SLOW_MAD_SECONDS)
                return inner()
            finally:
                with lock:
                    running[0] -= 1

        if inner is not None:
            task.run = measured
        real_run(self, task)

    monkeypatch.setattr(ThreadedRuns, "_run", slow_run)
    outputs = []
    real_module = runner.run_module

    def spy(*args, **kwargs):
        result = real_module(*args, **kwargs)
        outputs.append(result.outputs["c"].copy())
        return result

    monkeypatch.setattr(runner, "run_module", spy)
    m, n, k = 256, 256, 512
    src = tmp_path / "mm.mlir"
    ta, tb, tc = f"memref<{m}x{k}xf16>", f"memref<{k}x{n}xf16>", f"memref<{m}x{n}xf32>"
    src.write_text(
        'builtin.module attributes {pto.target = "a2"} {\n'
        f"  func.func @matmul(%a: {ta}, %b: {tb}, %c: {tc}) {{\n"
        f"    pto.matmul %a, %b, %c : {ta}, {tb}, {tc}\n"
        "    func.return\n  }\n}\n")
    rng = np.random.default_rng(7)
    np.save(tmp_path / "a.npy", rng.standard_normal((m, k)).astype(np.float16))
    np.save(tmp_path / "b.npy", rng.standard_normal((k, n)).astype(np.float16))
    np.save(tmp_path / "c.npy", np.zeros((m, n), np.float32))
    code = run_main([str(src), *(f"--input={x}={tmp_path / x}.npy" for x in "abc"),
                     "--jobs", "2", "-p", pipeline])
    out, err = capsys.readouterr()
    assert code == 0, (out, err)
    assert len(outputs) == 1
    return running[1], outputs[0]


@pytest.mark.parametrize("multi_buffer", [1, 2])
def test_consecutive_k_chains_run_one_mad_at_a_time(monkeypatch, capsys, tmp_path,
                                                    multi_buffer):
    """One L0C tile (multi-buffer=1): every mad waits for the previous one. Two L0C slots
    (multi-buffer=2) give the chains of output tiles j and j+1 different accumulators, but the
    lowering runs chain j+1 after chain j with the same L0A/L0B slots, so its first load waits for
    chain j's mads: the pool never has two mads to run."""
    pipeline = TILED.format(multi_buffer=multi_buffer, jam="")
    most, _ = _max_mads_in_flight(monkeypatch, capsys, tmp_path, pipeline)
    assert most == 1


def test_jammed_l0c_slots_run_two_k_chains_side_by_side(monkeypatch, capsys, tmp_path):
    """`jam-l0c=true` jams the K chains of output tiles j and j+1 (`multi_buffer(jam=True)`):
    each K step loads and multiplies for both tiles, into their own L0C slot, so the pool runs
    the mad of one chain while the other's runs; the output is bit-identical to the one-slot
    lowering with the same tiles (each C tile sees the same mads in the same K order)."""
    most, jammed = _max_mads_in_flight(monkeypatch, capsys, tmp_path,
                                       TILED.format(multi_buffer=2, jam=" jam-l0c=true"))
    assert most == 2
    _, single = _max_mads_in_flight(monkeypatch, capsys, tmp_path,
                                    TILED.format(multi_buffer=1, jam=""))
    assert jammed.tobytes() == single.tobytes()
