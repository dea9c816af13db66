"""Generated IR for the mmair benchmarks (text only: nothing here imports xDSL or numpy).

* `pto_kernel(ops)`: a straight-line `pto` cube kernel (the shape a lowering emits when it unrolls the
  tile loops): constants, five buffers, then repeated GM -> L1 -> L0 -> Mmad -> Fixpipe steps.
* `arith_kernel(ops)`: an arith-only module (constants and a chain of addi/muli) with the same op count,
  the workload the stock `xdsl-opt` is measured on.

Both count every operation of the module (the module, the function and its terminator included), so
`pto_kernel(n)` and `arith_kernel(n)` hold exactly n operations.
"""

from __future__ import annotations

_L1A = "!pto.tile<l1, 128x128xf16, nz>"
_L1B = "!pto.tile<l1, 128x128xf16, zz>"
_L0A = "!pto.tile<l0a, 128x128xf16, zz>"
_L0B = "!pto.tile<l0b, 128x128xf16, zn>"
_L0C = "!pto.tile<l0c, 128x128xf32, nz>"
_GM16 = "memref<128x128xf16>"
_GM32 = "memref<128x128xf32>"

_STEP = [
    f"pto.mte_gm_l1 %a, %l1a, %n, %n : {_GM16}, {_L1A}",
    f"pto.mte_gm_l1 %b, %l1b, %n, %n : {_GM16}, {_L1B}",
    f"pto.mte_l1_l0a %l1a, %l0a, %n, %n : {_L1A}, {_L0A}",
    f"pto.mte_l1_l0b %l1b, %l0b, %n, %n : {_L1B}, {_L0B}",
    f"pto.mad_acc %l0a, %l0b, %l0c, %n, %n, %n : {_L0A}, {_L0B}, {_L0C}",
    f"pto.fixpipe %l0c, %c, %n, %n : {_L0C}, {_GM32}",
]


def pto_kernel(ops: int) -> str:
    """A verified-clean `pto` kernel of exactly `ops` operations (ops >= 9)."""
    head = [
        "%n = arith.constant 128 : index",
        f"%l1a = pto.alloc {{offset = 0 : i64}} : {_L1A}",
        f"%l1b = pto.alloc {{offset = 32768 : i64}} : {_L1B}",
        f"%l0a = pto.alloc : {_L0A}",
        f"%l0b = pto.alloc : {_L0B}",
        f"%l0c = pto.alloc : {_L0C}",
    ]
    body_ops = ops - 3  # module, func.func, func.return
    if body_ops < len(head):
        raise ValueError(f"a pto kernel needs at least {len(head) + 3} ops, got {ops}")
    body = head + [_STEP[i % len(_STEP)] for i in range(body_ops - len(head))]
    lines = [
        'builtin.module attributes {pto.target = "a2"} {',
        f"  func.func @kernel(%a: {_GM16}, %b: {_GM16}, %c: {_GM32}) {{",
        *(f"    {line}" for line in body),
        "    func.return",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"


def arith_kernel(ops: int) -> str:
    """An arith-only module of exactly `ops` operations (ops >= 5): constants, then a chain of
    `arith.addi` / `arith.muli` on i32."""
    body_ops = ops - 3
    if body_ops < 2:
        raise ValueError(f"an arith kernel needs at least 5 ops, got {ops}")
    body = ["%v0 = arith.constant 1 : i32", "%v1 = arith.constant 3 : i32"]
    for i in range(2, body_ops):
        opname = "arith.addi" if i % 2 else "arith.muli"
        body.append(f"%v{i} = {opname} %v{i - 1}, %v{i - 2} : i32")
    lines = [
        "builtin.module {",
        "  func.func @kernel(%x: i32) -> i32 {",
        *(f"    {line}" for line in body),
        f"    func.return %v{body_ops - 1} : i32",
        "  }",
        "}",
    ]
    return "\n".join(lines) + "\n"
