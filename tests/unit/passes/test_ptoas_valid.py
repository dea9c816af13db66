"""PTOAS valid regions: the tile ops of a `.pto` kernel take their sizes from v_row / v_col (static,
alloc_tile's operands, pto.set_validshape), so a tail tile moves and multiplies only its valid part
(numpy directly, not the IR's own reference)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import arith
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module

KERNEL = "tests/filecheck/ptoas/valid_region.pto"


def _converted(text: str):
    module = Parser(ptoas_context(), text).parse_module()
    convert_module(module)
    module.verify()
    return module


@pytest.mark.parametrize("m", [40, 17, 1])
def test_a_run_time_valid_region_moves_and_multiplies_only_its_rows(m: int) -> None:
    with open(KERNEL) as f:
        module = _converted(f.read())
    rng = np.random.default_rng(m)
    a = rng.integers(-4, 5, (40, 40)).astype(np.float16)
    b = rng.integers(-4, 5, (40, 24)).astype(np.float16)
    c = np.full((40, 24), 7.0, np.float32)
    out = run_module(module, inputs={"a": a, "b": b, "c": c, "m": m}, sync_check=True).outputs["c"]
    want = c.copy()
    want[:m] = a[:m].astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(out, want)


def test_each_op_takes_its_sizes_from_the_tile_it_reads_them_from() -> None:
    with open(KERNEL) as f:
        module = _converted(f.read())
    mad = next(op for op in module.walk() if isinstance(op, pto.MadOp))
    fix = next(op for op in module.walk() if isinstance(op, pto.FixpipeOp))
    # m from the left tile's alloc operand %m (16 where it is 1: a2's TMATMUL avoids GEMV mode),
    # n from the right tile's static valid=40x24
    select = mad.m.owner
    assert isinstance(select, arith.SelectOp) and select.rhs.name_hint == "m"
    assert mad.n.owner.value.value.data == 24
    assert mad.k.owner.value.value.data == 40
    assert fix.m.name_hint == "m"  # the accumulator's region after its set_validshape


def test_a_valid_region_set_in_a_loop_after_its_use_is_refused() -> None:
    text = """module {
  func.func @k() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %t = pto.alloc_tile valid_row = %c32 valid_col = %c32 : !pto.tile_buf<mat, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>
    %u = pto.alloc_tile valid_row = %c32 valid_col = %c32 : !pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=row_major, slayout=row_major>
    scf.for %i = %c0 to %c1 step %c1 {
      pto.set_validshape %u, %c16, %c32 : !pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=row_major, slayout=row_major>
      pto.tmov ins(%t : !pto.tile_buf<mat, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>) outs(%u : !pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=row_major, slayout=row_major>)
    }
    pto.tmov ins(%t : !pto.tile_buf<mat, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>) outs(%u : !pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=row_major, slayout=row_major>)
    return
  }
}"""
    # the move inside the loop, after the set, is known; the one after the loop is not
    with pytest.raises(ConversionError, match=r"'pto.tmov' op requires the valid region of operand "
                                              r"1 where it runs: the tile has a valid region set "
                                              r"inside a loop"):
        _converted(text)


def test_tiles_allocated_inside_the_branches_of_an_if_with_a_set_are_their_own() -> None:
    """Only a set_validshape changes a tile the scf.if does not allocate (a pypto pattern: the
    branches allocate their own tiles at fixed addresses)."""
    from mmair.dialects.ptoas.ops import TMovOp
    from mmair.passes.ptoas_valid import valid_regions

    mat = "!pto.tile_buf<mat, 32x32xf16, valid=?x?, blayout=col_major, slayout=row_major>"
    left = "!pto.tile_buf<left, 32x32xf16, valid=?x?, blayout=row_major, slayout=row_major>"
    text = f"""func.func @k(%p: i1) {{
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %t = pto.alloc_tile valid_row = %c32 valid_col = %c32 : {mat}
  scf.if %p {{
    %u = pto.alloc_tile valid_row = %c16 valid_col = %c32 : {left}
    pto.set_validshape %t, %c16, %c32 : {mat}
    pto.tmov ins(%t : {mat}) outs(%u : {left})
  }} else {{
    %v = pto.alloc_tile valid_row = %c32 valid_col = %c32 : {left}
    pto.set_validshape %t, %c16, %c32 : {mat}
    pto.tmov ins(%t : {mat}) outs(%v : {left})
  }}
  %w = pto.alloc_tile valid_row = %c32 valid_col = %c32 : {left}
  pto.tmov ins(%t : {mat}) outs(%w : {left})
  return
}}"""
    fn = Parser(ptoas_context(), text).parse_module().body.block.first_op
    regions = valid_regions(fn.body.block)
    moves = [op for op in fn.walk() if isinstance(op, TMovOp)]
    sizes = [tuple(v.owner.value.value.data for v in regions[(mv, 0)]) for mv in moves]
    assert sizes == [(16, 32)] * 3  # both branches set %t alike: known after the if
