"""pto-tile-matmul `tile-m-l1` / `tile-n-l1` (L1 tiles holding several L0 tiles in M and N),
`l1-slots` / `l0c-slots` (slots per buffer) and `swizzle` (the order of a split kernel's output
tiles): each gives the same bits as the plain tiling of the same L0 tiles, runs clean under the
sync checker, and is chosen by the cost model when not given (passes/matmul_plan.py
`MatmulPlan.subtiled`, passes/matmul_emit.py `l1_tile_body`, passes/matmul_choice.py)."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.dialects import pto
from mmair.executor.runner import run_module
from mmair.isa.ascend import targets as isa
from mmair.isa.ascend.costs import costs
from mmair.passes.matmul_choice import choose_plan, estimate_cycles, tile_order
from mmair.passes.matmul_plan import plan_matmul
from mmair.passes.pass_errors import PassOpError
from mmair.tools.opt import main as opt_main
from tests.unit.pto_testing import COMBOS, check_matmul, lower, matmul_text, parse, random_operand

G = 64  # every loop has several trips, remainders in M, N and K


def _op(text: str):
    _, module = parse(text)
    matmul = next(op for op in module.walk() if isinstance(op, pto.MatmulOp))
    return matmul, pto.target_of(matmul)


def _run(text: str, options: str, inputs: dict, blocks: int = 1) -> np.ndarray:
    module = lower(text, f"mmair-lower{{{options}}}")
    result = run_module(module, inputs=dict(inputs), sync_check=True, blocks=blocks)
    return result.outputs["c"]


def _inputs(seed: int, lhs: str, rhs: str, acc: str, m: int, n: int, k: int, ta: bool, tb: bool,
            bias: bool) -> dict:
    rng = np.random.default_rng(seed)
    inputs = {"a": random_operand(rng, lhs, (k, m) if ta else (m, k)),
              "b": random_operand(rng, rhs, (n, k) if tb else (k, n))}
    if bias:
        inputs["bias"] = random_operand(rng, acc, (n,))
    return inputs


@settings(max_examples=25, deadline=None)
@given(
    m=st.integers(1, 260),
    n=st.integers(1, 260),
    k=st.integers(1, 300),
    combo=st.sampled_from([c for c in COMBOS if c[1] != "s4"]),
    ta=st.booleans(),
    tb=st.booleans(),
    bias=st.booleans(),
    rm=st.integers(1, 3),
    rn=st.integers(1, 2),
    chunk=st.sampled_from([0, 2]),
    slots=st.sampled_from([1, 2]),
    seed=st.integers(0, 2**16),
)
def test_l1_tiles_give_the_bits_of_the_plain_tiling_and_run_clean(
        m, n, k, combo, ta, tb, bias, rm, rn, chunk, slots, seed):
    target, lhs, rhs, out = combo
    acc = pto.matmul_accumulator(isa.get_target(target), lhs, rhs)
    if m % G == 1 and (ta or not isa.get_target(target).gemv_disable):
        m += 1  # a one-row panel: transposed A refuses it, tile-m-l1 needs disable_gemv
    text = matmul_text(m, n, k, lhs, rhs, out, target, ta, tb, acc if bias else None)
    plain = f"tile-m={G} tile-n={G} tile-k={G} multi-buffer={slots}" + \
        (f" tile-k-l1={chunk * G}" if chunk else "")
    l1 = f"{plain} tile-m-l1={rm * G} tile-n-l1={rn * G}"
    matmul, t = _op(text)
    plan = plan_matmul(matmul, t, G, G, G, slots, tile_k_l1=chunk * G, tile_m_l1=rm * G,
                       tile_n_l1=rn * G)
    assert plan.subtiled == (rm > 1 and m > G or rn > 1 and n > G)
    if not plan.subtiled:  # an L1 tile of one L0 tile: exactly the plain lowering
        assert str(lower(text, f"mmair-lower{{{l1}}}")) == str(lower(text, f"mmair-lower{{{plain}}}"))
        return
    inputs = _inputs(seed, lhs, rhs, acc, m, n, k, ta, tb, bias)
    np.testing.assert_array_equal(_run(text, l1, inputs), _run(text, plain, inputs))


@pytest.mark.parametrize("case", [
    (300, 200, 100, "f16", "f16", "f32", "a2", False, False, True),
    (130, 333, 70, "f16", "f16", "f16", "a2", True, True, False),
    (257, 130, 96, "bf16", "bf16", "f32", "a5", True, False, True),
    (100, 190, 200, "s8", "s8", "s32", "a2", False, True, False),
])
def test_l1_tiles_equal_numpy(case):
    *shape_types, ta, tb, bias = case
    check_matmul(*shape_types, ta, tb, bias, pipeline="mmair-lower{tile-m=64 tile-n=64 tile-k=32 "
                 "tile-m-l1=128 tile-n-l1=128 tile-k-l1=64 multi-buffer=2}")


def test_an_l1_tile_is_loaded_once_and_moved_to_l0_tile_by_tile():
    text = matmul_text(256, 256, 2048, "f16", "f16", "f32")  # no panel of A or B fits L1
    plan = plan_matmul(*_op(text), 128, 128, 64, tile_k_l1=256, tile_m_l1=256)
    assert plan.subtiled and plan.sub_tiles == (2, 1) and plan.a_l1().shape == (256, 256)
    assert not plan.a_panel and not plan.b_whole and plan.copies(plan.c_l0c()) == 2
    module = lower(text, "pto-tile-matmul{tile-m=128 tile-n=128 tile-k=64 tile-k-l1=256 "
                         "tile-m-l1=256},pto-assign-addresses,pto-insert-sync")
    kinds = [s.kind for s in run_module(module, timing_only=True).timeline.slices()]
    # 2 L1 tiles (256 x 128) x 8 chunks, one A and one B load each; 4 steps per chunk, each
    # moving the 2 L0 tiles of A and a B tile for each: 2 x 8 x 4 x 2 moves of each operand
    assert kinds.count("mte_gm_l1") == 2 * 8 * 2
    assert kinds.count("mte_l1_l0a") == kinds.count("mte_l1_l0b") == 2 * 8 * 4 * 2
    assert kinds.count("mad") == 4 and kinds.count("fixpipe") == 4


def test_tile_m_l1_must_be_a_multiple_of_tile_m_and_a_one_row_panel_is_refused():
    text = matmul_text(256, 256, 128, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match=r"requires tile-m-l1 to be a multiple of tile-m = 64 "
                                          r"\(an L1 tile holds whole L0 tiles\), got 96"):
        plan_matmul(*_op(text), 64, 64, 64, tile_m_l1=96)
    row = matmul_text(129, 64, 64, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match=r"tile-m-l1 = 128 with a one-row panel \(M = 129"):
        plan_matmul(*_op(row), 64, 64, 64, tile_m_l1=128)
    big = matmul_text(512, 512, 64, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match=r"do not fit l0c: C tile 128x128xf32 \(nz\) 4 x "):
        plan_matmul(*_op(big), 128, 128, 64, tile_m_l1=256, tile_n_l1=256)


@pytest.mark.parametrize("option", ["l1-slots", "l0c-slots"])
def test_slots_per_buffer_are_set_by_hand_and_keep_the_bits(option, tmp_path, capsys):
    text = matmul_text(200, 300, 500, "f16", "f16", "f32")
    matmul, target = _op(text)
    role = "A" if option == "l1-slots" else "C"
    kwargs = {option.replace("-", "_"): 1}
    one = choose_plan(matmul, target, 64, 64, 64, multi_buffer=2, **kwargs)
    two = choose_plan(matmul, target, 64, 64, 64, multi_buffer=2)
    buf = one.a_l1() if role == "A" else one.c_l0c()
    assert one.slots(buf) == 1 and two.slots(buf) == 2
    inputs = _inputs(3, "f16", "f16", "f32", 200, 300, 500, False, False, False)
    tiles = "tile-m=64 tile-n=64 tile-k=64"
    np.testing.assert_array_equal(_run(text, f"{tiles} {option}=1", inputs),
                                  _run(text, tiles, inputs))
    path = tmp_path / "mm.mlir"
    path.write_text(text)
    assert opt_main([str(path), "-p", f"mmair-lower{{{option}=3}}"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"{path}: error: pto-tile-matmul: {option} must be 0 (chosen), 1 or 2, got 3")


def test_l0c_slots_2_where_two_do_not_fit_is_an_error():
    text = matmul_text(512, 512, 64, "f16", "f16", "f32")
    with pytest.raises(PassOpError, match=r"l0c-slots = 2 do not fit l0c: C tile 256x128xf32 \(nz\) 2 x "):
        choose_plan(*_op(text), 256, 128, 64, multi_buffer=2, l0c_slots=2)


def test_swizzle_orders_the_tiles_like_catlass_and_keeps_the_bits():
    # strips of 2 rows walked column by column, the second strip right to left
    assert tile_order(3, 3, 2) == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2),
                                   (2, 2), (2, 1), (2, 0)]
    assert tile_order(3, 3, 1) == [(i, j) for i in range(3) for j in range(3)]
    text = matmul_text(330, 270, 90, "f16", "f16", "f32")
    inputs = _inputs(5, "f16", "f16", "f32", 330, 270, 90, False, False, False)
    tiles = "tile-m=64 tile-n=64 tile-k=64 blocks=5"
    plain = _run(text, f"{tiles} swizzle=1", inputs, blocks=5)
    for swizzle in (2, 3, 8):
        np.testing.assert_array_equal(_run(text, f"{tiles} swizzle={swizzle}", inputs, blocks=5),
                                      plain)


def test_the_model_takes_a_swizzle_only_where_the_operands_do_not_fit_l2():
    text = matmul_text(1024, 4096, 512, "f16", "f16", "f32")  # M x N x K; A 1 MB, B 4 MB
    matmul, target = _op(text)
    table = costs("a2")
    fits = choose_plan(matmul, target, 128, 128, 64, multi_buffer=2, blocks=24, table=table)
    assert fits.swizzle == 1  # everything fits L2: the estimates tie, row-major is kept
    # 2 MB: a row of 32 tiles streams all of B through L2 again for each of the 8 rows of A;
    # strips of s rows read it 8 / s times (the timeline: 107,593 cycles row-major, 90,121 with
    # strips of 2, docs/costs.md)
    small = replace(table, l2_bytes=2 * 2**20)
    chosen = choose_plan(matmul, target, 128, 128, 64, multi_buffer=2, blocks=24, table=small)
    assert chosen.swizzle > 1
    assert estimate_cycles(chosen, small) < estimate_cycles(replace(chosen, swizzle=1), small)


def test_a_split_kernel_keeps_one_l0c_slot_and_l0c_slots_2_is_an_error():
    # the tile loop of a split kernel has block-index bounds: multi_buffer_matmul leaves its
    # L0C one slot, so the plan (and the estimate) must say so
    text = matmul_text(1024, 1024, 512, "f16", "f16", "f32")
    matmul, target = _op(text)
    split = choose_plan(matmul, target, 128, 128, 64, multi_buffer=2, blocks=24)
    assert split.slots(split.c_l0c()) == 1
    assert split.slots(split.a_l1()) == 2  # the operand tiles keep theirs (the K loop)
    one = choose_plan(matmul, target, 128, 128, 64, multi_buffer=2)
    assert one.slots(one.c_l0c()) == 2
    with pytest.raises(PassOpError, match=r"requires l0c-slots in 0 \(chosen\), 1 with "
                                          r"blocks = 24 \(a split kernel's L0C keeps one slot"):
        choose_plan(matmul, target, 128, 128, 64, multi_buffer=2, blocks=24, l0c_slots=2)


@pytest.mark.parametrize("shape,options", [
    ((512, 512, 512), "tile-k-l1=256"),
    ((1024, 1024, 256), ""),
])
def test_the_estimate_of_one_l0c_slot_is_within_8_percent_of_the_timeline(shape, options):
    # one L0C slot chains the cube to the fixpipe, the loads run ahead (docs/costs.md, "One
    # L0C slot"); the estimate charged work + fixpipe per tile, 35 % over at 1024 x 1024 x 256
    m, n, k = shape
    text = matmul_text(m, n, k, "f16", "f16", "f32")
    pipeline = f"tile-m=128 tile-n=128 tile-k=64 {options} multi-buffer=2 l0c-slots=1"
    cycles = run_module(lower(text, f"mmair-lower{{{pipeline}}}"),
                        timing_only=True).timeline.summary().total
    plan = choose_plan(*_op(text), 128, 128, 64, multi_buffer=2, l0c_slots=1,
                       tile_k_l1=256 if options else 0)
    assert plan.slots(plan.c_l0c()) == 1
    assert abs(estimate_cycles(plan, costs("a2")) / cycles - 1) < 0.08
