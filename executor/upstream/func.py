"""Interpreter functions for `func` (func, call, return). Each call runs in a fresh value frame."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)

from mmair.executor.engine.errors import ExecutionError


@register_impls
class FuncFunctions(InterpreterFunctions):
    @impl_callable(func.FuncOp)
    def call_func(self, interp: Interpreter, op: func.FuncOp, args: PythonValues) -> PythonValues:
        if not op.body.blocks or op.body.blocks.first.first_op is None:
            raise ExecutionError(f"function @{op.sym_name.data} has no body to execute", op)
        push = getattr(interp, "push_frame", None)
        saved = push() if push is not None else None
        try:
            return interp.run_ssacfg_region(op.body, args, op.sym_name.data)
        finally:
            if push is not None:
                interp.pop_frame(saved)  # type: ignore[attr-defined]

    @impl(func.CallOp)
    def run_call(self, interp: Interpreter, op: func.CallOp, args: PythonValues) -> PythonValues:
        return interp.call_op(op.callee, args)

    @impl_terminator(func.ReturnOp)
    def run_return(
        self, interp: Interpreter, op: func.ReturnOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
