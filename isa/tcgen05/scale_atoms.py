"""The scale-factor atom: how block-scale factors are laid out in global and shared memory for
`tcgen05.cp .32x128b.warpx4` (CUTLASS `Sm1xxBlockScaledBasicChunk::SfKMajorAtom`,
`include/cutlass/detail/sm100_blockscaled_layout.hpp`).

One atom holds the scale factors of 128 operand rows (A rows m, or B columns n) for 4
consecutive scale blocks along K (4 x the scale-vector size of K elements): 512 bytes, byte
`16 m0 + 4 m1 + k1` holding the scale of row `32 m1 + m0` and K block `k1`. Its 32 rows of 16
bytes are the 32 x 128-bit rows of one `tcgen05.cp .32x128b.warpx4`: row m0 lands in TMEM lane
m0 of every 32-lane quadrant, its 4 bytes `4 m1 .. 4 m1 + 3` in column `m1`. That is the TMEM
layout an MMA reads (`layouts.scale_factor_cells`): row r at lane r % 32, column r // 32, the
scale of the MMA's K block j at byte SF_ID + j.

A whole operand's scales are atoms tiled K first, then M/N (`tile_atom_to_shape_SFA`: `Step<_2,
_1>`), padded to whole atoms: mmair spells them as a row-major memref
`[ceil(rows / 128), ceil(K / (4 VS)), 32, 16]`, the bytes a CUTLASS user already has.
`atoms_from_logical` / `logical_from_atoms` convert from and to the logical [rows, K / VS] matrix.

There is no MN-major scale-factor layout to add (`MN_MAJOR_IS_K_MAJOR`, pinned by
tests/unit/isa/tcgen05/test_isa_tcgen05_scale_atoms.py):

* PTX: the MMA reads the scales from TMEM in one fixed layout (row r at lane r % 32 of every
  quadrant, column r // 32, K block j at byte SF_ID + j of the 32-bit cell), and
  `tcgen05.cp .32x128b.warpx4` moves each 16-byte SMEM row to one lane's 4 columns as it is: the
  copy has no transpose, and its SMEM descriptor has no major field (the transpose bits of the
  instruction descriptor apply to A and B, not to the scale operands). So the SMEM row m0 must
  already hold, for each of the rows m0 + 32 m1, its 4 consecutive K blocks: the atom above is the
  only byte order the TMA -> SMEM -> tcgen05.cp -> MMA path can consume. An operand given
  MN-major (kind::mxf8f6f4 with `transpose_a`, or B as given) keeps this scale layout: a scale
  belongs to one row of M (column of N) and one K block whatever the operand's major.
* CUTLASS: `Sm1xxBlockScaledConfig` (SFA, SFB) is K-major only. `Sm1xxBlockScaledBasicChunk<VS,
  UMMA::Major::MN>::SfMNMajorAtom`, which CUTLASS uses only for the scale factors an epilogue
  writes (`Sm1xxBlockScaledOutputConfig`, SFD), is `((VS, 4), (32, 4)) : ((0, 1), (16, 4))`:
  the K-major atom `((32, 4), (VS, 4)) : ((16, 4), (0, 1))` with its two modes swapped, the same
  offset of every (row, K) element; and it is tiled K atoms first (`tile_to_shape(..., Step<_1,
  _2>)` on (K, MN) against `Step<_2, _1>` on (MN, K)), the same order of atoms. Its bytes are
  these atoms' bytes, indexed (K, MN) instead of (MN, K).
"""

from __future__ import annotations

import numpy as np

#: Operand rows (M or N) of one atom, and its K blocks.
ATOM_ROWS = 128
ATOM_BLOCKS = 4
#: The atom's rows of 16 bytes (one tcgen05.cp .32x128b source row each).
ATOM_LANES = 32
ATOM_ROW_BYTES = 16
ATOM_BYTES = ATOM_LANES * ATOM_ROW_BYTES
#: TMEM columns one atom fills (4 bytes of a 32-bit cell per column).
ATOM_COLUMNS = ATOM_ROWS // ATOM_LANES
#: The tcgen05.cp that moves one atom SMEM -> TMEM.
CP_SHAPE = "32x128b"
CP_MULTICAST = "warpx4"
#: Its SMEM source descriptor (K-major, no swizzle): 8 rows of 16 bytes per SBO step; one core
#: matrix along K, so LBO is never used (16, the smallest legal value).
CP_LBO = 16
CP_SBO = 8 * ATOM_ROW_BYTES


#: CUTLASS's MN-major scale-factor layout is byte for byte the K-major one (module docstring).
MN_MAJOR_IS_K_MAJOR = True


def atoms_shape(rows: int, k: int, vector: int) -> tuple[int, int, int, int]:
    """The memref shape of the scale factors of `rows` operand rows over K = `k` with one scale
    per `vector` K elements."""
    blocks = -(-k // vector)
    return (-(-rows // ATOM_ROWS), -(-blocks // ATOM_BLOCKS), ATOM_LANES, ATOM_ROW_BYTES)


def atoms_from_logical(scales: np.ndarray, fill: int = 0) -> np.ndarray:
    """Logical scale codes [rows, blocks] -> atoms [rows / 128, blocks / 4, 32, 16] (padding
    `fill`)."""
    rows, blocks = scales.shape
    rt, bt = -(-rows // ATOM_ROWS), -(-blocks // ATOM_BLOCKS)
    padded = np.full((rt * ATOM_ROWS, bt * ATOM_BLOCKS), fill, dtype=scales.dtype)
    padded[:rows, :blocks] = scales
    # row = rt 128 + m1 32 + m0, block = bt 4 + k1 -> [rt, bt, m0, m1, k1]
    tiles = padded.reshape(rt, ATOM_COLUMNS, ATOM_LANES, bt, ATOM_BLOCKS)
    return np.ascontiguousarray(tiles.transpose(0, 3, 2, 1, 4)).reshape(
        rt, bt, ATOM_LANES, ATOM_ROW_BYTES)


def logical_from_atoms(atoms: np.ndarray) -> np.ndarray:
    """Atoms [RT, BT, 32, 16] -> the logical scale codes [RT 128, BT 4] (padding included)."""
    rt, bt = atoms.shape[:2]
    tiles = atoms.reshape(rt, bt, ATOM_LANES, ATOM_COLUMNS, ATOM_BLOCKS)
    return np.ascontiguousarray(tiles.transpose(0, 3, 2, 1, 4)).reshape(
        rt * ATOM_ROWS, bt * ATOM_BLOCKS)


__all__ = [
    "ATOM_BLOCKS",
    "ATOM_BYTES",
    "ATOM_COLUMNS",
    "ATOM_LANES",
    "ATOM_ROWS",
    "ATOM_ROW_BYTES",
    "CP_LBO",
    "CP_MULTICAST",
    "CP_SBO",
    "CP_SHAPE",
    "MN_MAJOR_IS_K_MAJOR",
    "atoms_from_logical",
    "atoms_shape",
    "logical_from_atoms",
]
