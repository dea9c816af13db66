"""Lean interpreter functions for `scf` (for, if, while, yield, condition)."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)

from mmair.executor.engine.errors import ExecutionError


@register_impls
class ScfFunctions(InterpreterFunctions):
    @impl(scf.ForOp)
    def run_for(self, interp: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lb, ub, step, *carried = args
        if step <= 0:
            raise ExecutionError(f"requires a positive step, got {step}")
        body = op.body
        loop_args = tuple(carried)
        run = interp.run_ssacfg_region
        outer = getattr(interp, "iteration", None)
        if outer is None:  # an upstream interpreter
            for i in range(lb, ub, step):
                loop_args = run(body, (i, *loop_args))
            return loop_args
        try:
            for i in range(lb, ub, step):
                interp.iteration = (*outer, (op, i))  # the loop position, for sync messages
                loop_args = run(body, (i, *loop_args))
        finally:
            interp.iteration = outer
        return loop_args

    @impl(scf.IfOp)
    def run_if(self, interp: Interpreter, op: scf.IfOp, args: PythonValues) -> PythonValues:
        region = op.true_region if args[0] else op.false_region
        if not region.blocks:
            return ()
        return interp.run_ssacfg_region(region, ())

    @impl(scf.WhileOp)
    def run_while(self, interp: Interpreter, op: scf.WhileOp, args: PythonValues) -> PythonValues:
        loop_args = args
        while True:
            cond, *forwarded = interp.run_ssacfg_region(op.before_region, loop_args)
            if not cond:
                return tuple(forwarded)
            loop_args = interp.run_ssacfg_region(op.after_region, tuple(forwarded))

    @impl_terminator(scf.YieldOp)
    def run_yield(
        self, interp: Interpreter, op: scf.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl_terminator(scf.ConditionOp)
    def run_condition(
        self, interp: Interpreter, op: scf.ConditionOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
