"""`--version` of the mmair tools (no xDSL import, so that mmair-desc starts fast)."""

from __future__ import annotations

import argparse
from importlib.metadata import PackageNotFoundError, version


def mmair_version() -> str:
    try:
        return version("mmair")
    except PackageNotFoundError:  # a source tree that is not installed
        return "unknown"


def version_line(tool: str) -> str:
    """`TOOL (mmair X, xdsl Y)`."""
    try:
        xdsl = version("xdsl")
    except PackageNotFoundError:
        xdsl = "unknown"
    return f"{tool} (mmair {mmair_version()}, xdsl {xdsl})"


class VersionAction(argparse.Action):
    """`--version`: prints `version_line(prog)` and exits; the version is looked up only then
    (importlib.metadata costs start-up time)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="print the mmair and xDSL versions and exit"):  # noqa: A002 - argparse's name
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line(parser.prog))
        parser.exit()
