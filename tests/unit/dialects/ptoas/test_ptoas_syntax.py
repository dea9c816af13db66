"""PTOAS's types, enums and tile ops parse and print back as PTOAS writes them; the detector tells
PTOAS text from mmair's; refused op names are located."""

from __future__ import annotations

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from mmair.dialects.ptoas import ptoas_context
from mmair.dialects.ptoas.detect import KIND_OF, is_ptoas, refusal_message, refused_op
from mmair.dialects.ptoas.names import SUPPORTED
from mmair.dialects.ptoas.types import PtrType, TileBufType

LONG = ("!pto.tile_buf<loc=mat, dtype=f16, rows=32, cols=32, v_row=32, v_col=32, "
        "blayout=col_major, slayout=row_major, fractal=512, pad=0>")


def _type(text: str):
    return Parser(ptoas_context(), text).parse_type()


@pytest.mark.parametrize("text", [
    "!pto.ptr<f16>", "!pto.ptr<f32, l0c>", "!pto.tensor_view<?x?xf16>",
    "!pto.partition_tensor_view<32x32xf16>", LONG,
    "!pto.tile_buf<mat, 32x32xf16, blayout=col_major, slayout=row_major>",
    "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=?>",
])
def test_types_print_back_as_written(text: str) -> None:
    assert str(_type(text)) == text


def test_ptr_legacy_space_alias_prints_canonical() -> None:
    ptr = _type("!pto.ptr<f16, mat>")
    assert isinstance(ptr, PtrType) and ptr.space.data == "l1"
    assert str(ptr) == "!pto.ptr<f16, l1>"


def test_compact_tile_buf_has_the_long_fields() -> None:
    tile = _type("!pto.tile_buf<left, 16x64xbf16>")
    assert isinstance(tile, TileBufType)
    assert (tile.get("loc"), tile.get("rows"), tile.get("cols"), str(tile.get("dtype"))) == (
        "left", 16, 64, "bf16")


def test_bad_tile_buf_field_is_a_parse_error_naming_it() -> None:
    with pytest.raises(ParseError, match="requires field in .*got shape"):
        _type("!pto.tile_buf<loc=mat, shape=3>")


def test_flag_and_barrier_ops_round_trip() -> None:
    text = ("func.func @k() {\n  pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]\n"
            "  pto.wait_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]\n  pto.barrier <PIPE_ALL>\n"
            "  func.return\n}")
    module = Parser(ptoas_context(), text).parse_module()
    printed = str(module)
    for line in text.splitlines()[1:4]:
        assert line.strip() in printed
    # The long enum attribute spelling is read too.
    other = Parser(ptoas_context(), "pto.barrier #pto.pipe<PIPE_ALL>").parse_module()
    assert "pto.barrier <PIPE_ALL>" in str(other)


def test_ins_outs_read_a_tile_buf_written_without_its_prefix() -> None:
    """PTOAS prints the tile types of an ins / outs list stripped (`<loc=left, ...>`, its MatMul
    samples' tmatmul.bias); they are the tile_buf types, printed back qualified."""
    stripped = LONG.removeprefix("!pto.tile_buf")
    text = ("func.func @k() {\n"
            f"  %t = pto.alloc_tile : {LONG}\n"
            f"  pto.tmov ins(%t : {stripped}) outs(%t : {LONG})\n"
            "  func.return\n}")
    module = Parser(ptoas_context(), text).parse_module()
    move = next(op for op in module.walk() if op.name == "pto.tmov")
    assert isinstance(move.operands[0].type, TileBufType)
    assert f"ins(%t : {LONG}) outs(%t : {LONG})" in str(module)
    with pytest.raises(ParseError, match="requires field in .*got bogus"):
        Parser(ptoas_context(), text.replace(f"ins(%t : {stripped})", "ins(%t : <bogus=1>)")
               ).parse_module()


def test_detector() -> None:
    assert is_ptoas("func.func @k(%a: !pto.ptr<f16>) {}")
    assert is_ptoas('module attributes {pto.target_arch = "a5"} {}')
    assert is_ptoas("pto.set_flag[<PIPE_MTE2>, <PIPE_MTE1>, <EVENT_ID0>]")
    # The memref operand form alone (no other PTOAS marker) is PTOAS text too: its address space
    # is read and checked by PTOAS's attribute, not reported as unregistered.
    assert is_ptoas("func.func @k(%a: memref<?xf16, #pto.address_space<gm>>) {}")
    with open("examples/gemm_f16_128.mlir") as f:
        assert not is_ptoas(f.read())  # mmair's own spelling
    assert not is_ptoas("// !pto.ptr<f16> in a comment only\n")


def test_refused_op_is_located_by_name() -> None:
    text = "func.func @k() {\n  // pto.tadd in a comment\n  %x = pto.tadd ins() outs()\n}"
    assert refused_op(text) == ("pto.tadd", "vector tile", 3, 8)
    assert refusal_message("pto.tadd", "vector tile") == (
        "'pto.tadd' is a PTOAS vector tile op that mmair does not model (docs/ptoas.md)")


def test_supported_names_are_not_refused() -> None:
    assert not {f"pto.{n}" for n in SUPPORTED} & set(KIND_OF)
    assert KIND_OF["pto.comm.tput"] == "communication"
    assert KIND_OF["pto.mad_mx"] == "VPTO cube micro"
    assert "pto.mad" not in KIND_OF  # VPTO mad is read (dialects/ptoas/vpto.py)
