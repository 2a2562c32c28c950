"""Dataset layouts the evaluation reads: one :class:`~.base.Layout` class per layout.

ImageNet-C style (eval-c): :class:`ImageNetCFolder` (``<corruption>/<severity>/<wnid>/<file>``),
:class:`CifarCFolder` (``<corruption>.npy`` + ``labels.npy``), :class:`OnTheFlyC` (a clean source
corrupted in the loader), plus :class:`CleanImages` for the clean error of stored data.
ImageNet-P style (eval-p): :class:`ImageNetPFolder` (MP4 sequences), :class:`CifarPFolder`
(``.npy`` sequences), :class:`OnTheFlyP`. Both: :class:`WebDatasetC` / :class:`WebDatasetP`, the
tar shards of ``--format webdataset`` and ``corruptbench convert`` (a folder with ``shards.json``).

:func:`open_c_layout` / :func:`open_p_layout` turn eval-c's / eval-p's ``data`` (a folder, or
:class:`OnTheFly`) into a planned layout; a folder's layout is detected by the first class in
:data:`C_FOLDERS` / :data:`P_FOLDERS` whose ``detect(root)`` is true. A :class:`Selection` with
:class:`ImageIds` (a protocol's fixed images) keeps exactly the items whose relative key
``<wnid>/<file>`` is listed, in every cell, and is refused by data that lacks some of them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import Arg
from ...registry import corruption_specs, corruption_suites
from ..common import EvalError
from .base import ImageIds, Item, Layout, OnTheFly, Selection
from .cifar_c import CifarCFolder
from .cifar_p import CifarPFolder
from .clean import CleanImages
from .imagenet_c import ImageNetCFolder
from .imagenet_p import ImageNetPFolder
from .on_the_fly import OnTheFlyC, OnTheFlyP, default_profile
from .webdataset import WebDatasetC, WebDatasetP

__all__ = [
    "Item",
    "Layout",
    "Selection",
    "ImageIds",
    "OnTheFly",
    "ImageNetCFolder",
    "CifarCFolder",
    "OnTheFlyC",
    "CleanImages",
    "ImageNetPFolder",
    "CifarPFolder",
    "OnTheFlyP",
    "WebDatasetC",
    "WebDatasetP",
    "C_FOLDERS",
    "P_FOLDERS",
    "open_c_layout",
    "peek_c",
    "open_p_layout",
    "DataArg",
]

#: folder layouts of eval-c, in detection order
C_FOLDERS = (WebDatasetC, CifarCFolder, ImageNetCFolder)
#: folder layouts of eval-p, in detection order
P_FOLDERS = (WebDatasetP, CifarPFolder, ImageNetPFolder)

#: eval-c / eval-p's ``data``: a folder, or :class:`OnTheFly` clean images
DataArg = str | os.PathLike[str] | OnTheFly


def _folder(data: str | os.PathLike[str]) -> Path:
    root = Path(data)
    if not root.is_dir():
        raise EvalError(Arg("data"), f" {root}: folder not found")
    return root


def peek_c(data: DataArg) -> tuple[str, str | None]:
    """eval-c's data before it is opened: its corruption suite, and its profile where the data
    says it.

    The suite is the first registered one (ImageNet-C's first:
    :func:`~corruptbench.registry.corruption_suites`) that has a corruption the data names (its
    top-level folders, ``<corruption>.npy`` files or ``shards.json`` cells), so a folder holding
    any ImageNet-C name is read as ImageNet-C; clean images corrupted on the fly, and data that
    names none, are ``imagenet_c``. The profile: ``cifar`` for a CIFAR-C folder, what a shard index
    or a make-c ``manifest.json`` records, the source's
    (:func:`~.on_the_fly.default_profile`) on the fly; else None.
    """
    if isinstance(data, OnTheFly):
        return "imagenet_c", default_profile(data.open())
    root = _folder(data)
    cls = next(c for c in C_FOLDERS if c.detect(root))
    names, profile = cls.peek(root)
    for suite in corruption_suites():
        if names & {s.name for s in corruption_specs(suite)}:
            return suite, profile
    return "imagenet_c", profile


def open_c_layout(
    data: DataArg, sel: Selection, num_classes: int | None, profile: str | None
) -> Layout:
    """The planned ImageNet-C style layout of ``data`` (a folder, or :class:`OnTheFly`)."""
    if isinstance(data, OnTheFly):
        return OnTheFlyC.open(data.open(), sel, num_classes, profile)
    root = _folder(data)
    cls = next(c for c in C_FOLDERS if c.detect(root))
    return cls.open(root, sel, num_classes, profile)


def open_p_layout(
    data: DataArg, sel: Selection, profile: str | None, notes: list[str] | None = None
) -> Layout:
    """The planned ImageNet-P style layout of ``data``; ``notes`` start the layout's notes."""
    if isinstance(data, OnTheFly):
        return OnTheFlyP.open(data.open(), sel, profile, list(notes or []))
    root = _folder(data)
    cls = next(c for c in P_FOLDERS if c.detect(root))
    lay = cls.open(root, sel, profile)
    if not lay.cells:
        raise EvalError(
            f"{root}: no requested perturbation found (ImageNet-P: <perturbation>[_<d>]/<wnid>/*.mp4; "
            "CIFAR-10-P: <perturbation>.npy)"
        )
    return lay
