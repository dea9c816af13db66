"""`.npy` files of every element type mmair runs, including the low-precision ones numpy lacks.

numpy has no bf16, fp8, fp6, fp4 or int4; `ml_dtypes` provides them, but `np.save` cannot describe
them in a `.npy` header: it writes `|V2` (bf16), `|V1` (f8E4M3FN, f6*, f4E2M1FN, i4, u4) or even
`<f1` (f8E5M2, a header `np.load` itself rejects). So mmair reads the header itself and accepts for
an argument (or a `--check` file) whose element type is T:

* an array of T's numpy dtype (`ml_dtypes.bfloat16`, `ml_dtypes.float8_e4m3fn`, ... see
  `mmair.isa.dtypes.NUMPY_DTYPES`), i.e. an `np.save`d ml_dtypes array: its `|V1`/`|V2`/`<f1`
  header is taken as T's bits when the item size is T's;
* with `--raw-bits`, an unsigned integer container of the same item size holding the bit patterns
  (uint16 for bf16, uint8 for the 8-, 6- and 4-bit types; a 4-bit value in the low nibble, as
  ml_dtypes stores it). hif8 (HiFloat8) has no numpy type and is always raw bits in uint8.

Outputs of these types are written with a void header (`|V1`, `|V2`) holding T's bits, one element
per item (4-bit types too, in the low nibble). They load back into ml_dtypes with
`np.load(path).view(ml_dtypes.bfloat16)` (or `mmair.tools.npyio.read_npy(path, element="bf16")`),
and `mmair-run` reads them back as inputs without a flag.

Big-endian files are read as their values. Anything else is one `error:` line: complex, string,
object (pickled), structured or datetime arrays, a mismatched item size, raw (void) items for a
type numpy has (an `np.save`d bf16 array given for an f16 argument would be read as wrong
numbers), a truncated file.
"""

from __future__ import annotations

import ast
import math
import os
import re

import numpy as np

from mmair.tools.diagnostics import UserError, format_diagnostic

MAGIC = b"\x93NUMPY"
_LEADING_SIZE = re.compile(r"^[<>|=]?[a-zA-Z](\d+)$")


def _fail(message: str) -> UserError:
    return UserError(format_diagnostic(message))


def _header(f, label: str) -> dict:
    if f.read(6) != MAGIC:
        raise _fail(f"{label} is not a .npy file")
    version = f.read(2)
    if len(version) != 2 or version[0] not in (1, 2, 3):
        raise _fail(f"{label}: unsupported .npy version")
    size_bytes = 2 if version[0] == 1 else 4
    raw_len = f.read(size_bytes)
    if len(raw_len) != size_bytes:
        raise _fail(f"cannot read {label}: truncated .npy header")
    length = int.from_bytes(raw_len, "little")
    text = f.read(length)
    if len(text) != length:
        raise _fail(f"cannot read {label}: truncated .npy header")
    try:
        header = ast.literal_eval(text.decode("utf-8" if version[0] == 3 else "latin1"))
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        raise _fail(f"{label}: unreadable .npy header") from None
    if not isinstance(header, dict) or not {"descr", "fortran_order", "shape"} <= header.keys():
        raise _fail(f"{label}: .npy header lacks descr, fortran_order or shape")
    shape = header["shape"]
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise _fail(f"{label}: bad shape {shape!r} in the .npy header")
    return header


def _descr_dtype(descr: object, label: str) -> np.dtype:
    """The header's dtype; descriptors numpy does not know (`<f1`, from ml_dtypes) become void."""
    if not isinstance(descr, str):
        raise _fail(f"{label} holds a structured array; mmair needs a plain numeric array")
    try:
        dtype = np.dtype(descr)
    except TypeError:
        m = _LEADING_SIZE.match(descr)
        if m is None:
            raise _fail(f"{label} has an unknown dtype descriptor {descr!r}") from None
        dtype = np.dtype(f"V{m.group(1)}")
    return dtype


def read_npy(path: str, label: str | None = None, element: str | None = None) -> np.ndarray:
    """The array in a `.npy` file (C order). Low-precision arrays come back as void arrays unless
    `element` (an isa element name such as "bf16") is given, then as that type's dtype."""
    label = label or f"'{path}'"
    try:
        with open(path, "rb") as f:
            header = _header(f, label)
            dtype = _descr_dtype(header["descr"], label)
            if dtype.hasobject:
                raise _fail(f"{label} holds Python objects (a pickled array); mmair reads only "
                            "numeric arrays")
            count = math.prod(header["shape"])  # exact: a huge header shape cannot wrap
            left = os.fstat(f.fileno()).st_size - f.tell()
            if left >= 0 and count * dtype.itemsize > left and os.path.isfile(path):
                # checked before reading: a header may declare terabytes a file does not hold
                raise _fail(f"cannot read {label}: truncated ({left} of {count * dtype.itemsize} "
                            "data bytes)")
            data = f.read(count * dtype.itemsize)
    except OSError as err:
        raise _fail(f"cannot read {label}: {err.strerror or err}") from None
    if len(data) != count * dtype.itemsize:
        raise _fail(f"cannot read {label}: truncated ({len(data)} of {count * dtype.itemsize} "
                    "data bytes)")
    array = np.frombuffer(data, dtype=dtype, count=count)
    array = array.reshape(header["shape"], order="F" if header["fortran_order"] else "C")
    array = array.copy(order="C")  # writable, and 0-d stays 0-d
    if array.dtype.kind in "biuf" and not array.dtype.isnative:  # a big-endian file: same values
        array = array.astype(array.dtype.newbyteorder("="))
    if element is not None:
        from mmair.isa.dtypes import numpy_dtype

        array = coerce(array, element, numpy_dtype(element), label, raw_bits=True)
    return array


def describe(dtype: np.dtype) -> str:
    if dtype.type is np.void:
        return f"raw {dtype.itemsize}-byte items ({dtype.str})"
    return str(dtype)


def coerce(array: np.ndarray, element: str, dtype: np.dtype, label: str, raw_bits: bool = False,
           exact: bool = True) -> np.ndarray:
    """`array` as `dtype` (the numpy dtype of isa element `element`): unchanged when it already
    is, reinterpreted when it holds T's bits (void of T's size; unsigned integers of T's size
    with `raw_bits`). With `exact=False` (expected values of a check) any real numeric array
    is accepted as is. UserError otherwise."""
    kind = array.dtype.kind
    if kind == "c":
        raise _fail(f"{label} holds complex values ({array.dtype}); mmair's data is real")
    if kind in "USO":
        raise _fail(f"{label} holds {'strings' if kind in 'US' else 'objects'} ({array.dtype}); "
                    "mmair needs numbers")
    if kind in "mM":
        raise _fail(f"{label} holds dates or times ({array.dtype}); mmair needs numbers")
    if array.dtype == dtype:
        return array
    bits = array.dtype.type is np.void or (raw_bits and kind == "u") or element == "hif8"
    if bits:
        if array.dtype.itemsize != dtype.itemsize or (element == "hif8" and kind not in "uV"):
            raise _fail(f"{label} has {describe(array.dtype)}, but {element} needs "
                        f"{dtype.itemsize}-byte items")
        if kind == "V" and not _is_ml_dtype(dtype) and element != "hif8":
            # numpy saves its own types with their dtype: raw items here are another type's
            # bits (np.save of a bf16 array writes |V2), which would be read as wrong numbers
            raise _fail(f"{label} has {describe(array.dtype)} (what np.save writes for an "
                        f"ml_dtypes array such as bf16), but the argument is {element}: give a "
                        f"numpy {dtype} array")
        if element in ("s4", "u4", "e2m1") and np.any(array.view(np.uint8) >> 4):
            raise _fail(f"{label}: {element} bits must be in the low nibble of each byte (the "
                        "high nibble 0, as ml_dtypes stores them)")
        view = array.view(dtype)
        return view
    if not exact and (kind in "biuf" or _is_ml_dtype(array.dtype)):
        return array
    hint = (f"; give an ml_dtypes array (np.save writes it as |V{dtype.itemsize}), or its bits in "
            f"uint{8 * dtype.itemsize} with --raw-bits") if _is_ml_dtype(dtype) else ""
    raise _fail(f"{label} has dtype {describe(array.dtype)}, the argument needs {element} "
                f"(numpy {dtype}){hint}")


def _is_ml_dtype(dtype: np.dtype) -> bool:
    """An ml_dtypes type (bf16, fp8, fp6, fp4, int4): numpy gives them kind V, or f for some."""
    return dtype.type.__module__.split(".")[0] == "ml_dtypes"


def is_low_precision(dtype: np.dtype) -> bool:
    return _is_ml_dtype(np.dtype(dtype))


def as_writable(array: np.ndarray) -> np.ndarray:
    """What `write_npy` saves: ml_dtypes arrays as void items of the same bits (a header every
    numpy reads), others unchanged."""
    if _is_ml_dtype(array.dtype):
        return np.ascontiguousarray(array).view(np.dtype(f"V{array.dtype.itemsize}"))
    return array


def write_npy(path: str, array: np.ndarray, flag: str = "--output") -> None:
    """Save `array` atomically (see the module docstring for low-precision types)."""
    from mmair.tools.cli import write_output

    data = as_writable(array)
    write_output(path, lambda f: np.save(f, data, allow_pickle=False), flag)
