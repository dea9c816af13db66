"""docs/pipes.md shows the facts of isa/ascend/pipes.py: its tables are parsed and compared with
the module for every target, so the page cannot drift from the code."""

from pathlib import Path

from mmair.isa.ascend import pipes
from mmair.isa.ascend.pipes import Pipe, PipeError
from mmair.isa.ascend.targets import TARGET_NAMES, get_target

PAGE = (Path(__file__).resolve().parents[3] / "docs" / "pipes.md").read_text(encoding="utf-8")


def _table(marker: str) -> list[list[str]]:
    """The rows (cells stripped of backticks and bold) of the table after `<!-- marker`."""
    start = PAGE.index(f"<!-- {marker}")
    block = PAGE[start:PAGE.index("<!-- end", start)].splitlines()[1:]
    rows = [[c.strip().strip("`*") for c in line.strip().strip("|").split("|")] for line in block
            if line.startswith("|")]
    return [rows[0]] + rows[2:]  # header, then the body (skip the |---| line)


def test_pipe_table_matches_pipe_of() -> None:
    header, *body = _table("pipe table")
    assert header[2:] == list(TARGET_NAMES)
    seen = set()
    for kind, path, *cells in body:
        src, dst = path.split("->")
        seen.add((kind, src, dst))
        for target, cell in zip(TARGET_NAMES, cells, strict=True):
            try:
                actual = pipes.pipe_of(kind, src, dst, get_target(target)).value
            except PipeError:
                actual = "—"
            assert cell == actual, f"{kind} {path} on {target}: page says {cell}, pipes.py {actual}"
    # every path of every op kind is on the page
    assert seen == {(k, s, d) for k in pipes.op_kinds() for s, d in pipes.op_paths(k)}


def test_flag_pair_table_matches_flag_pairs() -> None:
    header, *body = _table("flag pairs")
    dsts = [Pipe(name) for name in header[1:]]
    everywhere, fix_only = set(), set()
    for src, *cells in body:
        for dst, cell in zip(dsts, cells, strict=True):
            {"✓": everywhere, "F": fix_only, "": set()}[cell].add((Pipe(src), dst))
    for name in TARGET_NAMES:
        target = get_target(name)
        expected = everywhere | (fix_only if Pipe.FIX in pipes.pipes(target) else set())
        assert pipes.flag_pairs(target) == expected, name


def test_event_id_table_matches_event_ids() -> None:
    header, row = _table("event ids")
    assert header[1:] == list(TARGET_NAMES)
    for name, cell in zip(TARGET_NAMES, row[1:], strict=True):
        assert cell == f"0-{pipes.event_ids(get_target(name)) - 1}", name


def test_page_keeps_the_checker_section_for_the_engine() -> None:
    assert "## What the checker reports" in PAGE
