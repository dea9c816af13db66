"""ptoas-to-mmair: PTOAS tile ops become mmair's pto ops, with mmair's layouts per target, quant
modes from the element types, and the PTOAS op name kept for diagnostics."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.origin import written_name
from mmair.dialects.ptoas import ptoas_context
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools.diagnostics import verify_module

KERNEL = "tests/filecheck/ptoas/matmul_tile.pto"


def _converted(text: str) -> ModuleOp:
    module = Parser(ptoas_context(), text).parse_module()
    convert_module(module)
    return module


def _kernel(arch: str = "a2") -> str:
    with open(KERNEL) as f:
        return f.read().replace('pto.target_arch = "a2"', f'pto.target_arch = "{arch}"')


@pytest.mark.parametrize(("arch", "target", "l0a"), [("a2", "a2", "zz"), ("a3", "a2", "zz"),
                                                     ("a5", "a5", "nz")])
def test_left_tile_takes_the_targets_l0a_layout(arch: str, target: str, l0a: str) -> None:
    module = _converted(_kernel(arch))
    verify_module(module)
    assert module.attributes[pto.TARGET_ATTR].data == target
    allocs = [op for op in module.walk() if isinstance(op, pto.AllocOp)]
    layouts = {op.buffer.type.space_name: op.buffer.type.layout.data for op in allocs}
    assert layouts == {"l1": "nz", "l0a": l0a, "l0b": "zn", "l0c": "nz"}
    assert all(op.offset is not None for op in allocs)  # pto-assign-addresses ran


def test_ops_map_and_keep_the_ptoas_name() -> None:
    module = _converted(_kernel())
    names = [op.name for op in module.walk() if op.dialect_name() == "pto"]
    assert names.count("pto.mte_gm_l1") == 2 and names.count("pto.mad") == 1
    assert names.count("pto.fixpipe") == 1 and names.count("pto.set_flag") == 3
    mad = next(op for op in module.walk() if isinstance(op, pto.MadOp))
    assert written_name(mad) == "'pto.tmatmul' (mmair pto.mad)"


def test_tstore_to_f16_takes_the_f32_to_f16_quant_mode() -> None:
    text = _kernel().replace("!pto.ptr<f32>", "!pto.ptr<f16>").replace(
        "tensor_view<?x?xf32>", "tensor_view<?x?xf16>").replace(
        "partition_tensor_view<32x32xf32>", "partition_tensor_view<32x32xf16>")
    module = _converted(text)
    verify_module(module)
    fix = next(op for op in module.walk() if isinstance(op, pto.FixpipeOp))
    assert fix.quant.data == "f322f16"


def test_dynamic_view_shape_is_refused_at_the_view() -> None:
    text = _kernel().replace("shape = [%c32, %c32], strides = [%c32, %c1] : "
                             "!pto.tensor_view<?x?xf16>\n    %tb",
                             "shape = [%c0, %c32], strides = [%c32, %c1] : "
                             "!pto.tensor_view<?x?xf16>\n    %tb", 1)
    # a size the kernel computes at run time (the block index), not a constant or a fold of them
    text = text.replace("%c0 = arith.constant 0 : index", "%c0 = arith.index_cast %c0i : i64 to index"
                        ).replace("{pto.kernel} {", "{pto.kernel} {\n    %c0i = pto.get_block_idx", 1)
    with pytest.raises(ConversionError, match="requires a shape computed from constants, the "
                                              "kernel's scalar arguments and get_block_num") as info:
        _converted(text)
    assert info.value.op.name == "pto.make_tensor_view"


def _bf16(rng, shape):
    import ml_dtypes

    return rng.uniform(-1, 1, shape).astype(ml_dtypes.bfloat16)


def test_a_zn_mat_alias_of_an_nz_weight_is_its_transpose() -> None:
    """pypto's B^T: W [N, K] loaded as Nz and read through a ZN tile [K, N] at its address;
    the converted kernel computes A x W^T (numpy directly, not the IR's own reference)."""
    import numpy as np

    from mmair.executor.runner import run_module

    with open("tests/filecheck/ptoas/zn_mat_bt.pto") as f:
        module = _converted(f.read())
    verify_module(module)
    moves = [op for op in module.walk() if isinstance(op, pto.MteL1L0BOp)]
    assert len(moves) == 1 and moves[0].transpose is not None
    assert len([op for op in module.walk() if isinstance(op, pto.AllocOp)
                and op.buffer.type.space_name == "l1"]) == 2  # the alias is the Nz tile itself
    rng = np.random.default_rng(9)
    a, w = _bf16(rng, (32, 64)), _bf16(rng, (32, 64))
    out = run_module(module, inputs={"a": a, "w": w}, sync_check=True).outputs["c"]
    np.testing.assert_array_equal(out, a.astype(np.float32) @ w.astype(np.float32).T)


def test_a_tload_into_a_zn_mat_tile_reads_gm_as_dn() -> None:
    import numpy as np

    from mmair.executor.runner import run_module

    with open("tests/filecheck/ptoas/zn_mat_load.pto") as f:
        module = _converted(f.read())
    verify_module(module)
    loads = [op for op in module.walk() if isinstance(op, pto.MteGmL1Op)]
    assert [op.dn2nz is not None for op in loads] == [False, True]
    rng = np.random.default_rng(10)
    a, b = _bf16(rng, (32, 64)), _bf16(rng, (64, 32))
    out = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-6,
                               atol=1e-6)


_TSTORE_END = "outs(%pc : !pto.partition_tensor_view<32x32xf32>)"


@pytest.mark.parametrize(("option", "message"), [
    ("{atomicType = #pto<atomic_type atomic_max>}",
     r"'pto.tstore' op has atomicType = atomic_max, which mmair does not model \(it models "
     r"atomicType in \[atomic_none, atomic_add\]\)"),
    ("{reluPreMode = #pto<relu_pre_mode scalar_relu>}",
     r"has reluPreMode = scalar_relu, which mmair does not model"),
    ("{precisionType = #pto<div_precision high_precision>}",
     r"has precisionType, which mmair does not model"),
])
def test_a_template_option_mmair_does_not_model_is_refused_not_dropped(option, message) -> None:
    text = _kernel().replace(_TSTORE_END, f"{_TSTORE_END} {option}")
    if "precisionType" in option:
        text = text.replace("#pto<div_precision high_precision>", '"high"')
    with pytest.raises(ConversionError, match=message):
        _converted(text)


def test_template_options_that_keep_the_values_are_read() -> None:
    text = _kernel().replace(_TSTORE_END, f"{_TSTORE_END} {{atomicType = #pto<atomic_type "
                                          f"atomic_none>, stPhase = #pto<st_phase final>, "
                                          f"reluPreMode = #pto<relu_pre_mode normal_relu>}}")
    module = _converted(text)
    store = next(op for op in module.walk() if isinstance(op, pto.FixpipeOp))
    assert store.relu is not None  # normal_relu is the fixpipe's ReLU


def test_a_view_that_collapses_another_views_dims_is_a_collapse_shape() -> None:
    """pypto views an expert weight [E, N, K] also as [E*N, K]; strides computed by arith.muli
    of constants are static."""
    text = _kernel().replace(
        "%tb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : "
        "!pto.tensor_view<?x?xf16>",
        "%s0 = arith.muli %c32, %c16 : index\n"
        "    %tb3 = pto.make_tensor_view %b, shape = [%c2, %c16, %c32], strides = [%s0, %c32, %c1]"
        " : !pto.tensor_view<?x?x?xf16>\n"
        "    %tb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : "
        "!pto.tensor_view<?x?xf16>").replace(
        "%c32 = arith.constant 32 : index",
        "%c32 = arith.constant 32 : index\n    %c16 = arith.constant 16 : index\n"
        "    %c2 = arith.constant 2 : index")
    module = _converted(text)
    fn = next(op for op in module.walk() if op.name == "func.func")
    assert fn.function_type.inputs.data[1].get_shape() == (2, 16, 32)
    collapse = next(op for op in module.walk() if op.name == "memref.collapse_shape")
    assert collapse.results[0].type.get_shape() == (32, 32)


def test_a_window_with_leading_unit_dims_is_the_matrix_the_tile_op_moves() -> None:
    """pypto's Qwen3 kernels store a [1, 1, M, N] window of a 4-D tensor: the converted
    subview drops the unit dims, and the store writes the right elements."""
    import numpy as np

    from mmair.executor.runner import run_module

    text = _kernel().replace(
        "%tc = pto.make_tensor_view %c, shape = [%c32, %c32], strides = [%c32, %c1] : "
        "!pto.tensor_view<?x?xf32>",
        "%tc = pto.make_tensor_view %c, shape = [%c2, %c1, %c32, %c32], strides = [%c1024, "
        "%c1024, %c32, %c1] : !pto.tensor_view<?x?x?x?xf32>").replace(
        "%pc = pto.partition_view %tc, offsets = [%c0, %c0], sizes = [%c32, %c32] : "
        "!pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>",
        "%pc = pto.partition_view %tc, offsets = [%c1, %c0, %c0, %c0], sizes = [%c1, %c1, %c32, "
        "%c32] : !pto.tensor_view<?x?x?x?xf32> -> !pto.partition_tensor_view<1x1x32x32xf32>").replace(
        "outs(%pc : !pto.partition_tensor_view<32x32xf32>)",
        "outs(%pc : !pto.partition_tensor_view<1x1x32x32xf32>)").replace(
        "%c32 = arith.constant 32 : index",
        "%c32 = arith.constant 32 : index\n    %c2 = arith.constant 2 : index\n"
        "    %c1024 = arith.constant 1024 : index")
    module = _converted(text)
    verify_module(module)
    rng = np.random.default_rng(11)
    a = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    out = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    assert out.shape == (2, 1, 32, 32)
    np.testing.assert_allclose(out[1, 0], a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-5)


def test_tmatmul_acc_into_another_tile_accumulates_there_and_never_reads_acc_in() -> None:
    """pto-isa TMATMUL_ACC(cOut, cIn, a, b) runs mad on cOut with init off, cIn unread: with
    c = 2AB and d = AB, `tmatmul.acc ins(%c, a, b) outs(%d)` leaves d = 2AB (not c + AB = 3AB)."""
    import numpy as np

    from mmair.executor.runner import run_module

    acc = ("!pto.tile_buf<loc=acc, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, "
           "blayout=col_major, slayout=row_major, fractal=1024, pad=0>")
    lr = ("!pto.tile_buf<loc=left, dtype=f16, rows=32, cols=32, v_row=32, v_col=32, "
          "blayout=row_major, slayout=row_major, fractal=512, pad=0>, !pto.tile_buf<loc=right, "
          "dtype=f16, rows=32, cols=32, v_row=32, v_col=32, blayout=row_major, slayout=col_major, "
          "fractal=512, pad=0>")
    text = _kernel()
    mad = next(line for line in text.splitlines()
               if line.lstrip().startswith("pto.tmatmul ins"))
    text = text.replace(mad, "\n".join([
        f"    %d = pto.alloc_tile addr = %c4096_i64 : {acc}",
        f"    pto.tmatmul ins(%l0a, %l0b : {lr}) outs(%acc : {acc})",
        "    pto.barrier <PIPE_M>",
        f"    pto.tmatmul.acc ins(%acc, %l0a, %l0b : {acc}, {lr}) outs(%acc : {acc})",
        f"    pto.tmatmul ins(%l0a, %l0b : {lr}) outs(%d : {acc})",
        "    pto.barrier <PIPE_M>",
        f"    pto.tmatmul.acc ins(%acc, %l0a, %l0b : {acc}, {lr}) outs(%d : {acc})"]))
    text = text.replace(f"    pto.tstore ins(%acc : {acc})", f"    pto.tstore ins(%d : {acc})")
    # one tile each (plan-memory would reuse %acc's bytes for %d once %acc is dead)
    text = text.replace("    %c0 = arith.constant 0 : index\n", "    %c0 = arith.constant 0 : index\n"
                        "    %c0_i64 = arith.constant 0 : i64\n"
                        "    %c4096_i64 = arith.constant 4096 : i64\n", 1)
    text = text.replace(f"%acc = pto.alloc_tile : {acc}", f"%acc = pto.alloc_tile addr = %c0_i64 : {acc}")
    module = _converted(text)
    verify_module(module)
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (32, 32)).astype(np.float16)
    b = rng.integers(-4, 5, (32, 32)).astype(np.float16)
    out = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_array_equal(out, 2 * (a.astype(np.float32) @ b.astype(np.float32)))


def test_a_cube_section_whose_body_ends_without_a_terminator_is_its_body() -> None:
    """PTOAS writes `pto.section.cube { ... }` with no terminator; the last op is a store."""
    import numpy as np

    from mmair.executor.runner import run_module

    text = _kernel().replace("    %c0 = arith.constant 0 : index\n",
                             "    pto.section.cube {\n    %c0 = arith.constant 0 : index\n", 1)
    text = text.replace("    return\n", "    }\n    return\n", 1)
    module = _converted(text)
    verify_module(module)
    rng = np.random.default_rng(11)
    a, b = (rng.uniform(-1, 1, (32, 32)).astype(np.float16) for _ in range(2))
    out = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(out, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-5)
