"""Blackwell targets with tcgen05 and the instruction features each one has.

PTX has arch-specific targets (`sm_100a`: every feature of one chip, the PTX runs only there) and
family targets (`sm_100f`: the features common to a family, PTX ISA 8.8+). Sources: the PTX ISA
"Target ISA notes" of each tcgen05 instruction (https://docs.nvidia.com/cuda/parallel-thread-
execution/#tcgen05-mma-instructions-mma) and, where the text is silent, what ptxas 13.5
(`nvidia-cuda-nvcc` 13.5.37) accepts; `tests/ptxas/mma_forms.tsv` records ptxas's verdict on every
`tcgen05.mma` form per target, and docs/tcgen05-ptxas.md lists the differences mmair keeps.

* CUDA 13 renamed sm_101a/sm_101f (CUDA 12.8/12.9, Jetson Thor) to sm_110a/sm_110f. ptxas 13.5
  has no `-arch=sm_101a` but still assembles `.target sm_101a` PTX for sm_110a; mmair accepts the
  old names as aliases (`canonical_target`).
* `kind::i8` exists only on sm_100a and sm_110a (not on sm_103a, sm_107a or any `f` target).
* The `.scale_vec::NX` spellings of the block-scale vector size, and a sparse (`.sp`)
  kind::mxf4/mxf4nvf4 MMA, need an arch-specific (`a`) target; `.block16`/`.block32` do not.
* The `scale-input-d` operand is not available on sm_110a/f (sm_101a/f).
* mxf4 K = 96 and the absolute LBO mode of the shared-memory descriptor need sm_103a.
* `tcgen05.shift` needs an arch-specific (`a`) target (its ISA target notes list sm_100a,
  sm_101a, sm_103a, sm_110a; ptxas 13.5 accepts sm_107a too and rejects every `f` target;
  `tests/ptxas/move_forms.tsv`).
"""

from __future__ import annotations

#: PTX ISA version written into generated modules (ptxas 13.5 needs 9.4 for sm_107a/f).
PTX_VERSION = "9.4"

#: Every target with tcgen05 (CUDA 13 names first, then the renamed CUDA 12.8/12.9 names).
TCGEN05_TARGETS: tuple[str, ...] = (
    "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107a", "sm_107f", "sm_110a", "sm_110f",
    "sm_101a", "sm_101f",
)
#: Old target name -> its CUDA 13 name.
TARGET_ALIASES: dict[str, str] = {"sm_101a": "sm_110a", "sm_101f": "sm_110f"}
#: kind::i8 (canonical names).
I8_TARGETS: tuple[str, ...] = ("sm_100a", "sm_110a")
#: The scale-input-d operand of tcgen05.mma (canonical names).
SCALE_INPUT_D_TARGETS: tuple[str, ...] = (
    "sm_100a", "sm_100f", "sm_103a", "sm_103f", "sm_107a", "sm_107f",
)
#: mxf4 K = 96 (R16) and the absolute LBO mode (R20).
SM103_FEATURE_TARGETS: tuple[str, ...] = ("sm_103a",)


def canonical_target(target: str) -> str:
    """The CUDA 13 name of a target (sm_101a -> sm_110a); other names unchanged."""
    return TARGET_ALIASES.get(target, target)


def is_arch_specific(target: str) -> bool:
    """`sm_100a`-style targets (all features of one chip) as opposed to family `f` targets."""
    return target.startswith("sm_") and target.endswith("a")


__all__ = [
    "I8_TARGETS",
    "SCALE_INPUT_D_TARGETS",
    "SM103_FEATURE_TARGETS",
    "TARGET_ALIASES",
    "TCGEN05_TARGETS",
    "canonical_target",
    "is_arch_specific",
]
