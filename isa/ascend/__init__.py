"""Ascend cube unit and vector GatherMask: targets, buffers, type tables, fractal layouts."""
