"""PTOAS's register-event flags, its syncall and its element types parse and print back as PTOAS
writes them, and syncall makes PTOAS's own verifier checks."""

from __future__ import annotations

import re

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from mmair.dialects.ptoas import ptoas_context
from mmair.dialects.ptoas.detect import is_ptoas
from mmair.dialects.types import HiF8Type


def _module(body: str, args: str = ""):
    return Parser(ptoas_context(), f"func.func @k({args}) {{\n{body}\n  func.return\n}}").parse_module()


@pytest.mark.parametrize("op", [
    "pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_MTE1>, %e]",
    "pto.wait_flag_dyn[<PIPE_M>, <PIPE_FIX>, %e]",
    "pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>",
    "pto.syncall(%gm : !pto.ptr<i32>) mode = #pto.sync_all_mode<soft>, "
    "core_type = #pto.sync_core_type<aic_only>",
    "pto.syncall(%gm, %used : !pto.ptr<i32>, i32) mode = #pto.sync_all_mode<soft>, "
    "core_type = #pto.sync_core_type<aiv_only>",
])
def test_sync_ops_print_back_as_ptoas_prints_them(op: str) -> None:
    module = _module(f"  {op}", "%e: index, %gm: !pto.ptr<i32>, %used: i32")
    module.verify()
    assert f"    {op}\n" in str(module)


def test_the_long_pipe_spelling_of_a_dyn_flag_is_read() -> None:
    module = _module("  pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %e]",
                     "%e: index")
    assert "pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_MTE3>, %e]" in str(module)


def test_a_soft_syncall_without_workspace_is_a_parse_error_with_ptoas_message() -> None:
    with pytest.raises(ParseError, match="custom op 'pto.syncall' expects soft syncall to have "
                                         "gm_workspace and optional used_cores"):
        _module("  pto.syncall() mode = #pto.sync_all_mode<soft>, "
                "core_type = #pto.sync_core_type<mix>")


@pytest.mark.parametrize(("args", "operands", "message"), [
    ("%gm: !pto.tensor_view<15xi32>", "%gm : !pto.tensor_view<15xi32>",
     "expects gm_workspace to contain at least 16 i32 elements (64 bytes), but static capacity "
     "is 15"),
    ("%gm: !pto.tensor_view<16xi32>", "%gm : !pto.tensor_view<16xi32>", None),
    ("%gm: !pto.ptr<f32>", "%gm : !pto.ptr<f32>", "expects gm_workspace element type to be i32"),
    ("%gm: !pto.ptr<i32, ub>", "%gm : !pto.ptr<i32, ub>",
     "expects gm_workspace to be in GM address space"),
])
def test_soft_syncall_workspace_rules(args: str, operands: str, message: str | None) -> None:
    module = _module(f"  pto.syncall({operands}) mode = #pto.sync_all_mode<soft>, "
                     "core_type = #pto.sync_core_type<mix>", args)
    if message is None:
        module.verify()
    else:
        with pytest.raises(VerifyException, match=re.escape(message)):
            module.verify()


@pytest.mark.parametrize("name", ["f8E8M0", "hif8x2", "f4E1M2x2", "f4E2M1x2", "bf16x2"])
def test_ptoas_element_types_print_back_and_mark_ptoas_text(name: str) -> None:
    text = f"!pto.ptr<!pto.{name}>"
    assert str(Parser(ptoas_context(), text).parse_type()) == text
    assert is_ptoas(f"func.func @k(%a: memref<4x!pto.{name}>) {{}}")


def test_hif8_is_mmairs_own_type() -> None:
    ptr = Parser(ptoas_context(), "!pto.ptr<!pto.hif8>").parse_type()
    assert isinstance(ptr.element_type, HiF8Type)


@pytest.mark.parametrize("op", ["pto.set_flag_dyn[<PIPE_MTE2>, <PIPE_MTE1>, %e]",
                                "pto.syncall() mode = #pto.sync_all_mode<hard>, "
                                "core_type = #pto.sync_core_type<mix>"])
def test_sync_ops_alone_mark_ptoas_text(op: str) -> None:
    assert is_ptoas(f"func.func @k(%e: index) {{\n  {op}\n}}")
