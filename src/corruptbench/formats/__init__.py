"""File formats: reading and writing the files inside a dataset (the folder layouts around them
are :mod:`corruptbench.layouts`). Named for what it holds, and so that it is not read as Hugging
Face's ``datasets``; ``corruptbench.datasets`` is its deprecated former name. Sub-modules:

* :mod:`.images` — decoding every image file the package reads (16-bit input converted correctly)
* :mod:`.imagenet` — the 1000 wnids / class index, source image-folder scanning, image loading
* :mod:`.jpeg` + :mod:`.jpeg_transcoder` — Pillow-identical ``optimize=True`` JPEG writes
* :mod:`.video` — ImageNet-P's MP4 (H.264) writing and reading
* :mod:`.cifar` — ``.npy`` arrays (no pickles) and the CIFAR python batch files
* :mod:`.webdataset` — WebDataset tar shards: deterministic writing, reading members
* :mod:`.checks` — per-file checks: JPEG / PNG / MP4 / ``.npy`` start and end markers, full decodes
* :mod:`.robustbench` — RobustBench's 5,000 ImageNet image ids (package data)
"""

from __future__ import annotations

from .cifar import check_class_labels, load_npy, read_cifar_batch
from .imagenet import (
    ImageItem,
    ImageLoadError,
    class_name,
    imagenet_class_names,
    imagenet_wnids,
    index_to_wnid,
    load_image,
    scan_image_folder,
    wnid_to_index,
)
from .video import read_mp4, write_mp4

__all__ = [
    "ImageItem",
    "ImageLoadError",
    "check_class_labels",
    "class_name",
    "imagenet_class_names",
    "imagenet_wnids",
    "index_to_wnid",
    "load_image",
    "load_npy",
    "read_cifar_batch",
    "read_mp4",
    "scan_image_folder",
    "wnid_to_index",
    "write_mp4",
]
