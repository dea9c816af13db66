"""NVIDIA Blackwell tcgen05: instruction, shared-memory and zero-column mask descriptors, shapes and rules."""
