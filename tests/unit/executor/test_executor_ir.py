"""The executor on IR: control flow, GM memrefs, pto kernels end to end, runtime faults."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.runner import InputError, argument_names, find_entry, run_module
from mmair.tools.diagnostics import LocatingParser, op_location, verify_module


def parse(text: str, verify: bool = True):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "test.mlir").parse_module()
    if verify:
        verify_module(module)
    return module


def run_scalar(body: str, args: str = "", inputs=None, result_type: str = "index"):
    text = f"""
    func.func @f({args}) -> {result_type} {{
      {body}
    }}"""
    return run_module(parse(text), inputs=inputs or {}).results[0]


# ------------------------------------------------------------------------------------------------
# arith / scf / func
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "op,a,b,expected",
    [
        ("addi", 7, -3, 4),
        ("subi", 7, 10, -3),
        ("muli", -6, 7, -42),
        ("divsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("floordivsi", -7, 2, -4),
        ("ceildivsi", 7, 2, 4),
        ("ceildivsi", -7, 2, -3),
        ("divui", 7, 2, 3),
        ("remui", 7, 4, 3),
        ("minsi", -1, 3, -1),
        ("maxsi", -1, 3, 3),
        ("minui", -1, 3, 3),
        ("maxui", -1, 3, -1),
        ("andi", 12, 10, 8),
        ("ori", 12, 10, 14),
        ("xori", 12, 10, 6),
        ("shli", 3, 4, 48),
        ("shrsi", -16, 2, -4),
    ],
)
def test_index_arith(op, a, b, expected):
    body = f"""%r = arith.{op} %a, %b : index
      func.return %r : index"""
    assert run_scalar(body, "%a: index, %b: index", {"a": a, "b": b}) == expected


def test_i32_wraps_and_unsigned_ops():
    body = """%r = arith.addi %a, %b : i32
      func.return %r : i32"""
    assert run_scalar(body, "%a: i32, %b: i32", {"a": 2**31 - 1, "b": 1}, "i32") == -(2**31)
    body = """%r = arith.shrui %a, %b : i32
      func.return %r : i32"""
    assert run_scalar(body, "%a: i32, %b: i32", {"a": -1, "b": 28}, "i32") == 15
    body = """%r = arith.divui %a, %b : i8
      func.return %r : i8"""
    assert run_scalar(body, "%a: i8, %b: i8", {"a": -2, "b": 2}, "i8") == 127


@pytest.mark.parametrize(
    "pred,a,b,expected",
    [("eq", 1, 1, 1), ("ne", 1, 1, 0), ("slt", -1, 0, 1), ("ult", -1, 0, 0), ("sge", 2, 2, 1),
     ("ugt", -1, 5, 1), ("sle", 3, 2, 0), ("uge", 0, 0, 1), ("sgt", 0, -1, 1), ("ule", 5, -1, 1)],
)
def test_cmpi_select(pred, a, b, expected):
    body = f"""%c = arith.cmpi {pred}, %a, %b : index
      %one = arith.constant 1 : index
      %zero = arith.constant 0 : index
      %r = arith.select %c, %one, %zero : index
      func.return %r : index"""
    assert run_scalar(body, "%a: index, %b: index", {"a": a, "b": b}) == expected


def test_index_cast_and_division_by_zero():
    body = """%x = arith.index_cast %a : index to i8
      func.return %x : i8"""
    assert run_scalar(body, "%a: index", {"a": 300}, "i8") == 44
    body = """%r = arith.divsi %a, %b : index
      func.return %r : index"""
    with pytest.raises(ExecutionError, match="division by zero"):
        run_scalar(body, "%a: index, %b: index", {"a": 1, "b": 0})


def test_scf_for_with_iter_args_if_and_call():
    text = """
    func.func @square(%x: index) -> index {
      %r = arith.muli %x, %x : index
      func.return %r : index
    }
    func.func @main(%n: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
        %rem = arith.remsi %i, %c2 : index
        %even = arith.cmpi eq, %rem, %c0 : index
        %v = scf.if %even -> (index) {
          %s = func.call @square(%i) : (index) -> index
          scf.yield %s : index
        } else {
          scf.yield %c0 : index
        }
        %next = arith.addi %acc, %v : index
        scf.yield %next : index
      }
      func.return %sum : index
    }"""
    result = run_module(parse(text), "main", {"n": 10})
    assert result.results == (sum(i * i for i in range(0, 10, 2)),)
    assert result.op_counts["func.call"] == 5 and result.op_counts["scf.for"] == 1


def test_recursive_call_uses_fresh_frames():
    text = """
    func.func @fact(%n: index) -> index {
      %c1 = arith.constant 1 : index
      %done = arith.cmpi sle, %n, %c1 : index
      %r = scf.if %done -> (index) {
        scf.yield %c1 : index
      } else {
        %m = arith.subi %n, %c1 : index
        %f = func.call @fact(%m) : (index) -> index
        %p = arith.muli %n, %f : index
        scf.yield %p : index
      }
      func.return %r : index
    }"""
    assert run_module(parse(text), "fact", {"n": 10}).results == (3628800,)


# ------------------------------------------------------------------------------------------------
# memref on GM
# ------------------------------------------------------------------------------------------------


def test_subview_is_a_view_and_load_store():
    text = """
    func.func @k(%a: memref<8x8xf32>, %i: index) {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %w = memref.subview %a[%i, 2] [3, 3] [1, 2] : memref<8x8xf32> to memref<3x3xf32, strided<[8, 2], offset: ?>>
      %v = memref.load %w[%c1, %c2] : memref<3x3xf32, strided<[8, 2], offset: ?>>
      memref.store %v, %w[%c2, %c1] : memref<3x3xf32, strided<[8, 2], offset: ?>>
      func.return
    }"""
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = run_module(parse(text), inputs={"a": a, "i": 3}).outputs["a"]
    expected = a.copy()
    expected[3 + 2, 2 + 2 * 1] = a[3 + 1, 2 + 2 * 2]
    assert np.array_equal(out, expected)
    assert np.array_equal(a, np.arange(64, dtype=np.float32).reshape(8, 8))  # input not modified


def test_rank_reducing_subview_and_alloc():
    text = """
    func.func @k(%a: memref<4x8xi32>) -> i32 {
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %row = memref.subview %a[2, 0] [1, 8] [1, 1] : memref<4x8xi32> to memref<8xi32, strided<[1], offset: 16>>
      %t = memref.alloc() : memref<2xi32>
      %v = memref.load %row[%c3] : memref<8xi32, strided<[1], offset: 16>>
      memref.store %v, %t[%c0] : memref<2xi32>
      %r = memref.load %t[%c0] : memref<2xi32>
      func.return %r : i32
    }"""
    a = np.arange(32, dtype=np.int32).reshape(4, 8)
    assert run_module(parse(text), inputs={"a": a}).results == (19,)


def test_subview_and_load_out_of_bounds():
    text = """
    func.func @k(%a: memref<8x8xf32>, %i: index) {
      %w = memref.subview %a[%i, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: ?>>
      func.return
    }"""
    with pytest.raises(ExecutionError, match="subview dim 0: offset 6, size 4, stride 1 out of bounds") as err:
        run_module(parse(text), inputs={"i": 6})
    assert err.value.op.name == "memref.subview"
    text = """
    func.func @k(%a: memref<8xf32>, %i: index) -> f32 {
      %v = memref.load %a[%i] : memref<8xf32>
      func.return %v : f32
    }"""
    with pytest.raises(ExecutionError, match=r"index \[-1\] out of bounds for memref of shape 8"):
        run_module(parse(text), inputs={"i": -1})


# ------------------------------------------------------------------------------------------------
# pto kernels
# ------------------------------------------------------------------------------------------------


def tiled_gemm(M, N, K, elem="f16", acc="f32", tile=128, target="a2"):
    l0a_layout = "nz" if target == "a5" else "zz"
    # a one-row panel runs as GEMV: a5 keeps the nz L0A with disable_gemv (the GEMV path with an
    # nd L0A on a2 is covered by pto-tile-matmul, tests/unit/dialects/pto/test_gemv_rule.py)
    off = " disable_gemv" if target == "a5" and M % tile == 1 else ""
    A, B, C = f"memref<{M}x{K}x{elem}>", f"memref<{K}x{N}x{elem}>", f"memref<{M}x{N}x{acc}>"
    dA = f"memref<?x?x{elem}, strided<[{K}, 1], offset: ?>>"
    dB = f"memref<?x?x{elem}, strided<[{N}, 1], offset: ?>>"
    dC = f"memref<?x?x{acc}, strided<[{N}, 1], offset: ?>>"
    b_layout = "nz" if elem.endswith("i8") else "zz"  # b8 B: LoadDataWithTranspose reads nz squares
    l1a, l1b = f"!pto.tile<l1, {tile}x{tile}x{elem}, nz>", f"!pto.tile<l1, {tile}x{tile}x{elem}, {b_layout}>"
    l0a = f"!pto.tile<l0a, {tile}x{tile}x{elem}, {l0a_layout}>"
    l0b = f"!pto.tile<l0b, {tile}x{tile}x{elem}, zn>"
    l0c = f"!pto.tile<l0c, {tile}x{tile}x{acc}, nz>"
    return f"""builtin.module attributes {{pto.target = "{target}"}} {{
  func.func @gemm(%a: {A}, %b: {B}, %c: {C}) {{
    %c0 = arith.constant 0 : index
    %M = arith.constant {M} : index
    %N = arith.constant {N} : index
    %K = arith.constant {K} : index
    %T = arith.constant {tile} : index
    %a1 = pto.alloc : {l1a}
    %b1 = pto.alloc : {l1b}
    %a0 = pto.alloc : {l0a}
    %b0 = pto.alloc : {l0b}
    %acc = pto.alloc : {l0c}
    scf.for %m0 = %c0 to %M step %T {{
      %mr = arith.subi %M, %m0 : index
      %ms = arith.minsi %mr, %T : index
      scf.for %n0 = %c0 to %N step %T {{
        %nr = arith.subi %N, %n0 : index
        %ns = arith.minsi %nr, %T : index
        scf.for %k0 = %c0 to %K step %T {{
          %kr = arith.subi %K, %k0 : index
          %ks = arith.minsi %kr, %T : index
          %aw = memref.subview %a[%m0, %k0] [%ms, %ks] [1, 1] : {A} to {dA}
          %bw = memref.subview %b[%k0, %n0] [%ks, %ns] [1, 1] : {B} to {dB}
          pto.mte_gm_l1 %aw, %a1, %ms, %ks : {dA}, {l1a}
          pto.mte_gm_l1 %bw, %b1, %ks, %ns : {dB}, {l1b}
          pto.mte_l1_l0a %a1, %a0, %ms, %ks : {l1a}, {l0a}
          pto.mte_l1_l0b %b1, %b0, %ks, %ns : {l1b}, {l0b}
          %first = arith.cmpi eq, %k0, %c0 : index
          scf.if %first {{
            pto.mad %a0, %b0, %acc, %ms, %ns, %ks{off} : {l0a}, {l0b}, {l0c}
          }} else {{
            pto.mad_acc %a0, %b0, %acc, %ms, %ns, %ks{off} : {l0a}, {l0b}, {l0c}
          }}
        }}
        %cw = memref.subview %c[%m0, %n0] [%ms, %ns] [1, 1] : {C} to {dC}
        pto.fixpipe %acc, %cw, %ms, %ns : {l0c}, {dC}
      }}
    }}
    func.return
  }}
}}
"""


DT = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "i32": np.int32}


@settings(max_examples=30, deadline=None)
@given(
    M=st.integers(1, 300),
    N=st.integers(1, 300),
    K=st.integers(1, 300),
    elem=st.sampled_from(["f16", "bf16", "f32", "i8"]),
    target=st.sampled_from(["a2", "a5"]),
)
def test_ir_tiled_gemm_equals_numpy(M, N, K, elem, target):
    assume(target == "a5" or M % 128 != 1)  # a zz L0A cannot take a one-row panel (GEMV rule)
    acc = "i32" if elem == "i8" else "f32"
    module = parse(tiled_gemm(M, N, K, elem, acc, target=target))
    result = run_module(module, seed=M + N + K)
    a, b, c = (result.outputs[n] for n in ("a", "b", "c"))
    ref = a.astype(np.int64) @ b.astype(np.int64)  # random inputs are small integers: exact
    assert np.array_equal(c, ref.astype(c.dtype))
    tiles = -(-M // 128) * -(-N // 128) * -(-K // 128)
    assert result.op_counts["pto.mad"] + result.op_counts.get("pto.mad_acc", 0) == tiles
    assert result.peak_bytes["l0c"] == 128 * 128 * 4


def test_example_gemm_f16_128():
    import pathlib

    path = pathlib.Path(__file__).parents[3] / "examples" / "gemm_f16_128.mlir"
    module = parse(path.read_text())
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 128)).astype(np.float16)
    b = rng.standard_normal((128, 128)).astype(np.float16)
    c = run_module(module, inputs={"a": a, "b": b}).outputs["c"]
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_gather_mask_ir_returns_the_count():
    text = """builtin.module attributes {pto.target = "a2"} {
    func.func @g(%src: memref<128xui16>, %dst: memref<128xui16>) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %s = pto.alloc : !pto.tile<ub, 128xui16, nd>
      %d = pto.alloc : !pto.tile<ub, 128xui16, nd>
      pto.mte_gm_ub %src, %s : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
      %n = pto.gather_mask %d, %s, %c0, %c1, %c1, %c0, %c0 {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
      pto.mte_ub_gm %d, %dst : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
      func.return %n : index
    }
    }"""
    src = np.arange(1, 129, dtype=np.uint16)
    result = run_module(parse(text), inputs={"src": src, "dst": np.zeros(128, np.uint16)})
    assert result.results == (64,)
    assert np.array_equal(result.outputs["dst"][:64], np.arange(2, 129, 2))


def test_alloc_in_a_loop_is_one_buffer_and_reinterpret_aliases():
    text = """builtin.module {
    func.func @k(%x: memref<16xf16>, %y: memref<16xbf16>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c1 {
        %t = pto.alloc : !pto.tile<ub, 16xf16, nd>
        pto.mte_gm_ub %x, %t : memref<16xf16>, !pto.tile<ub, 16xf16, nd>
        %v = pto.reinterpret %t : !pto.tile<ub, 16xf16, nd> to !pto.tile<ub, 16xbf16, nd>
        pto.mte_ub_gm %v, %y : !pto.tile<ub, 16xbf16, nd>, memref<16xbf16>
      }
      func.return
    }
    }"""
    x = np.arange(16, dtype=np.float16)
    result = run_module(parse(text), inputs={"x": x})
    assert result.peak_bytes["ub"] == 32
    assert np.array_equal(result.outputs["y"].view(np.uint16), x.view(np.uint16))


def _single_tile_kernel(alloc_attr: str = "", rows: str = "%n16") -> str:
    return f"""builtin.module {{
    func.func @k(%a: memref<64x64xf16>, %r: index) {{
      %n16 = arith.constant 16 : index
      %t = pto.alloc {alloc_attr} : !pto.tile<l1, 32x32xf16, nz>
      pto.mte_gm_l1 %a, %t, {rows}, %n16 : memref<64x64xf16>, !pto.tile<l1, 32x32xf16, nz>
      func.return
    }}
    }}"""


def test_runtime_fault_names_the_op_and_its_location():
    module = parse(_single_tile_kernel(rows="%r"))
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 32\] \(rows of the destination tile %t\), got 40$") as err:
        run_module(module, inputs={"r": 40})
    assert str(err.value) == (
        "'pto.mte_gm_l1' op requires rows in [0, 32] (rows of the destination tile %t), got 40"
    )
    assert op_location(err.value.op) == ("test.mlir", 5, 7)
    run_module(module, inputs={"r": 0})  # a runtime 0 is a no-op


def test_capacity_and_alignment_faults():
    # the verifier rejects these static offsets; the executor checks them again (unverified IR)
    with pytest.raises(ExecutionError, match=r"requires buffer %t offset aligned to 32 bytes in l1, got 33"):
        run_module(parse(_single_tile_kernel("{offset = 33 : i64}"), verify=False), inputs={"r": 1})
    with pytest.raises(ExecutionError, match=r"buffer %t of 2048 bytes at offset 524288 exceeds the l1 capacity"):
        run_module(parse(_single_tile_kernel("{offset = 524288 : i64}"), verify=False), inputs={"r": 1})


def test_inputs_are_checked():
    module = parse(_single_tile_kernel())
    entry = find_entry(module)
    assert argument_names(entry) == ["a", "r"]
    with pytest.raises(InputError, match=r"input 'a' has shape 4x4, the argument needs 64x64"):
        run_module(module, inputs={"a": np.zeros((4, 4), np.float16), "r": 1})
    with pytest.raises(InputError, match=r"input 'a' has dtype float32"):
        run_module(module, inputs={"a": np.zeros((64, 64), np.float32), "r": 1})
    with pytest.raises(InputError, match=r"argument 'r' \(index\) needs a value"):
        run_module(module)
    with pytest.raises(InputError, match=r"no argument named 'q'"):
        run_module(module, inputs={"q": 1, "r": 1})
    with pytest.raises(InputError, match=r"no function named 'nope'"):
        run_module(module, "nope")


def test_gather_mask_on_a_target_without_it_is_one_runtime_error():
    # The verifier checks the module's own target; `run_module(target=...)` runs the same IR on
    # another one: the 910 has no GatherMask (its vector unit predates it).
    text = """builtin.module {
  func.func @g(%src: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_src = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %src, %ub_src : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    %kept = pto.gather_mask %ub_dst, %ub_src, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    func.return %kept : index
  }
}
"""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "g.mlir").parse_module()
    src = {"src": np.arange(128, dtype=np.uint16)}
    assert run_module(module, inputs=src, target="a2").results == (64,)
    with pytest.raises(ExecutionError, match="GatherMask does not exist on target 910"):
        run_module(module, inputs=src, target="910")
