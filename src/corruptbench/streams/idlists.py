"""The ImageNet validation id lists a stream takes its images from (package data).

* RobustBench's 5,000: :func:`corruptbench.datasets.robustbench.robustbench_image_ids`.
* The 50,000: ``datasets/imagenet_list/imagenet_val_ids_50k.txt`` of
  mariodoebler/test-time-adaptation commit 8b2ed63 (MIT; see the package's NOTICE), every
  validation image once as ``<wnid>/<file>``, in that file's (shuffled) order, which the stream's
  order depends on. Shipped gzip-compressed as ``data/tta_imagenet_val_ids_50k.txt.gz``; the
  uncompressed text has MD5 ``57e2f1c81903ac129d78e41f8d01a0c4``.

Labels: a wnid's position among the 1000 sorted wnids (RobustBench's
``imagenet_class_to_id_map.json`` is that same map).
"""

from __future__ import annotations

import gzip
import hashlib
from functools import lru_cache
from importlib import resources

from ..datasets.robustbench import robustbench_image_ids

__all__ = ["IMAGENET_50K_FILE", "IMAGENET_50K_MD5", "imagenet_50k_ids", "image_list_ids"]

IMAGENET_50K_FILE = "data/tta_imagenet_val_ids_50k.txt.gz"
IMAGENET_50K_MD5 = "57e2f1c81903ac129d78e41f8d01a0c4"


@lru_cache(maxsize=1)
def imagenet_50k_ids() -> tuple[str, ...]:
    """The 50,000 ``<wnid>/<file>`` ids in the list's order."""
    raw = gzip.decompress(resources.files("corruptbench").joinpath(IMAGENET_50K_FILE).read_bytes())
    if hashlib.md5(raw).hexdigest() != IMAGENET_50K_MD5:  # noqa: S324 - a checksum, not security
        raise RuntimeError(f"corrupt package data: {IMAGENET_50K_FILE}")  # pragma: no cover
    return tuple(line for line in raw.decode("ascii").splitlines() if line)


def image_list_ids(name: str) -> tuple[str, ...]:
    """The ids of a named list: ``robustbench`` (5,000) or ``imagenet_50k``."""
    return robustbench_image_ids() if name == "robustbench" else imagenet_50k_ids()
