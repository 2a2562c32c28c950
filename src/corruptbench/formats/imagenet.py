"""ImageNet class index and image-folder scanning/loading.

* :func:`imagenet_wnids` — the sorted 1000 ILSVRC-2012 wnids (package data ``data/imagenet_wnids.txt``);
  the standard class index of a wnid is its position in that list (the order torchvision and every
  ImageNet checkpoint use). :func:`wnid_to_index`, :func:`index_to_wnid`, :func:`class_name`.
* :func:`scan_image_folder` — list the images of a folder in a fixed order: class sub-folders
  (``<root>/<class>/<file>``, the ImageNet val layout; classes and files sorted by name, as the
  reference's ``find_classes``/``make_dataset``) or a flat folder of files (sorted).
* :func:`load_image` — open one file as a PIL RGB image (``.convert('RGB')`` like the reference) or
  raise :class:`ImageLoadError` with a short reason (from :mod:`.images`, which reads every image
  file of the package and converts 16-bit input correctly).

The wnid list and the class names (first WordNet lemma) were taken from the synset files shipped
with the ``timm`` wheel (``timm/data/_info/imagenet_synsets.txt`` / ``imagenet_synset_to_lemma.txt``,
Apache-2.0); they are verified to be 1000 sorted unique entries.
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .images import ImageLoadError, load_image

__all__ = [
    "IMAGE_EXTENSIONS",
    "ImageLoadError",
    "ImageItem",
    "BrokenEntry",
    "FolderScan",
    "broken_link",
    "imagenet_wnids",
    "imagenet_class_names",
    "wnid_to_index",
    "index_to_wnid",
    "class_name",
    "is_wnid",
    "wnid_from_name",
    "scan_image_folder",
    "load_image",
]

#: file extensions (lower case) that :func:`scan_image_folder` treats as images; others are ignored
IMAGE_EXTENSIONS: tuple[str, ...] = (
    ".jpg",
    ".jpeg",
    ".png",
    ".ppm",
    ".pgm",
    ".pbm",
    ".bmp",
    ".tif",
    ".tiff",
    ".webp",
    ".gif",
)

_WNID_RE = re.compile(r"^n\d{8}$")
_WNID_PREFIX_RE = re.compile(r"^(n\d{8})(?=[_.\-])")


@lru_cache(maxsize=1)
def imagenet_wnids() -> tuple[str, ...]:
    """The 1000 ILSVRC-2012 wnids, sorted (index = standard class index)."""
    text = resources.files("corruptbench").joinpath("data/imagenet_wnids.txt").read_text("ascii")
    wnids = tuple(line.strip() for line in text.splitlines() if line.strip())
    if len(wnids) != 1000 or list(wnids) != sorted(set(wnids)):  # pragma: no cover - data check
        raise RuntimeError(
            "corrupt package data: imagenet_wnids.txt must hold 1000 sorted unique wnids"
        )
    return wnids


@lru_cache(maxsize=1)
def _wnid_index() -> dict[str, int]:
    return {w: i for i, w in enumerate(imagenet_wnids())}


@lru_cache(maxsize=1)
def imagenet_class_names() -> tuple[str, ...]:
    """Human-readable names (first WordNet lemma, e.g. ``tench``) in class-index order."""
    text = (
        resources.files("corruptbench").joinpath("data/imagenet_class_names.txt").read_text("utf-8")
    )
    names = {}
    for line in text.splitlines():
        if "\t" in line:
            wnid, lemmas = line.split("\t", 1)
            names[wnid] = lemmas.split(",")[0].strip()
    return tuple(names.get(w, w) for w in imagenet_wnids())


def is_wnid(name: str) -> bool:
    """Whether ``name`` looks like a WordNet id (``n`` + 8 digits)."""
    return bool(_WNID_RE.match(name))


def wnid_to_index(wnid: str) -> int:
    """Standard ImageNet-1k class index (0..999) of ``wnid``; ValueError if it is not one of the 1000."""
    try:
        return _wnid_index()[wnid]
    except KeyError:
        raise ValueError(f"{wnid!r} is not one of the 1000 ILSVRC-2012 wnids") from None


def index_to_wnid(index: int) -> str:
    """Inverse of :func:`wnid_to_index`."""
    if not 0 <= int(index) < 1000:
        raise ValueError(f"ImageNet class index must be in 0..999, got {index}")
    return imagenet_wnids()[int(index)]


def class_name(wnid_or_index: str | int) -> str:
    """Readable class name of a wnid or class index."""
    idx = wnid_or_index if isinstance(wnid_or_index, int) else wnid_to_index(wnid_or_index)
    return imagenet_class_names()[int(idx)]


def wnid_from_name(file_name: str) -> str | None:
    """The wnid a file name starts with (``n01440764_tench.JPEG`` -> ``n01440764``), else None."""
    m = _WNID_PREFIX_RE.match(file_name)
    return m.group(1) if m else None


@dataclass(frozen=True)
class ImageItem:
    """One source image.

    ``rel`` is the POSIX relative path that names the item in outputs and seeds its randomness
    (``<class>/<file>``, or ``<file>`` for a flat folder without class prefixes). ``label`` is the
    class folder name / wnid, or None when unknown.
    """

    path: Path
    rel: str
    label: str | None


@dataclass(frozen=True)
class BrokenEntry:
    """An entry of a source folder that cannot be opened (a symbolic link loop, a dangling link):
    ``rel`` as an item there would be named, ``path`` the entry, ``reason`` one line."""

    path: Path
    rel: str
    reason: str


@dataclass
class FolderScan:
    """Result of :func:`scan_image_folder`."""

    root: Path
    items: list[ImageItem]
    layout: str  #: "classes" (class sub-folders) or "flat"
    classes: list[str]  #: sorted class names ([] for a flat folder without wnid prefixes)
    ignored: list[Path]  #: files skipped because their extension is not an image extension
    #: symbolic links that lead nowhere (loops, missing targets): skipped, with the reason
    broken: list[BrokenEntry] = field(default_factory=list)


def broken_link(path: str | os.PathLike[str]) -> str | None:
    """Why the symbolic link ``path`` cannot be followed (``"symbolic link loop"``, ``"dangling
    symbolic link to 'x.jpg' (no such file)"``), or None when it can be (or is no link)."""
    try:
        os.stat(path)
        return None
    except OSError as exc:
        if not os.path.islink(path):
            return None
        if exc.errno == errno.ELOOP:
            return "symbolic link loop (too many levels of symbolic links)"
        try:
            target = os.readlink(path)
        except OSError:  # pragma: no cover - removed meanwhile
            target = "?"
        why = "no such file" if exc.errno == errno.ENOENT else exc.strerror
        return f"dangling symbolic link to {target!r} ({why})"


def _visible(entries: Sequence[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    return [e for e in entries if not e.name.startswith(".")]


def _split_broken(
    entries: Sequence[os.DirEntry[str]], rel: str
) -> tuple[list[os.DirEntry[str]], list[BrokenEntry]]:
    """``entries`` that can be followed, and the broken symbolic links among them (named
    ``rel/<name>``; a loop would make ``is_dir()`` raise)."""
    good, broken = [], []
    for e in entries:
        why = broken_link(e.path) if e.is_symlink() else None
        if why is None:
            good.append(e)
        else:
            broken.append(BrokenEntry(Path(e.path), f"{rel}{e.name}", why))
    return good, broken


def _is_image_name(name: str, extensions: Sequence[str]) -> bool:
    return os.path.splitext(name)[1].lower() in extensions


def scan_image_folder(
    root: str | os.PathLike[str], *, extensions: Sequence[str] = IMAGE_EXTENSIONS
) -> FolderScan:
    """List the images under ``root`` in a deterministic order.

    Layouts:

    * **class sub-folders** (``root/<class>/<file>``, e.g. ImageNet val by wnid): used when ``root``
      has visible sub-folders; classes sorted by name, files sorted by name inside each class
      (the reference's ``find_classes`` + ``make_dataset``). Files directly in ``root`` are then
      ignored (listed in ``ignored``). Nested folders below a class are not descended into.
    * **flat folder**: files sorted by name. When every file name starts with a wnid
      (``n01440764_tench.JPEG``) the wnid is the label and ``rel`` becomes ``<wnid>/<file>`` so
      outputs follow the ImageNet-C layout; otherwise ``rel`` is the file name and label None.

    Hidden files and folders (name starting with ``.``) are skipped. Files whose extension is not
    in ``extensions`` (case-insensitive) are not images by name and land in ``ignored``; a file
    with an image extension but bad content is only discovered by :func:`load_image`. Symbolic
    links that cannot be followed (loops, missing targets) land in ``broken`` with the reason
    (:func:`broken_link`), whatever their name.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"image folder not found: {root}")
    exts = tuple(e.lower() for e in extensions)
    with os.scandir(root) as it:
        entries, broken = _split_broken(sorted(_visible(list(it)), key=lambda e: e.name), "")
    dirs = [e for e in entries if e.is_dir()]
    files = [e for e in entries if e.is_file()]
    items: list[ImageItem] = []
    ignored: list[Path] = []
    if dirs:
        classes = [d.name for d in dirs]
        ignored.extend(Path(f.path) for f in files)
        for d in dirs:
            with os.scandir(d.path) as it:
                sub, bad = _split_broken(
                    sorted(_visible(list(it)), key=lambda e: e.name), f"{d.name}/"
                )
            broken.extend(bad)
            for f in sub:
                if not f.is_file():
                    continue
                if _is_image_name(f.name, exts):
                    items.append(ImageItem(Path(f.path), f"{d.name}/{f.name}", d.name))
                else:
                    ignored.append(Path(f.path))
        return FolderScan(root, items, "classes", classes, ignored, broken)
    images = [f for f in files if _is_image_name(f.name, exts)]
    ignored = [Path(f.path) for f in files if not _is_image_name(f.name, exts)]
    wnids = [wnid_from_name(f.name) for f in images]
    if images and all(wnids):
        items = [ImageItem(Path(f.path), f"{w}/{f.name}", w) for f, w in zip(images, wnids)]
        classes = sorted({w for w in wnids if w})
    else:
        items = [ImageItem(Path(f.path), f.name, None) for f in images]
        classes = []
    return FolderScan(root, items, "flat", classes, ignored, broken)
