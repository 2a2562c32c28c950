"""Corruption as a dataset wrapper: :class:`CorruptedDataset`, make-c's per-item step on any dataset.

Item ``i`` of the wrapped dataset is prepared and corrupted exactly as make-c prepares and
corrupts a source image whose relative path is ``name(i)``: the profile's preparation
(ImageNet: ``Resize(256) + CenterCrop(224)``; CIFAR: none), then
``corrupt(image, corruption, severity, profile=profile, rng=RandomState(item_seed(seed, "c",
corruption, severity, name(i))))``. The pixels therefore depend only on the image, its name and the
parameters: not on the DataLoader's workers, their seeds, the order or shuffling; and they equal
what ``corruptbench make-c`` computes for the same image under the same relative path before it
encodes the JPEG.

Names (what ties an item to make-c's output, and what seeds it):

* a dataset with ``root`` and ``samples`` (torchvision's ``ImageFolder`` / ``DatasetFolder``):
  the file's path relative to ``root`` (``n01440764/ILSVRC2012_val_00000293.JPEG``), the
  relative path make-c uses for the same folder;
* a ``torch.utils.data.Subset``: the name of the underlying item;
* any other dataset: ``f"{i:05d}.png"``, the relative path make-c gives the ``i``-th file of a flat
  folder holding the images as ``00000.png``, ``00001.png``, ... (and the default names of
  :func:`corruptbench.pipeline.arrays_source`);
* ``names=``: a sequence of relative paths, or a function of the index (for torchvision's
  ``CIFAR10(train=False)``, make-c's names of ``test_batch`` are
  ``lambda i: f"{ds.targets[i]}/{i:05d}.png"``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset, Subset

from ..errors import Arg, ArgumentError
from ..pipeline import CorruptStep, SourceItem
from ..profiles import PROFILES
from ..registry import get_corruption
from ..validation import check_severity

__all__ = ["CorruptedDataset", "item_name"]

Names = Sequence[str] | Callable[[int], str] | None


def item_name(dataset: Any, index: int) -> str:
    """The relative name of item ``index`` of ``dataset`` (see the module docstring)."""
    if isinstance(dataset, Subset):
        return item_name(dataset.dataset, int(dataset.indices[index]))
    root, samples = getattr(dataset, "root", None), getattr(dataset, "samples", None)
    if root is not None and isinstance(samples, Sequence) and len(samples) > index:
        path = samples[index][0]
        return os.path.relpath(os.fspath(path), os.fspath(root)).replace(os.sep, "/")
    return f"{index:05d}.png"


def _as_rgb(image: Any) -> tuple[np.ndarray, str]:
    """``(uint8 array for make-c's step, the input's kind)``: a PIL image, a uint8 array
    ``(H, W[, 3])`` or a uint8 tensor ``(3, H, W)``; anything else is refused."""
    if isinstance(image, Image.Image):
        return np.asarray(image.convert("RGB")), "pil"
    if isinstance(image, torch.Tensor):
        if image.dtype != torch.uint8 or image.ndim != 3 or image.shape[0] not in (1, 3):
            raise ArgumentError(
                Arg("dataset"),
                f" items must hold a PIL image or uint8 pixels; got a {image.dtype} tensor of shape "
                f"{tuple(image.shape)}. Convert to tensors after the corruption: "
                "CorruptedDataset(dataset_without_transform, ..., transform=...)",
            )
        return image.expand(3, -1, -1).permute(1, 2, 0).cpu().numpy(), "tensor"
    arr = np.asarray(image)
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] in (1, 3))):
        raise ArgumentError(
            Arg("dataset"),
            f" items must hold a PIL image or uint8 pixels (H, W, 3); got {type(image).__name__} "
            f"{arr.dtype} {arr.shape}",
        )
    return (
        arr if arr.ndim == 3 and arr.shape[2] == 3 else np.dstack([arr.reshape(arr.shape[:2])] * 3)
    ), "array"


class CorruptedDataset(Dataset[tuple[Any, Any]]):
    """Wrap a map-style dataset of ``(image, target)`` and corrupt item ``i`` as make-c would.

    Args:
        dataset: Items ``(image, target)`` with a PIL image, a uint8 array ``(H, W, 3)`` / ``(H, W)``
            or a uint8 tensor ``(3, H, W)`` (no float tensors: put ``ToTensor`` / ``Normalize`` in
            ``transform``, after the corruption).
        corruption: One of the 19 names.
        severity: 1..5.
        profile: make-c's profile: its preparation and parameter tables (``imagenet``,
            ``inception``, ``tiny``, ``cifar``).
        seed: make-c's base seed (``make-c --seed``).
        names: The items' relative names (see the module docstring); default: derived from the
            dataset.
        prepare: ``False`` corrupts each image as it is (e.g. already cropped by the dataset),
            with the profile's parameters at its size, instead of applying the profile's
            preparation first (the output then differs from make-c's when the sizes differ).
        transform: Applied to the corrupted image (of the input's kind: PIL, array or tensor).

    Returns:
        Items ``(transform(corrupted image), target)``; the image is RGB (grayscale input is
        expanded, as make-c does), at the profile's size.

    Examples:
        >>> from corruptbench.torch import CorruptedDataset
        >>> val = torchvision.datasets.ImageFolder("/data/imagenet/val")  # doctest: +SKIP
        >>> foggy = CorruptedDataset(val, "fog", 3, transform=T.ToTensor())  # doctest: +SKIP
        >>> loader = torch.utils.data.DataLoader(foggy, batch_size=64, num_workers=8)  # doctest: +SKIP
    """

    def __init__(
        self,
        dataset: Any,
        corruption: str,
        severity: int,
        *,
        profile: str = "imagenet",
        seed: int = 0,
        names: Names = None,
        prepare: bool = True,
        transform: Callable[[Any], Any] | None = None,
    ) -> None:
        if not hasattr(dataset, "__getitem__") or not hasattr(dataset, "__len__"):
            raise ArgumentError(
                Arg("dataset"),
                f" must be a map-style dataset (__getitem__ and __len__), got {type(dataset).__name__}",
            )
        if profile not in PROFILES:
            raise ArgumentError(
                Arg("profile"), f" must be one of {', '.join(PROFILES)}, got {profile!r}"
            )
        if names is not None and not callable(names) and len(names) != len(dataset):
            raise ArgumentError(Arg("names"), f": {len(names)} names for {len(dataset)} items")
        self.dataset = dataset
        self.corruption = get_corruption(corruption).name
        self.severity = check_severity(severity)
        self.profile = profile
        self.seed = int(seed)
        self.names = names
        self.prepare = prepare
        self.transform = transform
        self._step = CorruptStep(profile, self.seed)

    def __len__(self) -> int:
        return len(self.dataset)

    def name(self, index: int) -> str:
        """The relative name of item ``index`` (it seeds the item's corruption)."""
        if self.names is None:
            return item_name(self.dataset, index)
        if callable(self.names):
            return str(self.names(index))
        return str(self.names[index])

    def seed_of(self, index: int) -> int:
        """make-c's seed of item ``index``: ``item_seed(seed, "c", corruption, severity, name)``."""
        return self._step.seed_of(self.corruption, self.severity, self.name(index))

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        if index < 0:
            index += len(self)
        image, target = self.dataset[index]
        rgb, kind = _as_rgb(image)
        rel = self.name(index)
        if self.prepare:
            rgb = self._step.prepare(SourceItem(index, rel, array=rgb))
        out: Any = self._step.apply_item(rgb, self.corruption, self.severity, rel)
        if kind == "pil":
            out = Image.fromarray(out)
        elif kind == "tensor":
            out = torch.from_numpy(np.ascontiguousarray(out.transpose(2, 0, 1)))
        if self.transform is not None:
            out = self.transform(out)
        return out, target

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({type(self.dataset).__name__}, corruption={self.corruption!r}, "
            f"severity={self.severity}, profile={self.profile!r}, seed={self.seed}, items={len(self)})"
        )
