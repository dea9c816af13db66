"""The tcgen05 kernels' caches (address maps, injectivity, descriptor decode and checks) and fast
paths (in-place f32 D update, B gathered as K x N, f16 stores without conversion) change nothing:
failures raise again on every call, and results match independently computed ones.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mmair.executor.tcgen05.elements import encode_elements
from mmair.executor.tcgen05.kernels import mma
from mmair.executor.tcgen05.memories import SharedMemory, Tcgen05ExecutionError, TensorMemory
from mmair.executor.tcgen05.operands import read_d, write_d, write_smem_operand
from mmair.isa.tcgen05 import InstrDesc, SmemDesc, encode_idesc, encode_smem_desc

RNG = np.random.default_rng(7)


def _sw128(start: int) -> SmemDesc:
    return SmemDesc(start=start, lbo=16, sbo=1024, base_offset=0, swizzle="sw128")


def _f16_setup(n: int = 64) -> tuple[SharedMemory, TensorMemory, int, int, int, int]:
    """A (128 x 16) and B^T (n x 16) of small integers stored K-major SW128; D allocated."""
    smem, tmem = SharedMemory(), TensorMemory()
    d = tmem.alloc(256)
    a = RNG.integers(-4, 5, (128, 16)).astype(np.float16)
    bt = RNG.integers(-4, 5, (n, 16)).astype(np.float16)
    write_smem_operand(smem, _sw128(0), a, major="k", type_name="f16", kind="f16")
    write_smem_operand(smem, _sw128(0x10000), bt, major="k", type_name="f16", kind="f16")
    idesc = encode_idesc(InstrDesc(kind="f16", m=128, n=n, atype="f16", btype="f16", dtype="f32"))
    return smem, tmem, d, encode_smem_desc(_sw128(0)), encode_smem_desc(_sw128(0x10000)), idesc


def test_overlapping_store_raises_on_every_call() -> None:
    desc = SmemDesc(start=0, lbo=0, sbo=128)  # LBO 0: the two K units of a row collide
    smem = SharedMemory()
    for _ in range(3):
        with pytest.raises(Tcgen05ExecutionError, match="overlapping"):
            write_smem_operand(smem, desc, np.ones((8, 16)), major="k", type_name="f16",
                               kind="f16")
    assert not smem.data.any()  # nothing was stored


def test_bad_descriptor_words_raise_on_every_call() -> None:
    smem, tmem, d, a_word, b_word, idesc = _f16_setup()
    bad_swizzle = (a_word & ~(7 << 61)) | (3 << 61)
    bad_base = b_word | (2 << 49)
    smem.add_buffer(0x10000, 64 * 16 * 2)  # B's buffer: R21 is judged against its start
    for _ in range(3):
        with pytest.raises(Tcgen05ExecutionError, match=r"A shared-memory descriptor.*swizzle = 3"):
            mma(smem, tmem, kind="f16", d=d, a=bad_swizzle, b=b_word, idesc=idesc,
                enable_input_d=False)
        with pytest.raises(Tcgen05ExecutionError, match=r"B shared-memory.*base_offset = 2"):
            mma(smem, tmem, kind="f16", d=d, a=a_word, b=bad_base, idesc=idesc,
                enable_input_d=False)
        with pytest.raises(Tcgen05ExecutionError, match=r"instruction descriptor.*reserved"):
            mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc | (1 << 23),
                enable_input_d=False)
    # The good words still work after the failures (nothing bad was remembered).
    mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc, enable_input_d=False)


def test_same_word_checked_per_context() -> None:
    # A K-major SW128 descriptor word is legal for kind::f16 on sm_100a; the same word with an
    # illegal target must still fail: the memo key includes the whole context.
    smem, tmem, d, a_word, b_word, idesc = _f16_setup()
    mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc, enable_input_d=False)
    with pytest.raises(Tcgen05ExecutionError, match="target = sm_42 does not support tcgen05"):
        mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc, enable_input_d=False,
            target="sm_42")


def test_accumulation_in_place_matches_float64_and_spares_neighbours() -> None:
    smem, tmem, d, a_word, b_word, idesc = _f16_setup(n=64)
    # D uses columns [0, 64) of a 256-column allocation; the others hold a sentinel pattern.
    sentinel = np.full((128, 256), 0x7FC01234, dtype=np.uint32)  # NaN bits: must stay untouched
    tmem.cells[:, :256] = sentinel
    start = RNG.integers(-8, 9, (128, 64)).astype(np.float32)
    write_d(tmem, d, "f32", start)
    a = read_operand(smem, 0, 128)
    bt = read_operand(smem, 0x10000, 64)
    expected = start.astype(np.float64)
    for step in range(3):
        mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc, enable_input_d=True)
        expected = expected + a @ bt.T
        np.testing.assert_array_equal(read_d(tmem, d, "f32", 128, 64), expected, f"step {step}")
    np.testing.assert_array_equal(tmem.cells[:, 64:256], sentinel[:, 64:])
    mma(smem, tmem, kind="f16", d=d, a=a_word, b=b_word, idesc=idesc, enable_input_d=False)
    np.testing.assert_array_equal(read_d(tmem, d, "f32", 128, 64), a @ bt.T)


def read_operand(smem: SharedMemory, start: int, rows: int) -> np.ndarray:
    """Undo the K-major SW128 store by hand (16-byte chunk c of row r sits at chunk c ^ (r % 8))."""
    halves = smem.data.view(np.uint16)
    out = np.empty((rows, 16), dtype=np.float64)
    for r in range(rows):
        row_base = start + (r // 8) * 1024 + (r % 8) * 128
        for chunk in range(2):  # 16 f16 = two 16-byte chunks
            byte = row_base + ((chunk ^ (r % 8)) * 16)
            out[r, chunk * 8:chunk * 8 + 8] = halves[byte // 2:byte // 2 + 8].view(np.float16)
    return out


def test_f16_store_without_conversion_is_the_encoded_store() -> None:
    # The store skips f16 -> f32 -> f16 for f16 input because that round trip is the identity on
    # every bit pattern (NaN payloads included); check that claim and the stored bytes.
    patterns = np.arange(1 << 16, dtype=np.uint16)
    np.testing.assert_array_equal(encode_elements(patterns.view(np.float16), "f16"), patterns)
    values = RNG.integers(0, 1 << 16, (128, 64), dtype=np.uint16).view(np.float16)
    smem = SharedMemory()
    write_smem_operand(smem, _sw128(0), values, major="k", type_name="f16", kind="f16")
    np.testing.assert_array_equal(smem.data, _store_bytes(values))


def _store_bytes(values: np.ndarray) -> np.ndarray:
    """The bytes a K-major SW128 store of a (128, 64) f16 matrix at address 0 leaves in SMEM."""
    smem = np.zeros(SharedMemory().data.size // 2, dtype=np.uint16)
    raw = values.view(np.uint16)
    for r in range(values.shape[0]):
        row_base = (r // 8) * 1024 + (r % 8) * 128
        for chunk in range(8):  # 64 f16 = eight 16-byte chunks per swizzle row
            byte = row_base + (chunk ^ (r % 8)) * 16
            smem[byte // 2:byte // 2 + 8] = raw[r, chunk * 8:chunk * 8 + 8]
    return smem.view(np.uint8)



_STORE_TYPES = {"e4m3": ml_dtypes.float8_e4m3fn, "f16": np.float16, "tf32": np.float32}


@pytest.mark.parametrize(("kind", "type_name"), [("f8f6f4", "e4m3"), ("f16", "f16"), ("tf32", "tf32")])
@pytest.mark.parametrize("sbo", [128, 1024])  # 128: 8-row groups packed; 1024: gaps between them
def test_store_dense_and_gappy_layouts(kind: str, type_name: str, sbo: int) -> None:
    # K-major without swizzle, one 16-byte unit of K per row: row r of group g sits at
    # g * sbo + (r % 8) * 16. Stored bytes must be exactly those, whichever scatter is used.
    container = np.dtype(_STORE_TYPES[type_name])
    values = RNG.integers(1, 16, (32, 16 // container.itemsize)).astype(container)
    smem = SharedMemory()
    desc = SmemDesc(start=0x100, lbo=128, sbo=sbo)
    write_smem_operand(smem, desc, values, major="k", type_name=type_name, kind=kind)
    expected = np.zeros(smem.data.size, dtype=np.uint8)
    for r in range(32):
        byte = 0x100 + (r // 8) * sbo + (r % 8) * 16
        expected[byte:byte + 16] = values[r].view(np.uint8)
    np.testing.assert_array_equal(smem.data, expected)


@pytest.mark.parametrize("type_name, dtype", [("f16", np.float16), ("bf16", ml_dtypes.bfloat16)])
def test_16_bit_decode_by_table_matches_astype_on_every_bit_pattern(type_name, dtype) -> None:
    from mmair.executor.tcgen05.elements import decode_elements

    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    got = decode_elements(patterns, type_name)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.uint32), patterns.view(dtype).astype(np.float32).view(np.uint32))


def test_canonical_nan_rewrites_every_nan_and_leaves_other_values() -> None:
    from mmair.executor.tcgen05.kernels import _F32_CANONICAL_NAN, _canonical_nan

    values = RNG.standard_normal((4, 8)).astype(np.float32)
    clean = values.copy()
    assert _canonical_nan(values) is values and np.array_equal(values, clean)
    values[1, 2] = np.array(0x7FC00001, np.uint32).view(np.float32)  # a NaN with a payload
    values[3, 7] = np.inf
    values[0, 0] = -np.inf
    _canonical_nan(values)
    assert values.view(np.uint32)[1, 2] == _F32_CANONICAL_NAN.view(np.uint32)
    assert np.isinf(values[3, 7]) and np.isinf(values[0, 0])


def test_checked_operand_map_is_reused_and_a_bad_map_raises_on_every_call() -> None:
    from mmair.executor.tcgen05.operands import checked_operand_map

    word = encode_smem_desc(_sw128(0))
    first = checked_operand_map(word, "k", 16, 128, 16, "operand A", 16)
    assert checked_operand_map(word, "k", 16, 128, 16, "operand A", 16) is first
    beyond = encode_smem_desc(_sw128(0x37000))  # ends past the 228 KB shared memory
    for _ in range(2):
        with pytest.raises(Tcgen05ExecutionError, match="inside the .*-byte shared memory"):
            checked_operand_map(beyond, "k", 16, 128, 64, "operand A", 16)
