"""Blocks of a multi-core launch on a process pool (`run_module(jobs=J)`, `mmair-run --jobs`):
outputs, per-block counts, coverage and diagnostics are those of the in-process run; the pool
itself runs clean launches (cross-worker `sync_all` included) and hands racy or faulting ones back
to the in-process run."""

from __future__ import annotations

import numpy as np
import pytest
from multicore_testing import CLEAN, RACY, ROTATE, SKIP, parse, pooled
from pto_testing import inputs_for, lower, matmul_text

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.multicore_pool import run_pool, shares
from mmair.executor.runner import find_entry, make_interpreter, prepare_arguments, run_module
from mmair.tools.run import main as run_main


def split_matmul(m: int, n: int, k: int, blocks: int):
    return lower(matmul_text(m, n, k, "f16", "f16", "f32"),
                 f"pto-tile-matmul{{tile-m=32 tile-n=32 blocks={blocks}}},pto-assign-addresses,"
                 "pto-insert-sync")


def same(a, b) -> None:
    assert a.outputs.keys() == b.outputs.keys()
    for name in a.outputs:
        np.testing.assert_array_equal(a.outputs[name], b.outputs[name])
    assert a.results == b.results
    assert a.per_core == b.per_core
    assert a.op_counts == b.op_counts and a.peak_bytes == b.peak_bytes
    assert a.unwritten == b.unwritten


def test_shares_are_contiguous_and_cover_every_block():
    assert shares(5, 2) == [[0, 1], [2, 3, 4]]
    assert shares(3, 8) == [[0], [1], [2]]
    assert shares(24, 1) == [list(range(24))]


@pytest.mark.parametrize("sync_check", [False, True])
@pytest.mark.parametrize("jobs", [2, 3])
def test_split_matmul_on_the_pool_equals_the_in_process_run(jobs, sync_check):
    module = split_matmul(100, 90, 70, 5)
    data = inputs_for(module, 4)
    one = run_module(module, inputs=data, blocks=5, sync_check=sync_check, coverage=["c"])
    many = run_module(module, inputs=data, blocks=5, sync_check=sync_check, coverage=["c"],
                      jobs=jobs)
    same(one, many)
    assert many.unwritten == {"c": []}
    assert pooled(module, data, 5, jobs, sync_check) is not None  # the pool ran it


def test_sync_all_between_workers():
    # d's window i is c's window i + 1 that the next block (another worker for i = 1) wrote
    # before the barrier
    module = parse(ROTATE)
    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16),
            "d": np.zeros(64, np.float16)}
    result = pooled(module, data, 4, 2, True)
    assert result is not None
    entry = find_entry(module)
    _, values = prepare_arguments(entry, dict(data))
    assert run_pool(module, entry, "a2", values, 4, 2, True, "default", None, None,
                    make_interpreter) is not None
    want = np.roll(np.arange(64, dtype=np.float16), -16)
    np.testing.assert_array_equal(values[2], want)
    same(run_module(module, inputs=data, blocks=4, sync_check=True),
         run_module(module, inputs=data, blocks=4, sync_check=True, jobs=2))


def test_coverage_of_a_partial_launch_from_the_worker_logs():
    module = parse(CLEAN)  # block i writes c[32i:32i+16]: 2 blocks leave two holes
    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16)}
    many = run_module(module, inputs=data, blocks=2, jobs=2, coverage=["c"])
    assert many.unwritten == {"c": [(32, 64), (96, 128)]}
    same(run_module(module, inputs=data, blocks=2, coverage=["c"]), many)


@pytest.mark.parametrize("sync_check", [False, True])
def test_a_cross_core_race_goes_back_to_the_in_process_run(sync_check):
    module = parse(RACY)  # every block writes c[0:16]
    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16)}
    assert pooled(module, data, 2, 2, sync_check) is None  # the logs overlap: handed back
    if not sync_check:  # the deterministic result: block 1 ran last
        same(run_module(module, inputs=data, blocks=2),
             run_module(module, inputs=data, blocks=2, jobs=2))
        return
    messages = []
    for jobs in (1, 2):
        with pytest.raises(ExecutionError, match=r"race on bytes \[0, 32\) of GM buffer %c between blocks 0 and 1") as info:
            run_module(module, inputs=data, blocks=2, sync_check=True, jobs=jobs)
        messages.append(info.value.message)
    assert messages[0] == messages[1]
    assert messages[1].startswith("race on bytes [0, 32) of GM buffer %c between blocks 0 and 1")


def test_a_deadlock_between_workers_is_the_in_process_report():
    module = parse(SKIP)  # only block 0 reaches the barrier
    data = {"a": np.arange(64, dtype=np.float16), "c": np.zeros(64, np.float16)}
    assert pooled(module, data, 2, 2, False) is None
    messages = []
    for jobs in (1, 2):
        with pytest.raises(ExecutionError, match=r"block 0 waits at 'pto\.sync_all'") as info:
            run_module(module, inputs=data, blocks=2, jobs=jobs)
        messages.append(info.value.message)
    assert messages[0] == messages[1]
    assert "block 0 waits at 'pto.sync_all'" in messages[1]


def test_cli_jobs(tmp_path, capsys):
    src = tmp_path / "k.mlir"
    src.write_text(ROTATE)
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"d{jobs}.npy"
        assert run_main([str(src), "--blocks", "4", "--jobs", jobs, "--output", f"d={out}",
                         "--check-numpy"]) == 0
        outs.append(np.load(out))
    np.testing.assert_array_equal(outs[0], outs[1])
    assert run_main([str(src), "--blocks", "4", "--jobs", "-1"]) == 2
    assert "--jobs: must be >= 0, got -1" in capsys.readouterr().err


STORE = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%c: memref<4xi32>) {
    %i = pto.block_idx
    %v = arith.index_cast %i : index to i32
    %z = arith.constant 0 : index
    memref.store %v, %c[%z] : memref<4xi32>
    func.return
  }
}
"""
"""Every block stores its index into c[0] with the scalar unit (no footprint in the checker)."""


def test_scalar_gm_stores_stay_in_process():
    from mmair.executor.engine.multicore_pool import pool_safe

    module = parse(STORE)
    assert not pool_safe(module)
    assert pool_safe(parse(ROTATE))
    data = {"c": np.zeros(4, np.int32)}
    many = run_module(module, inputs=data, blocks=3, jobs=3)
    assert many.outputs["c"][0] == 2  # the deterministic hand-off: block 2 stores last
    same(run_module(module, inputs=data, blocks=3), many)


def test_the_coarse_overlap_mask_sees_every_byte_overlap():
    """The cross-core check works in gcd units of the records (not per byte): an overlap of a
    few bytes between two blocks' rows is still found, adjacent rows are not an overlap."""
    from mmair.executor.engine.multicore_pool import _cross_core_overlap

    c = [np.zeros((64, 128), np.float32)]  # rows of 512 bytes
    rows = [(0, 0, 0, 0, 256, 64, 512, True), (1, 0, 0, 256, 256, 64, 512, True)]  # two halves
    assert not _cross_core_overlap(rows, c)
    assert _cross_core_overlap(rows + [(1, 0, 0, 252, 4, 1, 0, False)], c)  # reads block 0's
    assert _cross_core_overlap([rows[0], (1, 0, 0, 250, 8, 2, 512, True)], c)
    assert not _cross_core_overlap([rows[0], (1, 0, 0, 256, 8, 2, 512, True)], c)
    assert not _cross_core_overlap([rows[0], (1, 1, 0, 0, 8, 1, 0, True)], c)  # another epoch
