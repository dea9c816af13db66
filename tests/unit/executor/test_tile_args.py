"""Tile arguments (executor/tile_args.py): placed in their space and filled with seeded random
data; refused with the reason where the executor cannot say where they live or what they hold."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser

from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import InputError, run_module
from mmair.passes.pto_insert_sync import PtoInsertSyncPass
from mmair.passes.ptoas_to_mmair import convert_module
from mmair.tools.diagnostics import verify_module

KERNEL = "tests/filecheck/ptoas/tile_args.pto"


def _module(text: str | None = None):
    if text is None:
        with open(KERNEL) as f:
            text = f.read()
    module = Parser(ptoas_context(), text).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    return module


def _product(seed: int) -> np.ndarray:
    return run_module(_module(), seed=seed, sync_check=True).outputs["c_gm"]


def test_tile_arguments_hold_seeded_small_integers() -> None:
    c = _product(0)
    assert np.all(c == np.rint(c)) and np.abs(c).max() <= 9 * 32 and np.count_nonzero(c) > 900
    np.testing.assert_array_equal(c, _product(0))
    assert not np.array_equal(c, _product(1))


def test_an_input_for_a_tile_argument_is_refused() -> None:
    with pytest.raises(InputError, match="argument 'lhs' is a tile .* takes no input for it"):
        run_module(_module(), inputs={"lhs": np.zeros((32, 32), np.float16)})


def test_a_tile_argument_beside_explicitly_placed_buffers_is_refused() -> None:
    with open(KERNEL) as f:
        text = f.read()
    placed = text.replace("%acc = pto.alloc_tile :", "%a0 = arith.constant 0 : i64\n"
                          "    %acc = pto.alloc_tile addr = %a0 :", 1)
    placed = placed.replace("%c0 = arith.constant 0 : index",
                            "%c0 = arith.constant 0 : index\n    %l0 = arith.constant 0 : i64\n"
                            "    %spare = pto.alloc_tile addr = %l0 : !pto.tile_buf<left, "
                            "16x16xf16, blayout=row_major, slayout=row_major>", 1)
    with pytest.raises(InputError, match="argument 'lhs' is a l0a tile and the kernel places "
                                         "l0a buffers at explicit addresses"):
        run_module(_module(placed))


def test_tile_arguments_on_several_cores_are_refused() -> None:
    with pytest.raises(InputError, match="tile arguments are passed to a one-core run only"):
        run_module(_module(), blocks=2)
