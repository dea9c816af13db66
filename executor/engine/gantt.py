"""The timeline picture (`mmair-run --timeline F.png`): a Gantt chart of the timeline's slices.

One row per pipe in data-flow order; with several blocks (`--blocks N`) one group of rows per
block, labelled `block N` and separated by a line. One bar per op, coloured by its kind: every
kind in the legend has its own colour (the well-known kinds a fixed one, any other the next
unused colour of a palette), so the legend names each bar.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT

PREFERRED_COLOURS: dict[str, str] = {
    "mte_gm_l1": "tab:blue", "mte_gm_ub": "navy", "mte_ub_gm": "tab:cyan",
    "mte_l1_l0a": "tab:green", "mte_l1_l0b": "tab:olive", "mte_l1_bt": "yellowgreen",
    "mte_l1_fb": "darkkhaki",
    "mad": "tab:red", "mad_acc": "salmon", "mad_bias": "darkred", "fixpipe": "tab:purple",
    "gather_mask": "tab:orange", SET: "black", WAIT: "dimgray", BARRIER: "tab:brown",
    BARRIER_ALL: "tan",
}
"""The colours of the kinds every cube kernel has (distinct: a test checks it)."""


def kind_colours(kinds: Iterable[str]) -> dict[str, tuple[float, float, float, float]]:
    """One RGBA colour per kind, no two alike: the preferred colour (`PREFERRED_COLOURS`), else
    the first unused colour of tab20, tab20b and tab20c."""
    import matplotlib
    from matplotlib.colors import to_rgba

    palette = [to_rgba(c) for name in ("tab20", "tab20b", "tab20c")
               for c in matplotlib.colormaps[name].colors]
    out: dict[str, tuple[float, float, float, float]] = {}
    used: set[tuple[float, float, float, float]] = set()
    # the preferred colours first, so that no other kind takes one of them
    for kind in sorted(set(kinds), key=lambda k: (k not in PREFERRED_COLOURS, k)):
        colour = to_rgba(PREFERRED_COLOURS[kind]) if kind in PREFERRED_COLOURS else None
        if colour is None or colour in used:
            colour = next((c for c in palette if c not in used), None)
            if colour is None:  # more kinds than the palettes hold: vary the lightness
                base = palette[len(out) % len(palette)]
                colour = tuple(0.5 * x for x in base[:3]) + (1.0,)  # type: ignore[assignment]
        used.add(colour)  # type: ignore[arg-type]
        out[kind] = colour  # type: ignore[assignment]
    return out


def gantt_figure(slices: Sequence[Any], title: str = "") -> Any:
    """The matplotlib Figure of `slices` (timeline.Slice: pipe, core, start, end, kind)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    from mmair.executor.engine.timeline import PIPE_ORDER

    cores = sorted({s.core for s in slices})
    rows = [(core, str(p)) for core in cores for p in PIPE_ORDER
            if any(s.core == core and s.pipe == str(p) for s in slices)]
    index = {row: i for i, row in enumerate(rows)}
    grouped = len(cores) > 1
    fig, ax = plt.subplots(figsize=(12, 1.2 + 0.45 * max(len(rows), 1)), dpi=110)
    colours = kind_colours(s.kind for s in slices)
    bars: dict[tuple[int, str], list[tuple[int, int]]] = defaultdict(list)
    for s in slices:
        bars[(index[(s.core, s.pipe)], s.kind)].append((s.start, max(s.cycles, 1)))
    for (row, kind), spans in bars.items():
        ax.broken_barh(spans, (row - 0.38, 0.76), facecolors=colours[kind], edgecolor="white",
                       linewidth=0.3)
    ax.set_yticks(range(len(rows)), [f"pipe {pipe}" for _, pipe in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first row on top
    if grouped:
        for core in cores:
            mine = [index[row] for row in rows if row[0] == core]
            # the group's label left of its pipe names, centred on its rows
            ax.annotate(f"block {core}", xy=(0, (min(mine) + max(mine)) / 2),
                        xycoords=("axes fraction", "data"), xytext=(-62, 0),
                        textcoords="offset points", ha="right", va="center", fontsize=9,
                        fontweight="bold", gid=f"block {core}")
            if min(mine) > 0:
                ax.axhline(min(mine) - 0.5, color="black", linewidth=0.8)
    ax.set_xlabel("cycles")
    ax.set_xlim(0, max((s.end for s in slices), default=1))
    ax.legend(handles=[Patch(facecolor=colours[k], label=k) for k in sorted(colours)],
              loc="center left", bbox_to_anchor=(1.005, 0.5), fontsize=8, frameon=False)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def write_gantt_png(slices: Sequence[Any], path: str, title: str = "") -> None:
    """`gantt_figure` saved as a PNG."""
    import matplotlib.pyplot as plt

    fig = gantt_figure(slices, title)
    try:
        fig.savefig(path)
    finally:
        plt.close(fig)
