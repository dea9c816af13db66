"""The sync ops of the pto dialect through their Python API: construction, accessors, printing,
verification against the module's target, and the parse / print round trip."""

from __future__ import annotations

import subprocess
import sys
from io import StringIO

import pytest
from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Builtin, IndexType, IntegerAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects import pto
from mmair.isa.ascend.pipes import ALL_PIPES, Pipe


def _module(ops: list[Operation], target: str | None = None) -> ModuleOp:
    module = ModuleOp(ops)
    if target is not None:
        module.attributes["pto.target"] = StringAttr(target)
    return module


def _text(op: Operation) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def test_set_flag_with_a_static_event() -> None:
    op = pto.SetFlagOp(Pipe.MTE2, Pipe.MTE1, 5)
    assert (op.src_pipe, op.dst_pipe, op.static_event, op.event) == (Pipe.MTE2, Pipe.MTE1, 5, None)
    assert _text(op) == "pto.set_flag mte2 -> mte1, 5"
    _module([op]).verify()


def test_wait_flag_with_an_index_event() -> None:
    ev = arith.ConstantOp(IntegerAttr(2, IndexType()))
    op = pto.WaitFlagOp("m", "fix", ev)
    assert (op.src_pipe, op.dst_pipe, op.static_event) == (Pipe.M, Pipe.FIX, None)
    assert op.event is ev.result
    assert _text(op) == f"pto.wait_flag m -> fix, %{ev.result.name_hint or '0'}"
    _module([ev, op]).verify()  # a runtime id is checked by the executor, not the verifier


@pytest.mark.parametrize("pipe", [Pipe.V, Pipe.M, Pipe.MTE1, Pipe.MTE2, Pipe.MTE3, Pipe.FIX])
def test_pipe_barrier_of_each_pipe(pipe: Pipe) -> None:
    op = pto.PipeBarrierOp(pipe)
    assert op.barrier_pipe is pipe and op.pipe.data == pipe.value
    assert _text(op) == f"pto.pipe_barrier {pipe.value}"
    _module([op]).verify()


def test_pipe_barrier_all() -> None:
    op = pto.PipeBarrierOp(ALL_PIPES)
    assert op.barrier_pipe == "all"
    _module([op]).verify()


def test_verifiers_use_the_module_target() -> None:
    # id 4 and the FIX pipe exist on a2 but not on 910
    for op in (pto.SetFlagOp(Pipe.MTE2, Pipe.MTE1, 4), pto.PipeBarrierOp(Pipe.FIX)):
        _module([op.clone()], "a2").verify()
        with pytest.raises(VerifyException, match="target 910"):
            _module([op], "910").verify()


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (lambda: pto.SetFlagOp(ALL_PIPES, Pipe.V, 0), "source pipe 'all' is only legal in pipe_barrier"),
        (lambda: pto.WaitFlagOp(Pipe.V, "mte9", 0), "destination pipe 'mte9' is not a pipe"),
        (lambda: pto.SetFlagOp(Pipe.S, Pipe.M, 0), "pipe pair s->m is not a flag pair on target a2"),
        (lambda: pto.WaitFlagOp(Pipe.MTE2, Pipe.MTE1, 8), "event id 8 is out of range for target a2 \\(legal: 0..7\\)"),
        (lambda: pto.PipeBarrierOp(Pipe.S), "pipe 's' is not legal in pipe_barrier on target a2"),
    ],
)
def test_verifier_messages_name_op_field_value_and_legal_set(op, message: str) -> None:
    built = op()
    with pytest.raises(VerifyException, match=f"'{built.name}' op requires a legal .*{message}") as info:
        _module([built]).verify()
    assert "(legal: " in str(info.value).splitlines()[0]


def test_sync_ops_are_never_memoized() -> None:
    # Their rules may look at other ops: tools/diagnostics.py must verify every instance.
    for cls in (pto.SetFlagOp, pto.WaitFlagOp, pto.PipeBarrierOp):
        assert not getattr(cls, "MEMO_VERIFY", False)
    assert pto.MadOp.MEMO_VERIFY is True


def test_parse_print_round_trip() -> None:
    text = (
        "func.func @k(%ev : index) {\n"
        "  pto.set_flag mte2 -> mte1, 0\n"
        "  pto.wait_flag mte2 -> mte1, %ev\n"
        "  pto.pipe_barrier all\n"
        "  func.return\n"
        "}\n"
    )
    ctx = Context()
    for dialect in (Builtin, func.Func, pto.PTO):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    module.verify()
    ops = [op for op in module.walk() if op.name.startswith("pto.")]
    assert [type(op) for op in ops] == [pto.SetFlagOp, pto.WaitFlagOp, pto.PipeBarrierOp]
    assert ops[0].static_event == 0 and ops[1].static_event is None and ops[1].event is not None
    printed = _text(module)
    assert "pto.set_flag mte2 -> mte1, 0" in printed and "pto.wait_flag mte2 -> mte1, %ev" in printed
    assert Parser(ctx, printed).parse_module().is_structurally_equivalent(module)


def test_an_unused_pipe_pair_is_silent(tmp_path) -> None:
    # No other op of the kernel runs on MTE3 or MTE1: still legal, and no warning on stderr.
    path = tmp_path / "k.mlir"
    path.write_text("pto.set_flag mte3 -> mte1, 0\npto.wait_flag mte3 -> mte1, 0\n")
    run = subprocess.run(
        [sys.executable, "-c", "from mmair.tools.opt import main; main()", str(path)],
        capture_output=True, text=True, check=False,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert "pto.wait_flag mte3 -> mte1, 0" in run.stdout
