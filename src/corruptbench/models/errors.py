"""The error every model-source problem raises."""

from __future__ import annotations

from ..errors import ArgumentError

__all__ = ["ModelSourceError"]


class ModelSourceError(ArgumentError):
    """A model source cannot be resolved or loaded; the message says why and what to do."""
