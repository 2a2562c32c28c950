"""The on-disk layouts of corruption datasets: one module per layout, and the one detector.

Each module holds what a layout is: how it is recognised (``detect(root)``: its name or None),
how it is scanned, its known counts, and the names writers give its files:

* :mod:`.imagenet_c` — ``<corruption>/<severity>/<wnid>/<file>`` (ImageNet-C, Tiny-ImageNet-C,
  ImageNet-C-bar, make-c ``--format jpeg``), its level folder namings (``3`` or ``2.35``)
* :mod:`.cbar` — the released ImageNet-C-bar (the tree above with its 10 corruptions)
* :mod:`.cifar_c` — ``<corruption>.npy`` + ``labels.npy`` (CIFAR-10-C / -100-C, CIFAR-10-C-bar,
  make-c ``--format npy``)
* :mod:`.cifar_p` — ``<perturbation>[_<d>].npy`` (CIFAR-10-P, make-p ``--format npy``)
* :mod:`.imagenet_p` — ``<perturbation>[_<d>]/<wnid>/<stem>.mp4`` (ImageNet-P, make-p)
* :mod:`.mnist_c` — ``<corruption>/{train,test}_{images,labels}.npy``
* :mod:`.webdataset` — tar shards listed in ``shards.json`` (``--format webdataset``, convert)
* :mod:`.build` — a make-c / make-p build's ``manifest.json`` and ``skipped.csv`` (beside any of
  the above)

:func:`detect` asks the modules in :data:`DETECTORS` order and is what evaluation, ``verify``,
``convert`` and the builders call; a new layout is a new module added there. The file formats
inside (JPEG, MP4, tar, ``.npy``) are :mod:`corruptbench.formats`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import build, cbar, cifar_c, cifar_p, imagenet_c, imagenet_p, mnist_c, webdataset
from .common import IMAGE_EXTENSIONS, visible_dirs

__all__ = [
    "Detected",
    "DETECTORS",
    "LAYOUT_NAMES",
    "IMAGE_EXTENSIONS",
    "detect",
    "find",
    "build",
    "cbar",
    "cifar_c",
    "cifar_p",
    "imagenet_c",
    "imagenet_p",
    "mnist_c",
    "webdataset",
]

#: the detectors, in the order they are asked (the first layout that answers wins)
DETECTORS: tuple[Callable[[Path], str | None], ...] = (
    webdataset.detect,
    cifar_c.detect,
    mnist_c.detect,
    cbar.detect,
    imagenet_c.detect,
    imagenet_p.detect,
    cifar_p.detect,  # last: a tree with a stray .npy beside it is still the tree
)
#: every name :func:`detect` can give
LAYOUT_NAMES: tuple[str, ...] = (
    webdataset.NAME,
    cifar_c.NAME,
    cifar_p.NAME,
    mnist_c.NAME,
    cbar.NAME,
    imagenet_c.NAME,
    imagenet_c.TINY_NAME,
    imagenet_p.NAME,
)


@dataclass(frozen=True)
class Detected:
    """What :func:`detect` found in ``root``.

    Attributes:
        root: The folder.
        layout: The data's layout (a name of :data:`LAYOUT_NAMES`), or None.
        build: Whether a make-c / make-p build's ``manifest.json`` is beside the data.
    """

    root: Path
    layout: str | None
    build: bool

    @property
    def known(self) -> bool:
        return self.layout is not None or self.build


def detect(root: str | os.PathLike[str]) -> Detected:
    """The layout of the folder ``root`` (which must exist)."""
    path = Path(root)
    layout = next((name for d in DETECTORS if (name := d(path)) is not None), None)
    return Detected(path, layout, build.is_build(path))


def find(root: str | os.PathLike[str]) -> tuple[Detected, list[str]]:
    """The layout of ``root``, or of its only sub-folder (as an archive extracts it: then a note
    says so); a :class:`Detected` with ``known`` false when neither is recognised."""
    found = detect(root)
    if found.known:
        return found, []
    subs = visible_dirs(Path(root))
    if len(subs) == 1 and (inner := detect(Path(root) / subs[0])).known:
        return inner, [f"the data is in {subs[0]}/, checked there"]
    return found, []
