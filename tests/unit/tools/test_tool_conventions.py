"""Tool conventions (issue 17): output paths, stdin, --version, --help from the pass classes,
pass-option errors in the documented spelling, the user's umask, MLIR-style --verify-diagnostics,
return values, --json, automatic mmair-lower."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from mmair.tools import opt, run

EXAMPLES = pathlib.Path(__file__).parents[3] / "examples"
BIN = pathlib.Path(sys.executable).parent
GOOD = "func.func @f(%a: i32) -> i32 {\n  func.return %a : i32\n}\n"


def call(tool, capsys, *argv):
    code = tool.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ---- output paths ------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["opt", "run"])
def test_output_to_a_missing_directory_or_a_directory(tmp_path, capsys, tool):
    example = EXAMPLES / "gemm_f16_128.mlir"
    for target, reason in ((tmp_path / "missing" / "o", "no such directory"),
                           (tmp_path, "it is a directory")):
        if tool == "opt":
            code, out, err = call(opt, capsys, example, "-o", target)
        else:
            code, out, err = call(run, capsys, example, "--output", f"c={target}")
        assert code == 1, err
        assert err.count("\n") == 1 and err.startswith("error: cannot write output") and reason in err
        assert "Traceback" not in err


@pytest.mark.parametrize("tool", ["opt", "run", "translate"])
def test_output_to_a_fifo_is_written_in_place_and_a_symlink_is_followed(tmp_path, capsys, tool):
    """A special file (/dev/null, a FIFO) is opened and written, never replaced by a renamed
    temporary file (run as root, `-o /dev/null` used to turn /dev/null into a regular file); a
    symlink stays a link and its target gets the output."""
    import stat
    import threading

    from mmair.tools import translate

    example = EXAMPLES / ("tcgen05_gemm_kloop.mlir" if tool == "translate" else "gemm_f16_128.mlir")

    def invoke(target):
        if tool == "opt":
            return call(opt, capsys, example, "-o", target)
        if tool == "run":
            return call(run, capsys, example, "--output", f"c={target}")
        return call(translate, capsys, "--target", "ptx", example, "-o", target)

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    code, _out, err = invoke(fifo)
    reader.join(timeout=60)
    assert code == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and got and len(got[0]) > 100
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "target")
    code, _out, err = invoke(link)
    assert code == 0, err
    assert link.is_symlink() and (tmp_path / "target").stat().st_size == len(got[0])
    assert call(opt, capsys, EXAMPLES / "gemm_f16_128.mlir", "-o", os.devnull)[0] == 0


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_output_files_get_the_users_umask(tmp_path, capsys, umask):
    old = os.umask(umask)
    try:
        assert call(opt, capsys, EXAMPLES / "gemm_f16_128.mlir", "-o", tmp_path / "o.mlir")[0] == 0
        assert call(run, capsys, EXAMPLES / "gemm_f16_128.mlir", "--output",
                    f"c={tmp_path / 'c.npy'}")[0] == 0
    finally:
        os.umask(old)
    for name in ("o.mlir", "c.npy"):
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o666 & ~umask


# ---- input, version, help -------------------------------------------------------------------------


def test_dash_reads_stdin():
    proc = subprocess.run([str(BIN / "mmair-opt"), "-"], input=GOOD, capture_output=True, text=True)
    assert proc.returncode == 0 and "func.func @f(%a : i32) -> i32" in proc.stdout.replace("%a:", "%a :")


@pytest.mark.parametrize("argv", [["mmair-run", "-"], ["mmair-translate", "--target", "ptx", "-"],
                                  ["mmair-show", "memory", "-", "-o", "m.png"]])
def test_dash_reads_stdin_in_every_tool_that_reads_ir(argv, tmp_path):
    example = "gemm_f16_128.mlir" if argv[0] != "mmair-translate" else "tcgen05_gemm_kloop.mlir"
    proc = subprocess.run([str(BIN / argv[0]), *argv[1:]], input=(EXAMPLES / example).read_text(),
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith({"mmair-run": "ran @gemm", "mmair-translate": ".version",
                                   "mmair-show": "wrote m.png"}[argv[0]])


@pytest.mark.parametrize("tool", ["mmair-opt", "mmair-run", "mmair-desc", "mmair-tune",
                                  "mmair-show", "mmair-translate"])
def test_version(tool):
    from importlib.metadata import version

    proc = subprocess.run([str(BIN / tool), "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"{tool} (mmair {version('mmair')}, xdsl {version('xdsl')})"


def test_help_lists_every_pass_with_its_options_and_defaults(capsys):
    import dataclasses

    from mmair.passes import get_all_passes

    code, out, _ = call(opt, capsys, "--help")
    assert code == 0
    for name, factory in get_all_passes().items():
        assert f"\n  {name}\n" in out
        cls = factory()
        for f in dataclasses.fields(cls):
            assert f"      {f.name.replace('_', '-')}=" in out
    assert "      tile-m=integer  (default: 0)" in out
    assert "--target TARGET" in out and "--mmair-target" not in out
    assert "(one of a2, a3, a5, 310p, 200i_a2, 910, sm_100a" in " ".join(out.split())


@pytest.mark.parametrize(("pipeline", "message"), [
    ("pto-tile-matmul{tile_m=x}", "pass 'pto-tile-matmul' option 'tile-m' expects integer, got 'x'"),
    ("pto-tile-matmul{tilem=3}",
     "pass 'pto-tile-matmul' has no option 'tilem' (options: target, tile-m, tile-n, tile-k"),
    ("no-such-pass", "bad pipeline: unknown pass 'no-such-pass'"),
])
def test_pass_option_errors_use_the_documented_spelling(capsys, pipeline, message):
    code, _, err = call(opt, capsys, EXAMPLES / "matmul_f16.mlir", "-p", pipeline)
    assert code == 2 and err.startswith(f"mmair-opt: error: {message}") and "tile_m" not in err


def test_target_option_spelling(capsys):
    code, out, _ = call(opt, capsys, EXAMPLES / "matmul_f16.mlir", "--target", "a5", "-p",
                        "pto-tile-matmul")
    assert code == 0  # the module's own pto.target (a2) stays
    code, _, err = call(opt, capsys, EXAMPLES / "matmul_f16.mlir", "--target", "b9")
    assert code == 2 and "argument --target: invalid choice: 'b9'" in err


# ---- --verify-diagnostics ----------------------------------------------------------------------------


ANNOTATED = """func.func @f(%a: i32) -> i64 {
  // expected-error @below {{'func.return' op}}
  func.return %a : i32
}
// -----
func.func @g(%a: i32) -> i64 {
  func.return %a : i32  // expected-error {{expected operand types}}
}
// -----
func.func @h(%a: i32) -> i32 {
  func.return %a : i32  // expected-error {{never produced}}
}
"""


def test_expected_error_annotations(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(ANNOTATED)
    code, out, err = call(opt, capsys, path, "--split-input-file", "--verify-diagnostics")
    lines = err.strip().splitlines()
    assert code == 1
    # chunk 1 matches; chunk 2's message differs (unexpected error + unmatched expectation);
    # chunk 3 produces nothing.
    assert any(f"{path}:7:3: error: unexpected error: 'func.return' op" in x for x in lines)
    assert f"{path}:7:1: error: expected error \"expected operand types\" was not produced (on line 7)" in lines
    assert f"{path}:11:1: error: expected error \"never produced\" was not produced (on line 11)" in lines
    assert len(lines) == 3
    path.write_text(ANNOTATED.split("// -----")[0])
    code, out, err = call(opt, capsys, path, "--split-input-file", "--verify-diagnostics")
    assert (code, err) == (0, "")


# ---- mmair-run results ---------------------------------------------------------------------------


def test_run_prints_return_values(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "gather_mask.mlir")
    assert code == 0, err
    # 128 u16 elements, pattern 2 keeps the odd ones: 64.
    assert out.splitlines()[0] == "result 0: 64 : index"


def test_run_json_summary(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "gemm_f16_128.mlir", "--json", "--check-numpy")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["entry"] == "gemm" and summary["ok"] is True
    assert summary["outputs"]["c"] == {"shape": [128, 128], "dtype": "float32"}
    (check,) = summary["checks"]
    assert check["ok"] and check["label"].startswith("c = ") and check["elements"] == 128 * 128
    assert summary["stats"]["op_counts"]["pto.mad"] == 1
    code, out, _ = call(run, capsys, EXAMPLES / "gather_mask.mlir", "--json")
    assert json.loads(out)["results"] == [64]


def test_run_lowers_automatically_and_says_so_with_v(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "matmul_f16.mlir", "-v", "--stats")
    assert code == 0, err
    assert "running mmair-lower first: the module holds pto.matmul" in err
    assert "  pto.mad: 6" in out
    code, out, err = call(run, capsys, EXAMPLES / "matmul_f16.mlir")
    assert code == 0 and err == ""
    # Nothing asked for: one line says the run happened and how to see its data.
    assert out.startswith("ran @matmul on a2 (") and out.count("\n") == 1
    assert out.rstrip().endswith("ops); nothing saved: --output NAME=FILE.npy writes a GM memref "
                                 "(a, b, c), --check-numpy compares them with numpy")
    # -p '' runs no pass: pto.matmul has no executor implementation.
    code, _, err = call(run, capsys, EXAMPLES / "matmul_f16.mlir", "-p", "")
    assert code == 1 and "no implementation for op 'pto.matmul'" in err


def test_one_target_option_for_both_hardware_families(tmp_path, capsys):
    text = (EXAMPLES / "tcgen05_mma_f16.mlir").read_text().replace(
        ' attributes {tcgen05.target = "sm_100a"}', "")
    path = tmp_path / "k.mlir"
    path.write_text(text)
    code, out, _ = call(opt, capsys, path, "--target", "sm_103a")
    assert code == 0 and 'tcgen05.target = "sm_103a"' in out
    code, out, _ = call(opt, capsys, EXAMPLES / "matmul_f16.mlir", "--target", "a5")
    assert code == 0 and 'pto.target = "a2"' in out  # the module's own target stays
    code, out, err = call(run, capsys, path, "--target", "sm_100f", "--check-numpy")
    assert code == 0, err
    assert out.startswith("check d = numpy tcgen05.mma reference")
    code, _, err = call(run, capsys, path, "--target", "b9")
    assert code == 2 and "unknown target 'b9', expected one of a2, " in err and "sm_100a" in err


# ---- options of one hardware family on a kernel of the other (found as a new user) -------------


def test_numerics_on_a_pto_kernel_is_one_error(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "gemm_f16_128.mlir", "--numerics=exact")
    assert code == 1 and out == ""
    assert err == (f"{EXAMPLES / 'gemm_f16_128.mlir'}: error: --numerics=exact selects the "
                   "tcgen05.mma arithmetic; this kernel has no tcgen05 op\n")


def test_blocks_on_a_tcgen05_kernel_is_one_error(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "tcgen05_mma_f16.mlir", "--blocks", "2")
    assert code == 1 and out == ""
    assert err.endswith("error: --blocks 2 launches Ascend AI Cores; this is a tcgen05 kernel, "
                        "which runs on one CTA\n") and err.count("\n") == 1


def test_a_tcgen05_kernel_reports_its_own_target(capsys):
    # examples/tcgen05_mma_f16.mlir says tcgen05.target = "sm_100a"; it was shown as "a2".
    code, out, _ = call(run, capsys, EXAMPLES / "tcgen05_mma_f16.mlir", "--stats")
    assert code == 0 and out.splitlines()[0] == "target: sm_100a"
    code, out, _ = call(run, capsys, EXAMPLES / "tcgen05_mma_f16.mlir", "--json")
    assert code == 0 and json.loads(out)["target"] == "sm_100a"


def test_check_coverage_says_when_every_byte_was_written(capsys):
    code, out, err = call(run, capsys, EXAMPLES / "multicore_copy.mlir", "--blocks", "4",
                          "--check-coverage", "c", "--check-coverage", "c")
    assert code == 0, err
    assert out == "coverage c: all 128 bytes written\n"  # c is memref<64xf16>


@pytest.mark.parametrize("fmt", ["llvm", "riscv-asm", "wat", "mps"])
def test_output_formats_other_than_mlir_are_a_bad_option(capsys, fmt):
    # xDSL's backends print only their own dialects: on pto IR they raised a traceback (llvm,
    # riscv-asm, mps) or printed nothing with exit 0 (wat).
    code, out, err = call(opt, capsys, EXAMPLES / "gemm_f16_128.mlir", "--output-format", fmt)
    assert code == 2 and out == ""
    assert err == (f"mmair-opt: error: argument --output-format: invalid choice: '{fmt}' "
                   "(choose from 'mlir')\n")


def test_empty_input_is_an_empty_module(tmp_path, capsys):
    """As in mlir-opt: an empty file (or one with only comments) is `builtin.module {}`, not
    xDSL's 'Could not parse entire input!'; mmair-run then says there is nothing to run."""
    path = tmp_path / "empty.mlir"
    path.write_text("// nothing yet\n")
    code, out, err = call(opt, capsys, path)
    assert (code, out, err) == (0, "builtin.module {\n}\n", "")
    code, out, err = call(run, capsys, path)
    assert code == 1 and err == "error: the module has no function with a body to run\n"


@pytest.mark.parametrize("tool", ["opt", "run", "show", "translate"])
def test_an_endless_input_device_is_one_error(capsys, monkeypatch, tool):
    """/dev/zero (or /dev/full) as the input never ends: the tools read at most
    MAX_INPUT_CHARS (the CLI fuzzer's /dev/full input ran out of memory)."""
    from mmair.tools import diagnostics, show, translate

    monkeypatch.setattr(diagnostics, "MAX_INPUT_CHARS", 4096)
    argv = {"opt": (opt, ["/dev/zero"]), "run": (run, ["/dev/zero"]),
            "show": (show, ["memory", "/dev/zero", "-o", os.devnull]),
            "translate": (translate, ["--target", "ptx", "/dev/zero"])}[tool]
    code, out, err = call(argv[0], capsys, *argv[1])
    assert code == 1 and out == ""
    assert err == ("/dev/zero: error: cannot read input: [Errno 27] more than 4096 characters "
                   "(an endless device such as /dev/zero?)\n")
