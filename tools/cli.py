"""Conventions shared by the mmair command-line tools.

* `version_line(tool)`: what `--version` prints (the mmair version, then xDSL's).
* `parse_pipeline_spec(...)`: a `-p` pipeline checked against the pass classes, so that a bad pass
  name, option name or option value is one line in the documented spelling (`tile-m`, not the
  Python field `tile_m`). Raises `PipelineError`.
* `passes_help()`: the `--help` section listing every pass with its options and defaults, generated
  from the pass classes (a new pass in `mmair.passes` appears without editing this module).
* `check_output_path` / `write_output`: output files are checked before any work (a missing folder
  or a folder given as the file is one `error:` line), written atomically (temporary file in the
  same folder, then renamed) and get the permissions `open()` would give them under the user's
  umask (`tempfile.mkstemp` alone would make them 0600). A symlink is written through (the link
  stays); a special file (/dev/null, a FIFO) is written in place, never replaced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import stat
import tempfile
import typing
from collections.abc import Callable

from mmair.tools.diagnostics import UserError, format_diagnostic
from mmair.tools.stdio import quiet_broken_pipe, stdout_closed  # noqa: F401 - re-exported
from mmair.tools.version import mmair_version, version_line

__all__ = ["mmair_version", "version_line"]  # re-exported for the tools


class BadArguments(Exception):
    """A command-line problem (exit 2)."""


class PipelineError(Exception):
    """A bad `-p` pipeline (exit 2), one line."""


# ---- passes ------------------------------------------------------------------------------------


def option_name(field: str) -> str:
    """The documented spelling of a pass option: the dataclass field with `-` for `_`."""
    return field.replace("_", "-")


def _field_types(cls: type) -> dict[str, object]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - unresolvable annotations: fall back to the raw ones
        return {f.name: f.type for f in dataclasses.fields(cls)}


def _type_text(hint: object) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if args:
        return " | ".join(_type_text(a) for a in args)
    return {int: "integer", str: "string", bool: "true|false", float: "number"}.get(
        hint, getattr(hint, "__name__", str(hint)))  # type: ignore[arg-type]


def pass_options(cls: type) -> list[tuple[str, str, str]]:
    """(option name, type text, default text) of each option of a pass class."""
    if not dataclasses.is_dataclass(cls):
        return []
    hints = _field_types(cls)
    options = []
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        if f.default is not dataclasses.MISSING:
            default = "none" if f.default is None else str(f.default).lower() \
                if isinstance(f.default, bool) else str(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            default = str(f.default_factory())
        else:
            default = "required"
        options.append((option_name(f.name), _type_text(hints.get(f.name, f.type)), default))
    return options


# xDSL passes whose classes carry no docstring of their own (only the dataclass signature).
_UPSTREAM_SUMMARIES = {
    "cse": "Eliminate common subexpressions (xDSL's pass).",
    "dce": "Remove operations whose results are unused and that have no side effects (xDSL's pass).",
}


def _summary(cls: type) -> str:
    doc = (cls.__doc__ or "").strip()
    if not doc or doc.startswith(cls.__name__ + "("):  # the dataclass-generated signature
        return _UPSTREAM_SUMMARIES.get(getattr(cls, "name", ""), "")
    return " ".join(doc.split("\n\n")[0].split())


def passes_help(passes: dict[str, Callable[[], type]] | None = None, width: int = 100) -> str:
    """The pass section of `mmair-opt --help`: each pass, its summary and its options."""
    import textwrap

    if passes is None:
        from mmair.passes import get_all_passes

        passes = get_all_passes()
    lines = ["passes (-p 'name{option=value option=value},name'):"]
    for name, factory in passes.items():
        cls = factory()
        lines.append(f"  {name}")
        summary = _summary(cls)
        if summary:
            lines += textwrap.wrap(summary, width, initial_indent="      ", subsequent_indent="      ",
                               break_on_hyphens=False)  # pass names stay whole
        for opt, kind, default in pass_options(cls):
            lines.append(f"      {opt}={kind}  (default: {default})")
    return "\n".join(lines)


def _check_value(pass_name: str, opt: str, hint: object, values: tuple) -> None:
    """Raise PipelineError when `values` (xDSL's parsed option values) do not fit `hint`."""
    allowed = [a for a in typing.get_args(hint)] or [hint]
    accepts_none = type(None) in allowed
    kinds = [a for a in allowed if a is not type(None)]
    if len(values) != 1:
        raise PipelineError(f"pass '{pass_name}' option '{opt}' takes one value, got {len(values)}")
    (value,) = values
    for kind in kinds:
        if kind is bool and isinstance(value, bool):
            return
        if kind is int and isinstance(value, int) and not isinstance(value, bool):
            return
        if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
            return
        if kind is str and isinstance(value, str):
            return
    if accepts_none and value is None:
        return
    raise PipelineError(f"pass '{pass_name}' option '{opt}' expects {_type_text(hint)}, got "
                        f"{str(value).lower() if isinstance(value, bool) else repr(value)}")


def parse_pipeline_spec(passes: dict[str, Callable[[], type]], spec: str, callback=None):
    """A `PassPipeline` for `spec`, with every pass name, option name and option type checked
    first; raises PipelineError with one line in the documented spelling."""
    from xdsl.passes import PassPipeline
    from xdsl.passes import parse_pipeline as xdsl_parse_pipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    from mmair.tools.diagnostics import pipeline_error_line

    try:
        specs = tuple(xdsl_parse_pipeline(spec))
    except (ValueError, ArgSpecParseError) as err:
        raise PipelineError(pipeline_error_line(err)) from None
    built = []
    for s in specs:
        if s.name not in passes:
            raise PipelineError(f"bad pipeline: unknown pass '{s.name}' (passes: "
                                f"{', '.join(passes)}; see mmair-opt --help)")
        cls = passes[s.name]()
        known = {option_name(f.name): f.name for f in dataclasses.fields(cls)} \
            if dataclasses.is_dataclass(cls) else {}
        hints = _field_types(cls)
        for given, values in s.parameters.items():
            opt = option_name(given)
            if opt not in known:
                listed = ", ".join(known) or "none"
                raise PipelineError(f"pass '{s.name}' has no option '{opt}' (options: {listed})")
            _check_value(s.name, opt, hints.get(known[opt]), tuple(values))
        try:
            built.append(cls.from_pass_spec(s))
        except (ValueError, TypeError, ArgSpecParseError) as err:
            raise PipelineError(f"pass '{s.name}': {str(err).splitlines()[0]}") from None
    return PassPipeline(tuple(built), callback)


# ---- targets ------------------------------------------------------------------------------------


def all_targets() -> tuple[str, ...]:
    """Every `--target` value: the Ascend targets, then the tcgen05 (Blackwell) ones."""
    from mmair.isa.ascend.targets import TARGET_NAMES
    from mmair.isa.tcgen05.rules import TCGEN05_TARGETS

    return (*TARGET_NAMES, *TCGEN05_TARGETS)


def target_attribute(target: str) -> str:
    """The module attribute a `--target` value sets: `pto.target` for an Ascend target,
    `tcgen05.target` for a Blackwell one."""
    from mmair.isa.ascend.targets import TARGET_NAMES

    return "pto.target" if target in TARGET_NAMES else "tcgen05.target"


def ascend_target(target: str | None) -> str | None:
    """`target` if it names an Ascend target (the executor's memory model), else None."""
    return target if target is not None and target_attribute(target) == "pto.target" else None


def kernel_families(module) -> set[str]:
    """The hardware families whose ops the module holds: "pto" (Ascend), "tcgen05" (Blackwell)."""
    return {op.name.split(".", 1)[0] for op in module.walk()} & {"pto", "tcgen05"}


def wrong_family_target(module, target: str | None) -> str | None:
    """The message for a `--target` of the other hardware family than the kernel's ops (one
    error line instead of a target attribute the kernel's ops never read), else None."""
    families = kernel_families(module) if target is not None else set()
    if not families:
        return None
    ascend = ascend_target(target) is not None
    if ("pto" if ascend else "tcgen05") in families:
        return None
    given = "an Ascend (pto)" if ascend else "a Blackwell (tcgen05)"
    kernel = "a Blackwell (tcgen05)" if ascend else "an Ascend (pto)"
    fitting = [t for t in all_targets() if (ascend_target(t) is None) == ascend]
    return (f"--target {target} is {given} target; this is {kernel} kernel: give one of "
            f"{', '.join(fitting)}")


# ---- output files ------------------------------------------------------------------------------


def _special_file(path: str) -> bool:
    """True for an existing output that is not a regular file (/dev/null, a FIFO, a terminal):
    it is written in place; replacing it by a renamed temporary file would destroy it."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def check_output_path(path: str, flag: str = "-o") -> None:
    """UserError unless `path` can be an output file: its folder exists and it is not a folder
    (a writable special file such as /dev/null is fine)."""
    if path == "-":
        return
    if os.path.isdir(path):
        raise UserError(format_diagnostic(f"cannot write output '{path}' ({flag}): it is a directory"))
    real = os.path.realpath(path)
    if _special_file(real):
        if not os.access(real, os.W_OK):
            raise UserError(format_diagnostic(f"cannot write output '{path}' ({flag}): not writable"))
        return
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise UserError(format_diagnostic(
            f"cannot write output '{path}' ({flag}): no such directory '{folder}'"))
    if not os.access(folder, os.W_OK):
        raise UserError(format_diagnostic(
            f"cannot write output '{path}' ({flag}): directory '{folder}' is not writable"))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(path: str, write: Callable[[typing.BinaryIO], None], flag: str = "-o") -> None:
    """Write a file atomically with `write(binary_stream)`; UserError on any OS error. The file gets
    mode 0666 minus the umask, like a file made by `open()`."""
    check_output_path(path, flag)
    real = os.path.realpath(path)  # through a symlink: the link stays, its target is written
    if _special_file(real):
        buffer = io.BytesIO()  # np.save and savefig ask a stream for its position
        write(buffer)
        try:
            with open(real, "wb") as f:
                f.write(buffer.getvalue())
        except OSError as err:
            raise UserError(format_diagnostic(
                f"cannot write output '{path}': {err.strerror or err}")) from None
        return
    folder = os.path.dirname(real)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mmair-", suffix=".tmp", dir=folder)
    except OSError as err:
        raise UserError(format_diagnostic(f"cannot write output '{path}': {err.strerror or err}")) from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, real)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise UserError(format_diagnostic(f"cannot write output '{path}': {err.strerror or err}")) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def refuse_unreadable_values(specs: list[tuple[str, str]]) -> None:
    """`--input NAME=V` with a V that is no integer and no file (and does not name one: a missing
    `x.npy` is reported when it is read): a typo, named before the kernel is read (a PTOAS size
    argument would otherwise only be reported as missing)."""
    for name, text in specs:
        with contextlib.suppress(ValueError):
            int(text, 0)
            continue
        if not text.endswith(".npy") and not os.path.exists(text):
            raise BadArguments(f"--input {name}={text}: '{text}' is neither an integer size nor "
                               f"an existing .npy file")
