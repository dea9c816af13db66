"""Shared helpers of the tcgen05 executor tests: a CuTe layout evaluator and swizzle, compact SMEM
descriptors, one MMA on placed operands (`run`), a parsed kernel on the interpreter
(`run_kernel`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects import test as test_dialect

from mmair.dialects.tcgen05 import TCGEN05
from mmair.executor.tcgen05.kernels import mma
from mmair.executor.tcgen05.memories import SharedMemory, TensorMemory
from mmair.executor.tcgen05.operands import read_d, write_smem_operand
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc, layouts
from mmair.isa.tcgen05.smem import expected_base_offset

E2M1_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.5, -1, -1.5, -2, -3, -4, -6])


def cute_offsets(shape: tuple, stride: tuple) -> np.ndarray:
    """Evaluate a rank-2 CuTe layout ((rows...), (cols...)):((...), (...)) for every coordinate."""

    def mode(sub_shape, sub_stride) -> list[int]:
        if isinstance(sub_shape, int):
            return [i * sub_stride for i in range(sub_shape)]
        result = [0]
        for s, d in zip(sub_shape, sub_stride, strict=True):  # colexicographic: first mode fastest
            inner = mode(s, d)
            result = [r + x for x in inner for r in result]
        return result

    rows, cols = mode(shape[0], stride[0]), mode(shape[1], stride[1])
    return np.array(rows)[:, None] + np.array(cols)[None, :]


def cute_swizzle(address: int, b: int, m: int, s: int) -> int:
    """CuTe `Swizzle<B,M,S>::apply`."""
    yyy_mask = ((1 << b) - 1) << (m + s)
    return address ^ ((address & yyy_mask) >> s)


def compact_desc(major: str, swizzle: str, bits: int, mn: int, k: int, start: int) -> SmemDesc:
    """A descriptor whose canonical layout packs an (mn, k) operand densely from `start`."""
    unit_elems = 128 // bits
    row_units = layouts.SWIZZLE_ROW_BYTES[swizzle] // 16
    if major == "k":
        k_units = -(-k // unit_elems)
        if swizzle == "none":
            lbo, sbo = 128, 128 * k_units
        else:
            assert k_units <= row_units
            lbo, sbo = 16, 128 * row_units
    else:
        mn_units = -(-mn // unit_elems)
        if swizzle == "none":
            lbo, sbo = 128 * mn_units, 128
        else:
            groups = -(-mn_units // row_units)
            lbo, sbo = 128 * row_units, 128 * row_units * groups
    return SmemDesc(start=start, lbo=lbo, sbo=sbo,
                    base_offset=expected_base_offset(start, swizzle), swizzle=swizzle)


def idesc_word(kind: str, **fields) -> int:
    return encode_idesc(InstrDesc(kind=kind, **fields))


class Setup:
    """SMEM + TMEM with D allocated, operands placed through compact descriptors."""

    def __init__(self) -> None:
        self.smem = SharedMemory()
        self.tmem = TensorMemory()
        self.d = self.tmem.alloc(256)

    def place(self, values: np.ndarray, *, major: str, swizzle: str, type_name: str, kind: str,
              start: int) -> int:
        bits = layouts.smem_element_bits(kind, type_name)
        desc = compact_desc(major, swizzle, bits, values.shape[0], values.shape[1], start)
        write_smem_operand(self.smem, desc, values, major=major, type_name=type_name, kind=kind)
        return encode_smem_desc(desc)


def run(kind: str, a: np.ndarray, b: np.ndarray, *, atype: str, btype: str, dtype: str | None,
        a_major: str = "k", b_major: str = "k", a_swizzle: str = "sw128", b_swizzle: str = "sw128",
        setup: Setup | None = None, b_extra_columns: np.ndarray | None = None, idesc_extra=None,
        **mma_kwargs) -> tuple[np.ndarray, Setup]:
    """Place A (M x K) and B (K x N), run one MMA, return D."""
    s = setup or Setup()
    m, n = a.shape[0], b.shape[1]
    b_stored = b if b_extra_columns is None else np.concatenate([b, b_extra_columns], axis=1)
    a_word = s.place(a, major=a_major, swizzle=a_swizzle, type_name=atype, kind=kind, start=0)
    b_word = s.place(b_stored.T, major=b_major, swizzle=b_swizzle, type_name=btype, kind=kind,
                     start=0x10000)
    fields = dict(m=m, n=n, atype=atype, btype=btype, dtype=dtype,
                  transpose_a=a_major == "mn", transpose_b=b_major == "mn", **(idesc_extra or {}))
    mma_kwargs.setdefault("enable_input_d", False)
    mma(s.smem, s.tmem, kind=kind, d=s.d, a=a_word, b=b_word,
        idesc=idesc_word(kind, **fields), **mma_kwargs)
    return read_d(s.tmem, s.d, dtype or "f32", m, n), s


def run_kernel(source: str, *args: np.ndarray):
    from xdsl.context import Context
    from xdsl.parser import Parser

    from mmair.dialects import get_all_dialects
    from mmair.executor.engine.interpreter import MmairInterpreter
    from mmair.executor.engine.memory import Memory
    from mmair.executor.tcgen05.functions import Tcgen05Functions
    from mmair.executor.upstream.arith import ArithFunctions
    from mmair.executor.upstream.func import FuncFunctions
    from mmair.executor.upstream.memref import MemRefFunctions
    from mmair.passes.tcgen05_materialize_descriptors import Tcgen05MaterializeDescriptorsPass

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = Parser(ctx, source).parse_module()
    module.verify()
    # Descriptor make-ops have a lowering; the executor runs the words hardware sees.
    Tcgen05MaterializeDescriptorsPass().apply(ctx, module)
    interp = MmairInterpreter(module)
    memory = Memory()
    for functions in (FuncFunctions(), ArithFunctions(), MemRefFunctions(),
                      Tcgen05Functions(memory=memory)):
        interp.register_implementations(functions, override=True)
    entry = next(op for op in module.walk() if op.name == "func.func")
    interp.call_op(entry, args)
    return memory


# A context with the tcgen05 dialect and what its kernels use (builtin, func, test ops).
TCGEN05_CONTEXT = Context()
for _dialect in (builtin.Builtin, func.Func, test_dialect.Test, TCGEN05):
    TCGEN05_CONTEXT.load_dialect(_dialect)


def matmul_kernel_file(tmp_path: Path, m: int, n: int, k: int, a_type: str, b_type: str,
                       d_type: str, ta: bool, tb: bool, saturate: bool = False) -> Path:
    """`tmp_path/matmul.mlir`: one sm_100a `tcgen05.matmul` of MLIR element types `a_type`,
    `b_type` -> `d_type`, A given K x M when `ta`, B given N x K when `tb`, with the `saturate`
    attribute when asked."""
    a_shape, b_shape = ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
    at = f"memref<{a_shape[0]}x{a_shape[1]}x{a_type}>"
    bt = f"memref<{b_shape[0]}x{b_shape[1]}x{b_type}>"
    dt = f"memref<{m}x{n}x{d_type}>"
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "") \
        + (" saturate" if saturate else "")
    path = tmp_path / "matmul.mlir"
    path.write_text(f'builtin.module attributes {{tcgen05.target = "sm_100a"}} {{\n'
                    f"  func.func @matmul(%a: {at}, %b: {bt}, %d: {dt}) {{\n"
                    f"    tcgen05.matmul %a, %b, %d{flags} : {at}, {bt}, {dt}\n"
                    f"    func.return\n  }}\n}}\n")
    return path
