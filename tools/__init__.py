"""Command-line tools: mmair-opt, mmair-run, mmair-desc, mmair-show, mmair-translate, mmair-tune.

Importing the package arms the Ctrl-C handler of a console script's start-up
(`stdio.startup_interrupt`: only in a process that is one of the tools)."""

from mmair.tools.stdio import startup_interrupt

startup_interrupt()
