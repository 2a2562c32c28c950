"""``torch.utils.data.Dataset`` s of the released layouts: ImageNet-C, CIFAR-10/100-C, ImageNet-P,
ImageNet-C-bar and CIFAR-10-C-bar.

One dataset is one cell of the benchmark (a corruption at a severity, a perturbation at a
difficulty), as the papers' evaluation loops read it. Items are ``(image, label)`` with a PIL
image (what ``transform`` makes of it when given) and the class index:

* ImageNet-C / ImageNet-P: the **standard ImageNet-1k index of the wnid folder** (its position in
  the sorted list of the 1000 ILSVRC-2012 wnids), whichever classes are present. torchvision's
  ``ImageFolder`` numbers the folders it finds instead, which is only right when all 1000 are
  there: on a build of a class subset its labels are wrong for a 1000-class model.
  ``classes="folders"`` gives ImageFolder's numbering on purpose (e.g. Tiny-ImageNet-C's 200).
* CIFAR-10-C / CIFAR-100-C: ``labels.npy``. Each ``<corruption>.npy`` holds ``5 x N`` images in
  severity order (the release: N = 10,000); N is read from ``labels.npy`` (a file of another
  length is refused, never truncated or padded), so a build of any number of images works.
* ImageNet-C-bar / CIFAR-10-C-bar (:class:`ImageNetCBar`, :class:`CIFAR10CBar`): the same layouts
  with the 30 corruptions of suite ``cbar``; ImageNet-C-bar's level folders may be ``1``..``5``
  or named by the level (``2.35``, as make_imagenet_c_bar.py writes them).

Errors name the argument: a missing ``root`` or cell raises ``FileNotFoundError`` saying what is
there; a bad name, severity or array length raises
:class:`~corruptbench.errors.ArgumentError` (a ``ValueError``).

Examples:
    >>> from corruptbench.torch import ImageNetC
    >>> ds = ImageNetC("/data/ImageNet-C", "fog", 3)  # doctest: +SKIP
    >>> image, label = ds[0]  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset

from ..errors import Arg, ArgumentError
from ..formats.cifar import load_npy
from ..formats.imagenet import imagenet_wnids, load_image, wnid_to_index
from ..grid import DIFFICULTIES, SEVERITIES, GridError, resolve_name
from ..layouts import IMAGE_EXTENSIONS, cifar_c
from ..layouts.imagenet_c import level_dirname, level_folders
from ..layouts.imagenet_p import VIDEO_EXTENSION, perturbation_dirname
from ..perturbations import NOISE_PERTURBATIONS

__all__ = [
    "ImageNetC",
    "CIFAR10C",
    "CIFAR100C",
    "ImageNetP",
    "ImageNetCBar",
    "CIFAR10CBar",
    "CLASS_INDEX",
]

Transform = Callable[[Any], Any] | None

#: ``classes=`` choices of :class:`ImageNetC` / :class:`ImageNetP`
CLASS_INDEX = ("imagenet", "folders")


def _name(value: str, kind: str, arg: str, suite: str | None = "imagenet_c") -> str:
    """A registered name (:func:`corruptbench.grid.resolve_name`) of ``kind`` in ``suite``, or an
    ArgumentError naming the argument ``arg``."""
    try:
        return resolve_name(kind, value, suite=suite)
    except (TypeError, GridError) as exc:
        raise ArgumentError(Arg(arg), f": {exc}") from None


def _level(value: Any, allowed: Sequence[int], arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value not in allowed:
        raise ArgumentError(
            Arg(arg), f" must be one of {', '.join(map(str, allowed))}, got {value!r}"
        )
    return int(value)


def _root(root: str | os.PathLike[str], what: str) -> Path:
    p = Path(root)
    if not p.is_dir():
        raise FileNotFoundError(f"root: {p} is not a folder (expected {what})")
    return p


def _listing(folder: Path, limit: int = 12) -> str:
    names = sorted(e.name for e in folder.iterdir() if not e.name.startswith("."))
    more = f", ... ({len(names)} in all)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more if names else "nothing"


def _class_labels(wnids: Sequence[str], classes: str, where: Path) -> dict[str, int]:
    """Folder name -> label: ImageNet-1k index of each wnid, or the index among the sorted folders."""
    if classes not in CLASS_INDEX:
        raise ArgumentError(
            Arg("classes"), f" must be one of {', '.join(CLASS_INDEX)}, got {classes!r}"
        )
    present = sorted(set(wnids))
    if classes == "folders":
        return {w: i for i, w in enumerate(present)}
    known = set(imagenet_wnids())
    bad = [w for w in present if w not in known]
    if bad:
        raise ArgumentError(
            f"{where}: class folder {bad[0]!r} is not one of the 1000 ILSVRC-2012 wnids; pass ",
            Arg("classes"),
            "='folders' to number the folders present instead",
        )
    return {w: wnid_to_index(w) for w in present}


def _scan_classes(folder: Path, suffixes: Sequence[str]) -> list[tuple[Path, str]]:
    """``(file, class folder)`` of ``folder/<class>/<file>``, sorted by class then file name."""
    out: list[tuple[Path, str]] = []
    for d in sorted(e for e in folder.iterdir() if e.is_dir() and not e.name.startswith(".")):
        out += [
            (f, d.name)
            for f in sorted(d.iterdir())
            if f.is_file() and not f.name.startswith(".") and f.suffix.lower() in suffixes
        ]
    return out


class ImageNetC(Dataset[tuple[Any, int]]):
    """One cell of an ImageNet-C folder: ``<root>/<corruption>/<severity>/<wnid>/<file>``.

    Also Tiny-ImageNet-C, ImageNet-C 299 and what ``corruptbench make-c`` writes. Items are
    ``(image, label)``: the RGB PIL image (or ``transform(image)``) and the wnid's ImageNet-1k
    index (see the module docstring), files in sorted order.

    Args:
        root: The ImageNet-C folder.
        corruption: One of the 19 names (``-`` / case forgiven).
        severity: 1..5.
        transform: Applied to each PIL image (e.g. torchvision's ``ToTensor()``).
        target_transform: Applied to each label.
        classes: ``"imagenet"`` (the standard 1000-class index, default) or ``"folders"`` (the
            index among the sorted class folders present, as torchvision's ImageFolder).

    Attributes:
        samples: ``(path, label)`` of every item, in order.

    Raises:
        FileNotFoundError: ``root`` or the ``<corruption>/<severity>`` folder is missing (the
            message lists what is there), or the folder holds no image.
        ArgumentError: an unknown corruption, a severity outside 1..5, a class folder that is
            not an ImageNet wnid (with ``classes="imagenet"``).

    Examples:
        >>> ds = ImageNetC("/data/ImageNet-C", "gaussian_noise", 5)  # doctest: +SKIP
        >>> loader = torch.utils.data.DataLoader(ds, batch_size=64)  # with a ToTensor transform  # doctest: +SKIP
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        corruption: str,
        severity: int,
        transform: Transform = None,
        target_transform: Transform = None,
        *,
        classes: str = "imagenet",
    ) -> None:
        self.root = _root(root, "<corruption>/<severity>/<wnid>/<file>")
        self.corruption = self._corruption(corruption)
        self.severity = _level(severity, SEVERITIES, "severity")
        self.transform, self.target_transform = transform, target_transform
        top = self.root / self.corruption
        if not top.is_dir():
            raise FileNotFoundError(
                f"corruption: {top} is missing; {self.root} holds {_listing(self.root)}"
            )
        cell = self._cell(top)
        entries = _scan_classes(cell, IMAGE_EXTENSIONS)
        if not entries:
            raise FileNotFoundError(
                f"{cell}: no image in <wnid>/<file> sub-folders (it holds {_listing(cell)})"
            )
        labels = _class_labels([w for _, w in entries], classes, cell)
        self.samples: list[tuple[Path, int]] = [(p, labels[w]) for p, w in entries]

    @staticmethod
    def _corruption(value: str) -> str:
        """The corruption name (one of ImageNet-C's 19)."""
        return _name(value, "c", "corruption")

    def _cell(self, top: Path) -> Path:
        """The folder of :attr:`severity` under ``top`` (``<root>/<corruption>``)."""
        cell = top / level_dirname(top.name, self.severity)
        if not cell.is_dir():
            raise FileNotFoundError(f"severity: {cell} is missing; {top} holds {_listing(top)}")
        return cell

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        path, label = self.samples[index]
        image: Any = load_image(path)
        if self.transform is not None:
            image = self.transform(image)
        target: Any = label if self.target_transform is None else self.target_transform(label)
        return image, target

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(root={str(self.root)!r}, corruption={self.corruption!r}, "
            f"severity={self.severity}, images={len(self)})"
        )


class CIFAR10C(Dataset[tuple[Any, int]]):
    """One severity of one corruption of CIFAR-10-C: ``<root>/<corruption>.npy`` + ``labels.npy``.

    ``<corruption>.npy`` is uint8 ``(5N, 32, 32, 3)``, severity-major (rows ``(severity - 1) * N``
    to ``severity * N - 1``); ``labels.npy`` holds the ``5N`` labels. N comes from ``labels.npy``
    (10,000 in the release, any number in a build of your own); an array of another length is
    refused. Items are ``(image, label)``: an RGB PIL image (or ``transform(image)``) and an int.
    The arrays are memory-mapped once per process (DataLoader workers reopen them).

    Args:
        root: The CIFAR-10-C folder.
        corruption: One of the 19 names.
        severity: 1..5.
        transform: Applied to each PIL image.
        target_transform: Applied to each label.

    Attributes:
        per_severity: N, the images of one severity.

    Raises:
        FileNotFoundError: ``root``, ``labels.npy`` or ``<corruption>.npy`` is missing (the message
            lists the corruptions present).
        ArgumentError: an unknown corruption, a bad severity, arrays whose lengths do not agree
            (``5 x N``), or labels outside the dataset's classes (CIFAR-100-C data read as
            CIFAR-10-C).

    Examples:
        >>> ds = CIFAR10C("/data/CIFAR-10-C", "fog", 3)  # doctest: +SKIP
        >>> len(ds)  # doctest: +SKIP
        10000
    """

    num_classes = 10

    def __init__(
        self,
        root: str | os.PathLike[str],
        corruption: str,
        severity: int,
        transform: Transform = None,
        target_transform: Transform = None,
    ) -> None:
        self.root = _root(root, "<corruption>.npy files and labels.npy")
        self.corruption = self._corruption(corruption)
        self.severity = _level(severity, SEVERITIES, "severity")
        self.transform, self.target_transform = transform, target_transform
        labels_path = self.root / cifar_c.LABELS
        if not labels_path.is_file():
            raise FileNotFoundError(
                f"root: {labels_path} is missing; a {type(self).__name__} folder holds "
                f"<corruption>.npy and labels.npy ({self.root} holds {_listing(self.root)})"
            )
        self.path = self.root / cifar_c.array_name(self.corruption)
        if not self.path.is_file():
            present = sorted(cifar_c.array_names(self.root))
            raise FileNotFoundError(
                f"corruption: {self.path} is missing; present: {', '.join(present) or 'none'}"
            )
        labels = load_npy(labels_path)
        images = load_npy(self.path)
        if labels.ndim != 1 or labels.shape[0] == 0 or labels.shape[0] % 5:
            raise ArgumentError(
                f"{labels_path}: expected 5 x N labels (N per severity), got shape {labels.shape}"
            )
        n = labels.shape[0] // 5
        if images.ndim != 4 or images.shape[-1] != 3 or images.dtype != np.uint8:
            raise ArgumentError(
                f"{self.path}: expected uint8 (5N, H, W, 3) images, got {images.dtype} "
                f"{images.shape}"
            )
        if images.shape[0] != 5 * n:
            raise ArgumentError(
                f"{self.path}: {images.shape[0]} images, but labels.npy has {5 * n} labels "
                f"(5 severities x {n}); the file is incomplete or belongs to another build"
            )
        self.per_severity = n
        lo = (self.severity - 1) * n
        self._rows = (lo, lo + n)
        self.targets: list[int] = [int(v) for v in labels[lo : lo + n]]
        if self.targets and not 0 <= min(self.targets) <= max(self.targets) < self.num_classes:
            raise ArgumentError(
                f"{labels_path}: labels {min(self.targets)}..{max(self.targets)} are not "
                f"{type(self).__name__} classes (0..{self.num_classes - 1})"
                + ("; is this CIFAR-100-C (CIFAR100C)?" if self.num_classes == 10 else "")
            )
        self._images: np.ndarray | None = None

    @staticmethod
    def _corruption(value: str) -> str:
        """The corruption name (one of the 19)."""
        return _name(value, "c", "corruption")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_images"] = None  # each process maps the file itself
        return state

    def __len__(self) -> int:
        return self.per_severity

    def __getitem__(self, index: int) -> tuple[Any, int]:
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} out of range for {len(self)} images")
        if self._images is None:
            self._images = load_npy(self.path)
        row = self._rows[0] + (index % len(self))
        image: Any = Image.fromarray(np.array(self._images[row]))
        if self.transform is not None:
            image = self.transform(image)
        label = self.targets[index]
        target: Any = label if self.target_transform is None else self.target_transform(label)
        return image, target

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(root={str(self.root)!r}, corruption={self.corruption!r}, "
            f"severity={self.severity}, images={len(self)})"
        )


class CIFAR100C(CIFAR10C):
    """CIFAR-100-C: the layout of :class:`CIFAR10C`, labels 0..99."""

    num_classes = 100


def _cbar_name(value: str) -> str:
    """A corruption of suite ``cbar`` (the paper's spellings too), or an ArgumentError naming
    ``corruption``."""
    return _name(value, "c", "corruption", "cbar")


class ImageNetCBar(ImageNetC):
    """One cell of an ImageNet-C-bar folder: ``<root>/<corruption>/<level>/<wnid>/<file>``.

    The released ImageNet-C-bar, a ``make-c --suite cbar`` build, or Tiny-ImageNet-C-bar (ours):
    the layout of :class:`ImageNetC` with the corruptions of suite ``cbar`` (ImageNet-C-bar's ten,
    and any other of the 30 a build holds; the paper's spellings accepted). The level folder of
    ``severity`` is ``<severity>`` (``1``..``5``) or the level itself, as make_imagenet_c_bar.py
    names it (``caustic_refraction/2.35/``: severity 1 of imagenet_c_bar.csv;
    :func:`~corruptbench.layouts.imagenet_c.level_severity`). Arguments, items and errors as
    :class:`ImageNetC`; a level folder whose value is not one of the corruption's five levels is
    refused.

    Examples:
        >>> ds = ImageNetCBar("/data/ImageNet-C-Bar", "caustic_refraction", 1)  # doctest: +SKIP
        >>> ds.cell.name  # doctest: +SKIP
        '2.35'
    """

    @staticmethod
    def _corruption(value: str) -> str:
        return _cbar_name(value)

    def _cell(self, top: Path) -> Path:
        try:
            folders = level_folders(self.root, self.corruption)
        except ValueError as exc:
            raise ArgumentError(str(exc)) from None
        if self.severity not in folders:
            raise FileNotFoundError(
                f"severity: no folder of severity {self.severity} in {top} (named "
                f"{self.severity} or by its level); it holds {_listing(top)}"
            )
        self.cell = top / folders[self.severity]
        return self.cell


class CIFAR10CBar(CIFAR10C):
    """One severity of one corruption of CIFAR-10-C-bar: ``<root>/<corruption>.npy`` +
    ``labels.npy``, as make_cifar10_c_bar.py writes them (``5 x N`` images, severity-major) and
    ``make-c --suite cbar --profile cifar`` does; the layout and checks of :class:`CIFAR10C`
    with the corruptions of suite ``cbar`` (CIFAR-10-C-bar's ten, and any other of the 30 a
    build holds).

    Examples:
        >>> ds = CIFAR10CBar("/data/CIFAR-10-C-Bar", "pinch_and_twirl", 5)  # doctest: +SKIP
    """

    @staticmethod
    def _corruption(value: str) -> str:
        return _cbar_name(value)


class ImageNetP(Dataset[tuple[Any, int]]):
    """One perturbation of an ImageNet-P folder: ``<root>/<perturbation>[_<d>]/<wnid>/<stem>.mp4``.

    Items are ``(frames, label)``. ``frames``: without ``transform``, a uint8 tensor
    ``(T, 3, H, W)`` (the T frames of the MP4), ready for ``frames.float() / 255``; with ``transform``, ``transform`` is
    applied to each frame as a PIL image and the results are stacked with ``torch.stack`` when
    they are tensors (kept as a list otherwise). ``label`` is the wnid's ImageNet-1k index.

    ``difficulty`` selects the ``_<d>`` folder of the noise perturbations (gaussian_noise,
    shot_noise, speckle_noise). For the others there is one folder; their difficulty is the frame
    stride the metrics use (:func:`corruptbench.metrics.flip_probability`), so the sequences are
    the same at every difficulty.

    Args:
        root: The ImageNet-P folder.
        perturbation: One of the 14 names.
        difficulty: 1, 2 or 3.
        transform: Applied to each frame (a PIL image).
        target_transform: Applied to each label.
        classes: ``"imagenet"`` (default) or ``"folders"``, as in :class:`ImageNetC`.

    Raises:
        FileNotFoundError: ``root`` or the perturbation's folder is missing, or it holds no MP4.
        ArgumentError: an unknown perturbation, a bad difficulty, a folder that is not a wnid.

    Examples:
        >>> ds = ImageNetP("/data/ImageNet-P", "gaussian_noise", difficulty=2)  # doctest: +SKIP
        >>> frames, label = ds[0]  # doctest: +SKIP
        >>> frames.shape  # doctest: +SKIP
        torch.Size([31, 3, 224, 224])
    """

    def __init__(
        self,
        root: str | os.PathLike[str],
        perturbation: str,
        difficulty: int = 1,
        transform: Transform = None,
        target_transform: Transform = None,
        *,
        classes: str = "imagenet",
    ) -> None:
        self.root = _root(root, "<perturbation>[_<d>]/<wnid>/<stem>.mp4")
        self.perturbation = _name(perturbation, "p", "perturbation", None)
        self.difficulty = _level(difficulty, DIFFICULTIES, "difficulty")
        self.transform, self.target_transform = transform, target_transform
        noisy = self.difficulty > 1 and self.perturbation in NOISE_PERTURBATIONS
        folder = self.root / perturbation_dirname(
            self.perturbation, self.difficulty if noisy else 1
        )
        if not folder.is_dir():
            raise FileNotFoundError(
                f"perturbation: {folder} is missing; {self.root} holds {_listing(self.root)}"
            )
        entries = _scan_classes(folder, (VIDEO_EXTENSION,))
        if not entries:
            raise FileNotFoundError(f"{folder}: no <wnid>/<stem>.mp4 sequences")
        labels = _class_labels([w for _, w in entries], classes, folder)
        self.samples: list[tuple[Path, int]] = [(p, labels[w]) for p, w in entries]

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index: int) -> tuple[Any, int]:
        from ..formats.video import read_mp4

        path, label = self.samples[index]
        frames = read_mp4(path)  # (T, H, W, 3) uint8
        out: Any
        if self.transform is None:
            out = torch.from_numpy(np.ascontiguousarray(frames.transpose(0, 3, 1, 2)))
        else:
            done = [self.transform(Image.fromarray(f)) for f in frames]
            out = torch.stack(done) if all(isinstance(t, torch.Tensor) for t in done) else done
        target: Any = label if self.target_transform is None else self.target_transform(label)
        return out, target

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(root={str(self.root)!r}, perturbation={self.perturbation!r}, "
            f"difficulty={self.difficulty}, sequences={len(self)})"
        )
