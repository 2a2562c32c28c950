"""Drop-in replacement for the ``imagenet_c`` / ``imagecorruptions`` call.

Switch with one import::

    # from imagecorruptions import corrupt, get_corruption_names
    from corruptbench.compat import corrupt, get_corruption_names
"""

from __future__ import annotations

import numpy as np

from .api import ALL_CORRUPTIONS
from .api import corrupt as _corrupt
from .api import get_corruption_names as _names
from .rng import RNGLike

__all__ = ["corrupt", "get_corruption_names"]


def corrupt(
    image: np.ndarray,
    severity: int = 1,
    corruption_name: str | None = None,
    corruption_number: int = -1,
    *,
    rng: RNGLike = None,
) -> np.ndarray:
    """``imagenet_c.corrupt`` signature: name, or number 0..18 in the reference order.

    Unlike the reference, severity 0 is an error (the reference silently used severity 5), and any
    image size works (profile chosen automatically). Without ``rng`` the global legacy NumPy
    generator is used, like the reference, so ``np.random.seed(k)`` before the call reproduces it.
    """
    if corruption_name is not None:
        name = corruption_name
    elif isinstance(corruption_number, int) and 0 <= corruption_number < len(ALL_CORRUPTIONS):
        name = ALL_CORRUPTIONS[corruption_number]
    else:
        raise ValueError(
            f"either corruption_name or corruption_number (0..{len(ALL_CORRUPTIONS) - 1}) must be given"
        )
    if rng is None:
        # The global RandomState, exactly like the reference's np.random.* calls.
        rng = np.random.mtrand._rand
    return _corrupt(image, name, severity, rng=rng)


def get_corruption_names(subset: str = "common") -> list[str]:
    """imagecorruptions' subsets: ``common`` (15), ``validation`` (4), ``all`` (19); also families."""
    return _names(subset)
