"""Passes of mmair, one per module; `get_all_passes()` maps pass names to lazy class factories."""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

# pass name -> (module under mmair.passes, class name). A pass is listed here once its module exists.
_PASSES: dict[str, tuple[str, str]] = {
    "tcgen05-materialize-descriptors": (
        "tcgen05_materialize_descriptors", "Tcgen05MaterializeDescriptorsPass"),
    "tcgen05-raise-descriptors": ("tcgen05_raise_descriptors", "Tcgen05RaiseDescriptorsPass"),
    "tcgen05-lower-matmul": ("tcgen05_lower_matmul", "Tcgen05LowerMatmulPass"),
    "pto-tile-matmul": ("pto_tile_matmul", "PtoTileMatmulPass"),
    "pto-assign-addresses": ("pto_assign_addresses", "PtoAssignAddressesPass"),
    "pto-insert-sync": ("pto_insert_sync", "PtoInsertSyncPass"),
    "mmair-lower": ("mmair_lower", "MmairLowerPass"),
    "pto-expand-params": ("pto_expand_params", "PtoExpandParamsPass"),
    "ptoas-to-mmair": ("ptoas_to_mmair", "PtoasToMmairPass"),
    "mmair-to-ptoas": ("mmair_to_ptoas", "MmairToPtoasPass"),
}


def _factory(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    return lambda: getattr(import_module(f"mmair.passes.{module}"), cls)


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    from xdsl.transforms import get_all_passes as upstream

    available = upstream()
    passes = {name: available[name] for name in ("canonicalize", "cse", "dce") if name in available}
    passes.update({name: _factory(mod, cls) for name, (mod, cls) in _PASSES.items()})
    return passes
