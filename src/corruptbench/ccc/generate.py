"""CCC's images: each shard's sample order, crops, corruptions and JPEGs, written or streamed.

Per shard (one "serial" of :mod:`corruptbench.ccc.plan`), as ``generate.py``'s ``ApplyTransforms``
and ``write_dataset`` of github.com/oripress/CCC (MIT) do:

1. for each step of the shard, in order: the source list is shuffled (``np.random.shuffle``)
   and its first ``speed`` images are the step's (all the shard's shuffles come before any image
   is made: the original builds every step's dataset, then writes the shard);
2. for each image: ``Image.open(path).convert("RGB")``; torchvision's ``RandomHorizontalFlip``
   then ``RandomResizedCrop(224)`` on PyTorch's generator (:func:`random_resized_crop`); the two
   corruptions on NumPy's (:func:`corruptbench.ccc.functions.corrupt_pair`); JPEG at quality 85
   with ``optimize=True`` (Pillow);
3. the sample: ``input.jpg``, ``output.cls`` (the class index), ``info``
   (``++dir++<class>++name++<file>++n1++<n1>++s1++<s1>++n2++<n2>++s2++<s2>``), key
   ``sample_<k>`` (``k`` counts within the shard); the shard is ``serial_<5 digits>.tar``.

Where the original depends on how it was run, and what we do instead:

- Process count: process ``r`` of ``P`` seeds NumPy and PyTorch once with the run's seed and
  draws only for its own serials ``r, r + P, ...`` (skipped serials consume nothing), so a
  serial's images, crops and noise change with ``P``; with ``P`` at least the number of serials,
  every serial starts from the seed itself and repeats serial 0's image picks and crops. Here
  each shard starts from its own seed: ``draws="independent"`` (the default) derives it from
  ``(seed, serial)`` (``SeedSequence``); ``draws="reference"`` starts every shard from ``seed``
  itself, the original's output for serials below ``P``, serial 0 for any ``P``.
- Source order: the original shuffles ``os.walk``'s listing, whose order is the file system's;
  here the sorted listing (:func:`corruptbench.formats.imagenet.scan_image_folder`).
- Labels: the original's index of the class folder among ``sorted(os.listdir(root))``; here the
  ImageNet index of the wnid (the same for a complete ImageNet validation folder), or the sorted
  class index when the classes are not wnids.
- glass blur: see :mod:`corruptbench.ccc.functions` (numba's unseedable draws).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from ..errors import Arg, ArgumentError
from ..formats.imagenet import is_wnid, scan_image_folder, wnid_to_index
from ..formats.images import load_image
from ..formats.jpeg import encode_jpeg
from .functions import SIZE, corrupt_pair
from .plan import RunPlan, Shard, Step

__all__ = [
    "check_out_outside",
    "Source",
    "SampleRecord",
    "DRAWS",
    "scan_source",
    "shard_seed",
    "random_resized_crop",
    "crop_box",
    "apply_crop",
    "CropBox",
    "shard_picks",
    "shard_records",
    "parse_info",
    "make_sample",
    "crop_sample",
    "sample_jpeg",
    "crops_generator",
]

#: how a shard's NumPy / PyTorch generators are seeded (see the module docstring)
DRAWS = ("independent", "reference")


@dataclass(frozen=True)
class Source:
    """The source images: paths (sorted), their ``(class, file)`` names and labels."""

    root: Path
    paths: tuple[Path, ...]
    names: tuple[tuple[str, str], ...]
    labels: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.paths)


def scan_source(root: str | os.PathLike[str]) -> Source:
    """The labelled images of ``root`` (class folders, or a flat folder of wnid-named files)."""
    if not Path(root).is_dir():
        raise ArgumentError(Arg("data"), f" is not a folder: {root}")
    scan = scan_image_folder(root)
    items = [it for it in scan.items if it.label is not None]
    if not items:
        raise ArgumentError(
            Arg("data"),
            f" {root} has no labelled images (class sub-folders, or files named <wnid>_...)",
        )
    classes = sorted({str(it.label) for it in items})
    others = [c for c in classes if not is_wnid(c)]
    wnids = not others
    if others and len(others) < len(classes):  # one stray folder would re-number every label
        raise ArgumentError(
            Arg("data"),
            f" {root} mixes ImageNet wnid classes with {len(others)} other(s) "
            f"({', '.join(repr(c) for c in others[:3])}): the labels would be folder indices, "
            "not ImageNet's; move those out, or give classes of one kind",
        )
    labels = tuple(
        wnid_to_index(str(it.label)) if wnids else classes.index(str(it.label)) for it in items
    )
    names = tuple((str(it.label), it.path.name) for it in items)
    return Source(Path(root), tuple(it.path for it in items), names, labels)


def check_out_outside(out: str | os.PathLike[str], data: str | os.PathLike[str]) -> None:
    """Refuse an OUT that is the source folder or inside it (its files would join the source
    listing on the next run), in one line."""
    o, d = Path(out).resolve(), Path(data).resolve()
    if o == d or d in o.parents:
        raise ArgumentError(
            Arg("out"), f" {out} must not be the --data folder {data} or inside it; choose another"
        )


def shard_seed(seed: int, serial: int, draws: str = "independent") -> int:
    """The seed a shard's NumPy and PyTorch generators start from."""
    if draws == "reference":
        return int(seed)
    if draws != "independent":
        raise ArgumentError(Arg("draws"), f" must be one of {', '.join(DRAWS)}, got {draws!r}")
    return int(np.random.SeedSequence([int(seed), int(serial)]).generate_state(1)[0])


@functools.cache
def _log_ratio() -> tuple[float, float]:
    """``torch.log(torch.tensor((3 / 4, 4 / 3)))`` as floats (float32 values), computed once."""
    import torch

    lo, hi = torch.log(torch.tensor((3.0 / 4.0, 4.0 / 3.0)))
    return float(lo), float(hi)


#: a crop's flip and box: ``(flip, top, left, height, width)`` in the unflipped image
CropBox = tuple[bool, int, int, int, int]


def random_resized_crop(img: Image.Image, g: Any) -> Image.Image:
    """torchvision's ``Compose([RandomHorizontalFlip(), RandomResizedCrop(224)])`` of a PIL
    image on the PyTorch generator ``g``: the same calls, in the same order, as torchvision >= 0.8
    (``transforms.py``: ``torch.rand(1) < 0.5``; ``get_params``: up to ten tries of
    ``uniform_(0.08, 1)`` area and ``exp(uniform_(log 3/4, log 4/3))`` ratio, then
    ``randint`` top and left, else the central fallback), then ``crop`` and a bilinear resize.
    A flip is applied to the crop (the mirrored box of the unflipped image) instead of the whole
    image: the same pixels, less work."""
    return apply_crop(img, crop_box(img.width, img.height, g))


def crop_box(width: int, height: int, g: Any) -> CropBox:
    """:func:`random_resized_crop`'s draws on ``g`` for an image of this size: they depend on the
    size alone, so a shard's boxes can be drawn before (and apart from) its images' decoding."""
    import torch

    flip = bool(torch.rand(1, generator=g) < 0.5)
    area = height * width
    log_lo, log_hi = _log_ratio()
    for _ in range(10):
        target_area = area * torch.empty(1).uniform_(0.08, 1.0, generator=g).item()
        aspect = torch.exp(torch.empty(1).uniform_(log_lo, log_hi, generator=g)).item()
        w = int(round(math.sqrt(target_area * aspect)))
        h = int(round(math.sqrt(target_area / aspect)))
        if 0 < w <= width and 0 < h <= height:
            i = int(torch.randint(0, height - h + 1, size=(1,), generator=g).item())
            j = int(torch.randint(0, width - w + 1, size=(1,), generator=g).item())
            break
    else:
        in_ratio = float(width) / float(height)
        if in_ratio < 3.0 / 4.0:
            w, h = width, int(round(width / (3.0 / 4.0)))
        elif in_ratio > 4.0 / 3.0:
            h, w = height, int(round(height * (4.0 / 3.0)))
        else:
            w, h = width, height
        i, j = (height - h) // 2, (width - w) // 2
    return flip, i, j, h, w


def apply_crop(img: Image.Image, box: CropBox) -> Image.Image:
    """The crop of :func:`crop_box`'s box, mirrored when flipped, resized to 224 (bilinear)."""
    flip, i, j, h, w = box
    width = img.width
    if flip:  # columns j .. j + w of the flipped image: width - j - w .. width - j, mirrored
        crop = img.crop((width - j - w, i, width - j, i + h))
        crop = crop.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    else:
        crop = img.crop((j, i, j + w, i + h))
    return crop.resize((SIZE, SIZE), Image.Resampling.BILINEAR)


def shard_picks(shard: Shard, n_source: int, rng: np.random.RandomState) -> list[list[int]]:
    """Each step's source indices: ``rng.shuffle`` of the listing, first ``speed`` (the
    original's ``np.random.shuffle(all_paths)[:freq]``: the same draws on a list of indices)."""
    if shard.speed > n_source:
        raise ArgumentError(
            Arg("speed"),
            f" {shard.speed} exceeds the {n_source} source images (a step's images are distinct)",
        )
    picks = []
    for _ in shard.steps:
        order = list(range(n_source))
        rng.shuffle(order)
        picks.append(order[: shard.speed])
    return picks


@dataclass(frozen=True)
class SampleRecord:
    """One sample of a shard before its image is made."""

    index: int  #: in the run
    key: str  #: ``sample_<k>`` in the shard
    step: Step
    source: int  #: index into the Source
    info: str
    label: int


def _info(names: tuple[str, str], step: Step) -> str:
    return (
        f"++dir++{names[0]}++name++{names[1]}++n1++{step.n1}++s1++{step.s1}"
        f"++n2++{step.n2}++s2++{step.s2}"
    )


def parse_info(info: str) -> dict[str, str]:
    """A sample's ``info`` string read back: ``dir``, ``name``, ``n1``, ``s1``, ``n2``, ``s2``.

    Raises:
        ValueError: not an info string of a CCC sample.
    """
    parts = info.split("++")
    keys = ("dir", "name", "n1", "s1", "n2", "s2")
    if len(parts) != 13 or parts[0] or tuple(parts[1::2]) != keys:
        raise ValueError(f"not a CCC sample's info string: {info[:80]!r}")
    return dict(zip(keys, parts[2::2]))


def shard_records(
    shard: Shard, source: Source, seed: int, draws: str = "independent"
) -> tuple[list[SampleRecord], np.random.RandomState]:
    """The shard's samples in order and its NumPy generator after the shuffles (where the
    images' corruption draws continue)."""
    rng = np.random.RandomState(shard_seed(seed, shard.serial, draws))
    picks = shard_picks(shard, len(source), rng)
    records = []
    k = 0
    for step, chosen in zip(shard.steps, picks):
        for src in chosen:
            records.append(
                SampleRecord(
                    shard.first_image + k,
                    f"sample_{k}",
                    step,
                    src,
                    _info(source.names[src], step),
                    source.labels[src],
                )
            )
            k += 1
    return records, rng


def crop_sample(record: SampleRecord, source: Source, g: Any) -> np.ndarray:
    """One sample's clean crop (224 x 224 x 3 uint8): load, flip + crop on ``g``."""
    return np.asarray(random_resized_crop(load_image(source.paths[record.source]), g))


def sample_jpeg(x: np.ndarray) -> bytes:
    """A corrupted crop as the sample's JPEG: the bytes of Pillow's ``save(format="JPEG",
    quality=85, optimize=True)``, made faster."""
    return encode_jpeg(np.ascontiguousarray(x), 85)


def make_sample(record: SampleRecord, source: Source, rng: np.random.RandomState, g: Any) -> bytes:
    """One sample's JPEG (quality 85, optimize=True): load, flip + crop on ``g``, the two
    corruptions on ``rng``."""
    step = record.step
    x = corrupt_pair(crop_sample(record, source, g), step.n1, step.s1, step.n2, step.s2, rng)
    return sample_jpeg(x)


def shard_samples(
    shard: Shard, source: Source, seed: int, draws: str = "independent"
) -> Iterator[tuple[SampleRecord, bytes]]:
    """The shard's samples with their JPEG bytes, made in order."""
    records, rng = shard_records(shard, source, seed, draws)
    g = crops_generator(shard, seed, draws)
    for rec in records:
        yield rec, make_sample(rec, source, rng, g)


def crops_generator(shard: Shard, seed: int, draws: str = "independent") -> Any:
    """The PyTorch generator of a shard's flips and crops (seeded as its NumPy one)."""
    import torch

    return torch.Generator().manual_seed(shard_seed(seed, shard.serial, draws))


def check_plan_source(plan: RunPlan, source: Source) -> None:
    """Refuse a speed above the source's size, or a missing PyTorch (the crops' generator),
    before anything is written."""
    from ..models.errors import require_modules

    require_modules("CCC's crops draw from PyTorch's generator (torchvision's procedure)", "torch")
    if plan.speed > len(source):
        raise ArgumentError(
            Arg("speed"),
            f" {plan.speed} exceeds the {len(source)} images of {source.root} (a step's images are distinct)",
        )


def shard_file(serial: int) -> str:
    """A shard's file name, as the original's (``serial_00042.tar``)."""
    return f"serial_{serial:05d}.tar"
