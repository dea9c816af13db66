"""`--json` on failure: the tool still prints one JSON object on stdout, so a script that reads it
never has to parse stderr.

    {"ok": false, "exit": 1, "diagnostics": [{"severity": "error", "message": "...",
     "file": "k.mlir", "line": 7, "col": 5, "source": "    %x = ..."}]}

`diagnostics(text)` reads the tools' own diagnostic text back (`file:line:col: error: message`,
then the quoted source line and a caret; `tools/diagnostics.format_diagnostic` writes it): one
entry per `error:` / `warning:` / `note:` line, with `file`, `line`, `col` and `source` where the
text has them (null otherwise). The same diagnostics still go to stderr as text. Kept free of
xDSL and numpy (mmair-desc and mmair-tune use it).
"""

from __future__ import annotations

import json
import re
from typing import Any

_DIAGNOSTIC = re.compile(
    r"^(?:(?P<file>.+?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)? )?"
    r"(?P<severity>error|warning|note): (?P<message>.*)$")
_PROG = re.compile(r"^(?P<prog>mmair-[a-z]+): ")


def diagnostics(text: str) -> list[dict[str, Any]]:
    """The diagnostics in a tool's stderr text, in order."""
    found: list[dict[str, Any]] = []
    lines = text.splitlines()
    for i, raw in enumerate(lines):
        line = _PROG.sub("", raw, count=1)
        match = _DIAGNOSTIC.match(line)
        if match is None:
            continue
        file, number, col = match["file"], match["line"], match["col"]
        source = None
        caret = lines[i + 2] if i + 2 < len(lines) else ""
        if number is not None and i + 1 < len(lines) and set(caret.strip()) == {"^"}:
            source = lines[i + 1]
        found.append({
            "severity": match["severity"], "message": match["message"], "file": file,
            "line": int(number) if number is not None else None,
            "col": int(col) if col is not None else None, "source": source,
        })
    return found


def failure(text: str, exit_code: int, **fields: Any) -> str:
    """The JSON object of a failed run: `"ok": false`, the exit code, the diagnostics in `text`
    (a message that is no diagnostic line becomes one error without a location), and `fields`."""
    found = diagnostics(text)
    if not found and text.strip():
        found = [{"severity": "error", "message": text.strip().splitlines()[0], "file": None,
                  "line": None, "col": None, "source": None}]
    return json.dumps({"ok": False, "exit": exit_code, **fields, "diagnostics": found}, indent=2)


def wants_json(argv: Any) -> bool:
    """Whether a command line asks for `--json` (also when argparse rejected it)."""
    import sys

    args = sys.argv[1:] if argv is None else list(argv)
    return "--json" in args
