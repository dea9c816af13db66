"""`--json` prints one JSON object on failure too (`tools/jsonout.py`): `"ok": false`, the exit
code and the diagnostics with their locations (file, line, col, the source line), for a bad
kernel, a bad command line and a failed check of mmair-run, a bad word of mmair-desc and a sweep
of mmair-tune that finds nothing; the diagnostic text still goes to stderr."""

from __future__ import annotations

import json

import numpy as np

from mmair.tools import desc, run, tune
from mmair.tools.jsonout import diagnostics

BAD = """func.func @k(%a: memref<4xf32>) {
  %x = arith.addi %a, %a : memref<4xf32>
  func.return
}
"""


def _json(capsys) -> tuple[dict, str]:
    out, err = capsys.readouterr()
    return json.loads(out), err


def test_run_json_on_a_verifier_error_gives_ok_false_and_the_location(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(BAD)
    assert run.main([str(path), "--json"]) == 1
    doc, err = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 1 and doc["file"] == str(path)
    (diag,) = doc["diagnostics"]
    assert (diag["file"], diag["line"], diag["col"], diag["severity"]) == (str(path), 2, 3, "error")
    assert diag["source"] == "  %x = arith.addi %a, %a : memref<4xf32>"
    assert diag["message"] in err and err.startswith(f"{path}:2:3: error: ")


def test_run_json_on_bad_arguments_gives_ok_false_and_exit_2(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(BAD)
    assert run.main([str(path), "--json", "--target", "z9"]) == 2
    doc, _ = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 2
    assert doc["diagnostics"][0]["message"].startswith("unknown target 'z9'")
    assert run.main([str(path), "--json", "--no-such-option"]) == 2
    doc, _ = _json(capsys)
    assert doc["ok"] is False and "unrecognized arguments: --no-such-option" in \
        doc["diagnostics"][0]["message"]


def test_run_json_of_a_failed_check_has_ok_false_and_the_first_differences(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text('func.func @k(%a: memref<4xf32>, %c: memref<4xf32>) {\n'
                    '  "memref.copy"(%a, %c) : (memref<4xf32>, memref<4xf32>) -> ()\n'
                    '  func.return\n}\n')
    np.save(tmp_path / "a.npy", np.arange(4, dtype=np.float32))
    np.save(tmp_path / "want.npy", np.array([0, 1, 7, 3], np.float32))
    assert run.main([str(path), "--json", "--input", f"a={tmp_path / 'a.npy'}",
                     "--check", f"c={tmp_path / 'want.npy'}"]) == 1
    doc, _ = _json(capsys)
    assert doc["ok"] is False and doc["diagnostics"] == []
    assert doc["checks"][0]["first"] == [{"index": [2], "got": 2.0, "expected": 7.0}]


def test_desc_json_on_an_undecodable_word_and_a_bad_option(capsys):
    assert desc.main(["decode", "idesc", "0x1ffffffff", "--json"]) == 1
    doc, err = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 1
    assert doc["diagnostics"][0]["message"].startswith("idesc = 0x1ffffffff is wider than 32 bits")
    assert desc.main(["decode", "idesc", "0x0", "--json", "--cta-group", "3"]) == 2
    doc, _ = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 2


def test_tune_json_when_no_tiling_is_legal_gives_ok_false(capsys):
    assert tune.main(["16", "16", "16", "--tiles-m", "100000", "--workers", "1", "--json"]) == 1
    doc, _ = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 1
    assert doc["diagnostics"][0]["message"].startswith("no legal tile configuration")
    assert tune.main(["16", "16", "--json"]) == 2
    doc, _ = _json(capsys)
    assert doc["ok"] is False and doc["exit"] == 2


def test_the_diagnostic_reader_takes_every_location_form():
    text = ("f.mlir:3:7: error: bad op\n  %x = y\n      ^\n"
            "f.mlir: error: no location\nerror: bare\nmmair-run: error: prog prefixed\n"
            "f.mlir:9: warning: line only")
    found = diagnostics(text)
    assert [(d["file"], d["line"], d["col"], d["severity"], d["message"]) for d in found] == [
        ("f.mlir", 3, 7, "error", "bad op"), ("f.mlir", None, None, "error", "no location"),
        (None, None, None, "error", "bare"), (None, None, None, "error", "prog prefixed"),
        ("f.mlir", 9, None, "warning", "line only")]
    assert found[0]["source"] == "  %x = y" and found[1]["source"] is None
