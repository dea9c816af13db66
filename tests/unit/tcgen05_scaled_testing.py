"""Shared helpers of the block-scaled tcgen05.matmul lowering tests (one CTA and the CTA pair):
the kernel file of a matmul with scale operands and its inputs with numpy's D."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np

from mmair.isa.tcgen05.scale_atoms import atoms_from_logical, atoms_shape

TYPES = {"e4m3": ("f8E4M3FN", ml_dtypes.float8_e4m3fn),
         "e5m2": ("f8E5M2", ml_dtypes.float8_e5m2),
         "e2m1": ("f4E2M1FN", ml_dtypes.float4_e2m1fn),
         "e2m3": ("f6E2M3FN", ml_dtypes.float6_e2m3fn),
         "e3m2": ("f6E3M2FN", ml_dtypes.float6_e3m2fn)}
#: scale memref element -> (MLIR type, K elements per scale, numpy dtype, codes to draw from)
SCALES = {"ue8m0": ("f8E8M0FNU", 32, ml_dtypes.float8_e8m0fnu, np.arange(124, 131)),
          "ue4m3": ("f8E4M3FN", 16, ml_dtypes.float8_e4m3fn,
                    np.array([0.25, 0.5, 1.5, 2, 3], ml_dtypes.float8_e4m3fn).view(np.uint8))}


def scaled_kernel_file(tmp_path: Path, m: int, n: int, k: int, ea: str, eb: str, ta: bool,
            tb: bool, scale: str = "ue8m0", kind: str | None = None) -> Path:
    a_shape, b_shape = ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
    at = f"memref<{a_shape[0]}x{a_shape[1]}x{TYPES[ea][0]}>"
    bt = f"memref<{b_shape[0]}x{b_shape[1]}x{TYPES[eb][0]}>"
    dt = f"memref<{m}x{n}xf32>"
    sf, vector = SCALES[scale][:2]
    st = ["memref<" + "x".join(map(str, atoms_shape(rows, k, vector))) + f"x{sf}>"
          for rows in (m, n)]
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "") \
        + (f' {{kind = "{kind}"}}' if kind else "")
    path = tmp_path / "matmul.mlir"
    path.write_text(f'builtin.module attributes {{tcgen05.target = "sm_100a"}} {{\n'
                    f"  func.func @matmul(%a: {at}, %b: {bt}, %d: {dt}, %sa: {st[0]}, "
                    f"%sb: {st[1]}) {{\n"
                    f"    tcgen05.matmul %a, %b, %d scale(%sa, %sb){flags} : {at}, {bt}, {dt}, "
                    f"{st[0]}, {st[1]}\n"
                    f"    func.return\n  }}\n}}\n")
    return path


def scale_values(codes: np.ndarray, scale: str) -> np.ndarray:
    if scale == "ue8m0":
        return 2.0 ** (codes.astype(np.float64) - 127)
    return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)


def scaled_inputs(tmp_path: Path, m: int, n: int, k: int, ea: str, eb: str, ta: bool, tb: bool,
            scale: str = "ue8m0") -> tuple[np.ndarray, list[str]]:
    """Small integers, scales (UE8M0: 2^-3 .. 2^3) per block of K elements (a different scale in
    every block, so a wrong SF id or TMEM column changes D), and numpy's D = (A SA) (B SB)."""
    rng = np.random.default_rng(11)
    _, vector, dtype, pool = SCALES[scale]
    a = rng.integers(-3, 4, (m, k)).astype(TYPES[ea][1])
    b = rng.integers(-3, 4, (k, n)).astype(TYPES[eb][1])
    blocks = -(-k // vector)
    sa = rng.choice(pool, (m, blocks)).astype(np.uint8)
    sb = rng.choice(pool, (n, blocks)).astype(np.uint8)
    np.save(tmp_path / "a.npy", a.T.copy() if ta else a)
    np.save(tmp_path / "b.npy", b.T.copy() if tb else b)
    for name, codes in (("sa", sa), ("sb", sb)):
        np.save(tmp_path / f"{name}.npy", atoms_from_logical(codes, fill=int(pool[0])).view(dtype))
    scale_a = np.repeat(scale_values(sa, scale), vector, axis=1)[:, :k]
    scale_b = np.repeat(scale_values(sb, scale), vector, axis=1)[:, :k]
    want = (a.astype(np.float64) * scale_a) @ (b.astype(np.float64) * scale_b.T)
    return want.astype(np.float32), [arg for name in ("a", "b", "sa", "sb")
                                     for arg in ("--input", f"{name}={tmp_path / f'{name}.npy'}")]
