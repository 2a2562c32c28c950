"""The interface of a dataset layout, and the clean-source helper the layouts share."""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ...errors import Arg
from ...grid import Cell, cell_key
from ...pipeline import Source, SourceError, SourceItem, arrays_source, hash_lines, open_source
from ...results import DatasetInfo
from ..common import EvalError, check_label_space, label_mapper, select_subset
from ..readers import Reader

__all__ = [
    "ImageIds",
    "Selection",
    "OnTheFly",
    "Item",
    "Layout",
    "open_labelled_source",
    "open_unlabelled_source",
    "select_items",
    "select_positions",
    "keys_of",
]

Item = tuple[Reader, int, Any]  #: (reader, label, payload) of one image or sequence


@dataclass(frozen=True)
class ImageIds:
    """A fixed set of images a protocol evaluates (:mod:`corruptbench.protocols`): the relative
    keys ``<wnid>/<file>`` of the images, every one of which must be present in each cell.

    Attributes:
        keys: The relative keys.
        name: What the set is, for messages and notes (``"protocol robustbench"``).
    """

    keys: frozenset[str]
    name: str

    def note(self, unlisted: int) -> str:
        """The data's note: what was evaluated, and how many other images of a cell were not."""
        return f"{self.name}: its {len(self.keys):,} listed images of each cell" + (
            f" ({unlisted:,} other images of a cell not evaluated)" if unlisted else ""
        )

    def refusal(self, where: str, missing: Collection[str]) -> str:
        """The line refusing data that lacks ``missing`` of the keys."""
        shown = ", ".join(sorted(missing)[:3]) + (", ..." if len(missing) > 3 else "")
        return (
            f"{where}: {len(missing):,} of the {len(self.keys):,} images of {self.name} are "
            f"missing (e.g. {shown}); the protocol evaluates every one of them"
        )


@dataclass(frozen=True)
class Selection:
    """What to evaluate: names (corruptions / perturbations), levels (severities / the one
    difficulty), at most ``limit`` items per cell (a subset seeded by ``seed``), ``seed``, the
    base seed of on-the-fly corruption, ``images``: only the items whose relative key
    ``<wnid>/<file>`` is listed there (``None``: every item), and ``verify_shards``: how
    WebDataset shards are checked against ``shards.json`` before use (``"hash"``: size, sample
    count and SHA-256; ``"count"``: size and sample count, for storage you trust)."""

    names: list[str]
    levels: list[int]
    limit: int | None = None
    seed: int = 0
    images: ImageIds | None = None
    verify_shards: str = "hash"


@dataclass(frozen=True, eq=False)
class OnTheFly:
    """``data=OnTheFly(src)``: corrupt (or perturb) clean images inside the data-loader workers,
    exactly as make-c / make-p do (the same per-item seeds, so the same pixels before JPEG / MP4).

    Attributes:
        src: An image folder (``<class>/<file>``: wnid folders get their ImageNet-1k index) or a
            CIFAR python batch file (``test_batch``); or images in memory: a uint8 array
            ``(N, H, W, 3)`` or a sequence of uint8 ``(H, W, 3)`` arrays (any sizes); or a
            :class:`~corruptbench.pipeline.Source`.
        labels: Class indices of in-memory images (eval-c needs them; eval-p does not).
            In-memory images of one size pick the profile of that size unless ``profile=`` is
            given (32: ``cifar``, 64: ``tiny``, 299: ``inception``, else ``imagenet``).
        names: Relative names of in-memory images, which seed their corruption as make-c's
            relative paths do (default ``00000.png``, ``00001.png``, ...: the names of a flat
            folder of the same images written in that order).

    Examples:
        >>> OnTheFly("/data/imagenet/val")  # doctest: +SKIP
        >>> OnTheFly(x_test, labels=y_test)  # x_test: uint8 (N, 32, 32, 3)  # doctest: +SKIP
    """

    src: str | os.PathLike[str] | Source | np.ndarray | Sequence[np.ndarray]
    labels: Sequence[int] | np.ndarray | None = None
    names: Sequence[str] | None = None

    def open(self) -> Source:
        """The clean source (:class:`EvalError` naming the problem when it cannot be used)."""
        src = self.src
        if isinstance(src, Source):
            if self.labels is not None or self.names is not None:
                raise EvalError(Arg("labels"), " and names go with in-memory images, not a Source")
            return src
        if isinstance(src, (str, os.PathLike)):
            if self.labels is not None or self.names is not None:
                raise EvalError(
                    Arg("labels"), " and names go with in-memory images; a folder has its own"
                )
            return open_unlabelled_source(Path(src))
        images = _check_images(src)
        labels = None
        if self.labels is not None:
            arr = np.asarray(self.labels)
            if arr.dtype.kind not in "iu":
                raise EvalError(Arg("labels"), f" must be integer class indices, got {arr.dtype}")
            labels = [int(v) for v in arr.reshape(-1)]
            if len(labels) != len(images):
                raise EvalError(Arg("labels"), f": {len(labels)} labels for {len(images)} images")
            if min(labels, default=0) < 0:
                raise EvalError(Arg("labels"), f" must be class indices >= 0, got {min(labels)}")
        try:
            return arrays_source(images, names=self.names, labels=labels)
        except ValueError as exc:
            raise EvalError(Arg("names"), f": {exc}") from None


def _check_images(src: Any) -> list[np.ndarray]:
    """In-memory images as a list of uint8 ``(H, W, 3)`` / ``(H, W)`` arrays, or :class:`EvalError`."""
    if isinstance(src, np.ndarray):
        if src.ndim != 4 or src.shape[-1] != 3:
            raise EvalError(
                Arg("src", python="OnTheFly(src)"),
                f" must be a uint8 batch (N, H, W, 3) or a sequence of images, got shape {src.shape}"
                + (" (one image: pass [image])" if src.ndim == 3 else ""),
            )
        images = list(src)
    elif isinstance(src, Sequence):
        images = [np.asarray(im) for im in src]
    else:
        raise EvalError(
            Arg("src", python="OnTheFly(src)"),
            " must be a folder, a CIFAR batch file, uint8 images or a corruptbench.pipeline.Source; "
            f"got {type(src).__name__}",
        )
    if not images:
        raise EvalError(Arg("src", python="OnTheFly(src)"), " holds no images")
    for i, im in enumerate(images):
        if im.dtype != np.uint8 or not (im.ndim == 2 or (im.ndim == 3 and im.shape[-1] == 3)):
            raise EvalError(
                Arg("src", python="OnTheFly(src)"),
                f": image {i} must be uint8 (H, W, 3) or (H, W), got {im.dtype} {im.shape}"
                + (
                    "; convert floats in [0, 1] with np.clip(np.round(x * 255), 0, 255).astype(np.uint8)"
                    if np.issubdtype(im.dtype, np.floating)
                    else ""
                ),
            )
    return images


@dataclass
class Layout(ABC):
    """One dataset layout, planned for a :class:`Selection`.

    After :meth:`open`, :attr:`cells` are the requested cells present in the data (in evaluation
    order), :attr:`missing` the requested cells absent from it, :attr:`fingerprints` a digest of
    each present cell's data (results are resumed only where it matches), :attr:`notes` what the
    results file should say about the data. :meth:`items` lists a cell's items.
    """

    name: ClassVar[str]  #: the results' ``dataset.layout``
    corrupts_in_loader: ClassVar[bool] = False  #: items are corrupted in the loader, not read

    root: Path
    profile: str
    cells: list[Cell] = field(default_factory=list)
    missing: list[Cell] = field(default_factory=list)
    fingerprints: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    images_per_cell: int = 0
    #: cell key -> :func:`~corruptbench.evaluation.common.content_digest` of its selected images
    #: (layouts of named image / video files: folders and their shards)
    contents: dict[str, str] = field(default_factory=dict)

    @abstractmethod
    def items(self, cell: Cell) -> list[Item]:
        """The items of ``cell`` (after the selection's ``limit``)."""

    def classes(self, cell: Cell) -> list[str | int | None]:
        """The class of each of ``cell``'s items, in :meth:`items` order: a class folder's name
        (wnid), an integer label, or ``None`` where the data has none. eval-p reads it for the
        calibration of the clean frames (eval-c's items carry their labels already)."""
        return [None] * len(self.items(cell))

    def key(self, cell: Cell) -> str:
        """The cell's key in the results' ``run.cell_fingerprints``."""
        return cell_key(cell)

    def match_clean(self, source: Source) -> list[SourceItem] | None:
        """eval-c ``clean=``: the clean items that correspond to the corrupted images evaluated,
        or None when they cannot be matched one-to-one."""
        return None

    @property
    def subset_selected(self) -> bool:
        """Whether the clean-matching note mentions a seeded subset."""
        return False

    @property
    def default_baseline(self) -> str:
        """eval-c's ``baseline="auto"``: ``uniform`` for CIFAR data (AlexNet's errors are ImageNet
        numbers), else ``alexnet``."""
        return "uniform" if self.profile == "cifar" else "alexnet"

    def dataset_info(self, notes: Sequence[str], protocol: str | None = None) -> DatasetInfo:
        """The results' ``dataset`` entry of this data (eval-c's and eval-p's)."""
        return DatasetInfo(
            path=str(self.root),
            layout=self.name,
            profile=self.profile,
            fingerprint=self.fingerprint(),
            content_fingerprint=self.content_fingerprint(),
            num_images=self.images_per_cell,
            notes=list(notes),
            protocol=protocol,
        )

    def fingerprint(self) -> str:
        """Digest of every cell's fingerprint (the results' ``dataset.fingerprint``)."""
        return hash_lines(f"{k}\t{v}" for k, v in sorted(self.fingerprints.items()))

    def content_fingerprint(self) -> str | None:
        """Digest of every cell's :attr:`contents` (and of the clean images' fingerprint), the
        results' ``dataset.content_fingerprint``: equal for the same images in a folder or in
        WebDataset shards, so the report compares them as one dataset. None when a cell has no
        content digest (arrays, images corrupted on the fly)."""
        cells = {k: v for k, v in self.fingerprints.items() if k != "clean"}
        if not cells or set(cells) != set(self.contents):
            return None
        lines = {
            **self.contents,
            **({"clean": self.fingerprints["clean"]} if "clean" in self.fingerprints else {}),
        }
        return hash_lines(f"{k}\t{v}" for k, v in sorted(lines.items()))


def open_labelled_source(
    source: Source,
    num_classes: int | None,
    notes: list[str],
    limit: int | None,
    seed: int,
    restrict: Callable[[Source], list[SourceItem] | None] | None = None,
) -> tuple[list[SourceItem], list[int]]:
    """The selected items of a clean source (folder / CIFAR batch / arrays) and their labels.

    ``restrict(source)`` may return the items to use (e.g. the clean images matching the corrupted
    ones); otherwise the seeded ``limit`` subset is taken. Label notes go to ``notes``, and one
    about links in the folder that lead nowhere (:attr:`~corruptbench.pipeline.Source.broken`).
    """
    items = restrict(source) if restrict is not None else None
    if items is None:
        items = select_items(source, limit, seed)
    if source.broken:
        shown = ", ".join(f"{b.rel} ({b.reason})" for b in source.broken[:3])
        more = f" and {len(source.broken) - 3} more" if len(source.broken) > 3 else ""
        notes.append(
            f"{len(source.broken)} symbolic link(s) under {source.root} lead nowhere and were "
            f"left out: {shown}{more}"
        )
    if source.label_kind == "none":
        raise EvalError(
            f"{source.root}: images have no labels ("
            + (
                "pass OnTheFly(images, labels=...)"
                if source.kind == "arrays"
                else "use class sub-folders named by wnid or class"
            )
            + ")"
        )
    if source.label_kind == "batch":
        labels = [int(it.label) for it in items]  # type: ignore[arg-type]
        # a CIFAR batch file is a whole dataset (its label space); labels given with arrays are
        # the caller's own class indices, maybe of a few classes: only their range is checked
        every = [int(it.label) for it in source.items]  # type: ignore[arg-type]
        whole = source.kind == "cifar-batch"
        classes = check_label_space(every, num_classes, str(source.root), whole=whole)
        notes.append(
            f"labels: from the CIFAR batch file ({classes})"
            if whole
            else "labels: given with the images"
        )
    else:
        mapper = label_mapper([str(it.label) for it in source.items], num_classes, notes)
        labels = [mapper(str(it.label)) for it in items]
    if num_classes is not None and labels and max(labels) >= num_classes:
        raise EvalError(
            f"{source.root}: label {max(labels)} but the model outputs {num_classes} logits"
        )
    return items, labels


def open_unlabelled_source(src: Path) -> Source:
    """:func:`~corruptbench.pipeline.open_source`, its errors as :class:`EvalError`."""
    try:
        return open_source(src)
    except SourceError as exc:
        raise EvalError(*exc.parts) from None


def select_items(source: Source, limit: int | None, seed: int) -> list[SourceItem]:
    """The seeded ``limit`` subset of a source's items (all of them without a limit)."""
    sel = select_subset(len(source.items), [it.rel for it in source.items], limit, seed)
    return [source.items[i] for i in sel]


def select_positions(keys: Sequence[str], sel: Selection, where: str) -> list[int]:
    """Positions of the items to evaluate among items with relative keys ``keys``: those that
    ``sel.images`` lists (all without a list), then the seeded ``sel.limit`` subset of them.

    Raises:
        EvalError: some listed image is absent (``where`` names the folder or cell).
    """
    listed = list(range(len(keys)))
    if sel.images is not None:
        missing = sel.images.keys.difference(keys)
        if missing:
            raise EvalError(sel.images.refusal(where, missing))
        listed = [i for i in listed if keys[i] in sel.images.keys]
    chosen = select_subset(len(listed), [keys[i] for i in listed], sel.limit, sel.seed)
    return [listed[i] for i in chosen]


def keys_of(entries: Sequence[tuple[Path, str | None]]) -> list[str]:
    """``"<wnid>/<file name>"`` of (path, wnid) entries: what the ``limit`` subset is drawn by."""
    return [f"{w}/{p.name}" for p, w in entries]
