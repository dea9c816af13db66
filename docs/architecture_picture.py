"""Draw docs/images/architecture.png, the picture of docs/architecture.md (matplotlib):

    python docs/make_pictures.py      # with the other pictures
    python docs/architecture_picture.py docs/images/architecture.png

(a) the layers and the executor's packages, an arrow from a package to one it may import;
(b) the path of one `mmair-run`, every stage coloured by the layer its code lives in.
Every file and folder the picture names is in `NAMED` (tests/unit/project/test_architecture_doc.py
checks that they exist, so the picture cannot name a module that was moved away).
"""

from __future__ import annotations

import sys
from pathlib import Path

COLORS = {"isa": "#d9d9d9", "dialects": "#c7e9c0", "passes": "#fdd0a2", "executor": "#c6dbef",
          "engine": "#9ecae1", "tools": "#dadaeb"}

# (x, y, width, height, colour, title, lines): panel (a), in figure units (150 x 90).
LAYER_BOXES = [
    (3, 74, 66, 8, "tools", "tools/", ["mmair-opt, mmair-run, mmair-desc, mmair-show,",
                                       "mmair-translate, mmair-tune"]),
    (3, 44, 21, 22, "passes", "passes/", ["pto-tile-matmul", "pto-assign-addresses",
                                          "pto-insert-sync", "pto-expand-params",
                                          "tcgen05-materialize-", "  descriptors",
                                          "tcgen05-raise-descriptors", "mmair-lower"]),
    (3, 12, 66, 8, "dialects", "dialects/", ["pto/, tcgen05/ (one module per op group),",
                                             "types, locations, value_names"]),
    (3, 1, 66, 8, "isa", "isa/", ["ascend/, tcgen05/, dtypes: every hardware fact,",
                                  "pure Python (no xDSL)"]),
]
EXECUTOR = (28, 23, 41, 47)
EXECUTOR_BOXES = [
    (30, 58, 18, 6, "executor", "runner.py", ["run_module"]),
    (49, 58, 18, 6, "executor", "reference.py", ["--check-numpy"]),
    (30, 46, 14, 6, "executor", "ascend/", ["pto ops"]),
    (53, 46, 14, 6, "executor", "tcgen05/", ["SMEM, TMEM"]),
    (30, 36, 37, 5, "executor", "upstream/", ["arith, scf, memref, func"]),
    (30, 25, 37, 7, "engine", "engine/", ["interpreter, seam, scheduler, hb,",
                                          "memory, timeline, multicore"]),
]
# (from, to, dashed): arrows between box centres' edges, keyed by title.
LAYER_ARROWS = [
    ((8, 74), (8, 66), False), ((48, 74), (48, 70), False),
    ((8, 44), (8, 20), False), ((48, 23), (48, 20), False), ((36, 12), (36, 9), False),
    ((24, 52), (30, 29), True),
    ((39, 58), (37, 52), False), ((58, 58), (60, 52), False),
    ((44, 58), (56, 52), False), ((53, 58), (41, 52), False),
    ((37, 46), (44, 41), False), ((60, 46), (53, 41), False), ((48.5, 36), (48.5, 32), False),
]

# (stage, layer colour, description lines): panel (b), top to bottom.
RUN_STAGES = [
    ("kernel.mlir", "tools", ["mmair-run FILE: tools/run.py"]),
    ("parse", "tools", ["tools/diagnostics: LocatingParser; the dialects",
                        "load lazily (dialects/__init__.py)"]),
    ("verify", "dialects", ["op verifiers of dialects/pto and dialects/tcgen05,",
                            "applying the facts of isa/"]),
    ("passes", "passes", ["mmair-lower: tile-matmul, assign-addresses,",
                          "insert-sync, materialize-descriptors (passes/)"]),
    ("interpreter", "engine", ["engine/interpreter.py: MmairInterpreter, one dispatch",
                               "loop over the functions of ascend/, tcgen05/, upstream/"]),
    ("issue seam", "engine", ["engine/seam.py: IssueSeam (tcgen05/async_checker.py:",
                              "Tcgen05Seam); footprints: dialects/pto/footprint.py"]),
    ("engine", "engine", ["engine/scheduler.py: in-order queue per pipe;",
                          "engine/hb.py: happens-before (vector clocks)"]),
    ("memories", "engine", ["engine/memory.py: GM, L1, L0A/B/C, UB, BT, FB;",
                            "tcgen05/memories.py: SMEM, TMEM"]),
]
RUN_OUTPUTS = [
    ("checker", "engine", ["engine/hb.py: race,", "deadlock, flag misuse"]),
    ("timeline", "engine", ["engine/timeline.py:", "cycles, isa costs"]),
    ("reference", "executor", ["reference.py: numpy", "of the IR, tolerance"]),
]

NAMED = [
    "tools/run.py", "tools/diagnostics.py", "dialects/__init__.py", "dialects/pto",
    "dialects/types.py", "dialects/locations.py", "dialects/value_names.py",
    "dialects/pto/effects.py", "dialects/pto/footprint.py", "isa/ascend", "isa/tcgen05", "isa/dtypes.py", "isa/ascend/costs.py",
    "passes/pto_tile_matmul.py", "passes/pto_assign_addresses.py", "passes/pto_insert_sync.py",
    "passes/pto_expand_params.py", "passes/tcgen05_materialize_descriptors.py",
    "passes/tcgen05_raise_descriptors.py", "passes/mmair_lower.py",
    "executor/runner.py", "executor/reference.py", "executor/ascend", "executor/tcgen05",
    "executor/upstream", "executor/engine", "executor/engine/interpreter.py",
    "executor/engine/seam.py", "executor/engine/scheduler.py", "executor/engine/hb.py",
    "executor/engine/memory.py", "executor/engine/timeline.py", "executor/engine/multicore.py",
    "executor/tcgen05/async_checker.py", "executor/tcgen05/memories.py",
]
"""Every file and folder the picture names (`dialects/tcgen05` is a module or a package)."""


def _box(ax, x, y, w, h, color, title, lines, *, size=9.5, title_size=11, left=False):
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.8",
                                facecolor=COLORS[color], edgecolor="#444444", linewidth=1))
    if left:  # title on the left, lines beside it (panel b)
        ax.text(x + 1.2, y + h / 2, title, ha="left", va="center", fontsize=title_size,
                fontweight="bold")
        ax.text(x + 16, y + h / 2, "\n".join(lines), ha="left", va="center", fontsize=size,
                linespacing=1.35)
        return
    ax.text(x + w / 2, y + h - 1.0, title, ha="center", va="top", fontsize=title_size,
            fontweight="bold")
    ax.text(x + w / 2, y + h - 3.2, "\n".join(lines), ha="center", va="top", fontsize=size,
            linespacing=1.3)


def _arrow(ax, start, end, dashed=False):
    ax.annotate("", xy=end, xytext=start,
                arrowprops={"arrowstyle": "-|>", "color": "#333333", "lw": 1.2,
                            "linestyle": (0, (4, 3)) if dashed else "-",
                            "shrinkA": 0, "shrinkB": 0, "mutation_scale": 12})


def draw(path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig = plt.figure(figsize=(15, 9.6))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, 150)
    ax.set_ylim(-2, 94)
    ax.axis("off")

    # (a) layers
    ax.text(36, 90, "(a) layers: an arrow A \u2192 B means A may import B", ha="center",
            va="center", fontsize=13, fontweight="bold")
    for x, y, w, h, color, title, lines in LAYER_BOXES:
        _box(ax, x, y, w, h, color, title, lines, size=9 if title == "passes/" else 9.5)
    x, y, w, h = EXECUTOR
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=0.8",
                                facecolor="#eef4fb", edgecolor="#444444", linewidth=1))
    ax.text(x + w / 2, y + h - 1.2, "executor/", ha="center", va="top", fontsize=11,
            fontweight="bold")
    ax.text(x + w / 2, y + h - 3.6, "composition roots", ha="center", va="top", fontsize=9,
            style="italic")
    for bx, by, bw, bh, color, title, lines in EXECUTOR_BOXES:
        _box(ax, bx, by, bw, bh, color, title, lines, size=9, title_size=10)
    ax.text(48.5, 49, "not each\nother", ha="center", va="center", fontsize=8.5,
            style="italic", color="#555555")
    for start, end, dashed in LAYER_ARROWS:
        _arrow(ax, start, end, dashed)
    ax.text(9.5, 42, "dashed: pto-insert-sync\nruns the engine's\nhappens-before\nanalysis",
            ha="left", va="top", fontsize=8.5, style="italic", color="#555555")

    # (b) one mmair-run
    ax.text(113, 90, "(b) one mmair-run, coloured by layer", ha="center", va="center",
            fontsize=13, fontweight="bold")
    bx, bw, bh, step = 78, 70, 6.8, 9.4
    top = 80.5
    for i, (stage, color, lines) in enumerate(RUN_STAGES):
        y = top - i * step
        _box(ax, bx, y, bw, bh, color, stage, lines, left=True)
        if i + 1 < len(RUN_STAGES):
            _arrow(ax, (bx + 7, y), (bx + 7, y - (step - bh)))
    last = top - (len(RUN_STAGES) - 1) * step
    oh = bh + 2
    out_top = last - (step - bh)
    ow = (bw - 2 * 2) / 3
    for j, (name, color, lines) in enumerate(RUN_OUTPUTS):
        ox = bx + j * (ow + 2)
        _box(ax, ox, out_top - oh, ow, oh, color, name, lines, size=9, title_size=10.5)
        _arrow(ax, (bx + 7 + 4 * j, last), (ox + ow / 2, out_top))  # the run feeds all three

    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


if __name__ == "__main__":
    draw(Path(sys.argv[1]) if len(sys.argv) > 1 else
         Path(__file__).resolve().parent / "images" / "architecture.png")
