"""`pto-tile-matmul{blocks=N}`: the output tiles of a lowered matmul split over the cores of the
launch by `pto.block_idx` (block b computes tiles b, b + block_num, ...).

* At random shapes, tiles, transposes, bias, slots and launch sizes the lowered kernel runs clean
  under the cross-core race checker, writes every byte of C (`--check-coverage`) and matches
  numpy; the per-block fixpipe counts follow the round-robin split.
* On the process pool (`jobs=2`) the bytes, coverage and per-block counts are the same.
* The launch size is read at run time (`pto.block_num`): a kernel written for N cores is complete
  on any launch.
* `blocks` outside the target's cores is an error naming the option, the value and the range.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import inputs_for, lower, matmul_text

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend.pipes import CUBE_CORES
from mmair.passes.pass_errors import PassOpError

PIPELINE = "pto-tile-matmul{{{options}}},pto-assign-addresses,pto-insert-sync"


def split(text: str, options: str):
    return lower(text, PIPELINE.format(options=options))


def reference(inputs, ta: bool, tb: bool, bias: bool) -> np.ndarray:
    a = inputs["a"].astype(np.float64)
    b = inputs["b"].astype(np.float64)
    out = (a.T if ta else a) @ (b.T if tb else b)
    if bias:
        out = out + inputs["bias"].astype(np.float64)
    return out


def fixpipes_per_block(result) -> list[int]:
    if not result.per_core:  # a one-block launch
        return [result.op_counts.get("pto.fixpipe", 0)]
    return [c["op_counts"].get("pto.fixpipe", 0) for c in result.per_core]


@settings(max_examples=20, deadline=None)
@given(
    m=st.integers(1, 100),
    n=st.integers(1, 100),
    k=st.integers(1, 120),
    tiles=st.sampled_from(["", "tile-m=16 tile-n=32 tile-k=32", "tile-m=32 tile-n=16"]),
    blocks=st.integers(2, 5),
    launch=st.integers(1, 6),
    slots=st.sampled_from([1, 2]),
    ta=st.booleans(),
    tb=st.booleans(),
    bias=st.booleans(),
    target=st.sampled_from(["a2", "a5"]),
    seed=st.integers(0, 2**16),
)
def test_split_matmul_runs_clean_covers_c_and_matches_numpy(m, n, k, tiles, blocks, launch,
                                                            slots, ta, tb, bias, target, seed):
    text = matmul_text(m, n, k, "f16", "f16", "f32", target=target, transpose_a=ta,
                       transpose_b=tb, bias="f32" if bias else None)
    options = " ".join(filter(None, [tiles, f"blocks={blocks}", f"multi-buffer={slots}"]))
    tile_m = int(tiles.split()[0].removeprefix("tile-m=")) if tiles else 0
    if tile_m and m > 1 and m % tile_m == 1 and target == "a2":  # a peeled GEMV row (not a5)
        with pytest.raises(PassOpError, match="leaves a one-row panel"):
            split(text, options)
        return
    module = split(text, options)
    inputs = inputs_for(module, seed)
    result = run_module(module, inputs={n_: v.copy() for n_, v in inputs.items()},
                        sync_check=True, blocks=launch, coverage=["c"])
    assert result.unwritten == {"c": []}
    np.testing.assert_allclose(result.outputs["c"], reference(inputs, ta, tb, bias),
                               rtol=1e-4, atol=1e-3)
    unchecked = run_module(module, inputs={n_: v.copy() for n_, v in inputs.items()},
                           blocks=launch)
    np.testing.assert_array_equal(unchecked.outputs["c"], result.outputs["c"])
    if launch > 1:  # the process pool gives the same bytes and coverage
        pooled = run_module(module, inputs={n_: v.copy() for n_, v in inputs.items()},
                            blocks=launch, jobs=2, coverage=["c"])
        np.testing.assert_array_equal(pooled.outputs["c"], result.outputs["c"])
        assert pooled.unwritten == {"c": []} and pooled.per_core == result.per_core


@pytest.mark.parametrize("launch", [1, 2, 3, 7])
def test_round_robin_split_of_the_output_tiles(launch):
    # 100 x 90 output in 32 x 32 tiles: 4 x 3 = 12 tiles, block b takes b, b + launch, ...
    module = split(matmul_text(100, 90, 70, "f16", "f16", "f32"),
                   "tile-m=32 tile-n=32 blocks=4")
    inputs = inputs_for(module, 1)
    result = run_module(module, inputs=inputs, sync_check=True, blocks=launch, coverage=["c"])
    assert fixpipes_per_block(result) == [len(range(b, 12, launch)) for b in range(launch)]
    assert result.unwritten == {"c": []}
    np.testing.assert_allclose(result.outputs["c"], reference(inputs, False, False, False),
                               rtol=1e-4, atol=1e-3)


def test_automatic_tiles_shrink_until_every_block_has_a_tile():
    # The fixed rule: 256 x 256 has 4 automatic 128 x 128 tiles; 16 blocks need 16 tiles: 64 x 64.
    module = split(matmul_text(256, 256, 64, "f16", "f16", "f32"), "blocks=16 tiling=rule")
    allocs = [op.buffer.type for op in module.walk() if isinstance(op, pto.AllocOp)]
    l0c = [t for t in allocs if t.space_name == "l0c"]
    assert [t.logical_shape for t in l0c] == [(64, 64)]
    result = run_module(module, inputs=inputs_for(module), sync_check=True, blocks=16)
    assert fixpipes_per_block(result) == [1] * 16


def test_unsplit_blocks_one_has_no_block_ops():
    module = split(matmul_text(64, 64, 64, "f16", "f16", "f32"), "blocks=1")
    assert not any(isinstance(op, pto.BlockIdxOp | pto.BlockNumOp) for op in module.walk())


@pytest.mark.parametrize("blocks", [0, CUBE_CORES["a2"] + 1])
def test_blocks_outside_the_cores_is_an_error(blocks):
    with pytest.raises(PassOpError, match=rf"requires blocks in \[1, {CUBE_CORES['a2']}\] \(the AI Cores of target a2\), got {blocks}$") as err:
        split(matmul_text(64, 64, 64, "f16", "f16", "f32"), f"blocks={blocks}")
    assert str(err.value) == (
        f"'pto.matmul' op requires blocks in [1, {CUBE_CORES['a2']}] (the AI Cores of target "
        f"a2), got {blocks}")
