"""Values are named as the source writes them (`mmair.dialects.value_names`).

xDSL's parser drops a trailing `_<digits>` from a value's name_hint (`%l1_0` and `%l1_1` both
become `l1`, `%x_1` becomes `x`); the mmair tools keep the written name for their messages and
for mmair-run's argument names, and leave the printed IR unchanged.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from pto_testing import LOOP, parse
from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.parser import Parser
from xdsl.printer import Printer

from mmair.dialects import get_all_dialects, pto
from mmair.dialects.value_names import value_label, value_name
from mmair.executor.runner import argument_names
from mmair.passes.multi_buffer import PreconditionError, multi_buffer
from mmair.tools import opt, run
from mmair.tools.diagnostics import LocatingParser

# Two UB tiles at the same address: GatherMask reads `%ub_1` while MTE2 may still be writing
# `%ub_0` (no set_flag mte2 -> v / wait_flag mte2 -> v). The arguments are `%x` and `%x_1`.
RACE = """builtin.module attributes {pto.target = "a2"} {
  func.func @gather(%x: memref<128xui16>, %x_1: memref<128xui16>) -> index {
    %zero = arith.constant 0 : index
    %one = arith.constant 1 : index
    %eight = arith.constant 8 : index
    %ub_0 = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_1 = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    %ub_dst = pto.alloc {offset = 256 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %x, %ub_0 : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    %kept = pto.gather_mask %ub_dst, %ub_1, %zero, %one, %one, %eight, %zero {pattern = 2 : i64} : !pto.tile<ub, 128xui16, nd>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag v -> mte3, 0
    pto.wait_flag v -> mte3, 0
    pto.mte_ub_gm %ub_dst, %x_1 : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    pto.set_flag v -> s, 0
    pto.wait_flag v -> s, 0
    func.return %kept : index
  }
}
"""

# GM `%x_1` -> UB -> GM `%out_2`.
COPY = """builtin.module attributes {pto.target = "a2"} {
  func.func @copy(%x_1: memref<128xui16>, %out_2: memref<128xui16>) {
    %ub_3 = pto.alloc {offset = 0 : i64} : !pto.tile<ub, 128xui16, nd>
    pto.mte_gm_ub %x_1, %ub_3 : memref<128xui16>, !pto.tile<ub, 128xui16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub_3, %out_2 : !pto.tile<ub, 128xui16, nd>, memref<128xui16>
    func.return
  }
}
"""


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def _entry(text: str, parser: type[Parser] = LocatingParser) -> func.FuncOp:
    module = parser(_context(), text, "k.mlir").parse_module()
    return next(op for op in module.walk() if isinstance(op, func.FuncOp))


def _run(capsys, *argv) -> tuple[int, str, str]:
    code = run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_race_names_both_buffers_as_written(tmp_path, capsys):
    path = tmp_path / "race.mlir"
    path.write_text(RACE)
    code, _, err = _run(capsys, path, "--sync-check=on")
    assert code == 1
    assert "race on ub bytes [0, 256) (%ub_1 / %ub_0): 'pto.gather_mask'" in err
    assert "%ub)" not in err


def test_run_takes_and_writes_arguments_by_their_written_names(tmp_path, capsys):
    path = tmp_path / "copy.mlir"
    path.write_text(COPY)
    data = np.arange(128, dtype=np.uint16)
    np.save(tmp_path / "x.npy", data)
    code, out, err = _run(capsys, path, "--input", f"x_1={tmp_path / 'x.npy'}",
                          "--output", f"out_2={tmp_path / 'o.npy'}", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert list(report["outputs"]) == ["x_1", "out_2"]
    assert report["written"] == {"out_2": str(tmp_path / "o.npy")}
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), data)
    # xDSL's hint (`x`) is not an argument name: the message lists the names as written.
    code, _, err = _run(capsys, path, "--input", f"x={tmp_path / 'x.npy'}")
    assert code == 1
    assert "no argument named 'x' in @copy (arguments: x_1, out_2)" in err


def test_arguments_whose_hints_clash_keep_their_written_names():
    # `%x` and `%x_1` both have the hint `x`: written names tell them apart.
    assert argument_names(_entry(RACE)) == ["x", "x_1"]
    # Parsed without LocatingParser there is only the hint: the second is `arg1`.
    assert argument_names(_entry(RACE, Parser)) == ["x", "arg1"]


def test_numbered_arguments_get_arg_names_that_no_written_name_takes():
    text = """func.func @k(%arg1: memref<4xf32>, %3: memref<4xf32>, %arg1_1: memref<4xf32>) {
  func.return
}"""
    # `%3` is a number: `arg1` (its position) is written by another argument, so `arg1_2`.
    assert argument_names(_entry(text)) == ["arg1", "arg1_2", "arg1_1"]


def test_multi_result_and_numbered_values_are_labelled_as_written():
    text = """func.func @k() -> (index, index) {
  %0 = arith.constant 1 : index
  %p:2 = "test.op"() : () -> (index, index)
  func.return %p#1, %0 : index, index
}"""
    entry = _entry(text)
    constant, pair = list(entry.body.block.ops)[:2]
    assert value_label(constant.results[0]) == "%0"
    assert [value_name(r) for r in pair.results] == ["p#0", "p#1"]
    assert value_label(_entry(text, Parser).body.block.first_op.results[0], "a value") == "a value"


def test_a_dominance_error_names_the_operand_as_written(tmp_path, capsys):
    text = """func.func @k() -> index {
  %s = arith.addi %v_1, %v_1 : index
  %v_1 = arith.constant 1 : index
  func.return %s : index
}"""
    path = tmp_path / "dom.mlir"
    path.write_text(text)
    assert opt.main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "dom.mlir:2:3: error: 'arith.addi' op operand #0 (%v_1) does not dominate this use" in err


def test_printed_ir_is_unchanged_and_round_trips_byte_identically(tmp_path, capsys):
    path = tmp_path / "race.mlir"
    path.write_text(RACE)
    assert opt.main([str(path)]) == 0
    first = capsys.readouterr().out
    (tmp_path / "again.mlir").write_text(first)
    assert opt.main([str(tmp_path / "again.mlir")]) == 0
    assert capsys.readouterr().out == first
    # The same text xDSL prints for the module parsed by its own parser: the hints are untouched.
    module = Parser(_context(), RACE, "race.mlir").parse_module()
    printed = []
    Printer(stream=type("S", (), {"write": lambda self, s: printed.append(s)})()).print_op(module)
    assert first.strip() == "".join(printed).strip()
    assert "%x_1 = " not in first and "%ub_0 = " not in first and "%ub_1 = " in first


def test_multi_buffer_slots_are_named_after_the_written_name():
    _, module = parse(LOOP.format(rows=32, end=32, upper="end").replace("%t", "%t_0"))
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    tile = next(op for op in module.walk() if isinstance(op, pto.AllocOp))
    slots = multi_buffer([tile], loop, 2)[0]
    assert [value_label(s.buffer) for s in slots] == ["%t_0_s0", "%t_0_s1"]
    assert [s.buffer.name_hint for s in slots] == ["t_s0", "t_s1"]  # the printed names


def test_a_pass_message_names_the_alloc_as_written():
    _, module = parse(LOOP.format(rows=32, end=32, upper="end").replace("%t", "%t_7"))
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    allocs = [op for op in module.walk() if isinstance(op, pto.AllocOp)]
    loop.parent_block().insert_op_after(
        pto.MteL1L0AOp(allocs[0].buffer, allocs[1].buffer, loop.step, loop.step), loop)
    with pytest.raises(PreconditionError, match="every use of %t_7 inside the loop"):
        multi_buffer([allocs[0]], loop, 2)


def test_a_raised_descriptor_keeps_the_written_name_of_its_constant():
    from mmair.passes.tcgen05_raise_descriptors import Tcgen05RaiseDescriptorsPass

    text = """func.func @k(%d: memref<128x256xf32, #tcgen05.space<tmem>>, %a: i64, %b: i64, %en: i1) {
  %w_1 = arith.constant 138412048 : i32
  tcgen05.mma kind(f16) cta_group(1) %d, %a, %b, %w_1, %en : memref<128x256xf32, #tcgen05.space<tmem>>, i64
  func.return
}"""
    ctx = _context()
    module = LocatingParser(ctx, text, "k.mlir").parse_module()
    Tcgen05RaiseDescriptorsPass().apply(ctx, module)
    made = next(op for op in module.walk() if op.name == "tcgen05.make_idesc")
    assert (value_label(made.results[0]), made.results[0].name_hint) == ("%w_1", "w")
