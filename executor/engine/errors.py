"""Runtime faults of the simulated Ascend core.

The real hardware has no error reporting for most of these faults: a buffer overflow silently corrupts
a neighbouring buffer and a misaligned address is truncated. The simulator checks them all and raises
`ExecutionError`, which names the op, the buffer and the numbers involved, so `mmair-run` can print an
MLIR-style `file:line:col: error: ...` line at the op's source location.
"""

from __future__ import annotations

from xdsl.ir import Operation


class ExecutionError(Exception):
    """A runtime fault. `op` is the faulting operation (filled in by the interpreter if the kernel
    that raised did not know it); `message` is phrased like a verifier message (`'<op>' op ...`)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op

    def with_op(self, op: Operation) -> ExecutionError:
        """Attach `op` unless an inner (more precise) op is already attached."""
        if self.op is None:
            self.op = op
        return self

    def __str__(self) -> str:
        if self.op is not None and not self.message.startswith("'"):
            return f"'{self.op.name}' op {self.message}"
        return self.message


def op_fault(op: Operation | None, err: Exception) -> ExecutionError:
    """The `ExecutionError` for an exception raised while running `op`: the one place that turns
    numpy or Python failures of an op implementation into a diagnostic at that op."""
    if isinstance(err, ExecutionError):
        return err.with_op(op) if op is not None else err
    name = op.name if op is not None else "op"
    return ExecutionError(f"'{name}' op failed: {type(err).__name__}: {err}", op)
