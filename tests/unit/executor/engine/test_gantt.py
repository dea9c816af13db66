"""The timeline picture (`mmair-run --timeline F.png`): every op kind its own legend colour, one
labelled row group per block."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_rgba

from mmair.executor.engine.events import BARRIER, BARRIER_ALL, SET, WAIT
from mmair.executor.engine.gantt import PREFERRED_COLOURS, gantt_figure, kind_colours
from mmair.executor.engine.timeline import COSTED_KINDS, Slice


def _slice(core: int, pipe: str, start: int, kind: str) -> Slice:
    return Slice(pipe, core, start, start + 10, kind, kind, "k.mlir:1:1")


def test_every_op_kind_has_its_own_colour() -> None:
    kinds = set(COSTED_KINDS) | {SET, WAIT, BARRIER, BARRIER_ALL, "sync_all", "unknown_kind"}
    colours = kind_colours(kinds)
    assert set(colours) == kinds
    assert len(set(colours.values())) == len(kinds)
    # the well-known kinds keep their colour whatever else is drawn
    assert colours["mad"] == to_rgba(PREFERRED_COLOURS["mad"])
    assert len({to_rgba(c) for c in PREFERRED_COLOURS.values()}) == len(PREFERRED_COLOURS)


def test_the_legend_shows_each_kind_once_in_its_bars_colour() -> None:
    kinds = ["mte_gm_l1", "mte_gm_ub", "mad", "mad_acc", "mmad", "fixpipe_copy", SET, WAIT]
    fig = gantt_figure([_slice(0, "mte2", 10 * i, k) for i, k in enumerate(kinds)])
    try:
        ax = fig.axes[0]
        legend = ax.get_legend()
        labels = [t.get_text() for t in legend.get_texts()]
        assert sorted(labels) == sorted(kinds)
        faces = [to_rgba(h.get_facecolor()) for h in legend.legend_handles]
        assert len(set(faces)) == len(kinds)
        bar_colour = {tuple(c.get_facecolor()[0]): None for c in ax.collections}
        assert set(faces) == set(bar_colour)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("blocks", [2, 3])
def test_a_multi_block_timeline_has_one_labelled_row_group_per_block(blocks: int) -> None:
    slices = [_slice(core, pipe, 20 * core, kind) for core in range(blocks)
              for pipe, kind in (("mte2", "mte_gm_ub"), ("mte3", "mte_ub_gm"))]
    slices.append(_slice(1, "s", 0, "sync_all"))  # block 1 has a third row
    fig = gantt_figure(slices)
    try:
        ax = fig.axes[0]
        groups = {t.get_gid(): t for t in ax.texts if (t.get_gid() or "").startswith("block ")}
        assert sorted(groups) == [f"block {b}" for b in range(blocks)]
        assert all(groups[g].get_text() == g for g in groups)
        rows = [t.get_text() for t in ax.get_yticklabels()]
        per_block = [["pipe mte2", "pipe mte3"] if b != 1 else ["pipe s", "pipe mte2", "pipe mte3"]
                     for b in range(blocks)]
        assert rows == [r for group in per_block for r in group]
        # each label is centred on its own group's rows, groups in block order from the top
        first = 0
        for b, group in enumerate(per_block):
            assert groups[f"block {b}"].xy[1] == first + (len(group) - 1) / 2
            first += len(group)
        # one separator line between two groups
        assert len([ln for ln in ax.get_lines() if ln.get_ydata()[0] % 1 == 0.5]) == blocks - 1
    finally:
        plt.close(fig)


def test_a_one_block_timeline_has_no_group_labels() -> None:
    fig = gantt_figure([_slice(0, "mte2", 0, "mte_gm_ub"), _slice(0, "mte3", 10, "mte_ub_gm")])
    try:
        assert not [t for t in fig.axes[0].texts if (t.get_gid() or "").startswith("block ")]
        assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["pipe mte2", "pipe mte3"]
    finally:
        plt.close(fig)
