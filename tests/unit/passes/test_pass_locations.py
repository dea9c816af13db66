"""Ops a pass makes keep the location of the op they come from (issue 28 item 5): a lowered
`pto.matmul`'s loads, moves, mads, stores and flags, and a race or a timing line in them, point at
the `pto.matmul` line, not at the function."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.passes import PassPipeline

from mmair.dialects import get_all_dialects
from mmair.passes import get_all_passes
from mmair.tools.diagnostics import op_location, parse_source
from mmair.tools.run import main as run_main

KERNEL = """builtin.module attributes {pto.target = "a2"} {
  func.func @mm(%a: memref<64x64xf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>) {
    pto.matmul %a, %b, %c : memref<64x64xf16>, memref<64x64xf16>, memref<64x64xf32>
    func.return
  }
}
"""
MATMUL = ("k.mlir", 3, 5)


def _lowered(pipeline: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = parse_source(ctx, KERNEL, "k.mlir")
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    return module


@pytest.mark.parametrize("pipeline", [
    "mmair-lower",
    "mmair-lower{multi-buffer=2}",
    "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync",
    "mmair-lower,pto-expand-params",
])
def test_every_op_a_lowering_makes_points_at_the_matmul(pipeline: str) -> None:
    module = _lowered(pipeline)
    made = [op for op in module.walk() if op.dialect_name() in ("pto", "scf", "memref")]
    assert made
    assert {op_location(op) for op in made} == {MATMUL}, pipeline


def test_a_race_in_a_lowered_matmul_names_the_matmul_line(tmp_path, capsys) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    code = run_main([str(path), "-p",
                     "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(f"{path}:3:5: error: 'pto.mte_l1_l0a' op race on l1 bytes"), err
    assert f"'pto.mte_gm_l1' at {path}:3:5 (pipe mte2" in err
