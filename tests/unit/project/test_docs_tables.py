"""The docs' tables and counts follow the code (issue 28 item 15): the README's tool table lists
every tool of `[project.scripts]`, its `mmair-lower` table every option of the pass, the pass
table of docs/design.md every mmair pass with exactly its options, one tool count and one rule
range everywhere, and every tool's `--help` opens with a sentence."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from mmair.passes import get_all_passes

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in [ROOT / "README.md",
                                                          *sorted((ROOT / "docs").glob("*.md"))]}
TOOLS = sorted(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"])
XDSL_PASSES = {"canonicalize", "cse", "dce"}
COUNTS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _options(name: str) -> list[str]:
    return [f.name.replace("_", "-") for f in dataclasses.fields(get_all_passes()[name]())]


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def test_the_readme_tool_table_lists_every_tool() -> None:
    rows = re.findall(r"^\| `(mmair-[a-z]+)` \|", _section(README, "## Tools"), re.M)
    assert sorted(rows) == TOOLS


def test_every_tool_count_in_the_docs_is_the_number_of_tools() -> None:
    said = {(name, word) for name, text in DOCS.items()
            for word in re.findall(r"\b(three|four|five|six|seven|eight|nine) tools\b", text)}
    assert said and {word for _, word in said} == {COUNTS[len(TOOLS)]}, said


def test_the_readme_lists_every_option_of_mmair_lower() -> None:
    table = README[README.index("The options of the `mmair-lower` pipeline"):]
    table = table[:table.index("\n\n", table.index("| option |"))]
    listed = set(re.findall(r"`([a-z0-9-]+)`", " ".join(
        line.split("|")[1] for line in table.splitlines() if line.startswith("| `"))))
    assert listed == set(_options("mmair-lower"))


def test_the_design_pass_table_lists_every_pass_with_exactly_its_options() -> None:
    rows = dict(re.findall(r"^\| `([a-z0-9-]+)(?:\{([^}]*)\})?` \|", _section(
        DOCS["design.md"], "## Passes"), re.M))
    assert set(rows) == set(get_all_passes()) - XDSL_PASSES
    for name, spec in rows.items():
        assert sorted(re.findall(r"([a-z0-9-]+)=", spec)) == sorted(_options(name)), name


def test_one_rule_range_everywhere() -> None:
    from mmair.isa.tcgen05.rule_table import RULES

    last = RULES[-1].id
    ranges = {(name, r) for name, text in DOCS.items()
              for r in re.findall(r"\bR1 ?(?:-|–|to|\.\.) ?R\d+\b", text)}
    assert ranges and {r for _, r in ranges} == {f"R1-{last}"}, ranges


def test_design_no_longer_calls_tcgen05_ld_st_or_r33_missing() -> None:
    text = DOCS["design.md"]
    for sentence in re.split(r"(?<=[.;])\s", text):
        if re.search(r"tcgen05\.ld|tcgen05\.st\b|\bR33\b", sentence):
            assert not re.search(r"\b(absent|not (?:yet )?(?:modelled|implemented|supported))\b",
                                 sentence), sentence


@pytest.mark.parametrize("tool", TOOLS)
def test_every_help_text_opens_with_a_sentence(tool: str, capsys) -> None:
    module = __import__(f"mmair.tools.{tool.removeprefix('mmair-')}", fromlist=["main"])
    try:
        code = module.main(["--help"])
    except SystemExit as done:  # argparse's exit, or the tool's own code
        code = done.code
    assert code in (0, None)
    out = capsys.readouterr().out
    description = out.split("\n\n")[1]
    assert description[0].isupper() and description.rstrip().endswith("."), description


def test_the_readme_shows_memref_copy_in_a_generic_form_that_parses() -> None:
    from mmair.tools.diagnostics import parse_source
    from mmair.tools.opt import MmairOptMain

    line = next(x for x in README.splitlines() if x.startswith('"memref.copy"('))
    types = line[line.index(": (") + 3:line.rindex(") -> ()")]
    cut = types.index(", memref<")
    text = (f"func.func @f(%a_src: {types[:cut]}, %a_dst: {types[cut + 2:]}) {{\n  {line}\n"
            "  func.return\n}\n")
    module = parse_source(MmairOptMain(args=[]).ctx, text, "readme.mlir")
    assert [op.name for op in module.walk()][-2:] == ["memref.copy", "func.return"]


def test_the_readme_tune_winner_is_a_pipeline_mmair_opt_takes(tmp_path, capsys) -> None:
    from mmair.tools.opt import main as opt_main

    pipeline = re.search(r"^\$ P='([^']+)'$", README, re.M).group(1)
    assert f"pipeline of rank 1 (mmair-opt / mmair-run -p): '{pipeline}'" in README
    out = tmp_path / "tuned.mlir"
    assert opt_main([str(ROOT / "examples" / "matmul_f16.mlir"), "-p", pipeline,
                     "-o", str(out)]) == 0, capsys.readouterr().err
    assert "pto.mad" in out.read_text()


def test_the_readme_says_how_to_check_a_hand_written_tcgen05_kernels_intent() -> None:
    section = README[README.index("### Checking a tcgen05 kernel's intent"):]
    section = section[:section.index("\n#")]
    assert "reads SMEM exactly as the descriptors tell" in " ".join(section.split())
    assert re.search(r"--check d=\S+\.npy", section), section


def test_pipes_md_says_what_a_legal_schedule_assumes() -> None:
    section = _section(DOCS["pipes.md"], "### Legal schedules")
    text = " ".join(section.split())
    assert "takes any finite time" in text and "issues in program order" in text
    assert "sync instructions take no time beyond their conditions" in text


TEST_DIRS = ("tools/", "executor/", "passes/", "project/", "dialects/", "isa/")


def _named_tests(text: str) -> list[tuple[Path, str]]:
    """The tests a doc names as `file::name` (paths relative to tests/unit/), then `::name` for
    more of that file; every file named must exist."""
    named, current = [], None
    for ref in re.findall(r"`((?:[\w/]+\.py)?(?:::\w+)?)`", text):
        file, _, name = ref.partition("::")
        if file.startswith(TEST_DIRS):
            current = ROOT / "tests" / "unit" / file
            assert current.is_file(), ref
        if name:
            assert current is not None, ref
            named.append((current, name))
    return named


def _missing(named: list[tuple[Path, str]]) -> list[tuple[str, str]]:
    return [(path.name, name) for path, name in named
            if not re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.M)]


def test_every_test_the_issue_28_audit_names_exists() -> None:
    """docs/checker-audit.md names tests as `file::name`, then `::name` for more of that file."""
    named = _named_tests(DOCS["checker-audit.md"])
    assert len(named) > 80
    missing = _missing(named)
    assert not missing, missing


def test_every_test_the_issue_29_list_names_exists_and_every_item_has_one() -> None:
    """docs/costs.md, "Issue 29's items and the tests that pin them": a row per behaviour, its
    item number first, its tests as the audit names them."""
    section = _section(DOCS["costs.md"], "## Issue 29's items and the tests that pin them")
    section = section[section.index("| item |"):]  # the table, not the prose explaining `::b`
    rows = re.findall(r"^\| (\d) \|.*\|(.*)\|$", section, re.M)
    assert {item for item, _ in rows} == {"1", "2", "3", "4", "5"}
    for item, tests in rows:
        assert _named_tests(tests), (item, tests)  # no row without a test
    named = _named_tests(section)
    assert len(named) > 40
    missing = _missing(named)
    assert not missing, missing
