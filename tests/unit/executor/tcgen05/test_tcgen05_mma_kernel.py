"""The tcgen05 kernels on hand-placed operands (executor/tcgen05/kernels.py, operands.py,
memories.py): operands in shared memory up to its last byte, the memories' bounds, sparse A, A in
tensor memory, scale factors in TMEM and block-scaled MMAs (scales applied exactly), the float32
default numerics (products and sums in f32, D added in f32, an f16 D rounded once more), undefined
D rows, lane masks, the CTA pair's kernel (mma_pair), the footprints the async checker takes an
MMA to read, tcgen05.cp's TMEM destination, refused forms.

Expected values are literals from the format definitions or a second formulation written here:
the compact no-swizzle canonical layouts of the PTX ISA ("Shared memory matrix layout": 8 x
16-byte core matrices) and numpy products of small integers (exact)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from mmair.executor.tcgen05.elements import encode_elements, encode_scale
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


# A in tensor memory, scale-factor lanes, refused MMA forms, the memories' bounds


def test_a_in_tmem_given_as_raw_containers_needs_m_rows():
    # A (M x K) given as the container integers of its TMEM memref (the interpreter's form):
    # exactly M rows suffice; one fewer is one error naming the shape.
    rng = np.random.default_rng(18)
    a = rng.integers(-4, 5, (128, 16)).astype(np.float32)
    b = rng.integers(-4, 5, (16, 64)).astype(np.float32)
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(64)
    # B^T (N x K) K-major without swizzle: 8-element core matrices, next K unit 128 B on, next
    # 8 rows 256 B on (PTX ISA, "Shared memory matrix layout").
    desc = SmemDesc(start=0, lbo=128, sbo=256, base_offset=0, swizzle="none")
    write_smem_operand(smem, desc, b.T, major="k", type_name="bf16", kind="f16")
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32"))
    raw = encode_elements(a, "bf16")
    mma(smem, tmem, kind="f16", d=d, a=0, a_in_tmem=True, a_raw=raw, b=encode_smem_desc(desc),
        idesc=idesc, enable_input_d=False)
    assert np.array_equal(read_d(tmem, d, "f32", 128, 64), a @ b)
    with pytest.raises(Tcgen05ExecutionError, match=r"requires A in tensor memory to hold 128x16 elements, "
                                        r"got shape 127x16"):
        mma(smem, tmem, kind="f16", d=d, a=0, a_in_tmem=True, a_raw=raw[:127],
            b=encode_smem_desc(desc), idesc=idesc, enable_input_d=False)


def test_scale_factors_of_a_come_from_their_own_lane_and_of_b_from_quadrant_0():
    # docs/executor-tcgen05.md: the scale of operand row r sits in lane r % 32 of each 32-lane
    # quadrant, column r // 32, byte sf_id; A row m is read from its own lane m, B column n from
    # quadrant 0. Here each quadrant holds different bytes (a writer that did not duplicate
    # them), so the two readings differ.
    tmem = TensorMemory()
    base = tmem.alloc(32)
    cells = tmem.cells.view(np.uint8).reshape(128, 512, 4)
    for lane in range(128):
        for column in range(4):
            cells[lane, base + column, 0] = lane + 128 * (column % 2)  # byte 0 names its cell
    rows = np.arange(128)
    a = read_scale_factors(tmem, base, operand="a", rows=128, count=1, sf_id=0)
    b = read_scale_factors(tmem, base, operand="b", rows=128, count=1, sf_id=0)
    assert a[:, 0].tolist() == (rows + 128 * (rows // 32 % 2)).tolist()  # lane m, column m // 32
    assert b[:, 0].tolist() == (rows % 32 + 128 * (rows // 32 % 2)).tolist()  # quadrant 0


@pytest.mark.parametrize(("idesc", "kwargs", "message"), [
    # a sparse MMA reads its metadata from TMEM: no address is one error
    (InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32", sparse=True),
     {"sparse": True}, r"^requires a sparse-metadata TMEM address for a sparse MMA$"),
    # a sparsity selector other than 0 is legal PTX, not modelled
    (InstrDesc(kind="f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32", sparse=True,
               sparsity_selector=1),
     {"sparse": True, "sparse_metadata": 0},
     r"^uses sparsity selector 1 \(only 0 is modelled\), which the executor does not model$"),
    # block-scaled kinds read both scale-factor tiles from TMEM
    (InstrDesc(kind="mxf8f6f4", m=128, n=64, atype="e4m3", btype="e4m3", scale_type="ue8m0"),
     {"scale_a": 0}, r"^requires scale_A and scale_B TMEM addresses for kind::mxf8f6f4$"),
])
def test_mma_refuses_missing_tmem_operands_and_unmodelled_forms(idesc, kwargs, message):
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(64)
    desc = encode_smem_desc(SmemDesc(start=0, lbo=128, sbo=256, base_offset=0, swizzle="none"))
    with pytest.raises(Tcgen05ExecutionError, match=message):
        mma(smem, tmem, kind=idesc.kind, d=d, a=desc, b=desc, idesc=encode_idesc(idesc),
            enable_input_d=False, **kwargs)


def test_memories_check_their_sizes_and_bounds_to_the_last_byte():
    from mmair.isa.tcgen05.layouts import SMEM_BYTES_PER_CTA

    assert SMEM_BYTES_PER_CTA == 228 * 1024  # 228 KB per CTA (sm_100)
    smem = SharedMemory()
    smem.check_range(0, SMEM_BYTES_PER_CTA, "the operand")  # ends exactly at the last byte
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires the operand inside the 233472-byte "
                                                    r"shared memory, got bytes \[0x38f00, 0x39001\)$"):
        smem.check_range(0x38F00, SMEM_BYTES_PER_CTA + 1, "the operand")
    with pytest.raises(Tcgen05ExecutionError, match=r"got bytes \[-0x10, 0x10\)$"):
        smem.check_range(-16, 16, "the operand")
    with pytest.raises(ValueError, match=r"^shared memory must be 233472 uint8 bytes$"):
        SharedMemory(np.zeros(1024, np.uint8))
    with pytest.raises(ValueError, match=r"^tensor memory must be a \(128, 512\) uint32 array$"):
        TensorMemory(np.zeros((128, 512), np.int32))
    tmem = TensorMemory()
    tmem.alloc(512)
    tmem.check_access(96, 480, 32, 32, "D")  # the last lanes and columns: inside
    with pytest.raises(Tcgen05ExecutionError, match=r"^requires D inside tensor memory \(128 lanes x "
                                                    r"512 columns\), got lanes \[96, 128\) columns "
                                                    r"\[481, 513\)$"):
        tmem.check_access(96, 481, 32, 32, "D")
