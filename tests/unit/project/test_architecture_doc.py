"""docs/architecture.md and its picture stay true to the tree: every file the picture names
exists, the page gives every package a line of its own and names every benchmark module, and
the picture draws."""

from __future__ import annotations

import importlib.util
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "architecture.md"


def _picture():
    spec = importlib.util.spec_from_file_location("mmair_architecture_picture",
                                                  ROOT / "docs" / "architecture_picture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_file_the_picture_names_exists():
    pic = _picture()
    missing = [p for p in pic.NAMED if not (ROOT / p).exists()]
    assert not missing, f"docs/architecture_picture.py names missing files: {missing}"
    texts = [line for *_, lines in pic.LAYER_BOXES + pic.EXECUTOR_BOXES for line in lines]
    texts += [line for *_, lines in pic.RUN_STAGES + pic.RUN_OUTPUTS for line in lines]
    files = {f for text in texts for f in re.findall(r"[\w/]+\.py", text)}
    assert files, "the picture names no file"
    for f in files:  # `reference.py` inside the executor box is executor/reference.py
        assert any(p == f or p.endswith("/" + f) for p in pic.NAMED), f"{f} is not in NAMED"


def test_the_page_names_every_package_and_benchmark_module():
    text = PAGE.read_text(encoding="utf-8")
    packages = sorted(p.parent.relative_to(ROOT).as_posix()
                      for layer in ("isa", "dialects", "passes", "executor", "tools")
                      for p in (ROOT / layer).rglob("__init__.py")
                      if "__pycache__" not in p.parts)
    assert "executor/engine" in packages and len(packages) >= 11
    listed = set(re.findall(r"^\* `([\w/]+?)/?`", text, re.M))  # "What lives where"
    missing = [p for p in packages if p not in listed]
    assert not missing, f"docs/architecture.md does not describe the packages {missing}"
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))
    assert "common.py" in scripts
    missing = [s for s in scripts if f"`{s}`" not in text]
    assert not missing, f"docs/architecture.md does not name the benchmark modules {missing}"


def test_the_page_embeds_the_picture_and_the_readme_links_the_page():
    assert "](images/architecture.png)" in PAGE.read_text(encoding="utf-8")
    assert (ROOT / "docs" / "images" / "architecture.png").is_file()
    assert "](docs/architecture.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_picture_draws(tmp_path):
    out = tmp_path / "architecture.png"
    _picture().draw(out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
