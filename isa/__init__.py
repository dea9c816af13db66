"""Hardware facts of the modelled matrix engines, in pure Python (no xDSL import)."""
