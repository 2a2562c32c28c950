"""Item readers: how a data-loader worker gets the pixels of one evaluation item.

A reader is a small picklable object sent to the workers with the items; ``read(payload)`` returns
a uint8 image ``(H, W, 3)`` or, when :attr:`Reader.frames`, a sequence ``(T, H, W, 3)``. Errors
of bad input (:class:`~corruptbench.formats.imagenet.ImageLoadError`, ``OSError``,
``ValueError``) mark the item as skipped.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..formats.cifar import load_npy
from ..pipeline import ItemStep, SourceItem

__all__ = [
    "Reader",
    "ImageFileReader",
    "NpyRowReader",
    "VideoReader",
    "ShardMemberReader",
    "ArrayReader",
    "PreparedReader",
    "StepReader",
    "RawReader",
]


class Reader(ABC):
    """Reads one item's pixels (see the module docstring)."""

    frames: bool = False  #: ``read`` returns a sequence of frames
    raw: bool = False  #: the model's preprocessing runs on its device, not in the worker

    @abstractmethod
    def read(self, payload: Any) -> np.ndarray: ...


class ImageFileReader(Reader):
    """An image file (an already corrupted ImageNet-C JPEG); payload: its path."""

    def read(self, payload: Any) -> np.ndarray:
        from ..formats.imagenet import load_image

        return np.asarray(load_image(payload))


class NpyRowReader(Reader):
    """One row of a ``.npy`` array (memory-mapped once per worker); payload: ``(path, row)``.

    ``frames``: rows are sequences (CIFAR-10-P) rather than images (CIFAR-C).
    """

    def __init__(self, frames: bool = False) -> None:
        self.frames = frames
        self._arrays: dict[str, np.ndarray] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"frames": self.frames}  # never ship the memory maps to the workers

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def read(self, payload: Any) -> np.ndarray:
        path, row = payload
        arr = self._arrays.get(path)
        if arr is None:
            arr = load_npy(path)
            self._arrays[path] = arr
        return np.asarray(arr[row])


class VideoReader(Reader):
    """An ImageNet-P MP4 (PyAV); payload: its path."""

    frames = True

    def read(self, payload: Any) -> np.ndarray:
        from ..formats.video import read_mp4

        return read_mp4(payload)


class ShardMemberReader(Reader):
    """One member of a WebDataset tar shard; payload: ``(shard path, offset, size)``. ``media``:
    ``jpg`` / ``png`` (an image), ``mp4`` (a sequence, PyAV) or ``npy`` (a ``(T, H, W, 3)`` sequence).
    """

    def __init__(self, media: str) -> None:
        self.media = media
        self.frames = media in ("mp4", "npy")

    def read(self, payload: Any) -> np.ndarray:
        import io

        from ..formats.webdataset import read_member

        data = io.BytesIO(read_member(*payload))
        if self.media == "npy":
            return np.load(data, allow_pickle=False)
        if self.media == "mp4":
            from ..formats.video import read_mp4

            return read_mp4(data)
        from ..formats.imagenet import load_image

        return np.asarray(load_image(data))


class ArrayReader(Reader):
    """Pixels already in memory; payload: the array."""

    def __init__(self, frames: bool = False) -> None:
        self.frames = frames

    def read(self, payload: Any) -> np.ndarray:
        return np.asarray(payload)


@dataclass(frozen=True)
class PreparedReader(Reader):
    """A clean source item after the step's preparation (no corruption); payload: the item."""

    step: ItemStep

    def read(self, payload: SourceItem) -> np.ndarray:
        return self.step.prepare(payload)


@dataclass(frozen=True)
class StepReader(Reader):
    """make-c / make-p pixels computed here: ``step.apply_item(step.prepare(item), name, level,
    item.rel)``; payload: ``(item, name, level)``."""

    step: ItemStep

    @property
    def frames(self) -> bool:  # type: ignore[override]
        return self.step.kind == "p"

    def read(self, payload: tuple[SourceItem, str, int]) -> np.ndarray:
        item, name, level = payload
        return self.step.apply_item(self.step.prepare(item), name, level, item.rel)


@dataclass(frozen=True)
class RawReader(Reader):
    """The prepared clean item, to be corrupted on the model's device; payload: the item."""

    step: ItemStep
    raw = True

    def read(self, payload: SourceItem) -> np.ndarray:
        return np.asarray(self.step.prepare(payload), dtype=np.uint8)
