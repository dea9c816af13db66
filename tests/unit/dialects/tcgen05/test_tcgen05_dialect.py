"""Tests of the `tcgen05` dialect: descriptor attributes, ops, their syntax and verifiers.

Expected descriptor words and fields come from the tables of the tcgen05 reference (§11 test vectors,
PTX examples); they are not produced by the code under test.
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tcgen05_testing import TCGEN05_CONTEXT
from tcgen05_vectors import VALID_IDESC_VECTORS
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import Builtin, ModuleOp, StringAttr, f16, f32, i1, i32, i64
from xdsl.ir import Attribute, Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from mmair.dialects.tcgen05 import (
    SMEM,
    TARGET_ATTR,
    TCGEN05,
    TMEM,
    AllocOp,
    DeallocOp,
    IdescAttr,
    MakeIdescOp,
    MakeSmemDescOp,
    MakeZcmaskOp,
    MmaOp,
    SmemAllocOp,
    SmemDescAttr,
    ZcmaskAttr,
    normalise_scale_vec,
    smem_type,
    tmem_type,
)
from mmair.isa.tcgen05.idesc import InstrDesc
from mmair.isa.tcgen05.smem import SmemDesc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask

IDESC_VECTORS = VALID_IDESC_VECTORS

SMEM_VECTORS: list[tuple[SmemDesc, int]] = [
    (SmemDesc(0x400, 16, 1024, 0, "relative", "sw128"), 0x4000404000010040),
    (SmemDesc(0, 256, 128, 0, "relative", "none"), 0x0000400800100000),
    (SmemDesc(0x1000, 256, 512, 0, "relative", "sw32"), 0xC000402000100100),
    (SmemDesc(0x2000, 512, 1024, 0, "relative", "sw64"), 0x8000404000200200),
]

# PTX zero-column mask examples 1-4 (PTX zero-column mask descriptor).
ZCMASK_VECTORS: list[tuple[ZeroColumnMask, int]] = [
    (ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), False, 4, 3, 0), 0x0003040000000000),
    (ZeroColumnMask((0, 0, 0, 0), (0, 0, 0, 0), True, 2, 3, 0), 0x0003028000000000),
    (ZeroColumnMask((0, 0, 0, 0), (1, 0, 0, 0), True, 2, 3, 0), 0x0003028100000000),
    (ZeroColumnMask((0, 1, 2, 1), (1, 1, 0, 0), True, 2, 3, 2), 0x0203028301020100),
]

TMEM_D = tmem_type([128, 256], f32)


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, func.Func, arith.Arith, test_dialect.Test, TCGEN05):
        ctx.load_dialect(dialect)
    return ctx


def _parse(text: str) -> ModuleOp:
    module = Parser(_context(), text, "test.mlir").parse_module()
    module.verify()
    return module


def _print(op: ModuleOp | Attribute, generic: bool = False) -> str:
    out = StringIO()
    printer = Printer(stream=out, print_generic_format=generic)
    if isinstance(op, ModuleOp):
        printer.print_op(op)
    else:
        printer.print_attribute(op)
    return out.getvalue()


def _parse_attr(text: str) -> Attribute:
    return Parser(_context(), text).parse_attribute()


def _kernel(*ops_builder, target: str | None = None) -> ModuleOp:
    """A module with `func.func @k(%en: i1, %desc: i64)` whose body the builder fills."""
    block = Block(arg_types=[i1, i64])
    body = ops_builder[0](block.args[0], block.args[1])
    block.add_ops([*body, func.ReturnOp()])
    kernel = func.FuncOp("k", ((i1, i64), ()), Region(block))
    module = ModuleOp([kernel])
    if target is not None:
        module.attributes[TARGET_ATTR] = StringAttr(target)
    return module


# ---------------------------------------------------------------------------------------------
# Attributes


@pytest.mark.parametrize("fields, word", IDESC_VECTORS)
def test_idesc_attr_holds_the_reference_word(fields: InstrDesc, word: int) -> None:
    attr = IdescAttr(fields)
    assert attr.word.data == word
    assert attr.kind.data == fields.kind
    assert attr.desc == fields
    assert attr == IdescAttr(word, fields.kind)


@pytest.mark.parametrize("fields, word", IDESC_VECTORS)
def test_idesc_text_round_trip(fields: InstrDesc, word: int) -> None:
    from_word = _parse_attr(f"#tcgen05.idesc<kind = {fields.kind}, word = {word:#x}>")
    assert from_word == IdescAttr(fields)
    text = _print(from_word)
    assert text.startswith(f"#tcgen05.idesc<kind = {fields.kind}, ")
    assert _parse_attr(text) == from_word


@pytest.mark.parametrize("fields, word", SMEM_VECTORS)
def test_smem_desc_attr_reference_vectors(fields: SmemDesc, word: int) -> None:
    attr = SmemDescAttr(fields)
    assert attr.word.data == word
    assert attr.desc == fields
    text = _print(attr)
    assert _parse_attr(text) == attr
    assert _parse_attr(f"#tcgen05.smem_desc<word = {word:#x}>") == attr


@pytest.mark.parametrize("fields, word", ZCMASK_VECTORS)
def test_zcmask_attr_reference_vectors(fields: ZeroColumnMask, word: int) -> None:
    attr = ZcmaskAttr(fields)
    assert attr.word.data == word
    assert attr.desc == fields
    assert _parse_attr(_print(attr)) == attr


def test_attribute_equality_is_word_equality() -> None:
    a = _parse_attr("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, "
                    "n = 256, transpose_a = false, negate_b = false>")
    b = _parse_attr("#tcgen05.idesc<n = 256, m = 128, btype = f16, atype = f16, dtype = f32, "
                    "kind = f16>")
    assert a == b and hash(a) == hash(b)
    # The same word under another kind's layout is a different descriptor.
    # (0x08400010 is f16 x f16 under kind::f16 and e4m3 x e4m3 under kind::f8f6f4: codes 0.)
    assert IdescAttr(0x08400010, "f8f6f4") != IdescAttr(0x08400010, "f16")
    assert IdescAttr(0x08400010, "f8f6f4").desc.atype == "e4m3"
    assert _print(a) == ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, "
                         "m = 128, n = 256>")


@settings(max_examples=200, deadline=None)
@given(
    start=st.integers(0, (1 << 14) - 1),
    lbo=st.integers(0, (1 << 14) - 1),
    sbo=st.integers(0, (1 << 14) - 1),
    swizzle=st.sampled_from(["none", "sw128", "sw64", "sw32"]),
)
def test_smem_desc_print_parse_keeps_the_word(start: int, lbo: int, sbo: int, swizzle: str) -> None:
    # Base offset per Table 41: 0 on the swizzle repeat boundary, else (start >> 7) & 7.
    repeat = {"none": None, "sw128": 1024, "sw64": 512, "sw32": 256}[swizzle]
    address = start << 4
    base = 0 if repeat is None or address % repeat == 0 else (address >> 7) & 7
    word = start | lbo << 16 | sbo << 32 | 1 << 46 | base << 49
    word |= {"none": 0, "sw128": 2, "sw64": 4, "sw32": 6}[swizzle] << 61
    attr = SmemDescAttr(word)
    assert _parse_attr(_print(attr)).word.data == word


@settings(max_examples=200, deadline=None)
@given(
    starts=st.lists(st.integers(0, 255), min_size=4, max_size=4),
    firsts=st.lists(st.integers(0, 1), min_size=4, max_size=4),
    nonzero=st.integers(0, 1),
    skip=st.integers(0, 255),
    use=st.integers(0, 255),
    shift=st.integers(0, 32),
)
def test_zcmask_print_parse_keeps_the_word(
    starts: list[int], firsts: list[int], nonzero: int, skip: int, use: int, shift: int
) -> None:
    word = sum(s << (8 * i) for i, s in enumerate(starts))
    word |= sum(f << (32 + i) for i, f in enumerate(firsts))
    word |= nonzero << 39 | skip << 40 | use << 48 | shift << 56
    attr = ZcmaskAttr(word)
    assert _parse_attr(_print(attr)).word.data == word


@pytest.mark.parametrize(
    "build, rule",
    [
        (lambda: IdescAttr(0x08400050, "f16"), "[R1]"),  # reserved bit 6
        (lambda: IdescAttr(InstrDesc("i8", 128, 256, "s8", "u8", "s32", negate_a=True)), "[R5]"),
        (lambda: SmemDescAttr(0x4020404000010040), "[R17]"),  # bit 53
        (lambda: SmemDescAttr(0x6000404000010040), "[R18]"),  # swizzle code 3
        (lambda: SmemDescAttr(0x201640400002003F), "[R20]"),  # a failing test vector (R20)
        (lambda: ZcmaskAttr(0x4003028000000000), "[R24]"),  # bit 62
        (lambda: ZcmaskAttr(ZeroColumnMask(shift=40)), "[R25]"),
    ],
)
def test_invalid_attributes_do_not_construct(build, rule: str) -> None:
    with pytest.raises(VerifyException, match=rf"\{rule[:-1]}\]"):
        build()


@pytest.mark.parametrize(
    "text, message",
    [
        ("#tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 255>",
         "n = 255 is not an N of any kind::f16 MMA"),
        ("#tcgen05.idesc<kind = f64, m = 128, n = 128>", "kind = f64 is not a tcgen05.mma kind"),
        ("#tcgen05.idesc<kind = f16, m = 128>", "n = (missing) is missing"),
        ("#tcgen05.idesc<kind = f16, m = 128, m = 64, n = 8>", "descriptor key 'm' is given twice"),
        ("#tcgen05.smem_desc<start = 0, lbo = 16, sbo = 16, swizzle = sw16>",
         "swizzle = sw16 is not a swizzle mode"),
        ("#tcgen05.smem_desc<word = 0x4000404000010040, start = 0>",
         "key = start cannot be combined with 'word'"),
        ("#tcgen05.zcmask<start = [0, 0], first = [0, 0, 0, 0]>", "start = [0, 0] is not 4 values"),
    ],
)
def test_attribute_parse_errors_carry_the_descriptor_message(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=re.escape(message)) as info:
        _parse_attr(text)
    assert message in str(info.value)


def test_space_attr_prints_and_parses() -> None:
    text = _print(smem_type([64, 64], f16))
    assert text == "memref<64x64xf16, #tcgen05.space<smem>>"
    assert _parse_attr(text) == smem_type([64, 64], f16)
    assert tmem_type([128, 32], f32).memory_space == TMEM != SMEM


# ---------------------------------------------------------------------------------------------
# Ops


def test_make_ops_result_types() -> None:
    assert MakeIdescOp(IDESC_VECTORS[0][0]).result.type == i32
    assert MakeSmemDescOp(SMEM_VECTORS[0][0]).result.type == i64
    assert MakeZcmaskOp(ZCMASK_VECTORS[1][0]).result.type == i64


def _dense_mma_body(en, desc):
    d = AllocOp(256, TMEM_D)
    idesc = MakeIdescOp(IDESC_VECTORS[0][0])
    b = MakeSmemDescOp(SMEM_VECTORS[0][0])
    mma = MmaOp(d, desc, b, idesc, en, kind="f16", cta_group=1)
    return [d, idesc, b, mma, DeallocOp(d)]


def test_python_built_kernel_verifies_and_round_trips() -> None:
    module = _kernel(_dense_mma_body)
    module.verify()
    custom = _print(module)
    assert "tcgen05.mma kind(f16) cta_group(1) %" in custom
    assert _print(_parse(custom)) == custom
    assert _print(_parse(_print(module, generic=True))) == custom


def test_mma_with_every_optional_group_round_trips() -> None:
    text = """
func.func @k(%en: i1, %desc: i64, %w: i32, %zcm: i64) {
  %d = tcgen05.alloc cta_group(1) columns(128) : memref<128x128xf32, #tcgen05.space<tmem>>
  %a = tcgen05.alloc cta_group(1) columns(32) : memref<128x16xf16, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) ashift collector(a, discard) %d, %a, %desc, %idesc, %en disable_output_lane(%w, %w, %w, %w) scale_input_d(15) : memref<128x128xf32, #tcgen05.space<tmem>>, memref<128x16xf16, #tcgen05.space<tmem>>
  func.return
}
"""
    module = _parse(text)
    mma = next(op for op in module.walk() if isinstance(op, MmaOp))
    assert mma.ashift is not None and mma.collector == "a::discard"
    assert len(mma.disable_output_lane) == 4 and mma.scale_input_d.value.data == 15
    assert mma.a_in_tmem
    printed = _print(module)
    assert _print(_parse(printed)) == printed
    assert _print(_parse(_print(module, generic=True))) == printed


@pytest.mark.parametrize(
    "kind, spelled, stored",
    [
        # .blockNN and .scale_vec::NX are different PTX (NX needs an sm_1xxa target): both kept
        ("mxf8f6f4", "block32", "block32"),
        ("mxf4", "BLOCK32", "block32"),
        ("mxf4nvf4", "block16", "block16"),
        ("mxf4nvf4", "4x", "4X"),
        ("mxf8f6f4", "1X", "1X"),
        ("mxf8f6f4", "block16", "block16"),
    ],
)
def test_scale_vec_normalisation(kind: str, spelled: str, stored: str) -> None:
    assert normalise_scale_vec(kind, spelled) == stored


def test_runtime_descriptors_are_not_checked_statically() -> None:
    def body(en, desc):
        d = AllocOp(256, TMEM_D)
        runtime_idesc = test_dialect.TestOp(result_types=[i32])
        mma = MmaOp(d, desc, desc, runtime_idesc, en, kind="f16")
        return [d, runtime_idesc, mma]

    module = _kernel(body)
    module.verify()  # raises if the runtime word were checked
    mma = next(op for op in module.walk() if isinstance(op, MmaOp))
    assert mma.idesc.owner.name == "test.op"  # no constant behind it: nothing to check statically


def test_constant_descriptor_is_checked_against_the_mma() -> None:
    def body(en, desc):
        d = AllocOp(256, TMEM_D)
        # 0x10400010 is the cta_group::2 vector (M = 256): illegal for this cta_group::1 mma.
        idesc = arith.ConstantOp.from_int_and_width(0x10400010, 32)
        mma = MmaOp(d, desc, desc, idesc, en, kind="f16", cta_group=1)
        return [d, idesc, mma]

    with pytest.raises(VerifyException, match=r"'tcgen05.mma' op idesc: m = 256 .*\[R7\]"):
        _kernel(body).verify()


def test_mixed_cta_groups_in_one_kernel() -> None:
    def body(en, desc):
        d = AllocOp(256, TMEM_D, cta_group=2)
        idesc = MakeIdescOp(IDESC_VECTORS[0][0])
        mma = MmaOp(d, desc, desc, idesc, en, kind="f16", cta_group=1)
        return [d, idesc, mma]

    with pytest.raises(VerifyException, match=r"\[R31\]"):
        _kernel(body).verify()


def test_target_attribute_is_checked() -> None:
    def body(en, desc):
        d = AllocOp(256, tmem_type([128, 256], i32))
        idesc = MakeIdescOp(IDESC_VECTORS[5][0])  # kind::i8
        return [d, idesc, MmaOp(d, desc, desc, idesc, en, kind="i8")]

    _kernel(body, target="sm_100a").verify()
    with pytest.raises(VerifyException, match=r"kind = i8 is not supported on sm_100f.*\[R32\]"):
        _kernel(body, target="sm_100f").verify()
    with pytest.raises(VerifyException, match=r"target = sm_90a does not support tcgen05"):
        _kernel(body, target="sm_90a").verify()


def test_ws_mma_with_zero_column_mask_and_block_scaled_mma_verify() -> None:
    def body(en, desc):
        d = AllocOp(128, tmem_type([32, 64], f32))
        idesc = MakeIdescOp(IDESC_VECTORS[8][0])  # .ws, M = 32, max shift 32
        zcm = MakeZcmaskOp(ZCMASK_VECTORS[3][0])  # example 4 (M = 32, shift 2)
        ws = MmaOp(d, desc, desc, idesc, en, kind="f16", ws=True, zero_column_mask=zcm,
                   collector_usage="b2::lastuse")
        return [d, idesc, zcm, ws]

    module = _kernel(body)
    module.verify()  # raises if R23/R29 refused the legal .ws form
    assert [op.name for op in module.walk() if isinstance(op, MmaOp)] == ["tcgen05.mma"]


def test_smem_alloc_and_alloc_checks() -> None:
    SmemAllocOp(1024, smem_type([128, 64], f16)).verify()
    with pytest.raises(VerifyException, match="offset \\+ size <= 233472 \\(shared memory per CTA\\)"):
        SmemAllocOp(233472 - 1024, smem_type([128, 64], f16)).verify()
    SmemAllocOp(233472 - 16384, smem_type([128, 64], f16)).verify()  # ends exactly at 228 KB
    with pytest.raises(VerifyException, match="requires a result in shared memory"):
        SmemAllocOp(0, tmem_type([8, 8], f16)).verify()
    with pytest.raises(VerifyException, match="requires columns in 32, 64, 128, 256, 512, got 48"):
        AllocOp(48, tmem_type([128, 32], f32)).verify()
    with pytest.raises(VerifyException, match="requires cta_group in 1, 2, got 3"):
        AllocOp(32, tmem_type([128, 32], f32), cta_group=3).verify()


ZERO_D_KERNEL = """func.func @k(%en: i1, %desc: i64) {{
  %d = "test.op"() : () -> memref<{shape}xf32, #tcgen05.space<tmem>>
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 128>
  tcgen05.mma kind(f16) cta_group(1) %d, %desc, %desc, %idesc, %en : memref<{shape}xf32, #tcgen05.space<tmem>>, i64
  func.return
}}"""


ZERO_LD_KERNEL = """func.func @k(%t: memref<0x128xf32, #tcgen05.space<tmem>>) {
  %r = tcgen05.ld shape("32x32b") num(8) warp(0) lane(0) column(0) %t : memref<0x128xf32, #tcgen05.space<tmem>> -> memref<32x8xf32>
  func.return
}"""


def verify_text(text: str) -> None:
    Parser(TCGEN05_CONTEXT, text).parse_module().verify()


@pytest.mark.parametrize("shape", ["0x128", "128x0"])
def test_a_zero_extent_d_is_too_small_for_the_tile(shape):
    # A static extent of 0 is a size (too small), not a dynamic one (xDSL: -1).
    with pytest.raises(VerifyException, match=re.escape(
            f"requires d to hold the 128x128 tile of the idesc, got memref<{shape}xf32, "
            "#tcgen05.space<tmem>>")):
        verify_text(ZERO_D_KERNEL.format(shape=shape))


def test_a_zero_lane_tmem_operand_is_too_small_for_the_access():
    with pytest.raises(VerifyException, match=re.escape(
            "requires lanes 0..31 and columns 0..7 inside the TMEM operand 0x128")):
        verify_text(ZERO_LD_KERNEL)
