"""How an image prepared by the benchmark becomes model input: :class:`Preprocessing`, CLAHE."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .errors import ModelSourceError

__all__ = [
    "IMAGENET_MEAN",
    "IMAGENET_STD",
    "ENHANCEMENTS",
    "CLAHE_CLIP_LIMIT",
    "CLAHE_TILE_GRID",
    "clahe",
    "Preprocessing",
    "as_preprocessing",
]

IMAGENET_MEAN: tuple[float, float, float] = (0.485, 0.456, 0.406)
IMAGENET_STD: tuple[float, float, float] = (0.229, 0.224, 0.225)

#: ``--preprocess`` choices (image enhancement applied before normalisation)
ENHANCEMENTS: tuple[str, ...] = ("none", "clahe")

#: CLAHE settings for ``--preprocess clahe`` (OpenCV defaults for the tile grid, clip limit 2.0)
CLAHE_CLIP_LIMIT = 2.0
CLAHE_TILE_GRID = (8, 8)


def clahe(image: np.ndarray) -> np.ndarray:
    """Histogram-equalisation enhancement (the paper's "histogram equalization" defence option).

    OpenCV CLAHE (``clipLimit=2.0``, ``tileGridSize=(8, 8)``) on the L channel of the 8-bit Lab
    image; a and b are kept. Input and output: uint8 RGB ``(H, W, 3)``.
    """
    import cv2

    arr = np.ascontiguousarray(image, dtype=np.uint8)
    lab = cv2.cvtColor(arr, cv2.COLOR_RGB2LAB)
    op = cv2.createCLAHE(clipLimit=CLAHE_CLIP_LIMIT, tileGridSize=CLAHE_TILE_GRID)
    lab[..., 0] = op.apply(np.ascontiguousarray(lab[..., 0]))
    return cv2.cvtColor(lab, cv2.COLOR_LAB2RGB)


@dataclass(frozen=True)
class Preprocessing:
    """How an image already prepared by the benchmark becomes model input.

    Steps, in order (:meth:`prepare` runs 1-2 in the data-loader workers on uint8 images,
    :meth:`normalize` runs 3 on the batch):

    1. ``enhance="clahe"``: :func:`clahe` (CLAHE on L of Lab, clip limit 2.0, 8 x 8 tiles).
    2. If the image is not ``input_size`` x ``input_size``: resize to exactly that size with
       ``interpolation`` (PIL bilinear by default). ImageNet-C images (224) reach a 224 model
       untouched; EfficientNet-Lite1 gets 224 -> 240.
    3. ``/255`` to [0, 1], then ``(x - mean) / std`` per channel.
    """

    input_size: int = 224
    mean: tuple[float, float, float] = IMAGENET_MEAN
    std: tuple[float, float, float] = IMAGENET_STD
    interpolation: str = "bilinear"
    enhance: str = "none"

    def __post_init__(self) -> None:
        if int(self.input_size) < 1:
            raise ModelSourceError(f"input_size must be positive, got {self.input_size}")
        if self.enhance not in ENHANCEMENTS:
            raise ModelSourceError(
                f"unknown preprocessing enhancement {self.enhance!r}; choose from {ENHANCEMENTS}"
            )
        if self.interpolation not in ("bilinear", "bicubic", "nearest"):
            raise ModelSourceError(f"unknown interpolation {self.interpolation!r}")
        object.__setattr__(self, "input_size", int(self.input_size))
        object.__setattr__(self, "mean", tuple(float(v) for v in self.mean))
        object.__setattr__(self, "std", tuple(float(v) for v in self.std))

    def describe(self) -> str:
        """One line for results files: every step with its numbers."""
        steps = []
        if self.enhance == "clahe":
            steps.append(
                f"CLAHE on L of Lab (clipLimit {CLAHE_CLIP_LIMIT:g}, tiles "
                f"{CLAHE_TILE_GRID[0]}x{CLAHE_TILE_GRID[1]})"
            )
        s = self.input_size
        steps.append(f"{self.interpolation} resize to {s}x{s} only if the image is not {s}x{s}")
        steps.append(
            "/255, normalise mean ("
            + ", ".join(f"{v:g}" for v in self.mean)
            + ") std ("
            + ", ".join(f"{v:g}" for v in self.std)
            + ")"
        )
        return "; ".join(steps)

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """uint8 RGB ``(H, W, 3)`` -> uint8 RGB ``(input_size, input_size, 3)`` (steps 1-2)."""
        arr = np.asarray(image)
        if self.enhance == "clahe":
            arr = clahe(arr)
        s = self.input_size
        if arr.shape[0] != s or arr.shape[1] != s:
            from PIL import Image

            resample = {
                "bilinear": Image.Resampling.BILINEAR,
                "bicubic": Image.Resampling.BICUBIC,
                "nearest": Image.Resampling.NEAREST,
            }[self.interpolation]
            arr = np.asarray(Image.fromarray(arr).resize((s, s), resample))
        return np.ascontiguousarray(arr, dtype=np.uint8)

    def normalize(self, batch: Any) -> Any:
        """uint8 ``(N, 3, S, S)`` torch tensor -> normalised float32 tensor on the same device."""
        import torch

        x = batch.to(torch.float32).div_(255.0)
        mean = torch.tensor(self.mean, dtype=torch.float32, device=x.device).view(1, 3, 1, 1)
        std = torch.tensor(self.std, dtype=torch.float32, device=x.device).view(1, 3, 1, 1)
        return x.sub_(mean).div_(std)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["mean"], d["std"] = list(self.mean), list(self.std)
        return d


def as_preprocessing(obj: Any, where: str) -> Preprocessing:
    if obj is None:
        return Preprocessing()
    if isinstance(obj, Preprocessing):
        return obj
    if isinstance(obj, dict):
        allowed = {"input_size", "mean", "std", "interpolation", "enhance"}
        unknown = set(obj) - allowed
        if unknown:
            raise ModelSourceError(
                f"{where}: unknown preprocessing keys {sorted(unknown)}; allowed {sorted(allowed)}"
            )
        return Preprocessing(**obj)
    raise ModelSourceError(
        f"{where}: preprocessing must be a corruptbench.models.Preprocessing, a dict or None, "
        f"got {type(obj).__name__}"
    )
