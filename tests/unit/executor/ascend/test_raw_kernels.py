"""The raw Ascend C parameter-form kernels (`executor/ascend/raw_kernels.py`) and their interpreter
functions (`executor/ascend/functions.py`) on values the verifier never sees: the runtime field
checks it shadows (element limits, bounds to the last byte, dstGap where it has no effect, Mmad's
12-bit sizes, 4-bit byte offsets, the nz2nz channel merge), ND2NZ with enableSmallC0, LoadData's
dec mode and b16 transpose, exact and saturating s32 Mmad, Fixpipe's index formulas and guards.
The kernels are called through the Python API with parameter objects, the functions on the one op
of a kernel whose sizes are function arguments. Expected values come from independent numpy formulations of the index formulas in
docs/pto-raw-params.md, written here element by element on small operands."""

from __future__ import annotations

import numpy as np
import pytest
from raw_testing import _args, _nz, _op

from mmair.dialects import pto
from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.ascend.functions import PtoFunctions, PtoParamsFunctions
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.isa.ascend import params as isa_params
from mmair.isa.ascend.quant import encode_quant_word

FRACTAL = 512  # bytes


def _bytes(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


# ---- shared guards ------------------------------------------------------------------------------


def test_element_limit_is_inclusive():
    rk._limit(rk.RAW_MAX_ELEMENTS, "nd2nz")  # exactly the limit is allowed
    with pytest.raises(ExecutionError, match=rf"nd2nz touches {rk.RAW_MAX_ELEMENTS + 1} elements in one "
                                             rf"instruction, more than the simulator's limit of {rk.RAW_MAX_ELEMENTS}"):
        rk._limit(rk.RAW_MAX_ELEMENTS + 1, "nd2nz")


def test_nd2nz_over_the_element_limit_is_refused_before_any_allocation():
    # 4096 x 4096 rows of 16 padded elements re-reading one source row (strides 0): 2**28 elements
    p = rk.Nd2Nz(nd_num=4096, n_value=4096, d_value=2, src_nd_matrix_stride=0, src_d_value=0,
                 dst_nz_c0_stride=0, dst_nz_n_stride=0, dst_nz_matrix_stride=0)
    with pytest.raises(ExecutionError, match=r"nd2nz touches 268435456 elements"):
        rk.nd2nz(np.zeros(16, np.float16), np.zeros(16, np.float16), p, c0=16)


def test_copy_l1_bt_reading_one_byte_past_the_source_is_refused():
    p = rk.CopyL1Bt(block_count=2, block_len=1, src_gap=0, dst_gap=0)  # bytes 0..127
    with pytest.raises(ExecutionError, match=r"src byte 127 is beyond the 127-byte src buffer"):
        rk.copy_l1_bt(_bytes(127), np.zeros(128, np.uint8), p, unit=64)
    src = _bytes(128)
    dst = np.zeros(128, np.uint8)
    rk.copy_l1_bt(src, dst, p, unit=64)  # the exact fit is legal
    assert np.array_equal(dst, src)


# ---- ND2NZ with enableSmallC0 -------------------------------------------------------------------


def test_nd2nz_small_c0_at_the_largest_d_value():
    d_value = isa_params.SMALL_C0_MAX_D
    assert d_value == 4
    nd_num, n_value, src_d = 2, 3, 5
    src = np.arange(1, nd_num * n_value * src_d + 1, dtype=np.float16)
    dst = np.full(2 * 16 + 4, -1, np.float16)
    p = rk.Nd2Nz(nd_num=nd_num, n_value=n_value, d_value=d_value, src_nd_matrix_stride=n_value * src_d,
                 src_d_value=src_d, dst_nz_c0_stride=1, dst_nz_n_stride=1, dst_nz_matrix_stride=16)
    rk.nd2nz(src, dst, p, c0=16, small_c0=True)
    expected = np.full(dst.size, -1, np.float16)
    for i in range(nd_num):
        expected[i * 16: i * 16 + 16] = 0  # 3 rows of 4 elements, zero-filled to 32 bytes
        for n in range(n_value):
            for d in range(d_value):
                expected[i * 16 + n * 4 + d] = src[i * n_value * src_d + n * src_d + d]
    assert np.array_equal(dst, expected)
    with pytest.raises(ExecutionError, match=r"enableSmallC0 requires d_value \(dValue\) <= 4, got 5"):
        rk.nd2nz(src, dst, rk.Nd2Nz(1, 1, 5, 0, 5, 1, 1, 16), c0=16, small_c0=True)


# ---- LoadData 2D --------------------------------------------------------------------------------


def test_load2d_checks_runtime_fields():
    with pytest.raises(ExecutionError, match=r"requires start_index \(startIndex\) in \[0, 65535\], got 65536"):
        rk.load2d(_bytes(FRACTAL), np.zeros(FRACTAL, np.uint8), rk.Load2D(65536, 1, 0, 0), bits=16)


def test_load2d_transpose_is_b16_only():
    with pytest.raises(ExecutionError, match=r"ifTranspose requires b16 elements, got 8-bit elements"):
        rk.load2d(_bytes(FRACTAL), np.zeros(FRACTAL, np.uint8), rk.Load2D(0, 1, 0, 0), bits=8,
                  transpose=True)


def test_load2d_dec_reaching_fractal_zero_exactly():
    src = _bytes(4 * FRACTAL, seed=1)
    dst = np.zeros(3 * FRACTAL, np.uint8)
    rk.load2d(src, dst, rk.Load2D(start_index=2, repeat_times=3, src_stride=1, dst_gap=0), bits=16,
              addr_mode=1)
    expected = np.concatenate([src[f * FRACTAL:(f + 1) * FRACTAL] for f in (2, 1, 0)])
    assert np.array_equal(dst, expected)
    with pytest.raises(ExecutionError, match=r"addrMode 1 \(dec\) reads fractal start_index - src_stride\*i"):
        rk.load2d(src, dst, rk.Load2D(start_index=1, repeat_times=3, src_stride=1, dst_gap=0), bits=16,
                  addr_mode=1)


def test_load2d_transpose_checks_runtime_fields():
    with pytest.raises(ExecutionError, match=r"requires dst_frac_gap \(dstFracGap\) in \[0, 65535\], got 65536"):
        rk.load2d_transpose(_bytes(FRACTAL), np.zeros(FRACTAL, np.uint8),
                            rk.Load2DTranspose(0, 1, 1, 0, 65536), "f16")


def test_load2d_transpose_b16_transposes_each_fractal():
    src = _bytes(2 * FRACTAL, seed=2)
    dst = np.full(3 * FRACTAL, 0xAA, np.uint8)
    p = rk.Load2DTranspose(start_index=0, repeat_times=2, src_stride=1, dst_gap=1, dst_frac_gap=0)
    rk.load2d_transpose(src, dst, p, "f16")
    words = src.view(np.uint16)
    for i in range(2):
        square = words[i * 256:(i + 1) * 256].reshape(16, 16)
        got = dst[i * 2 * FRACTAL:(i * 2 + 1) * FRACTAL].view(np.uint16).reshape(16, 16)
        assert np.array_equal(got, square.T)
        assert not np.array_equal(got, square)  # random data: the transpose is visible
    assert (dst[FRACTAL:2 * FRACTAL] == 0xAA).all()  # dstGap 1 skips one fractal


def test_load2d_v2_checks_runtime_fields():
    with pytest.raises(ExecutionError, match=r"requires dst_stride \(dstStride\) in \[0, 65535\], got 65536"):
        rk.load2d_v2(_bytes(FRACTAL), np.zeros(FRACTAL, np.uint8), rk.Load2DV2(0, 0, 1, 1, 1, 65536), bits=16)


# ---- Mmad (s8 x s8 -> s32, one fractal each: A Zz = row-major 16 x 32, B Zn = n-major, C Nz) ----


def _mmad_s8(c: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    rk.mmad(a.reshape(-1), b.T.reshape(-1), c, 16, 16, 32, lhs="s8", rhs="s8", l0a_layout="zz",
            gemv=False, init_zero=False, compute_dtype=np.dtype(np.float64))


def test_mmad_s32_accumulation_is_exact_past_f32_precision():
    a = np.ones((16, 32), np.int8)
    b = np.ones((32, 16), np.int8)
    c = np.full(256, 2**30 + 1, np.int32)  # not representable in f32
    _mmad_s8(c, a, b)
    assert (c == 2**30 + 1 + 32).all()


def test_mmad_s32_accumulation_saturates():
    a = np.ones((16, 32), np.int8)
    b = np.ones((32, 16), np.int8)
    b[:, 8:] = -1
    c = np.zeros((16, 16), np.int32)
    c[:, :8] = 2**31 - 10
    c[:, 8:] = -(2**31) + 5
    flat = c.reshape(-1).copy()  # Nz with one fractal: row-major 16 x 16
    _mmad_s8(flat, a, b)
    out = flat.reshape(16, 16)
    assert (out[:, :8] == 2**31 - 1).all()
    assert (out[:, 8:] == -(2**31)).all()


# ---- Fixpipe ------------------------------------------------------------------------------------


def test_fixpipe_nz2nz_ignores_nd_num():
    p = rk.FixpipeRaw(n_size=32, m_size=2, src_stride=3, dst_stride=4, nd_num=3, src_nd_stride=5,
                      dst_nd_stride=7)
    src, dst = rk.fixpipe_indices(p, "nz2nz", 8.0)
    m = np.arange(2)[:, None]
    c = np.arange(32)[None, :]
    assert np.array_equal(src, (c // 16) * 3 * 16 + m * 16 + c % 16)
    assert np.array_equal(dst, (c // 16) * 4 * 8 + m * 16 + c % 16)


def test_fixpipe_nz2nz_stride_must_be_whole_elements():
    p = rk.FixpipeRaw(n_size=16, m_size=1, src_stride=1, dst_stride=1)
    with pytest.raises(ExecutionError, match=r"nz2nz dstStride 1 x 32 B is not a whole number of destination"):
        rk.fixpipe_indices(p, "nz2nz", 0.5)


def test_fixpipe_channel_split_requires_nz2nz():
    p = rk.FixpipeRaw(n_size=16, m_size=1, src_stride=1, dst_stride=16)
    with pytest.raises(ExecutionError, match=r"channel split requires nz2nz, got nz2nd"):
        rk.fixpipe(np.zeros(16, np.float32), np.zeros(16, np.float32), p, "nz2nd", "none", False, None,
                   None, 8.0, channel_split=True)


def test_fixpipe_quant_vector_length():
    p = rk.FixpipeRaw(n_size=16, m_size=1, src_stride=1, dst_stride=16)
    acc = np.arange(-8, 8, dtype=np.int32)
    words = np.full(16, np.float32(2.0).view(np.uint32), np.uint64)  # scale 2, shift/offset 0
    dst = np.zeros(16, np.float16)
    with pytest.raises(ExecutionError, match=r"requires a quant vector of at least 16 words, got 15"):
        rk.fixpipe(acc, dst, p, "nz2nd", "vdeqf16", False, None, words[:15], 8.0)
    rk.fixpipe(acc, dst, p, "nz2nd", "vdeqf16", False, None, words, 8.0)  # exactly n_size words
    assert np.array_equal(dst, (acc * 2).astype(np.float16))


# The interpreter functions of the raw forms (executor/ascend/functions.py) with runtime sizes the
# verifier cannot see


LOAD_2D = ("pto.load_2d %a[%z], %b[%z] start_index %z repeat_times %one src_stride %one "
           "dst_gap %g : !pto.tile<l1, 32x32xf16, nz>, !pto.tile<l0a, 32x32xf16, {l0a}>")


@pytest.mark.parametrize(("target", "l0a"), [("a2", "zz"), ("a5", "nz")])
def test_load_2d_refuses_a_runtime_dst_gap_where_it_has_no_effect(target, l0a):
    op = _op(target, f"%a: !pto.tile<l1, 32x32xf16, nz>, %b: !pto.tile<l0a, 32x32xf16, {l0a}>, "
             "%z: index, %one: index, %g: index", LOAD_2D.format(l0a=l0a), pto.Load2DOp)
    mem = Memory(target)
    src, dst = mem.place("l1", (32, 32), "nz", "f16"), mem.place("l0a", (32, 32), l0a, "f16")
    src.physical.reshape(-1)[...] = np.arange(1024, dtype=np.float16)
    run = PtoParamsFunctions().run_load_2d

    def gap(dst_gap: int) -> tuple:
        return _args(op, src=src, src_offset=0, dst=dst, dst_offset=0, start_index=0,
                     repeat_times=1, src_stride=1, dst_gap=dst_gap)

    if target == "a5":  # LoadData2DParams dstGap is ignored on Ascend 950: a wrong kernel
        with pytest.raises(ExecutionError, match=r"^dst_gap has no effect on target a5, got 1$"):
            run(None, op, gap(1))
    else:  # a2: one fractal (512 bytes) copied to the start of L0A, the gap only spaces repeats
        run(None, op, gap(1))
        assert np.array_equal(dst.physical.reshape(-1)[:256], np.arange(256, dtype=np.float16))
        assert not dst.physical.reshape(-1)[256:].any()
    run(None, op, gap(0))  # dst_gap 0 is legal everywhere
    assert np.array_equal(dst.physical.reshape(-1)[:256], np.arange(256, dtype=np.float16))


LOAD_2D_GM = ("pto.load_2d_gm %gm[%so], %l1[%z] start_index %z repeat_times %one src_stride %one "
              "dst_gap %g : memref<1024xf16>, !pto.tile<l1, 32x32xf16, nz>")


@pytest.mark.parametrize("target", ["910", "a2"])
def test_load_2d_gm_checks_its_runtime_dst_gap_and_src_offset(target):
    # GM -> L1 LoadData has no dstGap on the 910 (`load_gm_to_cbuf` takes none); the source
    # offset addresses GM elements [0, 1024) of the buffer. Run without the sync checker, whose
    # footprints would report first: these are the executor's own checks.
    op = _op(target, "%gm: memref<1024xf16>, %l1: !pto.tile<l1, 32x32xf16, nz>, %so: index, "
             "%z: index, %one: index, %g: index", LOAD_2D_GM, pto.Load2DGmOp)
    mem = Memory(target)
    dst = mem.place("l1", (32, 32), "nz", "f16")
    gm = np.arange(1024, dtype=np.float16)
    run = PtoParamsFunctions().run_load_2d_gm

    def call(src_offset: int, dst_gap: int) -> None:
        run(None, op, _args(op, src=gm, src_offset=src_offset, dst=dst, dst_offset=0,
                            start_index=0, repeat_times=1, src_stride=1, dst_gap=dst_gap))

    if target == "910":
        with pytest.raises(ExecutionError, match=r"^requires dst_gap 0 on target 910, got 1$"):
            call(0, 1)
    else:
        call(0, 1)  # a2 has the gap: it only spaces repeats, one fractal lands at the start
        assert np.array_equal(dst.physical.reshape(-1)[:256], gm[:256])
    for bad in (-1, 1024):
        with pytest.raises(ExecutionError, match=rf"^requires src offset in \[0, 1024\), got {bad}$"):
            call(bad, 0)
    call(768, 0)  # the last whole fractal of the buffer
    assert np.array_equal(dst.physical.reshape(-1)[:256], gm[768:])


def test_4bit_tile_bytes_refuse_offsets_past_the_tile_or_inside_a_byte():
    from mmair.executor.ascend.functions import tile_bytes

    tile = Memory("a2").place("l1", (16, 64), "nz", "s4")  # 1024 elements in 512 bytes
    assert tile_bytes(tile, 1022, "dst").size == 1  # the last byte
    for bad in (-2, 1024, 3):
        with pytest.raises(ExecutionError, match=rf"^requires dst offset in \[0, 1024\) on a byte "
                                                 rf"boundary \(an even element of a 4-bit tile\), "
                                                 rf"got {bad}$"):
            tile_bytes(tile, bad, "dst")


MMAD = ("pto.mmad %a, %b, %c, %m, %n, %k : !pto.tile<l0a, 16x16xf16, zz>, "
        "!pto.tile<l0b, 16x16xf16, zn>, !pto.tile<l0c, 16x16xf32, nz>")


@pytest.mark.parametrize(("m", "n", "k", "message"), [
    (4096, 16, 16, r"^requires m in \[0, 4095\], got 4096$"),
    (16, -1, 16, r"^requires n in \[0, 4095\], got -1$"),
    (16, 16, 4096, r"^requires k in \[0, 4095\], got 4096$"),
])
def test_mmad_refuses_runtime_sizes_outside_mmad_params(m, n, k, message):
    # MmadParams m, n, k are 12-bit fields: [0, 4095] (docs/pto-raw-params.md).
    op = _op("a2", "%a: !pto.tile<l0a, 16x16xf16, zz>, %b: !pto.tile<l0b, 16x16xf16, zn>, "
             "%c: !pto.tile<l0c, 16x16xf32, nz>, %m: index, %n: index, %k: index", MMAD,
             pto.MmadOp)
    mem = Memory("a2")
    a = mem.place("l0a", (16, 16), "zz", "f16")
    b = mem.place("l0b", (16, 16), "zn", "f16")
    c = mem.place("l0c", (16, 16), "nz", "f32")
    a.physical[...] = 1
    b.physical[...] = 2
    with pytest.raises(ExecutionError, match=message):
        PtoParamsFunctions().run_mmad(None, op, (a, b, c, m, n, k))
    PtoParamsFunctions().run_mmad(None, op, (a, b, c, 16, 16, 16))  # the legal sizes: 16 * 1 * 2
    assert np.array_equal(c.physical.reshape(-1), np.full(256, 32, np.float32))


FIXPIPE_NZ2DN = (
    "pto.fixpipe_copy %c[%o], %gm n_size %n m_size %m src_stride %ss dst_stride %ds nd_num %nd "
    "src_nd_stride %snd dst_nd_stride %dnd src_nz_c0_stride %c0s {layout = \"nz2dn\"} : "
    "!pto.tile<l0c, 32x32xf32, nz>, memref<16x16xf32>")


@pytest.mark.parametrize("c0_stride", [1, 2])
def test_fixpipe_copy_nz2dn_reads_rows_src_nz_c0_stride_apart(c0_stride):
    # NZ2DN (a5): output row m of the DN matrix reads L0C at m * 16 * srcNzC0Stride elements, so
    # a stride of 2 takes every other row of the Nz source; the 16 channels are written as the
    # DN matrix's columns (dst[c * dstStride + m] = C[m * stride, c]).
    names = ("o", "n", "m", "ss", "ds", "nd", "snd", "dnd", "c0s")
    op = _op("a5", "%c: !pto.tile<l0c, 32x32xf32, nz>, %gm: memref<16x16xf32>, "
             + ", ".join(f"%{n}: index" for n in names), FIXPIPE_NZ2DN, pto.FixpipeCopyOp)
    mem = Memory("a5")
    c = mem.place("l0c", (32, 32), "nz", "f32")
    logical = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    c.physical.reshape(-1)[...] = _nz(logical)
    out = np.zeros((16, 16), np.float32)
    PtoParamsFunctions().run_fixpipe_copy(None, op, (c, 0, out, 16, 16, 32, 16, 1, 0, 0, c0_stride))
    assert np.array_equal(out, logical[0:16 * c0_stride:c0_stride, 0:16].T)


FIXPIPE_NZ2NZ_S8 = ("pto.fixpipe %c, %l1, %m, %n scalar %w {{layout = \"nz2nz\", quant = \"req8\"}} "
                    ": !pto.tile<l0c, 16x64xi32, nz>, !pto.tile<l1, 16x64x{elem}, nz>")


def test_nz2nz_fixpipe_into_an_l1_tile_merges_8_bit_channels_into_32_wide_blocks():
    # 8-bit output is channel-merged into 16 x 32 Z blocks: a runtime n of 48 leaves a 16-wide
    # last block the 32-wide fractals of the L1 tile do not hold (the verifier's rule for a
    # constant n, here at run time); n = 64 fills two blocks.
    op = _op("a2", "%c: !pto.tile<l0c, 16x64xi32, nz>, %l1: !pto.tile<l1, 16x64xi8, nz>, "
             "%m: index, %n: index, %w: i64", FIXPIPE_NZ2NZ_S8.format(elem="i8"), pto.FixpipeOp)
    mem = Memory("a2")
    c = mem.place("l0c", (16, 64), "nz", "s32")
    logical = (np.arange(16 * 64) % 100 - 50).astype(np.int32).reshape(16, 64)
    c.physical.reshape(-1)[...] = _nz(logical)
    dst = mem.place("l1", (16, 64), "nz", "s8")
    word = encode_quant_word(1.0, signed_output=True)
    with pytest.raises(ExecutionError, match=r"^requires n to be a multiple of 32 for nz2nz with "
                                             r"8-bit output \(channel merge writes 16 x 32 "
                                             r"blocks\), got 48$"):
        PtoFunctions().run_fixpipe(None, op, (c, dst, 16, 48, word))
    PtoFunctions().run_fixpipe(None, op, (c, dst, 16, 64, word))
    # two 16 x 32 Z blocks: block j holds channels 32j..32j+31 of rows 0..15, row-major
    blocks = logical.reshape(16, 2, 32).transpose(1, 0, 2).reshape(-1)
    assert np.array_equal(dst.physical.reshape(-1), blocks.astype(np.int8))


def test_copy_l1_bt_widening_turns_each_source_burst_into_wider_elements():
    # convControl f16 -> f32: two bursts of one 32-byte unit (16 halves each) become 64 bytes of
    # f32 each, placed dst_gap units apart after the wider burst; the values convert exactly.
    halves = np.arange(48, dtype=np.float16) - 20.5
    src = halves.view(np.uint8).copy()
    dst = np.zeros(4 * 16 * 4, np.uint8)
    p = rk.CopyL1Bt(block_count=2, block_len=1, src_gap=1, dst_gap=1)
    rk.copy_l1_bt(src, dst, p, unit=32, widen=(np.dtype(np.float16), np.dtype(np.float32)))
    out = dst.view(np.float32)
    np.testing.assert_array_equal(out[:16], halves[:16].astype(np.float32))  # burst 0
    np.testing.assert_array_equal(out[16:24], 0)  # the dst gap: one 32-byte unit
    np.testing.assert_array_equal(out[24:40], halves[32:48].astype(np.float32))  # src gap 32 B
