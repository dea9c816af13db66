"""Shared helpers of the tests that run edited copies of an example kernel through `mmair-run`
(the tcgen05 async checker's racy variants)."""

from __future__ import annotations

from pathlib import Path

from mmair.tools.run import main


def write_variant(tmp_path: Path, name: str, lines: list[str]) -> Path:
    """`lines` written to `tmp_path/name.mlir`."""
    path = tmp_path / f"{name}.mlir"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_lowered(capsys, path: Path, *extra: str) -> tuple[int, str]:
    """`mmair-run path -p mmair-lower *extra`: its exit code and stderr (never a traceback)."""
    code = main([str(path), "-p", "mmair-lower", *extra])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err
