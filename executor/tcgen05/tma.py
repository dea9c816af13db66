"""What one `cp.async.bulk.tensor` does to shared memory (`tcgen05.tma_load`), on whole boxes.

The executor's TMA is as fast as possible (one legal schedule): the box is gathered from the global
tensor, out-of-bounds elements filled, and its bytes written to SMEM at the addresses the map's
swizzle gives (`isa.tcgen05.tma.smem_addresses`, which is `layouts.swizzle_addresses`, the same
function the MMA's descriptors are decoded with) when the op is issued; its complete-tx follows at
once. Ordering is the asynchronous checker's business (`async_checker`: a `tma` unit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.tcgen05.memories import SharedMemory
from mmair.isa.tcgen05 import tma
from mmair.isa.tcgen05.errors import DescriptorError


@dataclass(frozen=True, eq=False)
class TensorMapValue:
    """The run-time value of `tcgen05.make_tensor_map`: the global tensor and its map (the
    hardware's 128-byte object is opaque; the executor keeps what it encodes)."""

    tensor: np.ndarray
    map: tma.TensorMap


class TmaWrite(NamedTuple):
    """What a copy wrote: SMEM bytes [lo, hi) (a hull; exact when the destination is aligned to
    the swizzle row), the map's swizzle, the transaction bytes, and where the box came from (the
    map, the destination offset, the coordinates: `tma.global_coordinates` inverts the copy)."""

    lo: int
    hi: int
    swizzle: str
    nbytes: int
    map: tma.TensorMap
    dst: int
    coords: tuple[int, ...]


def make_tensor_map(tensor: object, m: tma.TensorMap) -> TensorMapValue:
    """Check the global tensor against its map at run time (dynamic shapes) and pair them."""
    if not isinstance(tensor, np.ndarray):
        raise ExecutionError("requires a global-memory tensor for its tensor map")
    if tuple(reversed(tensor.shape)) != m.dims:
        raise ExecutionError(
            f"requires the tensor map's dims [{', '.join(map(str, m.dims))}] to be the tensor's "
            f"shape innermost first, got [{', '.join(map(str, reversed(tensor.shape)))}]")
    return TensorMapValue(tensor, m)


def tma_load(smem: SharedMemory, value: object, coords: tuple[int, ...], dst: int,
             dst_bytes: int) -> TmaWrite:
    """Copy the box at `coords` (innermost first) of `value`'s tensor into `smem` at byte `dst`."""
    if not isinstance(value, TensorMapValue):
        raise ExecutionError("requires a tensor map made by tcgen05.make_tensor_map")
    m = value.map
    try:
        tma.check_copy(m, len(coords), dst_bytes, dst, "cta", False, None)
        addresses = tma.smem_addresses(m, dst)
    except DescriptorError as err:
        raise ExecutionError(f"cannot copy the box: {err}") from err
    box = np.ascontiguousarray(tma.gather_box(m, value.tensor, coords)).view(np.uint8)
    data = box.reshape(-1)
    if m.dtype == "b4x16":  # 4-bit elements (one per numpy byte) packed two per byte, even low
        data = (data[0::2] & 0xF) | ((data[1::2] & 0xF) << 4)
    lo, hi = int(addresses.min()), int(addresses.max()) + 1
    smem.check_range(lo, hi, "the TMA box")
    if m.dtype in tma.PADDED_TYPES:
        _write_padded(smem, addresses, data, m.element_bits)
    else:
        smem.data[addresses] = data
    return TmaWrite(lo, hi, m.swizzle, m.box_bytes, m, dst, coords)


def _write_padded(smem: SharedMemory, addresses: np.ndarray, codes: np.ndarray,
                  width: int) -> None:
    """`.b4x16_p64` / `.b6x16_p32` (PTX ISA §5.5.1.1.1): each 16 elements (one code per numpy
    byte, the value in the low `width` bits) packed contiguously, element i at bits
    [width * i, width * i + width) of its 16-byte unit (the bit order of
    `layouts.padded_sub_byte_bit_addresses`), then 8 (4-bit) or 4 (6-bit) bytes of padding,
    which the copy leaves as they were (the ISA: "un-initialized")."""
    units = (codes & ((1 << width) - 1)).reshape(-1, 16)
    bits = (units[:, :, None] >> np.arange(width, dtype=np.uint8)) & 1
    packed = np.packbits(bits.reshape(len(units), 16 * width), axis=1, bitorder="little")
    where = addresses.reshape(-1, 16)[:, :packed.shape[1]]
    smem.data[where] = packed
