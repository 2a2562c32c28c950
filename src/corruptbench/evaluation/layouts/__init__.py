"""Dataset layouts the evaluation reads: one :class:`~.base.Layout` class per layout.

ImageNet-C style (eval-c): :class:`ImageNetCFolder` (``<corruption>/<severity>/<wnid>/<file>``),
:class:`CifarCFolder` (``<corruption>.npy`` + ``labels.npy``), :class:`OnTheFlyC` (a clean source
corrupted in the loader), plus :class:`CleanImages` for the clean error of stored data.
ImageNet-P style (eval-p): :class:`ImageNetPFolder` (MP4 sequences), :class:`CifarPFolder`
(``.npy`` sequences), :class:`OnTheFlyP`. Both: :class:`WebDatasetC` / :class:`WebDatasetP`, the
tar shards of ``--format webdataset`` and ``corruptbench convert`` (a folder with ``shards.json``).

:func:`detect_c` reads eval-c's ``data`` once (a folder's layout: the one detector,
:func:`corruptbench.layouts.detect`, mapped to its reader by :data:`C_FOLDERS`; its suite and
profile), and :func:`open_c_layout` / :func:`open_p_layout` turn it (or eval-p's ``data``) into a
planned layout. A :class:`Selection` with
:class:`ImageIds` (a protocol's fixed images) keeps exactly the items whose relative key
``<wnid>/<file>`` is listed, in every cell, and is refused by data that lacks some of them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import layouts as on_disk
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
from .same_images import check_finished_build
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
    "CData",
    "detect_c",
    "peek_c",
    "open_p_layout",
    "DataArg",
]

#: eval-c's reader of each data layout (:func:`corruptbench.layouts.detect`); any other folder
#: is read as an ImageNet-C tree
C_FOLDERS: dict[str | None, Any] = {
    on_disk.webdataset.NAME: WebDatasetC,
    on_disk.cifar_c.NAME: CifarCFolder,
}
#: eval-p's reader of each data layout; any other folder is read as ImageNet-P (a folder of
#: ``.npy`` arrays with labels is read as CIFAR-10-P arrays too: it names no perturbation)
P_FOLDERS: dict[str | None, Any] = {
    on_disk.webdataset.NAME: WebDatasetP,
    on_disk.cifar_p.NAME: CifarPFolder,
    on_disk.cifar_c.NAME: CifarPFolder,
}

#: eval-c / eval-p's ``data``: a folder, or :class:`OnTheFly` clean images
DataArg = str | os.PathLike[str] | OnTheFly


def _folder(data: str | os.PathLike[str]) -> Path:
    root = Path(data)
    if not root.is_dir():
        raise EvalError(Arg("data"), f" {root}: folder not found")
    return root


@dataclass(frozen=True)
class CData:
    """eval-c's data, read once before it is opened (:func:`detect_c`).

    Attributes:
        data: The folder, or :class:`OnTheFly` clean images.
        reader: The layout class that opens it.
        suite: The corruption suite its names belong to.
        profile: The profile the data records, or None.
    """

    data: DataArg
    reader: Any  #: a Layout class with ``peek`` and ``open``
    suite: str
    profile: str | None


def _c_reader(root: Path) -> Any:
    return C_FOLDERS.get(on_disk.detect(root).layout, ImageNetCFolder)


def peek_c(data: DataArg) -> tuple[str, str | None]:
    """eval-c's data before it is opened: its corruption suite and profile (:func:`detect_c`)."""
    found = detect_c(data)
    return found.suite, found.profile


def detect_c(data: DataArg) -> CData:
    """eval-c's data before it is opened: its reader, its corruption suite, and its profile where
    the data says it.

    The suite is the first registered one (ImageNet-C's first:
    :func:`~corruptbench.registry.corruption_suites`) that has a corruption the data names (its
    top-level folders, ``<corruption>.npy`` files or ``shards.json`` cells), so a folder holding
    any ImageNet-C name is read as ImageNet-C; clean images corrupted on the fly, and data that
    names none, are ``imagenet_c``. The profile: ``cifar`` for a CIFAR-C folder, what a shard index
    or a make-c ``manifest.json`` records, the source's
    (:func:`~.on_the_fly.default_profile`) on the fly; else None.
    """
    if isinstance(data, OnTheFly):
        return CData(data, OnTheFlyC, "imagenet_c", default_profile(data.open()))
    root = _folder(data)
    cls = _c_reader(root)
    names, profile = cls.peek(root)
    for suite in corruption_suites():
        if names & {s.name for s in corruption_specs(suite)}:
            return CData(root, cls, suite, profile)
    return CData(root, cls, "imagenet_c", profile)


def open_c_layout(
    data: DataArg | CData, sel: Selection, num_classes: int | None, profile: str | None
) -> Layout:
    """The planned ImageNet-C style layout of ``data`` (a folder, :class:`OnTheFly`, or what
    :func:`detect_c` read of them: the folder is then not detected again)."""
    found, raw = (data, data.data) if isinstance(data, CData) else (None, data)
    if isinstance(raw, OnTheFly):
        return OnTheFlyC.open(raw.open(), sel, num_classes, profile)
    root = _folder(raw)
    check_finished_build(root)
    cls = found.reader if found is not None else _c_reader(root)
    return cls.open(root, sel, num_classes, profile)  # type: ignore[no-any-return]


def open_p_layout(
    data: DataArg, sel: Selection, profile: str | None, notes: list[str] | None = None
) -> Layout:
    """The planned ImageNet-P style layout of ``data``; ``notes`` start the layout's notes."""
    if isinstance(data, OnTheFly):
        return OnTheFlyP.open(data.open(), sel, profile, list(notes or []))
    root = _folder(data)
    check_finished_build(root)
    cls = P_FOLDERS.get(on_disk.detect(root).layout, ImageNetPFolder)
    lay: Layout = cls.open(root, sel, profile)
    if not lay.cells:
        raise EvalError(
            f"{root}: no requested perturbation found (ImageNet-P: <perturbation>[_<d>]/<wnid>/*.mp4; "
            "CIFAR-10-P: <perturbation>.npy)"
        )
    return lay
