"""The mmair dialects and the upstream dialects the tools load.

`get_all_dialects()` returns name -> lazy factory, the form `Context.register_dialect` takes, so a
tool only imports a dialect module when the input uses it.
"""

from collections.abc import Callable

from xdsl.ir import Dialect


def _pto() -> Dialect:
    from mmair.dialects.pto import PTO

    return PTO


def _tcgen05() -> Dialect:
    from mmair.dialects.tcgen05 import TCGEN05

    return TCGEN05


UPSTREAM_DIALECTS = ("builtin", "func", "arith", "scf", "memref", "test")


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    from xdsl.dialects import get_all_dialects as upstream

    available = upstream()
    dialects: dict[str, Callable[[], Dialect]] = {name: available[name] for name in UPSTREAM_DIALECTS}
    dialects["pto"] = _pto
    dialects["tcgen05"] = _tcgen05
    return dialects
