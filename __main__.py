"""`python -m mmair`: list the mmair tools (the console scripts this package installs)."""

from __future__ import annotations

import sys
from importlib import import_module
from importlib.metadata import PackageNotFoundError, distribution

from mmair.tools.stdio import quiet_broken_pipe


def tools() -> list[tuple[str, str]]:
    """(script name, first line of its module docstring) of every console script of mmair."""
    try:
        points = [ep for ep in distribution("mmair").entry_points if ep.group == "console_scripts"]
    except PackageNotFoundError:
        return []
    found = []
    for ep in sorted(points, key=lambda ep: ep.name):
        module = import_module(ep.value.split(":")[0])
        doc = (module.__doc__ or "").strip().splitlines()
        summary = doc[0].split(":", 1)[-1].strip() if doc else ""
        found.append((ep.name, summary))
    return found


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    from mmair.tools.version import mmair_version

    print(f"mmair {mmair_version()}: matrix-engine IR toolkit (Ascend cube `pto`, Blackwell "
          "`tcgen05`) on xDSL\n\ntools:")
    listed = tools()
    width = max((len(name) for name, _ in listed), default=0)
    for name, summary in listed:
        print(f"  {name.ljust(width)}  {summary}")
    print("\nRun `TOOL --help` for a tool's options; docs: the docs/ folder of the repository.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
