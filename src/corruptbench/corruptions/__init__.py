"""Corruption functions, one small function per corruption, grouped by family.

Each function has the signature ``f(image, severity, *, profile, rng)`` and receives a validated
read-only uint8 H x W x 3 array; it returns an array in the [0, 255] domain (float or uint8) that the
dispatcher truncates to uint8. Use :func:`corruptbench.corrupt` rather than calling them directly.
"""
