"""numpy dtypes of the element types the simulated hardware stores.

The element names are the isa names of `docs/design.md` (`f16`, `bf16`, `s8`, `e4m3`, ...). numpy has no
bf16 / fp8 / fp6 / fp4 / int4; `ml_dtypes` provides them. The 4-bit types occupy one byte per element
in numpy, while the hardware packs two per byte: `is_packed_4bit` tells the memory model to keep such
tiles as packed bytes (see `memory.Tile`). `hif8` has no numpy type and is carried in a uint8 container,
`tf32` in a float32 container.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

NUMPY_DTYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "tf32": np.dtype(np.float32),
    "s4": np.dtype(ml_dtypes.int4),
    "s8": np.dtype(np.int8),
    "s16": np.dtype(np.int16),
    "s32": np.dtype(np.int32),
    "s64": np.dtype(np.int64),
    "u4": np.dtype(ml_dtypes.uint4),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "e2m3": np.dtype(ml_dtypes.float6_e2m3fn),
    "e3m2": np.dtype(ml_dtypes.float6_e3m2fn),
    "e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
    "hif8": np.dtype(np.uint8),
    "ue8m0": np.dtype(ml_dtypes.float8_e8m0fnu),  # block-scale factors (2^(e - 127), 0xFF NaN)
}

# Types whose hardware storage is two elements per byte (low nibble = even element).
PACKED_4BIT = frozenset({"s4", "u4", "e2m1"})

# Accumulation dtype of the cube unit per source family (docs/ascend.md, "Mmad type table").
FLOAT_ELEMENTS = frozenset({"f16", "bf16", "f32", "tf32", "f64", "e4m3", "e5m2", "e2m3", "e3m2", "e2m1"})
INTEGER_ELEMENTS = frozenset({"s4", "s8", "s16", "s32", "s64", "u4", "u8", "u16", "u32", "u64"})


def numpy_dtype(element: str) -> np.dtype:
    """The numpy dtype for an isa element name; ValueError for unknown names."""
    try:
        return NUMPY_DTYPES[element]
    except KeyError:
        raise ValueError(f"unknown element type {element!r}") from None


def is_packed_4bit(element: str) -> bool:
    return element in PACKED_4BIT


def storage_dtype(element: str) -> np.dtype:
    """The dtype of the array that aliases the byte memory: uint8 for the packed 4-bit types."""
    return np.dtype(np.uint8) if element in PACKED_4BIT else numpy_dtype(element)


def element_name_of_dtype(dtype: np.dtype) -> str:
    """The isa name for a numpy dtype (the first table entry that matches, so float32 -> f32)."""
    dtype = np.dtype(dtype)
    for name, candidate in NUMPY_DTYPES.items():
        if candidate == dtype and name not in ("tf32", "hif8"):
            return name
    raise ValueError(f"no element type for numpy dtype {dtype}")
