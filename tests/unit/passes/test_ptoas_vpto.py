"""ptoas-to-mmair on VPTO cube micro-ops: pointers become places in buffers, each op becomes the
raw parameter-form op with the fields PTOAS's wrapper expansion computes, and a VPTO GEMM computes
A x B (held against numpy directly, not against the IR's own reference)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from mmair.dialects import pto
from mmair.dialects.origin import written_name
from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools.diagnostics import verify_module

GEMM = "tests/filecheck/ptoas/vpto/gemm_kloop.pto"


def _parse(text: str) -> ModuleOp:
    return Parser(ptoas_context(), text).parse_module()


def _converted(text: str) -> ModuleOp:
    module = _parse(text)
    module.verify()
    convert_module(module)
    verify_module(module)
    return module


def _gemm() -> str:
    with open(GEMM) as f:
        return f.read()


def test_vpto_gemm_computes_a_times_b() -> None:
    rng = np.random.default_rng(7)
    a = rng.uniform(-1, 1, (32, 64)).astype(np.float16)
    b = rng.uniform(-1, 1, (64, 32)).astype(np.float16)
    result = run_module(_converted(_gemm()), inputs={"a": a.ravel(), "b": b.ravel()},
                        sync_check=True)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(result.outputs["c"].reshape(32, 32), expected, rtol=1e-5, atol=1e-5)


def test_gm_pointer_arguments_become_memrefs_sized_by_their_uses() -> None:
    module = _converted(_gemm())
    fn = next(op for op in module.walk() if op.name == "func.func")
    sizes = [t.get_shape() for t in fn.function_type.inputs.data]
    assert all(isinstance(t, MemRefType) for t in fn.function_type.inputs.data)
    # A: 32 rows of 64; B: two 32 x 32 halves (the second at element 1024); C: 32 x 32
    assert sizes == [(2048,), (2048,), (1024,)]


def test_ops_become_raw_forms_named_by_their_ptoas_op() -> None:
    module = _converted(_gemm())
    ops = [op for op in module.walk() if op.dialect_name() == "pto"]
    names = [op.name for op in ops]
    assert names.count("pto.copy_nd2nz") == 3 and names.count("pto.load_2d_v2") == 4
    assert names.count("pto.mmad") == 2 and names.count("pto.fixpipe_copy") == 1
    mmad = next(op for op in ops if isinstance(op, pto.MmadOp) and not op.init_zero)
    assert written_name(mmad) == "'pto.mad_acc' (mmair pto.mmad)"


def _load_fields(text: str) -> list[int]:
    module = _converted(text)
    load = next(op for op in module.walk() if isinstance(op, pto.Load2DV2Op))
    names = ("m_start_position", "k_start_position", "m_step", "k_step", "src_stride", "dst_stride")
    return [getattr(load, n).owner.value.value.data for n in names]


LOAD = """module attributes {{pto.target_arch = "a5"}} {{
  func.func @k(%s: !pto.ptr<{t}, l1>, %d: !pto.ptr<{t}, {space}>) {{
    %m = arith.constant {m} : i64
    %k = arith.constant {k} : i64
    %r = arith.constant 1 : i64
    %c = arith.constant 2 : i64
    pto.{op} %s, %d, %m, %k, %r, %c {attrs}: !pto.ptr<{t}, l1>, !pto.ptr<{t}, {space}>, i64, i64, i64, i64
    return
  }}
}}"""


@pytest.mark.parametrize(("op", "space", "t", "m", "k", "transpose", "fields"), [
    # deriveLoadCbufToCaControl: steps ceil(m/16) and ceil(k*E/32), strides ceil(m/16)
    ("mte_l1_l0a", "l0a", "f16", 48, 64, False, [1, 2, 3, 4, 3, 3]),
    ("mte_l1_l0a", "l0a", "f32", 16, 24, False, [1, 2, 1, 3, 1, 1]),
    # transposed: M and K aligned to C0 = max(16, 32/E) first
    ("mte_l1_l0a", "l0a", "f32", 16, 24, True, [1, 2, 2, 2, 2, 1]),
    # deriveLoadCbufToCbControl (k x n): steps ceil(n/16), ceil(k*E/32)
    ("mte_l1_l0b", "l0b", "f16", 64, 32, False, [1, 2, 2, 4, 2, 2]),
    ("mte_l1_l0b", "l0b", "f16", 64, 32, True, [1, 2, 4, 2, 4, 2]),
])
def test_shape_form_derives_ptoas_load_fields(op: str, space: str, t: str, m: int, k: int,
                                              transpose: bool, fields: list[int]) -> None:
    attrs = "{transpose = true} " if transpose else ""
    text = LOAD.format(op=op, space=space, t=t, m=m, k=k, attrs=attrs)
    assert _load_fields(text) == fields


def test_full_control_and_keyword_forms_pass_fields_unchanged() -> None:
    text = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%s: !pto.ptr<f16, l1>, %d: !pto.ptr<f16, l0b>) {
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %c6 = arith.constant 6 : i64
    pto.mte_l1_l0b %s, %d, dst_stride(%c6), k_step(%c4), m_step(%c3), k_start(%c2), src_stride(%c5), m_start(%c1)
      : !pto.ptr<f16, l1>, !pto.ptr<f16, l0b>, i64, i64, i64, i64, i64, i64
    return
  }
}"""
    assert _load_fields(text) == [1, 2, 3, 4, 5, 6]


def test_local_pointer_arguments_point_at_byte_zero_of_their_space() -> None:
    text = LOAD.format(op="mte_l1_l0a", space="l0a", t="f16", m=16, k=16, attrs="")
    module = _converted(text)
    fn = next(op for op in module.walk() if op.name == "func.func")
    assert fn.function_type.inputs.data == ()  # no GM argument left
    allocs = [op for op in module.walk() if isinstance(op, pto.AllocOp)]
    assert sorted((a.buffer.type.space_name, a.offset.value.data) for a in allocs) == [
        ("l0a", 0), ("l1", 0)]


def test_castptr_places_a_tile_at_its_byte_address() -> None:
    text = """module attributes {pto.target_arch = "a5"} {
  func.func @k() {
    %c0 = arith.constant 0 : i64
    %c16 = arith.constant 16 : i64
    %at = arith.constant 4096 : i64
    %a = pto.castptr %at : i64 -> !pto.ptr<f16, l0a>
    %b = pto.castptr %c0 : i64 -> !pto.ptr<f16, l0b>
    %c = pto.castptr %at : i64 -> !pto.ptr<f32, l0c>
    %i256 = arith.constant 256 : index
    %c2 = pto.addptr %c, %i256 : !pto.ptr<f32, l0c> -> !pto.ptr<f32, l0c>
    pto.mad %a, %b, %c2, %c16, %c16, %c16 : !pto.ptr<f16, l0a>, !pto.ptr<f16, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
    return
  }
}"""
    module = _converted(text)
    mmad = next(op for op in module.walk() if isinstance(op, pto.MmadOp))
    offsets = [v.owner.offset.value.data for v in (mmad.lhs, mmad.rhs, mmad.dst)]
    assert offsets == [4096, 0, 4096 + 256 * 4]  # addptr counts elements


def test_a_dynamic_gm_extent_is_refused_at_the_op() -> None:
    text = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%g: !pto.ptr<f32, gm>, %n: i64) {
    %c0 = arith.constant 0 : i64
    %c16 = arith.constant 16 : i64
    %s = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    pto.mte_l0c_gm %s, %g, %n, %c16, %c16, %c16, %c0, %c0, nz2nd : !pto.ptr<f32, l0c>, !pto.ptr<f32, gm>, i64, i64, i64, i64, i64, i64
    return
  }
}"""
    module = _parse(text)
    with pytest.raises(ConversionError, match=r"'pto.mte_l0c_gm' op requires a static m "
                                              r"\(arith.constant\): mmair sizes a GM pointer"):
        convert_module(module)


CLAUSES = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%a: !pto.ptr<f32, l0a>, %b: !pto.ptr<f32, l0b>, %c: !pto.ptr<f32, l0c>, %g: !pto.ptr<f16, gm>, %fb: !pto.ptr<f16, fb>) {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c16 = arith.constant 16 : i64
    %s = arith.constant 1.0 : f32
    pto.mad %a, %b, %c, %c16, %c16, %c16 unit_flag(check_and_set) disable_gemv nosat tf32_mode(round_away) n_dir : !pto.ptr<f32, l0a>, !pto.ptr<f32, l0b>, !pto.ptr<f32, l0c>, i64, i64, i64
    pto.mte_l0c_gm %c, %g, %c16, %c16, %c16, %c16, %c0, %c0, unit_flag(check_only), pre_quant(%s, mode = qf322f16_pre_scalar), pre_relu(%fb, mode = vector_relu), nz2dn(%c1), loop3(%c16, %c16, %c16), sat(preserve_nan) : !pto.ptr<f32, l0c>, !pto.ptr<f16>, i64, i64, i64, i64, i64, i64, f32, !pto.ptr<f16, fb>, i64, i64, i64, i64
    func.return
  }
}"""


def test_every_clause_prints_back_as_written() -> None:
    """PTOAS text round-trips through mmair's reading of it, clauses it does not model included
    (mmair reads and prints them; only the conversion refuses them)."""
    module = _parse(CLAUSES)
    module.verify()
    import io

    out = io.StringIO()
    Printer(stream=out).print_op(module)
    printed = out.getvalue()
    assert "unit_flag(check_and_set) disable_gemv nosat tf32_mode(round_away) n_dir" in printed
    assert ("unit_flag(check_only), pre_quant(%s, mode = qf322f16_pre_scalar), pre_relu(%fb, "
            "mode = vector_relu), nz2dn(%c1), loop3(%c16, %c16, %c16), sat(preserve_nan)") in printed
    again = io.StringIO()
    Printer(stream=again).print_op(_parse(printed))
    assert again.getvalue() == printed


def test_an_l0c_store_to_sub_block_0_writes_the_ub() -> None:
    text = """module attributes {pto.target_arch = "a5"} {
  func.func @k() {
    %c0 = arith.constant 0 : i64
    %c16 = arith.constant 16 : i64
    %s = pto.castptr %c0 : i64 -> !pto.ptr<f32, l0c>
    %u = pto.castptr %c0 : i64 -> !pto.ptr<f32, ub>
    pto.mte_l0c_ub %s, %u, %c16, %c16, %c16, %c16, dst_mode(%c0), nz2nd : !pto.ptr<f32, l0c>, !pto.ptr<f32, ub>, i64, i64, i64, i64, i64
    return
  }
}"""
    module = _converted(text)
    store = next(op for op in module.walk() if isinstance(op, pto.FixpipeCopyOp))
    assert store.dst.type.space_name == "ub" and store.layout.data == "nz2nd"
    assert written_name(store) == "'pto.mte_l0c_ub' (mmair pto.fixpipe_copy)"


def test_vpto_bias_gemm_computes_a_times_b_plus_bias() -> None:
    with open("tests/filecheck/ptoas/vpto/gemm_bias.pto") as f:
        module = _converted(f.read())
    rng = np.random.default_rng(8)
    a = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, 32)).astype(np.float16)
    bias = rng.uniform(-1, 1, 32).astype(np.float32)
    result = run_module(module, inputs={"a": a.ravel(), "b": b.ravel(), "bias": bias},
                        sync_check=True)
    expected = a.astype(np.float32) @ b.astype(np.float32) + bias
    np.testing.assert_allclose(result.outputs["c"].reshape(16, 32), expected, rtol=1e-5,
                               atol=1e-5)


def test_burst_loops_unroll_into_one_copy_per_iteration() -> None:
    text = """module attributes {pto.target_arch = "a5"} {
  func.func @k(%g: !pto.ptr<f16, gm>) {
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c64 = arith.constant 64 : i64
    %c96 = arith.constant 96 : i64
    %c512 = arith.constant 512 : i64
    %c1024 = arith.constant 1024 : i64
    %l = pto.castptr %c0 : i64 -> !pto.ptr<f16, l1>
    pto.mte_gm_l1 %g, %l, %c64 nburst(%c2, %c96, %c64) loop(%c3, %c1024, %c512) : !pto.ptr<f16, gm>, !pto.ptr<f16, l1>, i64, i64, i64, i64, i64, i64, i64
    return
  }
}"""
    module = _converted(text)
    copies = [op for op in module.walk() if isinstance(op, pto.CopyGmL1Op)]
    fields = [[v.owner.value.value.data for v in (c.src_offset, c.dst_offset, c.block_count,
                                                   c.block_len, c.src_gap, c.dst_gap)]
              for c in copies]
    # iteration j: GM byte 1024 j, L1 byte 512 j (f16 elements: / 2); 2 bursts of 2 blocks, the
    # source gap one block (96 - 64 B), the destination gap none
    assert fields == [[512 * j, 256 * j, 2, 2, 1, 0] for j in range(3)]
    fn = next(op for op in module.walk() if op.name == "func.func")
    # the GM argument reaches byte 2 * 1024 + 96 + 64
    assert fn.function_type.inputs.data[0].get_shape() == ((2 * 1024 + 96 + 64) // 2,)
