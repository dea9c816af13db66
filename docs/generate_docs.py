"""Generate the tables of docs/ascend.md and docs/tcgen05-rules.md from `mmair.isa`.

    python docs/generate_docs.py           # rewrite the generated blocks in place
    python docs/generate_docs.py --check   # exit 1 (and name the block) if a page disagrees with isa

A generated block sits between `<!-- BEGIN generated: NAME -->` and `<!-- END generated: NAME -->`;
everything else on the pages is prose written by hand. `tests/unit/project/test_docs_generated.py` runs
the check, so a table cannot drift from the facts the verifiers, passes and executor use.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

DOCS = Path(__file__).resolve().parent
PAGES = ("ascend.md", "tcgen05-rules.md")
_BLOCK = re.compile(r"(<!-- BEGIN generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- END generated: (?P=name) -->)",
                    re.S)


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _targets():
    from mmair.isa.ascend.targets import TARGET_NAMES, get_target

    return [get_target(name) for name in TARGET_NAMES]


# ---- Ascend --------------------------------------------------------------------------------------


def layouts() -> str:
    from mmair.isa.ascend import layouts as L

    rows = []
    for name in L.FRACTAL_LAYOUTS:
        fr, fc = L.fractal_shape(name, "f16", "l1")
        blocks_col, inner_col = L._ORDER[name]  # noqa: SLF001 - the layout definition itself
        rows.append([f"`{name}`", "16 x c0" if fr == 16 else "c0 x 16",
                     "column-major (N)" if blocks_col else "row-major (Z)",
                     "column-major (n)" if inner_col else "row-major (z)",
                     str(L.physical_shape(name, (20, 40), "f16", "l1"))])
    for name in L.PLAIN_LAYOUTS:
        rows.append([f"`{name}`", "-", "-", "row-major" if name == "nd" else "column-major",
                     str(L.physical_shape(name, (20, 40), "f16", "l1"))])
    return _table(["layout", "fractal (rows x cols)", "order of the fractals", "order inside a fractal",
                   "physical shape of a 20x40 f16 tile in L1"], rows)


def c0() -> str:
    from mmair.isa.ascend.targets import ELEMENT_TYPES, c0_elements, element_bits

    rows = []
    for elem in ELEMENT_TYPES:
        try:
            c0_l1 = c0_elements(elem, "l1")
        except ValueError:
            continue
        rows.append([f"`{elem}`", str(element_bits(elem)), str(c0_l1), f"16 x {c0_l1}",
                     str(c0_elements(elem, "l0c"))])
    return _table(["element", "bits", "c0 (L1, L0A, L0B, UB)", "nz/zz fractal", "c0 in L0C"], rows)


def capacities() -> str:
    from mmair.isa.ascend.targets import SPACES

    targets = _targets()
    spaces = [s for s in SPACES if s != "gm"]
    rows = []
    for t in targets:
        rows.append([f"`{t.name}`", t.product] + [
            "-" if t.capacity[s] is None else f"{t.capacity[s] // 1024} KB" for s in spaces])
    return _table(["target", "product"] + spaces, rows)


def mmad_types() -> str:
    targets = _targets()
    combos = sorted({c for t in targets for c in t.mmad_types})
    rows = []
    for lhs, rhs, dst in combos:
        cells = []
        for t in targets:
            if (lhs, rhs, dst) not in t.mmad_types:
                cells.append("")
            else:
                cells.append("yes, bias" if (lhs, rhs, dst) in t.mmad_bias_types else "yes")
        rows.append([f"`{lhs}`", f"`{rhs}`", f"`{dst}`"] + cells)
    return _table(["A (L0A)", "B (L0B)", "C (L0C)"] + [f"`{t.name}`" for t in targets], rows)


def fixpipe_types() -> str:
    rows = []
    for t in _targets():
        for dst_space in sorted(t.fixpipe_types):
            pairs = ", ".join(f"{s}->{d}" for s, d in sorted(t.fixpipe_types[dst_space]))
            rows.append([f"`{t.name}`", dst_space, pairs])
    return _table(["target", "destination", "L0C element -> destination element"], rows)


def quant_modes() -> str:
    from mmair.isa.ascend.targets import QUANT_MODES

    targets = _targets()
    rows = []
    for mode in QUANT_MODES.values():
        pairs = ", ".join(f"{s}->{d}" for s, d in sorted(mode.pairs))
        have = ", ".join(t.name for t in targets if mode.name in t.quant_modes) or "none"
        rows.append([f"`{mode.name}`", pairs, mode.operand, have])
    return _table(["quant mode", "L0C -> output", "parameter", "targets"], rows)


def quant_word() -> str:
    from mmair.isa.ascend import quant as q

    rows = [
        ["0-31", "scale M1", "f32; the hardware keeps 10 mantissa bits "
         f"(the low {q.SCALE_DROPPED_MANTISSA_BITS} are ignored)"],
        [f"{q.SHIFT_LSB}-{q.SHIFT_LSB + q.SHIFT_WIDTH - 1}", "shift N",
         f"field + 1, so N in [{q.SHIFT_RANGE[0]}, {q.SHIFT_RANGE[1]}]"],
        [str(q.MCB_BIT), "MCB", "shift the s32 accumulator right by N before scaling"],
        [f"{q.OFFSET_LSB}-{q.OFFSET_LSB + q.OFFSET_WIDTH - 1}", "offset",
         f"{q.OFFSET_WIDTH}-bit two's complement in [{q.OFFSET_RANGE[0]}, {q.OFFSET_RANGE[1]}], "
         "added after scaling"],
        [str(q.SIGN_BIT), "sign", "1 = s8 output, 0 = u8 output"],
        [f"{q.SIGN_BIT + 1}-63", "reserved", "0"],
    ]
    return _table(["bits", "field", "meaning"], rows)


def gather_patterns() -> str:
    from mmair.isa.ascend.gather import BUILTIN_PATTERN_MOTIFS, builtin_pattern_mask

    targets = _targets()
    rows = []
    for pattern, motif in BUILTIN_PATTERN_MOTIFS.items():
        kept = [str(i) for i, keep in enumerate(builtin_pattern_mask(pattern, 8)) if keep]
        have = ", ".join(t.name for t in targets if pattern in t.gather_mask_patterns
                         and t.gather_counter_method) or "none"
        rows.append([str(pattern), f"0b{motif:04b}", ", ".join(kept), have])
    return _table(["pattern", "4-bit motif (bit i keeps element e with e % 4 = i)",
                   "kept among elements 0-7", "targets"], rows)


def gather_targets() -> str:
    rows = []
    for t in _targets():
        if not t.gather_counter_method:
            rows.append([f"`{t.name}`", "no GatherMask", "-", "-"])
            continue
        types = ", ".join(f"{e} ({w} pattern words)" for e, w in sorted(t.gather_mask_types.items()))
        method = {1: "method 1: `mask` elements per repeat, `repeat_times` repeats",
                  2: "method 2: `mask` elements in total, `repeat_times` ignored"}[t.gather_counter_method]
        rows.append([f"`{t.name}`", types, ", ".join(map(str, t.gather_mask_patterns)), method])
    return _table(["target", "src0/dst element types", "built-in patterns", "counter mode"], rows)


# ---- tcgen05 --------------------------------------------------------------------------------------


def tcgen05_rules() -> str:
    from mmair.isa.tcgen05.rule_table import RULES

    out = []
    groups: dict[str, list] = {}
    for r in RULES:
        groups.setdefault(r.group, []).append(r)
    for group, rules in groups.items():
        out.append(f"### {group}\n")
        out.append(_table(["rule", "what it checks", "source", "checked by"], [
            [r.id, r.checks, r.source,
             r.enforced_by if r.enforced_by == "not modelled" else f"`{r.enforced_by}`"]
            for r in rules]))
    return "\n".join(out)


BLOCKS: dict[str, Callable[[], str]] = {
    "layouts": layouts, "c0": c0, "capacities": capacities, "mmad-types": mmad_types,
    "fixpipe-types": fixpipe_types, "quant-modes": quant_modes, "quant-word": quant_word,
    "gather-patterns": gather_patterns, "gather-targets": gather_targets,
    "tcgen05-rules": tcgen05_rules,
}


def regenerate(text: str) -> tuple[str, list[str]]:
    """(text with every generated block rewritten, names of the blocks that changed)."""
    changed: list[str] = []

    def replace(m: re.Match) -> str:
        name = m.group("name")
        if name not in BLOCKS:
            raise KeyError(f"unknown generated block {name!r}")
        body = BLOCKS[name]()
        if body != m.group("body"):
            changed.append(name)
        return m.group(1) + body + m.group(4)

    return _BLOCK.sub(replace, text), changed


def main(argv: list[str] | None = None) -> int:
    check = "--check" in (argv if argv is not None else sys.argv[1:])
    stale = []
    for page in PAGES:
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new, changed = regenerate(text)
        stale += [f"{page}: {name}" for name in changed]
        if changed and not check:
            path.write_text(new, encoding="utf-8")
    if check and stale:
        print("docs disagree with isa (run python docs/generate_docs.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
