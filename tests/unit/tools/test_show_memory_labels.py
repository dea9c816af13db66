"""`mmair-show memory`: tile labels never overprint each other (or the capacity line's label);
a tile too small for its label is named in a legend under its space's axes."""

from __future__ import annotations

import itertools

import pytest
from matplotlib.text import Text

from mmair.tools.show import Box, memory_figure


def _text_extents(fig) -> list:
    """The window extents of every visible, non-empty text of the figure except tick labels
    (inline labels, capacity labels, legend entries and titles, axis labels)."""
    fig.canvas.draw()  # legends place their entries when drawn
    renderer = fig.canvas.get_renderer()
    ticks = {id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
    found = fig.findobj(Text)
    texts = [t for t in {id(t): t for t in found}.values()
             if id(t) not in ticks and t.get_visible() and t.get_text().strip()]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


def _crowded() -> list[Box]:
    # one large tile, a stack of thin ones under it, and two tiles of one byte row each
    boxes = [Box("l1", "%big", 0, 40, 65536, 262144)]
    boxes += [Box("l1", f"%thin{i}", 2 * i, 2 * i + 30, 2048 * i, 2048) for i in range(12)]
    boxes += [Box("ub", "%u0", 0, 3, 0, 32), Box("ub", "%u1", 1, 40, 32, 32),
              Box("ub", "%wide", 0, 40, 1024, 131072)]
    return boxes


@pytest.mark.parametrize("boxes", [_crowded(), _crowded()[:1] + _crowded()[-1:]],
                         ids=["crowded", "two large tiles"])
def test_memory_map_labels_never_overprint(boxes: list[Box]) -> None:
    import matplotlib.pyplot as plt

    fig = memory_figure(boxes, {"l1": 524288, "ub": 262144}, "t")
    try:
        extents = _text_extents(fig)
        for (a, ea), (b, eb) in itertools.combinations(extents, 2):
            assert not ea.overlaps(eb), (a, b)
        # every tile is named once: inside its rectangle or in its axes' legend
        named = [text for text, _ in extents]
        for box in boxes:
            inline = f"{box.label}\n{box.size} B @ {box.offset}"
            listed = f"{box.label}: {box.size} B @ {box.offset}"
            assert (named.count(inline), named.count(listed)) in ((1, 0), (0, 1)), box.label
        assert "%big\n262144 B @ 65536" in named  # room enough: inline
        if len(boxes) > 3:
            assert "%thin3: 2048 B @ 6144" in named and "%u0: 32 B @ 0" in named
    finally:
        plt.close(fig)
