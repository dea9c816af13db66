"""Regression tests of the crashes the robustness fuzzer (`tests/fuzz/fuzz_ir.py`) found, one per
root cause. Each input used to end in a traceback, a hang or a relayed Python exception; now each
is one `error:` diagnostic and exit 1 (or, for valid input, exit 0).

More fuzz findings are covered in `test_executor_faults.py`: GatherMask sizes that exhausted host
memory (`test_dynamic_gather_mask_fields`) and unbounded `func.call` recursion
(`test_unbounded_recursion`).
"""

from __future__ import annotations

import re
import time

import pytest

from mmair.tools import opt, run
from mmair.tools.diagnostics import _STRING_LITERAL


def call(capsys, tmp_path, tool, source: str | bytes, *argv: str) -> tuple[int, str]:
    path = tmp_path / "k.mlir"
    if isinstance(source, bytes):
        path.write_bytes(source)
    else:
        path.write_text(source)
    code = tool.main([str(path), *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err


def only_error(err: str) -> str:
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    return errors[0]


# ---- hang: exponential backtracking on an unterminated string literal (tools/diagnostics.py) ---

UNTERMINATED = 'func.func @f() {\n  "%d = arith.constant 2 : index ' + "abc " * 400 + "\n  func.return\n}\n"


@pytest.mark.parametrize("tool", [opt, run])
def test_unterminated_string_literal_is_fast(capsys, tmp_path, tool):
    start = time.perf_counter()
    code, err = call(capsys, tmp_path, tool, UNTERMINATED)
    assert time.perf_counter() - start < 2.0  # xDSL's own regex needs hours for this line
    assert code == 1
    assert re.search(r"k\.mlir:2:3: error: End of file reached before closing string literal",
                     only_error(err))


@pytest.mark.parametrize(("text", "match"), [
    ('""', '""'),
    ('"abc" x', '"abc"'),
    (r'"a\"b" x', r'"a\"b"'),
    (r'"\n\t\\\0A" x', r'"\n\t\\\0A"'),
    ('"abc\n"', None),  # a newline ends the line before the quote
    (r'"\q"', None),  # not an escape
    ('"abc', None),
])
def test_string_literal_regex_language(text, match):
    # The replacement accepts exactly what xDSL's lexer regex accepts.
    found = _STRING_LITERAL.match(text)
    assert (found.group() if found else None) == match


# ---- crash: RecursionError while parsing deeply nested types and attributes --------------------


@pytest.mark.parametrize("tool", [opt, run])
@pytest.mark.parametrize("nest", ["memref<1x{}>", "[{}]"])
def test_deep_nesting(capsys, tmp_path, tool, nest):
    inner = "f32" if nest.startswith("memref") else "1"
    for _ in range(2000):
        inner = nest.format(inner)
    where = f"(%x: {inner})" if nest.startswith("memref") else f"() attributes {{a = {inner}}}"
    code, err = call(capsys, tmp_path, tool, f"func.func @f{where} {{\n  func.return\n}}\n")
    assert code == 1
    assert "error: nesting too deep to parse" in only_error(err)


# ---- crash: an operand defined inside the using op's own region (an unresolved forward reference
# that xDSL's parser leaves in the IR), and a use before the definition (tools/diagnostics.py) ----

NESTED_DEFINITION = """func.func @f() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %late step %c1 {
    %late = arith.constant 4 : index
  }
  func.return
}
"""

USE_BEFORE_DEFINITION = """func.func @f() -> index {
  %b = arith.addi %a, %a : index
  %a = arith.constant 4 : index
  func.return %b : index
}
"""


@pytest.mark.parametrize("tool", [opt, run])
def test_operand_defined_in_nested_region(capsys, tmp_path, tool):
    code, err = call(capsys, tmp_path, tool, NESTED_DEFINITION)
    assert code == 1
    assert re.search(r"k\.mlir:4:3: error: 'scf.for' op operand #1 does not dominate this use",
                     only_error(err))


@pytest.mark.parametrize("tool", [opt, run])
def test_use_before_definition(capsys, tmp_path, tool):
    code, err = call(capsys, tmp_path, tool, USE_BEFORE_DEFINITION)
    assert code == 1
    assert re.search(r"k\.mlir:2:3: error: 'arith.addi' op operand #0 \(%a\) does not dominate "
                     r"this use", only_error(err))


def test_value_from_outside_an_isolated_function(capsys, tmp_path):
    source = """%c = "test.op"() : () -> index
func.func @f() -> index {
  func.return %c : index
}
"""
    code, err = call(capsys, tmp_path, opt, source)
    assert code == 1
    assert "'func.return' op operand #0 (%c) does not dominate this use" in only_error(err)


@pytest.mark.parametrize("source", [
    # Values of enclosing regions, block arguments and loop-carried values are visible.
    """func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %acc, %i : index
    %cond = arith.cmpi eq, %s, %c0 : index
    %t = scf.if %cond -> (index) {
      scf.yield %n : index
    } else {
      scf.yield %s : index
    }
    scf.yield %t : index
  }
  func.return %r : index
}
""",
    # The module body is a graph region: any order.
    """%b = "test.op"(%a) : (index) -> index
%a = "test.op"() : () -> index
""",
])
def test_dominance_accepts_valid_ir(capsys, tmp_path, source):
    code, err = call(capsys, tmp_path, opt, source)
    assert code == 0, err


# ---- crash: an entry memref whose element type has no numpy dtype (executor/runner.py) ---------


@pytest.mark.parametrize("element", ["complex<f32>"])
def test_entry_argument_of_unsupported_element_type(capsys, tmp_path, element):
    # complex<f32> has no isa name (ue8m0, f8E8M0FNU, runs since block-scaled matmuls take it).
    source = f"func.func @f(%x: memref<4x{element}>) {{\n  func.return\n}}\n"
    code, err = call(capsys, tmp_path, run, source)
    assert code == 1
    assert f"error: argument 'x' has type memref<4x{element}>, which the executor cannot pass: " \
        in only_error(err)


# ---- relayed ValueError: a subview with more offsets than the source rank (executor/upstream/memref.py) -


def test_subview_offsets_beyond_the_source_rank(capsys, tmp_path):
    source = """func.func @f(%b: memref<96x64xf16>, %k: index) {
  %bs = memref.subview %b[%k, 0, 0] [32, 64] [1, 1] : memref<96x64xf16> to memref<32x64xf16, strided<[64, 1], offset: ?>>
  func.return
}
"""
    code, err = call(capsys, tmp_path, run, source, "--input", "k=0")
    assert code == 1
    assert re.search(r"k\.mlir:2:3: error: 'memref.subview' op requires 2 offsets, sizes and "
                     r"strides for a rank-2 source, got 3, 2 and 2", only_error(err))


# ---- invalid UTF-8 (byte-flip mutants) -------------------------------------------------------


@pytest.mark.parametrize("tool", [opt, run])
def test_invalid_utf8(capsys, tmp_path, tool):
    code, err = call(capsys, tmp_path, tool, b"func.func @f() {\n  func.return \xff\xfe\n}\n")
    assert code == 1
    assert "error: cannot read input" in only_error(err)


# ---- hang / out-of-memory: unbounded index arithmetic (executor/upstream/arith.py) ----------------------

SQUARING = """func.func @sq(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %c3) -> (index) {
    %y = arith.muli %x, %x : index
    scf.yield %y : index
  }
  func.return %r : index
}
"""


def test_index_arithmetic_wraps_to_64_bits():
    from xdsl.context import Context

    from mmair.dialects import get_all_dialects
    from mmair.executor.runner import run_module
    from mmair.tools.diagnostics import LocatingParser

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, SQUARING, "sq.mlir").parse_module()
    start = time.perf_counter()
    # 3^(2^40) would have 1.7e12 bits; as a 64-bit index it is 3^(2^40) mod 2^64, signed.
    (result,) = run_module(module, "sq", {"n": 40}).results
    assert time.perf_counter() - start < 2.0
    expected = pow(3, 2**40, 2**64)
    assert result == (expected - 2**64 if expected >= 2**63 else expected)


# ---- a "wrong" result: --check-numpy FAILED on a kernel that reads bytes no op wrote -----------
# Found by seed 72 of the raw-form seeds (examples/matmul_s4.mlir expanded, B's copy_nd2nz with
# d_value 17 instead of 45 or dst_nz_c0_stride 193 instead of 192): B's L1 tile shares its address
# with A's, so the bytes the copy skips still hold A's data on the executor (as on the hardware)
# while the reference's fresh tile holds zeros. The check reported 1820 mismatching elements and
# nothing about why; it now says which tile was read before it was written (executor/reference.py
# unwritten_reads). Here the same at tile level: %b1 gets n of its 32 columns.

STALE = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<32x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>, %n: index) {
    %c32 = arith.constant 32 : index
    %a1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, nz>
    %b1 = pto.alloc {offset = 0 : i64} : !pto.tile<l1, 32x32xf16, zz>
    %a0 = pto.alloc : !pto.tile<l0a, 32x32xf16, zz>
    %b0 = pto.alloc : !pto.tile<l0b, 32x32xf16, zn>
    %acc = pto.alloc : !pto.tile<l0c, 32x32xf32, nz>
    pto.mte_gm_l1 %a, %a1, %c32, %c32 : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, nz>
    pto.mte_l1_l0a %a1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, zz>
    pto.mte_gm_l1 %b, %b1, %c32, %n : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>
    pto.mte_l1_l0b %b1, %b0, %c32, %c32 : !pto.tile<l1, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>
    pto.mad %a0, %b0, %acc, %c32, %c32, %c32 : !pto.tile<l0a, 32x32xf16, zz>, !pto.tile<l0b, 32x32xf16, zn>, !pto.tile<l0c, 32x32xf32, nz>
    pto.fixpipe %acc, %c, %c32, %c32 : !pto.tile<l0c, 32x32xf32, nz>, memref<32x32xf32>
    func.return
  }
}
"""


def test_check_numpy_names_a_tile_read_before_it_was_written(capsys, tmp_path):
    args = ("-p", "pto-insert-sync", "--check-numpy", "--input")
    code, err = call(capsys, tmp_path, run, STALE, *args, "n=32")
    assert code == 0, err
    out = tmp_path / "c.npy"
    code, err = call(capsys, tmp_path, run, STALE, *args, "n=16", "--output", f"c={out}")
    assert code == 1
    assert re.search(r"k\.mlir: error: --check-numpy: the 512 elements of c that differ from the "
                     r"reference all depend on bytes of %b1 that no op wrote before the kernel "
                     r"read them: the executor reads what the buffer held before", only_error(err))
    assert not out.exists()


def test_unwritten_reads_explains_only_differences_that_come_from_fresh_tiles():
    """With B fully written nothing depends on fresh tile content: a difference there is not
    explained (None, the check stays a numeric FAILED); with half of B written exactly the
    columns n >= 16 of C depend on %b1."""
    import numpy as np
    from pto_testing import parse
    from xdsl.passes import PassPipeline

    from mmair.executor.reference import unwritten_reads
    from mmair.executor.runner import run_module
    from mmair.passes import get_all_passes

    ctx, module = parse(STALE)
    PassPipeline.parse_spec(get_all_passes(), "pto-insert-sync").apply(ctx, module)
    entry = next(op for op in module.walk() if op.name == "func.func")
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((32, 32)).astype(np.float16) for _ in range(2))
    every = {"c": np.ones((32, 32), bool)}
    full = run_module(module, inputs={"a": a, "b": b, "n": 32})
    assert unwritten_reads(module, entry, {"a": a, "b": b, "n": 32}, full, None, every) is None
    half = run_module(module, inputs={"a": a, "b": b, "n": 16})
    right = {"c": np.arange(32)[None, :].repeat(32, 0) >= 16}
    assert unwritten_reads(module, entry, {"a": a, "b": b, "n": 16}, half, None, right) == ["%b1"]
    assert unwritten_reads(module, entry, {"a": a, "b": b, "n": 16}, half, None, every) is None


# ---- relayed PipeError: a nested module's target (tools/run.py _check_nested_targets) ----------
# Found by seed 73 (a line of another chunk spliced before the module, or a line moved after it):
# the file is then an implicit module holding the stray op and the `builtin.module`, whose
# pto.target = "a5" the verifier used while the executor took the outer module's default a2:
# "'pto.load_2d_v2_gm' op failed: PipeError: ... target a2 has no LoadData2DParamsV2", and with
# --sync-check=off the a5 kernel ran on a2 without a word.

NESTED = """"test.op"() : () -> ()
builtin.module attributes {pto.target = "a5"} {
  func.func @k(%a: memref<1024xf16>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %a1 = pto.alloc : !pto.tile<l1, 32x32xf16, nz>
    pto.load_2d_v2_gm %a[%c0], %a1[%c0] m_start_position %c0 k_start_position %c0 m_step %c2 k_step %c2 src_stride %c2 dst_stride %c2 : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>
    func.return
  }
}
"""


@pytest.mark.parametrize("argv", [(), ("--sync-check=off",), ("--target", "a2")])
def test_nested_module_target_differing_from_the_run_is_one_error(capsys, tmp_path, argv):
    code, err = call(capsys, tmp_path, run, NESTED, *argv)
    assert code == 1
    outer = 'with pto.target = "a2"' if argv == ("--target", "a2") else "without one"
    assert re.fullmatch(
        rf'.*k\.mlir:2:1: error: \'builtin.module\' op sets pto.target = "a5" inside a module '
        rf"{outer}; mmair-run runs the outermost module's target: put the attribute there .*",
        only_error(err))


def test_nested_module_with_the_run_target_runs(capsys, tmp_path):
    code, err = call(capsys, tmp_path, run, NESTED, "--target", "a5")
    assert code == 0, err


# ---- traceback: xDSL verifiers that raise a bare Exception (tools/diagnostics.verify_module) ---
# Found by seed 85 (a deleted index token: `memref.store %kv, %t[] : memref<?xi32>`): xDSL's
# memref.load/store and scf.while verifiers raise `Exception`, not VerifyException, and the
# message escaped mmair-opt and mmair-run as a traceback.

LOAD_WITHOUT_INDEX = """func.func @f(%m: memref<?xi32>) {
  %v = memref.load %m[] : memref<?xi32>
  func.return
}
"""

STORE_WITHOUT_INDEX = """func.func @f(%m: memref<4xi32>, %v: i32) {
  memref.store %v, %m[] : memref<4xi32>
  func.return
}
"""

WHILE_BLOCK_ARGUMENT = """func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %w = scf.while (%k = %c0) : (index) -> index {
    %go = arith.cmpi slt, %k, %n : index
    scf.condition(%go) %k : index
  } do {
  ^bb0(%k2: i32):
    scf.yield %c0 : index
  }
  func.return
}
"""


@pytest.mark.parametrize("tool", [opt, run])
@pytest.mark.parametrize(("source", "where", "message"), [
    (LOAD_WITHOUT_INDEX, "2:3", "'memref.load' op expected an index for each dimension"),
    (STORE_WITHOUT_INDEX, "2:3", "'memref.store' op Expected an index for each dimension"),
    (WHILE_BLOCK_ARGUMENT, "3:3", "'scf.while' op Block arguments with wrong type, expected "
                                  "index, got i32"),
])
def test_xdsl_verifier_exceptions_are_diagnostics(capsys, tmp_path, tool, source, where, message):
    code, err = call(capsys, tmp_path, tool, source)
    assert code == 1
    assert only_error(err).endswith(f"k.mlir:{where}: error: {message}")


# ---- a "wrong" result: --check-numpy FAILED on a kernel whose tiles share bytes -----------------
# Found by seed 13 of the PTOAS corpus (tests/filecheck/ptoas/vpto/gemm_bias.pto with the bias
# tile's address moved onto A's): B is copied into a tile that shares A's bytes before A is moved
# on, so the executor (a byte memory, as the hardware) moves B's data as A while the reference
# keeps the two tiles apart. The check reported a numeric mismatch; it now says the tiles share
# bytes (executor/reference.py overlapping_tiles).
SHARED = STALE.replace(
    "    pto.mte_l1_l0a %a1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, "
    "32x32xf16, zz>\n    pto.mte_gm_l1 %b, %b1, %c32, %n : memref<32x32xf16>, !pto.tile<l1, "
    "32x32xf16, zz>\n",
    "    pto.mte_gm_l1 %b, %b1, %c32, %n : memref<32x32xf16>, !pto.tile<l1, 32x32xf16, zz>\n"
    "    pto.mte_l1_l0a %a1, %a0, %c32, %c32 : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, "
    "32x32xf16, zz>\n")


def test_check_numpy_says_when_tiles_share_bytes(capsys, tmp_path):
    """Only a read after an overlapping write is blamed: STALE reuses A's address for B one after
    the other, and a wrong result there stays a numeric FAILED."""
    from mmair.executor.reference import overlapping_tiles
    from tests.unit.pto_testing import parse as parse_kernel

    assert overlapping_tiles(parse_kernel(STALE)[1]) is None
    assert SHARED != STALE
    args = ("-p", "pto-insert-sync", "--check-numpy", "--input", "n=32")
    code, err = call(capsys, tmp_path, run, SHARED, *args)
    assert code == 1
    assert re.search(r"k\.mlir: error: --check-numpy: c differ from the reference, and the kernel "
                     r"reads tile %a1 after writing tile %b1, which shares its l1 bytes \[0, "
                     r"2048\): the reference keeps each tile's data apart \(it follows tiles, not "
                     r"bytes\)", only_error(err)), err
