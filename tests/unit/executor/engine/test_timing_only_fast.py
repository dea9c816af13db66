"""`--timing-only` without data: the cost cache and the unfilled inputs change no cycle."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.engine import timeline as tl
from mmair.executor.runner import run_module, timing_needs_no_data
from mmair.tools.tune import Config, Job, lower


def _cycles(module, blocks: int, **kw) -> tuple[int, dict]:
    summary = run_module(module, timing_only=True, blocks=blocks, **kw).timeline.summary()
    return summary.total, summary.report()


@pytest.mark.parametrize(("m", "n", "k", "cfg", "blocks"), [
    (128, 96, 160, Config(64, 64, 64, 1), 1),
    (200, 136, 256, Config(64, 128, 64, 2, 1, 128), 1),
    (256, 256, 128, Config(64, 64, 64, 2, 3), 3),
])
def test_cached_costs_and_unfilled_inputs_keep_the_cycles(monkeypatch, m, n, k, cfg, blocks):
    module = lower(Job(m, n, k, "f16", "f32", "a2", cfg))
    assert timing_needs_no_data(module)
    fast = _cycles(module, blocks)
    # the reference: every op priced by op_cost and inputs filled with random data
    monkeypatch.setattr(tl, "_INT_COSTED", frozenset())
    a = np.ones((m, k), np.float16)
    slow = _cycles(module, blocks, inputs={"a": a})
    assert fast == slow


def test_a_kernel_reading_data_into_a_value_gets_its_data():
    from xdsl.context import Context
    from xdsl.parser import Parser

    from mmair.dialects import get_all_dialects

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = ('builtin.module attributes {pto.target = "a2"} {\n'
            "  func.func @f(%a: memref<4xi32>) -> i32 {\n"
            "    %c0 = arith.constant 0 : index\n"
            "    %v = memref.load %a[%c0] : memref<4xi32>\n"
            "    func.return %v : i32\n  }\n}\n")
    module = Parser(ctx, text).parse_module()
    assert not timing_needs_no_data(module)
