"""Command-line tools: mmair-opt, mmair-run, mmair-desc."""
