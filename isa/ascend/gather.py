"""GatherMask (vector unit, instruction `vreducev2`), docs/ascend.md "GatherMask".

GatherMask reads src0 in UB in "repeats"; a bit pattern selects elements (1 = keep) and the kept
elements are written packed from the start of dst; the instruction returns the kept count.

* Normal mode: each repeat covers 256 bytes (`elements_per_repeat`), `repeat_times` repeats.
* Counter mode, method 1 (a2, a3, a5, 200i_a2): each repeat covers `mask` elements (it may span
  more than 256 bytes, §12e), `repeat_times` repeats.
* Counter mode, method 2 (310p): `mask` is the total element count; `repeat_times` is ignored and
  the instruction runs ceil(mask / elements_per_repeat) repeats of at most 256 bytes.

Addressing (strides in 32-byte DataBlocks; e = index inside repeat r, s = element bytes,
epb = 32 / s): `src0 byte = r*src0RepeatStride*32 + (e//epb)*src0BlockStride*32 + (e%epb)*s`.

Patterns: built-in 1..7 repeat a 4-bit motif (bit 0 = element 0); a user pattern is a tensor of
u8/u16/u32 words whose bits are consumed LSB first, continuously inside a repeat; repeat r starts at
byte `r*src1RepeatStride*32` of the pattern buffer (stride 0 reuses the same bits).
"""

from __future__ import annotations

import numpy as np

from mmair.isa.ascend.targets import (
    GATHER_BLOCK_BYTES,
    GATHER_REPEAT_BYTES,
    element_bits,
)

# Built-in pattern -> the 4-bit motif repeated over the repeat (bit i keeps element e, e % 4 == i).
BUILTIN_PATTERN_MOTIFS: dict[int, int] = {
    1: 0b0101,  # e % 2 == 0
    2: 0b1010,  # e % 2 == 1
    3: 0b0001,  # e % 4 == 0
    4: 0b0010,  # e % 4 == 1
    5: 0b0100,  # e % 4 == 2
    6: 0b1000,  # e % 4 == 3
    7: 0b1111,  # all
}
BUILTIN_PATTERNS: tuple[int, ...] = tuple(BUILTIN_PATTERN_MOTIFS)
COUNTER_METHODS: tuple[int, ...] = (1, 2)


def _element_size(elem: str) -> int:
    bits = element_bits(elem)
    if bits % 8 or GATHER_BLOCK_BYTES % (bits // 8):
        raise ValueError(f"GatherMask does not take {bits}-bit element type {elem!r}")
    return bits // 8


def elements_per_repeat(elem: str) -> int:
    """Elements in one 256-byte repeat (128 for b16, 64 for b32, 256 for b8)."""
    return GATHER_REPEAT_BYTES // _element_size(elem)


def elements_per_block(elem: str) -> int:
    """Elements in one 32-byte DataBlock (the stride unit)."""
    return GATHER_BLOCK_BYTES // _element_size(elem)


def builtin_pattern_mask(pattern: int, count: int) -> np.ndarray:
    """Keep-mask (bool[count]) of built-in `pattern` (1..7) for the first `count` elements of a
    repeat; bit 0 of the motif is element 0."""
    if pattern not in BUILTIN_PATTERN_MOTIFS:
        raise ValueError(f"built-in GatherMask pattern must be in [1, 7], got {pattern}")
    e = np.arange(count, dtype=np.int64)
    return ((BUILTIN_PATTERN_MOTIFS[pattern] >> (e % 4)) & 1).astype(bool)


def _pattern_bits(words: np.ndarray) -> np.ndarray:
    w = np.ascontiguousarray(np.asarray(words))
    if w.dtype.kind != "u":
        raise ValueError(f"user pattern words must be unsigned integers, got dtype {w.dtype}")
    w = w.astype(w.dtype.newbyteorder("<"), copy=False).reshape(-1)
    return np.unpackbits(w.view(np.uint8), bitorder="little").astype(bool)


def user_pattern_bits(words: np.ndarray, count: int) -> np.ndarray:
    """The first `count` pattern bits (bool) of the unsigned word array `words`: bit e is bit
    e % w of word e // w (w = word width), LSB first."""
    bits = _pattern_bits(words)
    if count > bits.size:
        raise ValueError(f"user pattern holds {bits.size} bits, {count} needed")
    return bits[:count]


def repeat_counts(
    counter: bool, method: int, elem: str, repeat_times: int, mask: int
) -> np.ndarray:
    """Elements covered by each repeat (int64 array, one entry per repeat).

    Normal mode (`counter` False): `repeat_times` x elements_per_repeat; `mask` is ignored.
    Counter method 1: `repeat_times` x `mask`. Counter method 2: `mask` elements in total, in
    repeats of at most elements_per_repeat (`repeat_times` is ignored)."""
    epr = elements_per_repeat(elem)
    if not counter:
        return np.full(repeat_times, epr, dtype=np.int64)
    if method == 1:
        return np.full(repeat_times, mask, dtype=np.int64)
    if method == 2:
        n_full, tail = divmod(mask, epr)
        counts = np.full(n_full, epr, dtype=np.int64)
        return np.append(counts, tail) if tail else counts
    raise ValueError(f"GatherMask counter method must be 1 or 2, got {method}")


def src0_byte_offsets(
    elem: str, repeat: int | np.ndarray, e: int | np.ndarray, block_stride: int, repeat_stride: int
) -> np.ndarray:
    """Byte offset in src0 of element `e` of repeat `repeat` (vectorized, broadcasting)."""
    s = _element_size(elem)
    epb = GATHER_BLOCK_BYTES // s
    r = np.asarray(repeat, dtype=np.int64)
    ee = np.asarray(e, dtype=np.int64)
    return (
        r * repeat_stride * GATHER_BLOCK_BYTES
        + (ee // epb) * block_stride * GATHER_BLOCK_BYTES
        + (ee % epb) * s
    )


def src0_footprint_bytes(
    elem: str, repeat_times: int, count_per_repeat: int, block_stride: int, repeat_stride: int
) -> int:
    """Bytes of src0 the instruction reads from its start: last byte touched + 1 (§9 formula).
    u16, block_stride 4, repeat_stride 7, 3 repeats of 100 elements -> 1224."""
    if repeat_times <= 0 or count_per_repeat <= 0:
        return 0
    s = _element_size(elem)
    epb = GATHER_BLOCK_BYTES // s
    last = count_per_repeat - 1
    last_block = last // epb
    # The largest in-repeat offset: the last element, or (block_stride 0) the end of a
    # previous full block.
    in_repeat = last_block * block_stride * GATHER_BLOCK_BYTES + (last % epb) * s
    if last_block >= 1:
        in_repeat = max(
            in_repeat, (last_block - 1) * block_stride * GATHER_BLOCK_BYTES + (epb - 1) * s
        )
    return (repeat_times - 1) * repeat_stride * GATHER_BLOCK_BYTES + in_repeat + s


def gather_mask_indices(
    elem: str,
    counts: np.ndarray,
    block_stride: int,
    repeat_stride: int,
    pattern: int | None = None,
    pattern_words: np.ndarray | None = None,
    src1_repeat_stride: int = 0,
) -> np.ndarray:
    """src0 element indices of the kept elements, in dst order (int64). `counts` comes from
    `repeat_counts`. Give either a built-in `pattern` or the user `pattern_words` (the whole
    src1 buffer, unsigned words). dst[:len(result)] = src0_flat[result]; len(result) is rsvdCnt.
    Raises ValueError if the user pattern does not cover every repeat."""
    s = _element_size(elem)
    counts = np.asarray(counts, dtype=np.int64)
    if (pattern is None) == (pattern_words is None):
        raise ValueError("give exactly one of a built-in pattern and user pattern words")
    if counts.size == 0:
        return np.zeros(0, dtype=np.int64)
    width = int(counts.max())
    repeats = np.arange(counts.size, dtype=np.int64)[:, None]
    e = np.arange(width, dtype=np.int64)[None, :]
    valid = e < counts[:, None]
    if pattern is not None:
        keep = np.broadcast_to(builtin_pattern_mask(pattern, width)[None, :], valid.shape)
    else:
        bits = _pattern_bits(pattern_words)  # type: ignore[arg-type]
        start = repeats * src1_repeat_stride * GATHER_BLOCK_BYTES * 8
        need = int((start[:, 0] + counts).max())
        if need > bits.size:
            raise ValueError(
                f"user pattern of {bits.size} bits does not cover all repeats ({need} bits needed)"
            )
        idx = np.minimum(start + e, bits.size - 1)
        keep = bits[idx]
    keep = keep & valid
    offsets = src0_byte_offsets(elem, repeats, e, block_stride, repeat_stride)
    return (offsets[keep] // s).astype(np.int64)  # row-major: repeat order, then element order


def max_kept(counts: np.ndarray) -> int:
    """Upper bound of the kept count (for the dst capacity check, rule X3)."""
    return int(np.asarray(counts, dtype=np.int64).sum())
