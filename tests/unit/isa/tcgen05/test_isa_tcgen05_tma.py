"""isa/tcgen05/tma.py: the box a copy gathers (traversal strides, out-of-bounds fill), the SMEM
addresses it writes (the descriptors' swizzle function on absolute addresses, so a K-major
128B-swizzled box reads back through the canonical layout), and the tensor-map rules."""

from __future__ import annotations

import numpy as np
import pytest

from mmair.isa.tcgen05 import layouts, tma
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.smem import SmemDesc


def _map(**fields) -> tma.TensorMap:
    base = dict(dtype="f16", dims=(64, 128), strides=(128,), box=(64, 128), element_strides=(1, 1),
                swizzle="sw128")
    base.update(fields)
    return tma.TensorMap(**base)


def test_box_bytes_are_the_transaction_count() -> None:
    assert _map().box_bytes == 64 * 128 * 2
    assert _map(element_strides=(1, 2)).box_elements == (64, 64)


def test_gather_follows_traversal_strides_and_fills_out_of_bounds() -> None:
    g = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)
    m = tma.TensorMap("f32", (8, 40), (32,), (8, 24), (1, 3))  # 8 rows
    box = tma.gather_box(m, g, (0, 30))  # rows 30, 33, 36, 39, then 42.. out of bounds
    assert np.array_equal(box[:4], g[30::3])
    assert not box[4:].any()


def test_sw128_box_reads_back_through_the_canonical_k_major_layout() -> None:
    m = _map()
    tile = np.arange(128 * 64, dtype=np.uint16).reshape(128, 64)  # rows = M, 64 K elements
    smem = np.zeros(32768, dtype=np.uint8)
    smem[tma.smem_addresses(m, 1024)] = tile.view(np.uint8).reshape(-1)
    desc = SmemDesc(start=1024, lbo=16, sbo=1024, swizzle="sw128")
    bits = layouts.operand_bit_addresses(desc, "k", 16, 128, 64)
    read = smem.view(np.uint16)[(bits >> 3) // 2]
    assert np.array_equal(read, tile)


@pytest.mark.parametrize("swizzle", ["none", "sw32", "sw64", "sw128", "sw128_base32b"])
def test_global_coordinates_invert_the_copy(swizzle: str) -> None:
    span = tma.SWIZZLE_SPAN[swizzle] or 128
    m = tma.TensorMap("f16", (256, 96), (512,), (span // 2, 40), (1, 1), swizzle=swizzle)
    addresses = tma.smem_addresses(m, 4096)
    g = tma.global_coordinates(m, 4096, (64, 7), addresses)
    inner, outer = np.meshgrid(np.arange(span // 2), np.arange(40))
    element = np.arange(m.box_bytes) // 2  # the byte's element, row-major from the box start
    assert np.array_equal(g[0], 64 + inner.reshape(-1)[element])
    assert np.array_equal(g[1], 7 + outer.reshape(-1)[element])


def test_linear_box_without_swizzle() -> None:
    m = _map(swizzle="none")
    assert np.array_equal(tma.smem_addresses(m, 256), 256 + np.arange(m.box_bytes))


@pytest.mark.parametrize(("fields", "rule"), [
    ({"dtype": "f8"}, "TMA1"),
    ({"dims": (64,)}, "TMA2"),
    ({"strides": (120,)}, "TMA5"),
    ({"strides": (64,)}, "TMA6"),
    ({"box": (64, 257)}, "TMA7"),
    ({"box": (4, 128)}, "TMA8"),
    ({"element_strides": (1, 0)}, "TMA9"),
    ({"swizzle": "sw32"}, "TMA10"),
    ({"dtype": "u16", "oob_fill": "nan"}, "TMA12"),
])
def test_each_rule_names_field_value_and_legal_set(fields: dict, rule: str) -> None:
    with pytest.raises(DescriptorError, match=rf"; legal: .* \[{rule}\]$") as info:
        tma.check_tensor_map(_map(**fields))
    assert info.value.rule == rule


@pytest.mark.parametrize("swizzle", ["none", "sw128", "sw128_base32b"])
def test_a_legal_map_passes_and_copies_its_box_bytes(swizzle: str) -> None:
    m = _map(swizzle=swizzle)
    assert tma.check_tensor_map(m) is None
    addresses = tma.smem_addresses(m, 2048)
    assert sorted(addresses.tolist()) == list(range(2048, 2048 + m.box_bytes))  # a permutation
