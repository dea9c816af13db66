""".npy in and out for every element type mmair runs (tools/npyio.py): ml_dtypes arrays, the void
headers np.save writes for them, raw-bit containers with --raw-bits, and outputs that load back
into ml_dtypes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from mmair.tools import npyio
from mmair.tools.diagnostics import UserError
from mmair.tools.run import main

# isa element -> (MLIR element type, ml_dtypes type or None for hif8, bits container)
TYPES = {
    "bf16": ("bf16", ml_dtypes.bfloat16, np.uint16),
    "e4m3": ("f8E4M3FN", ml_dtypes.float8_e4m3fn, np.uint8),
    "e5m2": ("f8E5M2", ml_dtypes.float8_e5m2, np.uint8),
    "e2m3": ("f6E2M3FN", ml_dtypes.float6_e2m3fn, np.uint8),
    "e3m2": ("f6E3M2FN", ml_dtypes.float6_e3m2fn, np.uint8),
    "e2m1": ("f4E2M1FN", ml_dtypes.float4_e2m1fn, np.uint8),
    "s4": ("i4", ml_dtypes.int4, np.uint8),
    "hif8": ("!pto.hif8", None, np.uint8),
}


def sample(element: str) -> np.ndarray:
    """Values exactly representable in the type (so the expected bits are known)."""
    t = TYPES[element][1]
    if t is None:
        return np.arange(12, dtype=np.uint8).reshape(3, 4) * 7
    if element == "s4":
        return np.array([-8, -3, -1, 0, 1, 2, 5, 7, 3, -2, 6, -5]).reshape(3, 4).astype(t)
    return np.array([-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3, 4, -4]).reshape(3, 4).astype(t)


def kernel(element: str) -> str:
    ty = TYPES[element][0]
    return (f"func.func @copy(%x: memref<3x4x{ty}>, %y: memref<3x4x{ty}>) {{\n"
            f"  \"memref.copy\"(%x, %y) : (memref<3x4x{ty}>, memref<3x4x{ty}>) -> ()\n"
            "  func.return\n}\n")


@pytest.mark.parametrize("element", list(TYPES))
@pytest.mark.parametrize("form", ["ml_dtypes", "raw_bits"])
def test_round_trip_through_mmair_run(tmp_path, capsys, element, form):
    values = sample(element)
    bits = values.view(TYPES[element][2]) if TYPES[element][1] is not None else values
    path = tmp_path / "k.mlir"
    path.write_text(kernel(element))
    given = tmp_path / "x.npy"
    extra = []
    if form == "ml_dtypes" or TYPES[element][1] is None:
        np.save(given, values)  # np.save writes |V1/|V2 (or <f1) for ml_dtypes arrays
    else:
        np.save(given, bits.copy())
        extra = ["--raw-bits"]
    code = main([str(path), "--input", f"x={given}", "--output", f"y={tmp_path / 'y.npy'}", *extra])
    _, err = capsys.readouterr()
    assert code == 0, err
    loaded = np.load(tmp_path / "y.npy")  # plain numpy reads it ...
    assert loaded.dtype.itemsize == values.dtype.itemsize
    if TYPES[element][1] is not None:  # ... and the documented view gives the ml_dtypes array
        again = loaded.view(TYPES[element][1])
        assert again.dtype == values.dtype
        np.testing.assert_array_equal(again.astype(np.float64), values.astype(np.float64))
    np.testing.assert_array_equal(loaded.view(np.uint8), bits.view(np.uint8))
    # and mmair reads its own output back without any flag
    back = npyio.read_npy(str(tmp_path / "y.npy"), element=element)
    np.testing.assert_array_equal(back.view(np.uint8), bits.view(np.uint8))


def test_unsigned_containers_need_the_flag(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(kernel("bf16"))
    np.save(tmp_path / "x.npy", np.zeros((3, 4), np.uint16))
    code = main([str(path), "--input", f"x={tmp_path / 'x.npy'}"])
    err = capsys.readouterr().err
    assert code == 1
    assert "with --raw-bits" in err and "bf16" in err and err.count("\n") == 1


def test_four_bit_raw_bits_must_fit_a_nibble(tmp_path):
    with pytest.raises(UserError, match="low nibble"):
        npyio.coerce(np.array([0x1F], np.uint8), "e2m1", np.dtype(ml_dtypes.float4_e2m1fn),
                     "'x'", raw_bits=True)


def test_e5m2_header_numpy_itself_rejects(tmp_path):
    # np.save writes '<f1' for float8_e5m2, which np.load cannot parse; mmair reads it.
    values = sample("e5m2")
    np.save(tmp_path / "x.npy", values)
    with pytest.raises(ValueError, match="'<f1'"):
        np.load(tmp_path / "x.npy")
    got = npyio.read_npy(str(tmp_path / "x.npy"), element="e5m2")
    assert got.dtype == values.dtype and np.array_equal(got.view(np.uint8), values.view(np.uint8))


@pytest.mark.parametrize(("array", "message"), [
    (np.zeros(3, np.complex128), "holds complex values"),
    (np.array(["a"]), "holds strings"),
    (np.array([np.datetime64("2020-01-01")]), "holds dates or times"),
    (np.zeros(3, [("a", "i4"), ("b", "f4")]), "holds a structured array"),
])
def test_unusable_arrays_are_one_error(tmp_path, array, message):
    np.save(tmp_path / "x.npy", array)
    with pytest.raises(UserError, match=message) as info:
        arr = npyio.read_npy(str(tmp_path / "x.npy"))
        npyio.coerce(arr, "f32", np.dtype(np.float32), "'x'")
    assert "\n" not in str(info.value)


def test_raw_items_for_a_type_numpy_has_are_refused(tmp_path):
    """An np.save'd bf16 array (|V2) given for an f16 argument used to be read as f16 bits:
    silently wrong numbers. Raw items are T's bits only for the types numpy lacks."""
    import ml_dtypes

    np.save(tmp_path / "x.npy", np.ones(4, ml_dtypes.bfloat16))
    arr = npyio.read_npy(str(tmp_path / "x.npy"))
    with pytest.raises(UserError, match=r"has raw 2-byte items \(\|V2\) \(what np\.save writes for "
                                        r"an ml_dtypes array such as bf16\), but the argument is "
                                        r"f16: give a numpy float16 array"):
        npyio.coerce(arr, "f16", np.dtype(np.float16), "'x'")
    got = npyio.coerce(arr, "bf16", np.dtype(ml_dtypes.bfloat16), "'x'")
    assert got.dtype == ml_dtypes.bfloat16 and (got == 1).all()


def test_big_endian_files_are_read_as_their_values(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(6, dtype=">f2").reshape(2, 3))
    got = npyio.read_npy(str(tmp_path / "x.npy"))
    assert got.dtype == np.float16 and got.dtype.isnative
    np.testing.assert_array_equal(got, np.arange(6, dtype=np.float16).reshape(2, 3))
