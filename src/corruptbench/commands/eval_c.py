"""``corruptbench eval-c --model M --data D [--clean C] [--out R.json] ...``: ImageNet-C / CIFAR-C
evaluation (top-1 error per corruption x severity, CE, mCE, relative mCE)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..errors import Arg
from ..registry import ALL_CORRUPTIONS

if TYPE_CHECKING:
    from ..evaluation import OnTheFly, RunOptions
    from ..models import LoadedModel
    from ..results import Results


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


def finish(args: argparse.Namespace, res: Results) -> None:
    """``--csv``, the terminal summary and where the results file is."""
    from ..report import print_summary
    from ..results import to_csv

    if args.csv:
        to_csv(res, args.csv)
    print_summary(res)
    if args.out:
        print(f"results: {os.path.abspath(args.out)}", file=sys.stderr)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval-c",
        help="evaluate a model on ImageNet-C / CIFAR-C (or corrupt on the fly)",
        description="Top-1 error per corruption and severity, CE, mCE (AlexNet-normalised), relative mCE. "
        "D: an ImageNet-C folder <corruption>/<severity>/<wnid>/<file> or a CIFAR-10/100-C folder "
        "(<corruption>.npy + labels.npy). ImageNet-C images are used as they are (no Resize(256)/"
        "CenterCrop again); --clean images get Resize(256)+CenterCrop(224).",
    )
    add_model_args(p)
    p.add_argument("--data", default=None, help="ImageNet-C or CIFAR-C folder")
    p.add_argument(
        "--clean", default=None, help="clean images for the clean error (folder or CIFAR batch)"
    )
    p.add_argument(
        "--baseline",
        default="auto",
        help="alexnet | uniform | PATH (eval-c results of the baseline model); "
        "auto = alexnet for ImageNet, uniform for CIFAR",
    )
    p.add_argument(
        "--corruptions",
        nargs="+",
        default=None,
        metavar="NAME",
        help=f"subset (names or benchmark/extra/all/noise/blur/weather/digital); default all 19: {', '.join(ALL_CORRUPTIONS)}",
    )
    p.add_argument(
        "--corrupt-on",
        choices=("auto", "workers", "device"),
        default="auto",
        help="with --on-the-fly: workers = CPU loader processes, exactly make-c's pixels; "
        "device = the model's device via corruptbench.torch.corrupt_batch (fast on a GPU, seeded "
        "per batch); auto = device when --device is cuda",
    )
    p.add_argument("--severities", nargs="+", type=int, default=[1, 2, 3, 4, 5], metavar="S")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..evaluation import evaluate_c

    model = load_model_from_args(args)
    res = evaluate_c(
        model,
        data_arg(args),
        clean=args.clean,
        corruptions=args.corruptions,
        severities=args.severities,
        limit=args.limit,
        seed=args.seed,
        profile=args.profile,
        baseline=args.baseline,
        corrupt_on=args.corrupt_on,
        run=run_options(args),
    )
    finish(args, res)
    return 0
