"""tcgen05-lower-matmul for the sub-byte kind::f8f6f4 types e2m1 / e2m3 / e3m2: packed in global
memory, copied by TMA as `.b4x16_p64` / `.b6x16_p32` (CUTLASS's `float_e2m1_unpacksmem_t` etc.:
16 elements and their padding per 16-byte SMEM unit, the 8-bit canonical layout), the MMA reading
them with the descriptor's type codes. The lowered kernels run clean under the asynchronous
checker, bit-exact against numpy (the operands decoded from their codes by ml_dtypes) in both
numerics modes, on remainder rows and columns, both operand majors and mixed with e4m3, and pass
--check-numpy (the plan's maps and refusals: tests/unit/isa/tcgen05/test_isa_tcgen05_matmul.py)."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from tcgen05_testing import matmul_kernel_file

from mmair.tools.run import main

#: type -> (MLIR element type, ml_dtypes type, code width)
TYPES = {"e2m1": ("f4E2M1FN", ml_dtypes.float4_e2m1fn, 4),
         "e2m3": ("f6E2M3FN", ml_dtypes.float6_e2m3fn, 6),
         "e3m2": ("f6E3M2FN", ml_dtypes.float6_e3m2fn, 6),
         "e4m3": ("f8E4M3FN", ml_dtypes.float8_e4m3fn, 8)}


def _codes(rng: np.random.Generator, type_name: str, shape: tuple[int, int]) -> np.ndarray:
    """Every code of a sub-byte type (e4m3: the normal codes of magnitude 0.5 to 15, so that the
    f32 sums stay exact), as an array of the type (one element per byte)."""
    _, dtype, width = TYPES[type_name]
    codes = rng.integers(0, 1 << width, shape).astype(np.uint8)
    if type_name == "e4m3":  # sign, exponent field 6..10, any mantissa
        codes = (codes & 0x87) | (rng.integers(6, 11, shape).astype(np.uint8) << 3)
    return codes.view(dtype)


CASES = [  # m, n, k, a type, b type, transpose_a, transpose_b
    (200, 72, 256, "e2m1", "e3m2", False, True),  # remainder rows, two K blocks, both K-major
    (256, 128, 128, "e2m3", "e4m3", True, False),  # A M-major, B N-major, a sub-byte x e4m3 pair
    (72, 13, 384, "e3m2", "e2m1", False, True),  # fewer rows than the tile, N = 13 (tile 16)
]


@pytest.mark.parametrize(("m", "n", "k", "at", "bt", "ta", "tb"), CASES,
                         ids=[f"{c[0]}x{c[1]}x{c[2]}-{c[3]}x{c[4]}{'-ta' * c[5]}{'-tb' * c[6]}"
                              for c in CASES])
def test_sub_byte_matmul_is_bit_exact(tmp_path: Path, capsys, m: int, n: int, k: int, at: str,
                                      bt: str, ta: bool, tb: bool) -> None:
    rng = np.random.default_rng(31)
    a = _codes(rng, at, (k, m) if ta else (m, k))
    b = _codes(rng, bt, (n, k) if tb else (k, n))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    # every product is a multiple of 2**-7 and every |sum| < 2**16: exact in f32
    want = ((a64.T if ta else a64) @ (b64.T if tb else b64)).astype(np.float32)
    path = matmul_kernel_file(tmp_path, m, n, k, TYPES[at][0], TYPES[bt][0], "f32", ta, tb)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    for mode in ("default", "exact"):
        out = tmp_path / f"d_{mode}.npy"
        code = main([str(path), "--input", f"a={tmp_path / 'a.npy'}", "--input",
                     f"b={tmp_path / 'b.npy'}", "--numerics", mode, "--sync-check=on",
                     "--check-numpy", "--output", f"d={out}"])
        text = capsys.readouterr()
        assert code == 0, text.err
        assert text.out.endswith(": ok\n")
        got = np.load(out)
        assert got.dtype == np.float32 and np.array_equal(got.view(np.uint32),
                                                          want.view(np.uint32))
