"""Element codecs of the tcgen05 operand and scale types: raw container bits <-> values for
every MMA input type (tf32 ignores the low 13 mantissa bits), UE8M0 and UE4M3 scale factors.
"""


from __future__ import annotations

import ml_dtypes
import numpy as np

from mmair.isa.tcgen05 import layouts

_FLOAT_TYPES: dict[str, np.dtype] = {
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
    "e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "e2m3": np.dtype(ml_dtypes.float6_e2m3fn),
    "e3m2": np.dtype(ml_dtypes.float6_e3m2fn),
    "e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
}


RAW_DTYPES: dict[int, np.dtype] = {
    4: np.dtype(np.uint8), 8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32),
}


_TF32_MASK = np.uint32(0xFFFFE000)  # tf32 keeps 10 of the 23 f32 mantissa bits


def decode_elements(raw: np.ndarray, type_name: str) -> np.ndarray:
    """Container integers -> values (float32 for float types, int64 for u8/s8)."""
    if type_name == "tf32":
        return (raw.astype(np.uint32) & _TF32_MASK).view(np.float32)
    if type_name == "u8":
        return raw.astype(np.int64)
    if type_name == "s8":
        return raw.astype(np.uint8).view(np.int8).astype(np.int64)
    dtype = _FLOAT_TYPES[type_name]
    if dtype.itemsize == 1:
        value_mask = (1 << layouts.container_value_bits(type_name)) - 1
        return (raw.astype(np.uint8) & value_mask).view(dtype).astype(np.float32)
    # f16, bf16: through the f32 value of every bit pattern (the same conversion, done once;
    # numpy's astype has no vectorised path for halves)
    return np.take(_f32_table(dtype), raw.astype(np.uint16, copy=False))


_F32_TABLES: dict[str, np.ndarray] = {}


def _f32_table(dtype: np.dtype) -> np.ndarray:
    """float32 value of every 16-bit pattern of `dtype` (f16 or bf16), built on first use."""
    table = _F32_TABLES.get(dtype.str)
    if table is None:
        patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
        table = _F32_TABLES[dtype.str] = patterns.view(dtype).astype(np.float32)
        table.setflags(write=False)
    return table


def encode_elements(values: np.ndarray, type_name: str) -> np.ndarray:
    """Values -> container integers (rounding to the type; tf32 stored as its f32 bits)."""
    values = np.asarray(values)
    if type_name == "tf32":
        return values.astype(np.float32).view(np.uint32)
    if type_name in ("u8", "s8"):
        # The low byte of the integer: two's complement for s8 (-1 -> 0xFF), as for u8.
        return values.astype(np.int64).astype(np.uint8)
    dtype = _FLOAT_TYPES[type_name]
    converted = values.astype(np.float32, copy=False).astype(dtype)
    return converted.view(np.uint8 if dtype.itemsize == 1 else np.uint16)


def decode_ue8m0(codes: np.ndarray) -> np.ndarray:
    """UE8M0 scale bytes -> float32: 2^(e - 127); 255 is NaN."""
    return codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu).astype(np.float32)


def decode_ue4m3(codes: np.ndarray) -> np.ndarray:
    """UE4M3 scale bytes (unsigned e4m3, bias 7; bit 7 ignored) -> float32; 0x7F is NaN."""
    codes = codes.astype(np.int64) & 0x7F
    exponent, mantissa = codes >> 3, codes & 7
    normal = np.ldexp(1.0 + mantissa / 8.0, exponent - 7)
    subnormal = np.ldexp(mantissa / 8.0, -6)
    values = np.where(exponent == 0, subnormal, normal)
    return np.where(codes == 0x7F, np.nan, values).astype(np.float32)


def encode_scale(values: np.ndarray, scale_type: str) -> np.ndarray:
    """Exact scale values -> scale bytes (for tests and benchmarks; values must be representable)."""
    values = np.asarray(values, dtype=np.float64)
    if scale_type == "ue8m0":
        codes = values.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
        decoded = decode_ue8m0(codes)
    else:
        codes = np.abs(values).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)  # sign bit clear
        decoded = decode_ue4m3(codes)
    if not np.array_equal(decoded, values):
        raise ValueError(f"scale values are not exactly representable as {scale_type}")
    return codes
