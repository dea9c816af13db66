"""Regenerate the pictures the README and docs embed (`mmair-show`, matplotlib):

    python docs/make_pictures.py

* docs/images/layout_nz_f16_20x40.png: a 20x40 f16 tile in L1 as nz (fractals 16x16, padding);
* docs/images/layout_zn_f16_40x20.png: the same numbers as an L0B zn tile (fractals 16x16, K innermost);
* docs/images/layout_zz_s8_20x40.png: s8 in zz (c0 = 32: fractals of 16x32);
* docs/images/memory_matmul_f16.png: the tiles of examples/matmul_f16.mlir after mmair-lower;
* docs/images/architecture.png: the layers and the path of one mmair-run (docs/architecture.md),
  drawn by docs/architecture_picture.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
IMAGES = Path("docs") / "images"  # relative to the repository root, the working directory

PICTURES: list[list[str]] = [
    ["layout", "--shape", "20x40", "--type", "f16", "--layout", "nz", "--space", "l1",
     "-o", str(IMAGES / "layout_nz_f16_20x40.png")],
    ["layout", "--shape", "40x20", "--type", "f16", "--layout", "zn", "--space", "l0b",
     "-o", str(IMAGES / "layout_zn_f16_40x20.png")],
    ["layout", "--shape", "20x40", "--type", "s8", "--layout", "zz", "--space", "l0a",
     "-o", str(IMAGES / "layout_zz_s8_20x40.png")],
    ["memory", "examples/matmul_f16.mlir",
     "-o", str(IMAGES / "memory_matmul_f16.png")],
]


def main() -> int:
    from mmair.tools.show import main as show

    os.chdir(REPO)  # so that the pictures name files relative to the repository
    IMAGES.mkdir(exist_ok=True)
    for argv in PICTURES:
        if show(argv) != 0:
            return 1
    sys.path.insert(0, str(HERE))
    from architecture_picture import draw

    draw(IMAGES / "architecture.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
