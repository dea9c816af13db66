"""Ops a pass makes keep the location of the op they come from (issue 28 item 5): a lowered
`pto.matmul`'s loads, moves, mads, stores and flags, and a race or a timing line in them, point at
the `pto.matmul` line, not at the function."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc
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


# Every other pass that makes ops: each op it leaves has a location of its own (an op without one
# would fall back to its function's line, which names no op), and that location is a line of an
# op of the input.
TCGEN05 = """builtin.module attributes {tcgen05.target = "sm_100a"} {
  func.func @matmul(%a: memref<128x64xf16>, %b: memref<64x128xf16>, %d: memref<128x128xf32>) {
    tcgen05.matmul %a, %b, %d : memref<128x64xf16>, memref<64x128xf16>, memref<128x128xf32>
    func.return
  }
}
"""
DESCRIPTORS = """func.func @f16_dense(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %en: i1) {
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 256>
  %a = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 1024, lbo = 16, sbo = 1024, swizzle = sw128>
  %b = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0x4000, lbo = 16, sbo = 1024, swizzle = sw128>
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
"""


def _parsed(text: str, name: str):
    ctx = Context()
    for dialect, factory in get_all_dialects().items():
        ctx.register_dialect(dialect, factory)
    return ctx, parse_source(ctx, text, name)


def _own_lines(module) -> list[tuple[str, int | None]]:
    """(op name, the line of the op's own location; None when it has none)."""
    return [(op.name, op.location.line.data if isinstance(op.location, FileLineColLoc) else None)
            for op in module.walk()]


@pytest.mark.parametrize("pipeline", [
    "tcgen05-lower-matmul",
    "tcgen05-lower-matmul,tcgen05-materialize-descriptors",
    "tcgen05-lower-matmul,tcgen05-materialize-descriptors,tcgen05-raise-descriptors",
])
def test_every_op_the_tcgen05_lowering_makes_points_at_the_matmul(pipeline: str) -> None:
    ctx, module = _parsed(TCGEN05, "k.mlir")
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    made = [(name, line) for name, line in _own_lines(module)
            if name not in ("builtin.module", "func.func", "func.return")]
    assert len(made) > 100
    assert {line for _, line in made} == {3}, pipeline


@pytest.mark.parametrize("pipeline", ["tcgen05-materialize-descriptors",
                                      "tcgen05-materialize-descriptors,tcgen05-raise-descriptors"])
def test_a_descriptor_word_keeps_the_line_of_the_make_op_it_comes_from(pipeline: str) -> None:
    ctx, module = _parsed(DESCRIPTORS, "d.mlir")
    PassPipeline.parse_spec(get_all_passes(), pipeline).apply(ctx, module)
    lines = {op.results[0].name_hint: op.location.line.data for op in module.walk()
             if op.name in ("arith.constant", "tcgen05.make_idesc", "tcgen05.make_smem_desc")}
    assert lines == {"idesc": 2, "a": 3, "b": 4}, pipeline


def test_every_op_ptoas_to_mmair_makes_keeps_a_ptoas_ops_location() -> None:
    with open("tests/filecheck/ptoas/matmul_tile.pto") as f:
        text = f.read()
    ptoas_lines = {i + 1 for i, line in enumerate(text.splitlines())
                   if line.lstrip().startswith(("pto.", "%"))}
    _, module = _parsed(text, "k.pto")  # the tools' parse path converts PTOAS text
    made = [(name, line) for name, line in _own_lines(module)
            if name.startswith(("pto.", "arith.", "memref."))]
    assert any(name == "pto.mad" for name, _ in made)
    assert all(line in ptoas_lines for _, line in made), \
        [(name, line) for name, line in made if line not in ptoas_lines]
