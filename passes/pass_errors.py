"""What mmair's passes share for failing and for their `target` option.

`PassOpError` is a pass failure caused by one operation (the tools print it at the op's location);
`resolve_target` applies a pass's `target=` option to the module's `pto.target`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from mmair.dialects import pto
from mmair.isa.ascend import targets as isa


class PassOpError(PassFailedException):
    """A pass failure caused by one operation; `op` locates it and the message names the op."""

    def __init__(self, op: Operation, message: str) -> None:
        super().__init__(f"'{op.name}' op {message}")
        self.op = op


def resolve_target(module: ModuleOp, option: str | None, pass_name: str) -> None:
    """Apply a pass's `target` option: set the module's `pto.target` when absent; a different
    existing value or an unknown name is an error."""
    if option is None:
        return
    if option not in isa.TARGET_NAMES:
        raise PassFailedException(
            f"{pass_name}: requires target in [{', '.join(isa.TARGET_NAMES)}], got {option}"
        )
    current = module.attributes.get(pto.TARGET_ATTR)
    if current is None:
        module.attributes[pto.TARGET_ATTR] = StringAttr(option)
    elif not (isinstance(current, StringAttr) and current.data == option):
        raise PassFailedException(
            f"{pass_name}: target={option} differs from the module's {pto.TARGET_ATTR} = {current}"
        )

