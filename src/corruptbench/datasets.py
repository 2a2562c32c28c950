"""Deprecated import path of :mod:`corruptbench.formats` and :mod:`corruptbench.layouts`; removed in
version 0.3.0.

Up to version 0.1.0 the file formats and the dataset layouts lived together in
``corruptbench.datasets``, a name readers took for Hugging Face's ``datasets``. The file formats
(JPEG, MP4, image decoding, ``.npy``, tar shards) moved to :mod:`corruptbench.formats`, and each
on-disk layout (ImageNet-C tree, CIFAR-C arrays, ImageNet-P videos, shards) to its module of
:mod:`corruptbench.layouts`. This module keeps the former names importable, as
``corruptbench.datasets`` and as its sub-modules (``corruptbench.datasets.imagenet_c`` ...), and
says where they went.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings

#: former sub-module -> the modules its names moved to
MOVED: dict[str, tuple[str, ...]] = {
    "cifar": ("formats.cifar", "layouts.cifar_c", "layouts.cifar_p"),
    "imagenet": ("formats.imagenet",),
    "imagenet_c": ("layouts.imagenet_c",),
    "images": ("formats.images",),
    "jpeg": ("formats.jpeg",),
    "jpeg_transcoder": ("formats.jpeg_transcoder",),
    "robustbench": ("formats.robustbench",),
    "video": ("formats.video", "layouts.imagenet_p"),
    "webdataset": ("formats.webdataset", "layouts.webdataset"),
}
REMOVED_IN = "0.3.0"


def _alias(sub: str, homes: tuple[str, ...]) -> types.ModuleType:
    where = ", ".join(f"corruptbench.{h}" for h in homes)
    mod = types.ModuleType(f"{__name__}.{sub}", f"Deprecated: moved to {where}.")
    for home in homes:
        new = importlib.import_module(f"corruptbench.{home}")
        for name, value in vars(new).items():
            if not name.startswith("_") and not isinstance(value, types.ModuleType):
                setattr(mod, name, value)
    sys.modules[mod.__name__] = mod
    return mod


for _sub, _homes in MOVED.items():
    globals()[_sub] = _alias(_sub, _homes)

from .formats import *  # noqa: E402, F403
from .formats import __all__ as _formats_all  # noqa: E402
from .layouts.cifar_c import load_cifar_c, load_cifar_c_labels, scan_cifar_c  # noqa: E402
from .layouts.cifar_p import load_cifar_p, scan_cifar_p  # noqa: E402
from .layouts.imagenet_c import ImageNetCIndex, iter_imagenet_c, scan_imagenet_c  # noqa: E402
from .layouts.imagenet_p import scan_imagenet_p  # noqa: E402

__all__ = [
    *_formats_all,
    "ImageNetCIndex",
    "iter_imagenet_c",
    "load_cifar_c",
    "load_cifar_c_labels",
    "load_cifar_p",
    "scan_cifar_c",
    "scan_cifar_p",
    "scan_imagenet_c",
    "scan_imagenet_p",
]

warnings.warn(
    "corruptbench.datasets is deprecated and will be removed in version "
    f"{REMOVED_IN}: import file formats from corruptbench.formats and dataset layouts from "
    "corruptbench.layouts",
    DeprecationWarning,
    stacklevel=2,
)
