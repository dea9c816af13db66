"""Simulated memories: placement, aliasing, capacity and alignment faults, a 1-D tile as one row,
s4 write-back as nibbles, `gm` refused as an on-chip space."""

import numpy as np
import pytest

from mmair.executor.engine.errors import ExecutionError
from mmair.executor.engine.memory import Memory
from mmair.isa.ascend.targets import get_target


def test_spaces_take_the_target_capacity():
    for target in ("a2", "a5", "310p"):
        mem = Memory(target)
        for space in ("l1", "l0a", "l0b", "l0c", "ub"):
            assert mem.space(space).data.size == get_target(target).capacity[space]
            assert mem.space(space).alignment == get_target(target).alignment[space]


def test_tile_is_a_view_with_the_physical_shape():
    mem = Memory("a2")
    t = mem.place("l1", (30, 70), "nz", "f16", offset=1024)
    # Nz of 30x70 f16: C1 = ceil(70/16) = 5, R1 = ceil(30/16) = 2 fractals of 16x16.
    assert t.physical.shape == (5, 2, 16, 16)
    assert t.physical.dtype == np.float16
    t.physical[0, 0, 0, 0] = 1.5
    raw = mem.space("l1").data[1024:1026].view(np.float16)
    assert raw[0] == 1.5


def test_overlapping_tiles_alias():
    mem = Memory("a2")
    a = mem.place("ub", (64,), "nd", "f32", offset=0)
    b = mem.place("ub", (128,), "nd", "u16", offset=0)
    a.physical[:] = np.arange(64, dtype=np.float32)
    assert np.array_equal(b.physical.view(np.float32), a.physical)
    b.physical[:] = 0
    assert not a.physical.any()


def test_reinterpret_shares_the_bytes():
    mem = Memory("a2")
    a = mem.place("ub", (16,), "nd", "f16")
    a.physical[:] = 1.0
    b = mem.reinterpret(a, (16,), "nd", "bf16")
    assert b.offset == a.offset
    # f16 1.0 is 0x3C00; read as bf16 that is 2^(0x78 - 127) * 1.0 = 2^-7.
    assert float(b.physical[0]) == 2.0**-7


def test_bump_allocation_is_aligned_and_tracks_peak():
    mem = Memory("a2")
    t1 = mem.place("l0a", (16, 16), "zz", "f16")  # 512 B
    t2 = mem.place("l0a", (16, 48), "zz", "f16")  # 1536 B
    assert (t1.offset, t2.offset) == (0, 512)
    assert mem.peak_bytes()["l0a"] == 2048
    t3 = mem.place("ub", (3,), "nd", "f16")  # 6 B
    t4 = mem.place("ub", (1,), "nd", "f16")
    assert t3.offset == 0 and t4.offset == 32  # UB granularity 32 B


def test_bump_allocation_skips_explicit_placements():
    mem = Memory("a2")
    mem.place("l1", (16, 16), "nz", "f16", offset=4096)
    t = mem.place("l1", (16, 16), "nz", "f16")
    assert t.offset >= 4096 + 512


def test_misaligned_offset_raises():
    mem = Memory("a2")
    with pytest.raises(ExecutionError, match=r"aligned to 512 bytes in l0a, got 100"):
        mem.place("l0a", (16, 16), "zz", "f16", offset=100, name="%x")


def test_out_of_bounds_offset_raises():
    mem = Memory("a2")
    cap = get_target("a2").capacity["l0a"]
    with pytest.raises(ExecutionError, match=rf"buffer %x of 512 bytes at offset {cap} exceeds"):
        mem.place("l0a", (16, 16), "zz", "f16", offset=cap, name="%x")


def test_bump_over_capacity_raises():
    mem = Memory("a2")
    mem.place("l0a", (128, 128), "zz", "f16")  # 32 KB
    mem.place("l0a", (128, 128), "zz", "f16")  # 64 KB: full
    with pytest.raises(ExecutionError, match=r"does not fit in l0a: 65536 bytes already allocated"):
        mem.place("l0a", (16, 16), "zz", "f16")


def test_space_missing_on_target_raises():
    mem = Memory("310p")
    with pytest.raises(ExecutionError, match="bt does not exist on target 310p"):
        mem.space("bt")


def test_extra_space_for_tmem_cells():
    mem = Memory("a2")
    tmem = mem.add_space("tmem", 128 * 512 * 4, 4)
    cells = tmem.cells()
    assert cells.shape == (128, 512) and cells.dtype == np.uint32
    cells[3, 7] = 0xDEADBEEF
    assert tmem.data[(3 * 512 + 7) * 4 : (3 * 512 + 8) * 4].view(np.uint32)[0] == 0xDEADBEEF


def test_s4_tiles_pack_two_per_byte():
    mem = Memory("a2")
    t = mem.place("l0a", (16, 64), "zz", "s4")
    assert t.nbytes == 512 and t.physical.dtype == np.uint8 and t.physical.size == 512
    values = t.values()
    assert values.shape == (1, 1, 16, 64)
    values[0, 0, 0, :4] = np.array([1, -2, 7, -8])
    t.store_values(values)
    assert t.physical[0] == (1 | ((-2 & 0xF) << 4))
    assert np.array_equal(t.values()[0, 0, 0, :4].astype(np.int8), [1, -2, 7, -8])


def test_one_dimensional_tile_is_one_row():
    mem = Memory("a2")
    vector = mem.place("ub", (48,), "nd", "f16")
    assert (vector.rows, vector.cols) == (1, 48)
    matrix = mem.place("ub", (3, 16), "nd", "f16")
    assert (matrix.rows, matrix.cols) == (3, 16)


def test_s4_tile_stores_any_integer_array_as_nibbles():
    mem = Memory("a2")
    tile = mem.place("ub", (64,), "nd", "s4")
    wide = np.tile(np.array([-8, -1, 0, 7], dtype=np.int64), 16)
    tile.store_values(wide)
    # element 2i in the low nibble of byte i: (-8, -1) -> 0xF8, (0, 7) -> 0x70
    assert tile.physical.reshape(-1)[:4].tolist() == [0xF8, 0x70, 0xF8, 0x70]
    assert tile.values().astype(np.int64).reshape(-1).tolist() == wide.tolist()


def test_gm_is_not_an_on_chip_space():
    with pytest.raises(ExecutionError, match=r"^gm is not an on-chip space: GM data are memref arguments"):
        Memory("a2").space("gm")
