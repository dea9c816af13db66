"""Data movement into and out of tensor memory: `tcgen05.ld`, `tcgen05.st`, `tcgen05.cp`,
`tcgen05.shift`, `tcgen05.commit` (PTX ISA §9.7.16.8-9, "tcgen05.ld", "tcgen05.st", "tcgen05.cp",
"tcgen05.shift", "tcgen05.commit"; https://docs.nvidia.com/cuda/parallel-thread-execution/).

* `tcgen05.ld/st.sync.aligned.<shape>.<num>{.pack::16b|.unpack::16b}.b32`: one warp moves a block
  of TMEM to/from its registers. Shapes `.16x64b .16x128b .16x256b .32x32b .16x32bx2` (lanes x
  bits per lane per repetition); `.num` = `.x1 .x2 .x4 ... .x128` repetitions along the columns;
  each thread holds `base x num` 32-bit registers (base 1 for 32x32b/16x64b/16x32bx2, 2 for
  16x128b, 4 for 16x256b), at most 128 (so 16x128b stops at .x64 and 16x256b at .x32). The
  register counts are what ptxas 13.5 accepts (checked by assembling every shape x num x pack).
  `.16x32bx2` takes an extra immediate, the column offset of its second half (immHalfSplitoff).
  `.pack::16b` (ld) / `.unpack::16b` (st) pack two 16-bit elements of adjacent columns into one
  register; the register count does not change.
* Access restriction (R33): warp w of a warpgroup (w = %warpid % 4) reaches only TMEM lanes
  32w .. 32w+31. A `.32x32b` access covers the 32 lanes from its lane address, so the address lane
  must be 32w; a `.16x*` access covers 16 lanes, which must lie in the warp's quarter.
* `tcgen05.cp.cta_group.<shape>{.multicast}{.decompress} [taddr], s-desc`: SMEM (a matrix
  descriptor) -> TMEM. Shapes `.128x256b .4x256b .128x128b` (no multicast), `.64x128b` (needs
  `.warpx2::02_13` or `.warpx2::01_23`), `.32x128b` (needs `.warpx4`); decompression
  `.b8x16.b6x16_p32` or `.b8x16.b4x16_p64` (6-/4-bit elements to 8-bit containers).
* `tcgen05.shift.cta_group.down [taddr]`: "initiates the shifting of 32-byte elements downwards
  across all the rows, except the last, by one row ... The lane of the address operand taddr must
  be aligned to 32" (§9.7.16.9.3); its data movement shape is ".31x256b (implicit)"
  (§9.7.16.2.3). mmair's reading: the matrix is the 32-byte element (8 cells) at the address column
  of the 32 lanes from the (32-aligned) address lane; its first 31 rows move down one lane (lane
  r + 1 receives lane r), the old last lane is overwritten, and the first lane receives nothing
  the ISA defines (`shift_rows`) [inf: what the first lane holds]. `.ashift` on `tcgen05.mma` ("shifts the rows of the A matrix down
  by one row, except for the last row in the Tensor Memory", §9.7.16.10.9) is the same move on A's
  M lanes x its columns.
* `tcgen05.commit.cta_group.mbarrier::arrive::one.shared::cluster{.multicast::cluster}.b64
  [mbar] {, ctaMask}`: the mbarrier gets one arrive when all prior async tcgen05 ops of the thread
  (mma, cp, shift) complete; ctaMask (16 bits) names the CTAs of the cluster to signal.
"""

from __future__ import annotations

import numpy as np

from mmair.isa.tcgen05.errors import DescriptorError

#: Shape -> (TMEM lanes covered, 32-bit registers per thread per repetition).
LD_ST_SHAPES: dict[str, tuple[int, int]] = {
    "16x64b": (16, 1),
    "16x128b": (16, 2),
    "16x256b": (16, 4),
    "32x32b": (32, 1),
    "16x32bx2": (16, 1),
}
#: Repetition counts `.x1 ... .x128`.
LD_ST_NUMS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)
MAX_REGISTERS = 128
LANES_PER_WARP = 32
SHIFT_COLUMNS = 8
"""`tcgen05.shift` moves one 32-byte element (8 cells) per lane [inf: "32-byte elements"]."""
SHIFT_LANE_ALIGNMENT = 32
"""The lane of a `tcgen05.shift` address is a multiple of 32 (PTX ISA "tcgen05.shift")."""
SHIFT_LANES = 32
"""`tcgen05.shift` moves 31 rows (".31x256b") of a 32-lane matrix down one lane."""

#: tcgen05.cp shape -> the warp-multicast qualifiers it needs (None = no multicast).
CP_SHAPES: dict[str, tuple[str | None, ...]] = {
    "128x256b": (None,),
    "4x256b": (None,),
    "128x128b": (None,),
    "64x128b": ("warpx2::02_13", "warpx2::01_23"),
    "32x128b": ("warpx4",),
}
CP_DECOMPRESSIONS: tuple[str, ...] = ("b8x16.b6x16_p32", "b8x16.b4x16_p64")


def ld_st_registers(shape: str, num: int) -> int:
    """32-bit registers per thread of a tcgen05.ld/st (R33); raises for an illegal shape/num."""
    if shape not in LD_ST_SHAPES:
        raise DescriptorError("shape", shape, ", ".join(LD_ST_SHAPES), "R33",
                              "is not a tcgen05.ld/st shape")
    if num not in LD_ST_NUMS:
        raise DescriptorError("num", num, ", ".join(f"x{n}" for n in LD_ST_NUMS), "R33",
                              "is not a tcgen05.ld/st repetition count")
    regs = LD_ST_SHAPES[shape][1] * num
    if regs > MAX_REGISTERS:
        legal = [f"x{n}" for n in LD_ST_NUMS if LD_ST_SHAPES[shape][1] * n <= MAX_REGISTERS]
        raise DescriptorError("num", num, ", ".join(legal) + f" (.{shape})", "R33",
                              f"needs {regs} registers per thread (at most {MAX_REGISTERS})")
    return regs


def ld_st_columns(shape: str, num: int) -> int:
    """TMEM columns (32-bit cells per lane) one tcgen05.ld/st covers."""
    lanes, base = LD_ST_SHAPES[shape]
    if shape == "32x32b":
        return num
    # 16-lane shapes: 32 threads x registers spread over 16 lanes -> twice the columns per lane
    return 2 * base * num if shape != "16x32bx2" else 2 * num


def packed_cells(lanes: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`.pack::16b` (ld) / `.unpack::16b` (st): each 32-bit register holds two 16-bit elements of
    adjacent TMEM columns ("pack two 16-bit elements from adjacent columns into a single 32-bit
    element", PTX ISA "tcgen05.ld"). Register unit c of the `.b32` map becomes columns 2c (low
    half of the register) and 2c + 1 (high half), each element in the low 16 bits of its cell
    [inf: the ISA figures show the .b32 maps only]. Returns (32, registers, 2) arrays."""
    return (np.repeat(lanes[..., None], 2, axis=-1),
            2 * columns[..., None] + np.arange(2))


def ld_st_extent(shape: str, num: int, split: int = 0, pack: bool = False) -> tuple[int, int]:
    """(lanes, columns) from the address that a tcgen05.ld/st touches (with the `.16x32bx2`
    immHalfSplitoff `split` and `.pack::16b` / `.unpack::16b`)."""
    lanes, columns = ld_st_cells(shape, num, split)
    if pack:
        lanes, columns = packed_cells(lanes, columns)
    return int(lanes.max()) + 1, int(columns.max()) + 1


def ld_st_cells(shape: str, num: int, split: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(lane, column) offsets, each a (32 threads, registers) int array, of the TMEM cell that
    register r of thread t of a `.b32` tcgen05.ld/st (no pack/unpack) moves, relative to the
    address. PTX ISA "Matrix fragments for shape .32x32b/.16x64b/.16x128b/.16x256b" (figures
    183-186); the formulas are those of CUTLASS's SM100_TMEM_LOAD_* copy traits
    (cute/atom/copy_traits_sm100.hpp, DstLayout over a (bits x 16 lanes) reference):

    * .32x32b:  lane t,                        column r
    * .16x64b:  lane t // 4 + 8 (t % 2),       column (t // 2) % 2 + 2 r
    * .16x128b: lane t // 4 + 8 (r % 2),       column t % 4 + 4 (r // 2)
    * .16x256b: lane t // 4 + 8 ((r // 2) % 2), column 2 (t % 4) + r % 2 + 8 (r // 4)

    * .16x32bx2: lane t % 16,                  column r + split (t // 16)

    `split` is `.16x32bx2`'s immHalfSplitoff (the column offset of the second half-warp's
    16x32b block). The dialect's op has no such operand and its PTX emission writes 0: both
    half-warps then address the same cells (the broadcast form Triton also emits)."""
    regs = ld_st_registers(shape, num)
    t = np.arange(32)[:, None]
    r = np.arange(regs)[None, :]
    if shape == "32x32b":
        return np.broadcast_to(t, (32, regs)).copy(), np.broadcast_to(r, (32, regs)).copy()
    if shape == "16x64b":
        return (np.broadcast_to(t // 4 + 8 * (t % 2), (32, regs)).copy(),
                np.broadcast_to((t // 2) % 2 + 2 * r, (32, regs)).copy())
    if shape == "16x128b":
        return t // 4 + 8 * (r % 2), t % 4 + 4 * (r // 2)
    if shape == "16x256b":
        return t // 4 + 8 * ((r // 2) % 2), 2 * (t % 4) + r % 2 + 8 * (r // 4)
    assert shape == "16x32bx2"
    return (np.broadcast_to(t % 16, (32, regs)).copy(),
            np.broadcast_to(r + split * (t // 16), (32, regs)).copy())


def check_lane_quarter(shape: str, lane: int, warp: int) -> None:
    """R33: the lanes a warp's tcgen05.ld/st covers lie in its quarter 32w .. 32w+31."""
    if warp not in range(4):
        raise DescriptorError("warp", warp, "0..3 (%warpid % 4)", "R33",
                              "is not a warp of a warpgroup")
    lanes = LD_ST_SHAPES[shape][0]
    low = LANES_PER_WARP * warp
    if not (low <= lane and lane + lanes <= low + LANES_PER_WARP) or lane % 16:
        legal = f"{low}" if lanes == 32 else f"{low}, {low + 16}"
        raise DescriptorError("lane", lane, f"{legal} (warp {warp} reaches lanes {low}.."
                              f"{low + LANES_PER_WARP - 1}; .{shape} covers {lanes} lanes)",
                              "R33", "is outside the warp's lane quarter")


def check_cp(shape: str, multicast: str | None, decompress: str | None) -> None:
    """tcgen05.cp: shape, the multicast qualifier it needs, decompression."""
    if shape not in CP_SHAPES:
        raise DescriptorError("shape", shape, ", ".join(CP_SHAPES), None,
                              "is not a tcgen05.cp shape")
    legal = CP_SHAPES[shape]
    if multicast not in legal:
        shown = ", ".join("none" if m is None else m for m in legal)
        raise DescriptorError("multicast", multicast, f"{shown} (.{shape})", None,
                              f"is not legal with .{shape}")
    if decompress is not None and decompress not in CP_DECOMPRESSIONS:
        raise DescriptorError("decompress", decompress, ", ".join(CP_DECOMPRESSIONS), None,
                              "is not a tcgen05.cp decompression")


#: tcgen05.cp shape -> (rows of the source matrix, bits per row).
CP_ROWS_BITS: dict[str, tuple[int, int]] = {
    "128x256b": (128, 256),
    "4x256b": (4, 256),
    "128x128b": (128, 128),
    "64x128b": (64, 128),
    "32x128b": (32, 128),
}


def cp_lane_offsets(shape: str, multicast: str | None) -> list[tuple[int, ...]]:
    """For each source row of a tcgen05.cp, the TMEM lanes (offsets from the address lane) it is
    written to. Without multicast row r goes to lane r. `.warpx4` (32x128b) writes the 32 rows
    into each warp's lane quarter (lanes r + 32w). `.warpx2::02_13` / `::01_23` (64x128b) write
    rows 0-31 to the first warp of each named pair and rows 32-63 to the second: warps (0, 2)
    and (1, 3), or (0, 1) and (2, 3) (the pairs the qualifier names). `.4x256b` writes its 4 rows
    to lanes 0..3 from the address [inf: the shape's 4 lanes, as the other shapes without
    multicast]."""
    rows, _ = CP_ROWS_BITS[shape]
    if multicast is None:
        return [(r,) for r in range(rows)]
    if multicast == "warpx4":
        return [tuple(r + LANES_PER_WARP * w for w in range(4)) for r in range(rows)]
    pairs = {"warpx2::02_13": ((0, 2), (1, 3)), "warpx2::01_23": ((0, 1), (2, 3))}[multicast]
    return [tuple(r % LANES_PER_WARP + LANES_PER_WARP * w for w in pairs[r // LANES_PER_WARP])
            for r in range(rows)]


#: Decompression -> (bits per source element, packed bytes per 16-byte source unit).
CP_DECOMPRESSION_FORMATS: dict[str, tuple[int, int]] = {
    "b8x16.b6x16_p32": (6, 12),  # 16 x 6-bit elements, then 32 bits of padding
    "b8x16.b4x16_p64": (4, 8),  # 16 x 4-bit elements, then 64 bits of padding
}


def cp_decompress(data: np.ndarray, decompress: str) -> np.ndarray:
    """`tcgen05.cp .b8x16.<src>`: every 16-byte unit of the source rows (bytes, `uint8` (rows,
    n * 16)) holds 16 packed elements followed by padding (PTX ISA §9.7.16.9.1 "tcgen05.cp":
    "a contiguous set of 16 elements of 4-bits each followed by 8 bytes of padding", and of
    6 bits followed by 4 bytes); each becomes 16 bytes in TMEM, element i in byte i. Element i
    of a unit is bits [w i, w i + w) of the unit read little-endian, and lands in the low bits of
    its byte [inf: the bit order and the position inside the 8-bit container are not stated;
    the same reading as the executor's sub-byte SMEM operands]."""
    width, packed = CP_DECOMPRESSION_FORMATS[decompress]
    rows, nbytes = data.shape
    units = data.reshape(rows, nbytes // 16, 16)[:, :, :packed]
    bits = np.unpackbits(units, axis=-1, bitorder="little")  # (rows, units, packed * 8)
    elements = bits.reshape(rows, nbytes // 16, 16, width)
    weights = (1 << np.arange(width)).astype(np.uint8)
    return (elements * weights).sum(axis=-1, dtype=np.uint8).reshape(rows, nbytes)


__all__ = [
    "CP_DECOMPRESSIONS",
    "CP_DECOMPRESSION_FORMATS",
    "CP_ROWS_BITS",
    "CP_SHAPES",
    "LANES_PER_WARP",
    "LD_ST_NUMS",
    "LD_ST_SHAPES",
    "MAX_REGISTERS",
    "check_cp",
    "cp_decompress",
    "cp_lane_offsets",
    "check_lane_quarter",
    "ld_st_cells",
    "ld_st_columns",
    "ld_st_extent",
    "packed_cells",
    "ld_st_registers",
]


def shift_rows(lane: int, lanes: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A down shift of `lanes` rows from `lane`: (destination lanes, source lanes, the lane
    left undefined). Row lane + i + 1 receives row lane + i; the last row's old value is lost and
    the first row receives nothing the PTX ISA defines."""
    destination = np.arange(lane + 1, lane + lanes)
    return destination, destination - 1, lane
