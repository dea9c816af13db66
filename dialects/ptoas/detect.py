"""Whether a text is PTOAS's, and the first PTOAS op in it that mmair refuses.

A file is PTOAS text when it uses PTOAS's types (`!pto.ptr`, `!pto.tensor_view`,
`!pto.partition_tensor_view`, `!pto.tile_buf`), its module attributes (`pto.target_arch`,
`pto.kernel_kind`, `pto.device-spec`), its memref address spaces (`#pto.address_space<gm>`, the
VPTO operand form of PTOAS's lit tests), its flag syntax (`[<PIPE_...>`), an element type only PTOAS has (`!pto.f4E2M1x2`, ...) or an
op only PTOAS has (VPTO's `pto.mad` and `pto.mte_l1_l0a` share mmair's names, but their
`!pto.ptr` operands mark them).
The file name does not matter. mmair's own spelling (`!pto.tile`, `pto.set_flag mte2 -> mte1, 0`)
shares none of these.
"""

from __future__ import annotations

import re

from mmair.dialects.ptoas.names import REFUSED, SUPPORTED

_MARKERS = re.compile(
    r"!pto\.(?:ptr|tensor_view|partition_tensor_view|tile_buf|f8E8M0|hif8x2|f4E1M2x2|f4E2M1x2"
    r"|bf16x2)\b"
    r"|\bpto\.(?:target_arch|kernel_kind|device-spec)\b"
    r"|#pto\.address_space\b"
    r"|\[\s*<PIPE_"
    r"|\bpto\.(?:alloc_tile|make_tensor_view|partition_view|tload|tstore|tmov|textract|tmatmul"
    r"|section\.cube|section\.vector|get_block_idx|get_block_num|set_flag_dyn|wait_flag_dyn"
    r"|syncall|tile_buf_addr|castptr|addptr|mte_gm_l1_frac|load_cbuf_to_ca|load_cbuf_to_cb"
    r"|mte_l0c_gm|mte_l0c_l1)\b"
)

# An op name where an operation starts: at a line start or after `=` (results), not in a type
# (`!pto.`), an attribute (`#pto.`) or an attribute dictionary key (`{pto.kernel}`).
_OP_NAME = re.compile(r"(?m)(?:^[ \t]*|=[ \t]*)(pto\.[A-Za-z_][\w.]*)")

KIND_OF: dict[str, str] = {
    f"pto.{name}": kind for kind, names in REFUSED.items() for name in names
    if name not in SUPPORTED
}


def is_ptoas(text: str) -> bool:
    return _MARKERS.search(_strip_comments(text)) is not None


def _strip_comments(text: str) -> str:
    # Keep positions (line:col) by blanking comments rather than deleting them.
    return re.sub(r"//[^\n]*", lambda m: " " * len(m.group()), text)


def refused_op(text: str) -> tuple[str, str, int, int] | None:
    """(op name, kind, line, col) of the first PTOAS op mmair does not model, or None."""
    clean = _strip_comments(text)
    for match in _OP_NAME.finditer(clean):
        name = match.group(1)
        kind = KIND_OF.get(name)
        if kind is None:
            continue
        if clean[match.end():match.end() + 1] == " " and clean[match.end():].lstrip().startswith("="):
            continue  # `pto.x = ...` inside an attribute dictionary
        start = match.start(1)
        line = clean.count("\n", 0, start) + 1
        col = start - (clean.rfind("\n", 0, start) + 1) + 1
        return name, kind, line, col
    return None


def refusal_message(name: str, kind: str) -> str:
    article = "an" if kind[0].lower() in "aeiou" else "a"
    return f"'{name}' is {article} PTOAS {kind} op that mmair does not model (docs/ptoas.md)"
