"""Validity rules R1-R33 (docs/tcgen05-rules.md) for descriptors, `tcgen05.mma` forms and ld/st.

Descriptor values reach `tcgen05.mma` as registers, which neither ptxas nor the MLIR NVVM dialect
inspects; a wrong field gives a silently wrong MMA. These checks raise `DescriptorError` carrying the
rule id. Context that the descriptor itself does not carry (cta_group, `.ws`, the target, whether A
sits in TMEM, the block-scale vector size, the operand's major-ness) is passed as keywords. For
`check_idesc`, `cta_group`, `ws` and `target` may be None ("unknown"): the descriptor is then legal
if some value of them makes it legal, which is what `mmair-desc decode` checks.

Where each rule is enforced:
* R1, R11 (reserved idesc bits), R17 (fixed/reserved smem bits), R18 (swizzle 3/5/7), R24 (reserved
  zero-mask bits): by the decoders (the dataclasses cannot hold those bits).
* R2-R10, R12-R16: `check_idesc`; R17-R22: `check_smem_desc`; R23-R25: `check_zcmask`.
* R26-R32: `check_disable_output_lane`, `check_scale_input_d`, `check_ashift`, `check_ws`,
  `check_block_scale`, `check_cta_groups`, `check_kind_target`, or all at once `check_mma`.
* R33 (tcgen05.ld/st shape, .num and lane quarter): `check_ld_st` (tables in `tmem_moves`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from dataclasses import replace

from mmair.isa.tcgen05 import tmem_moves
from mmair.isa.tcgen05.errors import DescriptorError
from mmair.isa.tcgen05.forms import MmaForm, block_scale_spelling
from mmair.isa.tcgen05.idesc import (
    AB_TYPE_CODES,
    BLOCK_SCALED_KINDS,
    DENSE_KINDS,
    KINDS,
    LEGAL_DTYPES,
    MXF4_KINDS,
    SCALE_TYPE_CODES,
    InstrDesc,
    check_kind,
    decode_idesc,
    encode_idesc,
)
from mmair.isa.tcgen05.shapes import (
    mma_k,
    n_legal_text,
    transposed_8bit_b_n,
    valid_m,
    valid_n,
)
from mmair.isa.tcgen05.smem import (
    LBO_MODES,
    SWIZZLES,
    SmemDesc,
    check_byte_field,
    expected_base_offset,
)
from mmair.isa.tcgen05.targets import (
    I8_TARGETS,
    SCALE_INPUT_D_TARGETS,
    SM103_FEATURE_TARGETS,
    TCGEN05_TARGETS,
    canonical_target,
    is_arch_specific,
)
from mmair.isa.tcgen05.types import EIGHT_BIT_TYPES
from mmair.isa.tcgen05.zcmask import SUBMASKS_PER_M, ZeroColumnMask, encode_zcmask

#: The target assumed when none is given.
DEFAULT_TARGET = "sm_100a"
#: Block-scale vector sizes as written in PTX (`.scale_vec::NX`) or the newer `.blockNN` names.
SCALE_VECS: tuple[str, ...] = ("1X", "2X", "4X", "block32", "block16")
#: Collector usages (`a::fill`, `b2::lastuse`, ...).
COLLECTOR_OPS: tuple[str, ...] = ("fill", "use", "lastuse", "discard")
_COLLECTOR_RE = re.compile(r"^(a|b[0-3])::(fill|use|lastuse|discard)$")


def check_target(target: object) -> str:
    """`target` must be a tcgen05 target (sm_100a, sm_103a, sm_100f, sm_101a alias, ...)."""
    if not isinstance(target, str) or target not in TCGEN05_TARGETS:
        _fail(DescriptorError(
            "target", target, ", ".join(TCGEN05_TARGETS), None, "does not support tcgen05"
        ))
    return target


# ----------------------------------------------------------------------------------------------
# Reporting one error or all of them

_COLLECTING: ContextVar[list[DescriptorError] | None] = ContextVar("_collecting", default=None)


def _fail(err: DescriptorError) -> None:
    """Raise `err`, or record it and go on when the caller collects every error."""
    errors = _COLLECTING.get()
    if errors is None:
        raise err
    if all(str(err) != str(other) for other in errors):
        errors.append(err)


def collect_errors(check: Callable[..., object], *args: object, **kwargs: object
                   ) -> list[DescriptorError]:
    """Run one of the `check_*` functions and return every rule it finds broken (not only the
    first). A check that cannot go on (a field another helper refuses) ends with that error."""
    errors: list[DescriptorError] = []
    token = _COLLECTING.set(errors)
    try:
        check(*args, **kwargs)
    except DescriptorError as err:
        _fail(err)
    except (KeyError, TypeError, IndexError):
        pass  # a later rule needs a field an earlier error already reported
    finally:
        _COLLECTING.reset(token)
    return errors


# ----------------------------------------------------------------------------------------------
# Instruction descriptor (R2-R16)


def scale_vector_size(kind: str, scale_vec: str) -> str:
    """The `.scale_vec::NX` size (1X, 2X, 4X) that a block-scale spelling means for `kind`.

    `.block16` is 4X; `.block32` is 1X for kind::mxf8f6f4 and 2X for kind::mxf4/mxf4nvf4 (reference
    §7); an NX spelling is itself. Anything else is returned unchanged (R30 rejects it).
    """
    if scale_vec == "block16":
        return "4X"
    if scale_vec == "block32":
        return "1X" if kind == "mxf8f6f4" else "2X"
    return scale_vec


def _scale_vector(kind: str, scale_vec: str | None, scale_type: str | None) -> str | None:
    """The effective vector size (1X/2X/4X) of a block-scaled MMA, None when it is unknown."""
    if scale_vec is None:
        return "4X" if scale_type == "ue4m3" else None
    return scale_vector_size(kind, scale_vec)


def _check_idesc_context_free(d: InstrDesc, a_in_tmem: bool, scale_vec: str | None) -> None:
    kind = check_kind(d.kind)
    types = AB_TYPE_CODES[kind]
    for name in ("atype", "btype"):
        value = getattr(d, name)
        if value not in types:
            _fail(DescriptorError(
                name, value, ", ".join(types), "R3" if kind in DENSE_KINDS else "R15",
                f"is not a kind::{kind} operand type",
            ))
    if kind in DENSE_KINDS:
        if d.dtype not in LEGAL_DTYPES[kind]:
            _fail(DescriptorError(
                "dtype", d.dtype, ", ".join(LEGAL_DTYPES[kind]), "R2",
                f"is not a kind::{kind} accumulator type",
            ))
        if kind == "f16":
            if d.atype != d.btype:
                _fail(DescriptorError(
                    "btype", d.btype, f"{d.atype} (equal to atype)", "R3",
                    "differs from atype; kind::f16 does not mix f16 and bf16",
                ))
            if d.dtype == "f16" and d.atype != "f16":
                _fail(DescriptorError(
                    "dtype", d.dtype, "f32 (a bf16 MMA accumulates in f32)", "R3",
                    f"is not legal with atype = {d.atype}",
                ))
        if d.saturate and kind != "i8":
            _fail(DescriptorError("saturate", True, "false (saturate is for kind::i8)", "R4",
                                  f"is not legal for kind::{kind}"))
        if kind == "i8":
            for name in ("negate_a", "negate_b"):
                if getattr(d, name):
                    _fail(DescriptorError(name, True, "false (kind::i8 cannot negate)", "R5",
                                          "is not legal for kind::i8"))
        if d.sparsity_selector and not d.sparse:
            _fail(DescriptorError("sparsity_selector", d.sparsity_selector,
                                  "0 (the MMA is dense)", "R6", "is not legal"))
        if d.sparsity_selector and kind in ("i8", "f8f6f4"):
            _fail(DescriptorError("sparsity_selector", d.sparsity_selector,
                                  f"0 (kind::{kind})", "R6", "is not legal"))
        if scale_vec is not None:
            _fail(DescriptorError("scale_vec", scale_vec, "none (block scaling is for kind::mx*)",
                                  "R30", f"is not legal for kind::{kind}"))
    else:
        if d.dtype is not None:
            _fail(DescriptorError("dtype", d.dtype, "none (D is f32)", "R11",
                                  f"is not encodable for kind::{kind}"))
        for name in ("sparsity_selector", "saturate", "max_shift"):
            if getattr(d, name):
                _fail(DescriptorError(name, getattr(d, name), f"0 (not in the kind::{kind} layout)",
                                      "R11", f"is not encodable for kind::{kind}"))
        _check_block_scaled_fields(d, scale_vec)
    # R9: transposes per kind; an A operand in TMEM has no major-ness to choose.
    if kind in MXF4_KINDS:
        for name in ("transpose_a", "transpose_b"):
            if getattr(d, name):
                _fail(DescriptorError(name, True, f"false (kind::{kind} has no transpose)", "R15",
                                      f"is not legal for kind::{kind}"))
    if a_in_tmem and d.transpose_a:
        _fail(DescriptorError("transpose_a", True, "false (A is in tensor memory)", "R9",
                              "is not legal"))


def _check_block_scaled_fields(d: InstrDesc, scale_vec: str | None) -> None:
    kind = d.kind
    if d.scale_type not in SCALE_TYPE_CODES[kind]:
        _fail(DescriptorError("scale_type", d.scale_type, ", ".join(SCALE_TYPE_CODES[kind]), "R14",
                              f"is not a kind::{kind} scale type"))
    if scale_vec is not None:
        check_block_scale(kind, scale_vec)
    vector = _scale_vector(kind, scale_vec, d.scale_type)
    if d.scale_type == "ue4m3" and vector != "4X":
        _fail(DescriptorError("scale_type", "ue4m3", "ue8m0 (ue4m3 needs .scale_vec::4X/.block16)",
                              "R14", f"is not legal with .{block_scale_spelling(scale_vec, True)}"))
    if kind == "mxf8f6f4":
        legal_ids: tuple[int, ...] = (0, 1, 2, 3)
    elif vector == "4X" and d.k != 96:
        legal_ids = (0,)
    else:
        legal_ids = (0, 2)
    why = f"kind::{kind}" + (f" with a {vector} scale vector" if vector else "")
    for name in ("sfa_id", "sfb_id"):
        value = getattr(d, name)
        if value not in legal_ids:
            _fail(DescriptorError(name, value, ", ".join(map(str, legal_ids)) + f" ({why})", "R13",
                                  "is not a legal scale-factor ID"))
    if d.k == 96 and d.sparse:
        _fail(DescriptorError("k", 96, "64 (a sparse mxf4 MMA has K = 128)", "R16",
                              "is only available for a dense MMA"))


def _check_idesc_in_context(d: InstrDesc, cta_group: int, ws: bool, target: str | None) -> None:
    kind = d.kind
    shape_rule = "R7" if kind in DENSE_KINDS else "R12"
    if ws and cta_group != 1:
        _fail(DescriptorError("cta_group", cta_group, "1 (tcgen05.mma.ws)", "R29",
                              "is not legal with .ws"))
    if ws and kind in BLOCK_SCALED_KINDS:
        _fail(DescriptorError("kind", kind, ", ".join(DENSE_KINDS) + " (tcgen05.mma.ws)", "R29",
                              "is not legal with .ws"))
    if d.max_shift and not ws:
        _fail(DescriptorError("max_shift", d.max_shift, "0 (max shift is for tcgen05.mma.ws)",
                              "R10", "is not legal without .ws"))
    form = f"kind::{kind}{' .ws' if ws else ''} cta_group::{cta_group}{' sparse' if d.sparse else ''}"
    ms = valid_m(kind, cta_group, ws, d.sparse)
    if d.m not in ms:
        _fail(DescriptorError("m", d.m, ", ".join(map(str, ms)) + f" ({form})", shape_rule,
                              "is not a valid M"))
    ns = valid_n(kind, cta_group, ws, d.sparse)
    if d.n not in ns:
        _fail(DescriptorError("n", d.n, n_legal_text(ns) + f" ({form})", shape_rule,
                              "is not a valid N"))
    if d.transpose_b and d.btype in EIGHT_BIT_TYPES:
        ns = transposed_8bit_b_n(cta_group)
        if d.n not in ns:
            _fail(DescriptorError(
                "n", d.n, n_legal_text(ns) + f" (N-major 8-bit B, cta_group::{cta_group})", "R8",
                "is not a valid N",
            ))
    if d.k == 96:
        if cta_group != 2 or d.m != 256:
            _fail(DescriptorError("k", 96, "64 (K = 96 needs cta_group::2 and M = 256)", "R16",
                                  f"is not legal with cta_group::{cta_group}, M = {d.m}"))
        if target is not None and canonical_target(target) not in SM103_FEATURE_TARGETS:
            _fail(DescriptorError("k", 96, f"64 (K = 96 needs {', '.join(SM103_FEATURE_TARGETS)})",
                                  "R16", f"is not legal on {target}"))
    if target is not None:
        check_kind_target(kind, target)


def check_idesc(
    d: InstrDesc,
    *,
    cta_group: int | None = 1,
    ws: bool | None = False,
    a_in_tmem: bool = False,
    scale_vec: str | None = None,
    target: str | None = "sm_100a",
) -> None:
    """R2-R16 (and R29/R30/R32 where the idesc decides them) for an MMA with this context.

    `cta_group`, `ws` or `target` = None means unknown: some value must make `d` legal.
    """
    if target is not None:
        check_target(target)
    encode_idesc(d)  # every field representable in the kind's layout
    _check_idesc_context_free(d, a_in_tmem, scale_vec)
    groups = [cta_group] if cta_group is not None else (
        [2, 1] if d.m == 256 or d.k == 96 else [1, 2]
    )
    wss = [ws] if ws is not None else ([True, False] if d.max_shift or d.m == 32 else [False, True])
    first_errors: list[DescriptorError] = []
    for one_ws in wss:
        for group in groups:
            errors = collect_errors(_check_idesc_in_context, d, group, bool(one_ws), target)
            if not errors:
                return
            first_errors = first_errors or errors
    for err in first_errors:
        _fail(err)


def validate_idesc_word(word: int, kind: str, **ctx: object) -> InstrDesc:
    """Decode `word` under `kind` and apply `check_idesc(**ctx)`; returns the descriptor."""
    d = decode_idesc(word, kind)
    check_idesc(d, **ctx)  # type: ignore[arg-type]
    return d


def mma_shape(d: InstrDesc) -> tuple[int, int, int]:
    """(M, N, K) of the MMA the descriptor describes."""
    return d.m, d.n, mma_k(d.kind, d.sparse, d.k == 96)


# ----------------------------------------------------------------------------------------------
# Shared-memory descriptor (R17-R22)


def check_smem_desc(
    d: SmemDesc,
    *,
    kind: str | None = None,
    major: str | None = None,
    pattern_start: int | None = None,
    target: str | None = None,
) -> None:
    """R17-R22 for an operand descriptor; `kind`, `major` ("k" | "mn") and `target` when known.

    R21 (the base offset) needs `pattern_start`, the address where the operand's swizzle pattern
    starts: the start of the SMEM buffer it lies in. The descriptor alone does not say it (CUTLASS
    advances the start address inside a swizzle atom with base offset 0), so without it R21 is not
    checked.
    """
    if kind is not None:
        check_kind(kind)
    if major not in (None, "k", "mn"):
        _fail(DescriptorError("major", major, "k, mn", None, "is not a major-ness"))
    if target is not None:
        check_target(target)
    # An invalid swizzle is reported once; when collecting every error, the rules that depend on
    # the swizzle are then skipped (judged against no swizzle they would report consequences).
    swizzle_known = d.swizzle in SWIZZLES
    if not swizzle_known:
        _fail(DescriptorError("swizzle", d.swizzle, ", ".join(SWIZZLES), "R18", "is not a swizzle mode"))
    for name in ("start", "lbo", "sbo"):
        check_byte_field(name, getattr(d, name))
    if d.lbo_mode not in LBO_MODES:
        _fail(DescriptorError("lbo_mode", d.lbo_mode, ", ".join(LBO_MODES), "R20", "is not an LBO mode"))
    if not isinstance(d.base_offset, int) or not 0 <= d.base_offset <= 7:
        _fail(DescriptorError("base_offset", d.base_offset, "0..7", "R21", "does not fit bits 49-51"))
    if d.lbo_mode == "absolute":
        if swizzle_known and d.swizzle != "sw128":
            _fail(DescriptorError("lbo_mode", "absolute", "relative (absolute needs swizzle = sw128)",
                                  "R20", f"is not legal with swizzle = {d.swizzle}"))
        if d.base_offset != 0:
            _fail(DescriptorError("lbo_mode", "absolute", "relative (absolute needs base_offset = 0)",
                                  "R20", f"is not legal with base_offset = {d.base_offset}"))
        if major == "mn":
            _fail(DescriptorError("lbo_mode", "absolute", "relative (absolute needs a K-major operand)",
                                  "R20", "is not legal for an MN-major operand"))
        if target is not None and canonical_target(target) not in SM103_FEATURE_TARGETS:
            _fail(DescriptorError("lbo_mode", "absolute",
                                  f"relative (absolute needs {', '.join(SM103_FEATURE_TARGETS)})",
                                  "R20", f"is not legal on {target}"))
    if pattern_start is not None and swizzle_known:
        expected = expected_base_offset(pattern_start, d.swizzle)
        if d.base_offset != expected:
            _fail(DescriptorError(
                "base_offset", d.base_offset,
                f"{expected} (the swizzle pattern starts at the buffer start {pattern_start:#x}, "
                f"swizzle = {d.swizzle})", "R21", "does not match the buffer's swizzle pattern",
            ))
    if d.swizzle == "sw128_base32b":
        if major == "k":
            _fail(DescriptorError("swizzle", d.swizzle, "none, sw128, sw64, sw32 (K-major operand)",
                                  "R22", "is not legal for a K-major operand"))
        if kind is not None and kind != "tf32":
            _fail(DescriptorError("swizzle", d.swizzle,
                                  "none, sw128, sw64, sw32 (sw128_base32b is for MN-major tf32)",
                                  "R22", f"is not legal for kind::{kind}"))
    elif swizzle_known and major == "mn" and kind == "tf32":
        _fail(DescriptorError("swizzle", d.swizzle, "sw128_base32b (MN-major tf32 operand)", "R22",
                              "is not legal for an MN-major tf32 operand"))


# ----------------------------------------------------------------------------------------------
# Zero-column mask descriptor (R23-R25)


def check_zcmask(z: ZeroColumnMask, *, m: int | None, ws: bool = True, cta_group: int = 1) -> None:
    """R23 (only on tcgen05.mma.ws, cta_group::1, M 32/64/128), field widths, R25 (column shift).

    `m` = None means unknown: the shift limit is then the largest one (32).
    """
    if not ws:
        _fail(DescriptorError("zero-column mask", "present", "only on tcgen05.mma.ws", "R23",
                              "is not legal without .ws"))
    if cta_group != 1:
        _fail(DescriptorError("cta_group", cta_group, "1 (tcgen05.mma.ws)", "R23",
                              "is not legal with a zero-column mask"))
    if m is not None and m not in SUBMASKS_PER_M:
        _fail(DescriptorError("m", m, "32, 64, 128", "R23", "is not an M of tcgen05.mma.ws"))
    encode_zcmask(z)
    limit = 16 if m == 32 else 32
    if z.shift > limit:
        _fail(DescriptorError("shift", z.shift, f"0..{limit} ({'any M' if m is None else f'M = {m}'})",
                              "R25", "exceeds the maximum column shift"))


# ----------------------------------------------------------------------------------------------
# Instruction level (R26-R32)


def check_disable_output_lane(length: int | None, *, cta_group: int, ws: bool = False) -> None:
    """R26: 4 b32 words for cta_group::1, 8 for cta_group::2, none with `.ws`."""
    if length is None:
        return
    if ws:
        _fail(DescriptorError("disable_output_lane", length, "absent (tcgen05.mma.ws)", "R26",
                              "is not legal with .ws"))
    expected = 4 if cta_group == 1 else 8
    if length != expected:
        _fail(DescriptorError("disable_output_lane", length,
                              f"{expected} words (cta_group::{cta_group})", "R26",
                              "has the wrong length"))


def check_scale_input_d(value: int | None, *, kind: str, ws: bool = False) -> None:
    """R27: an immediate in 0..15, only for kind::f16 and kind::tf32 (and not with `.ws`, R29)."""
    if value is None:
        return
    if ws:
        _fail(DescriptorError("scale_input_d", value, "absent (tcgen05.mma.ws)", "R29",
                              "is not legal with .ws"))
    if kind not in ("f16", "tf32"):
        _fail(DescriptorError("scale_input_d", value, "absent (only kind::f16 and kind::tf32)",
                              "R27", f"is not legal for kind::{kind}"))
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 15:
        _fail(DescriptorError("scale_input_d", value, "0..15", "R27", "is out of range"))


def check_ashift(ashift: bool, *, a_in_tmem: bool, m: int, collector_a: str | None = None) -> None:
    """R28: `.ashift` needs A in TMEM, M = 128 or 256, and no collector::a::fill/use."""
    if not ashift:
        return
    if not a_in_tmem:
        _fail(DescriptorError("ashift", True, "false (A is in shared memory)", "R28",
                              "needs A in tensor memory"))
    if m not in (128, 256):
        _fail(DescriptorError("ashift", True, "false (M must be 128 or 256)", "R28",
                              f"is not legal with M = {m}"))
    if collector_a in ("a::fill", "a::use", "fill", "use"):
        _fail(DescriptorError("collector", collector_a, "a::lastuse, a::discard (with .ashift)",
                              "R28", "cannot be combined with .ashift"))


def check_collector(collector: str | None, *, ws: bool) -> None:
    """R29: `.ws` uses collector::b0..b3, the other forms collector::a."""
    if collector is None:
        return
    match = _COLLECTOR_RE.match(collector) if isinstance(collector, str) else None
    legal = "b0..b3::{fill,use,lastuse,discard}" if ws else "a::{fill,use,lastuse,discard}"
    if match is None or (match.group(1) == "a") == ws:
        _fail(DescriptorError("collector", collector, legal, "R29",
                              f"is not a collector usage of tcgen05.mma{'.ws' if ws else ''}"))


def check_ws(
    *,
    ws: bool,
    cta_group: int,
    kind: str,
    collector: str | None = None,
    disable_output_lane: int | None = None,
    scale_input_d: int | None = None,
) -> None:
    """R29: `.ws` is cta_group::1, dense kinds, collector b0-b3, no disable-output-lane/scale-input-d."""
    check_collector(collector, ws=ws)
    if not ws:
        return
    if cta_group != 1:
        _fail(DescriptorError("cta_group", cta_group, "1 (tcgen05.mma.ws)", "R29",
                              "is not legal with .ws"))
    if kind not in DENSE_KINDS:
        _fail(DescriptorError("kind", kind, ", ".join(DENSE_KINDS) + " (tcgen05.mma.ws)", "R29",
                              "is not legal with .ws"))
    check_disable_output_lane(disable_output_lane, cta_group=cta_group, ws=True)
    check_scale_input_d(scale_input_d, kind=kind, ws=True)


def check_block_scale(kind: str, scale_vec: str | None, *, block_scale: bool = True) -> None:
    """R30: mxf8f6f4 1X/block32; mxf4 2X/block32 (default); mxf4nvf4 explicit 2X/block32 or 4X/block16."""
    check_kind(kind)
    if kind not in BLOCK_SCALED_KINDS:
        if block_scale and scale_vec is not None:
            _fail(DescriptorError("scale_vec", scale_vec, "none (block scaling is for kind::mx*)",
                                  "R30", f"is not legal for kind::{kind}"))
        return
    if not block_scale:
        _fail(DescriptorError("block_scale", False, f"true (kind::{kind} is block scaled)", "R30",
                              "is required"))
    legal = {"mxf8f6f4": ("1X", "block32"), "mxf4": ("2X", "block32"),
             "mxf4nvf4": ("2X", "block32", "4X", "block16")}[kind]
    if scale_vec is None:
        if kind == "mxf4nvf4":
            _fail(DescriptorError("scale_vec", None, ", ".join(legal), "R30",
                                  "must be explicit for kind::mxf4nvf4"))
        return
    if scale_vec not in legal:
        _fail(DescriptorError("scale_vec", scale_vec, ", ".join(legal), "R30",
                              f"is not a kind::{kind} scale vector size"))


def check_cta_groups(cta_groups: Iterable[int]) -> None:
    """R31: every tcgen05 instruction of a kernel uses the same cta_group."""
    seen = sorted(set(cta_groups))
    for group in seen:
        if group not in (1, 2):
            _fail(DescriptorError("cta_group", group, "1, 2", "R31", "is not a CTA group size"))
    if len(seen) > 1:
        _fail(DescriptorError("cta_group", seen, "a single value per kernel", "R31",
                              "mixes CTA group sizes in one kernel"))


def check_kind_target(kind: str, target: str) -> None:
    """R32: kind::i8 only on sm_100a and sm_110a (alias sm_101a)."""
    check_target(target)
    if kind == "i8" and canonical_target(target) not in I8_TARGETS:
        _fail(DescriptorError("kind", kind, "not i8 (kind::i8 needs " + ", ".join(I8_TARGETS)
                              + ")", "R32", f"is not supported on {target}"))


def check_shift_target(target: str) -> None:
    """R32: tcgen05.shift only on arch-specific (`a`) targets (PTX ISA "tcgen05.shift" target
    notes: sm_100a, sm_101a, sm_103a, sm_110a; ptxas 13.5 also accepts sm_107a, rejects every
    `f` target)."""
    check_target(target)
    if not is_arch_specific(canonical_target(target)):
        _fail(DescriptorError("target", target, "an arch-specific target (sm_100a, sm_103a, "
                              "sm_107a, sm_110a; alias sm_101a)", "R32",
                              "does not support tcgen05.shift"))


#: Legal `.block_scale` spellings per block-scaled kind ("" = `.block_scale` without a size).
BLOCK_SCALE_SPELLINGS: dict[str, tuple[str, ...]] = {
    "mxf8f6f4": ("", "scale_vec::1X", "block32"),
    "mxf4": ("", "scale_vec::2X", "block32"),
    "mxf4nvf4": ("scale_vec::2X", "scale_vec::4X", "block16", "block32"),
}


def mma_form_errors(form: MmaForm, target: str) -> list[DescriptorError]:
    """Every rule one `tcgen05.mma` instruction form breaks on `target` (R23, R26-R32).

    These are the rules the assembler can see: modifiers and which operands are present. They
    agree with ptxas 13.5 on every form of `forms.all_mma_forms()` except the differences listed
    in `PTXAS_DIFFERENCES`, where mmair follows the PTX ISA text.
    """
    return [DescriptorError(*args) for args in _mma_form_violations(form, target)]


def mma_form_legal(form: MmaForm, target: str) -> bool:
    """True when `form` breaks no rule on `target` (`mma_form_errors` is empty)."""
    return not _mma_form_violations(form, target)


def _mma_form_violations(
    form: MmaForm, target: str
) -> list[tuple[str, object, str, str, str]]:
    errors: list[tuple[str, object, str, str, str]] = []

    def bad(field: str, value: object, legal: str, rule: str, reason: str) -> None:
        errors.append((field, value, legal, rule, reason))

    if target not in TCGEN05_TARGETS:
        bad("target", target, ", ".join(TCGEN05_TARGETS), "R32", "does not support tcgen05")
        return errors
    if form.kind not in KINDS:
        bad("kind", form.kind, ", ".join(KINDS), "R30", "is not an mma kind")
        return errors
    if form.cta_group not in (1, 2):
        bad("cta_group", form.cta_group, "1, 2", "R31", "is not a CTA group size")
        return errors
    canonical = canonical_target(target)
    kind, ws, bs = form.kind, form.ws, form.block_scale
    op = "tcgen05.mma.ws" if ws else "tcgen05.mma"
    # R29: the .ws form.
    if ws:
        if form.cta_group != 1:
            bad("cta_group", form.cta_group, "1 (tcgen05.mma.ws)", "R29", "is not legal with .ws")
        if kind not in DENSE_KINDS:
            bad("kind", kind, ", ".join(DENSE_KINDS) + " (tcgen05.mma.ws)", "R29",
                "is not legal with .ws")
        if form.ashift:
            bad("ashift", True, "false (tcgen05.mma.ws has no .ashift)", "R28",
                "is not legal with .ws")
        if form.disable_output_lane is not None:
            bad("disable_output_lane", form.disable_output_lane, "absent (tcgen05.mma.ws)", "R26",
                "is not legal with .ws")
        if form.scale_input_d is not None:
            bad("scale_input_d", form.scale_input_d, "absent (tcgen05.mma.ws)", "R29",
                "is not legal with .ws")
    elif form.zero_column_mask:
        bad("zero-column mask", "present", "only on tcgen05.mma.ws", "R23",
            "is not legal without .ws")
    if form.collector is not None:
        match = _COLLECTOR_RE.match(form.collector)
        if match is None or (match.group(1) == "a") == ws:
            legal = "b0..b3::{fill,use,lastuse,discard}" if ws else "a::{fill,use,lastuse,discard}"
            bad("collector", form.collector, legal, "R29", f"is not a collector usage of {op}")
    # R30: block scaling.
    if kind in BLOCK_SCALED_KINDS:
        legal = BLOCK_SCALE_SPELLINGS[kind]
        if bs is None:
            bad("block_scale", False, f"true (kind::{kind} is block scaled)", "R30", "is required")
        elif bs not in legal:
            shown = ", ".join(x or "(no size)" for x in legal)
            bad("scale_vec", bs or None, shown, "R30",
                "must be explicit for kind::mxf4nvf4" if not bs
                else f"is not a kind::{kind} scale vector size")
        elif bs.startswith("scale_vec::") and not is_arch_specific(canonical):
            bad("scale_vec", bs, "block16, block32 (.scale_vec::NX needs an sm_1xxa target)",
                "R32", f"is not supported on {target}")
        if form.sparse and kind in MXF4_KINDS and not is_arch_specific(canonical):
            bad("sparse", True, f"false (a sparse kind::{kind} MMA needs an sm_1xxa target)",
                "R32", f"is not supported on {target}")
    elif bs is not None:
        bad("block_scale", True, "false (block scaling is for kind::mx*)", "R30",
            f"is not legal for kind::{kind}")
    # R26: disable-output-lane (not on the block-scaled form either).
    if form.disable_output_lane is not None and not ws:
        if bs is not None:
            bad("disable_output_lane", form.disable_output_lane, "absent (with .block_scale)",
                "R26", "is not legal with .block_scale")
        expected = 4 if form.cta_group == 1 else 8
        if form.disable_output_lane != expected:
            bad("disable_output_lane", form.disable_output_lane,
                f"{expected} words (cta_group::{form.cta_group})", "R26", "has the wrong length")
    # R27: scale-input-d.
    if form.scale_input_d is not None and not ws:
        value = form.scale_input_d
        if kind not in ("f16", "tf32"):
            bad("scale_input_d", value, "absent (only kind::f16 and kind::tf32)", "R27",
                f"is not legal for kind::{kind}")
        if not 0 <= value <= 15:
            bad("scale_input_d", value, "0..15", "R27", "is out of range")
        if canonical not in SCALE_INPUT_D_TARGETS:
            bad("scale_input_d", value,
                "absent (scale-input-d needs " + ", ".join(SCALE_INPUT_D_TARGETS) + ")", "R32",
                f"is not supported on {target}")
    # R28: .ashift.
    if form.ashift and not ws:
        if not form.a_tmem:
            bad("ashift", True, "false (A is in shared memory)", "R28", "needs A in tensor memory")
        if bs is not None:
            bad("ashift", True, "false (with .block_scale)", "R28",
                "is not legal with .block_scale")
        if form.collector in ("a::fill", "a::use"):
            bad("collector", form.collector, "a::lastuse, a::discard (with .ashift)", "R28",
                "cannot be combined with .ashift")
    # R32: kind per target.
    if kind == "i8" and canonical not in I8_TARGETS:
        bad("kind", kind, "not i8 (kind::i8 needs " + ", ".join(I8_TARGETS) + ")", "R32",
            f"is not supported on {target}")
    return errors


def check_ld_st(shape: str, num: int, *, lane: int, warp: int) -> int:
    """R33 for a tcgen05.ld/st: shape x .num (registers per thread) and the warp's lane quarter;
    returns the registers per thread."""
    regs = tmem_moves.ld_st_registers(shape, num)
    tmem_moves.check_lane_quarter(shape, lane, warp)
    return regs


def check_mma_form(form: MmaForm, target: str) -> None:
    """Raise the first error of `mma_form_errors`."""
    errors = mma_form_errors(form, target)
    if errors:
        raise errors[0]


#: Forms where ptxas 13.5 and the PTX ISA text disagree; mmair follows the ISA. Each entry:
#: (description, predicate on (form, target), ptxas's verdict: True = accepts).
PTXAS_DIFFERENCES: tuple[tuple[str, Callable[[MmaForm, str], bool], bool], ...] = (
    (
        "scale-input-d with kind::i8: the ISA allows the operand only for kind::f16 and kind::tf32 "
        "(tcgen05.mma, 'scale-input-d'); ptxas accepts any immediate there for kind::i8, even 16 "
        "and even on sm_110a, which has no scale-input-d for the other kinds",
        lambda f, t: (not f.ws and f.kind == "i8" and f.scale_input_d is not None
                      and not mma_form_errors(replace(f, scale_input_d=None), t)),
        True,
    ),
)


def check_mma(
    d: InstrDesc,
    *,
    cta_group: int = 1,
    ws: bool = False,
    a_in_tmem: bool = False,
    scale_vec: str | None = None,
    block_scale: bool | None = None,
    target: str = "sm_100a",
    ashift: bool = False,
    collector: str | None = None,
    disable_output_lane: int | None = None,
    scale_input_d: int | None = None,
    zcmask: ZeroColumnMask | None = None,
) -> None:
    """Every rule of one `tcgen05.mma` instruction whose properties are known statically."""
    is_block_scaled = d.kind in BLOCK_SCALED_KINDS if block_scale is None else block_scale
    form = MmaForm(
        cta_group=cta_group, kind=d.kind, ws=ws, sparse=d.sparse,
        block_scale=block_scale_spelling(scale_vec, is_block_scaled), ashift=ashift,
        collector=collector, a_tmem=a_in_tmem, disable_output_lane=disable_output_lane,
        scale_input_d=scale_input_d, zero_column_mask=zcmask is not None,
    )
    check_mma_form(form, target)
    check_idesc(d, cta_group=cta_group, ws=ws, a_in_tmem=a_in_tmem, scale_vec=scale_vec,
                target=target)
    check_ashift(ashift, a_in_tmem=a_in_tmem, m=d.m,
                 collector_a=collector if collector and collector.startswith("a::") else None)
    if zcmask is not None:
        check_zcmask(zcmask, m=d.m, ws=ws, cta_group=cta_group)


__all__ = [
    "DEFAULT_TARGET",
    "KINDS",
    "PTXAS_DIFFERENCES",
    "SCALE_VECS",
    "TCGEN05_TARGETS",
    "check_ashift",
    "check_block_scale",
    "check_collector",
    "check_cta_groups",
    "check_disable_output_lane",
    "check_idesc",
    "check_kind_target",
    "check_mma",
    "check_ld_st",
    "check_mma_form",
    "check_scale_input_d",
    "check_smem_desc",
    "check_target",
    "check_ws",
    "check_zcmask",
    "collect_errors",
    "mma_form_errors",
    "mma_form_legal",
    "mma_shape",
    "scale_vector_size",
    "validate_idesc_word",
]
