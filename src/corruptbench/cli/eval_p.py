"""``corruptbench eval-p --model M --data D [--difficulty 1|2|3] [--baseline PATH] ...``: ImageNet-P /
CIFAR-10-P evaluation (flip probability, top-5 distance, Zipf distance; mFR / mT5D with a baseline)."""

from __future__ import annotations

import argparse

from ..grid import DIFFICULTIES
from .options import (
    add_list_argument,
    add_model_args,
    data_arg,
    eval_interrupted,
    eval_kwargs,
    finish_eval,
    load_model_from_args,
    split_list,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval-p",
        help="evaluate a model on ImageNet-P / CIFAR-10-P (or perturb on the fly)",
        description="Flip probability (FP), top-5 distance (T5D) and Zipf distance per perturbation. "
        "D: an ImageNet-P folder <perturbation>[_<d>]/<wnid>/*.mp4 or a CIFAR-10-P folder "
        "(<perturbation>.npy, (N, T, 32, 32, 3)). mFR / mT5D need --baseline (an eval-p results file "
        "or CSV of the baseline model): AlexNet's ImageNet-P numbers were never published machine-readably.",
    )
    add_model_args(p)
    p.add_argument(
        "--data",
        default=None,
        help="ImageNet-P or CIFAR-10-P folder, or a folder of WebDataset shards (with shards.json)",
    )
    p.add_argument(
        "--difficulty",
        type=int,
        choices=DIFFICULTIES,
        default=1,
        help="noise: which _<d> dataset; others: frame stride (default 1)",
    )
    p.add_argument(
        "--baseline",
        default=None,
        help="eval-p results JSON or CSV (perturbation,fp,t5d) of the baseline",
    )
    add_list_argument(
        p,
        "--perturbations",
        default=None,
        metavar="NAME",
        help="perturbation names and groups (test, validation, all); default all 14",
    )
    p.set_defaults(func=run, on_interrupt=eval_interrupted)


def run(args: argparse.Namespace) -> int:
    from .. import evaluate_p

    res = evaluate_p(
        load_model_from_args(args),
        data_arg(args),
        perturbations=None if args.perturbations is None else split_list(args.perturbations),
        difficulty=args.difficulty,
        baseline=args.baseline,
        **eval_kwargs(args),
    )
    finish_eval(args, res)
    return 0
