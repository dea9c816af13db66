"""mmair-run: inputs, outputs, checks, stats and error reporting."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from mmair.tools.run import main

EXAMPLE = pathlib.Path(__file__).parents[3] / "examples" / "gemm_f16_128.mlir"

GEMM = """builtin.module attributes {pto.target = "a2"} {
  func.func @gemm(%a: memref<30x70xf16>, %b: memref<70x48xf16>, %c: memref<30x48xf32>) {
    %m = arith.constant 30 : index
    %k = arith.constant 70 : index
    %n = arith.constant 48 : index
    %a1 = pto.alloc : !pto.tile<l1, 30x70xf16, nz>
    %b1 = pto.alloc : !pto.tile<l1, 70x48xf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 30x70xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 70x48xf16, zn>
    %c0 = pto.alloc : !pto.tile<l0c, 30x48xf32, nz>
    pto.mte_gm_l1 %a, %a1, %m, %k : memref<30x70xf16>, !pto.tile<l1, 30x70xf16, nz>
    pto.mte_gm_l1 %b, %b1, %k, %n : memref<70x48xf16>, !pto.tile<l1, 70x48xf16, zz>
    pto.set_flag mte2 -> mte1, 0
    pto.wait_flag mte2 -> mte1, 0
    pto.mte_l1_l0a %a1, %a0, %m, %k : !pto.tile<l1, 30x70xf16, nz>, !pto.tile<l0a, 30x70xf16, zz>
    pto.mte_l1_l0b %b1, %b0, %k, %n : !pto.tile<l1, 70x48xf16, zz>, !pto.tile<l0b, 70x48xf16, zn>
    pto.set_flag mte1 -> m, 0
    pto.wait_flag mte1 -> m, 0
    pto.mad %a0, %b0, %c0, %m, %n, %k : !pto.tile<l0a, 30x70xf16, zz>, !pto.tile<l0b, 70x48xf16, zn>, !pto.tile<l0c, 30x48xf32, nz>
    pto.set_flag m -> fix, 0
    pto.wait_flag m -> fix, 0
    pto.fixpipe %c0, %c, %m, %n : !pto.tile<l0c, 30x48xf32, nz>, memref<30x48xf32>
    func.return
  }
}
"""

FAULT = """builtin.module {
  func.func @k(%a: memref<64x64xf16>, %r: index) {
    %n16 = arith.constant 16 : index
    %t = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    pto.mte_gm_l1 %a, %t, %r, %n16 : memref<64x64xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
"""


@pytest.fixture
def gemm(tmp_path):
    path = tmp_path / "gemm.mlir"
    path.write_text(GEMM)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_inputs_outputs_and_check(tmp_path, gemm, capsys):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((30, 70)).astype(np.float16)
    b = rng.standard_normal((70, 48)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    np.save(tmp_path / "ref.npy", ref)
    code, out, err = run(capsys, gemm, "--input", f"a={tmp_path / 'a.npy'}", "--input",
                         f"b={tmp_path / 'b.npy'}", "--output", f"c={tmp_path / 'c.npy'}",
                         "--check", f"c={tmp_path / 'ref.npy'}", "--rtol", "1e-4", "--atol", "1e-4")
    assert code == 0, err
    assert out.startswith("check c: max abs error ") and out.rstrip().endswith(": ok")
    np.testing.assert_allclose(np.load(tmp_path / "c.npy"), ref, rtol=1e-4, atol=1e-4)


def test_check_mismatch_exits_1(tmp_path, gemm, capsys):
    np.save(tmp_path / "zero.npy", np.zeros((30, 48), np.float32))
    code, out, _ = run(capsys, gemm, "--check", f"c={tmp_path / 'zero.npy'}")
    assert code == 1 and "FAILED" in out and "max abs error" in out


def test_check_numpy_and_stats_on_the_example(capsys):
    # Small integer inputs: every product and sum is exact, so the error is 0.
    code, out, err = run(capsys, EXAMPLE, "--check-numpy", "--stats", "--seed", "3", "--inputs", "int")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("check c = numpy reference of the IR: max abs error 0, max rel error 0;")
    assert "  l0c: 65536 / 131072" in lines
    assert "  pto.mad: 1" in lines


def test_check_numpy_rejects_a_non_matmul(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(FAULT)
    code, _, err = run(capsys, path, "--check-numpy", "--input", "r=1")
    assert code == 1 and "error: --check-numpy: @k writes no GM memref, nothing to compare" in err


def test_runtime_fault_reports_location_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(FAULT)
    out_file = tmp_path / "a_out.npy"
    code, out, err = run(capsys, path, "--input", "r=40", "--output", f"a={out_file}")
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"{path}:5:5: error: 'pto.mte_gm_l1' op requires rows in [0, 32] (rows of the destination "
        "tile %t), got 40",
        "    pto.mte_gm_l1 %a, %t, %r, %n16 : memref<64x64xf16>, !pto.tile<l1, 32x32xf16, nz>",
        "    ^",
    ]
    assert not out_file.exists() and list(tmp_path.glob(".mmair-run-*")) == []


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda d: ("missing.npy", None), "error: cannot read '{p}' for 'a': No such file or directory"),
        (lambda d: ("junk.npy", b"not numpy"), "error: '{p}' for 'a' is not a .npy file"),
        (lambda d: ("shape.npy", np.zeros((3, 3), np.float16)),
         "error: input 'a' has shape 3x3, the argument needs 30x70"),
        (lambda d: ("dtype.npy", np.zeros((30, 70), np.float32)),
         "error: input 'a' has dtype float32, the argument is memref<30x70xf16> (numpy float16)"),
        (lambda d: ("complex.npy", np.zeros((30, 70), np.complex64)),
         "error: '{p}' for 'a' holds complex values (complex64); mmair's data is real"),
        (lambda d: ("str.npy", np.array(["x"])),
         "error: '{p}' for 'a' holds strings (<U1); mmair needs numbers"),
        (lambda d: ("void.npy", np.zeros((30, 70), "V4")),
         "error: '{p}' for 'a' has raw 4-byte items (|V4), but f16 needs 2-byte items"),
    ],
)
def test_bad_npy_gives_one_error_line(tmp_path, gemm, capsys, make, message):
    name, content = make(tmp_path)
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        np.save(path, content)
    code, out, err = run(capsys, gemm, "--input", f"a={path}")
    assert code == 1 and out == ""
    assert err.strip() == message.format(p=path)


def test_unknown_argument_name(gemm, capsys):
    code, _, err = run(capsys, gemm, "--input", "zz=1")
    assert code == 1 and err.strip() == "error: no argument named 'zz' in @gemm (arguments: a, b, c)"


def test_integer_literal_for_a_memref_argument(gemm, capsys):
    """The old message named a dtype (int64) the user never gave."""
    code, _, err = run(capsys, gemm, "--input", "a=1")
    assert code == 1
    assert err.strip().startswith("error: --input a=1: 'a' is a memref<") and \
        err.strip().endswith("argument, give a .npy file (an integer literal is for index and "
                             "integer arguments)")


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--bogus"], "mmair-run: error: unrecognized arguments: --bogus"),
        (["--input", "a"], "mmair-run: error: --input expects NAME=FILE.npy, got 'a'"),
        (["--target", "a9"], "mmair-run: error: unknown target 'a9'"),
        (["-p", "no-such-pass"], "mmair-run: error: bad pipeline: unknown pass 'no-such-pass'"),
        (["--seed", "-1"], "mmair-run: error: argument --seed: must be >= 0, got -1"),
        (["--seed", "x"], "mmair-run: error: argument --seed: expected a non-negative integer"),
        (["--rtol", "nan"], "mmair-run: error: argument --rtol: must be a finite number >= 0"),
        (["-p", "pto-tile-matmul{tile_m=x}"],
         "mmair-run: error: bad pipeline: pass 'pto-tile-matmul' option 'tile-m' expects integer"),
    ],
)
def test_bad_arguments_exit_2(gemm, capsys, argv, message):
    code, _, err = run(capsys, gemm, *argv)
    assert code == 2 and err.strip().startswith(message)


def test_parse_and_verify_errors_exit_1(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text(GEMM.replace("%m, %n, %k : !pto.tile<l0a", "%m, %n, %k, %k : !pto.tile<l0a"))
    code, _, err = run(capsys, path)
    assert code == 1 and err.startswith(f"{path}:19:38: error: Expected ':'")
    path.write_text(GEMM.replace("%n = arith.constant 48", "%n = arith.constant 0"))
    code, _, err = run(capsys, path)
    assert code == 1 and "error: 'pto.mte_gm_l1' op requires cols to be positive, got 0" in err


def test_pipeline_and_entry(gemm, capsys):
    code, out, err = run(capsys, gemm, "-p", "canonicalize,cse", "--entry", "gemm", "--check-numpy")
    assert code == 0, err
    assert out.rstrip().endswith(": ok")


def test_scalar_inputs_and_missing_entry(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(FAULT)
    code, _, err = run(capsys, path, "--input", "r=16")
    assert code == 0, err
    code, _, err = run(capsys, path)
    assert code == 1 and err.strip() == "error: argument 'r' (index) needs a value: give it with --input r=VALUE"
    code, _, err = run(capsys, path, "--entry", "nope", "--input", "r=1")
    assert code == 1 and "no function named 'nope'" in err


def test_console_script(gemm):
    exe = pathlib.Path(sys.executable).parent / "mmair-run"
    proc = subprocess.run([str(exe), str(gemm), "--check-numpy"], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("check c = numpy reference of the IR")
