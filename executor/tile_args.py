"""Kernel arguments that are on-chip tiles: a function taking `!pto.tile` values (PTOAS kernels
that receive their L0A / L0B / L0C tiles from a caller, e.g. `func.func @k(%lhs: !pto.tile_buf<
loc=left, ...>, ...)`). The runner places each tile in its space, bump-allocated before any
buffer of the body, and fills its bytes with seeded random data as it does for a GM argument
(`runner.random_values`). The caller's placement is unknown, so a kernel that also places
buffers at explicit addresses in that space is refused: where the argument sits relative to
them is not said by the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from mmair.dialects import pto
from mmair.executor.engine.memory import Memory


@dataclass(frozen=True)
class TileArgument:
    """A tile argument until the run's memory exists (`place_tile_arguments`)."""

    name: str
    type: pto.TileType


def place_tile_arguments(module: ModuleOp, memory: Memory, values: list[Any],
                         rng: np.random.Generator) -> list[Any]:
    """`values` with each TileArgument replaced by a placed tile of seeded random data."""
    from mmair.executor.runner import InputError, random_values

    if not any(isinstance(v, TileArgument) for v in values):
        return values
    placed_spaces = {op.buffer.type.space_name for op in module.walk()
                     if isinstance(op, pto.AllocOp) and op.offset is not None}
    out = []
    for value in values:
        if not isinstance(value, TileArgument):
            out.append(value)
            continue
        t = value.type
        if t.space_name in placed_spaces:
            raise InputError(f"argument '{value.name}' is a {t.space_name} tile and the kernel "
                             f"places {t.space_name} buffers at explicit addresses: where the "
                             f"argument sits among them is not known, so the executor cannot "
                             f"pass it")
        tile = memory.place(t.space_name, t.logical_shape, t.layout_name, t.element_name,
                            None, value.name)
        data = tile.values()
        data[...] = random_values(t.element_name, data.dtype, data.shape, rng)
        tile.store_values(data)
        out.append(tile)
    return out
