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

:func:`detect` asks the layout modules in their ``DETECT_ORDER`` (:data:`DETECTORS`, found in
this package, not listed) and is what evaluation, ``verify``, ``convert`` and the builders call;
a new layout is a new module with ``NAME``, ``DETECT_ORDER`` and ``detect``, and its test file. The file formats
inside (JPEG, MP4, tar, ``.npy``) are :mod:`corruptbench.formats`.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

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


def _layout_modules() -> list[ModuleType]:
    """Every module of this package that is a layout (it has ``detect`` and ``DETECT_ORDER``),
    in that order: found, not listed, so a new layout is its module (and its test file)."""
    found = [
        importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)
    ]
    mods = [m for m in found if hasattr(m, "detect") and hasattr(m, "DETECT_ORDER")]
    return sorted(mods, key=lambda m: (m.DETECT_ORDER, m.__name__))


_LAYOUTS = _layout_modules()
#: the detectors, in the order they are asked (the first layout that answers wins)
DETECTORS: tuple[Callable[[Path], str | None], ...] = tuple(m.detect for m in _LAYOUTS)
#: every name :func:`detect` can give
LAYOUT_NAMES: tuple[str, ...] = tuple(
    name for m in _LAYOUTS for name in getattr(m, "NAMES", (m.NAME,))
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
