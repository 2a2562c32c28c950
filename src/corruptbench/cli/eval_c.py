"""``corruptbench eval-c --model M --data D [--clean C] [--out R.json] ...``: ImageNet-C / CIFAR-C
evaluation (top-1 error per corruption x severity, CE, mCE, relative mCE)."""

from __future__ import annotations

import argparse

from ..corruptions import ALL_CORRUPTIONS
from ..evaluation.common import CORRUPT_ON
from ..protocols import DEFAULT_PROTOCOL, PROTOCOLS
from ..registry import corruption_suites
from .options import (
    add_list_argument,
    add_model_args,
    data_arg,
    eval_interrupted,
    eval_kwargs,
    finish_eval,
    load_model_from_args,
    parse_levels,
    split_list,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval-c",
        help="evaluate a model on ImageNet-C / CIFAR-C (or corrupt on the fly)",
        description="Top-1 error per corruption and severity, CE, mCE (AlexNet-normalised), relative mCE. "
        "D: an ImageNet-C folder <corruption>/<severity>/<wnid>/<file> or a CIFAR-10/100-C folder "
        "(<corruption>.npy + labels.npy). ImageNet-C images are used as they are (no Resize(256)/"
        "CenterCrop again); --clean images get Resize(256)+CenterCrop(224). ImageNet-C-bar "
        "(level folders 1..5 or 2.35-style) and CIFAR-10-C-bar (<corruption>.npy + labels.npy): "
        "test_c_bar.py's top-1 errors, their mean per corruption and overall.",
    )
    add_model_args(p)
    p.add_argument(
        "--data",
        default=None,
        help="ImageNet-C or CIFAR-C folder, or a folder of WebDataset shards (with shards.json)",
    )
    p.add_argument(
        "--clean", default=None, help="clean images for the clean error (folder or CIFAR batch)"
    )
    p.add_argument(
        "--baseline",
        default="auto",
        help="alexnet | uniform | PATH (eval-c results of the baseline model); "
        "auto = alexnet for ImageNet, uniform for CIFAR. uniform: CE = the top-1 error and mCE "
        "= the mean error over the 15 benchmark corruptions (the reference's CIFAR test.py "
        "prints the mean over all 19)",
    )
    p.add_argument(
        "--suite",
        choices=corruption_suites(),
        default=None,
        help="imagenet_c or cbar (ImageNet-C-bar / CIFAR-10-C-bar: test_c_bar.py's top-1 "
        "errors, per-corruption and overall means, no normalisation); default: the data's (a "
        "folder naming any ImageNet-C corruption is imagenet_c, one naming C-bar corruptions "
        "only cbar; --on-the-fly: imagenet_c)",
    )
    add_list_argument(
        p,
        "--corruptions",
        default=None,
        metavar="NAME",
        help="corruption names and subsets of --suite (benchmark, extra, all, noise, blur, weather, "
        f"digital); default the --protocol's: all 19 for full ({', '.join(ALL_CORRUPTIONS)}), "
        "the 15 benchmark ones for robustbench; --suite cbar: the data's benchmark "
        "(imagenet_c_bar, or cifar10_c_bar for CIFAR data)",
    )
    p.add_argument(
        "--corrupt-on",
        choices=CORRUPT_ON,
        default="auto",
        help="with --on-the-fly: workers = CPU loader processes, exactly make-c's pixels; "
        "device = the model's device via corruptbench.torch.corrupt_batch (fast on a GPU, seeded "
        "per batch); auto = device when --device is cuda",
    )
    add_list_argument(
        p, "--severities", default=["1-5"], metavar="S", help="severities, e.g. 1-5 (default), 3"
    )
    p.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default=DEFAULT_PROTOCOL,
        help="; ".join(f"{name}: {proto.title}" for name, proto in PROTOCOLS.items())
        + f" (default {DEFAULT_PROTOCOL}). robustbench evaluates exactly its 5,000 listed "
        "<wnid>/<file> images of each cell (and of --clean), refusing data that lacks some, and "
        "adds RobustBench's clean_acc / corruptions_acc to the results; --limit is refused",
    )
    p.set_defaults(func=run, on_interrupt=eval_interrupted)


def run(args: argparse.Namespace) -> int:
    from .. import evaluate_c

    res = evaluate_c(
        load_model_from_args(args),
        data_arg(args),
        clean=args.clean,
        corruptions=None if args.corruptions is None else split_list(args.corruptions),
        severities=parse_levels(args.severities, "c"),
        suite=args.suite,
        baseline=args.baseline,
        corrupt_on=args.corrupt_on,
        protocol=args.protocol,
        **eval_kwargs(args),
    )
    finish_eval(args, res)
    return 0
