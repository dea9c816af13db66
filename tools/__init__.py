"""Command-line tools: mmair-opt, mmair-run, mmair-desc, mmair-show, mmair-translate, mmair-tune."""
