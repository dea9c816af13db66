"""mmair-tune with the cost model's report and calibration (tools/tune.py; docs/costs.md): each
configuration's cube utilization, L2 hit rate and bound, `--costs`, `--blocks`, tile-k-l1, and a
winner that is one `mmair-lower{...}` pipeline lowering exactly as tuned."""

import json

from mmair.executor.runner import run_module
from mmair.tools import tune
from mmair.tools.diagnostics import SourceFile
from mmair.tools.opt import MmairOptMain


def _lowered(text: str, pipeline: str):
    tool = MmairOptMain(args=["-p", pipeline])
    module = tool.parse_and_verify(text, SourceFile("<t>", text), 0)
    tool.pipeline.apply(tool.ctx, module)
    return module


def test_json_rows_carry_the_report_and_the_winner_lowers_as_tuned(capsys):
    code = tune.main(["256", "256", "512", "--tiles-m", "128", "--tiles-n", "128", "--tiles-k",
                      "64", "--tiles-k-l1", "0,256", "--workers", "1", "--json", "--no-verify",
                      "--progress", "off"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"]
    labels = {r["config"]["tile_k_l1"] for r in out["results"]}
    assert labels == {0, 256}  # the chunk is searched
    best = out["results"][0]
    assert set(best["report"]) == {"cube_utilization", "bytes_moved", "l2_hit_rate", "rooflines",
                                   "bound"}
    assert out["pipeline"].startswith("mmair-lower{tile-m=128 tile-n=128 tile-k=64")
    text = tune.matmul_source(256, 256, 512)
    summary = run_module(_lowered(text, out["pipeline"]), timing_only=True).timeline.summary()
    assert summary.total == best["cycles"]


def test_costs_reach_every_estimate_and_a_bad_file_is_one_error(tmp_path, capsys):
    args = ["128", "128", "256", "--tiles-m", "128", "--tiles-n", "128", "--tiles-k", "128",
            "--tiles-k-l1", "0", "--buffers", "1", "--workers", "1", "--json", "--no-verify",
            "--progress", "off"]
    assert tune.main(args) == 0
    plain = json.loads(capsys.readouterr().out)["results"][0]["cycles"]
    slow = tmp_path / "slow.json"
    slow.write_text(json.dumps({"mad_latency": 1000}))
    assert tune.main([*args, "--costs", str(slow)]) == 0
    # two mads of 128 x 128 x 128 in the K loop: 2 x 984 more cycles on the serial chain
    assert json.loads(capsys.readouterr().out)["results"][0]["cycles"] >= plain + 2 * 984
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"mad_latency": "x"}))
    assert tune.main([*args, "--costs", str(bad)]) == 1
    assert "error: --costs: cost figure 'mad_latency' must be a number, got \"x\"" in \
        capsys.readouterr().err


def test_blocks_are_tuned_on_that_many_cores(capsys):
    code = tune.main(["512", "512", "128", "--tiles-m", "128", "--tiles-n", "128", "--tiles-k",
                      "128", "--tiles-k-l1", "0", "--tiles-m-l1", "0", "--tiles-n-l1", "0",
                      "--swizzle", "0", "--buffers", "2", "--blocks", "4",
                      "--workers", "1", "--no-verify", "--progress", "off"])
    out = capsys.readouterr().out
    assert code == 0
    assert "pipeline of rank 1 (mmair-opt / mmair-run -p): 'mmair-lower{tile-m=128 tile-n=128 " \
           "tile-k=128 multi-buffer=2 blocks=4}'" in out


def test_an_automatic_tile_k_with_chunks_is_a_legal_search(capsys):
    # tile-k 0 (automatic) and a chunk list: found by the CLI fuzzer as a modulo by zero
    code = tune.main(["32", "48", "64", "--tiles-m", "32", "--tiles-n", "48", "--tiles-k", "0",
                      "--tiles-k-l1", "0,64", "--buffers", "1", "--workers", "1", "--no-verify",
                      "--progress", "off"])
    assert code == 0
    assert "pipeline of rank 1 (mmair-opt / mmair-run -p): 'mmair-lower{tile-m=32 tile-n=48 " \
           "tile-k=64 multi-buffer=1}'" in capsys.readouterr().out
