"""RobustBench's fixed 5,000-image ImageNet subset (package data, shipped unmodified).

RobustBench (Croce et al., "RobustBench: a standardized adversarial robustness benchmark",
NeurIPS 2021 Datasets and Benchmarks) evaluates ImageNet and ImageNet-C models on 5,000 of the
50,000 validation images, always the same ones. The list is
``helper_files/imagenet_test_image_ids.txt`` of github.com/RobustBench/robustbench at commit
78fcc9e (MIT licence; see the package's NOTICE): one ``<wnid>/<file>`` per line, in RobustBench's
order, the last line without a newline. It is ``data/robustbench_imagenet_test_image_ids.txt``
here, byte for byte (MD5 ``8de8bbba2cf05cb54190e49247375985``).
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

__all__ = ["ROBUSTBENCH_IDS_FILE", "ROBUSTBENCH_IDS_SOURCE", "robustbench_image_ids"]

#: the package data file holding the list
ROBUSTBENCH_IDS_FILE = "data/robustbench_imagenet_test_image_ids.txt"
#: where the list comes from
ROBUSTBENCH_IDS_SOURCE = (
    "RobustBench/robustbench commit 78fcc9e, helper_files/imagenet_test_image_ids.txt (MIT)"
)
_COUNT = 5000


@lru_cache(maxsize=1)
def robustbench_image_ids() -> tuple[str, ...]:
    """The 5,000 ``<wnid>/<file>`` ids (e.g. ``n09468604/ILSVRC2012_val_00015253.JPEG``), in
    RobustBench's order: the relative paths of those images in an ImageNet validation folder
    (and in each ``<corruption>/<severity>/`` cell of ImageNet-C)."""
    text = resources.files("corruptbench").joinpath(ROBUSTBENCH_IDS_FILE).read_text("ascii")
    ids = tuple(line.strip() for line in text.splitlines() if line.strip())
    if len(ids) != _COUNT or len(set(ids)) != _COUNT:  # pragma: no cover - data check
        raise RuntimeError(
            f"corrupt package data: {ROBUSTBENCH_IDS_FILE} must hold 5000 unique ids"
        )
    return ids
