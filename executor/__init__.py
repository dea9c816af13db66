"""Executor: runs pto and tcgen05 IR on simulated memories."""
