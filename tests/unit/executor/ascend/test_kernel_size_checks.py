"""Runtime size checks of the pto kernels (executor/ascend/kernels.py, the raw operand views of
executor/ascend/functions.py): each wrong-size fixpipe / mad / copy / GatherMask operand is one
ExecutionError with its own message, and a legal operation of the same shapes lands where the
layout says (an exact fit at the limit included). Expected values are literals (sizes, element
counts) or numpy slices of the inputs."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.executor.ascend import kernels as K
from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory


def _acc(mem: Memory, m: int, n: int) -> tuple[np.ndarray, object]:
    """An L0C tile holding c = 0, 1, 2, ... (m x n) in f32, written through the kernels' own
    logical writer (its layout is pinned by test_executor_edges)."""
    c = np.arange(m * n, dtype=np.float32).reshape(m, n)
    tile = mem.place("l0c", (m, n), "nz", "f32")
    K.write_logical(tile, c)
    return c, tile


def test_quant_vector_shorter_than_n_is_refused():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    vec = mem.place("fb", (1, 16), "nd", "u64")
    vec.physical[...] = np.float32(0.5).view(np.uint32)  # scale 0.5, shift 0
    out = np.zeros((16, 32), np.float16)
    with pytest.raises(ExecutionError, match=r"requires a quant vector of at least 32 words, got 16"):
        K.fixpipe(C, out, 16, 32, quant="vdeqf16", vector=vec)
    K.fixpipe(C, out, 16, 16, quant="vdeqf16", vector=vec)  # 16 columns: 16 words suffice
    assert np.array_equal(out[:, :16], (c[:, :16] * 0.5).astype(np.float16))
    assert not out[:, 16:].any()


def test_fixpipe_into_a_tile_checks_the_written_shape():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    short = mem.place("ub", (8, 32), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 8\] \(rows of the destination"
                                             r" .*\), got 16"):
        K.fixpipe(C, short, 16, 32)
    narrow = mem.place("ub", (16, 16), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"requires cols in \[0, 16\] \(columns of the "
                                             r"destination .*\), got 32"):
        K.fixpipe(C, narrow, 16, 32)
    # nz2dn writes C^T (32 x 16): a 16 x 32 tile is too short for it, a 32 x 16 one fits.
    with pytest.raises(ExecutionError, match=r"requires rows in \[0, 16\] \(rows of the destination"
                                             r" .*\), got 32"):
        K.fixpipe(C, mem.place("ub", (16, 32), "nd", "f32"), 16, 32, layout="nz2dn")
    fits = mem.place("ub", (32, 16), "nd", "f32")
    K.fixpipe(C, fits, 16, 32, layout="nz2dn")
    assert np.array_equal(K.read_logical(fits), c.T)


def test_fixpipe_reads_at_most_the_source_tile():
    mem = Memory("a2")
    _, C = _acc(mem, 16, 32)
    out = np.zeros((64, 64), np.float32)
    with pytest.raises(ExecutionError, match=r"requires m in \[0, 16\] \(rows of the source .*\), got 32"):
        K.fixpipe(C, out, 32, 32)
    with pytest.raises(ExecutionError, match=r"requires n in \[0, 32\] \(columns of the source .*\), "
                                             r"got 48"):
        K.fixpipe(C, out, 16, 48)


def test_fixpipe_into_gm_checks_rank_and_extent():
    mem = Memory("a2")
    c, C = _acc(mem, 16, 32)
    with pytest.raises(ExecutionError, match=r"nz2nz to GM requires a 4-D memref, got shape \(16, 32\)"):
        K.fixpipe(C, np.zeros((16, 32), np.float32), 16, 32, layout="nz2nz")
    # (N1, M1, 16, c0) = (1, 1, 16, 16): room for 16 x 16, not 16 x 32.
    with pytest.raises(ExecutionError, match=r"writes \[16 x 32\] beyond the nz GM memref of 16x16 elements"):
        K.fixpipe(C, np.zeros((1, 1, 16, 16), np.float32), 16, 32, layout="nz2nz")
    with pytest.raises(ExecutionError, match=r"writes \[16 x 32\] beyond the GM memref of shape 16x16"):
        K.fixpipe(C, np.zeros((16, 16), np.float32), 16, 32)
    with pytest.raises(ExecutionError, match=r"writes \[32 x 16\] beyond the GM memref of shape 16x32"):
        K.fixpipe(C, np.zeros((16, 32), np.float32), 16, 32, layout="nz2dn")
    out = np.zeros((32, 16), np.float32)
    K.fixpipe(C, out, 16, 32, layout="nz2dn")
    assert np.array_equal(out, c.T)


def test_ub_copies_fill_the_tile_exactly_and_no_further():
    mem = Memory("a2")
    ub = mem.place("ub", (1, 16), "nd", "f16")
    src = np.arange(16, dtype=np.float16)
    K.copy_gm_to_tile(src, ub)  # exactly the tile's 16 elements
    back = np.zeros(16, np.float16)
    K.copy_tile_to_gm(ub, back)
    assert np.array_equal(back, src)
    with pytest.raises(ExecutionError, match="copies 17 GM elements into the 16-element"):
        K.copy_gm_to_tile(np.zeros(17, np.float16), ub)
    with pytest.raises(ExecutionError, match="fills 17 GM elements from the 16-element"):
        K.copy_tile_to_gm(ub, np.zeros(17, np.float16))


def test_mad_checks_n_against_the_destination_and_decodes_hif8():
    mem = Memory("a2")
    a = mem.place("l0a", (16, 16), "zz", "f16")
    b = mem.place("l0b", (16, 32), "zn", "f16")
    c = mem.place("l0c", (16, 16), "nz", "f32")
    with pytest.raises(ExecutionError, match=r"requires n in \[0, 16\] \(columns of the dst .*\), "
                                             r"got 32"):
        K.mad(a, b, c, 16, 32, 16)
    a5 = Memory("a5")
    h = a5.place("l0a", (16, 32), "zz", "hif8")
    hb = a5.place("l0b", (32, 16), "zn", "hif8")
    K.write_logical(h, np.full((16, 32), 0x0C, np.uint8))  # HiF8 0x0C = 1.5
    K.write_logical(hb, np.full((32, 16), 0x18, np.uint8))  # HiF8 0x18 = 0.5
    out = a5.place("l0c", (16, 16), "nz", "f32")
    K.mad(h, hb, out, 16, 16, 32)  # the values, not the bytes (12 * 24 * 32 = 9216)
    np.testing.assert_array_equal(K.read_logical(out), np.full((16, 16), 32 * 0.75, np.float32))


def test_gather_mask_processes_exactly_the_simulators_limit():
    # The simulator's host-memory guard (docs/robustness.md): 2^22 processed elements are run,
    # one more is refused. 310p counter method 2: the mask is the total count; zero strides
    # re-read one block of src0 and an all-zero user pattern keeps nothing.
    mem = Memory("310p")
    tiles = {}
    for name, count in (("src", 256), ("pattern", 8), ("dst", 256)):
        tiles[name] = mem.place("ub", (count,), "nd", "u32")
        tiles[name].physical[...] = np.arange(count, dtype=np.uint32) if name == "src" else 0
    limit = 1 << 22
    # repeat_times (2) is ignored by method 2: the mask alone is the count
    kept = K.gather_mask(tiles["dst"], tiles["src"], limit, 2, 0, 0, 0, src1=tiles["pattern"],
                         counter=True, method=2)
    assert kept == 0 and not tiles["dst"].physical.any()
    with pytest.raises(ExecutionError, match=rf"processes {limit + 1} elements in one instruction, "
                                             rf"more than the simulator's limit of {limit}$"):
        K.gather_mask(tiles["dst"], tiles["src"], limit + 1, 1, 0, 0, 0, src1=tiles["pattern"],
                      counter=True, method=2)


def test_l1_to_l0_refuses_a_negative_source_start():
    # A runtime start below 0 (e.g. a computed offset gone negative) is one error, not a read of
    # numpy's negative indices from the end of the tile.
    mem = Memory("a2")
    src = mem.place("l1", (32, 32), "nz", "f16")
    dst = mem.place("l0a", (16, 16), "zz", "f16")
    for row, col in ((-16, 0), (0, -16)):
        with pytest.raises(ExecutionError,
                           match=rf"^requires a non-negative source start, got \[{row}, {col}\]$"):
            K.mte_l1_l0(src, dst, 16, 16, row=row, col=col)
    K.mte_l1_l0(src, dst, 16, 16, row=16, col=16)  # the last whole fractal is legal
    assert not dst.physical.any()


def test_l1_to_bias_table_checks_n_against_both_tiles():
    mem = Memory("a2")
    src = mem.place("l1", (1, 16), "nd", "f32")
    src.physical[...] = np.arange(16, dtype=np.float32).reshape(src.physical.shape)
    dst = mem.place("bt", (1, 32), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"^requires n in \[0, 16\] \(columns of the source .*\), "
                                             r"got 32$"):
        K.mte_l1_bt(src, dst, 32)
    small = mem.place("bt", (1, 8), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"^requires n in \[0, 8\] \(columns of the destination "
                                             r".*\), got 16$"):
        K.mte_l1_bt(src, small, 16)
    K.mte_l1_bt(src, dst, 16)
    assert dst.physical.reshape(-1)[:16].tolist() == list(range(16))


@pytest.mark.parametrize(("shapes", "mnk", "message"), [
    # (lhs, rhs, dst) logical shapes; m, n, k; the extent the runtime size exceeds
    (((16, 32), (32, 16), (32, 16)), (32, 16, 32), r"m in \[0, 16\] \(rows of the lhs"),
    (((16, 16), (32, 16), (16, 16)), (16, 16, 32), r"k in \[0, 16\] \(columns of the lhs"),
    (((16, 32), (16, 16), (16, 16)), (16, 16, 32), r"k in \[0, 16\] \(rows of the rhs"),
    (((16, 32), (32, 16), (16, 32)), (16, 32, 32), r"n in \[0, 16\] \(columns of the rhs"),
    (((32, 32), (32, 16), (16, 16)), (32, 16, 32), r"m in \[0, 16\] \(rows of the dst"),
])
def test_mad_checks_each_runtime_size_against_its_tile(shapes, mnk, message):
    # Static sizes are the verifier's; runtime ones (index operands) reach these checks.
    mem = Memory("a2")
    a = mem.place("l0a", shapes[0], "zz", "f16")
    b = mem.place("l0b", shapes[1], "zn", "f16")
    c = mem.place("l0c", shapes[2], "nz", "f32")
    m, n, k = mnk
    with pytest.raises(ExecutionError, match=rf"^requires {message} .*\), got {max(mnk)}$"):
        K.mad(a, b, c, m, n, k)


def test_mad_bias_checks_n_against_the_bias_row():
    mem = Memory("a2")
    a = mem.place("l0a", (16, 16), "zz", "f16")
    b = mem.place("l0b", (16, 32), "zn", "f16")
    c = mem.place("l0c", (16, 32), "nz", "f32")
    bias = mem.place("bt", (1, 16), "nd", "f32")
    with pytest.raises(ExecutionError, match=r"^requires n in \[0, 16\] \(columns of the bias .*\), "
                                             r"got 32$"):
        K.mad(a, b, c, 16, 32, 16, bias=bias)


def test_raw_operand_views_refuse_offsets_outside_the_tile_and_packed_tiles():
    from mmair.executor.ascend.functions import gm_linear, tile_bytes, tile_flat

    mem = Memory("a2")
    tile = mem.place("l1", (16, 16), "nz", "f16")
    assert tile_flat(tile, 255, "src").size == 1  # the last element
    for offset in (-1, 256):
        with pytest.raises(ExecutionError, match=rf"^requires src offset in \[0, 256\), got {offset}$"):
            tile_flat(tile, offset, "src")
    packed = mem.place("l1", (16, 64), "nz", "s4")  # 4-bit: unpacked values, bytes at even offsets
    assert tile_flat(packed, 2, "src").size == 1022
    with pytest.raises(ExecutionError, match=r"^requires dst offset in \[0, 1024\) on a byte "
                                             r"boundary \(an even element of a 4-bit tile\), got 3$"):
        tile_bytes(packed, 3, "dst")
    gm = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert gm_linear(gm[2:, 3:]).tolist() == list(range(19, 64))  # to the end of the buffer
    with pytest.raises(ExecutionError, match=r"^requires a contiguous GM buffer under the raw-form "
                                             r"operand$"):
        gm_linear(np.asfortranarray(gm)[2:, 3:])


def test_gather_mask_reads_to_the_last_src_element_and_fills_dst_exactly():
    # Pattern 7 keeps every element; u16 repeats are 128 elements (8 blocks of 16), the second
    # one starts 1 block (16 elements) later: indices 0..127 then 16..143.
    mem = Memory("a2")
    src = mem.place("ub", (144,), "nd", "u16")
    src.physical[...] = np.arange(144, dtype=np.uint16)
    dst = mem.place("ub", (256,), "nd", "u16")  # exactly the 256 kept elements
    assert K.gather_mask(dst, src, 0, 2, 1, 1, 0, pattern=7) == 256
    assert dst.physical.tolist() == list(range(128)) + list(range(16, 144))
    short = mem.place("ub", (143,), "nd", "u16")  # element 143 is one past its end
    with pytest.raises(ExecutionError, match=r"^reads src0 element 143 \(byte 286\) beyond the "
                                             r"143-element src0 tile"):
        K.gather_mask(dst, short, 0, 2, 1, 1, 0, pattern=7)
