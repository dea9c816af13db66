"""isa/tcgen05/scale_atoms.py: the scale-factor atoms are CUTLASS's K-major SFA/SFB layout, and
CUTLASS's MN-major scale-factor layout (SfMNMajorAtom tiled Step<_1, _2>) puts every scale at the
same byte: there is no second layout to lower. The CuTe layouts are evaluated here from their
shapes and strides (colexicographic coordinates, as CuTe does)."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.isa.tcgen05 import scale_atoms


def _cute_offset(coord: int, shape: tuple[int, ...], stride: tuple[int, ...]) -> int:
    """The offset of a 1-d coordinate in a flat CuTe (shape, stride) mode (colexicographic)."""
    offset = 0
    for extent, step in zip(shape, stride, strict=True):
        offset += coord % extent * step
        coord //= extent
    return offset


def _k_major(row: int, block: int, blocks: int) -> int:
    """Byte of scale (row, K block) in SfKMajorAtom ((32, 4), (VS, 4)) : ((16, 4), (0, 1)) tiled
    over (MN, K) with Step<_2, _1> (K atoms innermost); `block` counts scale blocks (K / VS)."""
    atoms_k = -(-blocks // scale_atoms.ATOM_BLOCKS)
    inner = _cute_offset(row % 128, (32, 4), (16, 4)) + _cute_offset(block % 4, (4,), (1,))
    return (row // 128 * atoms_k + block // 4) * scale_atoms.ATOM_BYTES + inner


def _mn_major(block: int, row: int, blocks: int) -> int:
    """Byte of scale (K block, row) in SfMNMajorAtom ((VS, 4), (32, 4)) : ((0, 1), (16, 4)) tiled
    over (K, MN) with Step<_1, _2> (mode 0, the K atoms, innermost)."""
    atoms_k = -(-blocks // scale_atoms.ATOM_BLOCKS)
    inner = _cute_offset(block % 4, (4,), (1,)) + _cute_offset(row % 128, (32, 4), (16, 4))
    return (block // 4 + row // 128 * atoms_k) * scale_atoms.ATOM_BYTES + inner


@pytest.mark.parametrize(("rows", "blocks"), [(128, 4), (200, 10), (256, 8)])
def test_atoms_are_cutlass_k_major_and_mn_major_is_the_same_bytes(rows: int, blocks: int) -> None:
    codes = np.arange(rows * blocks, dtype=np.int64).reshape(rows, blocks)
    flat = scale_atoms.atoms_from_logical(codes, fill=-1).reshape(-1)
    for row in range(rows):
        for block in range(blocks):
            byte = _k_major(row, block, blocks)
            assert byte == _mn_major(block, row, blocks)
            assert flat[byte] == codes[row, block]
    assert scale_atoms.MN_MAJOR_IS_K_MAJOR


def test_a_16_byte_atom_row_holds_4_k_blocks_of_4_rows_for_one_tmem_lane() -> None:
    # tcgen05.cp .32x128b.warpx4 copies SMEM row m0 to lane m0 of each quadrant as it is; the MMA
    # reads row 32 m1 + m0 at column m1, K block j at byte j: the row must be (m1, k1) -> 4 m1 + k1
    codes = np.arange(128 * 4).reshape(128, 4)
    atom = scale_atoms.atoms_from_logical(codes)[0, 0]
    for m0 in range(scale_atoms.ATOM_LANES):
        want = [codes[32 * m1 + m0, k1] for m1 in range(4) for k1 in range(4)]
        assert atom[m0].tolist() == want
