"""mmair-run's timing options: which kernels can be timed, what `--timing-only` excludes, the
`--timeline` file, and the `--costs` figures (docs/costs.md)."""

from __future__ import annotations

from typing import Any

from mmair.tools.cli import BadArguments, check_output_path
from mmair.tools.diagnostics import UserError, format_diagnostic


def check_timed_kernel(module, file: str) -> None:
    """The cost model times the Ascend AI Core pipes: a kernel with tcgen05 ops and no pto ops has
    nothing it can time (a Blackwell timing model does not exist), so say so instead of 0 cycles."""
    names = {op.name.split(".", 1)[0] for op in module.walk()}
    if "tcgen05" in names and "pto" not in names:
        raise UserError(format_diagnostic(
            "--timing/--timeline model the Ascend AI Core pipes; this is a tcgen05 kernel, whose "
            "timing is not modelled", file=file))


def costs_spec(args) -> Any:
    """The `--costs` preset name or parsed file (None without it); it needs --timing."""
    if args.costs is None:
        return None
    if not (args.timing or args.timing_only or args.timeline is not None):
        raise BadArguments("--costs sets the figures of the cycle model: it needs --timing, "
                           "--timing-only or --timeline")
    from mmair.isa.ascend.calibration import PRESETS, CalibrationError, calibrate, load_spec

    try:
        spec = load_spec(args.costs)
        calibrate("a2", spec)  # every key is checked, whichever target the kernel has
    except CalibrationError as err:
        where = args.costs if args.costs not in PRESETS and "invalid JSON" not in str(err) else None
        raise UserError(format_diagnostic(f"--costs: {err}", file=where)) from None
    return spec


def check_timing_options(args, outputs_spec, checks_spec) -> None:
    """--timing-only computes no outputs: options that read them are bad arguments (exit 2);
    --timeline writes .json or .png."""
    if args.timing_only:
        clash = [name for name, given in (("--check", checks_spec), ("--output", outputs_spec),
                                          ("--check-numpy", args.check_numpy)) if given]
        if clash:
            raise BadArguments(f"--timing-only computes no outputs: it cannot be combined with "
                             f"{', '.join(clash)}")
    if args.timeline is not None:
        if not args.timeline.endswith((".json", ".png")):
            raise BadArguments(f"--timeline: '{args.timeline}' must end in .json (Chrome trace) "
                             f"or .png (Gantt chart)")
        check_output_path(args.timeline, "--timeline")
