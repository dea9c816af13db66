"""Double buffering: `pto-tile-matmul{multi-buffer=2}` and `mmair.passes.multi_buffer`.

The ping-pong lowering runs the same ops on the same data in the same order (only the tile each op
uses alternates between slots), so its results must be bit-identical to the single-buffered
lowering with the same tiles; the tiles are taken from the multi-buffered plan (automatic tile-k
shrinks when two slots must fit) and passed to both lowerings explicitly.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pto_testing import COMBOS, LOOP, lower, matmul_text, parse, random_operand
from xdsl.dialects import arith, func, scf

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend import targets as isa
from mmair.passes.matmul_plan import plan_matmul
from mmair.passes.multi_buffer import PreconditionError, multi_buffer
from mmair.passes.pass_errors import PassOpError


def _plan(text: str, multi: int, tiles=(0, 0, 0)):
    _, module = parse(text)
    matmul = next(op for op in module.walk() if isinstance(op, pto.MatmulOp))
    return plan_matmul(matmul, pto.target_of(matmul), *tiles, multi_buffer=multi)


def _offsets(module) -> dict[str, tuple[str, int, int]]:
    """name -> (space, first byte, end byte) of every alloc."""
    found = {}
    for op in module.walk():
        if isinstance(op, pto.AllocOp):
            tile = op.buffer.type
            start = op.offset.value.data
            found[op.buffer.name_hint] = (tile.space_name, start, start + tile.footprint_bytes())
    return found


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 300),
    n=st.integers(1, 300),
    k=st.integers(1, 300),
    combo=st.sampled_from([c for c in COMBOS if c[1] != "s4"]),
    ta=st.booleans(),
    tb=st.booleans(),
    small=st.booleans(),
    bias=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_double_buffering_is_bit_identical_to_single(m, n, k, combo, ta, tb, small, bias, seed):
    target, lhs, rhs, out = combo
    acc = pto.matmul_accumulator(isa.get_target(target), lhs, rhs)
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    g = 64 if small else 0  # small tiles: several trips in every loop, remainders
    # A one-row last panel of a transposed A must run as GEMV, which a2 refuses (tested there).
    assume(not (small and ta and m % g == 1))
    plan = _plan(text, 2, (g, g, g) if small else (0, 0, 0))
    tiles = f"tile-m={plan.tm} tile-n={plan.tn} tile-k={plan.tk}"
    rng = np.random.default_rng(seed)
    inputs = {
        "a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
        "b": random_operand(rng, rhs, (n, k) if tb else (k, n)),
    }
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    results = []
    for slots in ("multi-buffer=1", "multi-buffer=2", "multi-buffer=2 jam-l0c=true"):
        module = lower(text, f"pto-tile-matmul{{{tiles} {slots}}},pto-assign-addresses")
        results.append(run_module(module, inputs=dict(inputs)).outputs["c"])
    for result in results[1:]:
        assert results[0].dtype == result.dtype
        np.testing.assert_array_equal(result, results[0])


def test_slots_are_separate_allocs_live_together():
    # 4 K tiles, 2 M and 2 N tiles: the A row panel in L1 ping-pongs over i (two trips, unrolled
    # to straight-line code), L0A/L0B over k, L0C over j; all of B stays in L1 (loaded once).
    text = matmul_text(64, 64, 256, "f16", "f16", "f32")
    module = lower(text, "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=64 multi-buffer=2},"
                   "pto-assign-addresses")
    offsets = _offsets(module)
    assert "b_l1" in offsets and "b_l1_s1" not in offsets
    for name in ("a_l1", "a_l0a", "b_l0b", "c_l0c"):
        assert name not in offsets
        (space0, lo0, hi0), (space1, lo1, hi1) = offsets[f"{name}_s0"], offsets[f"{name}_s1"]
        assert space0 == space1
        assert hi0 <= lo1 or hi1 <= lo0, f"{name} slots overlap: {offsets}"
    # Each k loop runs 2 rounds of (slot 0, slot 1): the L0A loads alternate slots.
    moves = [op.dst.name_hint for op in module.walk() if isinstance(op, pto.MteL1L0AOp)]
    assert moves[:4] == ["a_l0a_s0", "a_l0a_s1"] * 2
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    k_loops = [lp for lp in loops if lp.body.block.args[0].name_hint == "k"]
    assert k_loops and all(lp.step.owner.value.value.data == 128 for lp in k_loops)


def test_single_buffering_is_unchanged_by_default():
    text = matmul_text(64, 64, 256, "f16", "f16", "f32")
    plain = lower(text, "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=64}")
    one = lower(text, "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=64 multi-buffer=1}")
    assert str(plain) == str(one)
    assert "_s1" not in str(plain)


def test_automatic_tile_k_halves_so_that_two_slots_fit():
    text = matmul_text(128, 128, 1024, "f16", "f16", "f32")
    single, double = _plan(text, 1), _plan(text, 2)
    # L0A holds 64 KB on a2: one 128 x tk f16 tile -> tk = 256; two slots -> tk = 128.
    assert (single.tk, double.tk) == (256, 128)
    assert double.slots(double.a_l0a()) == 2 and double.slots(double.b_l0b()) == 2


def test_l0c_single_where_two_slots_do_not_fit():
    # a2 L0C is 128 KB: two 128x128 f32 tiles fit, two 128x256 tiles (with tile-n=256) do not.
    fits = _plan(matmul_text(256, 512, 64, "f16", "f16", "f32"), 2, (128, 128, 64))
    big = _plan(matmul_text(256, 512, 64, "f16", "f16", "f32"), 2, (128, 256, 64))
    assert fits.slots(fits.c_l0c()) == 2
    assert big.slots(big.c_l0c()) == 1 and big.single_c


def test_given_tile_that_fits_once_but_not_twice_names_the_slots():
    text = matmul_text(128, 128, 512, "f16", "f16", "f32")
    _plan(text, 1, (128, 128, 256))  # 64 KB: fits L0A once
    with pytest.raises(PassOpError, match=r"do not fit l0a: .*2 x 65536 B.*capacity 65536"):
        _plan(text, 2, (128, 128, 256))


def test_multi_buffer_option_must_be_positive():
    text = matmul_text(32, 32, 32, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match="requires multi-buffer >= 1, got 0"):
        _plan(text, 0)


@pytest.mark.parametrize("trips, slots", [(1, 2), (2, 2), (3, 2), (5, 2), (4, 3), (7, 3)])
def test_every_iteration_runs_once_with_slots_round_robin(trips, slots):
    end = 16 * trips
    _, module = parse(LOOP.format(rows=end, end=end, upper="end"))
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    tile = next(op for op in module.walk() if isinstance(op, pto.AllocOp))
    multi_buffer([tile], loop, slots)
    module.verify()
    # Walk the scalar control flow: the row offset and slot of every load, in order.
    seen: list[tuple[int, str]] = []
    values: dict = {}

    def run(block) -> None:
        for op in block.ops:
            if isinstance(op, arith.ConstantOp):
                values[op.result] = op.value.value.data
            elif isinstance(op, arith.AddiOp):
                values[op.result] = values[op.lhs] + values[op.rhs]
            elif isinstance(op, arith.CmpiOp):
                assert op.predicate.value.data == 2  # slt
                values[op.result] = values[op.lhs] < values[op.rhs]
            elif isinstance(op, scf.IfOp):
                if values[op.cond]:
                    run(op.true_region.block)
            elif isinstance(op, scf.ForOp):
                for i in range(values[op.lb], values[op.ub], values[op.step]):
                    values[op.body.block.args[0]] = i
                    run(op.body.block)
            elif isinstance(op, pto.MteGmL1Op):
                seen.append((values[op.src.owner.offsets[0]], op.dst.name_hint))

    function = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    run(function.body.block)
    assert [row for row, _ in seen] == [16 * i for i in range(trips)]
    assert [slot for _, slot in seen] == [f"t_s{i % slots}" for i in range(trips)]


def test_preconditions_are_checked():
    _, module = parse(LOOP.format(rows=32, end=32, upper="ub"))
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    tile = next(op for op in module.walk() if isinstance(op, pto.AllocOp))
    with pytest.raises(PreconditionError, match="constant bounds and step"):
        multi_buffer([tile], loop, 2)
    _, module = parse(LOOP.format(rows=32, end=32, upper="end"))
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    tile = next(op for op in module.walk() if isinstance(op, pto.AllocOp))
    loop.parent_block().insert_op_after(
        pto.MteL1L0AOp(tile.buffer, [o for o in module.walk() if isinstance(o, pto.AllocOp)][1]
                       .buffer, loop.step, loop.step), loop)
    with pytest.raises(PreconditionError, match="every use of %t inside the loop"):
        multi_buffer([tile], loop, 2)
