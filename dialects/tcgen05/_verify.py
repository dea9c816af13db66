"""Verifier helpers shared by the tcgen05 ops (kernel cta_group, target, static descriptors)."""

from __future__ import annotations

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.tcgen05.types import (
    CTA_GROUPS,
    TARGET_ATTR,
    MakeIdescOp,
    MakeSmemDescOp,
    MakeZcmaskOp,
)
from mmair.isa.tcgen05 import rules
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.idesc import InstrDesc, decode_idesc
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask, decode_zcmask


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(f"'{op.name}' op {message}")


def _int_prop(attr: IntegerAttr | None) -> int | None:
    return None if attr is None else attr.value.data


def _kernel_of(op: Operation) -> Operation:
    """The enclosing `func.func` (a kernel), else the outermost op."""
    current = op
    while (parent := current.parent_op()) is not None:
        if isinstance(parent, func.FuncOp):
            return parent
        current = parent
    return current


def _tcgen05_cta_group(op: Operation) -> int | None:
    cta_group = op.properties.get("cta_group") if op.name.startswith("tcgen05.") else None
    return cta_group.value.data if isinstance(cta_group, IntegerAttr) else None


def _check_kernel_cta_group(op: Operation, cta_group: int) -> None:
    """R31: the first tcgen05 op of the kernel fixes the cta_group of all the others."""
    kernel = _kernel_of(op)
    for other in kernel.walk():
        first = _tcgen05_cta_group(other)
        if first is None:
            continue
        try:
            rules.check_cta_groups([first, cta_group])
        except DescriptorError as err:
            raise _error(op, f"{err} (the kernel's first tcgen05 op '{other.name}' uses "
                             f"cta_group {first})") from err
        return


def _check_cta_group(op: Operation, cta_group: int) -> None:
    if cta_group not in CTA_GROUPS:
        raise _error(op, f"requires cta_group in 1, 2, got {cta_group}")
    _check_kernel_cta_group(op, cta_group)




def _target_of(op: Operation) -> str | None:
    """The `tcgen05.target` string of the enclosing module (None when not given)."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, ModuleOp) and TARGET_ATTR in current.attributes:
            target = current.attributes[TARGET_ATTR]
            if not isinstance(target, StringAttr):
                raise _error(op, f"requires the module attribute {TARGET_ATTR} to be a string, "
                                 f"got {target}")
            try:
                return rules.check_target(target.data)
            except DescriptorError as err:
                raise _error(op, f"module attribute {TARGET_ATTR}: {err}") from err
        current = current.parent_op()
    return None


def _constant_word(value: SSAValue, bits: int) -> int | None:
    """The unsigned value of an integer `arith.constant` (the printer shows it signed)."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data & ((1 << bits) - 1)
    return None


def _static_idesc(op: Operation, value: SSAValue, kind: str) -> InstrDesc | None:
    """The instruction descriptor of `value` if it is known at compile time."""
    owner = value.owner
    if isinstance(owner, MakeIdescOp):
        attr = owner.desc
        if attr.kind.data != kind:
            raise _error(op, f"requires an idesc of kind {kind} (the mma kind), "
                             f"got kind {attr.kind.data}")
        return attr.desc
    word = _constant_word(value, 32)
    if word is None:
        return None
    try:
        return decode_idesc(word, kind)
    except DescriptorError as err:
        raise _error(op, f"idesc 0x{word:08x}: {err}") from err


def _static_smem_desc(op: Operation, value: SSAValue, operand: str) -> SmemDesc | None:
    owner = value.owner
    if isinstance(owner, MakeSmemDescOp):
        return owner.desc.desc
    word = _constant_word(value, 64)
    if word is None:
        return None
    try:
        return decode_smem_desc(word)
    except DescriptorError as err:
        raise _error(op, f"{operand} descriptor 0x{word:016x}: {err}") from err


def _static_zcmask(op: Operation, value: SSAValue) -> ZeroColumnMask | None:
    owner = value.owner
    if isinstance(owner, MakeZcmaskOp):
        return owner.desc.desc
    word = _constant_word(value, 64)
    if word is None:
        return None
    try:
        return decode_zcmask(word)
    except DescriptorError as err:
        raise _error(op, f"zero_column_mask 0x{word:016x}: {err}") from err


# ----------------------------------------------------------------------------------------------
# Descriptor value ops


def _memref_bytes(type_: MemRefType) -> int | None:
    """Bytes of a statically shaped memref (sub-byte elements packed), None if unknown."""
    bits = getattr(type_.element_type, "bitwidth", None)
    shape = type_.get_shape()
    if not isinstance(bits, int) or any(dim < 0 for dim in shape):
        return None
    count = 1
    for dim in shape:
        count *= dim
    return -(-count * bits // 8)


def _check_not_empty(op: Operation, type_: MemRefType) -> None:
    """An allocation of an empty matrix (a zero dimension) holds nothing: refuse it."""
    shape = type_.get_shape()
    if 0 in shape:
        raise _error(op, f"requires a result memref whose dimensions are each at least 1, "
                         f"got shape {'x'.join(map(str, shape))} ({type_})")
