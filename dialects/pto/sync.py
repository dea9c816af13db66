"""Synchronization between the pipes of one AI Core: `set_flag`, `wait_flag`, `pipe_barrier`.

The scalar unit issues every instruction into the in-order queue of one pipe (MTE2, MTE1, M, FIX,
V, MTE3; S for scalar code); the queues run concurrently. Cross-pipe order exists only where the
kernel writes it:

    pto.set_flag mte2 -> mte1, 0      // on MTE2: sets bit (mte2, mte1, 0) once every earlier MTE2
                                      // instruction has completed
    pto.wait_flag mte2 -> mte1, %ev   // on MTE1: holds MTE1 until that bit is set, then clears it
    pto.pipe_barrier v                // on V: later V instructions wait for the earlier ones
    pto.pipe_barrier all              // every pipe waits for every earlier instruction

The event id is a static integer or an `index` value. The verifiers check the pipe names, that
`all` appears only in `pipe_barrier`, the pair against the target's flag pairs and a static event
id against the target's event-id count (`mmair.isa.ascend.pipes`). Whether every wait has its set
is a property of the whole kernel's schedule: the executor's checker reports it, not a verifier.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from mmair.dialects.pto._verify import _error, target_of
from mmair.isa.ascend import pipes
from mmair.isa.ascend.pipes import ALL_PIPES, Pipe, PipeError


def _pipe_attr(pipe: Pipe | str) -> StringAttr:
    return StringAttr(pipe.value if isinstance(pipe, Pipe) else pipe)


class _FlagOp(IRDLOperation):
    """Shared syntax and verifier of `set_flag` / `wait_flag`: `SRC -> DST, EVENT`."""

    src = prop_def(StringAttr)
    dst = prop_def(StringAttr)
    event_id = opt_prop_def(IntegerAttr[IntegerType])
    event = opt_operand_def(IndexType)

    def __init__(
        self, src: Pipe | str, dst: Pipe | str, event: int | SSAValue | Operation
    ) -> None:
        static = isinstance(event, int)
        super().__init__(
            operands=[[] if static else [event]],
            properties={
                "src": _pipe_attr(src),
                "dst": _pipe_attr(dst),
                "event_id": IntegerAttr(event, i64) if static else None,
            },
        )

    @property
    def src_pipe(self) -> Pipe:
        """The pipe that must finish (Ascend C `pipe`, the first half of a HardEvent name)."""
        return Pipe(self.src.data)

    @property
    def dst_pipe(self) -> Pipe:
        """The pipe that waits (Ascend C `tpipe`)."""
        return Pipe(self.dst.data)

    @property
    def static_event(self) -> int | None:
        """The event id when it is a static attribute, None when it is the `event` operand."""
        return None if self.event_id is None else self.event_id.value.data

    @classmethod
    def parse(cls, parser: Parser) -> _FlagOp:
        src = parser.parse_identifier(" (a pipe name: s, v, m, mte1, mte2, mte3, fix)")
        parser.parse_punctuation("->")
        dst = parser.parse_identifier(" (a pipe name: s, v, m, mte1, mte2, mte3, fix)")
        parser.parse_punctuation(",")
        props: dict[str, Attribute] = {"src": StringAttr(src), "dst": StringAttr(dst)}
        operands: list[SSAValue] = []
        value = parser.parse_optional_unresolved_operand()
        if value is not None:
            operands.append(parser.resolve_operand(value, IndexType()))
        else:
            event = parser.parse_integer(
                allow_boolean=False, context_msg=" (an event id or an index value)"
            )
            props["event_id"] = IntegerAttr(event, i64)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(operands=[operands], properties=props, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.src.data} -> {self.dst.data}, ")
        if self.event is not None:
            printer.print_operand(self.event)
        elif self.event_id is not None:
            printer.print_string(str(self.event_id.value.data))
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        if (self.event_id is None) == (self.event is None):
            raise _error(self, "requires exactly one event id: a static event_id or an index operand")
        target = target_of(self)
        try:
            pipes.check_flag(self.src.data, self.dst.data, self.static_event, target)
        except PipeError as err:
            raise _error(self, f"requires a legal flag: {err}") from None


@irdl_op_definition
class SetFlagOp(_FlagOp):
    """`set_flag(src, dst, event)`: issued to `src`; sets the bit once `src`'s earlier
    instructions have completed. Python: `SetFlagOp(Pipe.MTE2, Pipe.MTE1, 0)`."""

    name = "pto.set_flag"


@irdl_op_definition
class WaitFlagOp(_FlagOp):
    """`wait_flag(src, dst, event)`: issued to `dst`; holds `dst` until the bit is set, then
    clears it. Python: `WaitFlagOp(Pipe.MTE2, Pipe.MTE1, ev)`."""

    name = "pto.wait_flag"


@irdl_op_definition
class PipeBarrierOp(IRDLOperation):
    """`pipe_barrier(pipe)`: later instructions of `pipe` start after its earlier ones have
    completed; `all` orders every pipe. Python: `PipeBarrierOp(Pipe.V)`, `PipeBarrierOp("all")`."""

    name = "pto.pipe_barrier"

    pipe = prop_def(StringAttr)

    def __init__(self, pipe: Pipe | str) -> None:
        super().__init__(properties={"pipe": _pipe_attr(pipe)})

    @property
    def barrier_pipe(self) -> Pipe | str:
        """The pipe, or `ALL_PIPES` ("all")."""
        return ALL_PIPES if self.pipe.data == ALL_PIPES else Pipe(self.pipe.data)

    @classmethod
    def parse(cls, parser: Parser) -> PipeBarrierOp:
        pipe = parser.parse_identifier(" (a pipe name or 'all')")
        attrs = parser.parse_optional_attr_dict()
        return cls.build(properties={"pipe": StringAttr(pipe)}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.pipe.data}")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        target = target_of(self)
        try:
            pipes.check_barrier(self.pipe.data, target)
        except PipeError as err:
            raise _error(self, f"requires a legal barrier: {err}") from None
