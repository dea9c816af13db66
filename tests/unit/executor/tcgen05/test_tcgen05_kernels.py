"""Tests of the tcgen05 numpy kernels: SMEM layouts and swizzles, TMEM, and `tcgen05.mma` semantics.

Expected results are computed independently: layouts from the CuTe expressions of the PTX worked
examples (evaluated by a small CuTe evaluator here) and the CuTe `Swizzle<B,M,S>` definition; MMA
results with float64/int64 numpy matmuls of exactly representable data.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from tcgen05_testing import (
    E2M1_VALUES,
    Setup,
    compact_desc,
    cute_offsets,
    cute_swizzle,
    idesc_word,
    run,
    run_kernel,
)

from mmair.executor.tcgen05.elements import (
    decode_elements,
    decode_ue4m3,
    encode_elements,
    encode_scale,
)
from mmair.executor.tcgen05.kernels import mma
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import (
    read_d,
    read_smem_operand,
    read_tmem_operand,
    write_d,
    write_scale_factors,
    write_smem_operand,
    write_sparse_metadata,
    write_tmem_operand,
)
from mmair.isa.tcgen05 import (
    SmemDesc,
    ZeroColumnMask,
    encode_smem_desc,
    encode_zcmask,
    layouts,
)
from mmair.isa.tcgen05.smem import SWIZZLE_REPEAT_BYTES

RNG = np.random.default_rng(1234)

# ----------------------------------------------------------------------------------------------
# Helpers


def small_ints(shape: tuple[int, ...], low: int = -4, high: int = 4) -> np.ndarray:
    return RNG.integers(low, high + 1, shape).astype(np.float64)


# ----------------------------------------------------------------------------------------------
# Layouts: PTX worked examples, swizzle definition, round trips


def test_ptx_example_k_major_no_swizzle_tf32() -> None:
    desc = SmemDesc(start=0, lbo=256, sbo=128)
    assert encode_smem_desc(desc) == 0x0000400800100000
    got = layouts.canonical_element_offsets("k", "none", 32, 16, 16, desc.lbo, desc.sbo)
    expected = cute_offsets(((8, 2), (4, 4)), ((4, 32), (1, 64)))
    np.testing.assert_array_equal(got, expected)
    bit_addresses = layouts.operand_bit_addresses(desc, "k", 32, 16, 16)
    np.testing.assert_array_equal(bit_addresses, expected * 32)


def test_ptx_example_mn_major_sw32_bf16() -> None:
    desc = SmemDesc(start=0x1000, lbo=256, sbo=512, swizzle="sw32")
    assert encode_smem_desc(desc) == 0xC000402000100100
    got = layouts.canonical_element_offsets("mn", "sw32", 16, 32, 16, desc.lbo, desc.sbo)
    expected = cute_offsets(((8, 2, 2), (8, 2)), ((1, 8, 128), (16, 256)))
    np.testing.assert_array_equal(got, expected)
    swizzled = np.vectorize(lambda x: cute_swizzle(x, 1, 4, 3))(0x1000 + 2 * expected)
    np.testing.assert_array_equal(layouts.operand_bit_addresses(desc, "mn", 16, 32, 16) >> 3,
                                  swizzled)


def test_k_major_sw128_matches_tma_chunk_pattern() -> None:
    # TMA 128B swizzle: in row r of 128 bytes, 16-byte chunk c is stored at chunk c ^ (r % 8).
    desc = SmemDesc(start=0x2000, lbo=16, sbo=1024, swizzle="sw128")
    got = layouts.operand_bit_addresses(desc, "k", 16, 64, 64) >> 3
    r, k = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    chunk = (2 * k) // 16
    expected = 0x2000 + r * 128 + ((chunk ^ (r % 8)) * 16) + (2 * k) % 16
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("swizzle", ["none", "sw32", "sw64", "sw128", "sw128_base32b"])
def test_swizzle_is_cute_swizzle(swizzle: str) -> None:
    b, m, s = layouts.SWIZZLE_FUNCTORS[swizzle]
    addresses = np.arange(0, 1 << 14, dtype=np.int64)
    expected = np.array([cute_swizzle(int(x), b, m, s) for x in addresses])
    np.testing.assert_array_equal(layouts.swizzle_addresses(addresses, swizzle), expected)


@pytest.mark.parametrize("swizzle", ["sw32", "sw64", "sw128", "sw128_base32b"])
@pytest.mark.parametrize("base_offset", range(1, 8))
def test_base_offset_anchors_the_pattern(swizzle: str, base_offset: int) -> None:
    # A pattern that starts at row `base_offset` of a 1024-byte block swizzles like a pattern
    # starting on the boundary, shifted by its start.
    b, m, s = layouts.SWIZZLE_FUNCTORS[swizzle]
    pattern_start = 0x4000 + base_offset * 128
    relative = np.arange(0, 2048, dtype=np.int64)
    expected = pattern_start + np.array([cute_swizzle(int(x), b, m, s) for x in relative])
    got = layouts.swizzle_addresses(pattern_start + relative, swizzle, base_offset)
    np.testing.assert_array_equal(got, expected)


LAYOUT_CASES = [
    (major, swizzle, bits)
    for major, swizzle, bits in itertools.product(
        ["k", "mn"], ["none", "sw32", "sw64", "sw128", "sw128_base32b"], [4, 8, 16, 32]
    )
    if not (swizzle == "sw128_base32b" and (major == "k" or bits != 32))
]


@pytest.mark.parametrize(("major", "swizzle", "bits"), LAYOUT_CASES)
def test_write_read_round_trip(major: str, swizzle: str, bits: int) -> None:
    kind, type_name = {4: ("mxf4", "e2m1"), 8: ("i8", "u8"), 16: ("f16", "f16"),
                       32: ("tf32", "tf32")}[bits]
    mn = 64
    k = 256 // bits  # 32 bytes of K per row
    start = 0x2000
    desc = compact_desc(major, swizzle, bits, mn, k, start)
    smem = SharedMemory()
    if type_name == "e2m1":
        values = RNG.choice(E2M1_VALUES, (mn, k))
    elif type_name == "u8":
        values = RNG.integers(0, 256, (mn, k))
    else:
        values = small_ints((mn, k), -100, 100) / 4
    write_smem_operand(smem, desc, values, major=major, type_name=type_name, kind=kind)
    back = read_smem_operand(smem, desc, major=major, type_name=type_name, kind=kind, mn=mn, k=k)
    np.testing.assert_array_equal(back, values)
    # The swizzle only permutes 16-byte chunks inside its repeat block: every touched byte lies in
    # the unswizzled footprint rounded up to the pattern's repeat.
    unswizzled = layouts.canonical_element_offsets(major, swizzle, bits, mn, k, desc.lbo, desc.sbo)
    repeat = SWIZZLE_REPEAT_BYTES.get(swizzle, 16)
    end = start + -(-(int(unswizzled.max()) * bits // 8 + 1) // repeat) * repeat
    touched = np.nonzero(smem.data)[0]
    assert touched.min() >= start and touched.max() < end


def test_write_rejects_overlapping_descriptor() -> None:
    desc = SmemDesc(start=0, lbo=0, sbo=128)  # LBO 0: the two K units of a row collide
    with pytest.raises(Tcgen05ExecutionError, match="overlapping"):
        write_smem_operand(SharedMemory(), desc, np.ones((8, 16)), major="k", type_name="f16",
                           kind="f16")


def test_tf32_ignores_low_mantissa_bits() -> None:
    raw = np.array([3.0, -1.5, 0.25], dtype=np.float32).view(np.uint32) | np.uint32(0x1FFF)
    np.testing.assert_array_equal(decode_elements(raw, "tf32"), [3.0, -1.5, 0.25])


def test_ue4m3_decode_by_hand() -> None:
    codes = np.arange(0, 0x7F)
    # unsigned e4m3 = e4m3fn without the sign bit
    expected = codes.astype(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    np.testing.assert_array_equal(decode_ue4m3(codes), expected)
    assert np.isnan(decode_ue4m3(np.array([0x7F])))[0]
    assert decode_ue4m3(np.array([0x38]))[0] == 1.0  # exponent 7 = bias


# ----------------------------------------------------------------------------------------------
# MMA: kinds, majors, swizzles


SWIZZLES_16 = ["none", "sw32", "sw64", "sw128"]


@pytest.mark.parametrize("a_major", ["k", "mn"])
@pytest.mark.parametrize("b_major", ["k", "mn"])
@pytest.mark.parametrize("swizzle", SWIZZLES_16)
@pytest.mark.parametrize("ab_type", ["f16", "bf16"])
def test_mma_f16_kind(a_major: str, b_major: str, swizzle: str, ab_type: str) -> None:
    a, b = small_ints((128, 16)), small_ints((16, 64))
    d, _ = run("f16", a, b, atype=ab_type, btype=ab_type, dtype="f32", a_major=a_major,
               b_major=b_major, a_swizzle=swizzle, b_swizzle=swizzle)
    np.testing.assert_array_equal(d, a @ b)


def test_mma_f16_accumulator_low_16_bits() -> None:
    a, b = small_ints((64, 16), -2, 2), small_ints((16, 32), -2, 2)
    s = Setup()
    write_d(s.tmem, s.d, "f16", np.full((64, 32), 0.5))
    d, _ = run("f16", a, b, atype="f16", btype="f16", dtype="f16", setup=s, enable_input_d=True)
    np.testing.assert_array_equal(d, a @ b + 0.5)
    cells = s.tmem.cells[:64, layouts.tmem_column(s.d):layouts.tmem_column(s.d) + 32]
    assert not (cells >> 16).any()
    np.testing.assert_array_equal(
        (cells & 0xFFFF).astype(np.uint16).view(np.float16), (a @ b + 0.5).astype(np.float16))


@pytest.mark.parametrize("swizzle", SWIZZLES_16)
def test_mma_tf32_k_major(swizzle: str) -> None:
    a, b = small_ints((128, 8)), small_ints((8, 32))
    # garbage in the 13 low mantissa bits must not change the result
    a_noisy = (a.astype(np.float32).view(np.uint32) | np.uint32(0x1FFF)).view(np.float32)
    d, _ = run("tf32", a_noisy, b, atype="tf32", btype="tf32", dtype="f32", a_swizzle=swizzle,
               b_swizzle=swizzle)
    np.testing.assert_array_equal(d, a @ b)


def test_mma_tf32_mn_major_base32b() -> None:
    a, b = small_ints((128, 8)), small_ints((8, 64))
    d, _ = run("tf32", a, b, atype="tf32", btype="tf32", dtype="f32", a_major="mn", b_major="mn",
               a_swizzle="sw128_base32b", b_swizzle="sw128_base32b")
    np.testing.assert_array_equal(d, a @ b)


F8F6F4 = ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1"]


@pytest.mark.parametrize(("atype", "btype"), list(itertools.product(F8F6F4, F8F6F4)))
def test_mma_f8f6f4_type_pairs(atype: str, btype: str) -> None:
    a, b = RNG.choice(E2M1_VALUES, (128, 32)), RNG.choice(E2M1_VALUES, (32, 16))
    d, _ = run("f8f6f4", a, b, atype=atype, btype=btype, dtype="f32")
    np.testing.assert_array_equal(d, a @ b)


@pytest.mark.parametrize(("atype", "btype"), [("e4m3", "e5m2"), ("e2m1", "e3m2")])
def test_mma_f8f6f4_f16_accumulator_is_refused(atype: str, btype: str) -> None:
    """The seed tables (PTX ISA 9.2 Table 42) give kind::f8f6f4 an f32 D only; a newer revision's
    f16 D is not accepted by default."""
    a, b = RNG.choice(E2M1_VALUES, (128, 32)), RNG.choice(E2M1_VALUES, (32, 16))
    with pytest.raises(Tcgen05ExecutionError, match=r"dtype = f16 is not a kind::f8f6f4 "
                                                     r"accumulator type; legal: f32 \[R2\]$"):
        run("f8f6f4", a, b, atype=atype, btype=btype, dtype="f16")


@pytest.mark.parametrize(("a_major", "b_major", "swizzle"),
                         [("mn", "mn", "sw128"), ("mn", "k", "sw64"), ("k", "mn", "none")])
def test_mma_f8f6f4_mn_major(a_major: str, b_major: str, swizzle: str) -> None:
    a, b = RNG.choice(E2M1_VALUES, (64, 32)), RNG.choice(E2M1_VALUES, (32, 32))
    d, _ = run("f8f6f4", a, b, atype="e4m3", btype="e2m1", dtype="f32", a_major=a_major,
               b_major=b_major, a_swizzle=swizzle, b_swizzle=swizzle)
    np.testing.assert_array_equal(d, a @ b)


@pytest.mark.parametrize(("atype", "btype"), list(itertools.product(["s8", "u8"], repeat=2)))
@pytest.mark.parametrize("b_major", ["k", "mn"])
def test_mma_i8(atype: str, btype: str, b_major: str) -> None:
    def draw(t: str, shape: tuple[int, int]) -> np.ndarray:
        return RNG.integers(-128, 128, shape) if t == "s8" else RNG.integers(0, 256, shape)

    a, b = draw(atype, (128, 32)), draw(btype, (32, 48))
    d, _ = run("i8", a, b, atype=atype, btype=btype, dtype="s32", b_major=b_major,
               b_swizzle="sw32")
    np.testing.assert_array_equal(d, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("saturate", [False, True])
def test_mma_i8_saturate_or_wrap(saturate: bool) -> None:
    a, b = np.full((128, 32), 127), np.full((32, 16), 127)
    s = Setup()
    start = np.full((128, 16), np.iinfo(np.int32).max - 1000, dtype=np.int64)
    start[64:] = np.iinfo(np.int32).min + 5  # negative rows: no overflow, sum stays exact
    write_d(s.tmem, s.d, "s32", start)
    d, _ = run("i8", a, b, atype="s8", btype="s8", dtype="s32", setup=s, enable_input_d=True,
               idesc_extra={"saturate": saturate})
    exact = start + 32 * 127 * 127
    if saturate:
        expected = np.clip(exact, np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    else:
        expected = (exact + 2**31) % 2**32 - 2**31
    np.testing.assert_array_equal(d, expected)


# ----------------------------------------------------------------------------------------------
# MMA: accumulate, scale-input-d, negate, disable-output-lane


@pytest.mark.parametrize("scale_input_d", [None, 0, 3, 15])
def test_mma_enable_and_scale_input_d(scale_input_d: int | None) -> None:
    a, b = small_ints((128, 16)), small_ints((16, 64))
    s = Setup()
    old = small_ints((128, 64), -64, 64) * 2.0**15
    write_d(s.tmem, s.d, "f32", old)
    d, _ = run("f16", a, b, atype="f16", btype="f16", dtype="f32", setup=s, enable_input_d=True,
               scale_input_d=scale_input_d)
    np.testing.assert_array_equal(d, a @ b + old * 2.0 ** -(scale_input_d or 0))


def test_mma_disable_input_d_overwrites() -> None:
    s = Setup()
    write_d(s.tmem, s.d, "f32", np.full((128, 64), 7.0))
    a, b = small_ints((128, 16)), small_ints((16, 64))
    d, _ = run("f16", a, b, atype="f16", btype="f16", dtype="f32", setup=s, enable_input_d=False)
    np.testing.assert_array_equal(d, a @ b)


@pytest.mark.parametrize(("negate_a", "negate_b"), [(True, False), (False, True), (True, True)])
def test_mma_negate(negate_a: bool, negate_b: bool) -> None:
    a, b = small_ints((128, 32)), small_ints((32, 16))
    d, _ = run("f8f6f4", a, b, atype="e4m3", btype="e5m2", dtype="f32",
               idesc_extra={"negate_a": negate_a, "negate_b": negate_b})
    sign = (-1) ** negate_a * (-1) ** negate_b
    np.testing.assert_array_equal(d, sign * (a @ b))


def test_mma_disable_output_lane() -> None:
    s = Setup()
    write_d(s.tmem, s.d, "f32", np.full((128, 64), -1.0))
    words = [0x0000_0001, 0x8000_0000, 0, 0xFFFF_0000]  # lanes 0, 63 and 112..127 disabled
    a, b = small_ints((128, 16)), small_ints((16, 64))
    d, _ = run("f16", a, b, atype="f16", btype="f16", dtype="f32", setup=s,
               disable_output_lane=words)
    disabled = np.zeros(128, dtype=bool)
    disabled[[0, 63]] = True
    disabled[112:] = True
    np.testing.assert_array_equal(d[disabled], -1.0)
    np.testing.assert_array_equal(d[~disabled], (a @ b)[~disabled])


# ----------------------------------------------------------------------------------------------
# MMA .ws: zero-column masks and column shift (PTX Table 45 examples 2-4)


def mask_columns(submasks: list[int], width: int) -> np.ndarray:
    """Full mask bits (LSB first) from the PTX-printed sub-mask values."""
    return np.array([(mask >> bit) & 1 for mask in submasks for bit in range(width)], dtype=bool)


WS_CASES = [
    # (M, N, zcmask word, sub-masks as printed by PTX, shift)
    (128, 128, 0x0003028000000000, [0x3870E1C3870E1C3870E1C3870E1C3870], 0),
    (64, 64, 0x0003028100000000, [0x70E1C387, 0x0E1C3870], 0),
    (32, 64, 0x0203028301020100,
     [0b1100001110000111, 0b1110000111000011, 0b0000111000011100, 0b0001110000111000], 2),
    (128, 64, 0x0003040000000000, [0], 0),
]


@pytest.mark.parametrize(("m", "n", "word", "submasks", "shift"), WS_CASES)
def test_mma_ws_zero_column_mask(m: int, n: int, word: int, submasks: list[int], shift: int) -> None:
    a = small_ints((m, 16))
    b_all = small_ints((16, n + shift))
    masked = mask_columns(submasks, n // len(submasks))
    d, _ = run("f16", a, b_all[:, :n], atype="f16", btype="f16", dtype="f32",
               b_extra_columns=b_all[:, n:], ws=True, zero_column_mask=word,
               idesc_extra={"max_shift": 32 if shift else 0})
    b_effective = np.where(masked[None, :], 0.0, b_all[:, shift:shift + n])
    np.testing.assert_array_equal(d, a @ b_effective)


def test_mma_ws_shift_without_mask() -> None:
    word = encode_zcmask(ZeroColumnMask(shift=8))
    a, b_all = small_ints((128, 16)), small_ints((16, 72))
    d, _ = run("f16", a, b_all[:, :64], atype="f16", btype="f16", dtype="f32",
               b_extra_columns=b_all[:, 64:], ws=True, zero_column_mask=word,
               idesc_extra={"max_shift": 8})
    np.testing.assert_array_equal(d, a @ b_all[:, 8:72])


# ----------------------------------------------------------------------------------------------
# Sparse A


def sparse_2of4(m: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dense (m, k) 2:4 matrix, its stored (m, k/2) values and metadata nibbles (m, k/4)."""
    table = list(layouts.SPARSE_2OF4_NIBBLES.items())
    choice = RNG.integers(0, len(table), (m, k // 4))
    nibbles = np.array([nib for nib, _ in table])[choice]
    stored = small_ints((m, k // 2))
    dense = np.zeros((m, k))
    for (row, group), pick in np.ndenumerate(choice):
        for slot, pos in enumerate(table[pick][1]):
            dense[row, group * 4 + pos] = stored[row, group * 2 + slot]
    return dense, stored, nibbles


@pytest.mark.parametrize("kind", ["f16", "i8"])
def test_mma_sparse_2of4(kind: str) -> None:
    k = 32 if kind == "f16" else 64
    ab = "bf16" if kind == "f16" else "s8"
    dense, stored, nibbles = sparse_2of4(128, k)
    b = small_ints((k, 64))
    s = Setup()
    meta = s.tmem.alloc(32)
    write_sparse_metadata(s.tmem, meta, nibbles)
    d, _ = run(kind, stored, b, atype=ab, btype=ab, dtype="f32" if kind == "f16" else "s32",
               setup=s, sparse=True, sparse_metadata=meta, idesc_extra={"sparse": True})
    np.testing.assert_array_equal(d, dense @ b)


def test_mma_sparse_tf32_1of2() -> None:
    m, k = 128, 16
    stored = small_ints((m, k // 2))
    second = RNG.integers(0, 2, (m, k // 2)).astype(bool)
    nibbles = np.where(second, 0b1110, 0b0100)
    dense = np.zeros((m, k))
    rows, groups = np.nonzero(np.ones((m, k // 2)))
    dense[rows, groups * 2 + second[rows, groups]] = stored[rows, groups]
    b = small_ints((k, 64))
    s = Setup()
    meta = s.tmem.alloc(32)
    write_sparse_metadata(s.tmem, meta, nibbles)
    d, _ = run("tf32", stored, b, atype="tf32", btype="tf32", dtype="f32", setup=s, sparse=True,
               sparse_metadata=meta, idesc_extra={"sparse": True})
    np.testing.assert_array_equal(d, dense @ b)


def test_mma_sparse_undefined_nibble() -> None:
    _, stored, nibbles = sparse_2of4(128, 32)
    nibbles[5, 3] = 0b0000
    s = Setup()
    meta = s.tmem.alloc(32)
    write_sparse_metadata(s.tmem, meta, nibbles)
    with pytest.raises(Tcgen05ExecutionError, match="nibble 0b0000 at row 5 group 3"):
        run("f16", stored, small_ints((32, 64)), atype="f16", btype="f16", dtype="f32", setup=s,
            sparse=True, sparse_metadata=meta, idesc_extra={"sparse": True})


# ----------------------------------------------------------------------------------------------
# Block scaling


def scaled_reference(a, b, sfa, sfb, block: int) -> np.ndarray:
    """sum over K chunks of (A_chunk * sfa) @ (B_chunk * sfb), all exact in float64."""
    total = np.zeros((a.shape[0], b.shape[1]))
    for c in range(a.shape[1] // block):
        chunk = slice(c * block, (c + 1) * block)
        total += (a[:, chunk] * sfa[:, c:c + 1]) @ (b[chunk, :] * sfb[c:c + 1, :])
    return total


BLOCK_CASES = [
    # kind, atype, btype, scale_vec, scale type, sfa_id, sfb_id, K
    ("mxf8f6f4", "e4m3", "e2m1", "1X", "ue8m0", 1, 3, 32),
    ("mxf8f6f4", "e3m2", "e5m2", None, "ue8m0", 0, 2, 32),
    ("mxf4", "e2m1", "e2m1", None, "ue8m0", 2, 0, 64),
    ("mxf4nvf4", "e2m1", "e2m1", "2X", "ue8m0", 0, 2, 64),
    ("mxf4nvf4", "e2m1", "e2m1", "4X", "ue4m3", 0, 0, 64),
    ("mxf4nvf4", "e2m1", "e2m1", "block16", "ue8m0", 0, 0, 64),
]


@pytest.mark.parametrize(("kind", "atype", "btype", "scale_vec", "scale_type", "sfa_id", "sfb_id",
                          "k"), BLOCK_CASES)
def test_mma_block_scaled(kind, atype, btype, scale_vec, scale_type, sfa_id, sfb_id, k) -> None:
    m, n = 128, 256
    block = 16 if scale_vec in ("4X", "block16") else 32
    count = k // block
    a, b = RNG.choice(E2M1_VALUES, (m, k)), RNG.choice(E2M1_VALUES, (k, n))
    if scale_type == "ue8m0":
        sfa, sfb = 2.0 ** RNG.integers(-1, 3, (m, count)), 2.0 ** RNG.integers(-1, 3, (count, n))
    else:  # ue4m3: small exact values incl. non-powers of two
        choices = np.array([0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 6])
        sfa, sfb = RNG.choice(choices, (m, count)), RNG.choice(choices, (count, n))
    s = Setup()
    sfa_at, sfb_at = s.tmem.alloc(32), s.tmem.alloc(32)
    write_scale_factors(s.tmem, sfa_at, encode_scale(sfa, scale_type), sfa_id)
    write_scale_factors(s.tmem, sfb_at, encode_scale(sfb.T, scale_type), sfb_id)
    d, _ = run(kind, a, b, atype=atype, btype=btype, dtype=None, setup=s, scale_a=sfa_at,
               scale_b=sfb_at, scale_vec=scale_vec,
               idesc_extra={"scale_type": scale_type, "sfa_id": sfa_id, "sfb_id": sfb_id})
    np.testing.assert_array_equal(d, scaled_reference(a, b, sfa, sfb, block))


def test_scale_factors_are_duplicated_in_all_quadrants() -> None:
    tmem = TensorMemory()
    at = tmem.alloc(32)
    codes = np.arange(128 * 2, dtype=np.uint8).reshape(128, 2)
    write_scale_factors(tmem, at, codes, 2)
    cells = tmem.cells.view(np.uint8).reshape(128, 512, 4)
    for row in (0, 37, 127):
        for quadrant in range(4):
            np.testing.assert_array_equal(cells[row % 32 + 32 * quadrant, row // 32, 2:4],
                                          codes[row])


# ----------------------------------------------------------------------------------------------
# A in tensor memory


@pytest.mark.parametrize(("kind", "type_name", "k"),
                         [("f16", "f16", 16), ("tf32", "tf32", 8), ("mxf4", "e2m1", 64)])
def test_tmem_operand_round_trip(kind: str, type_name: str, k: int) -> None:
    tmem = TensorMemory()
    at = tmem.alloc(64)
    values = RNG.choice(E2M1_VALUES, (128, k))
    write_tmem_operand(tmem, at, values, type_name=type_name, kind=kind)
    back = read_tmem_operand(tmem, at, type_name=type_name, kind=kind, rows=128, k=k)
    np.testing.assert_array_equal(back, values)


def test_mma_a_in_tmem() -> None:
    s = Setup()
    a_at = s.tmem.alloc(32)
    a, b = small_ints((128, 16)), small_ints((16, 64))
    write_tmem_operand(s.tmem, a_at, a, type_name="bf16", kind="f16")
    b_word = s.place(b.T, major="k", swizzle="sw32", type_name="bf16", kind="f16", start=0)
    mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_at, a_in_tmem=True, b=b_word,
        idesc=idesc_word("f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f32"),
        enable_input_d=False)
    np.testing.assert_array_equal(read_d(s.tmem, s.d, "f32", 128, 64), a @ b)


def test_encode_elements_round_trip_all_types() -> None:
    for type_name in ["f16", "bf16", "tf32", *F8F6F4]:
        values = RNG.choice(E2M1_VALUES, 50)
        np.testing.assert_array_equal(decode_elements(encode_elements(values, type_name),
                                                      type_name), values)


# ----------------------------------------------------------------------------------------------
# Runtime errors


def f16_words(s: Setup) -> tuple[int, int, int]:
    a_word = s.place(np.ones((128, 16)), major="k", swizzle="sw128", type_name="f16", kind="f16",
                     start=0)
    b_word = s.place(np.ones((64, 16)), major="k", swizzle="sw128", type_name="f16", kind="f16",
                     start=0x10000)
    return a_word, b_word, idesc_word("f16", m=128, n=64, atype="f16", btype="f16", dtype="f32")


def test_error_reserved_idesc_bit() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    with pytest.raises(Tcgen05ExecutionError, match=r"instruction descriptor, got 0x08.*reserved"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=b_word, idesc=idesc | (1 << 23),
            enable_input_d=False)


def test_error_idesc_rule_names_field() -> None:
    s = Setup()
    a_word, b_word, _ = f16_words(s)
    bad = idesc_word("f16", m=128, n=64, atype="bf16", btype="bf16", dtype="f16")
    with pytest.raises(Tcgen05ExecutionError, match=r"dtype = f16 .*\[R3\]"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=b_word, idesc=bad, enable_input_d=False)


def test_error_bad_swizzle_code() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    with pytest.raises(Tcgen05ExecutionError, match=r"A shared-memory descriptor.*swizzle = 3"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=(a_word & ~(7 << 61)) | (3 << 61), b=b_word,
            idesc=idesc, enable_input_d=False)


def test_error_base_offset_mismatch() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    bad_b = b_word | (2 << 49)
    b_start = (b_word & 0x3FFF) << 4
    # Without a known buffer, R21 cannot be judged (the pattern start is not in the descriptor).
    mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=bad_b, idesc=idesc, enable_input_d=False)
    s.smem.add_buffer(b_start, 4096)  # a buffer on the 1024-byte sw128 repeat: base offset 0
    with pytest.raises(Tcgen05ExecutionError, match=r"B shared-memory.*base_offset = 2.*\[R21\]"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=bad_b, idesc=idesc,
            enable_input_d=False)


def test_error_smem_out_of_range() -> None:
    s = Setup()
    a_word, _, idesc = f16_words(s)
    far = encode_smem_desc(SmemDesc(start=0x38000, lbo=16, sbo=1024, swizzle="sw128"))
    with pytest.raises(Tcgen05ExecutionError, match=r"operand B inside the 233472-byte"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=far, idesc=idesc, enable_input_d=False)


def test_error_tmem_use_after_dealloc() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    s.tmem.dealloc(s.d, 256)
    with pytest.raises(Tcgen05ExecutionError, match=r"D in allocated TMEM columns.*deallocated"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=b_word, idesc=idesc,
            enable_input_d=False)


def test_error_tmem_never_allocated() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    with pytest.raises(Tcgen05ExecutionError, match=r"column 256, which is not allocated"):
        mma(s.smem, s.tmem, kind="f16", d=layouts.tmem_address(0, 256), a=a_word, b=b_word,
            idesc=idesc, enable_input_d=False)


def test_error_tmem_out_of_range() -> None:
    tmem = TensorMemory()
    tmem.alloc(512)
    with pytest.raises(Tcgen05ExecutionError, match=r"lanes \[64, 192\)"):
        read_d(tmem, layouts.tmem_address(64, 0), "f32", 128, 8)


def test_tmem_alloc_rules() -> None:
    tmem = TensorMemory()
    with pytest.raises(Tcgen05ExecutionError, match="got 48"):
        tmem.alloc(48)
    first, second = tmem.alloc(256), tmem.alloc(128)
    assert (layouts.tmem_column(first), layouts.tmem_column(second)) == (0, 256)
    with pytest.raises(Tcgen05ExecutionError, match="256 free contiguous TMEM columns, got 128"):
        tmem.alloc(256)
    with pytest.raises(Tcgen05ExecutionError, match="dealloc of the 128 columns"):
        tmem.dealloc(second, 64)
    tmem.dealloc(second)
    with pytest.raises(Tcgen05ExecutionError, match="live TMEM allocation"):
        tmem.dealloc(second)
    assert layouts.tmem_column(tmem.alloc(256)) == 256


def test_error_sparse_bit_mismatch() -> None:
    s = Setup()
    a_word, b_word, idesc = f16_words(s)
    with pytest.raises(Tcgen05ExecutionError, match="sparsity bit"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=b_word, idesc=idesc, sparse=True,
            sparse_metadata=s.d, enable_input_d=False)


def test_error_cta_group_2_not_modelled() -> None:
    s = Setup()
    a_word, b_word, _ = f16_words(s)
    idesc = idesc_word("f16", m=128, n=64, atype="f16", btype="f16", dtype="f32")
    with pytest.raises(Tcgen05ExecutionError, match="cta_group::2"):
        mma(s.smem, s.tmem, kind="f16", d=s.d, a=a_word, b=b_word, idesc=idesc, cta_group=2,
            enable_input_d=False)


# ----------------------------------------------------------------------------------------------
# Interpreter functions (executor/tcgen05/functions.py) on a parsed kernel


KERNEL = """
func.func @k(%a_img: memref<4096xui8>, %b_img: memref<2048xui8>, %c: memref<128x64xf32>) {{
  %en = arith.constant false
  %idesc = tcgen05.make_idesc #tcgen05.idesc<kind = f16, dtype = f32, atype = f16, btype = f16, m = 128, n = 64>
  %a_desc = tcgen05.make_smem_desc #tcgen05.smem_desc<start = 0, lbo = 16, sbo = 256, swizzle = sw32>
  %b_base = arith.constant {b_base} : i64
  %b_start = arith.constant {b_start} : i64
  %b_desc = arith.addi %b_base, %b_start : i64
  %a = tcgen05.smem_alloc offset(0) : memref<4096xui8, #tcgen05.space<smem>>
  %b = tcgen05.smem_alloc offset(8192) : memref<2048xui8, #tcgen05.space<smem>>
  "memref.copy"(%a_img, %a) : (memref<4096xui8>, memref<4096xui8, #tcgen05.space<smem>>) -> ()
  "memref.copy"(%b_img, %b) : (memref<2048xui8>, memref<2048xui8, #tcgen05.space<smem>>) -> ()
  %d = tcgen05.alloc cta_group(1) columns(64) : memref<128x64xf32, #tcgen05.space<tmem>>
  {dealloc_early}
  tcgen05.mma kind(f16) cta_group(1) %d, %a_desc, %b_desc, %idesc, %en : memref<128x64xf32, #tcgen05.space<tmem>>, i64
  "memref.copy"(%d, %c) : (memref<128x64xf32, #tcgen05.space<tmem>>, memref<128x64xf32>) -> ()
  tcgen05.dealloc cta_group(1) %d : memref<128x64xf32, #tcgen05.space<tmem>>
  func.return
}}
"""


def kernel_inputs(dealloc_early: str = "") -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray, str]:
    a, b = small_ints((128, 16)), small_ints((16, 64))
    scratch = SharedMemory()
    write_smem_operand(scratch, SmemDesc(0, 16, 256, swizzle="sw32"), a, major="k",
                       type_name="f16", kind="f16")
    write_smem_operand(scratch, SmemDesc(0x2000, 16, 256, swizzle="sw32"), b.T, major="k",
                       type_name="f16", kind="f16")
    # B's descriptor is computed at run time: a base word plus the encoded start address.
    b_base = encode_smem_desc(SmemDesc(0, 16, 256, swizzle="sw32"))
    source = KERNEL.format(b_base=b_base, b_start=0x2000 >> 4, dealloc_early=dealloc_early)
    return scratch.data[:4096].copy(), scratch.data[0x2000:0x2800].copy(), a, b, source


def test_interpreter_runs_mma_with_runtime_descriptor() -> None:
    a_img, b_img, a, b, source = kernel_inputs()
    c = np.zeros((128, 64), np.float32)
    memory = run_kernel(source, a_img, b_img, c)
    np.testing.assert_array_equal(c, a @ b)
    assert memory.peak_bytes() == {"smem": 0x2800, "tmem": 64 * 128 * 4}


def test_interpreter_reports_use_after_dealloc_at_the_op() -> None:
    from mmair.executor.engine.errors import ExecutionError

    early = "tcgen05.dealloc cta_group(1) %d : memref<128x64xf32, #tcgen05.space<tmem>>"
    a_img, b_img, _, _, source = kernel_inputs(early)
    with pytest.raises(ExecutionError, match="deallocated") as info:
        run_kernel(source, a_img, b_img, np.zeros((128, 64), np.float32))
    assert info.value.op is not None and info.value.op.name == "tcgen05.mma"
    assert str(info.value).startswith("'tcgen05.mma' op requires D in allocated TMEM columns")
