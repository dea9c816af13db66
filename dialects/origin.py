"""The PTOAS op each converted mmair op came from, so that a diagnostic about the mmair op names
the op the user wrote (`'pto.tmov' (pto.mte_l1_l0a) op ...`) at its file:line:col."""

from __future__ import annotations

import weakref

from xdsl.ir import Operation

ORIGIN: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()


def written_name(op: Operation) -> str:
    """`'pto.tmov' (mmair pto.mte_l1_l0a)` for a converted op, `'<name>'` otherwise."""
    origin = ORIGIN.get(op)
    if origin is None or origin == op.name:
        return f"'{op.name}'"
    return f"'{origin}' (mmair {op.name})"


def rename_in(op: Operation, message: str) -> str:
    """`message` with its leading `'<op.name>'` replaced by the PTOAS op it came from."""
    prefix = f"'{op.name}'"
    if op in ORIGIN and message.startswith(prefix):
        return written_name(op) + message[len(prefix):]
    return message
