"""Shared kernels and helpers of the multi-core launch tests (in process and on the pool)."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.executor.engine.multicore_pool import run_pool
from mmair.executor.runner import find_entry, make_interpreter, prepare_arguments
from mmair.tools.diagnostics import LocatingParser

KERNEL = """builtin.module attributes {{pto.target = "a2"}} {{
  func.func @k(%a: memref<64xf16>, %c: memref<64xf16>) {{
    %i = pto.block_idx
    %n = pto.block_num
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %w = {window}
    %ub = pto.alloc : !pto.tile<ub, 16xf16, nd>
    %src = memref.subview %a[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %dst = memref.subview %c[%w] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    {sync}
    func.return
  }}
}}
"""


CLEAN = KERNEL.format(window="arith.addi %o, %o : index", sync="pto.sync_all")
"""Block i copies a[16i:16i+16] to c[32i:32i+16] (disjoint windows for 2 blocks)."""


RACY = KERNEL.format(window="arith.constant 0 : index", sync="pto.sync_all")
"""Every block writes c[0:16]: overlapping output windows."""


SKIP = KERNEL.format(window="arith.addi %o, %o : index", sync="""%z = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %z : index
    scf.if %first {
      pto.sync_all
    }""")
"""Only block 0 reaches the barrier."""


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "k.mlir").parse_module()
    module.verify()
    return module


ROTATE = """builtin.module attributes {pto.target = "a2"} {
  func.func @k(%a: memref<64xf16>, %c: memref<64xf16>, %d: memref<64xf16>) {
    %i = pto.block_idx
    %n = pto.block_num
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %o = arith.muli %i, %c16 : index
    %i1 = arith.addi %i, %c1 : index
    %next = arith.remui %i1, %n : index
    %o2 = arith.muli %next, %c16 : index
    %ub = pto.alloc : !pto.tile<ub, 16xf16, nd>
    %src = memref.subview %a[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %dst = memref.subview %c[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_gm_ub %src, %ub : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 0
    pto.wait_flag mte2 -> mte3, 0
    pto.mte_ub_gm %ub, %dst : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    pto.sync_all
    %win = memref.subview %c[%o2] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    %ub2 = pto.alloc : !pto.tile<ub, 16xf16, nd>
    pto.mte_gm_ub %win, %ub2 : memref<16xf16, strided<[1], offset: ?>>, !pto.tile<ub, 16xf16, nd>
    pto.set_flag mte2 -> mte3, 1
    pto.wait_flag mte2 -> mte3, 1
    %out = memref.subview %d[%o] [16] [1] : memref<64xf16> to memref<16xf16, strided<[1], offset: ?>>
    pto.mte_ub_gm %ub2, %out : !pto.tile<ub, 16xf16, nd>, memref<16xf16, strided<[1], offset: ?>>
    func.return
  }
}
"""
"""Block i copies a's window i to c's, then (after the barrier) c's window i+1 (mod n) to d's
window i: d depends on what the NEXT core wrote before the barrier."""


def pooled(module, data, blocks, jobs, sync_check):
    """`run_pool` itself (no in-process fallback): None when it hands the launch back."""
    entry = find_entry(module)
    _, values = prepare_arguments(entry, dict(data))
    return run_pool(module, entry, "a2", values, blocks, jobs, sync_check, "default", None, None,
                    make_interpreter)


def inputs():
    return {"a": np.arange(64, dtype=np.float16), "c": np.full(64, -1, np.float16)}
