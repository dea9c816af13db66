"""The small sharp edges of the command lines, one test each: a runaway loop stops within seconds
by default with a message naming --max-ops; mmair-tune names only options it has; a repeated
`--input NAME` is refused; a parse error at the end of the input has a message; translating a
module with no kernel is an error; mmair-desc refuses out-of-range words, buffer starts and
sizes; mmair-show layout refuses a layout the verifier rejects for the space and writes the
format its `-o` names; `--blocks 0` and `--blocks -1` exit alike; a target of the other hardware
family is refused."""

from __future__ import annotations

import io
import re
import sys
import time
from pathlib import Path

import pytest

from mmair.executor.runner import DEFAULT_MAX_OPS
from mmair.tools import desc, opt, run, show, translate, tune

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SPIN = """func.func @spin() -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000000 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %acc, %c1 : index
    scf.yield %s : index
  }
  func.return %r : index
}
"""


def _one_error(capsys, code: int, expected_code: int = 1) -> str:
    out, err = capsys.readouterr()
    assert code == expected_code, err
    lines = err.splitlines()
    assert lines and "error: " in lines[0] and "Traceback" not in err
    assert len([line for line in lines if "error:" in line]) == 1
    return err


def test_a_runaway_loop_stops_within_seconds_by_default_naming_max_ops(tmp_path, capsys):
    path = tmp_path / "spin.mlir"
    path.write_text(SPIN)
    t0 = time.perf_counter()
    err = _one_error(capsys, run.main([str(path)]))
    assert time.perf_counter() - t0 < 30  # about 5 s on one core of the reference machine
    assert f"execution exceeded {DEFAULT_MAX_OPS} operations (raise the limit with --max-ops)" in err
    assert err.startswith(f"{path}:6:5: error: 'arith.addi' op ")


def test_the_run_help_states_the_default_op_limit():
    text = run.build_parser().format_help()
    assert f"default {DEFAULT_MAX_OPS}" in " ".join(text.split())


def test_mmair_tune_names_only_options_it_has(capsys):
    known = {o for a in tune.build_parser()._actions for o in a.option_strings}  # noqa: SLF001
    import inspect

    text = inspect.getsource(tune)
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))
    foreign = {"--timing-only"}  # mmair-run's mode, named as such in the docstring
    assert named - foreign <= known, named - foreign - known
    assert tune.main(["16", "16", "16", "--tiles-m", "100000", "--workers", "1"]) == 1
    err = capsys.readouterr().err
    assert set(re.findall(r"--[a-z][a-z0-9-]*", err)) <= known


def test_a_repeated_input_name_is_refused(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(SPIN)
    err = _one_error(capsys, run.main([str(path), "--input", "n=1", "--input", "n=2"]), 2)
    assert err == "mmair-run: error: --input n given twice ('1' and '2'): give each argument one value\n"


def test_a_parse_error_at_the_end_of_the_input_has_a_message(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("builtin.module {\n"))
    err = _one_error(capsys, opt.main(["-"]))
    first = err.splitlines()[0]
    assert first == ("<stdin>:2:1: error: unexpected end of input (a '{' or region not closed?) "
                     "in block definition")


def test_translating_a_module_without_a_kernel_is_an_error(tmp_path, capsys):
    path = tmp_path / "empty.mlir"
    path.write_text("builtin.module {\n}\n")
    err = _one_error(capsys, translate.main(["--target", "ptx", str(path)]))
    assert err == (f"{path}: error: no kernel to translate: the module holds no func.func (each "
                   "top-level func.func becomes one kernel)\n")


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["decode", "idesc", "-99999999999"], 1,
     "error: idesc = -99999999999 is below the signed 32-bit range; legal: 0x0..0xffffffff, or "
     "as a signed 32-bit constant -2147483648..-1"),
    (["decode", "smem", "-9223372036854775809"], 1, "is below the signed 64-bit range"),
    (["decode", "idesc", "0x1ffffffff"], 1, "is wider than 32 bits"),
    (["decode", "smem", "0x4000404000010040", "--buffer-start", "-16"], 2,
     "argument --buffer-start: -16 is not an SMEM address; legal: 0x0..0x3ffff"),
    (["decode", "smem", "0x4000404000010040", "--buffer-start", "0x40000"], 2,
     "argument --buffer-start: 0x40000 is not an SMEM address"),
    (["decode", "zcmask", "0x0", "--m", "-32", "--n", "64"], 2,
     "argument --m: expected a positive integer, got -32"),
    (["decode", "zcmask", "0x0", "--m", "32", "--n", "0"], 2,
     "argument --n: expected a positive integer, got 0"),
])
def test_desc_refuses_negative_and_out_of_range_words_buffer_starts_and_sizes(argv, code, message,
                                                                              capsys):
    err = _one_error(capsys, desc.main(argv), code)
    assert message in err


@pytest.mark.parametrize(("layout", "space", "legal"), [
    ("nd", "l0b", "zn"), ("zz", "l0c", "nz"), ("nz", "ub", "nd"), ("dn", "l1", "nz, zz, nd")])
def test_show_layout_refuses_a_layout_the_verifier_rejects_in_that_space(layout, space, legal,
                                                                         tmp_path, capsys):
    out = tmp_path / "l.png"
    err = _one_error(capsys, show.main(["layout", "--shape", "16x16", "--layout", layout,
                                        "--space", space, "-o", str(out)]))
    assert err == (f"error: layout {layout} is not legal for a tile in {space} on a2; legal: "
                   f"{legal}\n")
    assert not out.exists()


@pytest.mark.parametrize(("suffix", "magic"), [("png", b"\x89PNG"), ("svg", b"<?xml"),
                                               ("pdf", b"%PDF")])
def test_show_writes_the_format_its_output_names(suffix, magic, tmp_path, capsys):
    out = tmp_path / f"l.{suffix}"
    assert show.main(["layout", "--shape", "16x16", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(magic)
    capsys.readouterr()


def test_show_refuses_an_output_suffix_it_cannot_write(tmp_path, capsys):
    out = tmp_path / "l.jpeg2"
    err = _one_error(capsys, show.main(["layout", "--shape", "16x16", "-o", str(out)]), 2)
    assert "the picture format is taken from the suffix: .png, .svg, .pdf" in err


def test_blocks_zero_and_minus_one_exit_alike(capsys):
    kernel = str(EXAMPLES / "matmul_f16.mlir")
    errors = []
    for value in ("0", "-1"):
        errors.append(_one_error(capsys, run.main([kernel, "--blocks", value]), 2))
    assert errors == [f"mmair-run: error: argument --blocks: must be >= 1, got {v}\n"
                      for v in (0, -1)]


def test_a_target_of_the_other_hardware_family_is_refused(capsys):
    ascend = str(EXAMPLES / "matmul_f16.mlir")
    err = _one_error(capsys, run.main([ascend, "--target", "sm_100a"]))
    assert err.startswith(f"{ascend}: error: --target sm_100a is a Blackwell (tcgen05) target; "
                          "this is an Ascend (pto) kernel: give one of a2, ")
    blackwell = str(EXAMPLES / "tcgen05_gemm_kloop.mlir")
    err = _one_error(capsys, run.main([blackwell, "--target", "a2"]))
    assert "--target a2 is an Ascend (pto) target; this is a Blackwell (tcgen05) kernel" in err


def test_mmair_opt_refuses_a_target_of_the_other_hardware_family_too(capsys):
    ascend = str(EXAMPLES / "matmul_f16.mlir")
    err = _one_error(capsys, opt.main([ascend, "--target", "sm_100a"]))
    assert err == (f"{ascend}: error: --target sm_100a is a Blackwell (tcgen05) target; this is an "
                   "Ascend (pto) kernel: give one of a2, a3, a5, 310p, 200i_a2, 910\n")
    blackwell = str(EXAMPLES / "tcgen05_gemm_kloop.mlir")
    err = _one_error(capsys, opt.main([blackwell, "--target", "a2"]))
    assert "--target a2 is an Ascend (pto) target; this is a Blackwell (tcgen05) kernel" in err
    assert opt.main([ascend, "--target", "a3"]) == 0  # the module's own pto.target is kept
    assert 'pto.target = "a2"' in capsys.readouterr().out
