"""`mmair-show`: pictures (PNG, matplotlib) of Ascend fractal layouts and of a kernel's memory map.

    mmair-show layout --shape 32x48 --type f16 --layout nz [--space l1] [--target a2] [-o layout.png]
    mmair-show memory FILE [-p PIPELINE] [--entry NAME] [--target T] [-o memory.png]

`layout` draws one tile: a cell per padded-logical element (row r, column c), labelled with the
element's index in the physical buffer (`mmair.isa.ascend.layouts.element_offset`), coloured by
that index so the storage order is visible, thick lines at fractal borders, padding hatched. Any
layout the verifier accepts for a tile in that space (`dialects/pto/types.legal_layouts`: L1 nz,
zz or nd; L0A the target's layout or nd; L0B zn; L0C nz; UB, BT, FB nd; any other is refused),
shape and element type; past 4096 cells the labels are left out (the colours still show the
order). `-o` names the file and its format: .png, .svg or .pdf.

`memory` draws where the tiles of the entry function live after `pto-assign-addresses`: one panel
per on-chip space, x = program point (the ops of the function in pre-order), y = byte address, one
box per `pto.alloc` over its live interval and its bytes, the capacity as a line. The file is
lowered first (`mmair-lower`, or the passes of `-p`), so `pto.matmul` kernels show their tiles.

Exit codes as in every mmair tool: 0, 1 for bad input (one `error:` line), 2 for bad options.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from mmair.tools.stdio import quiet_broken_pipe
from mmair.tools.version import VersionAction

PROG = "mmair-show"
MAX_LABELLED_CELLS = 4096


class UsageError(Exception):
    """A bad command line (exit 2)."""


class InputError(Exception):
    """Bad input (exit 1), already phrased."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# ---- layout ------------------------------------------------------------------------------------


@dataclass
class LayoutPicture:
    """What `draw_layout` draws: physical indices of the padded-logical cells."""

    offsets: np.ndarray
    """[R, C] physical element index of padded-logical (r, c)."""
    valid: np.ndarray
    """[R, C] True inside the logical shape, False in the fractal padding."""
    fractal: tuple[int, int]
    title: str


def layout_picture(shape: tuple[int, ...], element: str, layout: str, space: str) -> LayoutPicture:
    from mmair.isa.ascend import layouts

    rows, cols = (1, shape[0]) if len(shape) == 1 else shape
    pr, pc = layouts.padded_shape(layout, tuple(shape), element, space)
    r = np.arange(pr)[:, None]
    c = np.arange(pc)[None, :]
    offsets = np.broadcast_to(layouts.element_offset(layout, tuple(shape), element, space, r, c),
                              (pr, pc))
    valid = (r < rows) & (c < cols)
    fractal = layouts.fractal_shape(layout, element, space) if layout in layouts.FRACTAL_LAYOUTS \
        else (pr, pc)
    physical = layouts.physical_shape(layout, tuple(shape), element, space)
    title = (f"{'x'.join(map(str, shape))} {element} as {layout} in {space}: "
             + (f"fractals of {fractal[0]}x{fractal[1]}, " if layout in layouts.FRACTAL_LAYOUTS else "")
             + f"physical shape {physical}")
    return LayoutPicture(np.asarray(offsets), np.asarray(valid), fractal, title)


def draw_layout(picture: LayoutPicture, output: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pr, pc = picture.offsets.shape
    cell = 0.42 if pr * pc <= MAX_LABELLED_CELLS else max(0.05, 12 / max(pr, pc))
    fig, ax = plt.subplots(figsize=(max(4.0, pc * cell + 1.5), max(3.0, pr * cell + 1.2)))
    ax.imshow(picture.offsets, cmap="viridis", interpolation="nearest", aspect="equal",
              extent=(0, pc, pr, 0))
    ax.imshow(np.where(picture.valid, np.nan, 1.0), cmap="Greys", vmin=0, vmax=1.6, alpha=0.55,
              interpolation="nearest", aspect="equal", extent=(0, pc, pr, 0))
    if pr * pc <= MAX_LABELLED_CELLS:
        size = 7 if max(picture.offsets.max(), 1) < 1000 else 5.5
        mid = picture.offsets.max() / 2
        for (i, j), value in np.ndenumerate(picture.offsets):
            ax.text(j + 0.5, i + 0.5, str(value), ha="center", va="center", fontsize=size,
                    color="white" if value < mid else "black")
    fr, fc = picture.fractal
    for x in range(0, pc + 1, fc):
        ax.axvline(x, color="red", linewidth=2)
    for y in range(0, pr + 1, fr):
        ax.axhline(y, color="red", linewidth=2)
    ax.set_xticks(np.arange(0, pc, max(1, fc if fc > 1 else pc // 8 or 1)) + 0.5)
    ax.set_xticklabels([str(i) for i in range(0, pc, max(1, fc if fc > 1 else pc // 8 or 1))])
    ax.set_yticks(np.arange(0, pr, max(1, fr if fr > 1 else pr // 8 or 1)) + 0.5)
    ax.set_yticklabels([str(i) for i in range(0, pr, max(1, fr if fr > 1 else pr // 8 or 1))])
    ax.set_xlabel("logical column")
    ax.set_ylabel("logical row")
    ax.set_title(picture.title + "\ncell = index in the physical buffer; red = fractal borders; "
                 "grey = padding", fontsize=9)
    fig.tight_layout()
    _save(fig, output)


FORMATS = ("png", "svg", "pdf")
"""The picture formats `-o` may name (by its suffix)."""


def picture_format(output: str) -> str:
    """The format `output`'s suffix names; UsageError for another suffix (a file called
    `map.svg` holding a PNG would not open as an SVG). A special file (/dev/null) is a PNG."""
    import os
    import stat

    suffix = output.rsplit(".", 1)[-1].lower() if "." in os.path.basename(output) else ""
    if suffix in FORMATS:
        return suffix
    try:
        if not stat.S_ISREG(os.stat(output).st_mode):
            return "png"
    except OSError:
        pass
    raise UsageError(f"-o '{output}': the picture format is taken from the suffix: "
                     f"{', '.join('.' + f for f in FORMATS)}")


def _save(fig, output: str) -> None:
    """In the format the file name says (`picture_format`), written atomically with the user's
    umask."""
    import matplotlib.pyplot as plt

    from mmair.tools.cli import write_output

    fmt = picture_format(output)
    try:
        write_output(output, lambda f: fig.savefig(f, format=fmt, dpi=80))
    finally:
        plt.close(fig)


# ---- memory map ------------------------------------------------------------------------------


@dataclass
class Box:
    space: str
    label: str
    start: int
    end: int
    offset: int
    size: int


def memory_boxes(module, entry: str | None = None) -> tuple[list[Box], dict[str, int | None], str]:
    """The tiles of the entry function of a lowered module: (boxes, capacities, function name)."""
    from mmair.dialects import pto
    from mmair.executor.runner import find_entry
    from mmair.passes.pto_assign_addresses import assign_function

    function = find_entry(module, entry)
    target = pto.target_of(function)
    boxes = []
    for buf in assign_function(function, target):  # all allocs have offsets: nothing moves
        offset = buf.alloc.offset.value.data if buf.alloc.offset is not None else buf.offset
        boxes.append(Box(buf.space, buf.label, buf.start, buf.end, int(offset), buf.size))
    return boxes, dict(target.capacity), function.sym_name.data


def _fits(inner, outer, pad: float = 2.0) -> bool:
    return (inner.x0 >= outer.x0 + pad and inner.x1 <= outer.x1 - pad
            and inner.y0 >= outer.y0 + pad and inner.y1 <= outer.y1 - pad)


def memory_figure(boxes: list[Box], capacities: dict[str, int | None], title: str):
    """The memory map's Figure: per on-chip space, each tile a rectangle over the program points
    it lives; its label (name, size, offset) inside it when it fits there without touching
    another label, else in a legend under the axes (small tiles: their labels would overprint)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle
    from matplotlib.transforms import offset_copy

    order = ["l1", "l0a", "l0b", "l0c", "ub", "bt", "fb"]
    spaces = sorted({b.space for b in boxes},
                    key=order.index if all(b.space in order for b in boxes) else str)
    fig, axes = plt.subplots(1, len(spaces), figsize=(4.2 * len(spaces), 5.0), squeeze=False)
    last = max((b.end for b in boxes), default=0) + 1
    colours = plt.get_cmap("tab20")
    placed: list[tuple] = []  # per axes: (axes, [(box, rectangle, colour)], capacity text)
    for ax, space in zip(axes[0], spaces, strict=True):
        mine = [b for b in boxes if b.space == space]
        cap = capacities.get(space) or max(b.offset + b.size for b in mine)
        tiles = []
        for i, b in enumerate(mine):
            colour = colours(i % 20)
            rect = Rectangle((b.start, b.offset), b.end - b.start + 1, b.size, facecolor=colour,
                             edgecolor="black", alpha=0.85)
            ax.add_patch(rect)
            tiles.append((b, rect, colour))
        ax.axhline(cap, color="red", linestyle="--", linewidth=1.5)
        cap_text = ax.text(0, cap, f" capacity {cap} B", va="bottom", fontsize=7, color="red")
        ax.set_xlim(0, last)
        ax.set_ylim(0, cap * 1.08)
        ax.set_title(space, fontsize=10)
        ax.set_xlabel("program point (op number)")
        ax.set_ylabel("byte address")
        placed.append((ax, tiles, cap_text))
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    # Labels inside their tile where they fit (largest tiles first), the rest in a legend; the
    # legend moves the layout, so the inline labels are checked again until none moves.
    legends: dict[int, list] = {id(ax): [] for ax, _, _ in placed}
    inline: dict[int, Any] = {}
    for _ in range(len(boxes) + 1):  # each pass but the last moves a label
        renderer = fig.canvas.get_renderer()
        moved = False
        for ax, tiles, cap_text in placed:
            taken = [cap_text.get_window_extent(renderer)]
            for b, rect, _ in sorted(tiles, key=lambda t: -t[0].size * (t[0].end - t[0].start + 1)):
                if id(b) in legends[id(ax)]:
                    continue
                text = inline.get(id(b))
                if text is None:
                    text = inline[id(b)] = ax.text(
                        b.start + (b.end - b.start + 1) / 2, b.offset + b.size / 2,
                        f"{b.label}\n{b.size} B @ {b.offset}", ha="center", va="center",
                        fontsize=7)
                extent = text.get_window_extent(renderer)
                if _fits(extent, rect.get_window_extent(renderer)) and \
                        not any(extent.overlaps(other) for other in taken):
                    taken.append(extent)
                    continue
                text.remove()
                del inline[id(b)]
                legends[id(ax)].append(id(b))
                moved = True
        if not moved:
            break
        for ax, tiles, _ in placed:
            keys = legends[id(ax)]
            if keys:
                handles = [Patch(facecolor=colour, edgecolor="black",
                                 label=f"{b.label}: {b.size} B @ {b.offset}")
                           for b, _, colour in tiles if id(b) in keys]
                # under the x label: its distance below the axes is fixed in points
                below = ax.bbox.y0 - ax.xaxis.label.get_window_extent(renderer).y0
                anchor = offset_copy(ax.transAxes, fig=fig, y=-(below * 72 / fig.dpi + 4),
                                     units="points")
                ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0),
                          bbox_transform=anchor, fontsize=7, frameon=False, title="small tiles",
                          title_fontsize=7)
        fig.tight_layout()
    return fig


def draw_memory(boxes: list[Box], capacities: dict[str, int | None], title: str, output: str) -> None:
    _save(memory_figure(boxes, capacities, title), output)


# ---- command line ------------------------------------------------------------------------------


#: Larger pictures take tens of seconds to draw and their cell labels cannot be read.
MAX_DRAWN_ELEMENTS = 1 << 14


def _shape(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(d) for d in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a shape like 32x48, got '{text}'") from None
    if not 1 <= len(dims) <= 2 or any(d <= 0 for d in dims):
        raise argparse.ArgumentTypeError(f"expected one or two positive sizes, got '{text}'")
    if np.prod(dims) > MAX_DRAWN_ELEMENTS:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_DRAWN_ELEMENTS} elements (e.g. 128x128) are drawn with their index, "
            f"got {text}")
    return dims


def build_parser() -> argparse.ArgumentParser:
    from mmair.isa.ascend.layouts import LAYOUTS

    parser = _Parser(prog=PROG, description="Draw Ascend fractal layouts and kernel memory maps.")
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", required=True)
    layout = commands.add_parser(
        "layout", help="draw one tile's fractal layout",
        description="Draw one tile: each logical element labelled with its index in the physical "
                    "buffer, fractal borders in red, padding in grey.")
    layout.add_argument("--shape", type=_shape, required=True, help="logical ROWSxCOLS (or N)")
    layout.add_argument("--type", default="f16", help="element type (isa name: f16, bf16, f32, s8, e4m3, ...)")
    layout.add_argument("--layout", choices=LAYOUTS, default="nz", help="tile layout (default nz)")
    layout.add_argument("--space", default="l1",
                        help="l1, l0a, l0b, l0c, ub, bt or fb: the fractal's c0 and the legal "
                             "layouts depend on it")
    layout.add_argument("--target", default="a2",
                        help="Ascend target (default a2): the layout L0A holds depends on it")
    layout.add_argument("-o", "--output", default="layout.png",
                        help="picture file: .png, .svg or .pdf (default layout.png)")
    memory = commands.add_parser(
        "memory", help="draw a kernel's tiles over address x program point",
        description="Draw where each tile of a kernel lives after the passes: per on-chip space, "
                    "a box over the tile's live range and its bytes, with the capacity.")
    memory.add_argument("file", help="input .mlir file ('-' for stdin)")
    memory.add_argument("-p", "--passes", default="mmair-lower",
                        help="passes before drawing (default mmair-lower)")
    memory.add_argument("--entry", help="function to draw (default: the only or first public one)")
    memory.add_argument("--target", help="Ascend target (overrides the module's pto.target)")
    memory.add_argument("-o", "--output", default="memory.png",
                        help="picture file: .png, .svg or .pdf (default memory.png)")
    return parser


def _run_layout(args: argparse.Namespace) -> str:
    from mmair.dialects.pto.types import TILE_SPACES, legal_layouts
    from mmair.isa.ascend import layouts
    from mmair.isa.ascend.targets import TARGET_NAMES, element_bits, get_target

    if args.target not in TARGET_NAMES:
        raise UsageError(f"unknown --target '{args.target}' (expected one of "
                         f"{', '.join(TARGET_NAMES)})")
    if args.space not in TILE_SPACES:
        raise UsageError(f"--space {args.space} is not an on-chip space; legal: "
                         f"{', '.join(TILE_SPACES)}")
    legal = legal_layouts(args.space, get_target(args.target))
    if args.layout not in legal:
        # the verifier's rule for a !pto.tile in this space (dialects/pto/types.py)
        raise InputError(f"error: layout {args.layout} is not legal for a tile in {args.space} on "
                         f"{args.target}; legal: {', '.join(legal)}")
    try:
        element_bits(args.type)
        if len(args.shape) == 1 and args.layout != "nd":
            raise ValueError("a 1-D shape needs the nd layout")
        layouts.fractal_shape(args.layout, args.type, args.space)
        picture = layout_picture(args.shape, args.type, args.layout, args.space)
    except (ValueError, KeyError) as err:
        raise InputError(f"error: {str(err).strip(chr(39))}") from None
    draw_layout(picture, args.output)
    return args.output


def _run_memory(args: argparse.Namespace) -> str:
    from xdsl.context import Context
    from xdsl.dialects.builtin import StringAttr
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    from mmair.dialects import get_all_dialects
    from mmair.executor.runner import InputError as RunInputError
    from mmair.passes import get_all_passes
    from mmair.tools.cli import PipelineError, parse_pipeline_spec
    from mmair.tools.diagnostics import (
        OpVerifyError,
        SourceFile,
        format_op_error,
        format_parse_error,
        format_pass_error,
        parse_source,
        read_input_text,
        verify_module,
    )

    try:
        pipeline = parse_pipeline_spec(get_all_passes(), args.passes,
                                       lambda _p, m, _n: verify_module(m)) if args.passes else None
    except PipelineError as err:
        raise UsageError(str(err)) from None
    try:
        source = SourceFile("<stdin>" if args.file == "-" else args.file,
                            read_input_text(args.file))
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"{args.file}: error: cannot read input: {err}") from None
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    try:
        module = parse_source(ctx, source.text, source.name)
        if args.target is not None:
            module.attributes["pto.target"] = StringAttr(args.target)
        verify_module(module)
        if pipeline is not None:
            pipeline.apply(ctx, module)
        boxes, capacities, name = memory_boxes(module, args.entry)
    except ParseError as err:
        raise InputError(format_parse_error(err)) from None
    except OpVerifyError as err:
        raise InputError(format_op_error(err.op, err.message, source)) from None
    except DiagnosticException as err:
        raise InputError(format_pass_error(err, source)) from None
    except RunInputError as err:
        raise InputError(f"error: {err}") from None
    if not boxes:
        raise InputError(f"error: @{name} allocates no pto tile, nothing to draw")
    draw_memory(boxes, capacities, f"{args.file} @{name}: tiles after pto-assign-addresses",
                args.output)
    return args.output


@quiet_broken_pipe
def main(argv: Sequence[str] | None = None) -> int:
    from mmair.tools.cli import check_output_path
    from mmair.tools.diagnostics import UserError
    from mmair.tools.outputs import refuse_overwriting_inputs

    try:
        args = build_parser().parse_args(argv)
        picture_format(args.output)
        check_output_path(args.output)
        if args.command == "memory":
            refuse_overwriting_inputs([("-o", args.output)], [("the kernel", args.file)])
        written = _run_layout(args) if args.command == "layout" else _run_memory(args)
    except UsageError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except (InputError, UserError) as err:
        print(str(err), file=sys.stderr)
        return 1
    except SystemExit as exit_:  # --help, --version
        return int(exit_.code or 0)
    except ModuleNotFoundError as err:  # matplotlib is the optional `show` extra
        if err.name is None or not err.name.startswith("matplotlib"):
            raise
        print(f'{PROG}: error: drawing needs matplotlib: pip install "mmair[show]"', file=sys.stderr)
        return 1
    print(f"wrote {written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
