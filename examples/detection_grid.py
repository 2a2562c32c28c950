"""Object detection under corruption (COCO-C style): ``make-c --layout tree``, then box AP per cell
with pycocotools through :func:`corruptbench.evaluate_grid`, then P, mPC and rPC (Michaelis et
al. 2019) and a report.

A torchvision detector on your COCO val2017 (``pip install "corruptbench[detection]" torchvision``;
pretrained weights are downloaded by torchvision unless ``--weights`` names a file)::

    python examples/detection_grid.py --coco /data/coco --work coco-c --limit 500 \\
        --model fasterrcnn_resnet50_fpn --out frcnn.json --report frcnn.html

The known answer (no detector, no download; pycocotools only): a small COCO-style dataset of real
photos with four boxes each, corrupted by make-c, and per cell "predictions" taken from the ground
truth and degraded by a known rule (severity s drops boxes, the corruption's family shifts them),
so the AP of every cell, and P, mPC and rPC, are known in closed form; the script checks them::

    python examples/detection_grid.py --known-answer --photos ../shared/data/imagenet-sample \\
        --work /tmp/det --report /tmp/det/report.html
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

import corruptbench
from corruptbench.builders import build_tree
from corruptbench.extras import require
from corruptbench.fileio import write_text
from corruptbench.registry import corruption_registry
from corruptbench.report import render_report, report_format

IMAGES, ANNOTATIONS = "val2017", "annotations/instances_val2017.json"

#: a detection of an image: ([x, y, w, h], score, COCO category id)
Detection = tuple[list[float], float, int]
Predict = Callable[[Path, dict[str, Any]], list[Detection]]


# ------------------------------------------------------------------------------------------------
# box AP of one dataset root (a cell of the tree, or the clean data)
# ------------------------------------------------------------------------------------------------
def coco_box_ap(root: Path, predict: Predict, images: str, annotations: str) -> float:
    """COCO box AP (IoU .50:.95, all areas, 100 detections: ``COCOeval.stats[0]``) of
    ``predict`` on the images of ``root/images`` that the annotations list."""
    require("pycocotools", "the detection example")
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    with contextlib.redirect_stdout(io.StringIO()):  # pycocotools prints as it goes
        gt = COCO(str(root / annotations))
    present = [
        i for i in sorted(gt.getImgIds()) if (root / images / gt.imgs[i]["file_name"]).is_file()
    ]
    if not present:
        raise SystemExit(f"{root / images}: none of the annotated images is there")
    dets = []
    for img_id in present:
        info = gt.imgs[img_id]
        for box, score, category in predict(root / images / info["file_name"], info):
            dets.append({"image_id": img_id, "bbox": box, "score": score, "category_id": category})
    if not dets:
        return 0.0
    with contextlib.redirect_stdout(io.StringIO()):
        ev = COCOeval(gt, gt.loadRes(dets), "bbox")
        ev.params.imgIds = present
        ev.evaluate()
        ev.accumulate()
        ev.summarize()
    return float(ev.stats[0])


# ------------------------------------------------------------------------------------------------
# a torchvision detector
# ------------------------------------------------------------------------------------------------
def torchvision_predict(model_name: str, weights: str, device: str) -> Predict:
    """A torchvision detection model as a :data:`Predict` (its labels are COCO category ids)."""
    try:
        import torch
        import torchvision
        from torchvision.transforms.functional import pil_to_tensor
    except ImportError:
        raise SystemExit(
            "the real-model mode needs torchvision: pip install torchvision (or run --known-answer)"
        ) from None
    if weights in ("DEFAULT", "none"):
        model = torchvision.models.get_model(
            model_name, weights=None if weights == "none" else "DEFAULT", weights_backbone=None
        )
    else:
        model = torchvision.models.get_model(model_name, weights=None, weights_backbone=None)
        model.load_state_dict(torch.load(weights, map_location="cpu", weights_only=True))
    model.eval().to(device)

    def predict(path: Path, info: dict[str, Any]) -> list[Detection]:
        with Image.open(path) as im:
            x = pil_to_tensor(im.convert("RGB")).float().div(255).to(device)
        with torch.inference_mode():
            (out,) = model([x])
        boxes = out["boxes"].cpu().tolist()
        return [
            ([x0, y0, x1 - x0, y1 - y0], float(s), int(c))
            for (x0, y0, x1, y1), s, c in zip(boxes, out["scores"].tolist(), out["labels"].tolist())
        ]

    return predict


def stage_coco(coco: Path, work: Path, images: str, annotations: str, limit: int | None) -> Path:
    """A dataset root with only what make-c should see: ``images`` (the first ``limit``, as links)
    and the annotations file (a link), so train2017 and the other JSON files are left alone."""
    src = work / "coco-src"
    files = sorted(p for p in (coco / images).iterdir() if p.suffix.lower() in (".jpg", ".png"))
    for f in files[:limit]:
        link = src / images / f.name
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(f.resolve())
    ann = src / annotations
    ann.parent.mkdir(parents=True, exist_ok=True)
    if not ann.exists():
        ann.symlink_to((coco / annotations).resolve())
    return src


# ------------------------------------------------------------------------------------------------
# the known answer
# ------------------------------------------------------------------------------------------------
BOX_W, BOX_H = 40, 30
#: boxes per image, far apart (a shifted box overlaps only its own ground truth)
BOX_CORNERS = ((8, 8), (100, 8), (8, 80), (100, 80))
#: boxes dropped per image at severity 0 (clean), 1, ..., 5: recall 1, 1, .75, .75, .5, .25
DROPPED = (0, 0, 1, 1, 2, 3)
#: horizontal shift (pixels) by family, and how many of COCO's 10 IoU thresholds (.50:.05:.95)
#: the shifted box still passes: IoU = (40 - dx) / (40 + dx) = 1, 0.702, 0.569
SHIFT = {"noise": (0, 10), "blur": (7, 5), "weather": (11, 2), "digital": (7, 5), "clean": (0, 10)}


def cell_of(root: Path, work: Path) -> tuple[str, int]:
    """(family, severity) of a dataset root: ``work/coco-c/<corruption>/<severity>`` or clean."""
    if root == work / "coco-src":
        return "clean", 0
    info = corruption_registry()[root.parent.name]
    return str(info.family), int(root.name)


def known_ap(family: str, severity: int) -> float:
    """COCO AP of the degraded ground truth: precision is 1 up to the recall r kept and 0 after,
    at the IoU thresholds the shift passes (m of 10) and 0 at the others, so on the 101 recall
    points AP = m / 10 * (100 r + 1) / 101."""
    kept = len(BOX_CORNERS) - DROPPED[severity]
    recall = kept / len(BOX_CORNERS)
    return SHIFT[family][1] / 10 * (100 * recall + 1) / 101


def make_known_dataset(photos: Path, work: Path, n: int = 3) -> Path:
    """``work/coco-src``: n real photos at 160 x 120 in ``val2017/`` and their COCO annotations."""
    src = work / "coco-src"
    (src / IMAGES).mkdir(parents=True, exist_ok=True)
    (src / "annotations").mkdir(exist_ok=True)
    files = sorted(p for p in photos.iterdir() if p.suffix.lower() in (".jpeg", ".jpg"))[:n]
    if len(files) < n:
        raise SystemExit(f"{photos}: fewer than {n} JPEG photos")
    images, anns = [], []
    for i, f in enumerate(files, 1):
        name = f"{i:012d}.jpg"
        with Image.open(f) as im:
            im.convert("RGB").resize((160, 120), Image.Resampling.BICUBIC).save(
                src / IMAGES / name, quality=90
            )
        images.append({"id": i, "file_name": name, "width": 160, "height": 120})
        for x, y in BOX_CORNERS:
            anns.append(
                {
                    "id": len(anns) + 1,
                    "image_id": i,
                    "category_id": 1,
                    "bbox": [x, y, BOX_W, BOX_H],
                    "area": BOX_W * BOX_H,
                    "iscrowd": 0,
                }
            )
    doc = {"images": images, "annotations": anns, "categories": [{"id": 1, "name": "object"}]}
    (src / ANNOTATIONS).write_text(json.dumps(doc))
    return src


def oracle_predict(family: str, severity: int, gt: dict[int, list[list[float]]]) -> Predict:
    """The ground truth of each image minus ``DROPPED[severity]`` boxes, shifted by the family's
    ``SHIFT``; the image itself is read (it must be the cell's, at the annotated size)."""
    dx = SHIFT[family][0]

    def predict(path: Path, info: dict[str, Any]) -> list[Detection]:
        with Image.open(path) as im:
            im.load()
            if im.size != (info["width"], info["height"]):
                raise SystemExit(f"{path}: {im.size}, the annotations say {info}")
        boxes = gt[info["id"]][: len(BOX_CORNERS) - DROPPED[severity]]
        return [([x + dx, y, w, h], 1.0, 1) for x, y, w, h in boxes]

    return predict


def known_answer_score(work: Path) -> Callable[[Path], float]:
    def score(root: Path) -> float:
        family, severity = cell_of(root, work)
        doc = json.loads((root / ANNOTATIONS).read_text())  # the cell's link to the copied file
        gt: dict[int, list[list[float]]] = {}
        for a in doc["annotations"]:
            gt.setdefault(a["image_id"], []).append(a["bbox"])
        return coco_box_ap(root, oracle_predict(family, severity, gt), IMAGES, ANNOTATIONS)

    return score


# ------------------------------------------------------------------------------------------------
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--known-answer", action="store_true", help="the check without a detector")
    p.add_argument("--photos", type=Path, help="--known-answer: a folder of JPEG photos")
    p.add_argument("--coco", type=Path, help="COCO root (with val2017/ and annotations/)")
    p.add_argument("--images", default=IMAGES, help="image folder under --coco")
    p.add_argument("--annotations", default=ANNOTATIONS, help="annotations file under --coco")
    p.add_argument("--limit", type=int, default=None, help="use the first N images")
    p.add_argument("--model", default="fasterrcnn_mobilenet_v3_large_320_fpn")
    p.add_argument("--weights", default="DEFAULT", help="DEFAULT (download), none, or a .pth file")
    p.add_argument("--device", default="cpu")
    p.add_argument("--corruptions", default="benchmark", help="subset or names (default benchmark)")
    p.add_argument("--partial", action="store_true", help="mPC over fewer than the 15 benchmark")
    p.add_argument("--workers", type=int, default=1, help="make-c processes")
    p.add_argument("--work", type=Path, required=True, help="folder for the build")
    p.add_argument("--out", type=Path, default=None, help="results JSON (resumed if it exists)")
    p.add_argument("--report", type=Path, default=None, help="report: .html, .md or .csv")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    require("pycocotools", "the detection example")
    work: Path = args.work
    if args.known_answer:
        if args.photos is None:
            raise SystemExit("--known-answer needs --photos DIR")
        src = make_known_dataset(args.photos, work)
        score, images, annotations = known_answer_score(work), IMAGES, ANNOTATIONS
        name, corruptions = "ground truth, degraded", "benchmark"
    else:
        if args.coco is None:
            raise SystemExit("give --coco ROOT (or --known-answer)")
        predict = torchvision_predict(args.model, args.weights, args.device)
        src = stage_coco(args.coco, work, args.images, args.annotations, args.limit)
        images, annotations = args.images, args.annotations
        name, corruptions = args.model, args.corruptions

        def score(root: Path) -> float:
            return coco_box_ap(root, predict, images, annotations)

    # make-c --layout tree SRC OUT --corruptions benchmark --copy-files <annotations>
    summary = build_tree(
        src,
        work / "coco-c",
        corruptions=corruptions,
        copy_files=[annotations],
        workers=args.workers,
    )
    if summary.exit_code:
        raise SystemExit(f"make-c failed for {len(summary.failed)} images; see {work / 'coco-c'}")
    try:
        res = corruptbench.evaluate_grid(
            score,
            work / "coco-c",
            clean=src,
            partial=args.partial,
            name=name,
            metric="box AP",
            out=args.out,
            log=None,
        )
    except ValueError as exc:  # a grid it cannot summarise (e.g. a clean AP of 0): one line
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"P   = {res.clean_score:.4f}  (box AP, clean)")
    print(f"mPC = {res.mpc:.4f}  (mean box AP over {len(res.score.scores)} corruptions x 5)")
    print(f"rPC = {100 * res.rpc:.1f}%")
    if args.report is not None:
        text = render_report([res], report_format(args.report), contact_sheet=False)
        write_text(args.report, text, make_parents=True)  # atomic: complete or absent
        print(f"report: {args.report}")
    if args.out is not None:
        print(f"results: {args.out}")
    if args.known_answer:
        return check_known_answer(res, work)
    return 0


def check_known_answer(res: Any, work: Path) -> int:
    """Every cell's AP against :func:`known_ap`; P, mPC, rPC against their closed forms."""
    wrong = []
    for corruption, values in res.score.scores.items():
        family = str(corruption_registry()[corruption].family)
        for sev, ap in enumerate(values, 1):
            if abs(ap - known_ap(family, sev)) > 1e-12:
                wrong.append(f"{corruption}/{sev}: AP {ap} but {known_ap(family, sev)} expected")
    names = list(res.score.scores)
    mpc = sum(known_ap(str(corruption_registry()[n].family), s) for n in names for s in range(1, 6))
    mpc /= 5 * len(names)
    p = known_ap("clean", 0)
    if abs(res.clean_score - p) > 1e-12 or abs(res.mpc - mpc) > 1e-12:
        wrong.append(f"P {res.clean_score}, mPC {res.mpc}: expected {p}, {mpc}")
    for line in wrong:
        print(f"known answer: {line}", file=sys.stderr)
    print(
        f"known answer: P = {p:.6f}, mPC = {mpc:.6f}, rPC = {mpc / p:.6f}: "
        + ("matched" if not wrong else "MISMATCH")
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
