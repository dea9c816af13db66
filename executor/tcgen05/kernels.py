"""Whole-tile numpy kernels of the Blackwell `tcgen05` tensor core: SMEM, TMEM and `tcgen05.mma`.

What is simulated (one CTA, `cta_group::1`):

* shared memory: one `uint8` array of `SMEM_BYTES_PER_CTA` bytes (`SharedMemory`);
* tensor memory: 128 lanes x 512 columns of 32-bit cells with `tcgen05.alloc`-style column
  allocation (powers of two, 32..512), deallocation, and checks that every access stays inside
  allocated columns (`TensorMemory`);
* operand access through the 64-bit shared-memory descriptor: the canonical layouts and swizzles of
  `mmair.isa.tcgen05.layouts` turn a descriptor into an index array, and one fancy-indexing gather
  reads a whole operand (`read_smem_operand`); `write_smem_operand` is the inverse scatter;
* `mma`: D = A x B (+ D) for every kind, with the instruction descriptor, matrix descriptors and
  zero-column mask decoded and checked at execution time (runtime-computed descriptors work).

Kernel loops issue the same few descriptor words over and over, so the pure parts are memoized:
decoding and rule checks per (word, context), and per (descriptor, major, bits, mn, k) the address
map with its byte range, injectivity verdict and gather/scatter indices. Failures are never
remembered: a bad word raises the same error on every call.

Numerics (`numerics="default"`): operands are decoded exactly (tf32: the low 13 mantissa bits of
the f32 container are ignored), multiplied in float32 (products of the tcgen05 input types are
exact in float32) and accumulated in float32; block-scaled kinds apply their scales and sum in
float64 (no scale value overflows or underflows), rounded once to f32; NaN results are the
canonical NaN. Integer MMAs are exact (float32 sums stay below 2^22, D is added in int64) and
wrapped (or, with the saturate bit, clamped) to s32. `numerics="exact"` computes the tensor core's
fused dot product instead (`mmair.executor.tcgen05.exact`, docs/tcgen05-numerics.md).

Layout assumptions are documented in `docs/executor-tcgen05.md`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from mmair.executor.tcgen05.elements import decode_elements, decode_ue4m3, decode_ue8m0
from mmair.executor.tcgen05.exact import fused_mma
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import (
    check,
    checked_operand_map,
    decode,
    densify_sparse_a,
    memo,
    read_d,
    read_scale_factors,
    read_smem_operand,
    read_smem_operand_kn,
    read_sparse_metadata,
    read_tmem_operand,
    smem_desc,
    storage,
    write_d,
)
from mmair.isa.tcgen05 import layouts, rules, tmem_moves
from mmair.isa.tcgen05.idesc import BLOCK_SCALED_KINDS, InstrDesc, decode_idesc
from mmair.isa.tcgen05.layouts import (
    TMEM_LANES,
)
from mmair.isa.tcgen05.numerics import CANONICAL_NAN_BITS, NUMERICS_MODES
from mmair.isa.tcgen05.smem import SmemDesc, decode_smem_desc
from mmair.isa.tcgen05.zcmask import ZeroColumnMask, decode_zcmask, zcmask_columns

_F32_CANONICAL_NAN = np.array(CANONICAL_NAN_BITS["f32"], dtype=np.uint32).view(np.float32)


def _canonical_nan(values: np.ndarray) -> np.ndarray:
    """Make every NaN of a float32 array the canonical NaN in place (0x7FFFFFFF; it converts to
    the canonical f16 NaN 0x7FFF), as the tensor core writes them."""
    if values.size:
        top = np.maximum.reduce(values, axis=None)  # NaN iff some value is (one cheap pass)
        if top == top:
            return values
    nan = np.isnan(values)
    if nan.any():
        values[nan] = _F32_CANONICAL_NAN
    return values


def _check_mma_form(idesc: int, kind: str, *context: object) -> None:
    """`rules.check_mma` of the decoded `idesc` (positional context, so that it can be memoized)."""
    (cta_group, ws, a_in_tmem, scale_vec, block_scale, target, ashift, collector,
     disable_output_lanes, scale_input_d, zcm) = context
    desc = memo(decode, "instruction descriptor", idesc, decode_idesc, kind)
    check("tcgen05.mma form", rules.check_mma, desc, cta_group=cta_group, ws=ws,
           a_in_tmem=a_in_tmem, scale_vec=scale_vec, block_scale=block_scale, target=target,
           ashift=ashift, collector=collector, disable_output_lane=disable_output_lanes,
           scale_input_d=scale_input_d, zcmask=zcm)


def _checked_smem_operand_desc(what: str, word: int, kind: str, major: str, target: str,
                               pattern_start: int | None) -> SmemDesc:
    """Decode an operand's SMEM descriptor word and apply R17-R22 for this MMA (R21 against the
    buffer the start address lies in, when the kernel allocated one there)."""
    d = decode(what, word, decode_smem_desc)
    check(what, rules.check_smem_desc, d, kind=kind, major=major, target=target,
           pattern_start=pattern_start)
    return d


def _operand_desc(smem: SharedMemory, what: str, word: int, kind: str, major: str,
                  target: str) -> SmemDesc:
    start = (word & 0x3FFF) << 4  # bits 0-13: start address >> 4
    return memo(_checked_smem_operand_desc, what, word, kind, major, target,
                 smem.pattern_start(start))


def _not_modelled(feature: str) -> Tcgen05ExecutionError:
    return Tcgen05ExecutionError(f"uses {feature}, which the executor does not model")


def _lane_enable_mask(words: Sequence[int], lane: int, m: int) -> np.ndarray:
    """disable-output-lane words -> per-row 'update' flags (a set bit = lane not updated)."""
    packed = np.array([int(w) & 0xFFFFFFFF for w in words], dtype="<u4").view(np.uint8)
    bits = np.unpackbits(packed, bitorder="little").astype(bool)  # bit i = lane i
    return ~bits[lane:lane + m]


def mma(
    smem: SharedMemory,
    tmem: TensorMemory,
    *,
    kind: str,
    d: int,
    a: int,
    b: int,
    idesc: int,
    enable_input_d: bool,
    a_in_tmem: bool = False,
    a_raw: np.ndarray | None = None,
    cta_group: int = 1,
    ws: bool = False,
    sparse: bool = False,
    sparse_metadata: int | None = None,
    scale_a: int | None = None,
    scale_b: int | None = None,
    scale_vec: str | None = None,
    disable_output_lane: Sequence[int] | None = None,
    zero_column_mask: int | None = None,
    scale_input_d: int | None = None,
    ashift: bool = False,
    collector: str | None = None,
    target: str = "sm_100a",
    numerics: str = "default",
    a_columns: int | None = None,
) -> InstrDesc:
    """Execute one `tcgen05.mma{.ws}{.sp}{.block_scale}` and return its decoded descriptor.

    `d`, and `a` when `a_in_tmem`, `sparse_metadata`, `scale_a`, `scale_b` are TMEM addresses
    (`lane << 16 | column`); `a` (otherwise) and `b` are 64-bit SMEM descriptor words; `idesc` is
    the 32-bit instruction descriptor; `zero_column_mask` the 64-bit mask word of `.ws`. Every word
    is decoded and checked against the isa rules here, so runtime-computed values are validated.
    `a_raw` (with `a_in_tmem`) gives A in TMEM as container integers (rows >= M, columns >= the
    stored K) instead of reading the packed TMEM layout at `a`: the interpreter passes the memref.
    `numerics` is "default" (float32 accumulation, see the module docstring) or "exact" (the
    tensor core's fused dot product, `mmair.executor.tcgen05.exact`).
    `a_columns`: the TMEM cells per row A occupies (default: its packed layout); `.ashift` shifts
    those cells of A's M lanes down one lane before the MMA reads them.
    """
    if numerics not in NUMERICS_MODES:
        raise Tcgen05ExecutionError(
            f"requires numerics in {', '.join(NUMERICS_MODES)}, got {numerics!r}")
    # Decoding and rule checks are pure functions of the words: memoized (failures raise each time).
    desc = memo(decode, "instruction descriptor", idesc, decode_idesc, kind)
    block_scale = kind in BLOCK_SCALED_KINDS
    if desc.sparse != sparse:
        raise Tcgen05ExecutionError(
            f"requires the idesc sparsity bit to match the instruction, got sparse = "
            f"{str(desc.sparse).lower()} for a {'sparse (.sp)' if sparse else 'dense'} tcgen05.mma"
        )
    zcm: ZeroColumnMask | None = None
    if zero_column_mask is not None:
        zcm = memo(decode, "zero-column mask", zero_column_mask, decode_zcmask)
    vec = scale_vec
    if vec in ("block32", "block16"):
        vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X"}[vec]  # mutation: skip (1X, 2X: both 32-K blocks)
    memo(_check_mma_form, idesc, kind, cta_group, ws, a_in_tmem, scale_vec, block_scale, target,
          ashift, collector, None if disable_output_lane is None else len(disable_output_lane),
          scale_input_d, zcm)
    if cta_group != 1:
        raise _not_modelled("cta_group::2 (a CTA pair)")
    if sparse and block_scale:
        raise _not_modelled(f"a sparse kind::{kind} MMA")
    if desc.sparsity_selector:
        raise _not_modelled(f"sparsity selector {desc.sparsity_selector} (only 0 is modelled)")
    if sparse and sparse_metadata is None:
        raise Tcgen05ExecutionError("requires a sparse-metadata TMEM address for a sparse MMA")
    if block_scale and (scale_a is None or scale_b is None):
        raise Tcgen05ExecutionError(f"requires scale_A and scale_B TMEM addresses for kind::{kind}")

    m, n, k = memo(rules.mma_shape, desc)
    k_stored = k // 2 if sparse else k
    shift = zcm.shift if zcm is not None else 0

    # A in TMEM: `.ashift` first moves its rows down one lane (the first row becomes undefined);
    # D rows computed from an undefined A row are undefined (`TensorMemory.undefined`).
    undefined_rows = None
    if a_in_tmem:
        a_lane, a_column = layouts.tmem_lane(a), layouts.tmem_column(a)
        if a_columns is None:
            a_columns = -(-k_stored * layouts.smem_element_bits(kind, desc.atype) // 32)
        if ashift:
            tmem.shift_down(a_lane, m, a_column, a_columns, "A in tensor memory (.ashift)")
        undefined_rows = tmem.undefined_cells(
            slice(a_lane, a_lane + m), slice(a_column, a_column + a_columns)).any(axis=1)

    # A (M x K_stored) and B (N + shift x K, the transpose of the K x N operand).
    if a_in_tmem and a_raw is not None:
        if a_raw.ndim != 2 or a_raw.shape[0] < m or a_raw.shape[1] < k_stored:
            raise Tcgen05ExecutionError(
                f"requires A in tensor memory to hold {m}x{k_stored} elements, got shape "
                f"{'x'.join(map(str, a_raw.shape))}"
            )
        a_values = decode_elements(a_raw[:m, :k_stored], desc.atype)
    elif a_in_tmem:
        a_values = read_tmem_operand(tmem, a, type_name=desc.atype, kind=kind, rows=m, k=k_stored)
    else:
        a_desc = _operand_desc(smem, "A shared-memory descriptor", a, kind,
                               "mn" if desc.transpose_a else "k", target)
        a_values = read_smem_operand(smem, a_desc, major="mn" if desc.transpose_a else "k",
                                     type_name=desc.atype, kind=kind, mn=m, k=k_stored,
                                     what="operand A")
    b_desc = _operand_desc(smem, "B shared-memory descriptor", b, kind,
                           "mn" if desc.transpose_b else "k", target)
    # Gathered as (K, N + shift): the matmul below wants B as a contiguous K x N.
    b_values = read_smem_operand_kn(smem, b_desc, major="mn" if desc.transpose_b else "k",
                                     type_name=desc.btype, kind=kind, mn=n + shift, k=k,
                                     what="operand B")

    if sparse:
        assert sparse_metadata is not None
        nibbles = read_sparse_metadata(tmem, sparse_metadata, kind=kind, rows=m, k=k)
        a_values = densify_sparse_a(kind, a_values, nibbles, k)

    sfa = sfb = None
    block = None
    if block_scale:
        assert scale_a is not None and scale_b is not None and desc.scale_type is not None
        block = layouts.SCALE_BLOCK_K[vec or ("1X" if kind == "mxf8f6f4" else "2X")]  # mutation: skip (1X, 2X: both 32)
        count = k // block
        decode_scale = decode_ue8m0 if desc.scale_type == "ue8m0" else decode_ue4m3
        sfa = decode_scale(read_scale_factors(tmem, scale_a, operand="a", rows=m, count=count,
                                              sf_id=desc.sfa_id))
        sfb = decode_scale(read_scale_factors(tmem, scale_b, operand="b", rows=n + shift,
                                              count=count, sf_id=desc.sfb_id))[shift:shift + n]

    # B' (N x K): output column j reads B column j + shift, masked columns read zero.
    b_used = b_values[shift:shift + n]
    if zcm is not None:
        b_used = np.where(zcmask_columns(zcm, m, n)[:, None], 0, b_used)
    dtype = desc.dtype or "f32"

    if kind == "i8":
        # Exact in float32: |products| <= 255 * 255 < 2^16 and K <= 64, so |sums| < 2^22.
        b_kn = np.ascontiguousarray(b_used.T, dtype=np.float32)  # mutation: skip (exact)
        product = (a_values.astype(np.float32) @ b_kn).astype(np.int64)  # mutation: skip (exact)
        if enable_input_d:
            product = product + read_d(tmem, d, "s32", m, n).astype(np.int64)
        if desc.saturate:
            result = np.clip(product, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
        else:
            result = product.astype(np.uint64).astype(np.uint32).view(np.int32)  # wrap mod 2^32
    else:
        a32 = -a_values if desc.negate_a else a_values
        b32 = -b_used if desc.negate_b else b_used
        if numerics == "exact":
            # The tensor core's fused dot product (mmair.isa.tcgen05.numerics).
            result = fused_mma(
                kind, a32, b32, read_d(tmem, d, dtype, m, n) if enable_input_d else None,
                atype=desc.atype, btype=desc.btype, d_type=dtype,
                c_shift=scale_input_d or 0, scale_a=sfa, scale_b=sfb,
                scale_type=desc.scale_type, block=block)
        elif block_scale:
            assert sfa is not None and sfb is not None and block is not None
            # Scales applied in float64 (exact; no overflow or underflow for any UE8M0/UE4M3
            # value) and the blocks summed in float64, rounded once to f32.
            a64 = np.asarray(a32, dtype=np.float64) * np.repeat(sfa, block, axis=1)
            b64 = np.asarray(b32, dtype=np.float64) * np.repeat(sfb, block, axis=1)
            wide = a64 @ np.ascontiguousarray(b64.T)
            if enable_input_d:
                wide += read_d(tmem, d, "f32", m, n)
            with np.errstate(over="ignore"):
                result = _canonical_nan(wide.astype(np.float32))
        else:
            # (K, N) contiguous: OpenBLAS is ~500x slower on a transposed view with a small K.
            b_kn = np.ascontiguousarray(np.asarray(b32, dtype=np.float32).T)
            with np.errstate(invalid="ignore", over="ignore"):  # inf * 0, inf - inf: NaN
                result = np.asarray(a32, dtype=np.float32) @ b_kn
                if dtype == "f32" and disable_output_lane is None and not scale_input_d:
                    # The common case, in place: D's f32 cells += A x B (the float32 sum below).
                    old_undefined = _undefined_d_rows(tmem, d, m, n) if enable_input_d \
                        else None
                    cells = tmem.region(d, m, n, "D").view(np.float32)
                    if enable_input_d:
                        np.add(result, cells, out=cells)
                    else:
                        cells[...] = result
                    _canonical_nan(cells)
                    _d_definedness(tmem, d, m, n, undefined_rows, old_undefined, None)
                    return desc
                if enable_input_d:
                    old = read_d(tmem, d, dtype, m, n).astype(np.float32)
                    if scale_input_d:
                        old = np.ldexp(old, -scale_input_d).astype(np.float32)
                    result = result + old
            result = _canonical_nan(result)

    lane_enabled = None
    if disable_output_lane is not None:
        lane_enabled = _lane_enable_mask(disable_output_lane, layouts.tmem_lane(d), m)
    old_undefined = _undefined_d_rows(tmem, d, m, n) if enable_input_d else None
    write_d(tmem, d, dtype, result, lane_enabled)
    _d_definedness(tmem, d, m, n, undefined_rows, old_undefined, lane_enabled)
    return desc


def _undefined_d_rows(tmem: TensorMemory, d: int, m: int, n: int) -> np.ndarray | None:
    if not tmem.any_undefined:  # no cell was ever undefined: no pass over D
        return None
    lane, column = layouts.tmem_lane(d), layouts.tmem_column(d)
    return tmem.undefined_cells(slice(lane, lane + m), slice(column, column + n)).any(axis=1)


def _d_definedness(tmem: TensorMemory, d: int, m: int, n: int, a_undefined: np.ndarray | None,
                   old_undefined: np.ndarray | None, lane_enabled: np.ndarray | None) -> None:
    """D rows written from an undefined A row (or accumulated onto an undefined D row) are
    undefined: marked after `write_d` made the written rows defined."""
    if a_undefined is None and old_undefined is None:
        return
    rows = np.zeros(m, dtype=bool)
    for undefined in (a_undefined, old_undefined):
        if undefined is not None:
            rows |= undefined
    if lane_enabled is not None:
        rows &= lane_enabled
    if rows.any():
        lane, column = layouts.tmem_lane(d), layouts.tmem_column(d)
        tmem.mark_undefined(lane + np.nonzero(rows)[0][:, None], slice(column, column + n))


PAIR_ROWS = TMEM_LANES
"""D rows each CTA of a pair holds for M = 256 (Layout A: CTA c of the pair, c = rank & 1, holds
rows [128 c, 128 c + 128) in its own TMEM at the D address)."""


def mma_pair(
    ctas: Sequence[tuple[SharedMemory, TensorMemory]],
    *,
    kind: str,
    d: int,
    a: int,
    b: int,
    idesc: int,
    enable_input_d: bool,
    a_in_tmem: bool = False,
    sparse: bool = False,
    scale_vec: str | None = None,
    disable_output_lane: Sequence[int] | None = None,
    scale_input_d: int | None = None,
    ashift: bool = False,
    collector: str | None = None,
    target: str = "sm_100a",
    numerics: str = "default",
    scale_a: int | None = None,
    scale_b: int | None = None,
) -> InstrDesc:
    """`tcgen05.mma.cta_group::2` with M = 256 on a CTA pair (`ctas[c]` = the SMEM and TMEM of
    the CTA with rank & 1 == c). Layout A [inf: PTX ISA "Data Path Layout Organization" names it;
    CUTLASS 2-SM MMAs split this way]: CTA c's tensor core computes D rows [128 c, 128 c + 128)
    from the A rows its own SMEM holds at the A descriptor (a 128-row operand), times all N
    columns of B, whose columns [N/2 c, N/2 (c + 1)) are CTA c's SMEM at the B descriptor (an
    N/2-column operand), into its own TMEM at `d`. disable-output-lane bit 128 c + i is lane i of
    CTA c. Dense kinds tf32, f16, f8f6f4, i8 and the block-scaled kinds with A in SMEM; the rest
    is refused. Block-scaled: CTA c reads the scale factors of its 128 A rows at `scale_a` and of
    all N columns of B at `scale_b` in its own TMEM, in the one-CTA M = 128 layout [inf: CUTLASS
    `MMA_ScaleFactor` of the 2x1SM atoms is the 1-SM MMA of M / 2 rows and all N columns; each
    CTA's scales reach its own TMEM by `tcgen05.cp.cta_group::2`]. `numerics`
    "exact": each CTA's rows are `fused_mma` of its A half with all of B (as `mma` computes
    them; a row of D is one fused dot product whichever CTA holds it)."""
    desc = memo(decode, "instruction descriptor", idesc, decode_idesc, kind)
    block_scale = kind in BLOCK_SCALED_KINDS
    memo(_check_mma_form, idesc, kind, 2, False, a_in_tmem, scale_vec, block_scale, target,
          ashift, collector, None if disable_output_lane is None else len(disable_output_lane),
          scale_input_d, None)
    m, n, k = memo(rules.mma_shape, desc)
    for present, feature in ((m != 2 * PAIR_ROWS, f"M = {m} (Layout B/C; only M = 256, Layout A, "
                              "is modelled)"), (sparse, "a sparse A"), (a_in_tmem, "A in tensor memory"),
                             (ashift, ".ashift")):
        if present:
            raise _not_modelled(f"cta_group::2 with {feature}")
    a_major = "mn" if desc.transpose_a else "k"
    b_major = "mn" if desc.transpose_b else "k"
    halves = []
    for c, (smem, _) in enumerate(ctas):
        where = f" of CTA {c} of the pair"
        a_desc = _operand_desc(smem, "A shared-memory descriptor", a, kind, a_major, target)
        b_desc = _operand_desc(smem, "B shared-memory descriptor", b, kind, b_major, target)
        a_c = read_smem_operand(smem, a_desc, major=a_major, type_name=desc.atype, kind=kind,
                                mn=PAIR_ROWS, k=k, what="operand A" + where)
        b_c = read_smem_operand_kn(smem, b_desc, major=b_major, type_name=desc.btype,
                                    kind=kind, mn=n // 2, k=k, what="operand B" + where)
        halves.append((a_c, b_c))
    if numerics not in NUMERICS_MODES:
        raise Tcgen05ExecutionError(
            f"requires numerics in {', '.join(NUMERICS_MODES)}, got {numerics!r}")
    b_nk = np.concatenate([half[1] for half in halves], axis=0)  # each half is (N/2, K)
    if desc.negate_b:
        b_nk = -b_nk
    b_kn = np.ascontiguousarray(b_nk.T, dtype=np.float32)
    dtype = desc.dtype or "f32"
    if block_scale and (scale_a is None or scale_b is None):
        raise Tcgen05ExecutionError(f"requires scale_A and scale_B TMEM addresses for kind::{kind}")
    for c, ((a_c, _), (_, tmem)) in enumerate(zip(halves, ctas, strict=True)):
        try:
            tmem.check_access(layouts.tmem_lane(d), layouts.tmem_column(d), PAIR_ROWS, n, "D")
        except Tcgen05ExecutionError as err:
            raise Tcgen05ExecutionError(f"{err} (D rows {c * PAIR_ROWS}..{c * PAIR_ROWS + 127}"
                                        f" in the tensor memory of CTA {c} of the pair)") from None
        scales = _pair_scales(tmem, desc, kind, scale_vec, k, n, scale_a, scale_b, c) \
            if block_scale else None
        if numerics == "exact" and kind != "i8":  # the fused dot product of `mma`, per CTA
            sfa, sfb, block = scales if scales is not None else (None, None, None)
            result = fused_mma(kind, -a_c if desc.negate_a else a_c, b_nk,
                               read_d(tmem, d, dtype, PAIR_ROWS, n) if enable_input_d else None,
                               atype=desc.atype, btype=desc.btype, d_type=dtype,
                               c_shift=scale_input_d or 0, scale_a=sfa, scale_b=sfb,
                               scale_type=desc.scale_type, block=block)
        elif scales is not None:
            result = _scaled_product(a_c, b_nk, desc, scales,
                                     read_d(tmem, d, "f32", PAIR_ROWS, n) if enable_input_d
                                     else None)
        else:
            result = _pair_default(tmem, a_c, b_kn, desc, kind, d, dtype, n, enable_input_d,
                                   scale_input_d)
        lane_enabled = None
        if disable_output_lane is not None:
            lane_enabled = _lane_enable_mask(disable_output_lane,
                                             c * PAIR_ROWS + layouts.tmem_lane(d), PAIR_ROWS)
        write_d(tmem, d, dtype, result, lane_enabled)
    return desc


def _scale_block(kind: str, scale_vec: str | None) -> int:
    """K elements per scale factor of a block-scaled MMA (its `.block_scale` spelling)."""
    vec = scale_vec
    if vec in ("block32", "block16"):
        vec = {"block16": "4X", "block32": "1X" if kind == "mxf8f6f4" else "2X"}[vec]
    return layouts.SCALE_BLOCK_K[vec or ("1X" if kind == "mxf8f6f4" else "2X")]


def _pair_scales(tmem: TensorMemory, desc: InstrDesc, kind: str, scale_vec: str | None, k: int,
                 n: int, scale_a: int | None, scale_b: int | None,
                 c: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(scale of each A row, scale of each B column, K per scale) CTA `c` of a pair MMA reads
    from its own TMEM: its 128 A rows' and all N columns' (the one-CTA M = 128 layout)."""
    assert scale_a is not None and scale_b is not None and desc.scale_type is not None
    block = _scale_block(kind, scale_vec)
    decode_scale = decode_ue8m0 if desc.scale_type == "ue8m0" else decode_ue4m3
    try:
        sfa = decode_scale(read_scale_factors(tmem, scale_a, operand="a", rows=PAIR_ROWS,
                                              count=k // block, sf_id=desc.sfa_id))
        sfb = decode_scale(read_scale_factors(tmem, scale_b, operand="b", rows=n,
                                              count=k // block, sf_id=desc.sfb_id))
    except Tcgen05ExecutionError as err:
        raise Tcgen05ExecutionError(f"{err} (in the tensor memory of CTA {c} of the pair)") \
            from None
    return sfa, sfb, block


def _scaled_product(a: np.ndarray, b_nk: np.ndarray, desc: InstrDesc,
                    scales: tuple[np.ndarray, np.ndarray, int], old: np.ndarray | None
                    ) -> np.ndarray:
    """A block-scaled MMA's D in the default numerics: the scales applied and the blocks summed
    in float64 (exact for every UE8M0 / UE4M3 value), rounded once to f32 (as `mma`)."""
    sfa, sfb, block = scales
    a64 = np.asarray(-a if desc.negate_a else a, dtype=np.float64) * np.repeat(sfa, block, axis=1)
    b64 = np.asarray(b_nk, dtype=np.float64) * np.repeat(sfb, block, axis=1)
    wide = a64 @ np.ascontiguousarray(b64.T)
    if old is not None:
        wide += old
    with np.errstate(over="ignore"):
        return _canonical_nan(wide.astype(np.float32))


def _pair_default(tmem: TensorMemory, a_c: np.ndarray, b_kn: np.ndarray, desc: InstrDesc,
                  kind: str, d: int, dtype: str, n: int, enable_input_d: bool,
                  scale_input_d: int | None) -> np.ndarray:
    """One CTA's D rows of a pair MMA in the default numerics (float32 sums; i8 exact)."""
    a32 = np.asarray(a_c, dtype=np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        product = (-a32 if desc.negate_a else a32) @ b_kn
    if kind == "i8":  # exact in float32 (see mma)
        wide = product.astype(np.int64)
        if enable_input_d:
            wide += read_d(tmem, d, "s32", PAIR_ROWS, n).astype(np.int64)
        return np.clip(wide, np.iinfo(np.int32).min, np.iinfo(np.int32).max) \
            if desc.saturate else wide.astype(np.uint64).astype(np.uint32).view(np.int32)
    if enable_input_d:
        old = read_d(tmem, d, dtype, PAIR_ROWS, n).astype(np.float32)
        if scale_input_d:
            old = np.ldexp(old, -scale_input_d).astype(np.float32)
        with np.errstate(invalid="ignore", over="ignore"):
            product = product + old
    return _canonical_nan(product)


def pair_smem_spans(kind: str, idesc: int, a: int | None, b: int) -> tuple[tuple[int, int], ...]:
    """The SMEM byte ranges [lo, end) a `cta_group::2` M = 256 MMA that `mma_pair` ran reads in
    EACH CTA of the pair: its 128-row A half and its N/2-column B half (each operand's hull).
    `a` is A's SMEM descriptor word, None when A is in TMEM (no SMEM span; `mma_pair` refuses
    A in TMEM today, so callers never reach here with it, but a TMEM address is no descriptor)."""
    desc = memo(decode, "instruction descriptor", idesc, decode_idesc, kind)
    _, n, k = memo(rules.mma_shape, desc)
    spans = []
    operands = [(b, desc.btype, desc.transpose_b, n // 2)]
    if a is not None:
        operands.insert(0, (a, desc.atype, desc.transpose_a, PAIR_ROWS))
    for word, type_name, transposed, mn in operands:
        bits, width = storage(kind, type_name)
        operand = checked_operand_map(smem_desc(word), "mn" if transposed else "k", bits, mn,
                                       k, "operand", width)
        spans.append((operand.lowest, operand.end))
    return tuple(spans)


class CpFootprint(NamedTuple):
    """What one tcgen05.cp touches: the SMEM bytes [lo, end) of its source and the TMEM lanes
    [lane, lane_end) x columns [column, column_end) it writes (their hull)."""

    smem: tuple[int, int]
    lane: int
    lane_end: int
    column: int
    column_end: int


def cp(smem: SharedMemory, tmem: TensorMemory, *, taddr: int, desc: int, shape: str,
       multicast: str | None = None, decompress: str | None = None) -> CpFootprint:
    """`tcgen05.cp.<shape>{.multicast} [taddr], s-desc`: copy a rows x bits matrix from SMEM
    (read through the matrix descriptor as a K-major canonical layout of bytes, the layout of
    the MMA operands) into TMEM, row r to the lanes `tmem_moves.cp_lane_offsets` gives, the
    row's bytes little-endian into consecutive 32-bit cells from the address column."""
    lanes = np.array(tmem_moves.cp_lane_offsets(shape, multicast))
    rows, bits = tmem_moves.CP_ROWS_BITS[shape]
    d = decode("tcgen05.cp source descriptor", desc, decode_smem_desc)
    operand = checked_operand_map(d, "k", 8, rows, bits // 8, "the tcgen05.cp source", 8)
    raw = np.ascontiguousarray(smem.data[operand.index])  # (rows, bytes)
    if decompress is not None:  # 16 packed 4/6-bit elements per 16-byte unit -> 16 bytes
        raw = tmem_moves.cp_decompress(raw, decompress)
    data = raw.view("<u4")  # (rows, columns)
    lane0, column0 = layouts.tmem_lane(taddr), layouts.tmem_column(taddr)
    columns = bits // 32
    top = int(lanes.max()) + 1
    tmem.check_access(lane0, column0, top, columns, "the tcgen05.cp destination")
    cells = tmem.cells[:, column0:column0 + columns]
    for copy in range(lanes.shape[1]):
        cells[lane0 + lanes[:, copy]] = data
        tmem.defined(lane0 + lanes[:, copy], slice(column0, column0 + columns))
    return CpFootprint((operand.lowest, operand.end), lane0 + int(lanes.min()), lane0 + top,
                       column0, column0 + columns)


def shift(tmem: TensorMemory, taddr: int) -> tuple[int, int, int, int]:
    """`tcgen05.shift.cta_group.down [taddr]`: the 32-byte elements at the address column of the
    32 lanes from the address lane move down one lane (".31x256b"); the address lane becomes
    undefined (`tmem_moves.shift_rows`). Returns (lane, lanes, column, columns) moved."""
    lane, column = layouts.tmem_lane(taddr), layouts.tmem_column(taddr)
    if lane % tmem_moves.SHIFT_LANE_ALIGNMENT:
        raise Tcgen05ExecutionError(
            f"requires the tcgen05.shift address lane to be a multiple of "
            f"{tmem_moves.SHIFT_LANE_ALIGNMENT}, got lane {lane}")
    lanes = tmem_moves.SHIFT_LANES
    tmem.shift_down(lane, lanes, column, tmem_moves.SHIFT_COLUMNS, "the tcgen05.shift rows")
    return lane, lanes, column, tmem_moves.SHIFT_COLUMNS


class MmaFootprint(NamedTuple):
    """What one MMA touches: D's m lanes x n columns, the SMEM byte ranges [lo, end) of its
    descriptor operands (each operand's hull), and the TMEM columns of A when A is in TMEM."""

    m: int
    n: int
    smem: tuple[tuple[int, int], ...]
    a_columns: int
    tmem_reads: tuple[tuple[int, int, int, int], ...] = ()
    """(lane, lanes, column, columns) rectangles of scale factors and sparse metadata."""


def mma_footprint(smem: SharedMemory, *, kind: str, idesc: int, a: int | None, b: int,
                  ws: bool = False, sparse: bool = False,
                  zero_column_mask: int | None = None, sparse_metadata: int | None = None,
                  scale_a: int | None = None, scale_b: int | None = None) -> MmaFootprint:
    """The footprint of an MMA that `mma` has already run and checked (same memoized decodes):
    `a` is A's SMEM descriptor word, None when A is in TMEM; the TMEM addresses of the sparse
    metadata and scale factors give their cells (scale factors: the columns of every lane
    quadrant they occupy, a hull)."""
    desc = memo(decode, "instruction descriptor", idesc, decode_idesc, kind)
    m, n, k = memo(rules.mma_shape, desc)
    k_stored = k // 2 if sparse else k
    shift = 0
    if ws and zero_column_mask is not None:
        shift = memo(decode, "zero-column mask", zero_column_mask, decode_zcmask).shift
    spans = []
    operands = [("B", b, desc.btype, "mn" if desc.transpose_b else "k", n + shift, k)]
    if a is not None:
        operands.insert(0, ("A", a, desc.atype, "mn" if desc.transpose_a else "k", m, k_stored))
    for _, word, type_name, major, mn, kk in operands:
        bits, width = storage(kind, type_name)
        operand = checked_operand_map(smem_desc(word), major, bits, mn, kk, "operand", width)
        spans.append((operand.lowest, operand.end))
    a_bits = layouts.smem_element_bits(kind, desc.atype)
    reads = []
    if sparse_metadata is not None:
        columns = -(-layouts.sparse_metadata_nibbles(kind, k) // 8)  # 8 nibbles per cell
        reads.append((layouts.tmem_lane(sparse_metadata), m,
                      layouts.tmem_column(sparse_metadata), columns))
    for address, rows in ((scale_a, m), (scale_b, n + shift)):
        if address is not None:
            _, offsets = layouts.scale_factor_cells(np.arange(rows))
            reads.append((0, TMEM_LANES, layouts.tmem_column(address), int(offsets.max()) + 1))
    return MmaFootprint(m, n, tuple(spans), -(-k_stored * a_bits // 32), tuple(reads))
