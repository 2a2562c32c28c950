"""CPU cost of ``make-c --suite cbar``: an ImageNet-C-bar build (the 10 corruptions x 5 levels at
224 px, JPEG q85 ``optimize=True``) and a CIFAR-10-C-bar build (its 10 x 5 at 32 px, ``.npy``),
measured on a sample of real images and projected to the full datasets (50,000 ImageNet
validation images; the 10,000 CIFAR-10 test images).

Usage::

    .venv/bin/python benchmarks/make_c_bar.py                      # 6 ImageNet + 200 CIFAR images
    .venv/bin/python benchmarks/make_c_bar.py --images 10 --cifar-images 500 --json cbar_build.json
    .venv/bin/python benchmarks/make_c_bar.py --level-names value  # folders named 2.35, ...

What is timed: ``corruptbench.builders.build(..., suite="cbar", workers=1)``, as ``make-c --suite
cbar --workers 1`` runs it in one process: the decode of each source image, Resize(256) +
CenterCrop(224) (CIFAR: none), the 50 corruptions with make-c's item seeds, the 50 JPEG encodes
and atomic writes (CIFAR: the rows of the memory-mapped arrays). The figure is the CPU time of
this process (user + system, ``getrusage``) per image after an untimed warm-up build of one image
(imports, numba cache loads), with the kernels a full build runs (``--kernels jit``, the
default), so ``images x per image`` is the steady-state cost of a full build; a real run adds a
few seconds of start-up once per worker. CPU time, not wall time: the machine may be shared, and
CPU time grows a little when the other cores are busy (the load average is printed).
``benchmarks/cbar.py`` times the corruptions alone against the original.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import CIFAR_DIR, SHARED  # isort: split

import argparse
import json
import os
import pickle
import resource
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

SAMPLE = SHARED / "data" / "imagenet-sample"
#: the full datasets the figures are projected to: ImageNet's validation set, CIFAR-10's test set
FULL = {"imagenet": 50_000, "cifar": 10_000}
LEVELS = [1, 2, 3, 4, 5]


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def imagenet_source(work: Path, n: int) -> Path:
    """Symlinks to the first ``n`` sample photos in one class folder (ImageNet val has 50 per
    class, so a class's output folders are made once per 50 images)."""
    folder = work / "imagenet" / "n01440764"
    folder.mkdir(parents=True)
    for f in sorted(SAMPLE.iterdir())[:n]:
        (folder / f.name).symlink_to(f)
    return folder.parent


def cifar_source(work: Path, n: int) -> Path:
    """A CIFAR python batch (``test_batch``'s format) of ``n`` CIFAR-10 test JPEGs."""
    from PIL import Image

    classes = sorted(p.name for p in CIFAR_DIR.parent.iterdir())
    files = [sorted((CIFAR_DIR.parent / c).iterdir()) for c in classes]
    images, labels = [], []
    for i in range(n):
        with Image.open(files[i % 10][i // 10]) as im:
            images.append(np.asarray(im.convert("RGB")))
        labels.append(i % 10)
    data = np.stack(images).transpose(0, 3, 1, 2).reshape(n, -1)
    work.mkdir(parents=True)
    path = work / "test_batch"
    with open(path, "wb") as fh:
        pickle.dump({b"data": data, b"labels": labels}, fh, protocol=2)
    return path


def timed_build(src: Path, out: Path, profile: str, **kw: Any) -> dict:
    """One in-process build of every image of ``src`` (the profile's benchmark, 5 levels): CPU
    seconds per image and the projection to :data:`FULL`."""
    from corruptbench.builders import build

    fmt = "npy" if profile == "cifar" else "jpeg"
    c0 = cpu_seconds()
    s = build("c", src, out, profile=profile, fmt=fmt, levels=LEVELS, suite="cbar", workers=1,
              progress=False, **kw)  # fmt: skip
    cpu = cpu_seconds() - c0
    if s.failed or s.skipped:
        raise RuntimeError(f"the build failed: {s.failed or s.skipped}")
    per = cpu / s.processed
    return {
        "images": s.processed,
        "written": s.written,
        "cpu_s_per_image": per,
        "full_images": FULL[profile],
        "core_hours_full": FULL[profile] * per / 3600.0,
    }


def measure(work: Path, profile: str, n: int, level_names: str | None) -> dict:
    """Warm up on one image (untimed), then time the build of ``n``."""
    kw = {"level_names": level_names} if profile != "cifar" and level_names else {}
    if profile == "cifar":
        src, one = cifar_source(work / "c", n), cifar_source(work / "c1", 1)
    else:
        src, one = imagenet_source(work / "i", n), imagenet_source(work / "i1", 1)
    timed_build(one, work / f"warm-{profile}", profile, **kw)
    return timed_build(src, work / f"out-{profile}", profile, **kw)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--images", type=int, default=6, help="ImageNet photos (default 6)")
    ap.add_argument("--cifar-images", type=int, default=200, help="CIFAR images (default 200)")
    ap.add_argument("--level-names", choices=("severity", "value"), default=None)
    ap.add_argument("--json", default=None, help="also write the figures to this JSON file")
    ap.add_argument(
        "--kernels",
        choices=("jit", "auto"),
        default="jit",
        help="jit (default): numba's JIT kernels, which a build of 10,000 images or more runs"
        " (engine.BULK_ITEMS), so the figures are those of a full build; auto: the ahead-of-time"
        " kernels where the install has them, as a small build runs",
    )
    args = ap.parse_args(argv)
    if args.images < 1 or args.cifar_images < 1:
        ap.error("--images and --cifar-images must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    os.environ["CORRUPTBENCH_KERNELS"] = args.kernels  # before the kernels load
    if not SAMPLE.is_dir() or not CIFAR_DIR.is_dir():
        print(f"benchmark needs real images: {SAMPLE} and {CIFAR_DIR.parent}", file=sys.stderr)
        return 2
    load0 = os.getloadavg()[0]
    report: dict = {"kernels": args.kernels}
    with tempfile.TemporaryDirectory(prefix="corruptbench-cbar-build-") as tmp:
        for profile, n, what in (
            ("imagenet", args.images, "ImageNet-C-bar, 224 px JPEG q85 optimize"),
            ("cifar", args.cifar_images, "CIFAR-10-C-bar, 32 px .npy"),
        ):
            r = report[profile] = measure(Path(tmp), profile, n, args.level_names)
            print(
                f"{what}: 10 corruptions x 5 levels, {r['images']} images ({r['written']} outputs):"
                f" {r['cpu_s_per_image'] * 1e3:.1f} ms CPU per image -> "
                f"{r['core_hours_full']:.2f} core-hours for {r['full_images']:,} images"
            )
    load1 = os.getloadavg()[0]
    report["load_average"] = [load0, load1]
    print(f"load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
