"""Where an op came from: the `file:line:col` the parser recorded for it.

Diagnostics (tools), the executor's race and fault messages and the passes all name ops by this
location. Every pass gives the ops it makes the location of the op they come from (`derive`), so
a race or a timing line in a lowered `pto.matmul` names the matmul's line; an op without one (built
by hand) falls back to its closest located ancestor.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import FileLineColLoc, UnknownLoc
from xdsl.ir import Operation

_Op = TypeVar("_Op", bound=Operation)


def op_location(op: Operation) -> tuple[str | None, int | None, int | None]:
    """The file, line and column recorded for `op` (or its closest located ancestor)."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        current = current.parent_op()
    return None, None, None


def derive(new: _Op, source: Operation) -> _Op:
    """Give `new`, and every op nested in it that has no location yet, `source`'s location: `new`
    is what a pass made of `source`. Ops with a location of their own (clones, moved ops) keep
    it. Returns `new`."""
    location = source.location
    if isinstance(location, UnknownLoc):
        return new
    for op in new.walk():
        if isinstance(op.location, UnknownLoc):
            op.location = location
    return new
