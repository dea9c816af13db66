"""A static `!pto.partition_tensor_view` kernel argument is a dense GM memref of its shape."""

from __future__ import annotations

import numpy as np
from xdsl.parser import Parser

from mmair.dialects.ptoas import ptoas_context
from mmair.executor.runner import run_module
from mmair.passes.pto_insert_sync import PtoInsertSyncPass
from mmair.passes.ptoas_to_mmair import convert_module
from mmair.tools.diagnostics import verify_module


def test_view_arguments_carry_the_callers_window() -> None:
    with open("tests/filecheck/ptoas/view_args.pto") as f:
        module = Parser(ptoas_context(), f.read()).parse_module()
    module.verify()
    convert_module(module)
    verify_module(module)
    PtoInsertSyncPass().apply(None, module)  # type: ignore[arg-type]
    rng = np.random.default_rng(29)
    a = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    b = rng.uniform(-1, 1, (32, 32)).astype(np.float16)
    c = run_module(module, inputs={"a": a, "b": b}, sync_check=True).outputs["c"]
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5,
                               atol=1e-5)
