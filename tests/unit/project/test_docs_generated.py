"""Docs that stand alone and cannot drift: the generated tables of docs/ascend.md and
docs/tcgen05-rules.md equal what `mmair.isa` says now; the tcgen05 rule table covers every rule id
the isa code raises; the docs cite nothing outside the repository."""

from __future__ import annotations

import importlib.util
import pathlib
import re

ROOT = pathlib.Path(__file__).parents[3]
THIS_FILE = pathlib.Path(__file__).resolve().relative_to(ROOT.resolve())


def _generator():
    spec = importlib.util.spec_from_file_location("mmair_generate_docs", ROOT / "docs" / "generate_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_tables_match_isa():
    gen = _generator()
    for page in gen.PAGES:
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        names = re.findall(r"<!-- BEGIN generated: ([\w-]+) -->", text)
        assert names, page
        _, changed = gen.regenerate(text)
        assert changed == [], f"{page}: run python docs/generate_docs.py ({', '.join(changed)})"


def test_a_stale_table_is_detected():
    gen = _generator()
    text = (ROOT / "docs" / "ascend.md").read_text(encoding="utf-8")
    stale = text.replace("| `a2` | Atlas A2 (Ascend 910B) | 512 KB", "| `a2` | Atlas A2 (Ascend 910B) | 256 KB")
    assert stale != text
    _, changed = gen.regenerate(stale)
    assert changed == ["capacities"]


def test_rule_table_covers_every_rule_the_isa_raises():
    from mmair.isa.tcgen05 import idesc, rules, smem, zcmask
    from mmair.isa.tcgen05.rule_table import RULES

    ids = [r.id for r in RULES]
    assert ids == [f"R{i}" for i in range(1, 34)]
    source = "".join(p.read_text() for p in (ROOT / "isa" / "tcgen05").glob("*.py")
                     if p.name != "rule_table.py")
    raised = set(re.findall(r'"(R\d+)"', source))
    assert raised <= set(ids)
    for r in RULES:
        if r.enforced_by == "not modelled":
            assert r.id not in raised, (
                f"{r.id} is now raised by mmair.isa.tcgen05: set its enforced_by in "
                "isa/tcgen05/rule_table.py and run python docs/generate_docs.py")
            continue
        assert r.id in raised, r.id
        assert any(hasattr(m, r.enforced_by) for m in (idesc, rules, smem, zcmask)), r.enforced_by
    page = (ROOT / "docs" / "tcgen05-rules.md").read_text(encoding="utf-8")
    for r in RULES:
        assert f"| {r.id} | {r.checks} |" in page


def test_docs_cite_only_what_is_in_the_repository():
    for path in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        text = path.read_text(encoding="utf-8")
        for pattern in (r"reference §", r"/work/shared", r"ascend-cube\.md", r"tcgen05\.md §",
                        r"reference tcgen05", r"\breference ascend"):
            assert not re.search(pattern, text), f"{path.name} cites {pattern}"
        for link in re.findall(r"\]\(([^)#]+)\)", text):
            if not link.startswith(("http://", "https://")):
                assert (path.parent / link).exists(), f"{path.name} links to missing {link}"


def test_source_comments_cite_only_what_is_in_the_repository():
    """Docstrings and comments of the package and its tests cite docs/ pages and public sources,
    never the session's reference file, which is not in the repository."""
    pattern = r"reference §|Reference §|/work/shared|ascend-cube\.md|tcgen05\.md §|reference tcgen05"
    for path in sorted([*ROOT.glob("**/*.py"), *ROOT.glob("tests/**/*.mlir")]):
        rel = path.relative_to(ROOT)
        if rel.parts[0] == ".git" or "site-packages" in rel.parts or rel == THIS_FILE:
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(pattern, text), f"{rel} cites the reference file"
