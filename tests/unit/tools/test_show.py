"""mmair-show: the cells of a layout picture are the physical indices of each layout's definition,
the memory map's boxes are the offsets pto-assign-addresses gave, and both write PNGs."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from mmair.tools.show import layout_picture, main

EXAMPLES = pathlib.Path(__file__).parents[3] / "examples"
PNG = b"\x89PNG\r\n\x1a\n"


def expected_offsets(layout: str, rows: int, cols: int, fr: int, fc: int) -> np.ndarray:
    """Physical index of padded (r, c), written from the layout table of docs/ascend.md: the first
    letter orders the fractals (z row-major, n column-major), the second the elements inside one."""
    r1, c1 = -(-rows // fr), -(-cols // fc)
    out = np.zeros((r1 * fr, c1 * fc), dtype=np.int64)
    for r in range(r1 * fr):
        for c in range(c1 * fc):
            br, bc, ir, ic = r // fr, c // fc, r % fr, c % fc
            block = br * c1 + bc if layout[0] == "z" else bc * r1 + br
            inner = ir * fc + ic if layout[1] == "z" else ic * fr + ir
            out[r, c] = block * fr * fc + inner
    return out


@pytest.mark.parametrize(("layout", "element", "space", "fractal"), [
    ("nz", "f16", "l1", (16, 16)), ("zz", "f16", "l0a", (16, 16)), ("zn", "f16", "l0b", (16, 16)),
    ("nn", "f16", "l1", (16, 16)), ("nz", "s8", "l1", (16, 32)), ("nz", "f32", "l0c", (16, 16)),
    ("zn", "s8", "l0b", (32, 16)),
])
def test_layout_cells_are_the_physical_indices(layout, element, space, fractal):
    picture = layout_picture((20, 40), element, layout, space)
    assert picture.fractal == fractal
    want = expected_offsets(layout, 20, 40, *fractal)
    np.testing.assert_array_equal(picture.offsets, want)
    assert picture.valid[:20, :40].all() and not picture.valid[20:, :].any()


def test_layout_png(tmp_path, capsys):
    out = tmp_path / "l.png"
    assert main(["layout", "--shape", "20x40", "--type", "f16", "--layout", "nz", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG
    assert capsys.readouterr().out.strip() == f"wrote {out}"


def test_memory_map_boxes_and_png(tmp_path):
    from xdsl.context import Context

    from mmair.dialects import get_all_dialects
    from mmair.passes.mmair_lower import MmairLowerPass
    from mmair.tools.diagnostics import LocatingParser
    from mmair.tools.show import memory_boxes

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = (EXAMPLES / "matmul_f16.mlir").read_text()
    module = LocatingParser(ctx, text, "m.mlir").parse_module()
    MmairLowerPass().apply(ctx, module)
    boxes, capacities, name = memory_boxes(module)
    allocs = [op for op in module.walk() if op.name == "pto.alloc"]
    assert name == "matmul" and len(boxes) == len(allocs)
    assert sorted(b.offset for b in boxes) == sorted(a.offset.value.data for a in allocs)
    for b in boxes:
        assert 0 <= b.offset and b.offset + b.size <= capacities[b.space]
        assert b.start <= b.end
    out = tmp_path / "m.png"
    assert main(["memory", str(EXAMPLES / "matmul_f16.mlir"), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == PNG


@pytest.mark.parametrize(("argv", "code", "message"), [
    (["layout", "--shape", "0x4"], 2, "mmair-show: error: argument --shape: expected one or two positive sizes"),
    (["layout", "--shape", "16x16", "--type", "q7"], 1, "error: "),
    # 65536 labelled cells took over 10 s to draw (found by the command-line fuzzer).
    (["layout", "--shape", "65536"], 2, "mmair-show: error: argument --shape: at most 16384 "
                                        "elements (e.g. 128x128) are drawn with their index, got 65536"),
    (["layout", "--shape", "16", "--layout", "nz"], 1, "error: a 1-D shape needs the nd layout"),
    (["memory", "/nonexistent.mlir"], 1, "error: cannot read input"),
    (["layout", "--shape", "16x16", "-o", "/nonexistent/x.png"], 1, "error: cannot write output"),
])
def test_bad_input_is_one_error_line(capsys, argv, code, message):
    assert main(argv) == code
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_without_matplotlib_one_error_line(tmp_path, capsys, monkeypatch):
    # matplotlib is the optional `show` extra: without it, one error line naming the extra
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    out = tmp_path / "nz.png"
    code = main(["layout", "--shape", "16x16", "--type", "f16", "--layout", "nz", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip() == 'mmair-show: error: drawing needs matplotlib: pip install "mmair[show]"'
    assert not out.exists()
