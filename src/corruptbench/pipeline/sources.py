"""Dataset sources: the clean images a build or an evaluation starts from.

A :class:`Source` is a list of :class:`SourceItem` (relative path, file or pixels, label) plus a
fingerprint of the whole source. Four kinds:

* ``"folder"`` — an image folder, flat or with one sub-folder per class (:func:`open_source`);
* ``"tree"`` — every image of a folder tree at any depth, plus the non-image files to carry over
  (:func:`open_tree`; make-c ``--layout tree``);
* ``"cifar-batch"`` — a CIFAR python batch file such as ``test_batch`` (:func:`open_source`; a
  pickle, so only files you trust);
* ``"arrays"`` — images already in memory (:func:`arrays_source`).

The relative path names an item's outputs and seeds its randomness (see
:func:`corruptbench.pipeline.items.item_seed`).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

from ..errors import ArgumentError
from ..formats.cifar import is_cifar_batch, read_cifar_batch
from ..formats.imagenet import (
    IMAGE_EXTENSIONS,
    BrokenEntry,
    broken_link,
    is_wnid,
    load_image,
    scan_image_folder,
    wnid_to_index,
)
from ..formats.images import ImageLoadError, image_size
from ..layouts.build import selected_by

__all__ = [
    "SourceError",
    "SourceItem",
    "Source",
    "open_source",
    "open_tree",
    "arrays_source",
    "spread_subset",
    "hash_lines",
    "folder_label_kind",
    "batch_rel",
]


class SourceError(ArgumentError):
    """A source cannot be opened (not found, not images, not a CIFAR batch, ...)."""


def hash_lines(lines: Iterable[str]) -> str:
    """BLAKE2b-128 hex digest of the lines (each UTF-8 encoded, newline-terminated)."""
    h = hashlib.blake2b(digest_size=16)
    for line in lines:
        h.update(line.encode("utf-8", "surrogateescape") + b"\n")
    return h.hexdigest()


@dataclass(frozen=True)
class SourceItem:
    """One source image: relative path (names outputs, seeds randomness), file or pixels, label."""

    index: int
    rel: str
    path: str | None = None
    array: np.ndarray | None = field(default=None, compare=False)
    label: str | int | None = None

    @property
    def where(self) -> str:
        """The file, or ``#<index>`` for an image held in memory (for messages and skip lists)."""
        return self.path or f"#{self.index}"

    def size(self) -> tuple[int, int] | None:
        """``(width, height)`` without decoding the pixels (a file's header), None if unreadable."""
        if self.array is not None:
            return int(self.array.shape[1]), int(self.array.shape[0])
        try:
            return image_size(self.path)  # type: ignore[arg-type]
        except ImageLoadError:
            return None

    def image(self) -> Image.Image:
        """Decode the item (:class:`~corruptbench.formats.imagenet.ImageLoadError` on bad input)."""
        if self.array is not None:
            return Image.fromarray(np.asarray(self.array, dtype=np.uint8))
        return load_image(self.path)  # type: ignore[arg-type]


@dataclass
class Source:
    """The items of one source and what is known about their labels.

    ``label_kind``: ``"imagenet"`` (class folders named by ImageNet wnids), ``"classes"`` (other
    class folders), ``"batch"`` (integer labels of a CIFAR batch or of arrays) or ``"none"``.
    """

    kind: str  #: "folder", "tree", "cifar-batch" or "arrays"
    root: Path
    items: list[SourceItem]
    fingerprint: str
    ignored: list[Path] = field(default_factory=list)
    label_kind: str = "none"
    classes: list[str] = field(default_factory=list)
    #: files carried over unchanged (a tree's ``copy_files``: annotations, label masks, ...)
    copied: list[SourceItem] = field(default_factory=list)
    #: symbolic links that lead nowhere (loops, missing targets): not items; builds list them as
    #: skipped (:func:`corruptbench.formats.imagenet.broken_link`)
    broken: list[BrokenEntry] = field(default_factory=list)

    def numeric_labels(self, items: Sequence[SourceItem]) -> np.ndarray | None:
        """Labels as integers (ImageNet index for wnids, batch labels, sorted-class index)."""
        if self.label_kind == "none":
            return None
        if self.label_kind == "batch":
            vals = [int(it.label) for it in items]  # type: ignore[arg-type]
        elif self.label_kind == "imagenet":
            vals = [wnid_to_index(str(it.label)) for it in items]
        else:
            pos = {c: i for i, c in enumerate(self.classes)}
            vals = [pos[str(it.label)] for it in items]
        arr = np.asarray(vals, dtype=np.int64)
        return arr.astype(np.uint8) if arr.size == 0 or arr.max() < 256 else arr


def _file_digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def open_source(src: str | os.PathLike[str]) -> Source:
    """Open a make-c/make-p source: an image folder (class sub-folders or flat) or a CIFAR python
    batch file (``test_batch``; read with pickle — only pass files you trust).

    Raises:
        SourceError: missing path, a file that is not a CIFAR batch, a folder without images.
    """
    p = Path(src)
    if p.is_file():
        if not is_cifar_batch(p):
            raise SourceError(
                f"{p} is a file but not a CIFAR python batch (test_batch); pass a folder of images"
            )
        try:
            images, labels = read_cifar_batch(p)
        except ValueError as exc:
            raise SourceError(str(exc)) from None
        items = [
            SourceItem(i, batch_rel(i, int(lab)), None, images[i], int(lab))
            for i, lab in enumerate(labels)
        ]
        return Source("cifar-batch", p, items, _file_digest(p), label_kind="batch")
    if not p.exists():
        raise SourceError(f"source not found: {p}")
    scan = scan_image_folder(p)
    if not scan.items:
        raise SourceError(f"no image files found in {p}")
    items = [SourceItem(i, it.rel, str(it.path), None, it.label) for i, it in enumerate(scan.items)]
    fp = hash_lines(f"{it.rel}\t{os.stat(it.path).st_size}" for it in items)  # type: ignore[arg-type]
    label_kind = folder_label_kind([it.label for it in items])
    return Source(
        "folder", p, items, fp, scan.ignored, label_kind, list(scan.classes), broken=scan.broken
    )


def spread_subset(items: Sequence[SourceItem], limit: int | None, seed: int) -> list[SourceItem]:
    """``limit`` of ``items`` chosen by ``seed`` and spread evenly over their labels (classes).

    Each class's items are ranked by ``blake2b(f"{seed}|{rel}")`` and the classes by
    ``blake2b(f"{seed}|class|{label}")``; the subset takes the first-ranked item of every class in
    class rank order, then the second of every class, and so on, so class sizes differ by at most
    one (unless a class runs out). The chosen items keep their order in ``items``. An item's
    choice depends only on the seed, its relative path and the labels present, not on the order
    of ``items``. All items when ``limit`` is None or not smaller than ``len(items)``.
    """
    if limit is None or limit >= len(items):
        return list(items)

    def rank(text: str) -> bytes:
        return hashlib.blake2b(f"{int(seed)}|{text}".encode(), digest_size=8).digest()

    groups: dict[str, list[SourceItem]] = {}
    for it in items:
        groups.setdefault(str(it.label), []).append(it)
    ranked = [
        sorted(members, key=lambda it: rank(it.rel))
        for _, members in sorted(groups.items(), key=lambda kv: rank(f"class|{kv[0]}"))
    ]
    chosen: set[int] = set()
    depth = 0
    while len(chosen) < limit:
        for members in ranked:
            if depth < len(members) and len(chosen) < limit:
                chosen.add(id(members[depth]))
        depth += 1
    return [it for it in items if id(it) in chosen]


def open_tree(src: str | os.PathLike[str], copy_files: Sequence[str] = ()) -> Source:
    """Open a folder tree of any depth (COCO, Pascal VOC, Cityscapes, ...) for make-c ``--layout
    tree``: every image file at any depth is an item (``rel`` = its POSIX path under ``src``,
    sorted), except the files selected by ``copy_files``, which are carried over unchanged
    (:attr:`Source.copied`).

    Args:
        src: the dataset root.
        copy_files: glob patterns matched (case-sensitively, :func:`fnmatch.fnmatchcase`, where
            ``*`` also matches ``/``) against each file's relative path and against each of its
            parent folders: ``annotations`` or ``annotations/*`` selects everything under
            ``annotations/``, ``*.json`` every JSON file, ``gtFine`` the label PNGs of Cityscapes.
            Image files selected here are copied, not corrupted.

    Hidden files and folders (``.name``) are skipped; symbolic links to files are followed, to
    folders not; links that cannot be followed (loops, missing targets) are listed in
    :attr:`Source.broken`. Files that are neither images (:data:`IMAGE_EXTENSIONS`) nor selected
    are listed in :attr:`Source.ignored`.

    Raises:
        SourceError: ``src`` is not a folder, holds no image, or a pattern selects no file.
    """
    root = Path(src)
    if not root.is_dir():
        raise SourceError(
            f"source not found: {root}"
            if not root.exists()
            else f"{root} is not a folder (--layout tree takes a dataset folder)"
        )
    files: list[str] = []
    broken: list[BrokenEntry] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        rel_dir = os.path.relpath(dirpath, root)
        for f in filenames:  # os.walk lists a link it cannot follow (even a loop) as a file
            if f.startswith("."):
                continue
            rel = f if rel_dir == "." else f"{rel_dir}/{f}".replace(os.sep, "/")
            path = os.path.join(dirpath, f)
            if os.path.isfile(path):
                files.append(rel)
            elif (why := broken_link(path)) is not None:
                broken.append(BrokenEntry(Path(path), rel, why))
    broken.sort(key=lambda b: b.rel)
    files.sort()
    used: set[str] = set()
    images: list[str] = []
    copied: list[str] = []
    ignored: list[Path] = []
    for rel in files:
        pat = selected_by(rel, copy_files)
        if pat is not None:
            used.add(pat)
            copied.append(rel)
        elif os.path.splitext(rel)[1].lower() in IMAGE_EXTENSIONS:
            images.append(rel)
        else:
            ignored.append(root / rel)
    unused = [p for p in copy_files if p not in used]
    if unused:
        raise SourceError(
            f"copy_files pattern {unused[0]!r} selects no file under {root} (patterns are matched "
            "against paths relative to it, e.g. 'annotations' or 'labels/*.txt')"
        )
    if not images:
        raise SourceError(f"no image files found under {root}")
    items = [SourceItem(i, rel, str(root / rel)) for i, rel in enumerate(images)]
    copies = [SourceItem(i, rel, str(root / rel)) for i, rel in enumerate(copied)]
    fp = hash_lines(
        [f"{it.rel}\t{os.stat(it.path).st_size}" for it in items]  # type: ignore[arg-type]
        + [f"copy\t{it.rel}\t{os.stat(it.path).st_size}" for it in copies]  # type: ignore[arg-type]
    )
    return Source("tree", root, items, fp, ignored, copied=copies, broken=broken)


def folder_label_kind(labels: Sequence[str | int | None]) -> str:
    """The :attr:`Source.label_kind` of class folder names: ``"imagenet"`` when all are ImageNet
    wnids, ``"classes"`` when all have a class, else ``"none"``."""
    if all(lab is not None and is_wnid(str(lab)) for lab in labels):
        try:
            for lab in set(labels):
                wnid_to_index(str(lab))
            return "imagenet"
        except ValueError:
            return "classes"
    if all(lab is not None for lab in labels):
        return "classes"
    return "none"


def batch_rel(index: int, label: int) -> str:
    """The relative path that names image ``index`` of a CIFAR batch: ``"<label>/<index:05d>.png"``
    (it names the item's outputs and seeds; the suffix never reaches npy outputs)."""
    return f"{int(label)}/{int(index):05d}.png"


def arrays_source(
    images: Sequence[np.ndarray],
    *,
    names: Sequence[str] | None = None,
    labels: Sequence[int] | None = None,
    root: str = "(in memory)",
) -> Source:
    """A source of images held in memory (uint8 ``(H, W, 3)`` arrays, any sizes).

    Args:
        images: The images.
        names: Relative paths of the items (default ``00000.png``, ``00001.png``, ...).
        labels: Integer class labels (``label_kind="batch"``), or ``None``.
        root: What to show as the source's location.
    """
    if names is not None and len(names) != len(images):
        raise ValueError(f"{len(names)} names for {len(images)} images")
    if labels is not None and len(labels) != len(images):
        raise ValueError(f"{len(labels)} labels for {len(images)} images")
    h = hashlib.blake2b(digest_size=16)
    items = []
    for i, img in enumerate(images):
        arr = np.ascontiguousarray(img, dtype=np.uint8)
        h.update(f"{arr.shape}".encode())
        h.update(arr.tobytes())
        rel = names[i] if names is not None else f"{i:05d}.png"
        items.append(SourceItem(i, rel, None, arr, None if labels is None else int(labels[i])))
    return Source(
        "arrays", Path(root), items, h.hexdigest(), label_kind="none" if labels is None else "batch"
    )
