"""The `pto` dialect: tile type helpers, element type names, target lookup, programmatic
construction, and clean diagnostics for malformed input through mmair-opt."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    Builtin,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    Signedness,
    StringAttr,
    bf16,
    f8E4M3FN,
    f16,
    f32,
    i8,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects import pto
from mmair.dialects.pto import (
    AllocOp,
    FixpipeOp,
    GatherMaskOp,
    MadOp,
    MteGmL1Op,
    MteL1L0AOp,
    MteL1L0BOp,
    TileType,
    static_value,
    target_of,
)
from mmair.dialects.types import (
    ELEMENT_NAMES,
    UnknownElementTypeError,
    element_name,
    element_type,
    hif8,
)
from mmair.tools.opt import main

# ------------------------------------------------------------------------------------------------
# TileType
# ------------------------------------------------------------------------------------------------


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def test_tile_type_helpers_nz_l1() -> None:
    # A[30, 70] f16 in L1 nz: c0 = 32 B / 2 B = 16, fractal 16 x 16, shape (C1, R1, 16, c0).
    t = TileType("l1", [30, 70], f16, "nz")
    assert t.space_name == "l1"
    assert t.logical_shape == (30, 70)
    assert t.layout_name == "nz"
    assert t.element_name == "f16"
    assert t.physical_shape() == (_ceil(70, 16), _ceil(30, 16), 16, 16)
    assert t.footprint_bytes() == _ceil(70, 16) * _ceil(30, 16) * 512
    assert t.fractal_shape() == (16, 16)
    assert t.padded_shape() == (32, 80)


def test_tile_type_helpers_l0c_and_l0b() -> None:
    # L0C fractals are 16 x 16 elements whatever the type (f32: 1 KB each).
    c = TileType("l0c", [30, 40], f32, "nz")
    assert c.physical_shape() == (_ceil(40, 16), _ceil(30, 16), 16, 16)
    assert c.footprint_bytes() == _ceil(40, 16) * _ceil(30, 16) * 16 * 16 * 4
    # B[70, 40] f16 in L0B zn: fractal c0 x 16 = 16 x 16, shape (K1, N1, 16, c0).
    b = TileType("l0b", [70, 40], f16, "zn")
    assert b.physical_shape() == (_ceil(70, 16), _ceil(40, 16), 16, 16)
    # f32 zn: fractal 8 x 16 (K0 = 8 rows).
    b32 = TileType("l0b", [70, 40], f32, "zn")
    assert b32.physical_shape() == (_ceil(70, 8), _ceil(40, 16), 16, 8)


def test_tile_type_1d_and_subbyte() -> None:
    v = TileType("ub", [128], IntegerType(16, Signedness.UNSIGNED), "nd")
    assert v.matrix_shape == (1, 128)
    assert v.physical_shape() == (128,)
    assert v.footprint_bytes() == 256
    s4 = TileType("l0a", [16, 128], IntegerType(4), "zz")
    assert s4.element_name == "s4"
    # s4: c0 = 64 elements per 32 B; two values per byte.
    assert s4.physical_shape() == (1, 2, 16, 64)
    assert s4.footprint_bytes() == 16 * 128 // 2


def _parse(text: str) -> ModuleOp:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(arith.Arith)
    ctx.load_dialect(func.Func)
    ctx.load_dialect(pto.PTO)
    from xdsl.dialects.test import Test

    ctx.load_dialect(Test)
    return Parser(ctx, text).parse_module()


def test_explicit_factorization_is_checked_then_dropped() -> None:
    module = _parse(
        '%a, %b = "test.op"() : () -> (!pto.tile<l1, 30x70xf16, nz, 5x2x16x16>, '
        "!pto.tile<l1, 30x70xf16, nz>)"
    )
    op = next(iter(module.ops))
    ta, tb = (r.type for r in op.results)
    assert ta == tb == TileType("l1", [30, 70], f16, "nz")


def test_tile_type_rejects_bad_parameters_on_construction() -> None:
    with pytest.raises(VerifyException, match="requires layout in"):
        TileType("l1", [16, 16], f16, "zx")
    with pytest.raises(VerifyException, match="1-D only with layout nd"):
        TileType("ub", [16], f16, "nz")
    with pytest.raises(VerifyException, match="requires space in"):
        TileType("gm", [16, 16], f16, "nd")


# ------------------------------------------------------------------------------------------------
# Element type names (dialects/types.py)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ELEMENT_NAMES)
def test_element_names_round_trip(name: str) -> None:
    assert element_name(element_type(name)) == name


def test_element_name_signedness_and_custom_types() -> None:
    assert element_name(i8) == "s8"
    assert element_name(IntegerType(8, Signedness.SIGNED)) == "s8"
    assert element_name(IntegerType(16, Signedness.UNSIGNED)) == "u16"
    assert element_name(i32) == "s32"
    assert element_name(bf16) == "bf16"
    assert element_name(f8E4M3FN) == "e4m3"
    assert element_name(hif8) == "hif8"
    with pytest.raises(UnknownElementTypeError, match="element type index has no isa name"):
        element_name(IndexType())
    with pytest.raises(UnknownElementTypeError, match="unknown element name 'f64'"):
        element_type("f64")


# ------------------------------------------------------------------------------------------------
# target_of / static_value
# ------------------------------------------------------------------------------------------------


def _module_with(op_list: list, target: str | None) -> ModuleOp:
    module = ModuleOp(op_list)
    if target is not None:
        module.attributes["pto.target"] = StringAttr(target)
    return module


def test_target_of_reads_the_module_attribute() -> None:
    alloc = AllocOp(TileType("l1", [16, 16], f16, "nz"))
    _module_with([alloc], None)
    assert target_of(alloc).name == "a2"
    alloc5 = AllocOp(TileType("l1", [16, 16], f16, "nz"))
    _module_with([alloc5], "a5")
    assert target_of(alloc5).name == "a5"
    bad = AllocOp(TileType("l1", [16, 16], f16, "nz"))
    _module_with([bad], "a9")
    with pytest.raises(VerifyException, match=r"requires pto.target in \[.*a2.*\], got \"a9\""):
        target_of(bad)


def test_static_value() -> None:
    const = arith.ConstantOp(IntegerAttr(42, IndexType()))
    assert static_value(const.result) == 42
    block = Block(arg_types=[IndexType()])
    assert static_value(block.args[0]) is None


# ------------------------------------------------------------------------------------------------
# Programmatic construction
# ------------------------------------------------------------------------------------------------


def _gemm_module(m: int, n: int, k: int, target: str = "a2") -> ModuleOp:
    """The f16 GEMM of examples/gemm_f16_128.mlir, built with the op constructors."""
    a_t, b_t, c_t = (MemRefType(f16, [m, k]), MemRefType(f16, [k, n]), MemRefType(f32, [m, n]))
    block = Block(arg_types=[a_t, b_t, c_t])
    a, b, c = block.args
    cm, cn, ck = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (m, n, k))
    l1_a = AllocOp(TileType("l1", [m, k], f16, "nz"))
    l1_b = AllocOp(TileType("l1", [k, n], f16, "zz"))
    l0a = AllocOp(TileType("l0a", [m, k], f16, "zz"))
    l0b = AllocOp(TileType("l0b", [k, n], f16, "zn"))
    l0c = AllocOp(TileType("l0c", [m, n], f32, "nz"))
    block.add_ops(
        [
            cm, cn, ck, l1_a, l1_b, l0a, l0b, l0c,
            MteGmL1Op(a, l1_a, cm, ck),
            MteGmL1Op(b, l1_b, ck, cn),
            MteL1L0AOp(l1_a, l0a, cm, ck),
            MteL1L0BOp(l1_b, l0b, ck, cn),
            MadOp(l0a, l0b, l0c, cm, cn, ck),
            FixpipeOp(l0c, c, cm, cn),
            func.ReturnOp(),
        ]
    )
    fn = func.FuncOp("gemm", ((a_t, b_t, c_t), ()), Region(block))
    return _module_with([fn], target)


def test_programmatic_gemm_verifies_and_round_trips() -> None:
    module = _gemm_module(30, 48, 70)
    module.verify()
    out = StringIO()
    Printer(stream=out).print_op(module)
    text = out.getvalue()
    assert "pto.mad %" in text
    reparsed = _parse(text)
    reparsed.verify()
    assert reparsed.is_structurally_equivalent(module)


def test_programmatic_invalid_op_names_op_field_and_value() -> None:
    module = _gemm_module(16, 16, 32)
    mad = next(op for op in module.walk() if isinstance(op, MadOp))
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    assert mad.parent_block() is not None
    mad.parent_block().insert_op_before(zero, mad)
    mad.operands[3] = zero.result  # m
    with pytest.raises(VerifyException, match=r"requires m to be positive, got 0\n") as info:
        module.verify()
    assert str(info.value) == "'pto.mad' op requires m to be positive, got 0"


def test_gather_mask_constructor_builds_the_result() -> None:
    c0, c1, c8 = (arith.ConstantOp(IntegerAttr(v, IndexType())) for v in (0, 1, 8))
    u16 = IntegerType(16, Signedness.UNSIGNED)
    dst = AllocOp(TileType("ub", [128], u16, "nd"))
    src = AllocOp(TileType("ub", [128], u16, "nd"))
    gm = GatherMaskOp(dst, src, c0, c1, c1, c8, c8, pattern=2)
    module = _module_with([c0, c1, c8, dst, src, gm], "a2")
    module.verify()
    assert isinstance(gm.count.type, IndexType)
    bad = GatherMaskOp(dst, src, c0, c1, c1, c8, c8, pattern=7)
    _module_with([c0.clone(), bad], "310p")
    with pytest.raises(VerifyException, match=r"requires pattern in \[1, 6\] on target 310p, got 7"):
        bad.verify_()


# ------------------------------------------------------------------------------------------------
# mmair-opt on malformed pto input: exit 1, one located `error:` line, no traceback
# ------------------------------------------------------------------------------------------------

_ALLOC = "%t = pto.alloc : !pto.tile<l1, 16x16xf16, nz>\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("%t = pto.alloc : !pto.tile<l1, 16x16x", "error:"),  # truncated file
        (_ALLOC + "pto.nope %t : !pto.tile<l1, 16x16xf16, nz>\n", "error:"),  # unknown op
        (  # wrong operand type: a memref where mad takes a tile
            '%c16 = arith.constant 16 : index\n%m = "test.op"() : () -> memref<16x16xf16>\n'
            "pto.mad %m, %m, %m, %c16, %c16, %c16 : memref<16x16xf16>, memref<16x16xf16>, "
            "memref<16x16xf16>\n",
            "error:",
        ),
        (  # out-of-range attribute: built-in pattern 9
            '%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n'
            '%d, %s = "test.op"() : () -> (!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>)\n'
            "%n = pto.gather_mask %d, %s, %c0, %c1, %c1, %c1, %c1 {pattern = 9 : i64} : "
            "!pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>\n",
            "error: 'pto.gather_mask' op requires pattern in [1, 7] on target a2, got 9",
        ),
        ("%t = pto.alloc : !pto.tile<l1, 16x16xf16, nz, 1x1x16x32>\n",  # wrong factorization
         "error: '!pto.tile' requires physical factorization 1x1x16x16"),
    ],
)
def test_malformed_pto_input_is_one_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    rc = main([str(path)])
    captured = capsys.readouterr()
    assert rc == 1
    assert captured.out == ""
    assert message in captured.err
    first = captured.err.splitlines()[0]
    assert first.startswith(f"{path}:") and ": error: " in first
    assert "Traceback" not in captured.err


def test_examples_verify(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[4] / "examples"
    for name in ("gemm_f16_128.mlir", "gather_mask.mlir"):
        assert main([str(root / name)]) == 0
        captured = capsys.readouterr()
        assert captured.err == ""
        assert "pto." in captured.out


# ------------------------------------------------------------------------------------------------
# GatherMask footprint helpers agree with the isa model
# ------------------------------------------------------------------------------------------------


def test_builtin_pattern_kept_counts_match_isa_masks() -> None:
    from mmair.isa.ascend import gather

    for pattern, motif in gather.BUILTIN_PATTERN_MOTIFS.items():
        for count in range(0, 260):
            assert pto._motif_kept(motif, count) == int(
                gather.builtin_pattern_mask(pattern, count).sum()
            )


@pytest.mark.parametrize(
    ("target", "counter", "mask", "repeat"),
    [("a2", False, 0, 3), ("a2", True, 70, 2), ("310p", True, 70, 0), ("310p", True, 128, 9),
     ("310p", True, 300, 1), ("a5", False, 5, 1)],
)
def test_repeat_runs_expand_to_isa_repeat_counts(
    target: str, counter: bool, mask: int, repeat: int
) -> None:
    import numpy as np

    from mmair.isa.ascend import gather
    from mmair.isa.ascend.targets import get_target

    t = get_target(target)
    runs = GatherMaskOp._repeat_runs(t, "u16", counter, mask, repeat)
    assert runs is not None
    expanded = np.concatenate([np.full(times, length) for length, times in runs])
    expected = gather.repeat_counts(counter, t.gather_counter_method, "u16", repeat, mask)
    assert expanded.tolist() == expected.tolist()


def test_huge_counter_mask_is_checked_without_materialising_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (
        'builtin.module attributes {pto.target = "310p"} {\n'
        "  %mask = arith.constant 4294967295 : index\n  %c1 = arith.constant 1 : index\n"
        '  %d, %s = "test.op"() : () -> (!pto.tile<ub, 128xu16, nd>, !pto.tile<ub, 128xu16, nd>)\n'
        "  %n = pto.gather_mask %d, %s, %mask, %c1, %c1, %c1, %c1 {pattern = 1 : i64, counter} : "
        "!pto.tile<ub, 128xu16, nd>, !pto.tile<ub, 128xu16, nd>\n}\n"
    ).replace("xu16", "xui16")
    path = tmp_path / "huge.mlir"
    path.write_text(text)
    assert main([str(path)]) == 1
    assert "'pto.gather_mask' op requires src0 of at least" in capsys.readouterr().err
