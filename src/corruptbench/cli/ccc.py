"""``corruptbench ccc calibrate | generate``: CCC's accuracy matrices and runs, made locally.

``calibrate`` measures a model's accuracy on every ordered corruption pair at every severity pair
(:func:`corruptbench.ccc.calibrate.calibrate`); ``generate`` writes one CCC run as WebDataset
shards (:func:`corruptbench.ccc.runs.generate`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import Arg, ArgumentError
from ..tables.ccc import IMAGES_PER_RUN, IMAGES_PER_SHARD

__all__ = ["register", "run_calibrate", "run_generate", "add_run_args", "run_kwargs"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ccc",
        help="CCC (continuously changing corruptions): calibrate matrices, generate runs",
        description="CCC (Press et al., RDumb, NeurIPS 2023) without its server.",
    )
    ccc_sub = p.add_subparsers(
        dest="ccc_command", metavar="SUBCOMMAND", help="calibrate or generate"
    )
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])

    c = ccc_sub.add_parser(
        "calibrate",
        help="a model's accuracy on each corruption pair x severity pair",
        description="Accuracy (percent) of a model on every ordered pair of the corruptions at "
        "every severity pair of the 21 x 21 grid; writes OUT/ccc_accuracy_matrix.npz. "
        "Resumable (finished pairs are kept) and the same for any --workers.",
    )
    c.add_argument(
        "--data", required=True, help="labelled ImageNet images (class folders or wnid_ files)"
    )
    c.add_argument(
        "--out", required=True, help="folder for the settings, the pairs and the matrices"
    )
    c.add_argument(
        "--model", default="efficientnet_lite0", help="model source (as eval-c's --model)"
    )
    c.add_argument("--device", default="cpu", help="where the model runs: cpu, cuda, cuda:1")
    c.add_argument("--images", type=int, default=100, help="calibration images (default 100)")
    c.add_argument(
        "--baseline", type=float, default=20, help="use this baseline's corruptions (40 / 20 / 0)"
    )
    c.add_argument("--corruptions", help="comma-separated CCC names instead of the baseline's")
    c.add_argument(
        "--levels",
        type=int,
        default=1,
        help="compute every k-th severity level (1: all 21; 2: 11 levels, the rest interpolated)",
    )
    c.add_argument("--seed", type=int, default=0, help="seed of the images' choice and draws")
    c.add_argument("--workers", type=int, default=0, help="processes (0: this one)")
    c.set_defaults(func=run_calibrate)

    g = ccc_sub.add_parser(
        "generate",
        help="write one CCC run (baseline, speed, seed) as WebDataset shards",
        description="Write OUT/baseline_<b>_transition+speed_<v>_seed_<s>/serial_NNNNN.tar "
        "(input.jpg, output.cls, info), resumable after any interruption, identical for any "
        "--workers.",
    )
    g.add_argument("--data", required=True, help="source images (ImageNet val: class folders)")
    g.add_argument("--out", required=True)
    add_run_args(g)
    g.add_argument("--workers", type=int, default=0, help="processes (0: this one)")
    g.add_argument(
        "--ray", default=None, metavar="auto|ADDRESS",
        help="make the shards as Ray tasks ('auto': ray.init(); or a cluster address); DATA and "
        "OUT at the same path on every node; the same bytes",
    )  # fmt: skip
    g.set_defaults(func=run_generate)


def add_run_args(
    p: argparse.ArgumentParser | Any, *, required: bool = True, seed: bool = True
) -> None:
    """The options that name a run (``ccc generate``; ``eval-stream --ccc-on-the-fly``, where
    ``--seed`` is the stream options' own); :func:`run_kwargs` reads them."""
    p.add_argument(
        "--matrix", required=required,
        help="accuracy matrices (.npz of calibrate, or the original pickle)",
    )  # fmt: skip
    p.add_argument("--baseline", type=float, required=required, help="target accuracy: 40 / 20 / 0")
    p.add_argument(
        "--speed", type=int, required=required, help="images per walk step: 1000 / 2000 / 5000"
    )
    if seed:
        p.add_argument("--seed", type=int, required=True, help="43 / 44 / 45 in the paper")
    p.add_argument("--images", type=int, default=IMAGES_PER_RUN, help="images in the run")
    p.add_argument(
        "--shard-images", dest="images_per_shard", type=int, default=IMAGES_PER_SHARD,
        help="a shard closes at the first step boundary at or above this many images",
    )  # fmt: skip
    p.add_argument(
        "--draws",
        choices=("independent", "reference"),
        default="independent",
        help="independent: each shard its own seed (any process count, the default); reference: "
        "every shard from the run's seed, as the original's shard 0",
    )
    p.add_argument(
        "--tolerance", type=float, default=5.0,
        help="refuse a pair whose walk misses the baseline by more points (default 5; -1: never)",
    )  # fmt: skip
    p.add_argument(
        "--corruptions",
        help="comma-separated CCC names to draw pairs from instead of the baseline's (a small "
        "run on a matrix calibrated with --corruptions)",
    )


def run_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The run's keyword arguments of :func:`~corruptbench.ccc.generate` /
    :meth:`~corruptbench.ccc.CCCStream.create`, from :func:`add_run_args`' options."""
    return {
        "baseline": args.baseline,
        "speed": args.speed,
        "seed": args.seed,
        "images": args.images,
        "images_per_shard": args.images_per_shard,
        "draws": args.draws,
        "tolerance": None if args.tolerance < 0 else args.tolerance,
        "corruptions": _names(args.corruptions),
    }


def _names(text: str | None) -> tuple[str, ...] | None:
    """``--corruptions``: the comma-separated names, or None."""
    return tuple(n.strip() for n in text.split(",") if n.strip()) if text else None


def _workers(n: int) -> int:
    if n < 0:
        raise ArgumentError(Arg("workers"), f" must be >= 0, got {n}")
    return n


def run_calibrate(args: argparse.Namespace) -> int:
    from ..ccc.calibrate import calibrate, calibration_images
    from ..ccc.generate import check_out_outside
    from ..ccc.plan import corruptions_for

    names = _names(args.corruptions) or corruptions_for(args.baseline)
    if args.levels < 1 or 20 % args.levels:
        raise ArgumentError(
            Arg("levels"), f" must divide 20 (1, 2, 4, 5, 10, 20), got {args.levels}"
        )
    check_out_outside(args.out, args.data)
    images, labels, ids = calibration_images(args.data, args.images, args.seed)
    total = len(names) * (len(names) - 1)
    done = [0]

    def progress(key: str) -> None:
        done[0] += 1
        print(f"[{done[0]}/{total}] {key}", file=sys.stderr)

    calibrate(
        images, labels, ids, names, args.out, model=args.model, device=args.device,
        levels=range(0, 21, args.levels), seed=args.seed, workers=_workers(args.workers),
        progress=progress,
    )  # fmt: skip
    computed = len(range(0, 21, args.levels))
    print(
        f"{args.out}/ccc_accuracy_matrix.npz: {total} pairs x 21 x 21 severity pairs "
        f"({computed} x {computed} computed, the rest interpolated), {len(images)} images"
        if computed < 21
        else f"{args.out}/ccc_accuracy_matrix.npz: {total} pairs x 441 cells, {len(images)} images"
    )
    return 0


def run_generate(args: argparse.Namespace) -> int:
    from ..ccc.matrices import load_matrices
    from ..ccc.runs import RUN_FILE, generate

    matrices = load_matrices(args.matrix)
    folder = generate(
        args.data, matrices, args.out, **run_kwargs(args), workers=_workers(args.workers),
        ray=args.ray, progress=lambda serial: print(f"serial_{serial:05d}.tar", file=sys.stderr),
    )  # fmt: skip
    total = json.loads((folder / RUN_FILE).read_text())["total_images"]
    if total != args.images:  # the original's rounding: whole steps, the run ends with a shard
        print(
            f"{total:,} images (--images {args.images:,} rounded up to the end of a shard)",
            file=sys.stderr,
        )
    print(folder)
    return 0
