"""PTOAS kernels whose tensor shapes are kernel arguments (passes/ptoas_shapes.py): mmair-run sizes
GM from the `--input NAME=V` values and the result equals numpy; the errors are one diagnostic."""

import pathlib

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr

from mmair.passes.ptoas_shapes import size_value
from mmair.tools.run import main

KERNEL = pathlib.Path(__file__).parents[2] / "filecheck" / "ptoas" / "dyn_shape.pto"


@pytest.mark.parametrize(("m", "n", "k"), [(32, 64, 96), (64, 32, 64)])
def test_run_time_shapes_equal_numpy(tmp_path, capsys, m, n, k):
    rng = np.random.default_rng(m + n + k)
    a = rng.uniform(-2, 2, (m, k)).astype(np.float16)
    b = rng.uniform(-2, 2, (k, n)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "c.npy"
    assert main([str(KERNEL), "--input", f"m={m}", "--input", f"n={n}", "--input", f"k={k}",
                 "--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}",
                 "--output", f"c={out}"]) == 0
    got = np.load(out)
    assert got.shape == (m, n)
    np.testing.assert_allclose(got, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-3)
    assert "error" not in capsys.readouterr().err


def _run_error(capsys, *argv: str) -> str:
    assert main([str(KERNEL), *argv]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("error:") == 1
    return err


def test_missing_size_argument_is_named(capsys):
    err = _run_error(capsys, "--input", "m=32", "--input", "n=32")
    assert "dyn_shape.pto:18:5: error: 'pto.make_tensor_view' op has a shape given by the kernel " \
           "argument 'k': mmair-run needs its value (--input k=N)" in err
    assert "shape = [%m, %k]" in err  # the source line


def test_a_size_value_that_is_no_integer_and_no_file_is_named(capsys):
    assert main([str(KERNEL), "--input", "m=abc", "--input", "n=32", "--input", "k=32"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("mmair-run: error: --input m=abc: 'abc' is neither an integer size "
                           "nor an existing .npy file")


def test_npy_shape_disagreeing_with_size_arguments(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.ones((32, 64), np.float16))
    err = _run_error(capsys, "--input", "m=32", "--input", "n=64", "--input", "k=96",
                     "--input", f"a={tmp_path / 'a.npy'}")
    assert "dyn_shape.pto:18:5: error: input 'a' has shape 32x64, the tensor view's shape [m, k] " \
           "with m = 32, k = 96 needs 32x96" in err


def test_non_positive_size_argument(capsys):
    err = _run_error(capsys, "--input", "m=0", "--input", "n=32", "--input", "k=32")
    assert "'pto.make_tensor_view' op requires a shape of positive sizes with fewer than 2^63 " \
           "elements (i64 memref strides), got [0, 32]" in err


def test_window_outside_the_sized_tensor(capsys):
    err = _run_error(capsys, "--input", "m=40", "--input", "n=32", "--input", "k=32")
    assert "out of bounds for memref of shape 40x32" in err


@pytest.mark.parametrize(("op", "a", "b", "want"), [
    (arith.DivSIOp, -7, 2, -3), (arith.CeilDivSIOp, 7, 2, 4), (arith.CeilDivUIOp, 7, 2, 4),
    (arith.DivUIOp, 7, 2, 3), (arith.MinSIOp, 7, 2, 2), (arith.MaxSIOp, 7, 2, 7),
])
def test_size_value_folds(op, a, b, want):
    lhs = arith.ConstantOp(IntegerAttr(a, IndexType()))
    rhs = arith.ConstantOp(IntegerAttr(b, IndexType()))
    assert size_value(op(lhs.result, rhs.result).result) == want


BLOCK_NUM_KERNEL = KERNEL.parent / "block_num_shape.pto"


@pytest.mark.parametrize("blocks", [1, 3])
def test_a_shape_from_get_block_num_takes_the_launch_size(tmp_path, blocks):
    rng = np.random.default_rng(blocks)
    a = rng.uniform(-2, 2, (32 * blocks, 32)).astype(np.float16)
    b = rng.uniform(-2, 2, (32, 32)).astype(np.float16)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    out = tmp_path / "c.npy"
    assert main([str(BLOCK_NUM_KERNEL), "--blocks", str(blocks), "--input", f"a={tmp_path / 'a.npy'}",
                 "--input", f"b={tmp_path / 'b.npy'}", "--output", f"c={out}"]) == 0
    np.testing.assert_allclose(np.load(out), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-5, atol=1e-3)


def test_an_npy_of_another_launch_size_is_named(tmp_path, capsys):
    np.save(tmp_path / "a.npy", np.ones((64, 32), np.float16))
    assert main([str(BLOCK_NUM_KERNEL), "--blocks", "3", "--input", f"a={tmp_path / 'a.npy'}"]) == 1
    err = capsys.readouterr().err
    assert "error: input 'a' has shape 64x32, the tensor view's shape [get_block_num * 32, 32] " \
           "with get_block_num = 3 needs 96x32" in err
