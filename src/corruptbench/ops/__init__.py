"""Numeric kernels: exact re-implementations of the reference's library steps, with no knowledge of
corruption names or profiles."""
