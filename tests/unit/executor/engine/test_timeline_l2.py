"""The L2 model in the timeline (docs/costs.md, "L2 and DDR") and what `--timing` reports.
Expected cycles are derived from the published rates, not from the code under test."""

import json
from math import ceil

from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.executor.runner import run_module
from mmair.isa.ascend import costs
from mmair.tools.run import main as run_main

# %a read twice into L1: the second read finds its 64 lines of 512 bytes in L2.
TWICE = """builtin.module attributes {pto.target = "a2"} {
  func.func @twice(%a: memref<128x128xf16>) {
    %n = arith.constant 128 : index
    %l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 128x128xf16, nz>
    %l1b = pto.alloc {offset = 32768 : i64} : !pto.tile<l1, 128x128xf16, nz>
    pto.mte_gm_l1 %a, %l1, %n, %n : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
    pto.mte_gm_l1 %a, %l1b, %n, %n : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>
    func.return
  }
}
"""
TILE = 128 * 128 * 2
# a2: a hit reads at l2_read_rate = 110 B/cycle; a miss reads whole lines from DDR at this core's
# share of the chip's DDR bandwidth (ddr_read_rate 32 x 24 cores), at most its L2 read port
# (110): one core alone reads DDR at 110
HIT = costs.GM_LATENCY + ceil(TILE / 110)
MISS = HIT
SLOW_DDR = {"ddr_chip_read": 32}  # a chip whose DDR gives one core 32 B/cycle
SLOW_MISS = costs.GM_LATENCY + TILE // 32


def _module(text: str):
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return LocatingParser(ctx, text, "k.mlir").parse_module()


def _reads(result) -> list[int]:
    return [s.cycles for s in result.timeline.slices() if s.kind == "mte_gm_l1"]


def test_a_reread_hits_l2_and_costs_the_l2_rate():
    assert _reads(run_module(_module(TWICE), timing_only=True, costs=SLOW_DDR)) == \
        [SLOW_MISS, HIT]
    result = run_module(_module(TWICE), timing_only=True)
    assert _reads(result) == [MISS, HIT]
    summary = result.timeline.summary()
    assert summary.l2_hit_rate == 0.5
    assert summary.bytes_moved == {"gm_l1": 2 * TILE}
    assert summary.total == MISS + HIT  # one MTE2 pipe, in order


def test_without_l2_every_read_is_a_ddr_read():
    result = run_module(_module(TWICE), timing_only=True, costs={"l2_bytes": 0})
    assert _reads(result) == [costs.GM_LATENCY + TILE // 32] * 2
    assert result.timeline.summary().l2_hit_rate is None


def test_cores_reading_ddr_at_once_share_the_chips_bandwidth():
    one = TWICE.replace("pto.mte_gm_l1 %a, %l1b", "// ").replace(
        "// , %n, %n : memref<128x128xf16>, !pto.tile<l1, 128x128xf16, nz>\n", "")
    # two cores read at the same time; a chip limit of 32 B/cycle gives each 16
    result = run_module(_module(one), timing_only=True, blocks=2,
                        costs={"l2_bytes": 0, "ddr_chip_read": 32})
    assert _reads(result) == [costs.GM_LATENCY + TILE // 16] * 2
    alone = run_module(_module(one), timing_only=True, costs={"l2_bytes": 0, "ddr_chip_read": 32})
    assert _reads(alone) == [costs.GM_LATENCY + TILE // 32]


def test_timing_reports_utilization_bytes_l2_and_the_bound(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(TWICE)
    assert run_main([str(path), "--timing-only"]) == 0
    out = capsys.readouterr().out
    assert "  cube utilization 0.0 % (mad busy / cycles)" in out
    assert "  bytes moved: GM -> L1 65,536" in out
    assert "  L2 hit rate 50.0 % of the GM lines read" in out
    assert "  bound by mte2: its busiest core is busy 100.0 % of the cycles (cube 0.0 %, " \
           "mte1 0.0 %, fix 0.0 %)" in out
    assert run_main([str(path), "--timing-only", "--json"]) == 0
    timing = json.loads(capsys.readouterr().out)["timing"]
    assert timing["l2_hit_rate"] == 0.5 and timing["bytes_moved"] == {"gm_l1": 65536}
    assert timing["bound"] == {"roofline": "mte2", "fraction": 1.0}
    assert timing["rooflines"]["mte2"]["busy_cycles"] == MISS + HIT
    assert timing["costs"]["l2_read"] == {"bytes_per_cycle": 110, "latency": costs.GM_LATENCY}


def test_costs_file_overrides_and_bad_costs_are_one_diagnostic(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(TWICE)
    good = tmp_path / "c.json"
    good.write_text(json.dumps({"l2_read": {"bytes_per_cycle": 64}}))
    assert run_main([str(path), "--timing-only", "--json", "--costs", str(good)]) == 0
    timing = json.loads(capsys.readouterr().out)["timing"]
    assert timing["costs"]["l2_read"]["bytes_per_cycle"] == 64
    assert timing["total"] == 2 * (costs.GM_LATENCY + TILE // 64)  # the port caps the miss too
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"l2_read": {"rate": 64}}))
    assert run_main([str(path), "--timing-only", "--costs", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"{bad}: error: --costs: unknown cost figure 'l2_read.rate' (known: "
                           "bytes_per_cycle, latency)")
    assert run_main([str(path), "--costs", str(good)]) == 2
    assert "--costs sets the figures of the cycle model: it needs --timing, --timing-only or " \
           "--timeline" in capsys.readouterr().err
    assert run_main([str(path), "--timing-only", "--costs", "ptoisa"]) == 0
    assert "timing (a2, 1850 MHz)" in capsys.readouterr().out
