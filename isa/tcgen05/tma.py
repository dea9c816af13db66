"""TMA: tensor maps, `cp.async.bulk.tensor` boxes and mbarrier transaction counts (pure data).

A Blackwell kernel fills shared memory with the Tensor Memory Accelerator: one thread issues
`cp.async.bulk.tensor` with a *tensor map* (a 128-byte opaque object the host builds with the CUDA
driver's `cuTensorMapEncodeTiled` and passes as a `.param .align 64 .b8 [128]` kernel parameter)
and the box's starting coordinates; TMA copies the box into SMEM, swizzled as the map says, and
performs a *complete-tx* of the box's byte count on an mbarrier. The mbarrier phase completes when
its pending arrivals reach zero *and* its tx-count (raised by `mbarrier.arrive.expect_tx`) is back
to zero.

Sources (quoted in docs/tcgen05-tma.md):

* CUDA Driver API, `cuTensorMapEncodeTiled` (the requirement list on every parameter): rank 1-5
  (3-5 when interleaved), globalDim in 1..2^32, globalStrides multiples of 16 (32 with 32B
  interleave or the 16-byte-aligned packed types) below 2^40 and each including the previous
  dimension, boxDim in 1..256 with boxDim[0] * element size a multiple of 16 bytes (no interleave),
  elementStrides in 1..8, the swizzle span bounding the inner box row, 32B interleave requiring
  32B swizzle, the NaN fill only for float types, the packed types' extra rules.
* PTX ISA 9.x §5.5 "Tensors" (markdown-ptx-isa decfd57, 05-state-spaces-types-variables/
  03-tensors-part1.md and 04-tensors-part2.md): tiled mode, the bounding box, traversal stride
  (dimension 0 must be 1 without interleave, §5.5.3.2), zero / OOB-NaN fill (§5.5.3.3), the
  swizzle tables and the swizzle base offset (§5.5.7).
* PTX ISA §9.7.9.25.5.2 `cp.async.bulk.tensor` (09-instruction-set/09-data-movement-conversion/
  10-async-copy-tensor.md) and §9.7.13.15 mbarrier (tx-count range ±(2^20 - 1), phase completion).

The swizzle TMA applies is the one `tcgen05.mma` descriptors name: `layouts.swizzle_addresses` on
absolute SMEM byte addresses (the base offset of §5.5.7 is the address's own phase), one fact for
both.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

from mmair.isa.tcgen05 import layouts
from mmair.isa.tcgen05.errors import DescriptorError

#: Tensor-map data types (CUtensorMapDataType, in PTX spelling) -> bits per element.
DATA_TYPES: dict[str, int] = {
    "u8": 8, "u16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64,
    "f16": 16, "f32": 32, "f64": 64, "bf16": 16, "f32_ftz": 32, "tf32": 32, "tf32_ftz": 32,
    "b4x16": 4, "b4x16_p64": 4, "b6x16_p32": 6,
}
#: The CUDA driver enum name of each data type (docs and the host-side recipe).
CU_DATA_TYPES: dict[str, str] = {
    "u8": "UINT8", "u16": "UINT16", "u32": "UINT32", "s32": "INT32", "u64": "UINT64",
    "s64": "INT64", "f16": "FLOAT16", "f32": "FLOAT32", "f64": "FLOAT64", "bf16": "BFLOAT16",
    "f32_ftz": "FLOAT32_FTZ", "tf32": "TFLOAT32", "tf32_ftz": "TFLOAT32_FTZ",
    "b4x16": "16U4_ALIGN8B", "b4x16_p64": "16U4_ALIGN16B", "b6x16_p32": "16U6_ALIGN16B",
}
FLOAT_TYPES = frozenset({"f16", "f32", "f64", "bf16", "f32_ftz", "tf32", "tf32_ftz"})
#: The packed sub-byte types padded to 16 bytes (16U4_ALIGN16B, 16U6_ALIGN16B).
PADDED_TYPES = frozenset({"b4x16_p64", "b6x16_p32"})
INTERLEAVES: tuple[str, ...] = ("none", "16b", "32b")
#: Swizzle modes, named as the SMEM matrix descriptor names them (`smem.SWIZZLES`);
#: `sw128_base32b` is CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B (128B swizzle, 32-byte atomicity).
SWIZZLES: tuple[str, ...] = ("none", "sw32", "sw64", "sw128", "sw128_base32b")
CU_SWIZZLES: dict[str, str] = {
    "none": "NONE", "sw32": "32B", "sw64": "64B", "sw128": "128B", "sw128_base32b": "128B_ATOM_32B",
}
#: Bytes of the span each swizzle permutes 16-byte (32-byte) chunks in (None: no swizzle).
SWIZZLE_SPAN: dict[str, int | None] = {
    "none": None, "sw32": 32, "sw64": 64, "sw128": 128, "sw128_base32b": 128,
}
OOB_FILLS: tuple[str, ...] = ("zero", "nan")

MAX_RANK = 5
MAX_GLOBAL_DIM = 1 << 32
STRIDE_LIMIT = 1 << 40
MAX_BOX_DIM = 256
MAX_ELEMENT_STRIDE = 8
TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 64
#: `cp.async.bulk.tensor` destination alignment in shared memory (CUDA C++ Programming Guide,
#: "Tensor Memory Access", alignment table: shared memory address 128-byte aligned).
SMEM_ALIGN = 128

#: PTX `.dst` state spaces of a global -> shared `cp.async.bulk.tensor`.
DESTINATIONS: tuple[str, ...] = ("cta", "cluster")
#: The bit pattern of OOB-NaN (the canonical quiet NaN of each float width) [inf: the ISA names
#: "a special NaN called OOB-NaN" without giving its bits].
_NAN_BITS: dict[int, int] = {16: 0x7FFF, 32: 0x7FFFFFFF, 64: 0x7FFFFFFFFFFFFFFF}


@dataclass(frozen=True)
class TensorMap:
    """The fields of `cuTensorMapEncodeTiled`, innermost dimension first (dims[0] is the
    fastest-varying, as the driver takes them); `strides` are the byte strides of dims 1..rank-1."""

    dtype: str
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: str = "none"
    swizzle: str = "none"
    oob_fill: str = "zero"

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def element_bits(self) -> int:
        return DATA_TYPES[self.dtype]

    @property
    def box_elements(self) -> tuple[int, ...]:
        """Elements the box copies along each dimension: ceil(box / element stride)."""
        return tuple(-(-b // s) for b, s in zip(self.box, self.element_strides, strict=True))

    @property
    def box_bytes(self) -> int:
        """Bytes one copy completes on the mbarrier (its transaction count): the box's packed
        data, without the padding of the padded types [inf: as CUTLASS counts them, its
        `TmaTransactionBytes` = box elements x sizeof_bits of the global element type, 4 or 6
        for the f8f6f4 sub-byte types; the ISA does not say]."""
        return prod(self.box_elements) * self.element_bits // 8

    @property
    def smem_element_bits(self) -> int:
        """Bits one element takes in SMEM: 8 for the padded types (16 elements and their padding
        per 16-byte unit, §5.5.1.1.1), else the element width."""
        return 8 if self.dtype in PADDED_TYPES else self.element_bits

    @property
    def smem_box_bytes(self) -> int:
        """Bytes of SMEM one copy covers: `box_bytes`, plus the padding of the padded types."""
        return prod(self.box_elements) * self.smem_element_bits // 8

    def as_dict(self) -> dict[str, object]:
        return {"dtype": self.dtype, "dims": list(self.dims), "strides": list(self.strides),
                "box": list(self.box), "element_strides": list(self.element_strides),
                "interleave": self.interleave, "swizzle": self.swizzle, "oob_fill": self.oob_fill}


def stride_unit(dtype: str, interleave: str = "none") -> int:
    """The bytes every globalStride must be a multiple of (TMA5): 32 with 32B interleave or a
    16-byte-aligned packed type, else 16."""
    return 32 if interleave == "32b" or dtype in PADDED_TYPES else 16


def _legal(values: tuple[str, ...] | dict[str, object]) -> str:
    return ", ".join(values)


def check_tensor_map(m: TensorMap) -> None:
    """Every `cuTensorMapEncodeTiled` requirement the fields alone decide (rules TMA1-TMA13 of
    docs/tcgen05-tma.md); raises `DescriptorError` naming the field, value and legal set."""
    if m.dtype not in DATA_TYPES:
        raise DescriptorError("dtype", m.dtype, _legal(DATA_TYPES), "TMA1", "is not a tensor-map type")
    for name, value, legal in (("interleave", m.interleave, INTERLEAVES),
                               ("swizzle", m.swizzle, SWIZZLES),
                               ("oob_fill", m.oob_fill, OOB_FILLS)):
        if value not in legal:
            raise DescriptorError(name, value, _legal(legal), "TMA1", f"is not a tensor-map {name} mode")
    rank = m.rank
    if not 1 <= rank <= MAX_RANK:
        raise DescriptorError("dims", list(m.dims), f"1 to {MAX_RANK} dimensions", "TMA2",
                              f"has rank {rank}")
    for name, values, want in (("strides", m.strides, rank - 1), ("box", m.box, rank),
                               ("element_strides", m.element_strides, rank)):
        if len(values) != want:
            raise DescriptorError(name, list(values), f"{want} entries (rank {rank})", "TMA2",
                                  f"has {len(values)} entries")
    if m.interleave != "none" and rank < 3:
        raise DescriptorError("interleave", m.interleave, "none (rank < 3)", "TMA3",
                              f"needs rank 3 to 5, the map has rank {rank}")
    for i, dim in enumerate(m.dims):
        if not 1 <= dim <= MAX_GLOBAL_DIM:
            raise DescriptorError(f"dims[{i}]", dim, "1 to 2^32", "TMA4", "is out of range")
    bits = m.element_bits
    unit = stride_unit(m.dtype, m.interleave)
    extent = m.dims[0] * bits // 8  # bytes of dimension 0 (the packed types: whole values)
    for i, stride in enumerate(m.strides):
        if stride % unit or not 0 < stride < STRIDE_LIMIT:
            raise DescriptorError(f"strides[{i}]", stride,
                                  f"a multiple of {unit} below 2^40", "TMA5", "is not legal")
        if stride < extent:
            raise DescriptorError(f"strides[{i}]", stride, f">= {extent} (dims[{i}] x the "
                                  f"previous stride: each stride includes the previous dimension)",
                                  "TMA6", "overlaps the previous dimension")
        extent = stride * m.dims[i + 1]
    for i, b in enumerate(m.box):
        if not 1 <= b <= MAX_BOX_DIM:
            raise DescriptorError(f"box[{i}]", b, f"1 to {MAX_BOX_DIM}", "TMA7", "is out of range")
    inner = m.box[0] * bits // 8
    if m.interleave == "none" and (m.box[0] * bits) % 128:
        raise DescriptorError("box[0]", m.box[0], "box[0] x element size a multiple of 16 bytes",
                              "TMA8", f"gives an inner box row of {m.box[0] * bits / 8:g} bytes")
    for i, s in enumerate(m.element_strides):
        if not 1 <= s <= MAX_ELEMENT_STRIDE:
            raise DescriptorError(f"element_strides[{i}]", s, f"1 to {MAX_ELEMENT_STRIDE}", "TMA9",
                                  "is out of range")
    if m.interleave == "none" and m.element_strides[0] != 1:
        raise DescriptorError("element_strides[0]", m.element_strides[0],
                              "1 (dimension 0 has no traversal stride without interleave)", "TMA9",
                              "is not legal")
    span = SWIZZLE_SPAN[m.swizzle]
    if m.interleave == "none" and span is not None and inner > span:
        raise DescriptorError("box[0]", m.box[0], f"an inner box row of at most {span} bytes "
                              f"(swizzle {m.swizzle})", "TMA10",
                              f"gives an inner box row of {inner} bytes")
    if m.interleave == "32b" and m.swizzle != "sw32":
        raise DescriptorError("swizzle", m.swizzle, "sw32 (interleave 32b)", "TMA11", "is not legal")
    if m.oob_fill == "nan" and m.dtype not in FLOAT_TYPES:
        raise DescriptorError("oob_fill", m.oob_fill, f"zero (dtype {m.dtype} is not a float type)",
                              "TMA12", "is not legal")
    if m.dtype in PADDED_TYPES:
        if m.dims[0] % 128:
            raise DescriptorError("dims[0]", m.dims[0], f"a multiple of 128 ({m.dtype})", "TMA13",
                                  "is not legal")
        if m.box[0] != 128:
            raise DescriptorError("box[0]", m.box[0], f"128 ({m.dtype})", "TMA13", "is not legal")
        if m.swizzle not in ("none", "sw128", "sw128_base32b"):
            raise DescriptorError("swizzle", m.swizzle, f"none, sw128, sw128_base32b ({m.dtype})",
                                  "TMA13", "is not legal")
        if m.dtype == "b6x16_p32" and m.interleave != "none":
            raise DescriptorError("interleave", m.interleave, "none (b6x16_p32)", "TMA13",
                                  "is not legal")
    if m.dtype == "b4x16" and m.dims[0] % 2:
        raise DescriptorError("dims[0]", m.dims[0], "a multiple of 2 (b4x16)", "TMA13", "is not legal")


def check_copy(m: TensorMap, coordinates: int, dst_bytes: int | None, dst_offset: int | None,
               destination: str, multicast: bool, cta_group: int | None) -> None:
    """A tile-mode global -> shared `cp.async.bulk.tensor` with map `m` (rules TMA14-TMA18)."""
    if coordinates != m.rank:
        raise DescriptorError("coordinates", coordinates, f"{m.rank} (the map's rank: .{m.rank}d)",
                              "TMA14", "is the wrong count")
    if dst_bytes is not None and dst_bytes != m.smem_box_bytes:
        raise DescriptorError("destination bytes", dst_bytes,
                              f"{m.smem_box_bytes} (the box {'x'.join(map(str, m.box_elements))}"
                              f" of {m.dtype})", "TMA15", "do not hold the box")
    if dst_offset is not None and dst_offset % SMEM_ALIGN:
        raise DescriptorError("destination offset", dst_offset, f"a multiple of {SMEM_ALIGN}",
                              "TMA16", "is not aligned")
    if destination not in DESTINATIONS:
        raise DescriptorError("destination", destination, _legal(DESTINATIONS), "TMA17",
                              "is not a state space")
    if multicast and destination != "cluster":
        raise DescriptorError("multicast", True, "only with the shared::cluster destination",
                              "TMA17", "is not legal")
    if cta_group is not None and cta_group not in (1, 2):
        raise DescriptorError("cta_group", cta_group, "1, 2", "TMA18", "is not legal")


# ----------------------------------------------------------------------------------------------
# What one copy does (the executor calls these; whole boxes, numpy index arithmetic)


def box_indices(m: TensorMap, coords: tuple[int, ...]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per dimension (innermost first), the global indices the box visits, and the in-bounds mask
    of the whole box in row-major (outermost first) order, shape `box_elements` reversed."""
    index = [c + np.arange(n, dtype=np.int64) * s
             for c, n, s in zip(coords, m.box_elements, m.element_strides, strict=True)]
    inside = np.ones((), dtype=bool)
    for idx, dim in zip(reversed(index), reversed(m.dims), strict=True):
        inside = inside[..., None] & ((idx >= 0) & (idx < dim))
    return index, inside


def oob_fill_bits(m: TensorMap) -> int:
    """The bit pattern out-of-bounds elements get: 0, or OOB-NaN for the `nan` fill."""
    return _NAN_BITS[m.element_bits] if m.oob_fill == "nan" else 0


def gather_box(m: TensorMap, tensor: np.ndarray, coords: tuple[int, ...]) -> np.ndarray:
    """The box of `tensor` (the global tensor, outermost dimension first, a numpy array of shape
    dims reversed) at `coords` (innermost first), out-of-bounds elements filled (§5.5.3.3); shape
    `box_elements` reversed, the tensor's dtype."""
    index, inside = box_indices(m, coords)
    clipped = [np.clip(i, 0, d - 1) for i, d in zip(index, m.dims, strict=True)]
    box = tensor[np.ix_(*reversed(clipped))]
    raw = box.view(f"u{box.itemsize}").copy()
    raw[~inside] = oob_fill_bits(m)
    return raw.view(tensor.dtype)


def smem_addresses(m: TensorMap, dst: int) -> np.ndarray:
    """The SMEM byte address of every byte of the box (row-major, dimension 0 innermost), swizzled
    as the map says on absolute addresses (`layouts.swizzle_addresses`; the base offset of PTX
    §5.5.7 is the destination's own phase). Interleaved layouts are not modelled."""
    if m.interleave != "none":
        raise DescriptorError("interleave", m.interleave, "none (interleaved layouts are not "
                              "modelled by the executor)", "TMA1", "is not supported")
    span = SWIZZLE_SPAN[m.swizzle]
    inner = m.box_elements[0] * m.smem_element_bits // 8
    if span is not None and inner != span:
        raise DescriptorError("box[0]", m.box[0], f"an inner box row of exactly {span} bytes "
                              f"(the executor models swizzle {m.swizzle} for full swizzle rows)",
                              "TMA10", f"gives an inner box row of {inner} bytes")
    linear = dst + np.arange(m.smem_box_bytes, dtype=np.int64)
    return layouts.swizzle_addresses(linear, m.swizzle)


def global_coordinates(m: TensorMap, dst: int, coords: tuple[int, ...],
                       addresses: np.ndarray) -> np.ndarray:
    """The global coordinates (innermost first, shape (rank, *addresses.shape)) of the elements a
    copy of the box at `coords` to `dst` left at SMEM byte `addresses` (the inverse of
    `smem_addresses`: the XOR swizzle is its own inverse, its source bits are never changed)."""
    linear = layouts.swizzle_addresses(np.asarray(addresses, dtype=np.int64), m.swizzle) - dst
    element = linear // (m.smem_element_bits // 8)
    out = []
    for count, start, step in zip(m.box_elements, coords, m.element_strides, strict=True):
        element, index = np.divmod(element, count)
        out.append(start + index * step)
    return np.stack(out)


__all__ = [
    "CU_DATA_TYPES",
    "CU_SWIZZLES",
    "DATA_TYPES",
    "DESTINATIONS",
    "FLOAT_TYPES",
    "INTERLEAVES",
    "MAX_BOX_DIM",
    "MAX_ELEMENT_STRIDE",
    "MAX_RANK",
    "OOB_FILLS",
    "PADDED_TYPES",
    "SMEM_ALIGN",
    "SWIZZLES",
    "SWIZZLE_SPAN",
    "TENSOR_MAP_ALIGN",
    "TENSOR_MAP_BYTES",
    "TensorMap",
    "box_indices",
    "check_copy",
    "check_tensor_map",
    "gather_box",
    "global_coordinates",
    "oob_fill_bits",
    "smem_addresses",
    "stride_unit",
]
