"""ImageNet-P / Tiny-ImageNet-P: ``<root>/<perturbation>[_<difficulty>]/<wnid>/<stem>.mp4``.

hendrycks/robustness ImageNet-P/create_p/make_imagenet_p.py:112, :131 (read by
ImageNet-P/test.py:198-208); the ``_2`` / ``_3`` suffix exists only for the noise perturbations at
difficulty 2 and 3 (:func:`perturbation_dirname`: also what make-p writes). No published count of
sequences per perturbation was found: ``verify`` compares the perturbation folders with each other.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..perturbations import ALL_PERTURBATIONS, NOISE_PERTURBATIONS
from .common import visible_dirs

__all__ = [
    "DETECT_ORDER",
    "NAME",
    "VIDEO_EXTENSION",
    "PERTURBATION_NAMES",
    "detect",
    "file_name",
    "perturbation_dirs",
    "perturbation_dirname",
    "parse_perturbation_dirname",
    "ImageNetPIndex",
    "scan_imagenet_p",
]

NAME = "imagenet-p"
#: where :func:`corruptbench.layouts.detect` asks this layout (lower first)
DETECT_ORDER = 60
#: the extension of a sequence file
VIDEO_EXTENSION = ".mp4"


def file_name(rel: str) -> str:
    """The name of a source item's sequence: its stem + ``.mp4`` (the reference strips
    ``.JPEG``)."""
    return os.path.splitext(rel)[0] + VIDEO_EXTENSION


def perturbation_dirs() -> list[str]:
    """Every folder name a perturbation can have: the 14, and the noise ones' ``_2`` / ``_3``."""
    return [*ALL_PERTURBATIONS, *(f"{n}_{d}" for n in NOISE_PERTURBATIONS for d in (2, 3))]


def detect(root: Path) -> str | None:
    """``imagenet-p`` for a folder with a perturbation folder."""
    return NAME if set(visible_dirs(root)) & set(perturbation_dirs()) else None


#: The 10 test perturbations then the 4 validation ones (make_imagenet_p.py:61, :384; defined in
#: the registry).
PERTURBATION_NAMES: tuple[str, ...] = ALL_PERTURBATIONS


def perturbation_dirname(name: str, difficulty: int = 1) -> str:
    """``gaussian_noise`` + 2 -> ``gaussian_noise_2``; difficulty 1 (and non-noise) -> the name."""
    if difficulty not in (1, 2, 3):
        raise ValueError(f"difficulty must be 1, 2 or 3, got {difficulty}")
    if difficulty == 1:
        return name
    if name not in NOISE_PERTURBATIONS:
        raise ValueError(
            f"only {', '.join(NOISE_PERTURBATIONS)} have difficulty {difficulty} datasets"
        )
    return f"{name}_{difficulty}"


_SUFFIX_RE = re.compile(r"^(.+)_([23])$")


def parse_perturbation_dirname(dirname: str) -> tuple[str, int]:
    """Inverse of :func:`perturbation_dirname` (``shot_noise_3`` -> (``shot_noise``, 3))."""
    m = _SUFFIX_RE.match(dirname)
    if m and m.group(1) in NOISE_PERTURBATIONS:
        return m.group(1), int(m.group(2))
    return dirname, 1


@dataclass
class ImageNetPIndex:
    """What :func:`scan_imagenet_p` found: ``cells[(perturbation, difficulty)] -> [(path, wnid)]``."""

    root: Path
    cells: dict[tuple[str, int], list[tuple[Path, str | None]]] = field(default_factory=dict)
    missing: list[tuple[str, int]] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(v) for v in self.cells.values())


def scan_imagenet_p(
    root: str | os.PathLike[str],
    perturbations: Iterable[str] | None = None,
    difficulties: Iterable[int] = (1,),
) -> ImageNetPIndex:
    """Index an ImageNet-P folder ``<perturbation>[_<d>]/<wnid>/<stem>.mp4`` (sorted).

    ``missing`` lists requested (perturbation, difficulty) cells that are absent; difficulties 2/3
    are only requested for the noise perturbations. Default request: all 14 at ``difficulties``.
    ``.mp4`` files directly inside a perturbation folder get wnid None.
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"ImageNet-P folder not found: {root}")
    names = list(perturbations) if perturbations is not None else list(PERTURBATION_NAMES)
    diffs = [int(d) for d in difficulties]
    index = ImageNetPIndex(root)
    for name in names:
        for d in diffs:
            if d != 1 and name not in NOISE_PERTURBATIONS:
                continue
            folder = root / perturbation_dirname(name, d)
            items: list[tuple[Path, str | None]] = []
            if folder.is_dir():
                for e in sorted(folder.iterdir()):
                    if e.name.startswith("."):
                        continue
                    if e.is_dir():
                        items.extend(
                            (f, e.name)
                            for f in sorted(e.glob("*" + VIDEO_EXTENSION))
                            if not f.name.startswith(".")
                        )
                    elif e.suffix == VIDEO_EXTENSION:
                        items.append((e, None))
            if items:
                index.cells[(name, d)] = items
            else:
                index.missing.append((name, d))
    return index
