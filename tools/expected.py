"""`mmair-opt --verify-diagnostics` with MLIR-style `// expected-error` annotations.

As in mlir-opt, an annotation names a diagnostic that must be produced, and a substring of its
message:

    pto.mad %a, %b, %c ...   // expected-error {{requires m in [0, 16]}}
    // expected-error @below {{requires m in [0, 16]}}
    // expected-error @+2 {{...}}        (also @above, @-N)

The annotation's line (shifted by `@above`/`@below`/`@+N`/`@-N`) must be the line of the
diagnostic, and the text between `{{` and `}}` must occur in its message. A diagnostic nobody
expected is reported as `unexpected error: ...`, an annotation no diagnostic matched as
`expected error "..." was not produced`; either makes the exit code 1, all matched is 0. mmair's
tools stop at the first error of a chunk, so give each rule its own `// -----` chunk and use
`--split-input-file`.

A file without any `expected-` annotation keeps xDSL's meaning of the flag: each chunk's
diagnostic is printed to the output (for FileCheck) and the exit code is 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ANNOTATION = re.compile(
    r"//\s*expected-(error|warning|note|remark)\s*(@above|@below|@[+-]\d+)?\s*\{\{(.*?)\}\}")
_DIAGNOSTIC = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): "
                         r"(?P<msg>.*)$")


@dataclass(frozen=True)
class Expected:
    line: int
    """The line the diagnostic must be on (1-based, in the whole file)."""
    severity: str
    text: str
    written_at: int
    """The line of the annotation itself."""


def has_annotations(text: str) -> bool:
    return _ANNOTATION.search(text) is not None


def expectations(chunk: str, line_offset: int) -> list[Expected]:
    """The annotations of one chunk; `line_offset` lines precede it in the file."""
    found: list[Expected] = []
    for number, line in enumerate(chunk.splitlines(), start=1 + line_offset):
        for m in _ANNOTATION.finditer(line):
            where = m.group(2)
            target = number
            if where == "@above":
                target = number - 1
            elif where == "@below":
                target = number + 1
            elif where:
                target = number + int(where[1:])
            found.append(Expected(target, m.group(1), m.group(3), number))
    return found


def check(file: str, expected: list[Expected], diagnostics: list[str]) -> list[str]:
    """The mismatches (one diagnostic line each) between the expected and the produced
    diagnostics (each the formatted `file:line:col: error: message` text) of one chunk."""
    problems: list[str] = []
    open_expectations = list(expected)
    for text in diagnostics:
        first = text.splitlines()[0] if text else ""
        m = _DIAGNOSTIC.match(first)
        line = int(m.group("line")) if m else None
        message = m.group("msg") if m else first
        hit = next((e for e in open_expectations
                    if e.severity == (m.group("sev") if m else "error")
                    and e.line == line and e.text in message), None)
        if hit is None:
            problems.append(f"{first.split(': error: ')[0] if m else file}: error: unexpected error: "
                            f"{message}")
        else:
            open_expectations.remove(hit)
    for e in open_expectations:
        problems.append(f"{file}:{e.written_at}:1: error: expected {e.severity} \"{e.text}\" was not "
                        f"produced (on line {e.line})")
    return problems
