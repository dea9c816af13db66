"""executor/tcgen05/kernels.py behaviours the mutation harness found unpinned (docs/mutation.md,
area `executor-tcgen05`).

Expected values are literals from the format definitions (IEEE f16/f32, OCP MX v1.0 E8M0/E4M3)
or a second formulation written here: the compact canonical layouts of the PTX ISA ("Shared
memory matrix layout", no swizzle: 8 x 16-byte core matrices), and the executor's documented
default numerics (module docstring: products and sums in float32, D added in float32, rounded
once more to an f16 D; block-scaled kinds scaled and summed exactly, rounded once to f32).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from mmair.executor.tcgen05.elements import decode_elements, encode_elements, encode_scale
from mmair.executor.tcgen05.kernels import cp, mma, mma_footprint, mma_pair, pair_smem_spans
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import (
    densify_sparse_a,
    read_d,
    read_scale_factors,
    read_smem_operand,
    write_d,
    write_scale_factors,
    write_smem_operand,
    write_sparse_metadata,
)
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc
from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA, tmem_address

RNG = np.random.default_rng(1818)
B_START = 0x8000  # B's operand (or each CTA's B half) starts here, A at 0


def compact(major: str, bits: int, mn: int, k: int, start: int) -> SmemDesc:
    """The no-swizzle canonical layout packing an (mn, k) operand densely from `start`.

    K-major: a core matrix is 8 rows x 16 bytes; the next 16 bytes of K are LBO = 128 B on, the
    next 8 rows SBO = 128 B x (K units) on. MN-major: a core matrix is 8 K-rows x 16 bytes of MN;
    the next 16 bytes of MN are SBO = 128 B on, the next 8 K-rows LBO = 128 B x (MN units) on.
    Either way the operand fills [start, start + mn * k * bits / 8) exactly."""
    if major == "k":
        return SmemDesc(start=start, lbo=128, sbo=128 * (k * bits // 128))
    return SmemDesc(start=start, lbo=128 * (mn * bits // 128), sbo=128)


def ints(shape: tuple[int, ...], low: int = -4, high: int = 4) -> np.ndarray:
    return RNG.integers(low, high + 1, shape).astype(np.float64)


class Cta:
    """One CTA: SMEM, TMEM with 256 columns of D at column 0, A at 0 and B (N x K) at B_START."""

    def __init__(self) -> None:
        self.smem, self.tmem = SharedMemory(), TensorMemory()
        self.d = self.tmem.alloc(256)

    def place(self, values: np.ndarray, *, major: str, type_name: str, kind: str, bits: int,
              start: int) -> int:
        desc = compact(major, bits, values.shape[0], values.shape[1], start)
        write_smem_operand(self.smem, desc, values, major=major, type_name=type_name, kind=kind)
        return encode_smem_desc(desc)

    def mma(self, kind: str, a: np.ndarray, b: np.ndarray, *, ab: str, bits: int,
            dtype: str | None, idesc_extra: dict | None = None, **kwargs) -> np.ndarray:
        """D = A (M x K) x B (K x N) (+ D), both K-major; returns D (M x N) as read back."""
        m, n = a.shape[0], b.shape[1]
        a_word = self.place(a, major="k", type_name=ab, kind=kind, bits=bits, start=0)
        b_word = self.place(b.T, major="k", type_name=ab, kind=kind, bits=bits, start=B_START)
        idesc = encode_idesc(InstrDesc(kind=kind, m=m, n=n, atype=ab, btype=ab, dtype=dtype,
                                       **(idesc_extra or {})))
        kwargs.setdefault("enable_input_d", False)
        mma(self.smem, self.tmem, kind=kind, d=self.d, a=a_word, b=b_word, idesc=idesc, **kwargs)
        return read_d(self.tmem, self.d, dtype or "f32", m, n)


# ----------------------------------------------------------------------------------------------
# Elements and scales


def test_values_reach_the_element_type_through_f32_and_integers_keep_their_low_byte():
    # A thread holds an operand value as an f32 and converts that (ml_dtypes converts f64
    # through f32 for its own types, so bf16 and f16 agree): 1 + 2^-11 + 2^-30 is 1 + 2^-11 in
    # f32 (2^-30 is below half an f32 ulp), an f16 tie rounded to even: 1.0 = 0x3C00, not the
    # 1 + 2^-10 (0x3C01) of a direct f64 -> f16 rounding.
    assert encode_elements(np.array([1 + 2.0**-11 + 2.0**-30]), "f16").tolist() == [0x3C00]
    assert encode_elements(np.array([1 + 2.0**-8 + 2.0**-30]), "bf16").tolist() == [0x3F80]
    assert encode_elements(np.array([-1, -128, 127, 5]), "s8").tolist() == [0xFF, 0x80, 0x7F, 5]
    assert encode_elements(np.array([255, 128, 0]), "u8").tolist() == [0xFF, 0x80, 0x00]
    # the container is the integer's low byte, also past 2^24 (where an f32 would round it)
    assert encode_elements(np.array([2**24 + 1, -129]), "s8").tolist() == [0x01, 0x7F]


@pytest.mark.parametrize(("type_name", "width"), [("e2m1", 4), ("e2m3", 6), ("e3m2", 6)])
def test_narrow_float_encodings_leave_the_container_high_bits_clear(type_name, width):
    # The SMEM/TMEM stores rely on it (they OR the value into bytes shared with neighbours):
    # every value of the type, and NaN, infinities and out-of-range values, encode below 2^width.
    every_code = np.arange(1 << width, dtype=np.uint8)
    values = np.concatenate([decode_elements(every_code, type_name),
                             [np.nan, np.inf, -np.inf, 1e9, -1e9, -0.0]])
    codes = encode_elements(values, type_name)
    assert codes.dtype == np.uint8 and int(codes.max()) < 1 << width
    assert np.array_equal(codes[:1 << width], every_code)  # and each code round-trips


def test_ue4m3_scales_are_unsigned():
    assert encode_scale(np.array([2.0**-9, 448.0]), "ue4m3").tolist() == [0x01, 0x7E]
    with pytest.raises(ValueError, match=r"^scale values are not exactly representable as ue4m3$"):
        encode_scale(np.array([-1.0]), "ue4m3")


# ----------------------------------------------------------------------------------------------
# Operands in shared memory


def test_write_smem_operand_takes_a_2d_matrix_of_any_float_dtype():
    smem = SharedMemory()
    desc = compact("k", 16, 128, 16, 0)
    with pytest.raises(ValueError, match=r"^an operand is a 2-D \(mn, k\) matrix, got shape "
                                         r"\(2048,\)$"):
        write_smem_operand(smem, desc, np.zeros(2048), major="k", type_name="f16", kind="f16")
    # float32 values stored as f16 elements (not their f32 bit patterns): read back exactly
    values = ints((128, 16), -2048, 2048).astype(np.float32)
    write_smem_operand(smem, desc, values, major="k", type_name="f16", kind="f16")
    back = read_smem_operand(smem, desc, major="k", type_name="f16", kind="f16", mn=128, k=16)
    assert np.array_equal(back, values)
    # the first row's first element is f16 bits at byte 0 (K-major: row 0 = bytes 0..15)
    assert smem.data[:2].view(np.uint16)[0] == np.float16(values[0, 0]).view(np.uint16)


def test_an_operand_may_end_at_the_last_byte_of_shared_memory():
    smem = SharedMemory()
    values = ints((128, 16))  # bf16: 4096 bytes
    last = SMEM_BYTES_PER_CTA - 4096
    write_smem_operand(smem, compact("k", 16, 128, 16, last), values, major="k",
                       type_name="bf16", kind="f16")
    back = read_smem_operand(smem, compact("k", 16, 128, 16, last), major="k", type_name="bf16",
                             kind="f16", mn=128, k=16)
    assert np.array_equal(back, values)
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires operand A inside the 233472-byte "
                       r"shared memory, got bytes \[0x38010, 0x39010\)"):
        read_smem_operand(smem, compact("k", 16, 128, 16, last + 16), major="k",
                          type_name="bf16", kind="f16", mn=128, k=16, what="operand A")


# ----------------------------------------------------------------------------------------------
# Sparse A and scale factors in tensor memory


def test_sparse_tf32_metadata_error_lists_the_tf32_nibbles():
    # tf32 is 1:2 sparse: only 0b0100 (first K position) and 0b1110 (second) are defined;
    # 0b1000 is a legal 2:4 nibble but not a tf32 one.
    stored = np.array([[1.0, 2.0]], np.float32)
    assert densify_sparse_a("tf32", stored, np.array([[0b0100, 0b1110]]), 4).tolist() == \
        [[1.0, 0.0, 0.0, 2.0]]
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires defined sparse metadata for "
                       r"kind::tf32, got nibble 0b1000 at row 0 group 1; legal: 0b0100, 0b1110$"):
        densify_sparse_a("tf32", stored, np.array([[0b0100, 0b1000]]), 4)


def test_a_sparse_mma_reads_k_over_2_stored_columns_of_a():
    # Sparse f16 (K = 32): A holds 16 stored values per row; given as raw TMEM containers of
    # exactly 128 x 16 elements it is enough. Metadata 0b0100 everywhere: the stored pair of
    # each group of four fills its positions 0 and 1.
    cta = Cta()
    stored, b = ints((128, 16)), ints((32, 64))
    dense = np.zeros((128, 32))
    dense[:, 0::4], dense[:, 1::4] = stored[:, 0::2], stored[:, 1::2]
    meta = cta.tmem.alloc(32)
    write_sparse_metadata(cta.tmem, meta, np.full((128, 8), 0b0100))
    b_word = cta.place(b.T, major="k", type_name="f16", kind="f16", bits=16, start=B_START)
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                   dtype="f32", sparse=True))
    mma(cta.smem, cta.tmem, kind="f16", d=cta.d, a=0, a_in_tmem=True,
        a_raw=encode_elements(stored, "f16"), b=b_word, idesc=idesc, enable_input_d=False,
        sparse=True, sparse_metadata=meta)
    assert np.array_equal(read_d(cta.tmem, cta.d, "f32", 128, 64), dense @ b)


def test_a_sparse_block_scaled_mma_is_refused():
    cta = Cta()
    idesc = encode_idesc(InstrDesc(kind="mxf8f6f4", m=128, n=64, atype="e4m3", btype="e4m3",
                                   sparse=True, scale_type="ue8m0"))
    with pytest.raises(Tcgen05ExecutionError, match=r"^uses a sparse kind::mxf8f6f4 MMA, which the "
                                                    r"executor does not model$"):
        mma(cta.smem, cta.tmem, kind="mxf8f6f4", d=cta.d, a=0, b=0, idesc=idesc,
            enable_input_d=False, sparse=True, sparse_metadata=0, scale_a=0, scale_b=0)


def test_scale_factor_addresses_are_checked():
    # The scale factors of 128 rows fill lanes 0..127 (row % 32 in each quadrant) of columns
    # +0..+3 (row // 32), bytes sf_id.. of each cell (docs/executor-tcgen05.md).
    tmem = TensorMemory()
    tmem.alloc(32)  # columns 0..31
    codes = np.arange(256, dtype=np.uint8).reshape(128, 2)
    write_scale_factors(tmem, tmem_address(0, 28), codes, 2)  # columns 28..31, bytes 2..3
    assert np.array_equal(read_scale_factors(tmem, tmem_address(0, 28), operand="a", rows=128,
                                             count=2, sf_id=2), codes)
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires scale_A at TMEM lane 0 \(scale "
                       r"factors fill all four 32-lane quadrants\), got lane 32$"):
        read_scale_factors(tmem, tmem_address(32, 0), operand="a", rows=128, count=1, sf_id=0)
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires scale_B in allocated TMEM columns, "
                       r"got column 32, which is not allocated \(access to columns \[29, 33\)\)$"):
        read_scale_factors(tmem, tmem_address(0, 29), operand="b", rows=128, count=1, sf_id=0)
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires scale_A's 2 scale bytes from byte 3 "
                                                    r"to fit a 32-bit cell$"):
        read_scale_factors(tmem, tmem_address(0, 0), operand="a", rows=128, count=2, sf_id=3)


# ----------------------------------------------------------------------------------------------
# Block-scaled MMAs: scales applied exactly


def _block_scaled(a_value: float, b_value: float, sfa: float, sfb: float, *,
                  old: np.ndarray | None = None) -> np.ndarray:
    """kind::mxf8f6f4 e4m3 x e4m3, M = 128, N = 64, K = 32 (one UE8M0 scale per row and column)."""
    cta = Cta()
    sfa_at, sfb_at = cta.tmem.alloc(32), cta.tmem.alloc(32)
    write_scale_factors(cta.tmem, sfa_at, encode_scale(np.full((128, 1), sfa), "ue8m0"), 0)
    write_scale_factors(cta.tmem, sfb_at, encode_scale(np.full((64, 1), sfb), "ue8m0"), 0)
    if old is not None:
        write_d(cta.tmem, cta.d, "f32", old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow is +inf, silently (no numpy warning)
        return cta.mma("mxf8f6f4", np.full((128, 32), a_value), np.full((32, 64), b_value),
                       ab="e4m3", bits=8, dtype=None, idesc_extra={"scale_type": "ue8m0"},
                       scale_a=sfa_at, scale_b=sfb_at, enable_input_d=old is not None)


def test_block_scales_at_the_ends_of_ue8m0_are_exact():
    # 2^-127 and 2^127 (UE8M0 codes 0 and 254): 448 * 2^127 is beyond f32, the scaled product
    # 1 * 2^-127 * 448 * 2^127 = 448 is not; 32 of them sum to 14336.
    assert np.array_equal(_block_scaled(1.0, 448.0, 2.0**-127, 2.0**127), np.full((128, 64), 14336.0))
    # 32 * 448^2 * 2^254 overflows f32: +inf
    assert np.array_equal(_block_scaled(448.0, 448.0, 2.0**127, 2.0**127),
                          np.full((128, 64), np.inf))


def test_block_scaled_mma_accumulates_onto_d():
    old = ints((128, 64), -100, 100)
    got = _block_scaled(2.0, 3.0, 0.5, 4.0, old=old)
    assert np.array_equal(got, old + 32 * (2.0 * 0.5) * (3.0 * 4.0))


# ----------------------------------------------------------------------------------------------
# Dense MMAs: the float32 default numerics, undefined rows, lane masks


def _sum_past_2_to_24() -> tuple[np.ndarray, np.ndarray]:
    """A row . B column = 4096 * 4096 + 1 * 1 = 2^24 + 1 (f16 inputs, exact f32 products)."""
    a, b = np.zeros((128, 16)), np.zeros((16, 64))
    a[:, 0], a[:, 1], b[0], b[1] = 4096.0, 1.0, 4096.0, 1.0
    return a, b


def test_default_numerics_sum_and_accumulate_in_f32():
    # f32: 2^24 + 1 rounds (to even) to 2^24, and 2^24 + D (1) to 2^24 again; a wider sum would
    # give 2^24 + 2.
    a, b = _sum_past_2_to_24()
    cta = Cta()
    write_d(cta.tmem, cta.d, "f32", np.ones((128, 64)))
    got = cta.mma("f16", a, b, ab="f16", bits=16, dtype="f32", enable_input_d=True)
    assert np.array_equal(got, np.full((128, 64), 2.0**24))


def _f16_tie_after_f32() -> tuple[np.ndarray, np.ndarray]:
    """A row . B column = 2^-5 * 2^-6 + 2^-15 * 2^-15 = 2^-11 + 2^-30 (exact in f32)."""
    a, b = np.zeros((128, 16)), np.zeros((16, 64))
    a[:, 0], a[:, 1], b[0], b[1] = 2.0**-5, 2.0**-15, 2.0**-6, 2.0**-15
    return a, b


@pytest.mark.parametrize(("scale_input_d", "old"), [(None, 1.0), (1, 2.0)])
def test_an_f16_d_is_accumulated_in_f32_then_rounded(scale_input_d, old):
    # D (1.0, or 2.0 scaled by 2^-1) + 2^-11 + 2^-30 is 1 + 2^-11 in f32, a tie in f16 rounded
    # to even: 1.0. (Rounded once from the exact sum it would be 1 + 2^-10.)
    a, b = _f16_tie_after_f32()
    cta = Cta()
    write_d(cta.tmem, cta.d, "f16", np.full((128, 64), old))
    got = cta.mma("f16", a, b, ab="f16", bits=16, dtype="f16", enable_input_d=True,
                  scale_input_d=scale_input_d)
    assert np.array_equal(got, np.ones((128, 64)))


@pytest.mark.parametrize("lane_words", [None, [0, 0, 0, 0]])  # in place, or the general path
def test_d_rows_accumulated_onto_undefined_rows_stay_undefined(lane_words):
    a, b = ints((128, 16)), ints((16, 64))
    for enable_input_d in (True, False):
        cta = Cta()
        write_d(cta.tmem, cta.d, "f32", np.zeros((128, 64)))
        cta.tmem.mark_undefined(5, slice(0, 64))  # as a tcgen05.shift leaves its first row
        got = cta.mma("f16", a, b, ab="f16", bits=16, dtype="f32",
                      enable_input_d=enable_input_d, disable_output_lane=lane_words)
        undefined = cta.tmem.undefined_cells(slice(0, 128), slice(0, 64))
        # D + A x B from an undefined row 5 is undefined; A x B alone overwrites it
        assert undefined[5].all() == enable_input_d and not undefined[:5].any() \
            and not undefined[6:].any()
        assert np.isnan(got[5]).all() == enable_input_d
        assert np.array_equal(got[6:], (a @ b)[6:])


def test_a_disable_output_lane_word_may_be_given_signed():
    # -1 as an i32 is 0xFFFFFFFF: lanes 0..31 keep D
    cta = Cta()
    write_d(cta.tmem, cta.d, "f32", np.full((128, 64), -7.0))
    a, b = ints((128, 16)), ints((16, 64))
    got = cta.mma("f16", a, b, ab="f16", bits=16, dtype="f32", disable_output_lane=[-1, 0, 0, 0])
    assert np.array_equal(got[:32], np.full((32, 64), -7.0))
    assert np.array_equal(got[32:], (a @ b)[32:])


# ----------------------------------------------------------------------------------------------
# The CTA pair (cta_group::2, M = 256): CTA c holds A rows and D rows [128 c, 128 c + 128) and
# B columns [N/2 c, N/2 (c + 1))


def _pair(kind: str, a: np.ndarray, b: np.ndarray, *, ab: str, bits: int, dtype: str,
          a_major: str = "k", b_major: str = "k", old: np.ndarray | None = None,
          **fields) -> tuple[np.ndarray, int, int, int]:
    """Place the halves, run mma_pair; returns (D 256 x N, idesc, A word, B word)."""
    n = b.shape[1]
    ctas, words = [], set()
    for c in range(2):
        cta = Cta()
        a_c = a[128 * c:128 * (c + 1)]
        b_c = b[:, n // 2 * c:n // 2 * (c + 1)].T
        a_word = cta.place(a_c, major=a_major, type_name=ab, kind=kind, bits=bits, start=0)
        b_word = cta.place(b_c, major=b_major, type_name=ab, kind=kind, bits=bits, start=B_START)
        words.add((a_word, b_word))
        if old is not None:
            write_d(cta.tmem, cta.d, dtype, old[128 * c:128 * (c + 1)])
        ctas.append((cta.smem, cta.tmem))
    (a_word, b_word), = words  # one descriptor pair for both CTAs
    idesc = encode_idesc(InstrDesc(kind=kind, m=256, n=n, atype=ab, btype=ab, dtype=dtype,
                                   transpose_a=a_major == "mn", transpose_b=b_major == "mn",
                                   **fields.pop("idesc_extra", {})))
    mma_pair(ctas, kind=kind, d=0, a=a_word, b=b_word, idesc=idesc,
             enable_input_d=old is not None, **fields)
    d = np.concatenate([read_d(tmem, 0, dtype, 128, n) for _, tmem in ctas])
    return d, idesc, a_word, b_word


def test_pair_sums_and_accumulates_in_f32():
    a, b = _sum_past_2_to_24()
    a = np.concatenate([a, a])
    d, *_ = _pair("f16", a, b, ab="f16", bits=16, dtype="f32", old=np.ones((256, 64)))
    assert np.array_equal(d, np.full((256, 64), 2.0**24))


@pytest.mark.parametrize(("scale_input_d", "old"), [(None, 1.0), (1, 2.0)])
def test_pair_f16_d_is_accumulated_in_f32_then_rounded(scale_input_d, old):
    a, b = _f16_tie_after_f32()
    d, *_ = _pair("f16", np.concatenate([a, a]), b, ab="f16", bits=16, dtype="f16",
                  old=np.full((256, 64), old), scale_input_d=scale_input_d)
    assert np.array_equal(d, np.ones((256, 64)))


def test_pair_reads_mn_major_operands_and_negates_a():
    a, b = ints((256, 16)), ints((16, 64))
    d, *_ = _pair("f16", a, b, ab="bf16", bits=16, dtype="f32", a_major="mn", b_major="mn",
                  idesc_extra={"negate_a": True})
    assert np.array_equal(d, -a @ b)


@pytest.mark.parametrize("saturate", [False, True])
def test_pair_i8_accumulates_exactly_and_wraps_or_saturates(saturate):
    a, b = ints((256, 32), -128, 127), ints((32, 64), -128, 127)
    a[:128], b[:, :2] = 127.0, 127.0  # rows 0..127 x columns 0..1: 32 * 127^2 = 516128
    old = ints((256, 64), -1000, 1000).astype(np.int64)
    old[:, 0] = np.iinfo(np.int32).max - 1000  # + 516128: past 2^31 - 1 in rows 0..127
    old[:, 1] = 2**30 + 1  # odd, past 2^24: exact only in an integer sum
    d, *_ = _pair("i8", a, b, ab="s8", bits=8, dtype="s32", old=old,
                  idesc_extra={"saturate": saturate})
    exact = a.astype(np.int64) @ b.astype(np.int64) + old
    if saturate:
        expected = np.clip(exact, -2**31, 2**31 - 1)
    else:
        expected = (exact + 2**31) % 2**32 - 2**31
    assert np.array_equal(d, expected)
    assert d[0, 0] == (2**31 - 1 if saturate else 2**31 - 1 - 1000 + 516128 - 2**32)


# ----------------------------------------------------------------------------------------------
# Footprints (what the asynchronous checker takes an MMA to read) and tcgen05.cp


def test_footprints_follow_the_operands_major():
    # tf32 MN-major, packed: A (128 x 8) fills [0, 4096), B (64 x 8) [B_START, B_START + 2048).
    # (Read K-major, the same LBO/SBO would reach 6144 and 3072 bytes.)
    a_word = encode_smem_desc(compact("mn", 32, 128, 8, 0))
    b_word = encode_smem_desc(compact("mn", 32, 64, 8, B_START))
    idesc = encode_idesc(InstrDesc(kind="tf32", m=128, n=64, atype="tf32", btype="tf32",
                                   dtype="f32", transpose_a=True, transpose_b=True))
    f = mma_footprint(SharedMemory(), kind="tf32", idesc=idesc, a=a_word, b=b_word)
    assert f.smem == ((0, 4096), (B_START, B_START + 2048))
    # the pair: each CTA's 128-row A half (as above) and 32-column B half (1024 bytes)
    pair_b = encode_smem_desc(compact("mn", 32, 32, 8, B_START))
    pair_idesc = encode_idesc(InstrDesc(kind="tf32", m=256, n=64, atype="tf32", btype="tf32",
                                        dtype="f32", transpose_a=True, transpose_b=True))
    assert pair_smem_spans("tf32", pair_idesc, a_word, pair_b) == \
        ((0, 4096), (B_START, B_START + 1024))


def test_cp_checks_its_tmem_destination():
    smem, tmem = SharedMemory(), TensorMemory()
    tmem.alloc(32)
    word = encode_smem_desc(SmemDesc(start=0, lbo=128, sbo=256))
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires the tcgen05.cp destination in "
                       r"allocated TMEM columns, got column 32, which is not allocated"):
        cp(smem, tmem, taddr=tmem_address(0, 28), desc=word, shape="128x256b")
    footprint = cp(smem, tmem, taddr=tmem_address(0, 24), desc=word, shape="128x256b")
    assert (footprint.column, footprint.column_end) == (24, 32)


# ----------------------------------------------------------------------------------------------
# The interpreter (executor/tcgen05/functions.py): runtime words are bit patterns, whatever their sign

SIGNED_KERNEL = """
func.func @k(%a_img: memref<4096xui8>, %b_img: memref<2048xui8>, %c: memref<128x64xf32>) {{
  %en = arith.constant true
  %idesc = arith.constant {idesc} : i32
  %a_desc = arith.constant {a_desc} : i64
  %b_desc = arith.constant {b_desc} : i64
  %all = arith.constant -1 : i32
  %none = arith.constant 0 : i32
  %a = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(8192) : memref<2048xui8, #tcgen05.space<smem>>
  "memref.copy"(%a_img, %a) : (memref<4096xui8>, memref<4096xui8, #tcgen05.space<smem>>) -> ()
  "memref.copy"(%b_img, %b) : (memref<2048xui8>, memref<2048xui8, #tcgen05.space<smem>>) -> ()
  %d = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
  "memref.copy"(%c, %d) : (memref<128x64xf32>, memref<128x64xf32, #tcgen05.space<tmem>>) -> ()
  tcgen05.mma kind(f16) cta_group(1) {ws}%d, %a_desc, %b_desc, %idesc, %en{lanes} : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  "memref.copy"(%d, %c) : (memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x64xf32>) -> ()
  tcgen05.dealloc cta_group(1) %d : memref<128x64xf32, #tcgen05.space<tmem>>
  func.return
}}
"""


def _signed(word: int, bits: int) -> int:
    """The word as MLIR prints a signless integer constant with its top bit set: negative."""
    return word - (1 << bits) if word >> (bits - 1) else word


@pytest.mark.parametrize("ws", [False, True])
def test_interpreter_takes_descriptor_and_lane_words_given_as_negative_constants(ws):
    from tcgen05_testing import run_kernel

    # sw32 puts swizzle code 6 in bits 61-63 of the descriptor: bit 63 is set, so the i64
    # constants are negative; the lane-mask word -1 disables lanes 32..63. With .ws, max_shift
    # 32 (code 3 in bits 30-31) makes the i32 instruction descriptor negative.
    a, b = ints((128, 16)), ints((16, 64))
    scratch = SharedMemory()
    a_desc = SmemDesc(0, 16, 256, swizzle="sw32")
    b_desc = SmemDesc(0x2000, 16, 256, swizzle="sw32")
    write_smem_operand(scratch, a_desc, a, major="k", type_name="f16", kind="f16")
    write_smem_operand(scratch, b_desc, b.T, major="k", type_name="f16", kind="f16")
    idesc = _signed(encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="f16", btype="f16",
                                           dtype="f32", max_shift=32 if ws else 0)), 32)
    a_word, b_word = _signed(encode_smem_desc(a_desc), 64), _signed(encode_smem_desc(b_desc), 64)
    assert a_word < 0 and b_word < 0 and (idesc < 0) == ws
    lanes = "" if ws else " disable_output_lane(%none, %all, %none, %none)"
    source = SIGNED_KERNEL.format(idesc=idesc, a_desc=a_word, b_desc=b_word,
                                  ws="ws " if ws else "", lanes=lanes)
    old = ints((128, 64))
    c = old.astype(np.float32)
    run_kernel(source, scratch.data[:4096].copy(), scratch.data[0x2000:0x2800].copy(), c)
    expected = old + a @ b
    if not ws:
        expected[32:64] = old[32:64]
    assert np.array_equal(c, expected)


def _kernel(body: str, *params: str) -> str:
    return "func.func @k(" + ", ".join(params) + ") {\n" + body + "\n  func.return\n}\n"


BAR = "memref<1xi64, #tcgen05.space<smem>>"


@pytest.mark.parametrize(("body", "message"), [
    # (in another function: the verifier sees only the alloc's own block)
    ("  tcgen05.relinquish_alloc_permit cta_group(1)\n"
     "  func.call @alloc() : () -> ()\n  func.return\n}\nfunc.func @alloc() {\n"
     "  %d = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xf32, #tcgen05.space<tmem>>",
     r"requires no tcgen05.alloc after tcgen05.relinquish_alloc_permit$"),
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar : {BAR}",
     r"uses the mbarrier at SMEM 0x40 before tcgen05.mbarrier_init$"),
    # an arrival that expects 16 transaction bytes leaves the phase open until they arrive
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     "  %p = arith.constant false\n"
     f"  tcgen05.mbarrier_init %bar count(1) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar expect_tx(16) : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p : {BAR}",
     r"waits on phase parity 0 of the mbarrier at SMEM 0x40, which can never complete "
     r"\(deadlock: 0 of 1 arrivals and 16 transaction bytes pending, nothing left to arrive\)$"),
    # an arrival without expect_tx completes phase 0 (the first wait returns): parity 1 is open
    (f"  %bar = tcgen05.smem_alloc offset(64) : {BAR}\n"
     "  %p0 = arith.constant false\n  %p1 = arith.constant true\n"
     f"  tcgen05.mbarrier_init %bar count(1) : {BAR}\n"
     f"  tcgen05.mbarrier_arrive %bar : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p0 : {BAR}\n"
     f"  tcgen05.mbarrier_wait %bar, %p1 : {BAR}",
     r"waits on phase parity 1 of the mbarrier at SMEM 0x40, which can never complete "
     r"\(deadlock: 1 of 1 arrivals and 0 transaction bytes pending, nothing left to arrive\)$"),
    ("  %b = tcgen05.smem_alloc offset(0) : memref<64xf4E2M1FN, #tcgen05.space<smem>>",
     r"cannot view f4E2M1FN elements in shared memory \(sub-byte types: use an i8/ui8 "
     r"container buffer\)$"),
])
def test_interpreter_refuses_what_it_cannot_run(body, message):
    from tcgen05_testing import run_kernel

    from mmair.executor.engine.errors import ExecutionError

    with pytest.raises(ExecutionError, match=message):
        run_kernel(_kernel(body))


def test_interpreter_tmem_address_of_a_view():
    from mmair.executor.engine.errors import ExecutionError
    from mmair.executor.tcgen05.functions import Tcgen05Functions

    f = Tcgen05Functions()
    assert f.tmem_address(f.tmem.cells[3, 5:], "d") == (3 << 16) | 5
    with pytest.raises(ExecutionError, match=r"^requires d to be a tensor-memory buffer$"):
        f.tmem_address(np.zeros((128, 4), np.uint32), "d")
    with pytest.raises(ExecutionError, match=r"^requires d to start on a 32-bit TMEM cell, got "
                                             r"byte 2 of a cell$"):
        f.tmem_address(f.tmem.cells.view(np.uint16).reshape(-1)[1:], "d")


def test_interpreter_cp_takes_a_negative_descriptor_constant():
    from tcgen05_testing import run_kernel

    # 128 rows x 32 bytes, K-major sw32 (bit 63 set: a negative i64); row r lands in lane r
    rows = RNG.integers(0, 256, (128, 32)).astype(np.uint8)
    desc = SmemDesc(0, 16, 256, swizzle="sw32")
    scratch = SharedMemory()
    write_smem_operand(scratch, desc, rows, major="k", type_name="u8", kind="i8")
    tmem = "memref<128x8xi32, #tcgen05.space<tmem>>"
    body = (f"  %img = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>\n"
            f'  "memref.copy"(%in, %img) : (memref<4096xui8>, '
            f"memref<4096xui8, #tcgen05.space<smem>>) -> ()\n"
            f"  %t = tcgen05.alloc cta_group(1) columns(32) : {tmem}\n"
            f"  %desc = arith.constant {_signed(encode_smem_desc(desc), 64)} : i64\n"
            f'  tcgen05.cp cta_group(1) shape("128x256b") %t, %desc : {tmem}\n'
            f'  "memref.copy"(%t, %out) : ({tmem}, memref<128x8xi32>) -> ()')
    out = np.zeros((128, 8), np.int32)
    run_kernel(_kernel(body, "%in: memref<4096xui8>", "%out: memref<128x8xi32>"),
               scratch.data[:4096].copy(), out)
    assert np.array_equal(out.view(np.uint8), rows)  # each row's bytes little-endian in 8 cells


PAIR_D = "memref<128x128xf32, #tcgen05.space<tmem>>"


@pytest.mark.parametrize("op", [
    "  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, "
    "btype = f16, m = 256, n = 128>\n"
    f"  %w = arith.constant {encode_smem_desc(SmemDesc(0, 2048, 128))} : i64\n"
    "  %en = arith.constant false\n"
    f"  tcgen05.mma kind(f16) cta_group(2) %d, %w, %w, %idesc, %en : {PAIR_D}, i64",
    f"  tcgen05.shift cta_group(2) %d : {PAIR_D}",
])
def test_interpreter_refuses_cta_group_2_outside_a_pair(op):
    from tcgen05_testing import run_kernel

    from mmair.executor.engine.errors import ExecutionError

    body = f"  %d = tcgen05.alloc cta_group(2) columns(128) : {PAIR_D}\n{op}"
    with pytest.raises(ExecutionError, match=r"op uses cta_group::2 outside a CTA pair$"):
        run_kernel(_kernel(body))


def _pair_example_with_mask(tmp_path, constant: str):
    from run_variants import write_variant

    example = Path(__file__).resolve().parents[4] / "examples" / "tcgen05_gemm_pair.mlir"
    lines = example.read_text().splitlines()
    edited = [x.replace("%both = arith.constant 3 : i16", f"%both = arith.constant {constant}")
              for x in lines]
    wait = next(i + 1 for i, x in enumerate(lines) if "tcgen05.mbarrier_wait %bar" in x)
    return write_variant(tmp_path, "mask", edited), wait


def test_pair_commit_to_the_peer_only_leaves_the_issuer_waiting(capsys, tmp_path):
    from run_variants import run_lowered

    # mask 0b10: the arrival goes to CTA 1 only; CTA 0 (the issuer) waits for ever
    path, wait = _pair_example_with_mask(tmp_path, "2 : i16")
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert err.startswith(
        f"{path}:{wait}:5: error: 'tcgen05.mbarrier_wait' op deadlock: CTA 0 of the CTA pair "
        "waits on phase parity 0 of the mbarrier at SMEM 0x1800, which can never happen")


def test_pair_commit_mask_is_the_i16_bit_pattern(capsys, tmp_path):
    from run_variants import run_lowered

    path, _ = _pair_example_with_mask(tmp_path, "-1 : i16")  # 0xFFFF: every CTA of 16
    code, err = run_lowered(capsys, path)
    assert code == 1
    assert "'tcgen05.commit' op multicasts to CTA mask 0xffff, which names CTAs beyond its " \
           "cluster of 2 CTAs (ranks 0, 1) (in CTA 0 of the CTA pair)" in err
