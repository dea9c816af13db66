"""PTOAS's verifier rules on the FP forms of `tstore` / `tmov` / `textract` (the `fp` scaling
tile), with PTOAS's messages: lib/PTO/IR/PTO.cpp TStoreOp::verify, TMovOp::verify and
TExtractOp::verify (verifyA2A3 / verifyA5) at tonibohnlein/PTOAS e32488c9, in their order. The
ops call `verify` from their verify_ hook; the arch is the module's `pto.target_arch` or its
`pto.device-spec` (`module_arch`)."""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.ptoas.types import TileBufType


def _error(op: Operation, message: str) -> VerifyException:
    return VerifyException(message)


A5_DEVICE_SPECS = ("Ascend950", "Ascend910_95")  # PTO.cpp isA5DeviceSpec: prefixes of a5 specs


def module_arch(attributes: Mapping[str, Attribute]) -> str | None:
    """A module's PTOAS arch: its `pto.target_arch`, else "a5" when its `pto.device-spec` names an
    a5 device (PTO.cpp isA5ModuleTarget), else None."""
    arch = attributes.get("pto.target_arch")
    if arch is not None:
        return getattr(arch, "data", str(arch))
    spec = attributes.get("pto.device-spec")
    if isinstance(spec, StringAttr) and spec.data.startswith(A5_DEVICE_SPECS):
        return "a5"
    return None


def target_arch(op: Operation) -> str:
    """The module's arch (`module_arch`: PTOAS dispatches its verifiers on it), "a2a3" if none."""
    here = op.parent_op()
    while here is not None:
        arch = module_arch(here.attributes)
        if arch is not None:
            return arch
        here = here.parent_op()
    return "a2a3"


def _loc(value: SSAValue) -> str | None:
    """The PTOAS loc of a tile_buf operand (before conversion), or None."""
    t = value.type
    return t.get("loc") if isinstance(t, TileBufType) else None


def _layout(value: SSAValue) -> tuple[str | None, str | None]:
    t = value.type
    if not isinstance(t, TileBufType):
        return None, None
    return t.get("blayout"), t.get("slayout")


def _dtype(value: SSAValue) -> str:
    t = value.type
    return str(t.get("dtype")) if isinstance(t, TileBufType) else str(t)


# PTO.cpp isA2A3AccQuantExtractTypePair / isA5AccQuantExtractTypePair
_A2A3_QUANT_PAIRS = {("f32", "i8"), ("i32", "i8"), ("i32", "f16"), ("i32", "i16")}
_A5_QUANT_PAIRS = {("f32", "i8"), ("f32", "f16"), ("f32", "bf16"), ("f32", "f32"),
                   ("i32", "i8"), ("i32", "f16"), ("i32", "bf16")}


def _kind(dtype: str) -> str:
    """PTOAS's element family: i8 / ui8 / si8 -> i8, f8 types -> f8 (the message names)."""
    for family in ("i8", "i16", "i32"):
        if dtype in (family, "s" + family, "u" + family):
            return family
    if dtype.startswith("f8") or dtype in ("!pto.hif8",):
        return "f8"
    return dtype


def verify(op: Operation) -> None:
    """PTOAS's rules on the scaling tile of an FP form, with its messages."""
    fp = op.fp
    if fp is None:
        return
    src = op.plain_ins[0]
    pre_quant = op.name == "pto.textract" and len(op.plain_ins) == 4 or \
        not op.name == "pto.textract" and len(op.plain_ins) == 2
    a5 = target_arch(op) == "a5"
    if op.name == "pto.tmov":  # TMovOp::verify, in its order
        if _loc(fp) != "scaling":
            raise _error(op, "expects fp to be in the scaling address space")
        if _kind(_dtype(src)) not in ("f32", "i32"):
            raise _error(op, "expects fp form src to have element type f32, i32")
        if _loc(src) != "acc":
            raise _error(op, "expects fp form to use loc=acc src")
        if _layout(src) != ("col_major", "row_major"):
            raise _error(op, "expects acc-source fp/relu tmov src to use blayout=col_major and "
                            "slayout=row_major")
        if not a5 and _layout(op.outs[0]) != ("col_major", "row_major"):
            raise _error(op, "expects fp tmov dst to use blayout=col_major and slayout=row_major")
        return
    if _loc(fp) != "scaling":
        raise _error(op, "expects fp to use loc=scaling")
    if pre_quant:
        raise _error(op, "expects fp and preQuantScalar to be mutually exclusive")
    if op.name == "pto.tstore":
        if "stPhase" in op.attributes:
            raise _error(op, "expects fp form to use the default stPhase")
        if _loc(src) == "acc" and _kind(_dtype(src)) not in ("f32", "i32"):
            raise _error(op, f"expects {'A5' if a5 else 'A2/A3'} acc tstore src element type to "
                            f"be i32 or f32")
        return
    dst = op.outs[0]
    if _loc(src) != "acc":
        raise _error(op, "expects fp form to use loc=acc src")
    if a5:
        if _loc(dst) not in ("mat", "vec"):
            raise _error(op, "expects A5 textract to use a supported src/dst loc pair")
        if _layout(src) != ("col_major", "row_major"):
            raise _error(op, "expects A5 acc-source textract src to use blayout=col_major and "
                            "slayout=row_major")
        if (_kind(_dtype(src)), _kind(_dtype(dst))) not in _A5_QUANT_PAIRS | {
                ("f32", "f8")}:
            raise _error(op, "expects A5 acc preQuantScalar textract element types to be "
                            "(src=f32,dst=i8/fp8/f16/bf16/f32) or (src=i32,dst=i8/f16/bf16)")
        return
    if _loc(dst) != "mat":
        raise _error(op, "expects A2/A3 acc-source textract dst to use loc=mat")
    if _layout(src) != ("col_major", "row_major"):
        raise _error(op, "expects A2/A3 acc-source textract src to use blayout=col_major and "
                        "slayout=row_major")
    if (_kind(_dtype(src)), _kind(_dtype(dst))) not in _A2A3_QUANT_PAIRS:
        raise _error(op, "expects A2/A3 acc preQuantScalar textract element types to be "
                        "(src=f32,dst=i8) or (src=i32,dst=i8/f16/i16)")
