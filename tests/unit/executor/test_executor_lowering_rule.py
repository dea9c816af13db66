"""Ops that have a lowering are run lowered: the executor carries no second implementation, and
such an op reached unlowered is one error, with or without the sync checker."""

from pathlib import Path

import numpy as np
import pytest
from sync_testing import parse
from xdsl.dialects.builtin import ModuleOp

from mmair.dialects import pto, tcgen05
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import make_interpreter, run_module
from mmair.tools.diagnostics import op_location
from mmair.tools.run import main

LOWERED_OPS = [pto.MatmulOp, tcgen05.MakeIdescOp, tcgen05.MakeSmemDescOp, tcgen05.MakeZcmaskOp]


@pytest.mark.parametrize("op_class", LOWERED_OPS, ids=lambda c: c.name)
def test_executor_has_no_implementation_of_lowered_ops(op_class: type) -> None:
    interp, _ = make_interpreter(ModuleOp([]), "a2")
    implemented = interp._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
    assert op_class not in implemented
    assert pto.MadOp in implemented and tcgen05.MmaOp in implemented


KERNEL = """func.func @k(%out: memref<1xi32>) {
  %w = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %c0 = arith.constant 0 : index
  memref.store %w, %out[%c0] : memref<1xi32>
  func.return
}
"""


def test_unlowered_op_points_at_the_pipeline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    # mmair-run lowers such a module by itself; with no passes (-p '') the executor refuses it.
    assert main([str(path), "-p", ""]) == 1
    err = capsys.readouterr().err
    assert f"{path}:2:" in err
    assert "no implementation for op 'tcgen05.make_idesc'" in err and "-p mmair-lower" in err


def test_lowered_descriptor_is_the_encoded_word(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    out = tmp_path / "out.npy"
    assert main([str(path), "-p", "mmair-lower", "--output", f"out={out}"]) == 0
    # PTX instruction-descriptor tables: f16 dense, D f32, M = 128, N = 256 -> 0x08400010
    assert np.load(out).view(np.uint32)[0] == 0x08400010


def _racy_gemm_beside_a_matmul() -> str:
    """examples/gemm_f16_128.mlir without its `wait_flag mte1 -> m` (and the now unbalanced set),
    in a module whose other function holds a pto.matmul: mmair-run lowers the module."""
    text = (Path(__file__).parents[3] / "examples" / "gemm_f16_128.mlir").read_text()
    racy = text.replace("    pto.set_flag mte1 -> m, 0         // L0A and L0B filled\n", "")
    racy = racy.replace("    pto.wait_flag mte1 -> m, 0\n", "")
    assert racy.count("mte1 -> m") == 0
    matmul = """  func.func @mm(%x: memref<32x32xf16>, %y: memref<32x32xf16>, %z: memref<32x32xf32>) {
    pto.matmul %x, %y, %z : memref<32x32xf16>, memref<32x32xf16>, memref<32x32xf32>
    func.return
  }
"""
    head, tail = racy.rsplit("}", 1)
    return head + matmul + "}" + tail


def test_auto_lowering_leaves_a_hand_written_race_to_the_checker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "racy.mlir"
    path.write_text(_racy_gemm_beside_a_matmul())
    # mmair-lower tiles and synchronises @mm only; @gemm keeps its missing flag and races.
    assert main([str(path), "--entry", "gemm"]) == 1
    err = capsys.readouterr().err
    assert ":26:5: error: 'pto.mad' op race on l0a bytes [0, 32768) (%l0a)" in err
    assert "'pto.mte_l1_l0a' at " in err and "(pipe mte1) writes them" in err
    # The matmul function itself is lowered, synchronised and runs clean.
    assert main([str(path), "--entry", "mm"]) == 0


_LOWERED = """builtin.module attributes {pto.target = "a2"} {
  func.func @f(%a: memref<16x16xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf32>) {
    pto.matmul %a, %b, %c : memref<16x16xf16>, memref<16x16xf16>, memref<16x16xf32>
    func.return
  }
}
"""


@pytest.mark.parametrize("sync_check", [False, True])
def test_op_with_a_lowering_is_one_error_with_or_without_the_checker(sync_check):
    with pytest.raises(ExecutionError, match=r"no implementation for op 'pto\.matmul' in the "
                                             r"executor; ops with a lowering run after it") as info:
        run_module(parse(_LOWERED), sync_check=sync_check)
    assert op_location(info.value.op)[1:] == (3, 5)
