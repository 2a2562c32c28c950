"""Options and helpers shared by several sub-commands (eval-c / eval-p; make-c / make-p)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from ..errors import Arg

if TYPE_CHECKING:
    from ..evaluation import OnTheFly, RunOptions
    from ..models import LoadedModel
    from ..results import Results

__all__ = [
    "add_model_args",
    "load_model_from_args",
    "data_arg",
    "run_options",
    "finish_eval",
    "parse_levels",
    "default_workers",
    "add_build_args",
    "execute_build",
]


# ------------------------------------------------------------------------------------------------
# eval-c / eval-p
# ------------------------------------------------------------------------------------------------
def add_model_args(p: argparse.ArgumentParser) -> None:
    """Options shared by eval-c and eval-p: model source, device, loader, output."""
    p.add_argument(
        "--model",
        required=True,
        help="model source: efficientnet_lite0|1|2, cifar_resnet20|56 (with --weights), "
        "torchvision:<name>, timm:<name>, onnx:<path>, torchscript:<path>, "
        "python:<module|file.py>:<factory>; options after '?', e.g. ?weights=none, ?size=240",
    )
    p.add_argument(
        "--weights", default=None, help="weights file (cifar_resnet*; read with weights_only=True)"
    )
    p.add_argument("--random-weights", action="store_true", help="random weights (plumbing tests)")
    p.add_argument(
        "--preprocess",
        choices=("none", "clahe"),
        default="none",
        help="image enhancement before normalisation: clahe = OpenCV CLAHE on L of Lab "
        "(clipLimit 2.0, 8x8 tiles), the paper's histogram-equalisation option",
    )
    p.add_argument(
        "--out",
        default=None,
        help="results JSON; rewritten after each finished cell, resumed on re-run",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace --out even if it holds another model's results",
    )
    p.add_argument("--csv", default=None, help="also write a CSV table here")
    p.add_argument(
        "--batch-size", type=int, default=64, help="images (frames) per model call (default 64)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="data-loader processes (default on CPU: CPUs // 4 for stored images, CPUs // 2 "
        "on the fly, so loader + model threads never exceed the CPUs; on GPU: min(8, CPUs))",
    )
    p.add_argument("--device", default="cpu", help="cpu | cuda | cuda:N")
    p.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads for the model (default: CPUs minus loader workers on CPU)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        help="at most N images (sequences) per cell: a seeded subset",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of on-the-fly corruption (as make-c) and of --limit",
    )
    p.add_argument(
        "--profile", default=None, help="imagenet|inception|tiny|cifar (default: detected)"
    )
    p.add_argument(
        "--on-the-fly",
        dest="on_the_fly",
        metavar="SRC",
        default=None,
        help="clean image folder / CIFAR batch, corrupted in the workers instead of --data",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def load_model_from_args(args: argparse.Namespace) -> LoadedModel:
    from ..models import load_model

    if args.threads:
        import torch

        torch.set_num_threads(int(args.threads))
    return load_model(
        args.model,
        weights=args.weights,
        random_weights=args.random_weights,
        enhance=args.preprocess,
        device=args.device,
    )


def data_arg(args: argparse.Namespace) -> str | OnTheFly:
    """``--data D`` or ``--on-the-fly SRC`` (exactly one) as the evaluation's ``data``."""
    from ..evaluation import EvalError, OnTheFly

    if (args.data is None) == (args.on_the_fly is None):
        raise EvalError("give exactly one of ", Arg("data", "D"), " or ", Arg("on_the_fly", "SRC"))
    return OnTheFly(args.on_the_fly) if args.on_the_fly is not None else args.data


def run_options(args: argparse.Namespace) -> RunOptions:
    """Batch size, loader workers, model threads, results file and logging from the options."""
    from ..evaluation import RunOptions

    return RunOptions(
        batch_size=args.batch_size,
        workers=args.workers,
        threads=args.threads,
        out=args.out,
        overwrite=args.overwrite,
        log=None if args.quiet else _log,
    )


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def finish_eval(args: argparse.Namespace, res: Results) -> None:
    """``--csv``, the terminal summary and where the results file is."""
    from ..report import print_summary
    from ..results import to_csv

    if args.csv:
        to_csv(res, args.csv)
    print_summary(res)
    if args.out:
        print(f"results: {os.path.abspath(args.out)}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# make-c / make-p
# ------------------------------------------------------------------------------------------------
def parse_levels(text: str, lo: int, hi: int, what: str) -> list[int]:
    """``"1-5"`` / ``"1,3,5"`` / ``"2"`` -> sorted unique ints within [lo, hi]."""
    out: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        try:
            if "-" in part:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise ValueError(f"bad {what} list {text!r} (use e.g. 1-5 or 1,3,5)") from None
    bad = sorted(v for v in out if not lo <= v <= hi)
    if bad or not out:
        raise ValueError(f"{what} must be in {lo}..{hi}, got {text!r}")
    return sorted(out)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def add_build_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed", type=int, default=0, help="base seed of the per-item seeds (default 0)"
    )
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local worker processes (default: all available cores; 1 = in-process); with --ray auto: CPUs for the local Ray",
    )
    p.add_argument(
        "--ray",
        default=None,
        metavar="auto|ADDRESS",
        help="run shards as Ray tasks: 'auto' = ray.init() (local, or the cluster in RAY_ADDRESS), or a cluster address; OUT must be shared",
    )
    p.add_argument(
        "--limit", type=int, default=None, help="only the first N source images (sorted order)"
    )
    p.add_argument(
        "--shard-size",
        type=int,
        default=None,
        metavar="N",
        help="--format webdataset: samples per tar shard (default: N images / 64, within "
        "100..1000 for make-c, 10..100 for make-p); a block of N images is one task of a worker",
    )
    p.add_argument("--strict", action="store_true", help="exit non-zero if any input was skipped")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def execute_build(kind: str, args: argparse.Namespace, **kwargs: Any) -> int:
    """Run make-``kind`` with the shared options; print the summary; the exit status."""
    from ..build import build, format_summary

    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise ValueError(f"--workers must be >= 1, got {workers}")
    if args.shard_size is not None:
        if kwargs.get("fmt") != "webdataset":
            raise ValueError("--shard-size applies to --format webdataset only")
        if args.shard_size < 1:
            raise ValueError(f"--shard-size must be >= 1, got {args.shard_size}")
    summary = build(
        kind,
        args.src,
        args.out,
        profile=args.profile,
        seed=args.seed,
        workers=workers,
        ray=args.ray,
        limit=args.limit,
        shard_size=args.shard_size,
        progress=not args.no_progress and sys.stderr.isatty(),
        **kwargs,  # type: ignore[arg-type]
    )
    print(format_summary(summary))
    if summary.failed:
        return 1
    if args.strict and summary.skipped:
        print(f"--strict: {len(summary.skipped)} input(s) skipped", file=sys.stderr)
        return 1
    return 0
