"""tcgen05.ld/st .16x64b/.16x128b/.16x256b in the executor: register r of thread t moves the TMEM
cell CUTLASS's SM100_TMEM_LOAD_* copy traits give (cute/atom/copy_traits_sm100.hpp: the
DstLayout maps (thread, value bit) to bit i of a (bits per lane x 16 lanes) tile, lane = i // bits,
column = (i % bits) // 32). The layouts are evaluated here from their shape/stride tuples, so
the expected cells do not come from the code under test."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pytest

from mmair.tools.run import main


def _cute(coord: int, shape: tuple[int, ...], stride: tuple[int, ...]) -> int:
    """A flat CuTe layout: colexicographic decomposition of `coord`, dot the strides."""
    out = 0
    for extent, step in zip(shape, stride, strict=True):
        out += (coord % extent) * step
        coord //= extent
    return out


def _layout(shape: str, n: int) -> tuple[tuple, tuple, tuple, tuple, int]:
    """(thread shape, thread stride, value shape, value stride, bits per lane) of
    SM100_TMEM_LOAD_<shape> with n repetitions (the .xN of PTX)."""
    if shape == "16x64b":
        return (2, 2, 8), (512 * n, 32, 64 * n), (32, n), (1, 64), 64 * n
    if shape == "16x128b":
        return (4, 8), (32, 128 * n), (32, 2, n), (1, 1024 * n, 128), 128 * n
    assert shape == "16x256b"
    return (4, 8), (64, 256 * n), (64, 2, n), (1, 2048 * n, 256), 256 * n


def _expected_cells(shape: str, n: int, regs: int) -> tuple[np.ndarray, np.ndarray]:
    tshape, tstride, vshape, vstride, bits = _layout(shape, n)
    lanes = np.zeros((32, regs), int)
    cols = np.zeros((32, regs), int)
    for t, r in product(range(32), range(regs)):
        i = _cute(t, tshape, tstride) + _cute(32 * r, vshape, vstride)  # bit 0 of register r
        lanes[t, r], cols[t, r] = i // bits, (i % bits) // 32
    return lanes, cols


CASES = [("16x64b", 4, 4), ("16x128b", 4, 8), ("16x256b", 2, 8)]  # (shape, num, registers)

KERNEL = """builtin.module attributes {{tcgen05.target = "sm_100a"}} {{
  func.func @moves(%m: memref<32x32xi32>, %o: memref<32x{regs}xi32>, %back: memref<32x32xi32>,
                   %zeros: memref<32x32xi32>) {{
    %t = tcgen05.alloc cta_group(1) columns(32) : memref<128x32xi32, #tcgen05.space<tmem>>
    tcgen05.st shape("32x32b") num(32) warp(0) lane(0) column(0) %t, %m : memref<128x32xi32, #tcgen05.space<tmem>>, memref<32x32xi32>
    tcgen05.wait_st
    %r = tcgen05.ld shape("{shape}") num({num}) warp(0) lane(0) column(0) %t : memref<128x32xi32, #tcgen05.space<tmem>> -> memref<32x{regs}xi32>
    tcgen05.wait_ld
    "memref.copy"(%r, %o) : (memref<32x{regs}xi32>, memref<32x{regs}xi32>) -> ()
    tcgen05.st shape("32x32b") num(32) warp(0) lane(0) column(0) %t, %zeros : memref<128x32xi32, #tcgen05.space<tmem>>, memref<32x32xi32>
    tcgen05.st shape("{shape}") num({num}) warp(0) lane(0) column(0) %t, %r : memref<128x32xi32, #tcgen05.space<tmem>>, memref<32x{regs}xi32>
    tcgen05.wait_st
    %b = tcgen05.ld shape("32x32b") num(32) warp(0) lane(0) column(0) %t : memref<128x32xi32, #tcgen05.space<tmem>> -> memref<32x32xi32>
    tcgen05.wait_ld
    "memref.copy"(%b, %back) : (memref<32x32xi32>, memref<32x32xi32>) -> ()
    tcgen05.dealloc cta_group(1) %t : memref<128x32xi32, #tcgen05.space<tmem>>
    func.return
  }}
}}
"""


@pytest.mark.parametrize("shape, num, regs", CASES)
def test_16_lane_shapes_follow_the_cutlass_layouts(capsys, tmp_path: Path, shape: str, num: int,
                                                    regs: int) -> None:
    m = np.arange(32 * 32, dtype=np.int32).reshape(32, 32) + 1  # cell (lane, col) -> unique value
    np.save(tmp_path / "m.npy", m)
    np.save(tmp_path / "z.npy", np.zeros_like(m))
    path = tmp_path / "moves.mlir"
    path.write_text(KERNEL.format(shape=shape, num=num, regs=regs))
    code = main([str(path), "--input", f"m={tmp_path / 'm.npy'}", "--input",
                 f"zeros={tmp_path / 'z.npy'}", "--output",
                 f"o={tmp_path / 'o.npy'}", "--output", f"back={tmp_path / 'back.npy'}"])
    assert code == 0, capsys.readouterr().err
    lanes, cols = _expected_cells(shape, num, regs)
    assert np.array_equal(np.load(tmp_path / "o.npy"), m[lanes, cols])
    # st with the same shape writes exactly those cells back (the rest was zeroed first)
    back = np.zeros_like(m)
    back[lanes, cols] = m[lanes, cols]
    assert np.array_equal(np.load(tmp_path / "back.npy"), back)
    assert len({(a, b) for a, b in zip(lanes.flat, cols.flat, strict=True)}) == 32 * regs


@pytest.mark.parametrize("num", [1, 2, 4])
def test_16x32bx2_with_cutlass_split_matches_its_layout(num: int) -> None:
    # CUTLASS's SM100_TMEM_LOAD_16dp32b<num>x issues .16x32bx2 with immHalfSplitoff = num; its
    # DstLayout is ((16, 2), 32 num) : ((64 num, 32 num), 1) over (64 num bits x 16 lanes).
    from mmair.isa.tcgen05.tmem_moves import ld_st_cells

    lanes, cols = ld_st_cells("16x32bx2", num, split=num)
    for t, r in product(range(32), range(num)):
        i = _cute(t, (16, 2), (64 * num, 32 * num)) + 32 * r
        assert (lanes[t, r], cols[t, r]) == (i // (64 * num), (i % (64 * num)) // 32)


def test_16x32bx2_load_as_emitted_reads_the_same_cells_in_both_half_warps(capsys,
                                                                          tmp_path: Path) -> None:
    # mmair's PTX writes immHalfSplitoff 0: threads t and t + 16 both read lane t % 16.
    m = np.arange(32 * 32, dtype=np.int32).reshape(32, 32) + 1
    np.save(tmp_path / "m.npy", m)
    np.save(tmp_path / "z.npy", np.zeros_like(m))
    text = KERNEL.format(shape="16x32bx2", num=4, regs=4)
    text = "\n".join(x for x in text.splitlines()
                     if 'shape("16x32bx2")' not in x or "tcgen05.st" not in x)
    path = tmp_path / "x2.mlir"
    path.write_text(text)
    code = main([str(path), "--input", f"m={tmp_path / 'm.npy'}", "--input",
                 f"zeros={tmp_path / 'z.npy'}", "--output", f"o={tmp_path / 'o.npy'}"])
    assert code == 0, capsys.readouterr().err
    t = np.arange(32)[:, None]
    assert np.array_equal(np.load(tmp_path / "o.npy"), m[t % 16, np.arange(4)[None, :]])


def test_16x32bx2_store_with_overlapping_halves_is_refused(capsys, tmp_path: Path) -> None:
    np.save(tmp_path / "m.npy", np.ones((32, 32), np.int32))
    path = tmp_path / "st.mlir"
    path.write_text(KERNEL.format(shape="16x32bx2", num=4, regs=4))
    assert main([str(path), "--input", f"m={tmp_path / 'm.npy'}"]) == 1
    err = capsys.readouterr().err
    assert "error: 'tcgen05.st' op uses tcgen05.st .16x32bx2 with immHalfSplitoff 0 < .x4: both " \
           "half-warps write the same cells" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("num", [1, 4])
def test_16x32bx2_with_split_round_trips(capsys, tmp_path: Path, num: int) -> None:
    from mmair.isa.tcgen05.tmem_moves import ld_st_cells

    m = np.arange(32 * 32, dtype=np.int32).reshape(32, 32) + 1
    np.save(tmp_path / "m.npy", m)
    np.save(tmp_path / "z.npy", np.zeros_like(m))
    text = KERNEL.format(shape="16x32bx2", num=num, regs=num).replace(
        f'shape("16x32bx2") num({num}) warp(0) lane(0) column(0)',
        f'shape("16x32bx2") num({num}) warp(0) lane(0) column(0) split({num})')
    assert text.count("split(") == 2
    path = tmp_path / "split.mlir"
    path.write_text(text)
    code = main([str(path), "--input", f"m={tmp_path / 'm.npy'}", "--input",
                 f"zeros={tmp_path / 'z.npy'}", "--output", f"o={tmp_path / 'o.npy'}",
                 "--output", f"back={tmp_path / 'back.npy'}"])
    assert code == 0, capsys.readouterr().err
    t, r = np.arange(32)[:, None], np.arange(num)[None, :]
    lanes, cols = t % 16, r + num * (t // 16)  # the CUTLASS layout checked above
    assert np.array_equal(ld_st_cells("16x32bx2", num, split=num)[1], np.broadcast_to(cols,
                                                                                     (32, num)))
    assert np.array_equal(np.load(tmp_path / "o.npy"), m[lanes, cols])
    back = np.zeros_like(m)
    back[lanes, cols] = m[lanes, cols]
    assert np.array_equal(np.load(tmp_path / "back.npy"), back)


def test_pack_and_unpack_16b(capsys, tmp_path: Path) -> None:
    # .pack::16b: register r of thread t = low half of cell (t, 2r) | low half of (t, 2r + 1)
    # << 16; .unpack::16b writes the halves back into the low bits of those two cells.
    m = (np.arange(32 * 32, dtype=np.int64).reshape(32, 32) * 0x10001 + 0x70000).astype(np.int32)
    np.save(tmp_path / "m.npy", m)
    np.save(tmp_path / "z.npy", np.zeros_like(m))
    text = KERNEL.format(shape="32x32b", num=4, regs=4).replace(
        'shape("32x32b") num(4) warp(0) lane(0) column(0) %t :',
        'shape("32x32b") num(4) warp(0) lane(0) column(0) pack %t :').replace(
        'shape("32x32b") num(4) warp(0) lane(0) column(0) %t, %r',
        'shape("32x32b") num(4) warp(0) lane(0) column(0) unpack %t, %r')
    assert " pack %t" in text and " unpack %t" in text
    path = tmp_path / "pack.mlir"
    path.write_text(text)
    code = main([str(path), "--input", f"m={tmp_path / 'm.npy'}", "--input",
                 f"zeros={tmp_path / 'z.npy'}", "--output", f"o={tmp_path / 'o.npy'}",
                 "--output", f"back={tmp_path / 'back.npy'}"])
    assert code == 0, capsys.readouterr().err
    low = m.view(np.uint32) & 0xFFFF
    expected = (low[:, 0:8:2] | (low[:, 1:8:2] << 16)).view(np.int32)
    assert np.array_equal(np.load(tmp_path / "o.npy"), expected)
    back = np.zeros_like(m)
    back[:, :8] = low[:, :8].astype(np.int32)
    assert np.array_equal(np.load(tmp_path / "back.npy"), back)


def test_pack_into_16_bit_register_halves(capsys, tmp_path: Path) -> None:
    # the same loads with the registers as their 16-bit halves (memref<32 x 2n x f16>, low half
    # first): element c of thread t is the low half of cell (t, c), an f16 D's value
    m = (np.arange(32 * 32, dtype=np.int64).reshape(32, 32) * 0x10001 + 0x3C000000)
    m = m.astype(np.uint32).view(np.int32)
    np.save(tmp_path / "m.npy", m)
    np.save(tmp_path / "z.npy", np.zeros_like(m))
    text = KERNEL.format(shape="32x32b", num=4, regs=4)
    for old, new in (('num(4) warp(0) lane(0) column(0) %t :', 'num(4) warp(0) lane(0) column(0) '
                                                               'pack %t :'),
                     ('num(4) warp(0) lane(0) column(0) %t, %r', 'num(4) warp(0) lane(0) '
                                                                 'column(0) unpack %t, %r'),
                     ("memref<32x4xi32>", "memref<32x8xf16>")):
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "halves.mlir"
    path.write_text(text)
    code = main([str(path), "--input", f"m={tmp_path / 'm.npy'}", "--input",
                 f"zeros={tmp_path / 'z.npy'}", "--output", f"o={tmp_path / 'o.npy'}",
                 "--output", f"back={tmp_path / 'back.npy'}"])
    assert code == 0, capsys.readouterr().err
    low = (m.view(np.uint32) & 0xFFFF).astype(np.uint16)
    got = np.load(tmp_path / "o.npy")
    assert got.dtype == np.float16 and got.shape == (32, 8)
    assert np.array_equal(got.view(np.uint16), low[:, :8])
    back = np.zeros_like(m)
    back[:, :8] = low[:, :8].astype(np.int32)
    assert np.array_equal(np.load(tmp_path / "back.npy"), back)
