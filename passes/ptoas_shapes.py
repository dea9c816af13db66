"""Run-time tensor shapes of a PTOAS kernel: the value of a `make_tensor_view` shape or stride
operand, folded from constants and from the kernel's scalar arguments.

PTOAS kernels take their tensor sizes as arguments (`func.func @k(%a: !pto.ptr<f16>, %m: index)`
with `pto.make_tensor_view %a, shape = [%m, %c64], ...`). mmair sizes a GM argument from its view,
so a size that depends on an argument takes the value the run gives that argument (`mmair-run
--input m=100`, `sizes` here); without one (`mmair-opt`, a check with no run) the axis stays
dynamic (`memref<?x64xf16>`) and what depends on it is checked when the kernel runs. A size may
also use `pto.get_block_num`, the launch size (`sizes[BLOCK_NUM]`: mmair-run's `--blocks`);
`get_block_idx` differs per block and cannot size a tensor.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, FileLineColLoc, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

BLOCK_NUM = "pto.get_block_num"
"""The key of the launch size in `sizes` (beside the kernel arguments): `pto.get_block_num`."""

_FOLDS = {
    arith.MuliOp: lambda a, b: a * b,
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.DivUIOp: lambda a, b: a // b if b > 0 and a >= 0 else None,
    arith.DivSIOp: lambda a, b: (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) if b else None,
    arith.CeilDivUIOp: lambda a, b: -(-a // b) if b > 0 and a >= 0 else None,
    arith.CeilDivSIOp: lambda a, b: -(-a // b) if b else None,
    arith.MinSIOp: min,
    arith.MaxSIOp: max,
    arith.MinUIOp: min,
    arith.MaxUIOp: max,
}


Sizes = Mapping[BlockArgument | str, int]
"""Kernel argument -> value, and `BLOCK_NUM` -> the launch size."""


def _is_block_num(owner: Operation) -> bool:
    return owner.name == BLOCK_NUM


def size_value(value: SSAValue, sizes: Sizes | None = None) -> int | None:
    """The integer `value` is: an arith.constant, a kernel argument `sizes` gives a value, the
    launch size (`get_block_num`, when `sizes` has it), or an index_cast / ext / trunc / muli /
    addi / subi / div / ceildiv / min / max of them; else None."""
    if isinstance(value, BlockArgument):
        return None if sizes is None else sizes.get(value)
    owner = value.owner
    if _is_block_num(owner):
        return None if sizes is None else sizes.get(BLOCK_NUM)
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        return size_value(owner.operands[0], sizes)
    fold = _FOLDS.get(type(owner))
    if fold is not None:
        lhs, rhs = size_value(owner.lhs, sizes), size_value(owner.rhs, sizes)
        return None if lhs is None or rhs is None else fold(lhs, rhs)
    return None


def size_arguments(value: SSAValue, entry: Block) -> list[BlockArgument | str] | None:
    """The scalar arguments of the kernel (`entry`'s integer / index arguments) and `BLOCK_NUM`
    that `value` is computed from with the ops `size_value` folds; None when it depends on
    anything else (a loop variable, a block index, a load)."""
    if isinstance(value, BlockArgument):
        if value.block is entry and isinstance(value.type, IndexType | IntegerType):
            return [value]
        return None
    owner = value.owner
    if _is_block_num(owner):
        return [BLOCK_NUM]
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return []
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        return size_arguments(owner.operands[0], entry)
    if type(owner) in _FOLDS:
        lhs, rhs = size_arguments(owner.lhs, entry), size_arguments(owner.rhs, entry)
        if lhs is None or rhs is None:
            return None
        return lhs + [a for a in rhs if a not in lhs]
    return None


def argument_names(entry: Block) -> dict[BlockArgument, str]:
    """The kernel arguments by the names `--input NAME=V` gives them: the SSA name as written,
    `arg<i>` for a numbered one (as mmair-run names entry arguments, `mmair.executor.runner`)."""
    from mmair.dialects.value_names import value_name

    names = {}
    for i, arg in enumerate(entry.args):
        name = value_name(arg)
        names[arg] = name if name and not name[0].isdigit() else f"arg{i}"
    return names


def _error(op: Operation, message: str):
    from mmair.passes.ptoas_to_mmair import ConversionError

    return ConversionError(op, message)


def view_shape(view: Operation, entry: Block, sizes: Sizes | None,
               names: Mapping[BlockArgument, str]) -> tuple[int, ...]:
    """The shape of a `make_tensor_view` (DYNAMIC_INDEX for an axis whose size argument has no
    value: `sizes` is None), its strides checked row-major contiguous where they are known."""
    dims: list[int] = []
    for value in view.shape:
        size = size_value(value, sizes)
        if size is None:
            args = size_arguments(value, entry)
            if args is None:
                raise _error(view, "requires a shape computed from constants, the kernel's "
                                   "scalar arguments and get_block_num, mmair sizes the argument "
                                   "from it")
            missing = [names[a] for a in args
                       if sizes is not None and a not in sizes and a != BLOCK_NUM]
            if missing:
                shown = ", ".join(f"'{n}'" for n in missing)
                flags = " ".join(f"--input {n}=N" for n in missing)
                raise _error(view, f"has a shape given by the kernel argument{'s' * (len(missing) > 1)}"
                                   f" {shown}: mmair-run needs {'their values' if len(missing) > 1 else 'its value'}"
                                   f" ({flags})")
            size = DYNAMIC_INDEX
        dims.append(size)
    known = [d for d in dims if d != DYNAMIC_INDEX]
    elements = 1
    for d in known:
        elements *= d
    if any(d <= 0 for d in known) or elements >= 2 ** 63:
        shown = ", ".join("?" if d == DYNAMIC_INDEX else str(d) for d in dims)
        raise _error(view, f"requires a shape of positive sizes with fewer than 2^63 elements "
                           f"(i64 memref strides), got [{shown}]")
    # row-major contiguous strides [d1 * ... * dn, ..., dn, 1]: compared where both are known;
    # without a run a stride of a dynamic axis is compared when the kernel runs
    strides = [size_value(v, sizes) for v in view.strides]
    contiguous = _contiguous(dims)
    for axis, stride in enumerate(view.strides):
        if size_arguments(stride, entry) is None and strides[axis] is None:
            raise _error(view, "requires strides computed from constants and the kernel's scalar "
                               "arguments")
    if len(strides) != len(dims) or any(
            got is None and sizes is not None or None not in (got, want) and got != want
            for got, want in zip(strides, contiguous, strict=False)):
        raise _error(view, f"requires row-major contiguous strides {contiguous}, got {strides}")
    return tuple(dims)


def _contiguous(dims: list[int]) -> list[int | None]:
    """The row-major strides of `dims`, None where a dynamic size enters the product."""
    out: list[int | None] = [1]
    for d in reversed(dims[1:]):
        out.insert(0, None if d == DYNAMIC_INDEX or out[0] is None else out[0] * d)
    return out


@dataclass(frozen=True)
class SizedView:
    """The view that sized a GM argument from scalar arguments: where it is written, its shape
    as written (`[m, k]`) and the values the run gave those arguments."""

    location: Attribute
    shape: str
    values: tuple[tuple[str, int], ...]


SIZED_BY: weakref.WeakKeyDictionary[Operation, dict[str, SizedView]] = weakref.WeakKeyDictionary()
"""Converted function -> GM argument name -> the view whose shape kernel arguments gave."""


def record_sized(fn: Operation, arg_name: str, view: Operation, entry: Block,
                 sizes: Sizes, names: Mapping[BlockArgument, str]) -> None:
    """Remember that `view` sized `arg_name` from scalar arguments (when it did)."""
    args: list[BlockArgument | str] = []
    for value in view.shape:
        args += [a for a in size_arguments(value, entry) or [] if a not in args]
    if not args:
        return
    shape = "[" + ", ".join(_written(v, names) for v in view.shape) + "]"
    shown = {**names, BLOCK_NUM: "get_block_num"}
    SIZED_BY.setdefault(fn, {})[arg_name] = SizedView(
        view.location, shape, tuple((shown[a], sizes[a]) for a in args))


_SYMBOLS = {arith.MuliOp: "*", arith.AddiOp: "+", arith.SubiOp: "-"}


def _written(value: SSAValue, names: Mapping[BlockArgument, str]) -> str:
    """A shape operand as a message shows it: `m`, `64`, `get_block_num * 32`, `...`."""
    if isinstance(value, BlockArgument):
        return names.get(value, "...")
    owner = value.owner
    if _is_block_num(owner):
        return "get_block_num"
    folded = size_value(value)
    if folded is not None:
        return str(folded)
    if isinstance(owner, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp | arith.TruncIOp):
        return _written(owner.operands[0], names)
    symbol = _SYMBOLS.get(type(owner))
    if symbol is not None:
        return f"{_written(owner.lhs, names)} {symbol} {_written(owner.rhs, names)}"
    return "..."


def sized_input_error(fn: Operation, name: str, got: tuple[int, ...], want: tuple[int, ...]
                      ) -> tuple[tuple[str | None, int | None, int | None], str] | None:
    """The (file, line, col) and message for an input `name` of shape `got` where kernel arguments size
    it `want`; None when `name` is not sized by arguments or the shapes agree."""
    sized = SIZED_BY.get(fn, {}).get(name)
    if sized is None or tuple(got) == tuple(want):
        return None
    shown = "x".join(map(str, got)) or "scalar"
    values = ", ".join(f"{n} = {v}" for n, v in sized.values)
    loc = sized.location
    at = (loc.filename.data, loc.line.data, loc.column.data) if isinstance(loc, FileLineColLoc) \
        else (None, None, None)
    return at, (f"input '{name}' has shape {shown}, the tensor view's shape "
                            f"{sized.shape} with {values} needs {'x'.join(map(str, want))}")
