"""Raw Ascend C parameter-form kernels (`executor/ascend/raw_kernels.py`) the mutation harness found
unpinned (docs/mutation.md, area `executor-pto`). The kernels are called through the Python API
with parameter objects the verifier never sees, so the runtime checks the verifier shadows are
exercised too. Expected values come from independent numpy formulations of the index formulas in
docs/pto-raw-params.md, written here element by element on small operands."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.engine.errors import ExecutionError
from mmair.isa.ascend import params as isa_params

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
