"""What the layout modules share: the visible entries of a folder, and the image extensions."""

from __future__ import annotations

import os
from pathlib import Path

from ..formats.imagenet import IMAGE_EXTENSIONS

__all__ = ["IMAGE_EXTENSIONS", "visible_dirs", "sorted_entries"]


def sorted_entries(path: str | os.PathLike[str]) -> list[os.DirEntry[str]]:
    """The entries of ``path`` sorted by name, hidden ones (a running build's temporaries) left out."""
    with os.scandir(path) as it:
        return sorted((e for e in it if not e.name.startswith(".")), key=lambda e: e.name)


def visible_dirs(root: Path) -> list[str]:
    """The sorted names of the visible sub-folders of ``root``."""
    return sorted(e.name for e in os.scandir(root) if e.is_dir() and not e.name.startswith("."))
