"""Limits that the dialects, the frontend and the runtime share, in a module that imports nothing, so
the host side (checking a launch's tile shapes, loading a cached kernel) reads them without importing
xDSL or the dialects."""

MAX_TILE_ELEMENTS = 1 << 16
"""The most elements one tile may have: `tile-to-gpu` keeps a tile in the registers of one CTA (at
most 1024 threads), 64 elements per thread at this size. Larger shapes are refused rather than
unrolled for minutes (or, for `1 << 40`, forever)."""
