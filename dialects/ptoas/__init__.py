"""PTOAS's `pto` dialect as PTOAS writes it (github:hw-native-sys/PTOAS; read at the fork
tonibohnlein/PTOAS e32488c9): its types, enum attributes and the cube subset of its ops.

PTOAS and mmair both use the `pto.` prefix, so a PTOAS file is parsed in a context of its own
(`ptoas_context`); `mmair.dialects.ptoas.detect` says when a text is PTOAS's and which op names
mmair refuses; passes/ptoas_to_mmair.py rewrites the ops into mmair's pto ops.

The dialect object (`PTOAS`, dialects/ptoas/dialect.py) is imported on first use: every tool
imports this package to ask whether its input is PTOAS text, and building the dialect costs
about 70 ms of start-up that an mmair file does not need.
"""

from __future__ import annotations

from typing import Any

from xdsl.context import Context


def __getattr__(name: str) -> Any:
    if name == "PTOAS":
        from mmair.dialects.ptoas.dialect import PTOAS

        return PTOAS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def ptoas_context() -> Context:
    """builtin, func, arith, scf and PTOAS's pto: the dialects a PTOAS cube file uses."""
    from xdsl.dialects.arith import Arith
    from xdsl.dialects.builtin import Builtin
    from xdsl.dialects.func import Func
    from xdsl.dialects.scf import Scf

    from mmair.dialects.ptoas.dialect import PTOAS

    ctx = Context()
    for dialect in (Builtin, Func, Arith, Scf, PTOAS):
        ctx.load_dialect(dialect)
    return ctx


__all__ = ["PTOAS", "ptoas_context"]  # noqa: F822 (PTOAS: module __getattr__)
