"""PTOAS's register-event flags and its all-core barrier, as PTOAS writes them
(include/PTO/IR/PTOOps.td at tonibohnlein/PTOAS e32488c9; syntax from test/lit/pto/
eventid_array_dyn_sync.pto, syncall_emitc.pto and syncall_invalid.pto):

    pto.set_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %eid]   (also `[<PIPE_...>, ...]`)
    pto.wait_flag_dyn [#pto.pipe<PIPE_MTE2>, #pto.pipe<PIPE_MTE3>, %eid]
    pto.syncall() mode = #pto.sync_all_mode<hard>, core_type = #pto.sync_core_type<mix>
    pto.syncall(%gm[, %used] : !pto.ptr<i32, gm>[, i32]) mode = #pto.sync_all_mode<soft>, ...

The event id of a `_dyn` flag is an `index` SSA value (a register), which ptoas-to-mmair passes to mmair's
flag ops as their runtime event operand, so the checker judges the id the kernel computes. The
verifier of `syncall` makes PTOAS's own checks (its messages, from syncall_invalid.pto).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, StringAttr, i32
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from mmair.dialects.ptoas.ops import _parse_enum
from mmair.dialects.ptoas.types import (
    PartitionTensorViewType,
    PtrType,
    TensorViewType,
    _EnumAttr,
)

#: PTOAS's soft syncall workspace: at least 16 i32 elements (64 bytes), syncall_invalid.pto.
SOFT_SYNCALL_WORKSPACE_I32 = 16


@irdl_attr_definition
class SyncAllModeAttr(_EnumAttr):
    """`#pto.sync_all_mode<hard | soft>`."""

    name = "pto.sync_all_mode"


@irdl_attr_definition
class SyncCoreTypeAttr(_EnumAttr):
    """`#pto.sync_core_type<aiv_only | aic_only | mix>`."""

    name = "pto.sync_core_type"


class _FlagDynOp(IRDLOperation):
    src_pipe = prop_def(StringAttr)
    dst_pipe = prop_def(StringAttr)
    event = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> _FlagDynOp:
        parser.parse_punctuation("[")
        src = _parse_enum(parser)
        parser.parse_punctuation(",")
        dst = _parse_enum(parser)
        parser.parse_punctuation(",")
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        event = parser.resolve_operand(operand, IndexType())
        op = cls.build(operands=[event], properties={"src_pipe": StringAttr(src),
                                                     "dst_pipe": StringAttr(dst)})
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f"[<{self.src_pipe.data}>, <{self.dst_pipe.data}>, ")
        printer.print_ssa_value(self.event)
        printer.print_string("]")


@irdl_op_definition
class SetFlagDynOp(_FlagDynOp):
    name = "pto.set_flag_dyn"


@irdl_op_definition
class WaitFlagDynOp(_FlagDynOp):
    name = "pto.wait_flag_dyn"


@irdl_op_definition
class SyncAllOp(IRDLOperation):
    """`pto.syncall`: every core of the launch waits for the others (module docstring)."""

    name = "pto.syncall"
    gm_workspace = opt_operand_def()
    used_cores = opt_operand_def()
    mode = prop_def(SyncAllModeAttr)
    core_type = prop_def(SyncCoreTypeAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> SyncAllOp:
        parser.parse_punctuation("(")
        names = []
        types: list[Attribute] = []
        if parser.parse_optional_punctuation(")") is None:
            names = parser.parse_comma_separated_list(parser.Delimiter.NONE,
                                                      parser.parse_unresolved_operand)
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation(")")
        props: dict[str, Attribute] = {}
        for key in ("mode", "core_type"):
            if key == "core_type":
                parser.parse_punctuation(",")
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            props[key] = parser.parse_attribute()
        mode = props["mode"]
        if isinstance(mode, SyncAllModeAttr) and mode.value.data == "soft" and not 1 <= len(
                names) <= 2:
            parser.raise_error("custom op 'pto.syncall' expects soft syncall to have gm_workspace "
                               "and optional used_cores")
        values = [parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True)]
        op = cls.build(operands=[values[:1], values[1:2]], properties=props)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    def print(self, printer: Printer) -> None:
        values = [v for v in (self.gm_workspace, self.used_cores) if v is not None]
        printer.print_string("(")
        if values:
            printer.print_list(values, printer.print_ssa_value)
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
        printer.print_string(") mode = ")
        printer.print_attribute(self.mode)
        printer.print_string(", core_type = ")
        printer.print_attribute(self.core_type)

    def verify_(self) -> None:
        mode = self.mode.value.data
        if mode not in ("hard", "soft"):
            raise VerifyException(f"requires mode in [hard, soft], got {mode}")
        core = self.core_type.value.data
        if core not in ("aiv_only", "aic_only", "mix"):
            raise VerifyException(f"requires core_type in [aiv_only, aic_only, mix], got {core}")
        if mode == "hard":
            if self.gm_workspace is not None or self.used_cores is not None:
                raise VerifyException("expects hard syncall to have no gm_workspace or used_cores")
            return
        if self.gm_workspace is None:
            raise VerifyException("expects soft syncall to have gm_workspace and optional "
                                  "used_cores")
        workspace = self.gm_workspace.type
        if not isinstance(workspace, PtrType | TensorViewType | PartitionTensorViewType):
            raise VerifyException("operand #0 must be Ptr, TensorView, or PartitionTensorView")
        if workspace.element_type != i32:
            raise VerifyException("expects gm_workspace element type to be i32")
        if isinstance(workspace, PtrType) and workspace.space.data != "gm":
            raise VerifyException("expects gm_workspace to be in GM address space")
        if isinstance(workspace, TensorViewType | PartitionTensorViewType) and all(
                d >= 0 for d in workspace.dims):
            capacity = 1
            for d in workspace.dims:
                capacity *= d
            if capacity < SOFT_SYNCALL_WORKSPACE_I32:
                raise VerifyException(
                    f"expects gm_workspace to contain at least {SOFT_SYNCALL_WORKSPACE_I32} i32 "
                    f"elements ({4 * SOFT_SYNCALL_WORKSPACE_I32} bytes), but static capacity is "
                    f"{capacity}")
        if self.used_cores is not None and self.used_cores.type != i32:
            raise VerifyException("operand #1 must be 32-bit signless integer")


SYNC_OPS = (SetFlagDynOp, WaitFlagDynOp, SyncAllOp)
SYNC_ATTRS = (SyncAllModeAttr, SyncCoreTypeAttr)
