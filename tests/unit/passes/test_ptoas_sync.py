"""ptoas-to-mmair on PTOAS's register-event flags, syncall and element types: a `_dyn` flag keeps
its event id as a value (the checker judges the id the kernel computes), syncall is mmair's
all-core barrier, and what mmair does not model is refused at the op."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float8E8M0FNUType, MemRefType, i32
from xdsl.parser import Parser

from mmair.dialects import pto
from mmair.dialects.ptoas import ptoas_context
from mmair.dialects.types import HiF8Type
from mmair.passes.ptoas_to_mmair import ConversionError, convert_module
from mmair.tools import run

KERNEL = "tests/filecheck/ptoas/kloop_dyn_flags.pto"


def _converted(text: str):
    module = Parser(ptoas_context(), text).parse_module()
    convert_module(module)
    return module


def _kernel() -> str:
    with open(KERNEL) as f:
        return f.read()


def test_a_dyn_flag_takes_its_event_id_as_the_runtime_operand() -> None:
    module = _converted(_kernel())
    dyn = [op for op in module.walk() if isinstance(op, pto.SetFlagOp | pto.WaitFlagOp)
           and op.event is not None]
    assert [(op.name, op.src.data, op.dst.data) for op in dyn] == [
        ("pto.set_flag", "mte2", "mte1"), ("pto.wait_flag", "mte2", "mte1")]
    assert all(isinstance(op.event.owner, arith.RemUIOp) for op in dyn)
    assert sum(isinstance(op, pto.SyncAllOp) for op in module.walk()) == 1


def test_a_soft_syncall_workspace_becomes_a_16_word_gm_tensor() -> None:
    module = _converted("""func.func @k(%gm: !pto.ptr<i32>) {
  pto.syncall(%gm : !pto.ptr<i32>) mode = #pto.sync_all_mode<soft>, core_type = #pto.sync_core_type<mix>
  func.return
}""")
    fn = next(op for op in module.ops)
    assert list(fn.function_type.inputs.data) == [MemRefType(i32, [16])]
    assert [op.name for op in fn.body.block.ops] == ["pto.sync_all", "func.return"]


@pytest.mark.parametrize(("syncall", "message"), [
    ("pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<aiv_only>",
     "'pto.syncall' op is a vector-core barrier (core_type aiv_only); mmair models the cube "
     "cores only: core_type in [aic_only, mix]"),
    ("pto.syncall(%gm, %n : !pto.ptr<i32>, i32) mode = #pto.sync_all_mode<soft>, "
     "core_type = #pto.sync_core_type<mix>",
     "'pto.syncall' op requires no used_cores: mmair's pto.sync_all waits for every core of the "
     "launch, a barrier over part of it is not modelled"),
])
def test_syncalls_mmair_does_not_model_are_refused(syncall: str, message: str) -> None:
    args = "%gm: !pto.ptr<i32>, %n: i32" if "%gm" in syncall else ""
    with pytest.raises(ConversionError, match=f"^{re.escape(message)}$"):
        _converted(f"func.func @k({args}) {{\n  {syncall}\n  func.return\n}}")


def test_element_types_map_to_mmairs() -> None:
    module = _converted("""func.func @k(%a: !pto.ptr<!pto.f8E8M0>, %b: !pto.ptr<!pto.hif8>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %ta = pto.make_tensor_view %a, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?x!pto.f8E8M0>
  %tb = pto.make_tensor_view %b, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?x!pto.hif8>
  func.return
}""")
    fn = next(op for op in module.ops)
    a, b = fn.function_type.inputs.data
    assert isinstance(a.element_type, Float8E8M0FNUType)
    assert isinstance(b.element_type, HiF8Type)


@pytest.mark.parametrize("packed", ["hif8x2", "f4E1M2x2", "f4E2M1x2", "bf16x2"])
def test_a_packed_pair_tile_is_refused_naming_the_legal_set(packed: str) -> None:
    expected = (f"'pto.alloc_tile' op requires an unpacked element type in [f16, bf16, f32, tf32, "
                f"s4, s8, s16, s32, u8, u16, u32, u64, e4m3, e5m2, hif8, e2m3, e3m2, e2m1], got "
                f"!pto.{packed} (a packed pair of two values in one element, which mmair does "
                f"not model)")
    with pytest.raises(ConversionError, match=f"^{re.escape(expected)}$"):
        _converted(f"""func.func @k() {{
  %t = pto.alloc_tile : !pto.tile_buf<loc=mat, dtype=!pto.{packed}, rows=32, cols=32>
  func.return
}}""")


def _run(tmp_path, capsys, text: str) -> tuple[int, str]:
    path = tmp_path / "k.pto"
    path.write_text(text)
    code = run.main([str(path), "--check-numpy"])
    return code, capsys.readouterr().err


def test_the_dyn_flag_kernel_runs_clean_and_matches_numpy(tmp_path, capsys) -> None:
    assert _run(tmp_path, capsys, _kernel()) == (0, "")


def test_a_computed_event_id_out_of_range_is_reported_at_the_ptoas_op(tmp_path, capsys) -> None:
    text = _kernel().replace("%e = arith.remui %i, %c1 : index", "%e = arith.muli %i, %c4 : index")
    code, err = _run(tmp_path, capsys, text)
    line = text.splitlines().index(
        "      pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE1>, %e]") + 1
    assert code == 1
    assert err.splitlines()[0] == (
        f"{tmp_path / 'k.pto'}:{line}:7: error: 'pto.set_flag_dyn' (mmair pto.set_flag) op event "
        f"id 8 of mte2 -> mte1 is out of range at run time: target a2 has event ids 0..7 per pipe "
        f"pair")


def test_a_wait_on_another_register_id_is_a_deadlock(tmp_path, capsys) -> None:
    text = _kernel().replace("pto.wait_flag_dyn[<PIPE_MTE2>, <PIPE_MTE1>, %e]",
                             "pto.wait_flag_dyn[<PIPE_MTE2>, <PIPE_MTE1>, %c1]")
    code, err = _run(tmp_path, capsys, text)
    assert code == 1
    assert "op deadlock: " in err
    assert "pipe mte1 waits at 'pto.wait_flag_dyn' (mmair pto.wait_flag) at " in err
    assert "for flag mte2 -> mte1 event 1" in err
