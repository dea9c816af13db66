"""Instruction forms of `tcgen05.mma` and their PTX spelling (PTX ISA §9.7.16.10.9, "tcgen05.mma").

A *form* is everything about one `tcgen05.mma` that the assembler sees: the modifiers
(`.ws`, `.sp`, `.cta_group::N`, `.kind::K`, `.block_scale` with its vector size, `.ashift`,
`.collector::...`) and which operands are present (A in TMEM or SMEM, sparse metadata, scale
factors, disable-output-lane, scale-input-d, zero-column mask). Descriptor *values* are run-time
registers and are not part of the form (see `rules.check_idesc` for those).

The PTX ISA writes the instruction as

    tcgen05.mma{.sp}.cta_group.kind{.block_scale{.scale_vectorsize}}{.ashift}{.collector_usage}
        [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],} idesc, {[scale-A-tmem], [scale-B-tmem],}
        {{disable-output-lane},} enable-input-d {, scale-input-d};
    tcgen05.mma.ws{.sp}.cta_group::1.kind{.collector_usage}
        [d-tmem], a-desc|[a-tmem], b-desc, {[sp-meta-tmem],} idesc, enable-input-d {, zero-column-mask-desc};

`mma_ptx` spells a form that way (with placeholder registers); `all_mma_forms` enumerates the form
space that `mmair.tools.ptxas_forms` assembles with ptxas and that the test suite compares with
`rules.check_mma_form`. Pure Python, no xDSL.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

from mmair.isa.tcgen05.idesc import KINDS

#: Block-scale spellings of the form space: None = no `.block_scale`; "" = `.block_scale` alone.
BLOCK_SCALE_SPELLINGS: tuple[str | None, ...] = (
    None, "", "scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32",
)
#: Collector usages of the form space (every `a::` usage; each `b` buffer once, each usage once).
FORM_COLLECTORS: tuple[str | None, ...] = (
    None, "a::fill", "a::use", "a::lastuse", "a::discard",
    "b0::fill", "b1::use", "b2::lastuse", "b3::discard",
)


@dataclass(frozen=True)
class MmaForm:
    """One `tcgen05.mma` instruction form (modifiers and operand presence)."""

    cta_group: int = 1
    kind: str = "f16"
    ws: bool = False
    sparse: bool = False
    #: None: no `.block_scale`; "": `.block_scale` without a size; else `scale_vec::1X`,
    #: `scale_vec::2X`, `scale_vec::4X`, `block16` or `block32`.
    block_scale: str | None = None
    ashift: bool = False
    #: `a::fill`, `b2::lastuse`, ... or None.
    collector: str | None = None
    a_tmem: bool = False
    #: Number of b32 words of the disable-output-lane vector (None: absent).
    disable_output_lane: int | None = None
    scale_input_d: int | None = None
    zero_column_mask: bool = False

    @property
    def scale_vec(self) -> str | None:
        """The vector-size spelling as the dialect stores it (`1X`, `block16`, ...), or None."""
        if not self.block_scale:
            return None
        return self.block_scale.removeprefix("scale_vec::")

    def key(self) -> str:
        """The PTX spelling: the key of the cached ptxas verdicts."""
        return mma_ptx(self)


def block_scale_spelling(scale_vec: str | None, block_scale: bool) -> str | None:
    """`MmaForm.block_scale` from a dialect-style size (`1X`, `block16`, None) and the flag."""
    if not block_scale:
        return None
    if scale_vec is None:
        return ""
    upper = scale_vec.upper()
    return f"scale_vec::{upper}" if upper in ("1X", "2X", "4X") else scale_vec


def mma_opcode(form: MmaForm) -> str:
    """`tcgen05.mma{.ws}{.sp}.cta_group::N.kind::K{...}` for `form`."""
    parts = ["tcgen05.mma"]
    if form.ws:
        parts.append("ws")
    if form.sparse:
        parts.append("sp")
    parts += [f"cta_group::{form.cta_group}", f"kind::{form.kind}"]
    if form.block_scale is not None:
        parts.append("block_scale")
        if form.block_scale:
            parts.append(form.block_scale)
    if form.ashift:
        parts.append("ashift")
    if form.collector is not None:
        parts.append(f"collector::{form.collector}")
    return ".".join(parts)


def mma_operands(
    form: MmaForm,
    *,
    d: str = "[%r1]",
    a: str | None = None,
    b: str = "%rd2",
    idesc: str = "%r2",
    metadata: str = "[%r10]",
    scales: tuple[str, str] = ("[%r4]", "[%r5]"),
    lanes: tuple[str, ...] | None = None,
    enable_input_d: str = "%p1",
    zcm: str = "%rd3",
) -> list[str]:
    """The operand list of `form` in PTX order (placeholder registers unless given)."""
    ops = [d, a if a is not None else ("[%r3]" if form.a_tmem else "%rd1"), b]
    if form.sparse:
        ops.append(metadata)
    ops.append(idesc)
    if form.block_scale is not None:
        ops += list(scales)
    if form.disable_output_lane is not None:
        words = lanes if lanes is not None else tuple(
            f"%r{6 + i}" for i in range(form.disable_output_lane)
        )
        ops.append("{" + ", ".join(words) + "}")
    ops.append(enable_input_d)
    if form.scale_input_d is not None:
        ops.append(str(form.scale_input_d))
    if form.zero_column_mask:
        ops.append(zcm)
    return ops


def mma_ptx(form: MmaForm, **operands: object) -> str:
    """One PTX instruction (without the trailing `;`) for `form`."""
    return f"{mma_opcode(form)} {', '.join(mma_operands(form, **operands))}"  # type: ignore[arg-type]


def all_mma_forms() -> Iterator[MmaForm]:
    """The form space compared with ptxas.

    The main product is cta_group x kind x .ws x .sp x block-scale spelling x collector x .ashift x
    disable-output-lane (absent, 4 or 8 words) x A in TMEM/SMEM. The trailing optional operands
    (scale-input-d 0, 15, 16; zero-column mask) are crossed with everything except the collector
    and .ashift, which do not interact with them. `.ws` with scale-input-d is left out: its PTX
    text is the `.ws` form with an immediate zero-column mask.
    """
    main = itertools.product(
        (1, 2), KINDS, (False, True), (False, True), BLOCK_SCALE_SPELLINGS, FORM_COLLECTORS,
        (False, True), (None, 4, 8), (False, True),
    )
    for cta, kind, ws, sp, bs, coll, ashift, dol, a_tmem in main:
        yield MmaForm(cta, kind, ws, sp, bs, ashift, coll, a_tmem, dol)
    tails: tuple[tuple[int | None, bool], ...] = ((0, False), (15, False), (16, False), (None, True))
    rest = itertools.product(
        (1, 2), KINDS, (False, True), (False, True), BLOCK_SCALE_SPELLINGS, (None, 4, 8),
        (False, True), tails,
    )
    for cta, kind, ws, sp, bs, dol, a_tmem, (sid, zcm) in rest:
        if ws and sid is not None:
            continue  # `.ws ..., enable-input-d, 1` is a zero-column mask immediate in PTX
        yield MmaForm(cta, kind, ws, sp, bs, False, None, a_tmem, dol, sid, zcm)


__all__ = [
    "BLOCK_SCALE_SPELLINGS",
    "FORM_COLLECTORS",
    "MmaForm",
    "all_mma_forms",
    "block_scale_spelling",
    "mma_opcode",
    "mma_operands",
    "mma_ptx",
]
