"""The demo's bundled photos (scikit-image and matplotlib data, present wherever corruptbench is
installed) as small image folders, for tests that need real photos without ../shared."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from corruptbench.demo import PHOTOS


def photo_arrays(n: int = 6) -> list[tuple[str, str, np.ndarray]]:
    """``(name, first accepted wnid, uint8 RGB)`` of the first ``n`` demo photos."""
    out = []
    for ph in PHOTOS[:n]:
        arr = np.asarray(ph.load())
        if arr.ndim == 2:  # the cameraman is grayscale
            arr = np.stack([arr] * 3, axis=-1)
        out.append((ph.name, ph.wnids[0], np.ascontiguousarray(arr[..., :3], dtype=np.uint8)))
    return out


def photo_folder(root: Path, n: int = 6, *, max_side: int | None = 320) -> Path:
    """``root/<wnid>/<name>.png`` for the first ``n`` demo photos (lossless PNG), each shrunk so
    its long side is at most ``max_side`` (faster tests; still above 256 for make-c's resize)."""
    for name, wnid, arr in photo_arrays(n):
        im = Image.fromarray(arr)
        if max_side is not None and max(im.size) > max_side:
            im.thumbnail((max_side, max_side), Image.Resampling.BILINEAR)
        (root / wnid).mkdir(parents=True, exist_ok=True)
        im.save(root / wnid / f"{name}.png")
    return root
