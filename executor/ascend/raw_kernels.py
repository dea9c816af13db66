"""Whole-tile numpy kernels of the cube instructions in their raw Ascend C parameter forms.

The tile-level kernels (`kernels.py`) move logical regions of typed tiles. The instructions
themselves are programmed with the Ascend C parameter structs (`isa/ascend/params.py`), which
address memory linearly from a start address with counts and strides in their own units. These
kernels implement the documented index formulas on flat arrays:

* `nd2nz`: DataCopy GM -> L1 with `Nd2NzParams` (CCE `copy_gm_to_cbuf_multi_nd2nz` loop; several ND
  matrices, strides in elements and C0 = 32 B units, zero-filled C0 tails).
* `load2d`: LoadData with `LoadData2DParams` (Ascend C `load2d.py`; whole 512-byte fractals,
  srcStride start to start, dstGap end to start, b16 `ifTranspose`; from GM to L1, addrMode 1
  reads the source fractals backwards).
* `load2d_transpose`: LoadDataWithTranspose with `LoadData2dTransposeParams`
  (`load_data_with_transpose.py`; b8 32x32 and b32 16x16 square blocks of two fractals, b4 64x64
  squares of four).
* `copy_gm_l1`: DataCopy GM -> L1 with `DataCopyParams` (CCE `copy_gm_to_cbuf`; bursts of 32-byte
  blocks, bytes unchanged).
* `copy_l1_bt`: DataCopy L1 -> BiasTable with `DataCopyParams` (CCE `copy_cbuf_to_bt`; bursts of
  64-byte units, 32 B on a5, gaps end to start).
* `mmad`: Mmad with `MmadParams`: L0A Zz (Nz on a5) / L0B Zn / L0C Nz read with the fractal grids of
  m, n, k (or L0A as an nd vector when the GEMV rule applies).
* `fixpipe`: Fixpipe with `FixpipeParamsV220` / `FixpipeParamsArch3510` (NZ2ND, NZ2NZ, NZ2DN loops of
  the Ascend C feature pages).

Every address is an index into a flat array that starts at the operand's start address and ends
where its buffer ends, so a stride that leaves the buffer is an `ExecutionError`, not a wrap-around.
Index arrays are built with broadcasting (no per-element Python loops); overlapping writes (a
destination stride of 0) keep one of the values, as the hardware "does not guarantee the order".
A runtime size of 0 is a no-op (the instruction is not executed).

Packed 4-bit operands (s4, e2m1; two per byte, element 2i in the low nibble of byte i:
`layouts.pack_nibbles`, the int4b_t packing rule of the Ascend C `LoadDataWithTranspose` page)
are moved as bytes, as the hardware moves them: ND2NZ runs the b8 instruction with the struct's
fields in bytes (Ascend C passes an int4b_t `Nd2NzParams` unchanged to
`copy_gm_to_cbuf_multi_nd2nz_b8`), LoadData moves 512-byte fractals, LoadDataWithTranspose turns
64 x 64 squares of nibbles. Only the Mmad reads them as values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mmair.executor.engine.errors import ExecutionError
from mmair.isa.ascend import layouts, mad_modes
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.targets import C0_BYTES, FRACTAL_BYTES, M0, element_bits

RAW_MAX_ELEMENTS = 1 << 24
"""Most elements one raw instruction may touch in the simulator (strides of 0 re-read the same data,
so a count is not bounded by the buffers)."""


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _limit(count: int, what: str) -> None:
    if count > RAW_MAX_ELEMENTS:
        raise ExecutionError(
            f"{what} touches {count} elements in one instruction, more than the simulator's limit "
            f"of {RAW_MAX_ELEMENTS}"
        )


def _bounds(idx: np.ndarray, size: int, role: str, unit: str = "element") -> None:
    if idx.size and (int(idx.max()) >= size or int(idx.min()) < 0):
        raise ExecutionError(
            f"{role} {unit} {int(idx.max())} is beyond the {size}-{unit} {role} buffer "
            f"(from the operand start to the end of its buffer)"
        )


def _check_fields(values: dict[str, int], fields: dict) -> None:
    """Runtime values must fit their struct fields (the verifier checks static ones)."""
    for name, value in values.items():
        f = fields.get(name)
        if f is None:
            continue
        lo = 0 if f.size else f.range[0]
        if not lo <= value <= f.range[1]:
            raise ExecutionError(f"requires {name} ({f.c_name}) in [{lo}, {f.range[1]}], got {value}")


# ------------------------------------------------------------------------------------------------
# GM -> L1: ND2NZ
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Nd2Nz:
    nd_num: int
    n_value: int
    d_value: int
    src_nd_matrix_stride: int
    src_d_value: int
    dst_nz_c0_stride: int
    dst_nz_n_stride: int
    dst_nz_matrix_stride: int


def nd2nz(src: np.ndarray, dst: np.ndarray, p: Nd2Nz, c0: int, fields: dict | None = None,
          dn: bool = False, small_c0: bool = False) -> None:
    """DataCopy(dst, src, Nd2NzParams); `src` (GM) and `dst` (L1) are 1-D element arrays from the
    operand starts. For i < ndNum, n < nValue, d < ceil(dValue / c0) * c0:
        dst[i*dstNzMatrixStride + (d//c0)*dstNzC0Stride*c0 + n*dstNzNStride*c0 + d%c0]
            = src[i*srcNdMatrixStride + n*srcDValue + d]  if d < dValue  else 0.
    `dn` (Dn2NzParams: dnNum, srcDnMatrixStride in the same places) reads the source transposed,
    src[i*srcDnMatrixStride + d*srcDValue + n]: the D x N source's column n becomes NZ row n.
    `small_c0` (enableSmallC0, dValue <= 4): the row of n is 4 elements at n*4, zero-filled past
    dValue, and each matrix's nValue*4 elements are zero-filled up to a whole 32-byte block.
    A 4-bit copy runs on bytes (`src` a `PackedNibbles` view of GM, `dst` the tile's bytes, c0 32):
    the fields count bytes, two elements each (dav_3510 copies fp4x2 DN2NZ and SmallC0 the same way)."""
    if fields is not None:
        _check_fields(vars(p), fields)
    if p.nd_num == 0 or p.n_value == 0 or p.d_value == 0:
        return
    if small_c0:
        if p.d_value > isa_params.SMALL_C0_MAX_D:
            raise ExecutionError(f"enableSmallC0 requires d_value (dValue) <= "
                                 f"{isa_params.SMALL_C0_MAX_D}, got {p.d_value}")
        block, c0 = c0, isa_params.SMALL_C0_ELEMENTS
    dpad = _cdiv(p.d_value, c0) * c0
    _limit(p.nd_num * p.n_value * dpad, "nd2nz")
    i = np.arange(p.nd_num, dtype=np.int64)[:, None, None]
    n = np.arange(p.n_value, dtype=np.int64)[None, :, None]
    d = np.arange(dpad, dtype=np.int64)[None, None, :]
    if small_c0:
        tail = _cdiv(p.n_value * c0, block) * block  # the matrix, zero-filled to 32 bytes
        dst_idx = i * p.dst_nz_matrix_stride + np.arange(tail, dtype=np.int64)[None, None, :]
    else:
        dst_idx = (i * p.dst_nz_matrix_stride + (d // c0) * p.dst_nz_c0_stride * c0
                   + n * p.dst_nz_n_stride * c0 + d % c0)
    dv = d[..., : p.d_value]
    src_idx = i * p.src_nd_matrix_stride + (dv * p.src_d_value + n if dn else n * p.src_d_value + dv)
    _bounds(src_idx, src.size, "src")
    _bounds(dst_idx, dst.size, "dst")
    rows = np.zeros((p.nd_num, p.n_value, dpad), dtype=dst.dtype)
    rows[..., : p.d_value] = src[src_idx]
    if small_c0:
        values = np.zeros(dst_idx.shape, dtype=dst.dtype)
        values[:, 0, : p.n_value * c0] = rows.reshape(p.nd_num, -1)
        rows = values
    dst[dst_idx] = rows


class PackedNibbles:
    """The bytes of a 4-bit GM operand that numpy holds one element per byte (`codes`: the 4-bit
    codes from the operand start, an even element), packed as the hardware stores them
    (`layouts.pack_nibbles`); indexing gathers only the bytes asked for."""

    dtype = np.dtype(np.uint8)

    def __init__(self, codes: np.ndarray) -> None:
        self.codes = codes
        self.size = codes.size // 2

    def __getitem__(self, index: np.ndarray) -> np.ndarray:
        pairs = np.stack([self.codes[2 * index], self.codes[2 * index + 1]], axis=-1)
        return layouts.pack_nibbles(pairs).reshape(index.shape)


def unpack_codes(data: np.ndarray) -> np.ndarray:
    """The 4-bit codes (0..15) of packed bytes `data` (any shape), two per byte along the last
    axis (`layouts.unpack_nibbles`)."""
    codes = layouts.unpack_nibbles(data, data.size * 2, signed=False).view(np.uint8)
    return codes.reshape(*data.shape[:-1], data.shape[-1] * 2)


def pack_codes(codes: np.ndarray) -> np.ndarray:
    """Inverse of `unpack_codes` (the last axis even)."""
    return layouts.pack_nibbles(codes).reshape(*codes.shape[:-1], codes.shape[-1] // 2)


# ------------------------------------------------------------------------------------------------
# L1 -> L0A / L0B: LoadData 2D
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Load2D:
    start_index: int
    repeat_times: int
    src_stride: int
    dst_gap: int


def _take_blocks(flat: np.ndarray, starts: np.ndarray, width: int, role: str) -> np.ndarray:
    idx = starts[:, None] + np.arange(width, dtype=np.int64)[None, :]
    _bounds(idx, flat.size, role, "byte")
    return flat[idx]


def load2d(
    src: np.ndarray, dst: np.ndarray, p: Load2D, bits: int, transpose: bool = False,
    dst_gap_effective: bool = True, addr_mode: int = 0,
) -> None:
    """LoadData(dst, src, LoadData2DParams) on byte arrays from the operand starts: for
    i < repeatTimes, the 512-byte fractal at (startIndex + srcStride*i)*512 goes to
    (dstGap + 1)*512*i (dstGap is ignored on a5); with ifTranspose (b16 only) each 16x16
    fractal is transposed. `addr_mode` 1 (dec, the GM -> L1 path only) reads fractal
    startIndex - srcStride*i instead (Ascend C `load2d.py`: `addr_calc_mode = -1`)."""
    _check_fields(vars(p), isa_params.LOAD2D_FIELDS)
    if p.repeat_times == 0:
        return
    if transpose and bits != 16:
        raise ExecutionError(f"ifTranspose requires b16 elements, got {bits}-bit elements")
    gap = p.dst_gap if dst_gap_effective else 0
    i = np.arange(p.repeat_times, dtype=np.int64)
    decrement = addr_mode == 1
    sign = -1 if decrement else 1
    if decrement and p.start_index < p.src_stride * (p.repeat_times - 1):
        raise ExecutionError(
            f"addrMode 1 (dec) reads fractal start_index - src_stride*i, which is negative for "
            f"i = {p.start_index // p.src_stride + 1} (start_index {p.start_index}, src_stride "
            f"{p.src_stride}, repeat_times {p.repeat_times}): before the src operand's start")
    blocks = _take_blocks(src, (p.start_index + sign * p.src_stride * i) * FRACTAL_BYTES,
                          FRACTAL_BYTES, "src")
    if transpose:
        words = blocks.view(np.uint16).reshape(-1, M0, M0).transpose(0, 2, 1)
        blocks = np.ascontiguousarray(words).view(np.uint8).reshape(-1, FRACTAL_BYTES)
    idx = (gap + 1) * FRACTAL_BYTES * i[:, None] + np.arange(FRACTAL_BYTES, dtype=np.int64)[None, :]
    _bounds(idx, dst.size, "dst", "byte")
    dst[idx] = blocks


@dataclass(frozen=True)
class Load2DTranspose:
    start_index: int
    repeat_times: int
    src_stride: int
    dst_gap: int
    dst_frac_gap: int


def load2d_transpose(src: np.ndarray, dst: np.ndarray, p: Load2DTranspose, elem: str) -> None:
    """LoadDataWithTranspose(dst, src, LoadData2dTransposeParams) on byte arrays. Per iteration i the
    square block S at (startIndex + srcStride*i) squares is transposed: b16 one 16x16 fractal; b8 two
    16x32 fractals stacked into 32x32, T = S^T split into its two 16-row halves; b32 two 16x8
    fractals side by side into 16x16, T split into its two 8-column halves; b4 four 16x64
    fractals stacked into 64x64, T split into its four 16-row quarters. Destination fractal j of
    iteration i starts at (dstGap + 1)*512*i + j*(dstFracGap + 1)*512 bytes."""
    _check_fields(vars(p), isa_params.LOAD2D_TRANSPOSE_FIELDS)
    if p.repeat_times == 0:
        return
    nfrac, _edge, _rows = isa_params.transpose_square(elem)
    bits = element_bits(elem)
    square_bytes = nfrac * FRACTAL_BYTES
    dtype = np.dtype(f"u{max(bits, 8) // 8}")
    i = np.arange(p.repeat_times, dtype=np.int64)
    raw = _take_blocks(src, (p.start_index + p.src_stride * i) * square_bytes, square_bytes, "src")
    words = unpack_codes(raw) if bits == 4 else raw.view(dtype)
    if bits == 4:  # four 16 x 64 fractals stacked into 64 x 64, T split into its four 16-row quarters
        t = words.reshape(-1, 64, 64).transpose(0, 2, 1)
        halves = [t[:, 16 * q: 16 * (q + 1), :] for q in range(4)]
    elif bits == 16:
        halves = [words.reshape(-1, 16, 16).transpose(0, 2, 1)]
    elif bits == 8:
        t = words.reshape(-1, 32, 32).transpose(0, 2, 1)
        halves = [t[:, :16, :], t[:, 16:, :]]
    else:  # b32: S = [A | B], A and B 16 x 8
        a = words[:, :128].reshape(-1, 16, 8)
        b = words[:, 128:].reshape(-1, 16, 8)
        t = np.concatenate([a, b], axis=2).transpose(0, 2, 1)  # 16 x 16
        halves = [t[:, :, :8], t[:, :, 8:]]
    byte_range = np.arange(FRACTAL_BYTES, dtype=np.int64)[None, :]
    for j, half in enumerate(halves):
        half = np.ascontiguousarray(half)
        block = (pack_codes(half.reshape(half.shape[0], -1)) if bits == 4
                 else half.view(np.uint8).reshape(-1, FRACTAL_BYTES))
        idx = ((p.dst_gap + 1) * FRACTAL_BYTES * i + j * (p.dst_frac_gap + 1) * FRACTAL_BYTES)[:, None] \
            + byte_range
        _bounds(idx, dst.size, "dst", "byte")
        dst[idx] = block


@dataclass(frozen=True)
class CopyGmL1:
    block_count: int
    block_len: int
    src_gap: int
    dst_gap: int


def copy_gm_l1(src: np.ndarray, dst: np.ndarray, p: CopyGmL1) -> None:
    """DataCopy GM -> L1 (`copy_gm_to_cbuf`) on byte arrays from the operand starts: for
    i < blockCount, the burst of blockLen*32 bytes at i*(blockLen + srcGap)*32 of src goes to
    i*(blockLen + dstGap)*32 of dst (gaps end to start)."""
    _check_fields(vars(p), isa_params.GM_L1_FIELDS)
    unit = isa_params.GM_L1_UNIT_BYTES
    burst = p.block_len * unit
    _limit(p.block_count * burst, "copy_gm_l1")
    i = np.arange(p.block_count, dtype=np.int64)
    blocks = _take_blocks(src, i * (burst + p.src_gap * unit), burst, "src")
    idx = (i * (burst + p.dst_gap * unit))[:, None] + np.arange(burst, dtype=np.int64)[None, :]
    _bounds(idx, dst.size, "dst", "byte")
    dst[idx] = blocks


@dataclass(frozen=True)
class CopyL1Bt:
    block_count: int
    block_len: int
    src_gap: int
    dst_gap: int


def copy_l1_bt(src: np.ndarray, dst: np.ndarray, p: CopyL1Bt, unit: int,
               widen: tuple[np.dtype, np.dtype] | None = None) -> None:
    """DataCopy L1 -> BT (`copy_cbuf_to_bt`) on byte arrays from the operand starts: for
    i < blockCount, the burst of blockLen*unit bytes at i*(blockLen*unit + srcGap*32) of src goes
    to i*(blockLen*unit + dstGap*unit) of dst (gaps end to start; `unit` 64 B, 32 B on a5).

    `widen` = (src dtype, dst dtype) is the convControl conversion (f16 / bf16 -> f32): a burst's
    blockLen*unit source bytes (pto-isa's TMOV counts the source, `Cols * sizeof(SrcType)`)
    become that many elements of the wider type, so the destination burst is wider by the ratio
    of the element sizes (inferred for more than one burst: pto-isa issues one)."""
    _check_fields(vars(p), isa_params.L1_BT_FIELDS)
    if p.block_count == 0 or p.block_len == 0:
        return
    burst = p.block_len * unit
    _limit(p.block_count * burst, "copy_l1_bt")
    i = np.arange(p.block_count, dtype=np.int64)
    blocks = _take_blocks(src, i * (burst + p.src_gap * isa_params.L1_BT_SRC_GAP_BYTES), burst, "src")
    dst_burst = burst
    if widen is not None:
        narrow, wide = (np.dtype(t) for t in widen)
        dst_burst = burst // narrow.itemsize * wide.itemsize
        blocks = (np.ascontiguousarray(blocks).view(narrow).astype(wide).view(np.uint8)
                  .reshape(p.block_count, dst_burst))
    idx = (i * (dst_burst + p.dst_gap * unit))[:, None] + np.arange(dst_burst, dtype=np.int64)[None, :]
    _bounds(idx, dst.size, "dst", "byte")
    dst[idx] = blocks


@dataclass(frozen=True)
class Load2DV2:
    m_start_position: int
    k_start_position: int
    m_step: int
    k_step: int
    src_stride: int
    dst_stride: int


def load2d_v2(src: np.ndarray, dst: np.ndarray, p: Load2DV2, bits: int, transpose: bool = False) -> None:
    """LoadData(dst, src, LoadData2DParamsV2) on byte arrays from the operand starts. The source is
    Nz with fractals of 16 rows x C0 (C0 = 32 B), fractal (m1, k1) at k1*srcStride + m1; the window
    R = fractals (mStartPosition + i, kStartPosition + j), i < mStep, j < kStep, is an
    [mStep*16, kStep*C0] matrix. Without ifTranspose fractal (i, j) goes to j*dstStride + i; with
    it R^T [kStep*C0, mStep*16] is written Nz, its fractal (r1, c1) at c1*dstStride + r1."""
    _check_fields(vars(p), isa_params.LOAD2D_V2_FIELDS)
    if p.m_step == 0 or p.k_step == 0:
        return
    i = np.arange(p.m_step, dtype=np.int64)[:, None]
    j = np.arange(p.k_step, dtype=np.int64)[None, :]
    frac = ((p.k_start_position + j) * p.src_stride + p.m_start_position + i).reshape(-1)
    blocks = _take_blocks(src, frac * FRACTAL_BYTES, FRACTAL_BYTES, "src")
    if not transpose:
        slots = (j * p.dst_stride + i).reshape(-1)
    else:
        field, multiple = isa_params.LOAD2D_V2_TRANSPOSE_MULTIPLE[bits]
        if getattr(p, field) % multiple:
            raise ExecutionError(f"ifTranspose of b{bits} requires {field} to be a multiple of "
                                 f"{multiple}, got {getattr(p, field)}")
        c0 = C0_BYTES * 8 // bits
        elements = unpack_codes(blocks) if bits == 4 else blocks.view(np.dtype(f"u{bits // 8}"))
        words = elements.reshape(p.m_step, p.k_step, M0, c0)
        t = words.transpose(1, 3, 0, 2).reshape(p.k_step * c0, p.m_step * M0)  # R^T
        r1, c1 = p.k_step * c0 // M0, p.m_step * M0 // c0
        out = np.ascontiguousarray(t.reshape(r1, M0, c1, c0).transpose(2, 0, 1, 3))  # Nz (c1, r1)
        blocks = (pack_codes(out.reshape(-1, M0 * c0)) if bits == 4
                  else out.view(np.uint8).reshape(-1, FRACTAL_BYTES))
        slots = (np.arange(c1, dtype=np.int64)[:, None] * p.dst_stride
                 + np.arange(r1, dtype=np.int64)[None, :]).reshape(-1)
    idx = slots[:, None] * FRACTAL_BYTES + np.arange(FRACTAL_BYTES, dtype=np.int64)[None, :]
    _bounds(idx, dst.size, "dst", "byte")
    dst[idx] = blocks


# ------------------------------------------------------------------------------------------------
# Mmad
# ------------------------------------------------------------------------------------------------


def mmad_indices(
    m: int, n: int, k: int, lhs: str, rhs: str, l0a_layout: str, gemv: bool, k_align16: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat element indices (A[m, k], B[k, n], C[m, n]) an Mmad reads and writes, from the fractal
    grids of m, n and k: L0A Zz (Nz on a5) or, under GEMV, a contiguous 1 x k vector; L0B Zn; L0C Nz
    (16 x 16). With kDirectionAlign (f32) K is padded to 16 instead of 8."""
    r = np.arange(m, dtype=np.int64)[:, None]
    ka = np.arange(k, dtype=np.int64)[None, :]
    k0a = C0_BYTES * 8 // element_bits(lhs)
    k0b = C0_BYTES * 8 // element_bits(rhs)
    kpad = _cdiv(k, 16) * 16 if k_align16 else _cdiv(k, k0a) * k0a
    m1, n1 = _cdiv(m, M0), _cdiv(n, M0)
    if gemv:
        a_idx = np.broadcast_to(ka, (m, k))
    elif l0a_layout == "zz":
        k1 = kpad // k0a
        a_idx = ((r // M0) * k1 + ka // k0a) * M0 * k0a + (r % M0) * k0a + ka % k0a
    else:  # nz (a5)
        a_idx = ((ka // k0a) * m1 + r // M0) * M0 * k0a + (r % M0) * k0a + ka % k0a
    kb = np.arange(k, dtype=np.int64)[:, None]
    nb = np.arange(n, dtype=np.int64)[None, :]
    b_idx = ((kb // k0b) * n1 + nb // M0) * M0 * k0b + (nb % M0) * k0b + kb % k0b
    c_idx = ((nb // M0) * m1 + r // M0) * M0 * M0 + (r % M0) * M0 + nb % M0
    return a_idx, b_idx, c_idx


def mmad(
    a: np.ndarray,
    b: np.ndarray,
    c: np.ndarray,
    m: int,
    n: int,
    k: int,
    *,
    lhs: str,
    rhs: str,
    l0a_layout: str,
    gemv: bool,
    init_zero: bool,
    bias: np.ndarray | None = None,
    k_align16: bool = False,
    compute_dtype: np.dtype,
    tf32_mode: str | None = None,
    sat_max: tuple[float, float] | None = None,
) -> None:
    """Mmad(dst, fm, filter[, bias], MmadParams) on flat element arrays from the operand starts:
    C = A x B (init_zero), C += A x B (cmatrixInitVal = false, cmatrixSource = L0C), or
    C = A x B + bias[n] (bias in BT). Integer results saturate to the accumulator type.
    `tf32_mode` rounds f32 inputs to TF32 first; `sat_max` (the lhs / rhs types' finite maxima)
    is the float `sat` mode: inputs normalised, the f32 result saturated (`isa.ascend.mad_modes`)."""
    if m == 0 or n == 0 or k == 0:
        return
    _limit(m * k + k * n + m * n, "mmad")
    a_idx, b_idx, c_idx = mmad_indices(m, n, k, lhs, rhs, l0a_layout, gemv, k_align16)
    _bounds(a_idx, a.size, "fm (L0A)")
    _bounds(b_idx, b.size, "filter (L0B)")
    _bounds(c_idx, c.size, "dst (L0C)")
    av = a[a_idx].astype(compute_dtype)
    bv = b[b_idx].astype(compute_dtype)
    av, bv = mad_modes.mmad_inputs(av, bv, tf32_mode, sat_max)
    if sat_max is not None:  # partial sums in f64: the saturated result, not an inf on the way
        av, bv = av.astype(np.float64), bv.astype(np.float64)
    prod = av @ bv
    integer = c.dtype.kind in "iu"
    if integer:
        prod = np.rint(prod)  # mutation: skip (integer operands in f64 give integral sums: any rounding agrees)
        prod = prod.astype(np.int64)
    if not init_zero:
        prod = prod + c[c_idx].astype(prod.dtype)
    if bias is not None:
        _bounds(np.arange(n), bias.size, "bias (BT)")
        prod = prod + bias[:n].astype(prod.dtype)[None, :]
    if integer:
        info = np.iinfo(c.dtype)
        prod = np.clip(prod, info.min, info.max)
    elif sat_max is not None:
        prod = mad_modes.saturate_result(prod)
    c[c_idx] = prod.astype(c.dtype)


# ------------------------------------------------------------------------------------------------
# Fixpipe
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FixpipeRaw:
    n_size: int
    m_size: int
    src_stride: int
    dst_stride: int
    nd_num: int = 1
    src_nd_stride: int = 0
    dst_nd_stride: int = 0
    src_nz_c0_stride: int = 1  # a5 NZ2DN only


def fixpipe_indices(
    p: FixpipeRaw, layout: str, dst_nz_unit_elements: float, nz_block_cols: int = 16
) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) flat element indices of shape (nd_num * m_size, n_size), row = one output row of
    one matrix, column = the channel n (so per-column quant vectors broadcast along rows).
    NZ2ND: src[i*srcNdStride*16 + (c//16)*srcStride*16 + m*16 + c%16] -> dst[i*dstNdStride + m*dstStride + c]
    NZ2NZ: src[(c//16)*srcStride*16 + m*16 + c%16] -> dst[(c//16)*dstStride*unit + m*16 + c%16]
    NZ2DN: src[h*16*srcNzMatrixStride + (c//16)*16*srcStride + m*16*srcNzC0Stride + c%16]
           -> dst[h*dstDnMatrixStride + c*dstStride + m]
    (srcStride, srcNdStride in C0_Size = 16 L0C elements; dstStride of NZ2NZ in 32 B on V220, in
    elements on a5: `dst_nz_unit_elements`). NZ2NZ writes destination Z blocks of `nz_block_cols`
    channels (`isa_params.fixpipe_nz_block_cols`): 8 with channel split, 32 for b8 (channel merge;
    an odd trailing 16 channels form a last block of 16), 16 otherwise:
    dst[(c//W)*dstStride*unit + m*w(c) + c%w(c)], w(c) = W, or 16 in the unmerged tail."""
    nd = 1 if layout == "nz2nz" else p.nd_num
    i = np.arange(nd, dtype=np.int64)[:, None, None]
    mm = np.arange(p.m_size, dtype=np.int64)[None, :, None]
    col = np.arange(p.n_size, dtype=np.int64)[None, None, :]
    blk, lane = col // 16, col % 16
    if layout == "nz2nd":
        src = i * p.src_nd_stride * 16 + blk * p.src_stride * 16 + mm * 16 + lane
        dst = i * p.dst_nd_stride + mm * p.dst_stride + col
    elif layout == "nz2nz":
        src = blk * p.src_stride * 16 + mm * 16 + lane
        step = p.dst_stride * dst_nz_unit_elements
        if step != int(step):
            raise ExecutionError(
                f"nz2nz dstStride {p.dst_stride} x 32 B is not a whole number of destination elements"
            )
        width = nz_block_cols
        if width > 16:  # channel merge: the channels past the last whole W block stay 16 wide
            merged = p.n_size - p.n_size % width
            w = np.where(col < merged, width, 16)
        else:
            w = width
        dst = (col // width) * int(step) + mm * w + col % w
    else:  # nz2dn
        src = i * 16 * p.src_nd_stride + blk * 16 * p.src_stride + mm * 16 * p.src_nz_c0_stride + lane
        dst = i * p.dst_nd_stride + col * p.dst_stride + mm
    shape = (nd * p.m_size, p.n_size)
    return np.broadcast_to(src, (nd, p.m_size, p.n_size)).reshape(shape), \
        np.broadcast_to(dst, (nd, p.m_size, p.n_size)).reshape(shape)


def fixpipe(
    src: np.ndarray,
    dst: np.ndarray,
    p: FixpipeRaw,
    layout: str,
    quant: str,
    relu: bool,
    word: int | None,
    words: np.ndarray | None,
    dst_nz_unit_elements: float,
    channel_split: bool = False,
    atomic: str | None = None,
) -> None:
    """Fixpipe(dst, src, FixpipeParams): read L0C (f32/s32, `src` flat from its start), convert
    (`kernels.quantize`: quant mode, ReLU, scale words) and write `dst` (flat from its start).
    NZ output splits f32 channels into 16 x 8 blocks with `channel_split` and merges b8 channels
    into 16 x 32 blocks (`fixpipe_indices`). `atomic`: GM atomic mode (`kernels.atomic_store`)."""
    from mmair.executor.ascend.kernels import atomic_store, quantize  # the tile-level ones, shared

    if p.n_size == 0 or p.m_size == 0 or p.nd_num == 0:
        return
    _limit(p.nd_num * p.m_size * p.n_size, "fixpipe")
    block = 16
    if layout == "nz2nz":
        block = isa_params.fixpipe_nz_block_cols(dst.itemsize * 8, channel_split)
        multiple = min(block, 16)  # nSize: a multiple of 16 (8 with channel split)
        if p.n_size % multiple:
            raise ExecutionError(f"requires n_size (nSize) to be a multiple of {multiple} for nz2nz, "
                                 f"got {p.n_size}")
    elif channel_split:
        raise ExecutionError(f"channel split requires nz2nz, got {layout}")
    s_idx, d_idx = fixpipe_indices(p, layout, dst_nz_unit_elements, block)
    _bounds(s_idx, src.size, "src (L0C)")
    _bounds(d_idx, dst.size, "dst")
    if words is not None and words.size < p.n_size:
        raise ExecutionError(f"requires a quant vector of at least {p.n_size} words, got {words.size}")
    y = quantize(src[s_idx], quant, dst.dtype, relu, word, None if words is None else words[: p.n_size])
    atomic_store(dst, d_idx, y, atomic)
