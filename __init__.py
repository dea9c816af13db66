"""mmair: matrix-engine IR for the Ascend cube unit (pto) and NVIDIA Blackwell tensor cores (tcgen05).

The source folders at the top of the repository are installed as subpackages of `mmair`:
`mmair.isa` (hardware facts, no xDSL), `mmair.dialects`, `mmair.passes`, `mmair.executor`, `mmair.tools`.
"""

__version__ = "0.1.0"
