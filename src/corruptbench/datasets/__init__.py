"""Readers and writers of the released dataset layouts (ImageNet-C / -P, CIFAR-10-C / -P) and of
source image folders. See the sub-modules:

* :mod:`.imagenet` — the 1000 wnids / class index, image-folder scanning, robust image loading
* :mod:`.imagenet_c` — ``<corruption>/<severity>/<wnid>/<file>`` trees
* :mod:`.cifar` — ``<corruption>.npy`` + ``labels.npy``, CIFAR-10-P arrays, CIFAR python batches
* :mod:`.video` — ImageNet-P MP4 writing/reading and the ``<perturbation>[_<d>]/<wnid>/<stem>.mp4`` tree
"""

from __future__ import annotations

from .cifar import (
    load_cifar_c,
    load_cifar_c_labels,
    load_cifar_p,
    read_cifar_batch,
    scan_cifar_c,
    scan_cifar_p,
)
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
from .imagenet_c import ImageNetCIndex, iter_imagenet_c, scan_imagenet_c
from .video import read_mp4, scan_imagenet_p, write_mp4

__all__ = [
    "ImageItem",
    "ImageLoadError",
    "ImageNetCIndex",
    "class_name",
    "imagenet_class_names",
    "imagenet_wnids",
    "index_to_wnid",
    "iter_imagenet_c",
    "load_cifar_c",
    "load_cifar_c_labels",
    "load_cifar_p",
    "load_image",
    "read_cifar_batch",
    "read_mp4",
    "scan_cifar_c",
    "scan_cifar_p",
    "scan_image_folder",
    "scan_imagenet_c",
    "scan_imagenet_p",
    "wnid_to_index",
    "write_mp4",
]
