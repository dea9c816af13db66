"""Where an op came from: the `file:line:col` the parser recorded for it.

Diagnostics (tools), the executor's race and fault messages and the passes all name ops by this
location; an op a pass made has none of its own, so the closest located ancestor stands in.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation


def op_location(op: Operation) -> tuple[str | None, int | None, int | None]:
    """The file, line and column recorded for `op` (or its closest located ancestor)."""
    current: Operation | None = op
    while current is not None:
        loc = current.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        current = current.parent_op()
    return None, None, None
