"""mmair-to-ptoas on the raw parameter forms (passes/mmair_to_vpto.py): an a5 raw-form kernel is
written as PTOAS VPTO text that reads back, through the PTOAS front end and ptoas-to-mmair, to a
kernel with the same outputs bit for bit and a clean checker run; what PTOAS cannot say exactly is
refused at the op."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pto_testing import EXAMPLES, lower, matmul_text, parse

from mmair.passes.mmair_to_ptoas import write_module
from mmair.passes.pass_errors import PassOpError
from tests.unit.passes.test_mmair_to_ptoas import ptoas_text, same_run

RAW = ("pto.load_2d", "pto.load_2d_v2", "pto.mmad", "pto.fixpipe_copy", "pto.copy_nd2nz",
       "pto.copy_gm_l1", "pto.copy_l1_bt")


def _a5(name: str) -> str:
    return (EXAMPLES / name).read_text().replace('pto.target = "a2"', 'pto.target = "a5"')


def _raw_kernel(text: str, pipeline: str):
    module = lower(text, pipeline)
    assert any(o.name.startswith(RAW) for o in module.walk())
    return module


def test_the_matmul_example_expanded_on_a5_reads_back_bit_identical() -> None:
    text, pipeline = _a5("matmul_f16.mlir"), "mmair-lower,pto-expand-params"
    written = ptoas_text(_raw_kernel(text, pipeline))
    for op in ("pto.mte_gm_l1_frac", "pto.mte_l1_l0a", "pto.mte_l1_l0b", "pto.mad",
               "pto.mte_l0c_gm", "pto.tile_buf_addr", "pto.tensor_view_addr"):
        assert op in written, op
    assert not any(raw in written for raw in RAW)
    same_run(lower(text, pipeline), written)


RAW_EXAMPLES = sorted(p.name for p in EXAMPLES.glob("*.mlir")
                      if any(f"{raw} " in p.read_text() for raw in RAW))


def test_there_is_a_raw_example() -> None:
    assert "raw_gemm_bias_a5.mlir" in RAW_EXAMPLES


@pytest.mark.parametrize("name", RAW_EXAMPLES)
def test_every_raw_example_reads_back_bit_identical(name) -> None:
    """Hand-written raw forms: DataCopyParams bursts, copy_cbuf_to_bt, LoadData2DParamsV2, Mmad
    with the bias table and unit flags, Fixpipe with ReLU, NZ2DN + atomic add, f32 -> f16."""
    text = (EXAMPLES / name).read_text()
    written = ptoas_text(parse(text)[1])
    for op in ("pto.mte_gm_l1 ", "pto.mte_l1_bt", "pto.mad_bias", "unit_flag(check_and_set)",
               "pre_relu(mode = normal_relu)", "nz2dn(", "atomic(type = f32, op = add)",
               "mode = f32_f16"):
        assert op in written, op
    same_run(parse(text)[1], written)


@pytest.mark.parametrize("name", ["gemm_f16_128.mlir", "matmul_f16.mlir", "matmul_s4.mlir",
                                  "gemm_kloop_double_buffer.mlir"])
def test_every_cube_example_expanded_on_a2_is_refused_at_its_first_raw_op(name) -> None:
    module = lower((EXAMPLES / name).read_text(), "mmair-lower,pto-expand-params")
    with pytest.raises(PassOpError, match=r"op is a raw parameter form on target a2: PTOAS's VPTO "
                                          r"cube ops are the Ascend 950 \(a5\) forms"):
        write_module(module)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 48), n=st.integers(1, 48), k=st.integers(1, 80),
       tile=st.sampled_from([16, 32]), slots=st.sampled_from([1, 2]),
       blocks=st.sampled_from([1, 2]),
       types=st.sampled_from([("f16", "f16", "f32"), ("f32", "f32", "f32"),
                              ("bf16", "bf16", "bf16")]))
def test_random_expanded_matmuls_read_back_bit_identical(m, n, k, tile, slots, blocks,
                                                          types) -> None:
    pipeline = (f"pto-tile-matmul{{tile-m={tile} tile-n={tile} tile-k=32 multi-buffer={slots} "
                f"blocks={blocks}}},pto-assign-addresses,pto-insert-sync,pto-expand-params")
    text = matmul_text(m, n, k, *types, target="a5")
    same_run(lower(text, pipeline), ptoas_text(_raw_kernel(text, pipeline)), blocks=blocks)


@pytest.mark.parametrize(("types", "flags", "blocks"), [
    (("f16", "f16", "f16"), {}, 1),                       # pre_quant f32_f16
    (("bf16", "bf16", "bf16"), {}, 2),                    # pre_quant f32_bf16, two cores
    (("f16", "f16", "f32"), {"transpose_a": True}, 1),    # the V1 ifTranspose walks
    (("f32", "f32", "f32"), {}, 1),                       # LoadDataWithTranspose b32 squares
    (("f32", "f32", "f32"), {"transpose_b": True}, 1),
    (("s8", "s8", "s32"), {}, 2),                         # ... and b8 squares
    (("s8", "s8", "s32"), {"transpose_a": True, "transpose_b": True}, 2),
    (("f16", "f16", "f32"), {"bias": "f32"}, 1),          # mte_l1_bt + mad_bias
])
def test_expanded_matmuls_of_other_types_read_back_bit_identical(types, flags, blocks) -> None:
    pipeline = f"mmair-lower{{blocks={blocks}}},pto-expand-params"
    text = matmul_text(33, 40, 65, *types, target="a5", **flags)
    written = ptoas_text(_raw_kernel(text, pipeline))
    if types[2] in ("f16", "bf16"):
        assert f"mode = f32_{types[2]}" in written
    if "bias" in flags:
        assert "pto.mte_l1_bt" in written and "pto.mad_bias" in written
    same_run(lower(text, pipeline), written, blocks=blocks)


def test_a_v1_walk_is_written_as_one_m_fractal_by_repeat_k_fractals() -> None:
    pipeline = "pto-tile-matmul{tile-m=32 tile-n=32 tile-k=32},pto-assign-addresses,pto-expand-params"
    written = ptoas_text(_raw_kernel(matmul_text(32, 32, 32, "f16", "f16", "f32", target="a5"),
                                     pipeline))
    lines = [line.strip() for line in written.splitlines() if "pto.mte_l1_l0" in line]
    # m_start = start_index (0), k_start 0, m_step 1, k_step = repeat (2), src_stride 1, dst 1
    assert lines[0].startswith("pto.mte_l1_l0a ") and \
        ", %c0_i64, %c0_i64, %c1_i64, %c2_i64, %c1_i64, %c1_i64 :" in lines[0]
    assert "{transpose = true}" in lines[1]  # the zz B tile's b16 fractal transposes


RAW_A5 = """builtin.module attributes {{pto.target = "a5"}} {{
  func.func @k(%a: memref<32x32xf16>) {{
    %l1 = pto.alloc {{offset = 0 : i64}} : !pto.tile<l1, 32x32xf16, nz>
    %l0a = pto.alloc {{offset = 0 : i64}} : !pto.tile<l0a, 32x32xf16, nz>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %s = arith.constant {stride} : index
    pto.copy_nd2nz %a, %l1[%c0] nd_num %c2 n_value %c1 d_value %c32 src_nd_matrix_stride %c32 src_d_value %c32 dst_nz_c0_stride %c32 dst_nz_n_stride %c1 dst_nz_matrix_stride %s : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.load_2d %l1[%c0], %l0a[%c0] start_index %c0 repeat_times %c2 src_stride %s dst_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, nz>
    func.return
  }}
}}"""


def test_a_re_read_of_one_fractal_is_refused_at_the_load() -> None:
    module = parse(RAW_A5.format(stride=0))[1]
    with pytest.raises(PassOpError, match=r"'pto.load_2d' op re-reads one fractal \(src_stride 0, "
                                          r"repeat_times not 1\)"):
        write_module(module)


def test_a_matrix_stride_that_is_not_whole_32_byte_blocks_is_refused() -> None:
    module = parse(RAW_A5.format(stride=1))[1]
    with pytest.raises(PassOpError, match=r"'pto.copy_nd2nz' op has dst_nz_matrix_stride 1 \(2 "
                                          r"bytes\): PTOAS's dst_loop4_stride counts 32-byte "
                                          r"blocks"):
        write_module(module)


SQUARES_A5 = """builtin.module attributes {pto.target = "a5"} {
  func.func @k() {
    %l1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, nz>
    %l0b = pto.alloc {offset = 0 : i64} : !pto.tile<l0b, 32x32xf16, zn>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    pto.load_2d_transpose %l1[%c0], %l0b[%c0] start_index %c0 repeat_times %c2 src_stride %c1 dst_gap %c1 dst_frac_gap %c0 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0b, 32x32xf16, zn>
    func.return
  }
}"""


def test_transposed_squares_no_window_lays_out_are_refused_at_the_load() -> None:
    with pytest.raises(PassOpError, match=r"'pto.load_2d_transpose' op writes its transposed "
                                          r"squares where no LoadData2DParamsV2 window provably "
                                          r"does \(one window needs dst_gap 0; src_stride 1, "
                                          r"dst_gap 1, dst_frac_gap 0\)"):
        write_module(parse(SQUARES_A5)[1])


def test_written_vpto_text_reparses_to_the_same_text() -> None:
    import io

    from xdsl.printer import Printer

    from mmair.dialects.ptoas import ptoas_context
    from mmair.tools.diagnostics import LocatingParser

    written = ptoas_text(parse((EXAMPLES / "raw_gemm_bias_a5.mlir").read_text())[1])
    again = LocatingParser(ptoas_context(), written, "w.pto").parse_module()
    out = io.StringIO()
    Printer(stream=out).print_op(again)
    assert out.getvalue() == written
