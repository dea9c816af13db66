"""benchmarks/ptoas_corpus.py classifies a PTOAS test corpus as its table says: cube files only,
split-file parts one by one, PTOAS's expectation from its RUN and CHECK lines, and what mmair did
(run clean, checker report, rejected with PTOAS's reason or another, refused op kinds grouped)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _script():
    spec = importlib.util.spec_from_file_location("ptoas_corpus", ROOT / "benchmarks" /
                                                  "ptoas_corpus.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["ptoas_corpus"] = module
    spec.loader.exec_module(module)
    return module


SYNCALL_PARTS = """// RUN: split-file %s %t
// RUN: not ptoas %t/small.pto 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not ptoas %t/elem.pto 2>&1 | FileCheck %s --check-prefix=ELEM
// SMALL: error: 'pto.syncall' op expects gm_workspace to contain at least 16 i32 elements (64 bytes), but static capacity is 15
// ELEM: error: 'pto.syncall' op expects gm_workspace element type to be {{i32}}

//--- small.pto
module attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k(%gm: !pto.tensor_view<15xi32>) {
    pto.syncall(%gm : !pto.tensor_view<15xi32>) mode = #pto.sync_all_mode<soft>, core_type = #pto.sync_core_type<aic_only>
    return
  }
}

//--- elem.pto
module attributes {pto.kernel_kind = #pto.kernel_kind<cube>} {
  func.func @k(%gm: !pto.ptr<f32, gm>) {
    pto.syncall(%gm : !pto.ptr<f32, gm>) mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aic_only>
    return
  }
}
"""


def _checkout(tmp_path: Path) -> Path:
    lit = tmp_path / "test" / "lit"
    lit.mkdir(parents=True)
    corpus = ROOT / "tests" / "filecheck" / "ptoas"
    (lit / "matmul.pto").write_text("// RUN: ptoas %s\n" + (corpus / "matmul_tile.pto").read_text())
    (lit / "racy.pto").write_text("// RUN: ptoas %s\n" + (corpus / "race_mte2_mte1.pto").read_text())
    (lit / "syncall_invalid.pto").write_text(SYNCALL_PARTS)
    (lit / "mx.pto").write_text("// RUN: ptoas %s\nfunc.func @k() {\n  pto.tmatmul.mx ins() outs()\n"
                                "  %t = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f16, rows=16, cols=16>\n}\n")
    (lit / "vector.pto").write_text("// RUN: ptoas %s\nfunc.func @k() {\n  pto.tadd ins() outs()\n}\n")
    return tmp_path


def test_the_survey_counts_each_unit_by_what_ptoas_expects_and_what_mmair_did(tmp_path) -> None:
    script = _script()
    result = script.survey(_checkout(tmp_path))
    assert (result["pto_files"], result["cube_files"], result["units"]) == (5, 4, 5)
    assert result["valid"] == {"units": 3, "accepted": 2, "clean": 1, "checker": 1,
                               "run_stopped": 0}
    # the element type check of a hard syncall is not PTOAS's order: hard-with-operands first
    assert result["invalid"] == {"units": 2, "rejected_same_reason": 1,
                                 "rejected_other_reason": 1, "accepted": 0}
    stops = dict(result["stops"])
    assert stops["refused: MX tile op"] == 1
    names = {o["name"]: o["stage"] for o in result["outcomes"]}
    assert names["syncall_invalid.pto:small.pto"] == "rejected"
    assert names["racy.pto"] == "checker" and names["matmul.pto"] == "clean"


def test_the_table_names_the_commit_and_the_counts(tmp_path) -> None:
    script = _script()
    table = script.markdown(script.survey(_checkout(tmp_path)), "abc123")
    assert table.startswith("PTOAS at abc123: 5 `.pto` files under test/, 4 cube-related, 5 units.")
    assert "| valid | 3 | accepted 2: run clean 1, checker reports 1, run stopped 0 |" in table
    assert "| refused: MX tile op | 1 |" in table


def test_a_bare_check_message_is_the_reason_when_no_line_says_error() -> None:
    """PTOAS's VPTO tests often CHECK the message without `error:`; LABEL and NOT lines are no
    reasons."""
    corpus = _script()
    text = ("// RUN: not ptoas %s 2>&1 | FileCheck %s\n// CHECK-LABEL: func.func @k\n"
            "// CHECK-NOT: warning\n// CHECK: duplicate {{sat/nosat}} clause\n")
    assert corpus._reasons(text, "CHECK") == ["duplicate"]  # the longest literal part
    text = text + "// CHECK: error: 'pto.mad' op requires l0a\n"
    assert corpus._reasons(text, "CHECK") == ["'pto.mad' op requires l0a"]


def test_size_arguments_take_the_largest_window_of_their_axis():
    corpus = _script()
    text = """func.func @k(%a: !pto.ptr<f16>, %m: index, %n: index, %off: index, %num: i32) {
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %v = pto.make_tensor_view %a, shape = [%m, %n], strides = [%n, %c1] : !pto.tensor_view<?x?xf16>
  %p = pto.partition_view %v, offsets = [%off, %c1], sizes = [%c16, %c64] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<16x64xf16>
  %q = pto.partition_view %v, offsets = [%off, %c1], sizes = [%c64, %c16] : !pto.tensor_view<?x?xf16> -> !pto.partition_tensor_view<64x16xf16>
  return
}"""
    assert corpus.size_arguments(text) == {"m": 64, "n": 64}
    assert corpus.scalar_inputs(text) == ["--input", "m=64", "--input", "n=64", "--input", "off=0",
                                          "--input", "num=1"]


def test_scalar_inputs_leave_pypto_spmd_block_arguments_to_the_launch() -> None:
    corpus = _script()
    text = """func.func @k(%a: !pto.ptr<f16>, %off: index, %__pypto_spmd_block_idx: i32,
    %__pypto_spmd_block_num: i32) {
  return
}"""
    assert corpus.scalar_inputs(text) == ["--input", "off=0"]
