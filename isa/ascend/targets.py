"""Ascend targets (placeholder: the full tables land with the isa/ascend work)."""

TARGET_NAMES: tuple[str, ...] = ("a2", "a3", "a5", "310p", "200i_a2", "910")
DEFAULT_TARGET = "a2"
