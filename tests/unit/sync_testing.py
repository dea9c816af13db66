"""Shared helpers of the sync checker tests: parse a kernel, find a line, drop marked lines."""

from __future__ import annotations

from xdsl.context import Context

from mmair.dialects import get_all_dialects
from mmair.tools.diagnostics import LocatingParser, verify_module


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    module = LocatingParser(ctx, text, "k.mlir").parse_module()
    verify_module(module)
    return module


def line_of(text: str, needle: str) -> int:
    """1-based line of the only line containing `needle`."""
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    assert len(hits) == 1, needle
    return hits[0]


def without(text: str, marker: str) -> str:
    return "\n".join(line for line in text.splitlines() if f"// {marker}" not in line)
