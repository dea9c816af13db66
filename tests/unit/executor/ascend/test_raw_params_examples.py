"""The worked examples of the Ascend C docs for the raw parameter forms, at the kernel level.

Each test reproduces one documented example (parameters as printed in the doc) and checks the
documented result. Expected layouts come from the fractal definitions (numpy reshapes of the
reference formulas Nz / Zz / Zn) or from the doc's own pseudo-code written out as plain loops here,
never from the kernels under test.

Sources (CANN Ascend C API docs; the same pages at gitcode.com/cann/asc-devkit
docs/zh/api/SIMD-API/基础API/矩阵计算（ISASI）/...):
* ND2NZ: "DataCopy（GMToL1随路转换-ND2NZ搬运）", sections 连续搬运 / 非连续搬运
  (hiascend.com .../ascendcopapi/ "随路转换ND2NZ搬运").
* LoadData 2D: "LoadData（2D矩阵搬运）", sections 非连续搬入 / 设置搬运起始位置 / 分形转置 and 调用示例;
  SplitA / SplitB / SplitBTranspose of examples/01_simd_cpp_api/03_basic_api/03_matrix_compute/
  load_data_l12l0/load_data_l12l0.asc.
* LoadDataWithTranspose: same example file (SplitBTransposeForS4S8, SplitBTransposeForB32).
* Fixpipe: 矩阵搬出关键特性说明 "NZ2ND", "NZ2NZ", "NZ2DN" 使用示例; GEMV: "GEMV" feature page and
  examples/.../mmad_gemv/mmad_gemv.asc (M = 1, K = 256, N = 32, half x half -> float).
"""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.ascend import raw_kernels as rk
from mmair.executor.engine.errors import ExecutionError
from mmair.isa.ascend import params as isa_params


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def nz(x: np.ndarray, c0: int, rows: int | None = None) -> np.ndarray:
    """Nz of X[R, C] (shape C1, R1, 16, c0), rows padded to `rows` (default ceil(R/16)*16)."""
    r, c = x.shape
    rp, cp = rows or cdiv(r, 16) * 16, cdiv(c, c0) * c0
    p = np.zeros((rp, cp), x.dtype)
    p[:r, :c] = x
    return p.reshape(rp // 16, 16, cp // c0, c0).transpose(2, 0, 1, 3)


def zz(x: np.ndarray, c0: int) -> np.ndarray:
    r, c = x.shape
    rp, cp = cdiv(r, 16) * 16, cdiv(c, c0) * c0
    p = np.zeros((rp, cp), x.dtype)
    p[:r, :c] = x
    return p.reshape(rp // 16, 16, cp // c0, c0).transpose(0, 2, 1, 3)


def zn(b: np.ndarray, k0: int) -> np.ndarray:
    """Zn of B[K, N]: shape (K1, N1, 16, K0), element (k, n) at (k//K0, n//16, n%16, k%K0)."""
    k, n = b.shape
    kp, np_ = cdiv(k, k0) * k0, cdiv(n, 16) * 16
    p = np.zeros((kp, np_), b.dtype)
    p[:k, :n] = b
    return p.reshape(kp // k0, k0, np_ // 16, 16).transpose(0, 2, 3, 1)


def as_bytes(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8)


# ------------------------------------------------------------------------------------------------
# ND2NZ
# ------------------------------------------------------------------------------------------------


def test_nd2nz_contiguous_example():
    """连续搬运 (half): {ndNum 1, nValue 16, dValue 23, srcNdMatrixStride 0, srcDValue 32,
    dstNzC0Stride 16, dstNzNStride 1, dstNzMatrixStride 0}: the 16 x 23 matrix in a 32-wide GM
    buffer becomes Nz in L1, columns 23..31 of the second C0 block zero-filled."""
    gm = np.arange(16 * 32, dtype=np.float16)
    dst = np.full(1024, -1, np.float16)
    rk.nd2nz(gm, dst, rk.Nd2Nz(1, 16, 23, 0, 32, 16, 1, 0), c0=16)
    x = gm.reshape(16, 32)[:, :23]
    np.testing.assert_array_equal(dst[:512], nz(x, 16).reshape(-1))
    assert np.all(dst[256 + 7 : 512 : 16] == 0)  # the zero tail: column 23 of each row
    assert np.all(dst[512:] == -1)  # nothing beyond two fractals is written


def test_nd2nz_noncontiguous_example():
    """非连续搬运 (half): {2, 8, 23, 384, 32, 37, 2, 320}: two 8 x 23 matrices 12 GM rows apart;
    in L1 rows are 2 C0 apart, column blocks 37 C0 apart, the second matrix 320 elements later."""
    gm = np.arange(2 * 384, dtype=np.float32).astype(np.float16)
    dst = np.full(2048, -1, np.float16)
    rk.nd2nz(gm, dst, rk.Nd2Nz(2, 8, 23, 384, 32, 37, 2, 320), c0=16)
    expect = np.full(2048, -1, np.float16)
    for i in range(2):  # the CCE copy_gm_to_cbuf_multi_nd2nz loop, written out
        for n in range(8):
            for d in range(32):
                v = gm[i * 384 + n * 32 + d] if d < 23 else 0
                expect[i * 320 + (d // 16) * 37 * 16 + n * 2 * 16 + d % 16] = v
    np.testing.assert_array_equal(dst, expect)
    # documented facts: matrix 1 row 0 starts at element 320 with GM row 12; gaps stay untouched
    assert dst[320] == gm[384] and dst[16] == -1


def test_nd2nz_zero_stride_rereads_and_limits():
    gm = np.arange(64, dtype=np.float16)
    dst = np.full(1024, -1, np.float16)
    # srcNdMatrixStride 0: every matrix copies matrix 0
    rk.nd2nz(gm, dst, rk.Nd2Nz(2, 1, 16, 0, 16, 1, 1, 256), c0=16)
    np.testing.assert_array_equal(dst[256:272], gm[:16])
    with pytest.raises(ExecutionError, match="src element 79 is beyond the 64-element src"):
        rk.nd2nz(gm, dst, rk.Nd2Nz(2, 1, 16, 64, 16, 1, 1, 0), c0=16)


# ------------------------------------------------------------------------------------------------
# DN2NZ and SmallC0 (Ascend 950): "DataCopy（GMToL1随路转换-DN2NZ搬运）"
# ------------------------------------------------------------------------------------------------


def test_dn2nz_contiguous_example():
    """连续搬运 (half): {dnNum 1, nValue 16, dValue 23, srcDnMatrixStride 0, srcDValue 16,
    dstNzC0Stride 16, dstNzNStride 1, dstNzMatrixStride 0}: the 23 x 16 DN source (23 rows of 16)
    becomes the Nz of its transpose (16 rows, 23 columns zero-filled to 32)."""
    gm = np.arange(23 * 16, dtype=np.float16)
    dst = np.full(1024, -1, np.float16)
    rk.nd2nz(gm, dst, rk.Nd2Nz(1, 16, 23, 0, 16, 16, 1, 0), c0=16, dn=True)
    s = gm.reshape(23, 16)
    np.testing.assert_array_equal(dst[:512], nz(s.T, 16).reshape(-1))
    assert np.all(dst[512:] == -1)


def test_dn2nz_noncontiguous_example():
    """非连续搬运 (half): {2, 8, 23, 400, 16, 37, 2, 320}: two DN matrices 25 source rows apart
    (16 x 25 = 400 elements); NZ rows 2 C0 apart, C0 blocks 37 C0 apart, matrices 320 apart."""
    gm = np.arange(2 * 400, dtype=np.float32).astype(np.float16)
    dst = np.full(2048, -1, np.float16)
    rk.nd2nz(gm, dst, rk.Nd2Nz(2, 8, 23, 400, 16, 37, 2, 320), c0=16, dn=True)
    expect = np.full(2048, -1, np.float16)
    for i in range(2):  # the doc's description, written out: source column n is NZ row n
        for n in range(8):
            for d in range(32):
                v = gm[i * 400 + d * 16 + n] if d < 23 else 0
                expect[i * 320 + (d // 16) * 37 * 16 + n * 2 * 16 + d % 16] = v
    np.testing.assert_array_equal(dst, expect)


def test_dn2nz_transposed_a_sample():
    """调用示例 (data_copy_gm2l1 scenario 3): A [m 40, k 56] half stored transposed in GM (56 x 40);
    {dnNum 1, nValue m, dValue k, 0, srcDValue m, dstNzC0Stride CeilAlign(m, 16), 1, 0} gives the
    Nz of A with rows padded to 48."""
    m, k = 40, 56
    a = np.random.default_rng(8).standard_normal((m, k)).astype(np.float16)
    dst = np.full(48 * 64, -1, np.float16)
    rk.nd2nz(np.ascontiguousarray(a.T).reshape(-1), dst, rk.Nd2Nz(1, m, k, 0, m, 48, 1, 0), c0=16,
             dn=True)
    got = dst.reshape(4, 48, 16)[:, :m, :]  # rows 40..47 of each C0 column are not written
    np.testing.assert_array_equal(got, nz(a, 16, rows=48).reshape(4, 48, 16)[:, :m, :])
    assert np.all(dst.reshape(4, 48, 16)[:, m:, :] == -1)


@pytest.mark.parametrize("dn", [False, True])
def test_small_c0(dn):
    """enableSmallC0 (dValue 3 <= 4, half): each of the 5 rows n takes 4 elements (d tail zero),
    and the 20-element matrix is zero-filled to 32 elements (64 bytes, a whole 32-byte block);
    the second matrix (dstNzMatrixStride 32) likewise. The C0 / N strides are not used."""
    rng = np.random.default_rng(9)
    mats = [rng.standard_normal((5, 3)).astype(np.float16) for _ in range(2)]  # (n, d) views
    src = np.concatenate([(x.T if dn else x).reshape(-1) for x in mats])  # matrices 15 apart
    dst = np.full(96, -1, np.float16)
    pitch = 5 if dn else 3
    rk.nd2nz(src, dst, rk.Nd2Nz(2, 5, 3, 15, pitch, 99, 99, 32), c0=16, dn=dn, small_c0=True)
    for i, x in enumerate(mats):
        block = np.zeros(32, np.float16)
        block[:20] = np.pad(x, ((0, 0), (0, 1))).reshape(-1)
        np.testing.assert_array_equal(dst[i * 32 : i * 32 + 32], block)
    assert np.all(dst[64:] == -1)
    with pytest.raises(ExecutionError, match=r"enableSmallC0 requires d_value \(dValue\) <= 4, got 5"):
        rk.nd2nz(src, dst, rk.Nd2Nz(1, 2, 5, 0, 5, 1, 1, 0), c0=16, dn=dn, small_c0=True)


# ------------------------------------------------------------------------------------------------
# LoadData 2D
# ------------------------------------------------------------------------------------------------


def fractals(count: int, elem=np.float32) -> np.ndarray:
    """`count` 512-byte fractals; fractal f holds the value f everywhere (b32: 128 elements)."""
    per = 512 // np.dtype(elem).itemsize
    return np.repeat(np.arange(count), per).astype(elem)


def dst_fractal_ids(dst: np.ndarray, elem=np.float32) -> list[int]:
    per = 512 // np.dtype(elem).itemsize
    return [int(v) for v in dst.reshape(-1, per)[:, 0]]


@pytest.mark.parametrize(
    ("start", "repeat", "src_stride", "dst_gap", "calls", "src_step", "dst_step", "expect"),
    [
        # 非连续搬入: 4 float fractals, srcStride 2, dstGap 2 -> dst slots 0, 3, 6, 9
        (0, 4, 2, 2, 1, 0, 0, [0, -1, -1, 2, -1, -1, 4, -1, -1, 6]),
        # 6 float fractals, 3 calls (src +2 fractals, dst +1 fractal), repeat 2, srcStride 1, dstGap 2
        (0, 2, 1, 2, 3, 2, 1, [0, 2, 4, 1, 3, 5]),
        # 8 float fractals to L0B, 2 calls (src +1, dst +1), repeat 4, srcStride 2, dstGap 1
        (0, 4, 2, 1, 2, 1, 1, [0, 1, 2, 3, 4, 5, 6, 7]),
        # 设置搬运起始位置: startIndex 1, repeat 4, srcStride 2, dstGap 2
        (1, 4, 2, 2, 1, 0, 0, [1, -1, -1, 3, -1, -1, 5, -1, -1, 7]),
    ],
)
def test_load2d_doc_examples(start, repeat, src_stride, dst_gap, calls, src_step, dst_step, expect):
    src = as_bytes(fractals(16))
    dst_vals = np.full(len(expect) * 128, -1, np.float32)
    dst = dst_vals.view(np.uint8)
    for c in range(calls):
        rk.load2d(src[c * src_step * 512 :], dst[c * dst_step * 512 :],
                  rk.Load2D(start, repeat, src_stride, dst_gap), bits=32)
    assert dst_fractal_ids(dst_vals) == expect


@pytest.mark.parametrize(
    ("repeat", "src_stride", "dst_gap", "calls", "expect"),
    [
        (2, 2, 2, 1, [(0, 0), (3, 2)]),  # 分形转置 example 1: dst slot <- transposed src fractal
        (3, 2, 1, 2, [(0, 0), (2, 2), (4, 4), (1, 1), (3, 3), (5, 5)]),  # example 2, 2 calls
    ],
)
def test_load2d_transpose_doc_examples(repeat, src_stride, dst_gap, calls, expect):
    src_vals = np.arange(6 * 256, dtype=np.int16)
    dst_vals = np.full(6 * 256, -1, np.int16)
    for c in range(calls):
        rk.load2d(as_bytes(src_vals)[c * 512 :], dst_vals.view(np.uint8)[c * 512 :],
                  rk.Load2D(0, repeat, src_stride, dst_gap), bits=16, transpose=True)
    for d, s in expect:
        np.testing.assert_array_equal(
            dst_vals[d * 256 : (d + 1) * 256].reshape(16, 16), src_vals[s * 256 : (s + 1) * 256].reshape(16, 16).T
        )


def test_splita_nz_to_zz():
    """调用示例一 / SplitA (half, m = 40, k = 56): Nz of A in L1 (ND2NZ with dstNzC0Stride =
    CeilAlign(m, 16)) -> for i < ceil(m/16): LoadData(a2[i*K1*256], a1[i*256], {repeat K1,
    srcStride M1}) gives Zz of A in L0A."""
    m, k = 40, 56
    m1, k1 = cdiv(m, 16), cdiv(k, 16)
    a = (np.arange(m * k) % 2000).astype(np.float16).reshape(m, k)
    l1 = np.zeros(m1 * k1 * 256, np.float16)
    rk.nd2nz(a.reshape(-1), l1, rk.Nd2Nz(1, m, k, 0, k, m1 * 16, 1, 0), c0=16)
    np.testing.assert_array_equal(l1, nz(a, 16).reshape(-1))
    l0a = np.zeros(m1 * k1 * 256, np.float16)
    for i in range(m1):
        rk.load2d(as_bytes(l1)[i * 512 :], l0a.view(np.uint8)[i * k1 * 512 :],
                  rk.Load2D(0, k1, m1, 0), bits=16)
    np.testing.assert_array_equal(l0a, zz(a, 16).reshape(-1))


def test_splita_transposed_b16():
    """调用示例二 / SplitATransposeForB16: L1 holds Nz of A^T[k, m]; for i < ceil(m/16):
    LoadData(a2[i*K1*256], a1[i*K1*256], {repeat K1, srcStride 1, ifTranspose}) -> Zz of A."""
    m, k = 40, 56
    m1, k1 = cdiv(m, 16), cdiv(k, 16)
    a = (np.arange(m * k) % 1500).astype(np.float16).reshape(m, k)
    l1 = nz(a.T.copy(), 16).reshape(-1)
    l0a = np.zeros(m1 * k1 * 256, np.float16)
    for i in range(m1):
        rk.load2d(as_bytes(l1)[i * k1 * 512 :], l0a.view(np.uint8)[i * k1 * 512 :],
                  rk.Load2D(0, k1, 1, 0), bits=16, transpose=True)
    np.testing.assert_array_equal(l0a, zz(a, 16).reshape(-1))


def test_splitb_variants_b16():
    """SplitB (B given transposed: Nz of B^T is already Zn, repeat N1, srcStride 1) and
    SplitBTransposeForB16 (Nz of B: for i < K1, LoadData(b2[i*N1*256], b1[i*256], {repeat N1,
    srcStride K1, ifTranspose})) both give Zn of B in L0B."""
    k, n = 48, 40
    k1, n1 = cdiv(k, 16), cdiv(n, 16)
    b = (np.arange(k * n) % 999).astype(np.float16).reshape(k, n)
    want = zn(b, 16).reshape(-1)
    l1_bt = nz(b.T.copy(), 16, rows=n1 * 16).reshape(-1)
    l0b = np.zeros(k1 * n1 * 256, np.float16)
    for i in range(k1):
        rk.load2d(as_bytes(l1_bt)[i * n1 * 512 :], l0b.view(np.uint8)[i * n1 * 512 :],
                  rk.Load2D(0, n1, 1, 0), bits=16)
    np.testing.assert_array_equal(l0b, want)
    l1_b = nz(b, 16).reshape(-1)
    l0b[:] = 0
    for i in range(k1):
        rk.load2d(as_bytes(l1_b)[i * 512 :], l0b.view(np.uint8)[i * n1 * 512 :],
                  rk.Load2D(0, n1, k1, 0), bits=16, transpose=True)
    np.testing.assert_array_equal(l0b, want)


def test_load_with_transpose_s8_splitb():
    """SplitBTransposeForS4S8 (int8, Nz of B[k, n] in L1): for i < ceil(k/32):
    LoadDataWithTranspose(b2[i*dstOffset], b1[i*1024], {repeat n/32, srcStride ceil(k/32),
    dstGap 1, dstFracGap 0}) with dstOffset = ceil(n/32)*1024 gives Zn of B (K0 = 32)."""
    k, n = 64, 64
    b = (np.arange(k * n) % 251 - 125).astype(np.int8).reshape(k, n)
    l1 = nz(b, 32).reshape(-1)
    l0b = np.zeros(k * n, np.int8)
    p = rk.Load2DTranspose(0, cdiv(n, 32), cdiv(k, 32), 1, 0)
    for i in range(cdiv(k, 32)):
        rk.load2d_transpose(as_bytes(l1)[i * 1024 :], l0b.view(np.uint8)[i * cdiv(n, 32) * 1024 :], p, "s8")
    np.testing.assert_array_equal(l0b, zn(b, 32).reshape(-1))


def test_load_with_transpose_b32_splitb():
    """SplitBTransposeForB32 (float, B staged Zz in L1 by the Nd2Zz ND2NZ): for i < ceil(k/16):
    LoadDataWithTranspose(b2[i*N1*2*128], b1[i*srcOffset], {repeat n/16, srcStride 1, dstGap 0,
    dstFracGap N1 - 1}) gives Zn of B (K0 = 8)."""
    k, n = 32, 48
    n1 = cdiv(n, 16)
    b = np.arange(k * n, dtype=np.float32).reshape(k, n)
    l1 = np.zeros(k * n, np.float32)
    # the Nd2Zz staging of the example: ndNum ceil(k/16) ND matrices of 16 rows
    rk.nd2nz(b.reshape(-1), l1, rk.Nd2Nz(cdiv(k, 16), 16, n, 16 * n, n, 16, 1, 16 * n), c0=8)
    np.testing.assert_array_equal(l1, zz(b, 8).reshape(-1))
    l0b = np.zeros(k * n, np.float32)
    src_off = cdiv(n, 16) * 2 * 128  # CeilDivision(n, 8 * 2) * fractalSize * fractalNum
    p = rk.Load2DTranspose(0, cdiv(n, 16), 1, 0, n1 - 1)
    for i in range(cdiv(k, 16)):
        rk.load2d_transpose(as_bytes(l1)[i * src_off * 4 :], l0b.view(np.uint8)[i * n1 * 2 * 512 :], p, "f32")
    np.testing.assert_array_equal(l0b, zn(b, 8).reshape(-1))


# ------------------------------------------------------------------------------------------------
# LoadData2DParamsV2 (Ascend 950): "LoadData（2D矩阵搬运V2）" and the load_data_2dv2_l12l0 sample
# ------------------------------------------------------------------------------------------------


def test_load2d_v2_doc_example():
    """The structure example (half, no transpose): {mStartPosition 2, kStartPosition 2, mStep 2,
    kStep 3, srcStride 5, dstStride 3}: the first fractal read is 2 * 5 + 2 = 12 (the doc's
    "thirteenth"); source fractal (k1, m1) = (2 + j) * 5 + 2 + i lands at j * 3 + i."""
    src = fractals(40, np.float16)
    dst = np.full(9 * 256, -1, np.float16)
    rk.load2d_v2(as_bytes(src), dst.view(np.uint8), rk.Load2DV2(2, 2, 2, 3, 5, 3), bits=16)
    assert dst_fractal_ids(dst, np.float16) == [12, 13, -1, 17, 18, -1, 22, 23, -1]


def nz_padded(x: np.ndarray, c0: int, rows: int, cols: int) -> np.ndarray:
    """Nz of X zero-padded to [rows, cols] (fractal (r1, c1) at c1 * rows/16 + r1)."""
    p = np.zeros((rows, cols), x.dtype)
    p[: x.shape[0], : x.shape[1]] = x
    return p.reshape(rows // 16, 16, cols // c0, c0).transpose(2, 0, 1, 3).reshape(-1)


def align(x: int, a: int) -> int:
    return cdiv(x, a) * a


@pytest.mark.parametrize("elem", [np.int8, np.float16, np.float32])
@pytest.mark.parametrize("a_t, b_t", [(False, True), (True, False)])
def test_load2d_v2_sample(elem, a_t, b_t):
    """load_data_2dv2_l12l0.asc ([m, n, k] = [40, 50, 70]; scenarios 1-6: int8, half, float, A plain
    with B given as [n, k], or A given as [k, m] with B plain). L1 holds the Nz of the GM matrix
    with the sample's alignments; one LoadData with the sample's LoadData2DParamsV2 gives L0A = Nz
    of A (a5) and L0B = Zn of B (the Nz of B^T), transposing on the way where the GM matrix is the
    other way round."""
    m, n, k = 40, 50, 70
    size = np.dtype(elem).itemsize
    c0, num = 32 // size, {1: 2, 2: 1, 4: 2}[size]  # fractalShape[1], fractalNum
    rng = np.random.default_rng(size)
    a = rng.integers(-50, 50, (m, k)).astype(elem)
    b = rng.integers(-50, 50, (k, n)).astype(elem)
    bits = size * 8
    if not a_t:  # L1 [mAlignL1, kaAlignL1] = Nz of A
        m_l1, k_l1, m_l0 = align(m, 16), align(k, c0), align(m, 16)
        l1a = nz_padded(a, c0, m_l1, k_l1)
        p = rk.Load2DV2(0, 0, m_l1 // 16, k_l1 // c0, m_l1 // 16, m_l0 // 16)
        k_l0 = k_l1
    else:  # L1 [kaAlignL1, mAlignL1] = Nz of A^T, transposed on the way
        if size == 4:
            k_l1, m_l1, m_l0, k_l0 = align(k, 16), align(m, c0 * num), align(m, 16), align(k, 16)
        else:
            k_l1, m_l1 = align(k, 16 * num), align(m, c0)
            m_l0, k_l0 = align(m, 16 * num), align(k, c0)
        l1a = nz_padded(np.ascontiguousarray(a.T), c0, k_l1, m_l1)
        p = rk.Load2DV2(0, 0, k_l1 // 16, m_l1 // c0, k_l1 // 16, m_l0 // 16)
    l0a = np.zeros(m_l0 * k_l0, elem)
    rk.load2d_v2(as_bytes(l1a), l0a.view(np.uint8), p, bits, transpose=a_t)
    np.testing.assert_array_equal(l0a, nz_padded(a, c0, m_l0, k_l0))
    if b_t:  # L1 [nAlignL1, kbAlignL1] = Nz of B^T: already Zn
        n_l1, k_l1, n_l0 = align(n, 16), align(k, c0), align(n, 16)
        l1b = nz_padded(np.ascontiguousarray(b.T), c0, n_l1, k_l1)
        p = rk.Load2DV2(0, 0, n_l1 // 16, k_l1 // c0, n_l1 // 16, n_l0 // 16)
        k_l0 = k_l1
    else:  # L1 [kbAlignL1, nAlignL1] = Nz of B, transposed on the way
        if size == 4:
            k_l1, n_l1, n_l0, k_l0 = align(k, 16), align(n, c0 * num), align(n, 16), align(k, 16)
        else:
            k_l1, n_l1 = align(k, 16 * num), align(n, c0)
            n_l0, k_l0 = align(n, 16 * num), align(k, c0)
        l1b = nz_padded(b, c0, k_l1, n_l1)
        p = rk.Load2DV2(0, 0, k_l1 // 16, n_l1 // c0, k_l1 // 16, n_l0 // 16)
    l0b = np.zeros(n_l0 * k_l0, elem)
    rk.load2d_v2(as_bytes(l1b), l0b.view(np.uint8), p, bits, transpose=not b_t)
    np.testing.assert_array_equal(l0b, nz_padded(np.ascontiguousarray(b.T), c0, n_l0, k_l0))
    # Zn of B (the Mmad's L0B layout) is this Nz of B^T
    np.testing.assert_array_equal(zn(b, c0).reshape(-1),
                                  nz_padded(np.ascontiguousarray(b.T), c0, align(n, 16), align(k, c0)))


def test_load2d_v2_transpose_multiples():
    src = np.zeros(8 * 512, np.uint8)
    with pytest.raises(ExecutionError, match="ifTranspose of b8 requires m_step to be a multiple of 2, got 1"):
        rk.load2d_v2(src, np.zeros(4096, np.uint8), rk.Load2DV2(0, 0, 1, 1, 1, 1), 8, True)
    with pytest.raises(ExecutionError, match="ifTranspose of b32 requires k_step to be a multiple of 2, got 3"):
        rk.load2d_v2(src, np.zeros(4096, np.uint8), rk.Load2DV2(0, 0, 1, 3, 1, 1), 32, True)


# ------------------------------------------------------------------------------------------------
# Fixpipe
# ------------------------------------------------------------------------------------------------


def test_fixpipe_nz2nd_example():
    """NZ2ND 使用示例: two 48 x 32 f32 NZ matrices in L0C -> ND, {ndNum 2, nSize 32, mSize 48,
    srcStride 64, dstStride 64, srcNdStride 256 (C0_Size units), dstNdStride 4096}."""
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal((48, 32)).astype(np.float32) for _ in range(2)]
    l0c = np.zeros(2 * 4096, np.float32)
    for i, c in enumerate(mats):  # Nz with 64-row column blocks (srcStride 64), 256 C0 apart
        l0c[i * 4096 : i * 4096 + 2048] = nz(c, 16, rows=64).reshape(-1)
    gm = np.full(2 * 4096, np.nan, np.float32)
    p = rk.FixpipeRaw(n_size=32, m_size=48, src_stride=64, dst_stride=64, nd_num=2,
                      src_nd_stride=256, dst_nd_stride=4096)
    rk.fixpipe(l0c, gm, p, "nz2nd", "none", False, None, None, 8)
    for i, c in enumerate(mats):
        got = gm[i * 4096 : i * 4096 + 48 * 64].reshape(48, 64)
        np.testing.assert_array_equal(got[:, :32], c)
        assert np.all(np.isnan(got[:, 32:]))  # the rest of each 64-element row is untouched


def test_fixpipe_nz2nz_example_v220_and_a5():
    """NZ2NZ 使用示例 (24 x 48, srcStride 64): on 2201 dstStride = 40 in 32 B units, on 3510
    dstStride = 40 * 16 in elements; here f32 -> f16 (F322F16), so both mean 640 elements."""
    rng = np.random.default_rng(2)
    c = rng.standard_normal((24, 48)).astype(np.float32)
    l0c = nz(c, 16, rows=64).reshape(-1).copy()
    for dst_stride, unit_elements in ((40, 16), (40 * 16, 1)):  # V220: 32 B = 16 f16; 3510: 1
        p = rk.FixpipeRaw(n_size=48, m_size=24, src_stride=64, dst_stride=dst_stride)
        gm = np.full(3 * 40 * 16, np.nan, np.float16)
        rk.fixpipe(l0c, gm, p, "nz2nz", "f322f16", False, None, None, unit_elements)
        step = 640
        for j in range(3):
            np.testing.assert_array_equal(
                gm[j * step : j * step + 24 * 16].reshape(24, 16), c[:, j * 16 : (j + 1) * 16].astype(np.float16)
            )


def test_fixpipe_nz2dn_example():
    """NZ2DN 使用示例 (a5): {dnNum 2, nSize 32, mSize 48, srcStride 80, dstStride 80,
    srcNzMatrixStride 240, dstDnMatrixStride 48 * 80, srcNzC0Stride 1}: C^T rows of 80 elements."""
    rng = np.random.default_rng(3)
    mats = [rng.standard_normal((48, 32)).astype(np.float32) for _ in range(2)]
    l0c = np.zeros(2 * 240 * 16, np.float32)
    for h, c in enumerate(mats):
        l0c[h * 3840 : h * 3840 + 2 * 80 * 16] = nz(c, 16, rows=80).reshape(-1)
    gm = np.full(2 * 3840, np.nan, np.float32)
    p = rk.FixpipeRaw(n_size=32, m_size=48, src_stride=80, dst_stride=80, nd_num=2,
                      src_nd_stride=240, dst_nd_stride=48 * 80, src_nz_c0_stride=1)
    rk.fixpipe(l0c, gm, p, "nz2dn", "none", False, None, None, 1)
    for h, c in enumerate(mats):
        got = gm[h * 3840 : h * 3840 + 32 * 80].reshape(32, 80)
        np.testing.assert_array_equal(got[:, :48], c.T)


@pytest.mark.parametrize("v220", [True, False])
def test_fixpipe_channel_split_sample_scenario7(v220):
    """fixpipe_l0c2gm.asc scenario 7 (F32 Channel Split, M 128 x N 256 f32 -> f32 NZ to GM):
    nSize = CeilAlign(N, 8), mSize = M, srcStride = CeilAlign(M, 16), dstStride = M * 8 * 4 / 32
    (2201, 32-byte units) or M * 8 (3510, elements). The sample's golden is
    C.reshape(M/16, 16, N/8, 8).transpose(2, 0, 1, 3): 16 x 8 blocks, column blocks M * 8 apart."""
    m, n = 128, 256
    rng = np.random.default_rng(5)
    c = rng.standard_normal((m, n)).astype(np.float32)
    l0c = nz(c, 16).reshape(-1).copy()
    golden = c.reshape(m // 16, 16, n // 8, 8).transpose(2, 0, 1, 3).reshape(-1)
    dst_stride, unit = (m * 8 * 4 // 32, 8) if v220 else (m * 8, 1)
    p = rk.FixpipeRaw(n_size=n, m_size=m, src_stride=m, dst_stride=dst_stride)
    gm = np.full(m * n, np.nan, np.float32)
    rk.fixpipe(l0c, gm, p, "nz2nz", "none", False, None, None, unit, channel_split=True)
    np.testing.assert_array_equal(gm, golden)


def test_fixpipe_channel_split_with_dirty_columns():
    """F32-Channel-Split.md figure 2: a [64, 24] source (two 16-column L0C fractal columns, the
    second half dirty) becomes 3 columns of 16 x 8 blocks; nSize 24 is a multiple of 8."""
    rng = np.random.default_rng(6)
    c = rng.standard_normal((64, 32)).astype(np.float32)
    l0c = nz(c, 16).reshape(-1).copy()
    gm = np.full(3 * 64 * 8 + 8, np.nan, np.float32)
    p = rk.FixpipeRaw(n_size=24, m_size=64, src_stride=64, dst_stride=64)  # 2201: 64 x 32 B
    rk.fixpipe(l0c, gm, p, "nz2nz", "none", False, None, None, 8, channel_split=True)
    np.testing.assert_array_equal(gm[: 3 * 512], nz(c[:, :24], 8).reshape(-1))
    assert np.isnan(gm[3 * 512 :]).all()  # nothing past the third block column
    with pytest.raises(ExecutionError, match="multiple of 8 for nz2nz, got 20"):
        rk.fixpipe(l0c, gm, rk.FixpipeRaw(20, 64, 64, 64), "nz2nz", "none", False, None, None, 8,
                   channel_split=True)


@pytest.mark.parametrize("v220", [True, False])
def test_fixpipe_int8_channel_merge_example(v220):
    """Int8-Channel-Merge.md example (s8, M 32, N 48): the first two 16 x 16 fractals merge into
    one 16 x 32 block; the odd last 16 channels stay a 16 x 16 block, one column-block stride
    later (dstStride 2 x 32 B on 2201 = 64 elements on 3510, exactly the merged block)."""
    rng = np.random.default_rng(7)
    c = rng.integers(-100, 100, (32, 48)).astype(np.int32)
    l0c = nz(c, 16).reshape(-1).copy()
    dst_stride, unit = (32, 32) if v220 else (32 * 32, 1)  # one merged block column: 32 rows x 32
    gm = np.full(32 * 48, 77, np.int8)
    p = rk.FixpipeRaw(n_size=48, m_size=32, src_stride=32, dst_stride=dst_stride)
    rk.fixpipe(l0c, gm, p, "nz2nz", "none", False, None, None, unit)
    np.testing.assert_array_equal(gm[:1024], nz(c[:, :32], 32).reshape(-1).astype(np.int8))
    np.testing.assert_array_equal(gm[1024:], nz(c[:, 32:], 16).reshape(-1).astype(np.int8))
    even = np.full(32 * 64, 77, np.int8)  # N = 64: two merged blocks, no 16-wide tail
    c64 = rng.integers(-100, 100, (32, 64)).astype(np.int32)
    rk.fixpipe(nz(c64, 16).reshape(-1).copy(), even, rk.FixpipeRaw(64, 32, 32, dst_stride), "nz2nz",
               "none", False, None, None, unit)
    np.testing.assert_array_equal(even, nz(c64, 32).reshape(-1).astype(np.int8))


def test_isa_fixpipe_nz_block_cols():
    assert isa_params.fixpipe_nz_block_cols(32, True) == 8
    assert [isa_params.fixpipe_nz_block_cols(b, False) for b in (32, 16, 8, 4)] == [16, 16, 32, 64]


# ------------------------------------------------------------------------------------------------
# GEMV: the mmad_gemv example end to end in raw forms
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target_arch", ["2201", "3510"])
def test_mmad_gemv_example(target_arch):
    """mmad_gemv.asc (M = 1, K = 256, N = 32, half -> float): A staged as a vector (ND2NZ with
    nValue 1, dstNzC0Stride 1), one LoadData of ceil(K/256) fractals, B^T[N, K] staged Nz (already
    Zn), Mmad m = 1 (GEMV: L0A read as nd), Fixpipe NZ2ND {mSize 1, nSize N, srcStride 16,
    dstStride N}. With disableGemv (3510 only) the L0A must hold Nz of A instead."""
    m, k, n = 1, 256, 32
    rng = np.random.default_rng(4)
    a = rng.standard_normal((1, k)).astype(np.float16)
    bt = rng.standard_normal((n, k)).astype(np.float16)  # the example stages B as N x K
    l1a = np.zeros(k, np.float16)
    rk.nd2nz(a.reshape(-1), l1a, rk.Nd2Nz(1, 1, k, 0, k, 1, 1, 0), c0=16)
    np.testing.assert_array_equal(l1a, a.reshape(-1))  # a contiguous vector
    l0a = np.zeros(k * 16, np.float16)
    rk.load2d(as_bytes(l1a), l0a.view(np.uint8), rk.Load2D(0, cdiv(k, 256), 1, 0), bits=16)
    l1b = np.zeros(k * n, np.float16)
    rk.nd2nz(bt.reshape(-1), l1b, rk.Nd2Nz(1, n, k, 0, k, cdiv(n, 16) * 16, 1, 0), c0=16)
    l0b = np.zeros(k * n, np.float16)
    rk.load2d(as_bytes(l1b), l0b.view(np.uint8), rk.Load2D(0, cdiv(n, 16) * cdiv(k, 16), 1, 0), bits=16)
    l0c = np.zeros(16 * n, np.float32)
    layout = "nz" if target_arch == "3510" else "zz"
    rk.mmad(l0a, l0b, l0c, m, n, k, lhs="f16", rhs="f16", l0a_layout=layout, gemv=True,
            init_zero=True, compute_dtype=np.dtype(np.float32))
    gm = np.zeros(n, np.float32)
    rk.fixpipe(l0c, gm, rk.FixpipeRaw(n_size=n, m_size=1, src_stride=16, dst_stride=n), "nz2nd",
               "none", False, None, None, 8)
    want = a.astype(np.float32) @ bt.T.astype(np.float32)
    np.testing.assert_allclose(gm, want.reshape(-1), rtol=1e-5, atol=1e-4)
    if target_arch == "3510":  # DISABLE_GEMV: L1 and L0A hold Nz of A (16 x K), Mmad reads Nz
        l0a_nz = nz(a, 16).reshape(-1)
        l0c[:] = 0
        rk.mmad(l0a_nz, l0b, l0c, m, n, k, lhs="f16", rhs="f16", l0a_layout="nz", gemv=False,
                init_zero=True, compute_dtype=np.dtype(np.float32))
        gm[:] = 0
        rk.fixpipe(l0c, gm, rk.FixpipeRaw(n_size=n, m_size=1, src_stride=16, dst_stride=n),
                   "nz2nd", "none", False, None, None, 8)
        np.testing.assert_allclose(gm, want.reshape(-1), rtol=1e-5, atol=1e-4)


def test_gemv_reading_nz_as_vector_is_wrong_data():
    """Why the rule matters: an Nz copy of a 1 x K row (C0 chunks 512 B apart) read as GEMV gives
    a different product than the same data read as Nz."""
    k, n = 64, 16
    rng = np.random.default_rng(5)
    a = rng.standard_normal((1, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    l0a = nz(a, 16).reshape(-1)
    l0b = zn(b, 16).reshape(-1)
    out = {}
    for gemv in (True, False):
        c = np.zeros(256, np.float32)
        rk.mmad(l0a, l0b, c, 1, n, k, lhs="f16", rhs="f16", l0a_layout="nz", gemv=gemv,
                init_zero=True, compute_dtype=np.dtype(np.float32))
        out[gemv] = c[:16]
    np.testing.assert_allclose(out[False], (a.astype(np.float32) @ b.astype(np.float32))[0], rtol=1e-5)
    assert not np.allclose(out[True], out[False])


def test_isa_gemv_rule_per_target():
    from mmair.isa.ascend.targets import TARGET_NAMES, get_target

    for name in TARGET_NAMES:
        t = get_target(name)
        assert isa_params.gemv_active(t, 1, False)
        assert not isa_params.gemv_active(t, 2, False)
        assert isa_params.gemv_active(t, 1, True) == (name != "a5")


# ------------------------------------------------------------------------------------------------
# DataCopy L1 -> BiasTable (CCE copy_cbuf_to_bt)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("arch", [2201, 3510])
def test_copy_l1_bt_matmul_bias_call(arch):
    """The bias copy of pto-isa TMovToBt and the vllm-ascend kernels: nBurst 1, lenBurst
    ceil(n*4/64) (64-byte units; a5: ceil(n*4/32), 32-byte units), gaps 0. n = 40 f32: the first
    n values arrive, and the burst copies whole units (48 values on a2, 40 on a5)."""
    from mmair.isa.ascend import targets as isa

    target = next(t for t in (isa.get_target(n) for n in isa.TARGET_NAMES) if t.arch == arch)
    unit = isa_params.l1_bt_unit_bytes(target)
    assert unit == (64 if arch == 2201 else 32)
    bias = np.arange(64, dtype=np.float32) + 0.5
    bt = np.full(64, -1.0, np.float32)
    length = cdiv(40 * 4, unit)
    rk.copy_l1_bt(as_bytes(bias), as_bytes(bt), rk.CopyL1Bt(1, length, 0, 0), unit)
    copied = length * unit // 4
    np.testing.assert_array_equal(bt[:copied], bias[:copied])
    assert (bt[copied:] == -1.0).all()


def test_copy_l1_bt_bursts_and_gaps():
    """Three bursts of one 64-byte unit, source gap 1 (32 B) and destination gap 2 (64-byte units),
    both end to start (the copy_cbuf_to_bt page: "上一个burst的尾地址跟下一个burst的首地址之间的距离"):
    burst i reads bytes [96i, 96i + 64) and writes [192i, 192i + 64). Written out as plain loops."""
    src = np.arange(128, dtype=np.int32)  # 512 bytes of L1
    dst = np.zeros(160, np.int32)  # 640 bytes of BT
    rk.copy_l1_bt(as_bytes(src), as_bytes(dst), rk.CopyL1Bt(3, 1, 1, 2), 64)
    expect = np.zeros(160, np.int32)
    for i in range(3):
        for e in range(16):  # 64 bytes of int32
            expect[(192 * i) // 4 + e] = src[(96 * i) // 4 + e]
    np.testing.assert_array_equal(dst, expect)


def test_copy_l1_bt_bounds_and_runtime_ranges():
    """A burst past either buffer is an ExecutionError, and so is a runtime field out of range; a
    runtime blockCount of 0 is a no-op (the instruction is not executed)."""
    src = np.zeros(32, np.float32)  # 128 bytes
    dst = np.zeros(16, np.float32)  # 64 bytes
    with pytest.raises(ExecutionError, match="dst byte 127 is beyond the 64-byte dst buffer"):
        rk.copy_l1_bt(as_bytes(src), as_bytes(dst), rk.CopyL1Bt(1, 2, 0, 0), 64)
    with pytest.raises(ExecutionError, match="src byte 191 is beyond the 128-byte src buffer"):
        rk.copy_l1_bt(as_bytes(src), as_bytes(np.zeros(64, np.float32)), rk.CopyL1Bt(2, 1, 2, 0), 64)
    with pytest.raises(ExecutionError, match=r"requires block_count \(blockCount \(nBurst\)\) in \[0, 4095\], got 4096"):
        rk.copy_l1_bt(as_bytes(src), as_bytes(dst), rk.CopyL1Bt(4096, 1, 0, 0), 64)
    rk.copy_l1_bt(as_bytes(src + 1), as_bytes(dst), rk.CopyL1Bt(0, 1, 0, 0), 64)
    assert (dst == 0).all()
