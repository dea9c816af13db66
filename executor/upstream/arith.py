"""Lean interpreter functions for `arith` on index and integer values.

Values are Python ints. `iN` results wrap to N-bit two's complement (kept signed), `index` results
to 64 bits; `i1` is 0/1.
Unlike upstream xDSL's arith functions there are no per-op type assertions; each op's result width is
decoded once and cached. Division by zero raises `ExecutionError`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from mmair.executor.engine.errors import ExecutionError

INDEX_BITS = 64
Wrap = Callable[[int], int] | None


def _wrapper(t: Attribute) -> Wrap:
    """A function that wraps an int to the width of type `t` (None: not an integer type). `index`
    wraps to 64 bits: unbounded Python ints would let a loop that squares a value grow it to
    gigabytes (a hang, then an out-of-memory) instead of overflowing like the hardware."""
    if not isinstance(t, IntegerType | IndexType):
        return None
    bits = t.width.data if isinstance(t, IntegerType) else INDEX_BITS
    if bits == 1:
        return lambda v: v & 1
    half, mask = 1 << (bits - 1), (1 << bits) - 1
    return lambda v: ((v + half) & mask) - half


def _bits(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else INDEX_BITS


def _unsigned(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def _divsi(a: int, b: int) -> int:
    if b == 0:
        raise ExecutionError("division by zero")
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _nonzero(b: int) -> int:
    if b == 0:
        raise ExecutionError("division by zero")
    return b


# cmpi predicates in MLIR order: eq ne slt sle sgt sge ult ule ugt uge
_SIGNED_CMP: tuple[Callable[[int, int], bool], ...] = (
    lambda a, b: a == b,
    lambda a, b: a != b,
    lambda a, b: a < b,
    lambda a, b: a <= b,
    lambda a, b: a > b,
    lambda a, b: a >= b,
)


@register_impls
@dataclass
class ArithFunctions(InterpreterFunctions):
    _wrap: dict[Operation, Wrap] = field(default_factory=dict)

    def _w(self, op: Operation) -> Wrap:
        try:
            return self._wrap[op]
        except KeyError:
            w = self._wrap[op] = _wrapper(op.results[0].type)
            return w

    def _binary(self, op: Operation, value: int) -> PythonValues:
        w = self._w(op)
        return (value if w is None else w(value),)

    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues) -> PythonValues:
        value = op.value
        if isinstance(value, IntegerAttr):
            v = value.value.data
            return (v & 1 if isinstance(value.type, IntegerType) and value.type.width.data == 1 else v,)
        if isinstance(value, FloatAttr):
            return (value.value.data,)
        raise ExecutionError(f"unsupported constant {value}")

    @impl(arith.AddiOp)
    def run_addi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] + args[1])

    @impl(arith.SubiOp)
    def run_subi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] - args[1])

    @impl(arith.MuliOp)
    def run_muli(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] * args[1])

    @impl(arith.DivSIOp)
    def run_divsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, _divsi(args[0], args[1]))

    @impl(arith.DivUIOp)
    def run_divui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        return self._binary(op, _unsigned(args[0], n) // _nonzero(_unsigned(args[1], n)))

    @impl(arith.RemSIOp)
    def run_remsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        a, b = args
        return self._binary(op, a - b * _divsi(a, b))

    @impl(arith.RemUIOp)
    def run_remui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        return self._binary(op, _unsigned(args[0], n) % _nonzero(_unsigned(args[1], n)))

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        a, b = args
        return self._binary(op, -((-a) // _nonzero(b)))

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        a, b = _unsigned(args[0], n), _nonzero(_unsigned(args[1], n))
        return self._binary(op, -((-a) // b))

    @impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] // _nonzero(args[1]))

    @impl(arith.MinSIOp)
    def run_minsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (min(args[0], args[1]),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (max(args[0], args[1]),)

    @impl(arith.MinUIOp)
    def run_minui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        return (min(args, key=lambda v: _unsigned(v, n)),)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        return (max(args, key=lambda v: _unsigned(v, n)),)

    @impl(arith.AndIOp)
    def run_andi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] & args[1])

    @impl(arith.OrIOp)
    def run_ori(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] | args[1])

    @impl(arith.XOrIOp)
    def run_xori(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0] ^ args[1])

    @impl(arith.ShLIOp)
    def run_shli(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        a, b = args
        return self._binary(op, a << b if 0 <= b < n else 0)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        a, b = args
        return self._binary(op, _unsigned(a, n) >> b if 0 <= b < n else 0)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        n = _bits(op.results[0].type)
        a, b = args
        return self._binary(op, a >> min(max(b, 0), n - 1))

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: Interpreter, op: arith.CmpiOp, args: PythonValues) -> PythonValues:
        predicate = op.predicate.value.data
        a, b = args
        if predicate >= 6:
            n = _bits(op.lhs.type)
            a, b = _unsigned(a, n), _unsigned(b, n)
            predicate -= 4
        return (int(_SIGNED_CMP[predicate](a, b)),)

    @impl(arith.SelectOp)
    def run_select(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        cond, a, b = args
        return (a if cond else b,)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0])

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        (a,) = args
        if _bits(op.operands[0].type) == 1:
            a = -a  # i1 true (1) sign-extends to all ones
        return self._binary(op, a)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, _unsigned(args[0], _bits(op.operands[0].type)))

    @impl(arith.TruncIOp)
    def run_trunci(self, interp: Interpreter, op: Operation, args: PythonValues) -> PythonValues:
        return self._binary(op, args[0])
