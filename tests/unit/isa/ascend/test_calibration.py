"""isa/ascend/calibration: `--costs` overrides and presets of the cycle model (docs/costs.md)."""

import json
import re

import pytest

from mmair.isa.ascend import costs
from mmair.isa.ascend.calibration import PRESETS, CalibrationError, calibrate, load_spec


def test_a_number_figure_and_part_of_a_data_path_are_replaced_and_the_rest_kept():
    table = calibrate("a2", {"mad_latency": 20, "gm_read": {"bytes_per_cycle": 40}})
    base = costs.costs("a2")
    assert table.mad_latency == 20
    assert table.gm_read.bytes_per_cycle == 40 and table.gm_read.latency == base.gm_read.latency
    assert table.l1_l0a == base.l1_l0a and table.clock_mhz == base.clock_mhz
    assert "calibrated (gm_read)" in table.gm_read.source


def test_per_target_figures_apply_only_to_their_target_and_last():
    spec = {"l2_bytes": 1024, "targets": {"a5": {"l2_bytes": 0}}}
    assert calibrate("a5", spec).l2_bytes == 0
    assert calibrate("a2", spec).l2_bytes == 1024


def test_the_ptoisa_preset_gives_pto_isas_constants_in_bytes_per_cycle():
    table = calibrate("a2", "ptoisa")
    # pto-isa arch_config.hpp: GM_TO_L1 135 GiB/s, L1_TO_L0A 441 GiB/s at 1.85 GHz, no start-up
    assert table.clock_mhz == 1850
    assert table.gm_read.bytes_per_cycle == pytest.approx(135 * 2**30 / 1.85e9, abs=0.01)
    assert table.l1_l0a.bytes_per_cycle == pytest.approx(441 * 2**30 / 1.85e9, abs=0.01)
    assert table.gm_read.latency == 0 and table.mad_latency == 6 and table.l2_bytes == 0
    assert calibrate("a2", {"base": "ptoisa", "mad_latency": 9}).mad_latency == 9


@pytest.mark.parametrize(("spec", "message"), [
    ({"mad_latncy": 1}, "unknown cost figure 'mad_latncy' (known: clock_mhz, "),
    ({"gm_read": {"bytes_per_cycl": 4}}, "unknown cost figure 'gm_read.bytes_per_cycl' (known: "
                                         "bytes_per_cycle, latency)"),
    ({"gm_read": 4}, "cost figure 'gm_read' must be an object with keys bytes_per_cycle, latency, got 4"),
    ({"mad_latency": True}, "cost figure 'mad_latency' must be a number, got true"),
    ({"mad_latency": 1.5}, "cost figure 'mad_latency' must be an integer, got 1.5"),
    ({"l2_bytes": -1}, "cost figure 'l2_bytes' must be >= 0, got -1"),
    ({"gm_read": {"bytes_per_cycle": 0}}, "cost figure 'gm_read.bytes_per_cycle' must be >= 1e-09, got 0"),
    ({"base": "nope"}, "unknown cost preset 'base' = \"nope\" (known: ptoisa)"),
    ({"targets": {"a9": {}}}, "unknown target 'targets.a9' (known: "),
    ({"targets": {"a5": {"cores": 0}}}, "cost figure 'targets.a5.cores' must be >= 1, got 0"),
])
def test_a_bad_figure_is_an_error_naming_its_key_and_the_legal_set(spec, message):
    with pytest.raises(CalibrationError, match="^" + re.escape(message)):
        calibrate("a2", spec)


def test_a_costs_file_is_read_and_bad_files_name_the_problem(tmp_path):
    good = tmp_path / "c.json"
    good.write_text(json.dumps({"mad_latency": 3}))
    assert load_spec(str(good)) == {"mad_latency": 3}
    assert load_spec("ptoisa") == "ptoisa" and "ptoisa" in PRESETS
    bad = tmp_path / "bad.json"
    bad.write_text('{"a":\n')
    with pytest.raises(CalibrationError, match=r"bad.json:2:1: invalid JSON: Expecting value"):
        load_spec(str(bad))
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    with pytest.raises(CalibrationError, match=r"list.json must hold a JSON object, got list"):
        load_spec(str(listed))
    with pytest.raises(CalibrationError, match=r"no such file or cost preset 'missing.json' "
                                               r"\(presets: ptoisa\)"):
        load_spec("missing.json")


def test_a_device_a_folder_or_a_huge_file_is_refused_before_reading(tmp_path):
    with pytest.raises(CalibrationError, match=r"^'/dev/zero' is not a regular file$"):
        load_spec("/dev/zero")  # an endless stream: never read
    with pytest.raises(CalibrationError, match=r"is not a regular file$"):
        load_spec(str(tmp_path))
    big = tmp_path / "big.json"
    big.write_text(" " * (2 << 20))
    with pytest.raises(CalibrationError, match=r"is larger than 1048576 bytes; a cost file holds "
                                               r"a few figures$"):
        load_spec(str(big))
