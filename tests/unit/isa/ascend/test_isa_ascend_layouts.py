"""Fractal layouts of mmair.isa.ascend.layouts against the index formulas of docs/ascend.md ("Fractal layouts") and the PTO NZ fractal layout text."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmair.isa.ascend.layouts import (
    FRACTAL_LAYOUTS,
    LAYOUTS,
    LayoutGeometry,
    blocked_view,
    element_offset,
    footprint_bytes,
    fractal_grid,
    fractal_shape,
    pack,
    pack_nibbles,
    padded_shape,
    physical_shape,
    unpack,
    unpack_nibbles,
)

ELEMS = ("s4", "s8", "f16", "bf16", "f32", "u64")
SPACES = ("l1", "l0a", "l0b", "l0c", "ub")


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def _logical(shape: tuple[int, ...]) -> np.ndarray:
    # Values 1.. so that zero padding is distinguishable from data.
    return (np.arange(int(np.prod(shape)), dtype=np.int64) + 1).reshape(shape)


# ---------------------------------------------------------------------------------------------
# Round trips and self-consistency over every layout and element width
# ---------------------------------------------------------------------------------------------

layout_cases = st.tuples(
    st.sampled_from(LAYOUTS),
    st.sampled_from(ELEMS),
    st.sampled_from(SPACES),
    st.integers(1, 70),
    st.integers(1, 140),
)


@settings(max_examples=150, deadline=None)
@given(layout_cases)
def test_pack_unpack_round_trip(case: tuple[str, str, str, int, int]) -> None:
    layout, elem, space, rows, cols = case
    x = _logical((rows, cols))
    phys = pack(x, layout, elem, space)
    assert phys.shape == physical_shape(layout, (rows, cols), elem, space)
    np.testing.assert_array_equal(unpack(phys, layout, (rows, cols), elem, space), x)
    # Every logical value appears once; the rest is zero padding.
    assert np.count_nonzero(phys) == rows * cols
    pr, pc = padded_shape(layout, (rows, cols), elem, space)
    assert phys.size == pr * pc
    fr, fc = fractal_shape(layout, elem, space)
    assert pr == _ceil(rows, fr) * fr and pc == _ceil(cols, fc) * fc


@settings(max_examples=150, deadline=None)
@given(layout_cases)
def test_element_offset_agrees_with_pack(case: tuple[str, str, str, int, int]) -> None:
    layout, elem, space, rows, cols = case
    x = _logical((rows, cols))
    phys = pack(x, layout, elem, space).reshape(-1)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    off = element_offset(layout, (rows, cols), elem, space, r, c)
    np.testing.assert_array_equal(phys[off], x)
    # Offsets are a bijection onto the padded buffer.
    pr, pc = padded_shape(layout, (rows, cols), elem, space)
    rp, cp = np.meshgrid(np.arange(pr), np.arange(pc), indexing="ij")
    all_off = element_offset(layout, (rows, cols), elem, space, rp, cp)
    assert np.array_equal(np.sort(all_off.reshape(-1)), np.arange(pr * pc))
    # Scalar form gives a Python int equal to the vector form.
    scalar = element_offset(layout, (rows, cols), elem, space, rows - 1, cols - 1)
    assert isinstance(scalar, int) and scalar == off[-1, -1]


@settings(max_examples=150, deadline=None)
@given(layout_cases)
def test_blocked_view_agrees_with_pack(case: tuple[str, str, str, int, int]) -> None:
    layout, elem, space, rows, cols = case
    x = _logical((rows, cols))
    phys = pack(x, layout, elem, space)
    view = blocked_view(phys, layout)
    fr, fc = fractal_shape(layout, elem, space)
    r1, c1 = fractal_grid(layout, (rows, cols), elem, space)
    assert view.shape == (r1, fr, c1, fc)
    assert np.shares_memory(view, phys)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_array_equal(view[r // fr, r % fr, c // fc, c % fc], x)
    # Writes through the view land in the physical buffer.
    view[0, 0, 0, 0] = -7
    assert phys.reshape(-1)[element_offset(layout, (rows, cols), elem, space, 0, 0)] == -7


@settings(max_examples=100, deadline=None)
@given(layout_cases)
def test_footprint_bytes(case: tuple[str, str, str, int, int]) -> None:
    layout, elem, space, rows, cols = case
    bits = {"s4": 4, "s8": 8, "f16": 16, "bf16": 16, "f32": 32, "u64": 64}[elem]
    n = int(np.prod(physical_shape(layout, (rows, cols), elem, space)))
    assert footprint_bytes(layout, (rows, cols), elem, space) == _ceil(n * bits, 8)


# ---------------------------------------------------------------------------------------------
# Index formulas of docs/ascend.md "Fractal layouts" (written out independently here)
# ---------------------------------------------------------------------------------------------


def _ref_offset(layout: str, rows: int, cols: int, c0: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    r1n, c1n = _ceil(rows, 16), _ceil(cols, c0)
    if layout == "nz":
        return (c // c0) * r1n * 16 * c0 + (r // 16) * 16 * c0 + (r % 16) * c0 + c % c0
    if layout == "zz":
        return (r // 16) * c1n * 16 * c0 + (c // c0) * 16 * c0 + (r % 16) * c0 + c % c0
    if layout == "zn":  # B[K, N]: k = r, n = c, K0 = c0 rows per fractal
        n1n = _ceil(cols, 16)
        return (r // c0) * n1n * 16 * c0 + (c // 16) * 16 * c0 + (c % 16) * c0 + r % c0
    if layout == "nn":  # = Zz of the transpose
        k1n = _ceil(rows, c0)
        return (c // 16) * k1n * 16 * c0 + (r // c0) * 16 * c0 + (c % 16) * c0 + r % c0
    if layout == "nd":
        return r * cols + c
    return c * rows + r  # dn


@settings(max_examples=100, deadline=None)
@given(layout_cases)
def test_offsets_match_reference_formulas(case: tuple[str, str, str, int, int]) -> None:
    layout, elem, space, rows, cols = case
    c0 = 16 if space == "l0c" else 256 // {"s4": 4, "s8": 8, "f16": 16, "bf16": 16, "f32": 32, "u64": 64}[elem]
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    np.testing.assert_array_equal(
        element_offset(layout, (rows, cols), elem, space, r, c),
        _ref_offset(layout, rows, cols, c0, r, c),
    )


@pytest.mark.parametrize("rows,cols", [(20, 28), (16, 16), (1, 5), (33, 70)])
def test_nz_matches_reference_numpy_recipe(rows: int, cols: int) -> None:
    # docs/ascend.md: Nz(X) = pad(X).reshape(R1,16,C1,c0).transpose(2,0,1,3)
    x = _logical((rows, cols))
    c0 = 16
    r1, c1 = _ceil(rows, 16), _ceil(cols, c0)
    padded = np.zeros((r1 * 16, c1 * c0), dtype=x.dtype)
    padded[:rows, :cols] = x
    expect = padded.reshape(r1, 16, c1, c0).transpose(2, 0, 1, 3)
    np.testing.assert_array_equal(pack(x, "nz", "f16", "l1"), expect)


def test_reference_20x28_nd_to_nz_example() -> None:
    # ASC worked example (§3): ND (20, 28) f16 with x[i] = i -> Nz (2, 2, 16, 16);
    # fractal (c1=1, r1=0), row 0 = [16..27, 0, 0, 0, 0].
    x = np.arange(20 * 28, dtype=np.float16).reshape(20, 28)
    nz = pack(x, "nz", "f16", "l1")
    assert nz.shape == (2, 2, 16, 16)
    expect_row = np.concatenate([np.arange(16, 28), np.zeros(4)]).astype(np.float16)
    np.testing.assert_array_equal(nz[1, 0, 0], expect_row)
    assert nz.dtype == np.float16


def test_nd2nz_canonical_parameters_give_nz() -> None:
    # §5 semantics with the canonical parameters (dstNzC0Stride = ceil(R/16)*16, dstNzNStride = 1)
    # must land every element where the Nz layout puts it.
    rows, cols, elem = 37, 23, "f32"
    c0 = 8
    c0_stride, n_stride = _ceil(rows, 16) * 16, 1
    n, d = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    nd2nz_dst = (d // c0) * c0_stride * c0 + n * n_stride * c0 + d % c0
    np.testing.assert_array_equal(element_offset("nz", (rows, cols), elem, "l1", n, d), nd2nz_dst)


def test_nd2zz_staging_of_b_gives_zz() -> None:
    # §5 "Nd2Zz" staging of B[K, N] (half) into the seed-NZ L1 layout K1 N1 K0 N0:
    # element (k, n) lands at k1*N1*256 + n1*256 + k0*16 + n0.
    k_dim, n_dim = 70, 40
    n1n = _ceil(n_dim, 16)
    k, n = np.meshgrid(np.arange(k_dim), np.arange(n_dim), indexing="ij")
    expect = (k // 16) * n1n * 256 + (n // 16) * 256 + (k % 16) * 16 + n % 16
    np.testing.assert_array_equal(element_offset("zz", (k_dim, n_dim), "f16", "l1", k, n), expect)


# ---------------------------------------------------------------------------------------------
# The seed-Mmad 4 x 4 illustration with 2 x 2 fractals
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "layout,order",
    [
        ("zz", [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15]),  # A
        ("zn", [0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15]),  # B
        ("nz", [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15]),  # C
    ],
)
def test_seed_mmad_toy_orders(layout: str, order: list[int]) -> None:
    g = LayoutGeometry.from_fractal(layout, (4, 4), (2, 2))
    x = np.arange(16).reshape(4, 4)
    np.testing.assert_array_equal(g.pack(x).reshape(-1), order)
    r, c = np.divmod(np.array(order), 4)
    np.testing.assert_array_equal(g.offset(r, c), np.arange(16))
    np.testing.assert_array_equal(g.unpack(g.pack(x)), x)


# ---------------------------------------------------------------------------------------------
# The seed-NZ flow and the end-to-end example of §10
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("m,k,n", [(16, 32, 16), (30, 70, 40), (1, 256, 32)])
def test_seed_nz_flow_index_maps(m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(1, 100, size=(m, k))
    b = rng.integers(1, 100, size=(k, n))
    c = a @ b
    m1, k1, n1 = _ceil(m, 16), _ceil(k, 16), _ceil(n, 16)
    l0a = pack(a, "zz", "f16", "l0a").reshape(-1)
    l0b = pack(b, "zn", "f16", "l0b").reshape(-1)
    l0c = pack(c, "nz", "f32", "l0c").reshape(-1)
    mm, kk = np.meshgrid(np.arange(m), np.arange(k), indexing="ij")
    np.testing.assert_array_equal(
        l0a[((mm // 16) * k1 + kk // 16) * 256 + (mm % 16) * 16 + kk % 16], a
    )
    kk, nn = np.meshgrid(np.arange(k), np.arange(n), indexing="ij")
    np.testing.assert_array_equal(
        l0b[((kk // 16) * n1 + nn // 16) * 256 + (nn % 16) * 16 + kk % 16], b
    )
    mm, nn = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    np.testing.assert_array_equal(
        l0c[((nn // 16) * m1 + mm // 16) * 256 + (mm % 16) * 16 + nn % 16], c
    )
    # Fixpipe NZ2ND with srcStride = M1*16: C_gm[m, n] = L0C[(n//16)*srcStride*16 + m*16 + n%16].
    np.testing.assert_array_equal(l0c[(nn // 16) * (m1 * 16) * 16 + mm * 16 + nn % 16], c)

    # Physical movements of §6.2 (whole fractals): L1 nz A -> L0A zz reorders fractals;
    # L1 zz B (K1 N1 K0 N0) -> L0B zn (K1 N1 N0 K0) transposes each fractal.
    l1_a = pack(a, "nz", "f16", "l1")  # (K1, M1, 16, 16)
    np.testing.assert_array_equal(l1_a.transpose(1, 0, 2, 3).reshape(-1), l0a)
    l1_b = pack(b, "zz", "f16", "l1")  # (K1, N1, 16, 16)
    np.testing.assert_array_equal(l1_b.transpose(0, 1, 3, 2).reshape(-1), l0b)
    # Plain ND2NZ of B (N1 K1 K0 N0) -> L0B: reorder fractals and transpose each one.
    l1_b_nz = pack(b, "nz", "f16", "l1")  # (N1, K1, 16, 16)
    np.testing.assert_array_equal(l1_b_nz.transpose(1, 0, 3, 2).reshape(-1), l0b)
    # a5: L0A is nz, a contiguous copy of the L1 nz tile.
    np.testing.assert_array_equal(pack(a, "nz", "f16", "l0a"), l1_a)


def test_mmad_footprints_30_70_40() -> None:
    # §10: M=30, K=70, N=40 -> L0A 10 fractals (5 KB), L0B 15 (7.5 KB), L0C 6 (6 KB f32).
    assert footprint_bytes("zz", (30, 70), "f16", "l0a") == 10 * 512
    assert footprint_bytes("zn", (70, 40), "f16", "l0b") == 15 * 512
    assert footprint_bytes("nz", (30, 40), "f32", "l0c") == 6 * 1024
    assert fractal_grid("zz", (30, 70), "f16", "l0a") == (2, 5)
    assert fractal_grid("zn", (70, 40), "f16", "l0b") == (5, 3)
    assert fractal_grid("nz", (30, 40), "f32", "l0c") == (2, 3)


# ---------------------------------------------------------------------------------------------
# Shapes, edge cases, errors
# ---------------------------------------------------------------------------------------------


def test_fractal_shapes() -> None:
    assert fractal_shape("nz", "f16", "l1") == (16, 16)
    assert fractal_shape("zz", "f32", "l0a") == (16, 8)
    assert fractal_shape("zn", "s8", "l0b") == (32, 16)
    assert fractal_shape("nn", "s4", "l1") == (64, 16)
    assert fractal_shape("nz", "f32", "l0c") == (16, 16)
    assert fractal_shape("nd", "f16", "ub") == (1, 1)
    for layout in FRACTAL_LAYOUTS:  # an L0A/L0B fractal is 512 B for every width
        for elem, bits in (("s4", 4), ("s8", 8), ("f16", 16), ("f32", 32)):
            fr, fc = fractal_shape(layout, elem, "l0a")
            assert fr * fc * bits // 8 == 512


def test_physical_shapes_from_design_table() -> None:
    assert physical_shape("nz", (30, 70), "f16", "l1") == (5, 2, 16, 16)
    assert physical_shape("zz", (30, 70), "f16", "l0a") == (2, 5, 16, 16)
    assert physical_shape("zn", (70, 40), "f32", "l0b") == (9, 3, 16, 8)
    assert physical_shape("nn", (70, 40), "f32", "l1") == (3, 9, 16, 8)
    assert physical_shape("nd", (30, 70), "f16", "ub") == (30, 70)
    assert physical_shape("dn", (30, 70), "f16", "ub") == (70, 30)
    assert physical_shape("nd", (256,), "f16", "ub") == (256,)
    assert padded_shape("nd", (256,), "f16", "ub") == (1, 256)


def test_one_dimensional_nd() -> None:
    x = _logical((37,))
    phys = pack(x, "nd", "f32", "ub")
    np.testing.assert_array_equal(phys, x)
    np.testing.assert_array_equal(unpack(phys, "nd", (37,), "f32", "ub"), x)
    view = blocked_view(phys, "nd")
    assert view.shape == (1, 1, 37, 1) and np.shares_memory(view, phys)
    assert element_offset("nd", (37,), "f32", "ub", 0, 5) == 5


def test_s4_packing() -> None:
    assert footprint_bytes("nz", (16, 64), "s4", "l1") == 512
    assert footprint_bytes("nd", (3,), "s4", "ub") == 2
    vals = np.array([1, -2, 7, -8, 3, 0, -1], dtype=ml_dtypes.int4)
    packed = pack_nibbles(vals)
    assert packed.dtype == np.uint8 and packed.size == 4
    assert packed[0] == (0x1 | (0xE << 4))  # element 0 low nibble, element 1 (-2) high
    np.testing.assert_array_equal(unpack_nibbles(packed, 7), vals.astype(np.int8))
    np.testing.assert_array_equal(unpack_nibbles(packed, 2, signed=False), [1, 14])


def test_pack_keeps_dtype() -> None:
    x = np.arange(12, dtype=np.float32).astype(ml_dtypes.bfloat16).reshape(3, 4)
    phys = pack(x, "zn", "bf16", "l0b")
    assert phys.dtype == x.dtype
    np.testing.assert_array_equal(unpack(phys, "zn", (3, 4), "bf16", "l0b"), x)


def test_errors() -> None:
    with pytest.raises(ValueError, match="unknown layout 'xy'"):
        physical_shape("xy", (4, 4), "f16", "l1")
    with pytest.raises(ValueError, match="requires a 2-D shape"):
        physical_shape("nz", (16,), "f16", "l1")
    with pytest.raises(ValueError, match="positive"):
        physical_shape("nz", (0, 16), "f16", "l1")
    with pytest.raises(IndexError, match="out of the padded 32x32 nz tile: row 32, col 0"):
        element_offset("nz", (20, 28), "f16", "l1", 32, 0)
    with pytest.raises(IndexError, match="out of the padded 32x32 nz tile"):
        element_offset("nz", (20, 28), "f16", "l1", np.array([0, 1]), np.array([0, -1]))
    # Offsets inside the padding are allowed.
    assert element_offset("nz", (20, 28), "f16", "l1", 31, 31) == 4 * 256 - 1
    with pytest.raises(ValueError, match="does not match"):
        unpack(np.zeros((2, 2, 16, 16)), "nz", (40, 28), "f16", "l1")
    with pytest.raises(ValueError, match="unknown memory space"):
        fractal_shape("nz", "f16", "l2")
