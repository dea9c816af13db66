"""The Python API example of README.md ("Python API") runs as written: the test extracts the one
```python block that calls `run_module` and executes it from the repository root."""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _api_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, re.S | re.M)
    assert len(blocks) == 1, "README's Python API section must hold exactly one python block"
    return blocks[0]


def test_readme_python_api_example_runs(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code = _api_block()
    assert "run_module(" in code and "verify_module(" in code
    monkeypatch.chdir(ROOT)  # the example opens examples/... relative to the repository root
    namespace: dict[str, object] = {"__name__": "readme_api"}
    exec(compile(code, "README.md:python-api", "exec"), namespace)  # noqa: S102 - the doc's own code
    out = capsys.readouterr().out
    match = re.fullmatch(r"max abs error (\S+)\n", out)
    assert match, out
    assert float(match.group(1)) < 1e-3
    c = namespace["c"]
    assert getattr(c, "shape", None) == (128, 128)
