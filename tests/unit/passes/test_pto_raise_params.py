"""pto-raise-params: every raw walk pto-expand-params makes on a2 is raised back to the one
tile-level op it expands (raise o expand = id, checked on the text after re-expanding), the
raised kernel runs clean under the checker with the expanded kernel's outputs, and a raw walk no
tile-level op expands to is kept (or, strict, refused with one diagnostic naming the field)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, reject, settings
from hypothesis import strategies as st
from pto_testing import EXAMPLES, inputs_for, lower, matmul_text, parse
from xdsl.dialects import scf

from mmair.dialects import pto
from mmair.dialects.pto import params as raw_params
from mmair.executor.runner import run_module
from mmair.passes.pass_errors import PassOpError
from mmair.passes.pto_raise_params import _ARITH, PtoRaiseParamsPass, _expr

RAW = tuple(op.name for op in raw_params.RAW_OPS)
TILE_LEVEL = ("pto.mte_gm_l1", "pto.mte_l1_l0a", "pto.mte_l1_l0b", "pto.mad", "pto.fixpipe")
CLEAN = "canonicalize,cse"  # what a hand-written or cleaned-up raw kernel looks like


def _raw_names(module) -> list[str]:
    return [o.name for o in module.walk() if o.name in RAW]


def _walk(module) -> list[tuple]:
    """Every op but the index arithmetic, in order, with its operands as normalized expression
    trees over the arithmetic (values named by where they are defined) and its properties."""
    names: dict = {}
    out = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    names[arg] = len(names)
        if isinstance(op, (*_ARITH, scf.YieldOp)):
            continue
        for result in op.results:
            names[result] = len(names)
        out.append((op.name, tuple(_expr(v, names) for v in op.operands),
                    tuple(sorted((k, str(v)) for k, v in op.properties.items()))))
    return out


def _outputs(module, inputs, blocks: int = 1):
    return run_module(module, inputs={k: v.copy() for k, v in inputs.items()}, sync_check=True,
                      blocks=blocks).outputs


def _check_raise(text: str, pipeline: str, blocks: int = 1, bitwise: bool = True):
    """Expanded -> raised: no raw op left, re-expanding gives the expanded walk back, and the
    raised kernel runs clean under the checker with the expanded kernel's and the unexpanded
    one's outputs bit for bit (`bitwise` False: to 1e-5, below)."""
    expanded = lower(text, f"{pipeline},pto-expand-params")
    assert _raw_names(expanded), "nothing was expanded"
    raised = lower(text, f"{pipeline},pto-expand-params,pto-raise-params")
    assert _raw_names(raised) == []
    again = lower(text, f"{pipeline},pto-expand-params,pto-raise-params,pto-expand-params")
    assert _walk(again) == _walk(expanded)
    original = lower(text, pipeline)
    inputs = inputs_for(original)
    got = _outputs(raised, inputs, blocks)
    want = _outputs(expanded, inputs, blocks)
    plain = _outputs(original, inputs, blocks)
    for reference in (want, plain):
        for name, value in reference.items():
            if bitwise:
                assert got[name].tobytes() == value.tobytes(), name
            else:
                assert np.allclose(got[name], value, rtol=1e-5, atol=1e-5), name
    return raised


A2_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.mlir")
                     if 'pto.target = "a2"' in p.read_text()
                     and any(op in p.read_text() for op in ("pto.matmul ", "pto.mad ")))


def test_the_a2_matmul_examples_are_found() -> None:
    assert {"matmul_f16.mlir", "gemm_f16_128.mlir", "gemm_kloop_double_buffer.mlir",
            "matmul_s4.mlir"} <= set(A2_EXAMPLES)


@pytest.mark.parametrize("name", A2_EXAMPLES)
def test_every_expanded_a2_example_raises_back_exactly(name) -> None:
    _check_raise((EXAMPLES / name).read_text(), "mmair-lower")


def test_a_canonicalized_expansion_raises_too() -> None:
    """The walks compare as normalized expressions: folded constants, x + 0 and x * 1 dropped."""
    text = matmul_text(32, 48, 40, "f16", "f16", "f32")
    pipeline = "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-insert-sync"
    raised = lower(text, f"{pipeline},pto-expand-params,{CLEAN},pto-raise-params")
    assert _raw_names(raised) == []
    assert all(any(o.name == name for o in raised.walk()) for name in TILE_LEVEL)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 70), n=st.integers(1, 70), k=st.integers(1, 90),
       tile=st.sampled_from([16, 32]), slots=st.sampled_from([1, 2]),
       blocks=st.sampled_from([1, 2]),
       types=st.sampled_from([("f16", "f16", "f32"), ("f32", "f32", "f32"),
                              ("bf16", "bf16", "bf16"), ("s8", "s8", "s32"),
                              ("f16", "f16", "f16")]),
       bias=st.booleans(), transpose_a=st.booleans(), transpose_b=st.booleans())
def test_random_expanded_matmuls_raise_back_exactly(m, n, k, tile, slots, blocks, types, bias,
                                                     transpose_a, transpose_b) -> None:
    """Remainders in M, N, K, every a2 type, one and two slots and cores, bias, transposes. With a
    transpose the outputs are compared to 1e-5: there pto-expand-params' own raw kernel already
    differs from the unexpanded one in the last bits (the executor's transposing moves of different
    but equivalent sizes sum in another order, ~1e-6; docs/ptoas.md, "Writing PTOAS")."""
    flags = {"transpose_a": transpose_a, "transpose_b": transpose_b}
    if bias and types[0] != "s8":
        flags["bias"] = "f32"
    pipeline = (f"pto-tile-matmul{{tile-m={tile} tile-n={tile} tile-k=32 multi-buffer={slots} "
                f"blocks={blocks}}},pto-assign-addresses,pto-insert-sync")
    text = matmul_text(m, n, k, *types, **{f: v for f, v in flags.items() if v})
    try:
        lower(text, pipeline)
    except PassOpError:  # a tiling pto-tile-matmul refuses (a one-row panel over two cores)
        reject()
    _check_raise(text, pipeline, blocks, bitwise=not (transpose_a or transpose_b))


HAND = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<32x32xf16>) {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant {c0_stride} : index
    %a_l1 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, 32x32xf16, nz>
    pto.copy_nd2nz %a, %a_l1[%c0] nd_num %c1 n_value %c32 d_value %c32 src_nd_matrix_stride %c0 src_d_value %c32 dst_nz_c0_stride %c16 dst_nz_n_stride %c1 dst_nz_matrix_stride %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }}
}}"""


def _apply(text: str, strict: bool):
    ctx, module = parse(text)
    PtoRaiseParamsPass(strict=strict).apply(ctx, module)
    return module


def test_a_hand_written_raw_op_matching_a_walk_is_raised() -> None:
    module = _apply(HAND.format(c0_stride=32), strict=True)
    assert [o.name for o in module.walk() if o.name.startswith("pto.")] == [
        "pto.alloc", "pto.mte_gm_l1"]


def test_a_walk_no_tile_op_writes_is_kept_or_refused_naming_the_field() -> None:
    kept = _apply(HAND.format(c0_stride=48), strict=False)
    assert _raw_names(kept) == ["pto.copy_nd2nz"]
    with pytest.raises(PassOpError, match=r"'pto\.copy_nd2nz' op is a raw walk whose "
                                          r"pto\.copy_nd2nz dst_nz_c0_stride = 48 no tile-level "
                                          r"op's expansion writes \(the nearest tile-level op "
                                          r"writes 32\): it has no PTOAS tile-level spelling on "
                                          r"target a2"):
        _apply(HAND.format(c0_stride=48), strict=True)


GM_BURSTS = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<32x32xf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %a_l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, nz>
    pto.copy_gm_l1 %a[%c0], %a_l1[%c0] block_count %c1 block_len %c64 src_gap %c0 dst_gap %c0 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}"""


def test_a_raw_form_no_tile_op_expands_to_is_refused_by_name() -> None:
    with pytest.raises(PassOpError, match=r"'pto\.copy_gm_l1' op is a raw pto\.copy_gm_l1, which "
                                          r"no tile-level op's expansion writes"):
        _apply(GM_BURSTS, strict=True)


def _with_a_tile_level_mad():
    """A 32 x 32 x 32 raw kernel whose mmad is the tile-level mad again."""
    text = matmul_text(32, 32, 32, "f16", "f16", "f32")
    pipeline = "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-expand-params"
    ctx, module = parse(str(lower(text, pipeline)))
    mmad = next(o for o in module.walk() if o.name == "pto.mmad")
    mmad.parent_block().insert_op_before(
        pto.MadOp(mmad.lhs, mmad.rhs, mmad.dst, mmad.m, mmad.n, mmad.k), mmad)
    mmad.detach()
    mmad.erase()
    return ctx, module


def test_raw_l0_walks_beside_a_tile_level_l0_op_are_not_raised() -> None:
    """The raw L0 forms lay L0 out by the op sizes, the tile-level ops by the tile shapes: raising
    one L0-side op of a function and not the others would change the data."""
    ctx, module = _with_a_tile_level_mad()
    PtoRaiseParamsPass().apply(ctx, module)
    names = [o.name for o in module.walk()]
    assert "pto.load_2d" in names and "pto.fixpipe_copy" in names  # the L0 side stays raw
    assert "pto.copy_nd2nz" not in names  # GM -> L1 is raised on its own
    ctx, module = _with_a_tile_level_mad()
    with pytest.raises(PassOpError, match=r"is a raw L0-side walk in a function that also holds "
                                          r"the tile-level pto\.mad"):
        PtoRaiseParamsPass(strict=True).apply(ctx, module)
