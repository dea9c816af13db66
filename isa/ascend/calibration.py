"""Calibrating the cycle model: overrides of any figure of `costs.Costs`, and named presets.

`mmair-run --costs FILE.json` and `mmair-tune --costs FILE.json` replace figures of the target's
cost table (`isa/ascend/costs.py`) before timing; `--costs ptoisa` takes pto-isa's own constants
instead, to hold the two models side by side. The schema (docs/costs.md, "Calibration"):

    {
      "base": "ptoisa",                      optional: start from a preset instead of the target's table
      "mad_latency": 20,                     a number figure
      "gm_read": {"bytes_per_cycle": 40},    a data path: bytes_per_cycle and / or latency
      "targets": {"a5": {"l2_bytes": 0}}     optional: figures for one target only (applied last)
    }

Every key is checked: an unknown one is an error naming it, its path and the known keys; a value
must be a number (not a boolean) of the field's range. Pure Python, no xDSL.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import fields, replace
from typing import Any

from mmair.isa.ascend.costs import Costs, Rate, costs
from mmair.isa.ascend.targets import TARGET_NAMES

MAX_COSTS_BYTES = 1 << 20
"""Largest `--costs` file read (a cost table is a few hundred bytes)."""


class CalibrationError(ValueError):
    """A `--costs` file or preset that cannot be applied; the message names the key."""


RATE_FIELDS = ("gm_read", "gm_write", "l1_l0a", "l1_l0b", "l0c_out", "l2_read", "l2_write")
"""The data paths of a cost table: each has `bytes_per_cycle` (> 0) and `latency` (>= 0)."""
NUMBER_FIELDS: dict[str, tuple[float, bool]] = {
    # field: (smallest legal value, integer only)
    "clock_mhz": (1e-9, False),
    "vector_bytes_per_cycle": (1, True),
    "mad_latency": (0, True),
    "fix_latency": (0, True),
    "quant_latency": (0, True),
    "flag_latency": (0, True),
    "barrier_latency": (0, True),
    "issue_cycles": (0, True),
    "l2_bytes": (0, True),
    "l2_line_bytes": (1, True),
    "cores": (1, True),
    "ddr_chip_read": (0, False),
}
"""The number figures of a cost table (`ddr_chip_read` 0: no chip-wide DDR limit)."""
_RATE_KEYS = ("bytes_per_cycle", "latency")
_TOP_KEYS = ("base", "targets")


def _gib_per_s(gib: float, clock_hz: float) -> float:
    """Bytes per cycle of a bandwidth in GiB/s (pto-isa's unit) at `clock_hz`."""
    return round(gib * 2**30 / clock_hz, 2)


_PTOISA = "hw-native-sys/pto-isa 3186c381 include/pto/costmodel"
_PTOISA_CLOCK = 1.85e9  # arch_config.hpp:21 kMainFrequencyHz
PRESETS: dict[str, dict[str, Any]] = {
    # pto-isa's a2a3 cost model (arch_config.hpp:97-114 kA2A3ArchConfig, bandwidths in GiB/s in
    # the field order of lines 42-53; moves are bandwidth only, no start-up; a mad is
    # kDefaultHeadCycles = 6 (cce_costmodel_cube.hpp:16) + one cycle per 16 x k0 x 16 step; no L2).
    "ptoisa": {
        "clock_mhz": 1850,
        "gm_read": {"bytes_per_cycle": _gib_per_s(135.0, _PTOISA_CLOCK), "latency": 0},  # GM_TO_L1
        # L0C_TO_GM (the fixpipe to GM, the only GM write of a cube kernel); pto-isa's UB_TO_GM
        # is 188.46 GiB/s, which this one write rate cannot hold as well
        "gm_write": {"bytes_per_cycle": _gib_per_s(70.0, _PTOISA_CLOCK), "latency": 0},
        "l1_l0a": {"bytes_per_cycle": _gib_per_s(441.0, _PTOISA_CLOCK), "latency": 0},
        "l1_l0b": {"bytes_per_cycle": _gib_per_s(220.5, _PTOISA_CLOCK), "latency": 0},
        "l0c_out": {"bytes_per_cycle": _gib_per_s(128.0, _PTOISA_CLOCK), "latency": 0},  # L0C_TO_L1
        "mad_latency": 6,
        "fix_latency": 0,
        "quant_latency": 0,
        "l2_bytes": 0,
        "ddr_chip_read": 0,
    },
}
PRESET_SOURCES: dict[str, str] = {"ptoisa": _PTOISA}


def _where(path: tuple[str, ...]) -> str:
    return ".".join(path)


def _number(value: Any, path: tuple[str, ...], low: float, integer: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CalibrationError(f"cost figure '{_where(path)}' must be a number, got {json.dumps(value)}")
    if integer and not float(value).is_integer():
        raise CalibrationError(f"cost figure '{_where(path)}' must be an integer, got {value}")
    if value < low or value != value or value in (float("inf"), float("-inf")):
        raise CalibrationError(f"cost figure '{_where(path)}' must be >= {low:g}, got {value}")
    return int(value) if integer else float(value)


def _apply(table: Costs, figures: dict[str, Any], path: tuple[str, ...]) -> Costs:
    changes: dict[str, Any] = {}
    for key, value in figures.items():
        here = (*path, key)
        if key in NUMBER_FIELDS:
            low, integer = NUMBER_FIELDS[key]
            changes[key] = _number(value, here, low, integer)
        elif key in RATE_FIELDS:
            if not isinstance(value, dict):
                raise CalibrationError(
                    f"cost figure '{_where(here)}' must be an object with keys "
                    f"{', '.join(_RATE_KEYS)}, got {json.dumps(value)}")
            old: Rate | None = getattr(table, key)
            rate = old if old is not None else Rate(1, 0, "")
            for part, figure in value.items():
                if part not in _RATE_KEYS:
                    raise CalibrationError(
                        f"unknown cost figure '{_where((*here, part))}' (known: "
                        f"{', '.join(_RATE_KEYS)})")
                if part == "bytes_per_cycle":
                    rate = replace(rate, bytes_per_cycle=_number(figure, (*here, part), 1e-9, False))
                else:
                    rate = replace(rate, latency=int(_number(figure, (*here, part), 0, True)))
            changes[key] = replace(rate, source=f"calibrated ({_where(here)})")
        else:
            known = ", ".join((*NUMBER_FIELDS, *RATE_FIELDS))
            raise CalibrationError(f"unknown cost figure '{_where(here)}' (known: {known})")
    return replace(table, **changes)


def calibrate(target: str, spec: dict[str, Any] | str | None, name: str = "--costs") -> Costs:
    """The cost table of `target` with `spec` applied: a preset name, or a parsed `--costs`
    document (module docstring); None gives the target's own table."""
    table = costs(target)
    if spec is None:
        return table
    if isinstance(spec, str):
        spec = {"base": spec}
    if not isinstance(spec, dict):
        raise CalibrationError(f"{name} must hold a JSON object, got {json.dumps(spec)[:40]}")
    base = spec.get("base")
    if base is not None:
        if base not in PRESETS:
            raise CalibrationError(f"unknown cost preset 'base' = {json.dumps(base)} (known: "
                                   f"{', '.join(PRESETS)})")
        table = _apply(table, PRESETS[base], (base,))
    figures = {k: v for k, v in spec.items() if k not in _TOP_KEYS}
    table = _apply(table, figures, ())
    per_target = spec.get("targets", {})
    if not isinstance(per_target, dict):
        raise CalibrationError(f"cost figure 'targets' must be an object of target names, got "
                               f"{json.dumps(per_target)}")
    for tname, tfigures in per_target.items():
        if tname not in TARGET_NAMES:
            raise CalibrationError(f"unknown target 'targets.{tname}' (known: "
                                   f"{', '.join(TARGET_NAMES)})")
        if not isinstance(tfigures, dict):
            raise CalibrationError(f"cost figure 'targets.{tname}' must be an object")
        if tname == target:
            table = _apply(table, tfigures, ("targets", tname))
        else:  # checked all the same: a typo for another target is still a typo
            _apply(costs(tname), tfigures, ("targets", tname))
    return table


def load_spec(argument: str) -> dict[str, Any] | str:
    """The `--costs` argument: a preset name, or the JSON object of a file (CalibrationError
    naming the file and the problem otherwise)."""
    if argument in PRESETS:
        return argument
    try:
        if not stat.S_ISREG(os.stat(argument).st_mode):  # /dev/zero, a fifo: never ends
            raise CalibrationError(f"'{argument}' is not a regular file")
        with open(argument, encoding="utf-8") as f:
            text = f.read(MAX_COSTS_BYTES + 1)
        if len(text) > MAX_COSTS_BYTES:
            raise CalibrationError(f"'{argument}' is larger than {MAX_COSTS_BYTES} bytes; a cost "
                                   "file holds a few figures")
        spec = json.loads(text)
    except FileNotFoundError:
        raise CalibrationError(f"no such file or cost preset '{argument}' (presets: "
                               f"{', '.join(PRESETS)})") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CalibrationError(f"cannot read '{argument}': {err}") from None
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{argument}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") \
            from None
    if not isinstance(spec, dict):
        raise CalibrationError(f"{argument} must hold a JSON object, got {type(spec).__name__}")
    return spec


def table_figures(table: Costs) -> dict[str, Any]:
    """Every figure of `table` in the `--costs` schema (what `--json` reports)."""
    out: dict[str, Any] = {}
    for f in fields(table):
        value = getattr(table, f.name)
        if f.name in NUMBER_FIELDS:
            out[f.name] = value
        elif f.name in RATE_FIELDS and value is not None:
            out[f.name] = {"bytes_per_cycle": value.bytes_per_cycle, "latency": value.latency}
    return out


__all__ = ["NUMBER_FIELDS", "PRESETS", "PRESET_SOURCES", "RATE_FIELDS", "CalibrationError",
           "calibrate", "load_spec", "table_figures"]
