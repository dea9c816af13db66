"""isa/ascend/costs: the cost formulas and their per-target constants (docs/costs.md)."""

from dataclasses import replace

import pytest

from mmair.isa.ascend import costs
from mmair.isa.ascend.targets import TARGET_NAMES


def test_every_target_has_costs_with_a_source():
    for name in TARGET_NAMES:
        c = costs.costs(name)
        assert c.clock_mhz > 0 and c.clock_source
        for rate in (c.gm_read, c.gm_write, c.l1_l0a, c.l1_l0b, c.l0c_out):
            assert rate.bytes_per_cycle > 0 and rate.source


def test_a2_rates_are_the_cann_910b_platform_figures():
    c = costs.costs("a2")
    assert (c.clock_mhz, c.gm_read.bytes_per_cycle, c.l1_l0a.bytes_per_cycle,
            c.l1_l0b.bytes_per_cycle, c.l0c_out.bytes_per_cycle) == (1800, 32, 512, 256, 256)


def test_cube_step_per_element_type():
    # one 16x16x16 f16 step, one 16x32x16 s8 step, one 16x8x16 f32 step per cycle
    assert costs.mad_steps(16, 16, 16, "f16") == 1
    assert costs.mad_steps(16, 16, 32, "s8") == 1
    assert costs.mad_steps(16, 16, 16, "f32") == 2
    # 128 x 128 x 256 f16: 8 * 8 * 16 fractal products
    assert costs.mad_steps(128, 128, 256, "f16") == 1024
    assert costs.mad_cycles("a2", 128, 128, 256, "f16") == 1024 + costs.MAD_LATENCY


def test_move_cycles_are_latency_plus_bytes_over_rate():
    assert costs.move_cycles("a2", "mte_gm_l1", 32 * 1000) == costs.GM_LATENCY + 1000
    assert costs.move_cycles("a2", "mte_l1_l0a", 512 * 10) == costs.ONCHIP_LATENCY + 10
    assert costs.move_cycles("a2", "mte_l1_l0b", 256 * 10) == costs.ONCHIP_LATENCY + 10
    with pytest.raises(ValueError, match="no move cost for op kind 'mad'"):
        costs.move_cycles("a2", "mad", 1)


def test_fixpipe_to_gm_is_bound_by_the_l2_write_rate_and_quantization_adds_latency():
    # a2: GM writes land in the write-back L2 at l2_write_rate = 86 B/cycle (Ascend910B ini)
    plain = costs.fixpipe_cycles("a2", 86 * 100, "gm", quantized=False)
    assert plain == costs.FIX_LATENCY + costs.GM_LATENCY + 100
    no_l2 = replace(costs.costs("a2"), l2_bytes=0)  # without L2: the DDR write rate, 32 B/cycle
    assert costs.fixpipe_cycles(no_l2, 32 * 100, "gm", quantized=False) == plain
    assert costs.fixpipe_cycles("a2", 86 * 100, "gm", quantized=True) == plain + costs.QUANT_LATENCY
    assert costs.fixpipe_cycles("a2", 256 * 100, "l1", quantized=False) == costs.FIX_LATENCY + 100


def test_clock_converts_cycles_to_seconds_and_unknown_target_is_an_error():
    assert costs.seconds("a2", 1_800_000) == pytest.approx(1e-3)
    with pytest.raises(ValueError, match="no cost table for Ascend target 'x'"):
        costs.costs("x")
