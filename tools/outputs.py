"""Output-path safety: a tool never writes over what it reads, nor over a file it did not make.

* `refuse_overwriting_inputs(outputs, inputs)`: an output file that is one of the tool's input
  files (the kernel, an `--input` or `--check` .npy; the same file under another name, through a
  symlink or a hard link, counts) is an error before any work: the run would destroy what it
  reads, and a typo such as `--output c=kernel.mlir` would lose the kernel.
* `refuse_foreign_file(path, flag, force)`: `mmair-run --output` writes .npy files; an existing
  file that is not one (its name does not end in `.npy`, or its bytes do not start with the .npy
  magic) is refused unless `--force`: `--output c=notes.txt` must not replace the notes. Special
  files (/dev/null, a FIFO) are written in place and are always fine.

Every refusal is one `error:` line naming the flag and the file (`UserError`, exit 1).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from mmair.tools.diagnostics import UserError, format_diagnostic

NPY_MAGIC = b"\x93NUMPY"


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of an existing file, None for a missing one or standard input."""
    if path == "-":
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def refuse_overwriting_inputs(outputs: Iterable[tuple[str, str]],
                              inputs: Iterable[tuple[str, str]]) -> None:
    """UserError when an output (flag, path) is the same file as an input (what, path), or when
    two outputs name the same file (the second write would replace the first)."""
    read = [(what, path, _identity(path)) for what, path in inputs]
    written: dict[tuple[int, int] | str, str] = {}
    for flag, path in outputs:
        if path == "-":
            continue
        ident = _identity(path)
        for what, in_path, in_ident in read:
            same = ident is not None and ident == in_ident
            if same or os.path.realpath(path) == os.path.realpath(in_path):
                raise UserError(format_diagnostic(
                    f"{flag} '{path}' is {what} '{in_path}': refusing to overwrite an input "
                    "of this run (write the output to another file)"))
        if not _regular(path) and ident is not None:
            continue  # /dev/null twice is fine
        key: tuple[int, int] | str = ident if ident is not None else os.path.realpath(path)
        if key in written:
            raise UserError(format_diagnostic(
                f"{flag} '{path}' is also the file of {written[key]}: one file cannot hold two "
                "outputs"))
        written[key] = f"{flag} '{path}'"


def is_npy_file(path: str) -> bool:
    """Whether the file at `path` starts with the .npy magic bytes."""
    try:
        with open(path, "rb") as f:
            return f.read(len(NPY_MAGIC)) == NPY_MAGIC
    except OSError:
        return False


def refuse_foreign_file(path: str, flag: str, force: bool) -> None:
    """UserError when `path` is an existing regular file that is not a .npy file (by name or by
    content), unless `force`."""
    if force or path == "-" or not _regular(path):
        return
    if path.endswith(".npy") and is_npy_file(path):
        return
    why = "its name does not end in .npy" if not path.endswith(".npy") else \
        "it does not hold a .npy array"
    raise UserError(format_diagnostic(
        f"{flag} '{path}' exists and is not a .npy file ({why}): refusing to overwrite it "
        "(--force writes it anyway)"))
