"""Tests of `tcgen05-materialize-descriptors` and `tcgen05-raise-descriptors`.

Expected words are test vectors computed from the PTX descriptor tables (and the PTX zero-column mask examples),
not values produced by the code under test. The round trip runs over every valid chunk of the
repository's `.mlir` inputs that use the tcgen05 dialect.
"""

from __future__ import annotations

import itertools
from io import StringIO
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.utils.exceptions import ParseError, VerifyException

from mmair.dialects import get_all_dialects
from mmair.dialects.tcgen05 import MakeIdescOp, MakeSmemDescOp, MakeZcmaskOp, MmaOp
from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.idesc import InstrDesc, encode_idesc
from mmair.passes import get_all_passes
from mmair.passes.tcgen05_materialize_descriptors import Tcgen05MaterializeDescriptorsPass
from mmair.passes.tcgen05_raise_descriptors import Tcgen05RaiseDescriptorsPass, descriptor_role
from mmair.tools.opt import main as opt_main

ROOT = Path(__file__).resolve().parents[3]
MAKE_OPS = (MakeIdescOp, MakeSmemDescOp, MakeZcmaskOp)

# PTX-table test vectors: (kind, word, D memref type, extra mma modifiers) of every valid idesc vector.
IDESC_WORDS: list[tuple[str, int, str, str]] = [
    ("f16", 0x08400010, "128x256xf32", "cta_group(1)"),
    ("f16", 0x04028490, "64x8xf32", "cta_group(1)"),
    ("tf32", 0x08200910, "128x128xf32", "cta_group(1)"),
    ("f8f6f4", 0x08100410, "128x64xf32", "cta_group(1)"),
    ("f8f6f4", 0x04021290, "64x8xf32", "cta_group(1)"),
    ("i8", 0x084000A8, "128x256xi32", "cta_group(1)"),
    ("f16", 0x04052000, "64x16xf16", "cta_group(1)"),
    ("f16", 0xC2100010, "32x64xf32", "cta_group(1) ws"),
    ("f16", 0x10400010, "256x256xf32", "cta_group(2)"),
    ("mxf8f6f4", 0x10A00000, "256x128xf32", "cta_group(2) block_scale(1X)"),
    ("mxf4nvf4", 0x10200480, "256x128xf32", "cta_group(2) block_scale(4X)"),
]
# PTX Table 40 smem vectors and the PTX zero-column mask examples 1-4.
SMEM_WORDS = [0x4000404000010040, 0x0000400800100000, 0xC000402000100100, 0x8000404000200200]
ZCMASK_WORDS = [0x0003040000000000, 0x0003028000000000, 0x0003028100000000, 0x0203028301020100]


def context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def parse(text: str) -> ModuleOp:
    return Parser(context(), text).parse_module()


def show(module: ModuleOp) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def apply(module: ModuleOp, *passes: ModulePass) -> ModuleOp:
    result = module.clone()
    for pass_ in passes:
        pass_.apply(context(), result)
        result.verify()
    return result


MATERIALIZE = Tcgen05MaterializeDescriptorsPass()
RAISE = Tcgen05RaiseDescriptorsPass()


def constant_words(module: ModuleOp) -> dict[str, int]:
    """Name -> unsigned value of every named integer constant."""
    words = {}
    for op in module.walk():
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            width = op.value.type.width.data  # type: ignore[union-attr]
            words[op.result.name_hint or ""] = op.value.value.data % (1 << width)
    return words


def mma_module(idesc: str, kind: str, d_shape: str, modifiers: str, zcmask: str = "") -> str:
    """A module with one mma; `idesc`/`zcmask` are the lines defining %idesc / %zcm."""
    scale = ""
    scale_types = ""
    if "block_scale" in modifiers:
        sf = "memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>"
        scale = " scale(%sf, %sf)"
        scale_types = f", {sf}, {sf}"
    zcm_operand = " zero_column_mask(%zcm)" if zcmask else ""
    d = f"memref<{d_shape}, #tcgen05.space<tmem>>"
    return f"""
func.func @k(%d: {d}, %a: i64, %b: i64, %en: i1, %sf: memref<128x4xf8E8M0FNU, #tcgen05.space<tmem>>) {{
  {idesc}
  {zcmask}
  tcgen05.mma kind({kind}) {modifiers} %d, %a, %b, %idesc, %en{scale}{zcm_operand} : {d}, i64{scale_types}
  func.return
}}
"""


# ----------------------------------------------------------------------------------------------
# Materialize


@pytest.mark.parametrize(("kind", "word", "d_shape", "modifiers"), IDESC_WORDS)
def test_materialize_idesc_gives_the_reference_word(
    kind: str, word: int, d_shape: str, modifiers: str
) -> None:
    module = parse(mma_module(f"%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = {kind}, word = {word:#x}>",
                              kind, d_shape, modifiers))
    result = apply(module, MATERIALIZE)
    assert not any(isinstance(op, MAKE_OPS) for op in result.walk())
    (constant,) = [op for op in result.walk() if isinstance(op, arith.ConstantOp)]
    assert constant.result.type == IntegerAttr(0, 32).type
    assert constant_words(result) == {"idesc": word}


@pytest.mark.parametrize("word", SMEM_WORDS)
def test_materialize_smem_desc_gives_the_reference_word(word: int) -> None:
    module = parse(f"%s = tcgen05.make_smem_desc #tcgen05.smem_desc<word = {word:#x}>")
    result = apply(module, MATERIALIZE)
    (constant,) = list(result.ops)
    assert isinstance(constant, arith.ConstantOp)
    assert str(constant.result.type) == "i64"
    assert constant_words(result) == {"s": word}


@pytest.mark.parametrize("word", ZCMASK_WORDS)
def test_materialize_zcmask_gives_the_reference_word(word: int) -> None:
    module = parse(f"%z = tcgen05.make_zcmask #tcgen05.zcmask<word = {word:#x}>")
    result = apply(module, MATERIALIZE)
    assert str(next(iter(result.ops)).results[0].type) == "i64"
    assert constant_words(result) == {"z": word}


def test_materialize_encodes_field_form_like_the_isa() -> None:
    desc = InstrDesc("f16", 64, 16, "f16", "f16", "f16", negate_a=True, transpose_b=True)
    module = parse(mma_module(
        "%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f16, atype = f16, btype = f16,"
        " m = 64, n = 16, negate_a = true, transpose_b = true>", "f16", "64x16xf16", "cta_group(1)"))
    assert constant_words(apply(module, MATERIALIZE)) == {"idesc": encode_idesc(desc)} == {
        "idesc": 0x04052000
    }


def test_passes_keep_unrelated_dead_ops() -> None:
    # A GreedyRewritePatternApplier would erase these dead Pure ops.
    text = """
%c = arith.constant 3 : i32
%s = arith.addi %c, %c : i32
%i = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x08400010>
"""
    module = parse(text)
    for pass_ in (MATERIALIZE, RAISE):
        assert [op.name for op in apply(module, pass_).ops][:2] == ["arith.constant", "arith.addi"]
    assert len(list(apply(module, MATERIALIZE).ops)) == 3


# ----------------------------------------------------------------------------------------------
# Raise


@pytest.mark.parametrize(("kind", "word", "d_shape", "modifiers"), IDESC_WORDS)
def test_raise_idesc_uses_the_mma_kind(kind: str, word: int, d_shape: str, modifiers: str) -> None:
    signed = word - (1 << 32) if word >> 31 else word
    module = parse(mma_module(f"%idesc = arith.constant {signed} : i32", kind, d_shape, modifiers))
    result = apply(module, RAISE)
    (make,) = [op for op in result.walk() if isinstance(op, MakeIdescOp)]
    assert make.desc.kind.data == kind
    assert make.desc.word.data == word
    assert make.result.name_hint == "idesc"
    assert not any(isinstance(op, arith.ConstantOp) for op in result.walk())


@pytest.mark.parametrize(("word", "zcm"), list(itertools.product(SMEM_WORDS, ZCMASK_WORDS[1:])))
def test_raise_smem_and_zcmask_operands(word: int, zcm: int) -> None:
    # Words written as unsigned hex: the pass reads the constant's bit pattern.
    text = f"""
func.func @k(%d: memref<32x64xf32, #tcgen05.space<tmem>>, %en: i1) {{
  %idesc = arith.constant 0xc2100010 : i32
  %a = arith.constant {word:#x} : i64
  %z = arith.constant {zcm:#x} : i64
  tcgen05.mma kind(f16) cta_group(1) ws %d, %a, %a, %idesc, %en zero_column_mask(%z) : memref<32x64xf32, #tcgen05.space<tmem>>, i64
  func.return
}}
"""
    # Not verified: some sampled pairs break rules across descriptors (the verifier's job); the
    # pass raises each word on its own.
    module = parse(text)
    RAISE.apply(context(), module)
    smem = [op for op in module.walk() if isinstance(op, MakeSmemDescOp)]
    zcms = [op for op in module.walk() if isinstance(op, MakeZcmaskOp)]
    assert [op.desc.word.data for op in smem] == [word]
    assert [op.desc.word.data for op in zcms] == [zcm]
    mma = next(op for op in module.walk() if isinstance(op, MmaOp))
    assert mma.a is smem[0].result and mma.b is smem[0].result
    assert mma.zero_column_mask is zcms[0].result


def test_raise_splits_a_word_with_several_roles() -> None:
    text = """
func.func @k(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %w = arith.constant 0x08400010 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  tcgen05.mma kind(f8f6f4) cta_group(1) %d, %a, %b, %w, %en disable_output_lane(%w, %w, %w, %w) : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
"""
    result = apply(parse(text), RAISE)
    makes = {op.result.name_hint: op for op in result.walk() if isinstance(op, MakeIdescOp)}
    assert set(makes) == {"w_idesc_f16", "w_idesc_f8f6f4"}
    assert makes["w_idesc_f16"].desc.desc.atype == "f16"
    assert makes["w_idesc_f8f6f4"].desc.desc.atype == "e4m3"  # type code 0 of kind::f8f6f4
    mmas = [op for op in result.walk() if isinstance(op, MmaOp)]
    assert [mma.idesc.name_hint for mma in mmas] == ["w_idesc_f16", "w_idesc_f8f6f4"]
    # The lane-mask uses still read the constant.
    assert constant_words(result) == {"w": 0x08400010}
    assert all(value.name_hint == "w" for value in mmas[1].disable_output_lane)


def test_raise_does_not_touch_non_descriptor_constants() -> None:
    text = """
func.func @k(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %idesc: i32, %en: i1) {
  %lanes = arith.constant 0x08400010 : i32
  %other = arith.constant 0x4000404000010040 : i64
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %idesc, %en disable_output_lane(%lanes, %lanes, %lanes, %lanes) : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}
"""
    module = parse(text)
    assert show(apply(module, RAISE)) == show(module)


@pytest.mark.parametrize(
    ("kind", "word", "message"),
    [
        # R1: reserved idesc bit 6 does not decode.
        ("f16", 0x08400050, "idesc 0x08400050: reserved bits = 0x00000040"),
        # R2 (PTX Table 39): decodes, but no f8f6f4 descriptor may accumulate in s32.
        ("f8f6f4", 0x08400020, "idesc: dtype = s32 is not a kind::f8f6f4 accumulator type"),
    ],
)
def test_raise_leaves_invalid_words_for_the_verifier(kind: str, word: int, message: str) -> None:
    module = parse(mma_module(f"%idesc = arith.constant {word:#x} : i32", kind, "128x256xf32",
                              "cta_group(1)"))
    result = module.clone()
    RAISE.apply(context(), result)
    assert show(result) == show(module)
    with pytest.raises(VerifyException, match=message):
        result.verify()


def test_raise_leaves_an_undecodable_smem_word() -> None:
    # Swizzle code 3 (R18).
    text = mma_module("%idesc = arith.constant 0x08400010 : i32", "f16", "128x256xf32", "cta_group(1)")
    text = text.replace("%a: i64, ", "").replace(
        "%idesc = arith.constant", "%a = arith.constant 0x6000404000010400 : i64\n  %idesc = arith.constant")
    result = parse(text)
    RAISE.apply(context(), result)
    assert constant_words(result) == {"a": 0x6000404000010400}
    assert len([op for op in result.walk() if isinstance(op, MakeIdescOp)]) == 1
    with pytest.raises(VerifyException, match=r"a descriptor 0x6000404000010400: .*\[R18\]"):
        result.verify()


# ----------------------------------------------------------------------------------------------
# Round trip over the repository's tcgen05 inputs


def valid_tcgen05_chunks() -> list[tuple[str, str]]:
    """(file:chunk id, text) of every chunk that uses tcgen05 ops and parses and verifies."""
    files = sorted((ROOT / "tests" / "filecheck").rglob("*.mlir")) + sorted((ROOT / "examples").rglob("*.mlir"))
    chunks = []
    for path in files:
        if "Output" in path.parts:
            continue
        text = path.read_text()
        if "tcgen05." not in text:
            continue
        for index, chunk in enumerate(text.split("// -----")):
            code = [ln for ln in chunk.splitlines() if ln.strip() and not ln.strip().startswith("//")]
            if "tcgen05." not in chunk or not code:
                continue
            # An invalid-input chunk says so (its file is *_invalid.mlir or it CHECKs an error);
            # any other chunk that fails to parse or verify fails this test.
            invalid = path.name.endswith("_invalid.mlir") or "error" in chunk
            try:
                parse(chunk).verify()
            except (ParseError, VerifyException):
                if invalid:
                    continue
                raise
            chunks.append((f"{path.relative_to(ROOT)}:{index}", chunk))
    return chunks


CHUNKS = valid_tcgen05_chunks()


def test_round_trip_inputs_exist() -> None:
    # The dialect's ops/attributes tests and both pass tests contribute valid chunks.
    sources = {name.rsplit(":", 1)[0] for name, _ in CHUNKS}
    assert {
        "tests/filecheck/dialects/tcgen05/ops.mlir",
        "tests/filecheck/dialects/tcgen05/attributes.mlir",
        "tests/filecheck/transforms/tcgen05-materialize-descriptors.mlir",
        "tests/filecheck/transforms/tcgen05-raise-descriptors.mlir",
    } <= sources
    assert len(CHUNKS) >= 15


def _fully_raised(module: ModuleOp) -> bool:
    """Every make-op is read only as a descriptor, and raising changes nothing (no constant
    descriptors): the inputs on which materialize-then-raise must be the identity."""
    makes = [op for op in module.walk() if isinstance(op, MAKE_OPS)]
    return all(
        op.result.uses and all(descriptor_role(use) is not None for use in op.result.uses)
        for op in makes
    ) and show(apply(module, RAISE)) == show(module)


def canonical(module: ModuleOp) -> str:
    """The module after CSE with every SSA name dropped: equal words compare equal."""
    result = apply(module, CommonSubexpressionElimination())
    for op in result.walk():
        for value in (*op.results, *(arg for region in op.regions for block in region.blocks
                                     for arg in block.args)):
            value.name_hint = None
    return show(result)


@pytest.mark.parametrize(("name", "text"), CHUNKS, ids=[name for name, _ in CHUNKS])
def test_materialize_then_raise(name: str, text: str) -> None:
    module = parse(text)
    materialized = apply(module, MATERIALIZE)
    assert not any(isinstance(op, MAKE_OPS) for op in materialized.walk())
    round_trip = apply(materialized, RAISE)
    # Identity where every descriptor is read by a tcgen05 op in a single role.
    if _fully_raised(module):
        assert show(round_trip) == show(module)
    # Always: raising keeps the words (materializing again gives the same constants up to names
    # and duplicates of a multi-role word), and raising twice changes nothing.
    assert canonical(apply(round_trip, MATERIALIZE)) == canonical(materialized)
    assert show(apply(round_trip, RAISE)) == show(round_trip)


def test_round_trip_is_exact_on_most_inputs() -> None:
    # The identity case above must not be vacuous.
    assert sum(_fully_raised(parse(text)) for _, text in CHUNKS) >= 8


# ----------------------------------------------------------------------------------------------
# Registration


def test_passes_are_registered() -> None:
    passes = get_all_passes()
    assert passes["tcgen05-materialize-descriptors"]() is Tcgen05MaterializeDescriptorsPass
    assert passes["tcgen05-raise-descriptors"]() is Tcgen05RaiseDescriptorsPass


def test_mmair_opt_runs_both_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(mma_module(
        "%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, word = 0x08400010>",
        "f16", "128x256xf32", "cta_group(1)"))
    assert opt_main([str(path), "-p", "tcgen05-materialize-descriptors"]) == 0
    assert "%idesc = arith.constant 138412048 : i32" in capsys.readouterr().out
    assert opt_main([str(path), "-p", "tcgen05-materialize-descriptors,tcgen05-raise-descriptors"]) == 0
    assert "%idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# isa helper the dialect now shares (PTX block-scale table: block32 = 1X for mxf8f6f4, 2X for mxf4*)


@pytest.mark.parametrize(
    ("kind", "spelled", "size"),
    [
        ("mxf8f6f4", "block32", "1X"),
        ("mxf4", "block32", "2X"),
        ("mxf4nvf4", "block32", "2X"),
        ("mxf4nvf4", "block16", "4X"),
        ("mxf4nvf4", "4X", "4X"),
        ("mxf4", "8X", "8X"),  # not a size: returned unchanged for R30 to reject
    ],
)
def test_scale_vector_size(kind: str, spelled: str, size: str) -> None:
    assert rules.scale_vector_size(kind, spelled) == size
