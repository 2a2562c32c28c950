"""The per-item step shared by the builders, the evaluation and the demo.

One output item is ``step.apply(step.prepare(item), name, level, seed)``:

* :meth:`ItemStep.prepare` loads a :class:`~corruptbench.pipeline.sources.SourceItem` and applies
  the profile's preparation — make-c: :func:`~corruptbench.ops.preprocess.profile_preprocess`
  (ImageNet ``Resize(256) + CenterCrop(224)``, ...); make-c ``--layout tree``: the image as it is
  (:class:`NativeCorruptStep`); make-p: the full image, size-checked
  (:func:`~corruptbench.perturb` resizes it itself);
* :meth:`ItemStep.apply` corrupts (or perturbs) it with a ``RandomState`` in the state of
  ``RandomState(seed)``, where make-c, make-p and on-the-fly evaluation take
  ``seed = item_seed(base seed, kind, name, level, item.rel)`` (:meth:`ItemStep.seed_of`).

So make-c's JPEG input and eval-c ``--on-the-fly`` compute the same pixels for the same base seed,
whatever the worker, the order or the machine. The demo runs the same steps with seeds of its own
(:func:`corruptbench.demo.demo_seed`, fixed per photo and corruption / perturbation and level,
passed to :meth:`ItemStep.apply`), so its pixels are ``corrupt(img, name, level,
rng=demo_seed(...))``, not those of a make-c build of the same photos.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..profiles import PROFILES
from ..rng import reseeded
from .sources import SourceItem

__all__ = [
    "item_seed",
    "ITEM_SEED_FORMULA",
    "item_rng",
    "ItemStep",
    "CorruptStep",
    "NativeCorruptStep",
    "PerturbStep",
    "item_step",
]


#: how :func:`item_seed` derives a seed, as build manifests record it
ITEM_SEED_FORMULA = "blake2b(f'{seed}|{kind}|{name}|{level}|{rel}', digest_size=4), little-endian"


def item_seed(seed: int, kind: str, name: str, level: int, rel: str) -> int:
    """The 32-bit seed of one output item: :data:`ITEM_SEED_FORMULA`.

    ``blake2b(f"{seed}|{kind}|{name}|{level}|{rel}", digest_size=4)`` read little-endian, where
    ``kind`` is ``"c"`` (make-c) or ``"p"`` (make-p), ``level`` the severity or difficulty and
    ``rel`` the item's POSIX relative path (e.g. ``n01440764/ILSVRC2012_val_00000293.JPEG``).
    Reproduce one file with ``corrupt(img, name, level, profile=..., rng=item_seed(...))``.
    """
    key = f"{int(seed)}|{kind}|{name}|{int(level)}|{rel}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=4).digest(), "little")


def item_rng(seed: int) -> np.random.RandomState:
    """A RandomState in exactly the state of ``RandomState(seed)``, without building a new one.

    This thread's instance re-seeded (:func:`corruptbench.rng.reseeded`): identical stream, a few
    microseconds instead of ~0.1 ms, 95 times per image in make-c. The returned object is reused
    by the next call.
    """
    return reseeded(seed)


@dataclass(frozen=True)
class ItemStep(ABC):
    """Prepare a source item and corrupt/perturb it, for one profile and base seed (picklable)."""

    kind: ClassVar[str]  #: "c" or "p" (part of :func:`item_seed`)
    profile: str
    seed: int = 0

    @abstractmethod
    def prepare(self, item: SourceItem) -> np.ndarray:
        """The uint8 image the operation applies to (ImageLoadError / ValueError on bad input)."""

    def prepare_noted(self, item: SourceItem) -> tuple[np.ndarray, str]:
        """:meth:`prepare` and a warning about the item (``""``: none)."""
        return self.prepare(item), ""

    def note(self, item: SourceItem) -> str:
        """The warning :meth:`prepare_noted` gives, from the item's size alone (no decoding)."""
        return ""

    @abstractmethod
    def apply(self, img: np.ndarray, name: str, level: int, seed: int) -> np.ndarray:
        """Corrupt / perturb ``img`` drawing from ``RandomState(seed)``; uint8 out."""

    def seed_of(self, name: str, level: int, rel: str) -> int:
        """:func:`item_seed` of this step's base seed and kind."""
        return item_seed(self.seed, self.kind, name, level, rel)

    def apply_item(self, img: np.ndarray, name: str, level: int, rel: str) -> np.ndarray:
        """:meth:`apply` with the item's own seed (:meth:`seed_of`): what make-c / make-p write."""
        return self.apply(img, name, level, self.seed_of(name, level, rel))


@dataclass(frozen=True)
class CorruptStep(ItemStep):
    """make-c: the profile's preprocessing, then :func:`corruptbench.corrupt` (one image)."""

    kind: ClassVar[str] = "c"

    def prepare(self, item: SourceItem) -> np.ndarray:
        return self.prepare_noted(item)[0]

    def prepare_noted(self, item: SourceItem) -> tuple[np.ndarray, str]:
        """The prepared image, and a warning when the preprocessing upsamples it (the pixels are
        kept: the reference's resize would enlarge it too)."""
        from ..ops.preprocess import profile_preprocess, upsampling

        im = item.image()
        return profile_preprocess(im, self.profile), upsampling(*im.size, self.profile)

    def note(self, item: SourceItem) -> str:
        from ..ops.preprocess import upsampling

        size = item.size()
        return upsampling(*size, self.profile) if size is not None else ""

    def apply(self, img: np.ndarray, name: str, level: int, seed: int) -> np.ndarray:
        from ..api import corrupt

        return corrupt(img, name, level, profile=self.profile, rng=item_rng(seed))


@dataclass(frozen=True)
class NativeCorruptStep(CorruptStep):
    """make-c ``--layout tree``: each image at its own size and in its own layout, corrupted with
    the profile's parameter tables (never the size-based ``auto`` switch).

    Gray ``(H, W)`` and RGBA follow :func:`corruptbench.corrupt` (gray is corrupted as RGB and
    returned as gray by PIL's luma formula; alpha is kept); gray + alpha ``(H, W, 2)`` is the gray
    rule with the alpha channel kept. Same seeds as :class:`CorruptStep` (``kind`` ``"c"``).
    """

    def prepare(self, item: SourceItem) -> np.ndarray:
        from ..formats.images import load_image_native

        if item.array is not None:
            arr = np.asarray(item.array, dtype=np.uint8)
        else:
            arr = load_image_native(item.path)  # type: ignore[arg-type]
        h, w = arr.shape[:2]
        minimum = PROFILES[self.profile].min_size
        if min(h, w) < minimum:
            raise ValueError(
                f"image of {w}x{h} is too small for the {self.profile!r} profile "
                f"(minimum side {minimum} px)"
            )
        return arr

    def prepare_noted(self, item: SourceItem) -> tuple[np.ndarray, str]:
        return self.prepare(item), ""  # native size: nothing is upsampled

    def note(self, item: SourceItem) -> str:
        return ""

    def apply(self, img: np.ndarray, name: str, level: int, seed: int) -> np.ndarray:
        if img.ndim == 3 and img.shape[2] == 2:  # gray + alpha: corrupt the gray, keep the alpha
            gray = super().apply(np.ascontiguousarray(img[:, :, 0]), name, level, seed)
            return np.stack([gray, img[:, :, 1]], axis=2)
        return super().apply(img, name, level, seed)


@dataclass(frozen=True)
class PerturbStep(ItemStep):
    """make-p: the full source image, then :func:`corruptbench.perturb` (``(T, S, S, 3)`` frames).

    ``level`` is the difficulty.
    """

    kind: ClassVar[str] = "p"

    def prepare(self, item: SourceItem) -> np.ndarray:
        return self.prepare_noted(item)[0]

    def prepare_noted(self, item: SourceItem) -> tuple[np.ndarray, str]:
        """The full source image, and a warning when it is smaller than the profile's output
        (:func:`~corruptbench.ops.preprocess.upsampling`): :func:`corruptbench.perturb` then
        enlarges it, as make-c's preprocessing does."""
        arr = self._full_image(item)
        return arr, self._upsampling(arr.shape[1], arr.shape[0])

    def note(self, item: SourceItem) -> str:
        size = item.size()
        return self._upsampling(*size) if size is not None else ""

    def _upsampling(self, width: int, height: int) -> str:
        from ..ops.preprocess import upsampling

        return upsampling(width, height, self.profile)

    def _full_image(self, item: SourceItem) -> np.ndarray:
        # perturb() takes the full source image and applies the profile's own resize/crop
        arr = np.asarray(item.image(), dtype=np.uint8)
        h, w = arr.shape[:2]
        if self.profile == "cifar" and (h, w) != (32, 32):
            raise ValueError(f"the cifar profile takes 32 x 32 images as they are; got {w}x{h}")
        if min(h, w) < PROFILES[self.profile].min_size:
            raise ValueError(f"image of {w}x{h} is too small for the {self.profile!r} profile")
        return arr

    def apply(self, img: np.ndarray, name: str, level: int, seed: int) -> np.ndarray:
        from ..perturbations import perturb

        out = perturb(img, name, profile=self.profile, difficulty=level, rng=item_rng(seed))
        return np.asarray(out, dtype=np.uint8)


def item_step(kind: str, profile: str, seed: int = 0) -> ItemStep:
    """The step of make-``kind`` (``"c"`` or ``"p"``)."""
    if kind == "c":
        return CorruptStep(profile, seed)
    if kind == "p":
        return PerturbStep(profile, seed)
    raise ValueError(f"kind must be 'c' or 'p', got {kind!r}")
