"""Options and helpers shared by several sub-commands (eval-c / eval-p; make-c / make-p)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import Arg
from ..grid import GRID_KINDS, GridError, check_levels, resolve_names
from ..models.preprocessing import ENHANCEMENTS
from ..safe_text import printable

if TYPE_CHECKING:
    from ..evaluation import OnTheFly, RunOptions
    from ..models import LoadedModel
    from ..results import Results

__all__ = [
    "add_model_args",
    "eval_kwargs",
    "load_model_from_args",
    "data_arg",
    "run_options",
    "finish_eval",
    "add_list_argument",
    "add_quality_argument",
    "split_list",
    "parse_levels",
    "parse_names",
    "default_workers",
    "add_build_args",
    "eval_interrupted",
    "build_interrupted",
    "execute_build",
    "check_output",
    "check_eval_outputs",
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
        choices=ENHANCEMENTS,
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
        metavar="N",
        help="at most N images (sequences) per cell: a subset chosen by --seed, the same images "
        "in every cell",
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
        "--ece-bins",
        type=int,
        default=None,
        metavar="B",
        help="equal-width confidence bins of the expected calibration error (default: the "
        "library's, 15; 30 for Ovadia et al. 2019, which the results file also gives then)",
    )
    p.add_argument(
        "--outputs",
        choices=("logits", "probabilities"),
        default="logits",
        help="what the model returns: logits (default; outputs that look like probabilities, "
        "every row non-negative and summing to 1, are refused) or probabilities (a softmax: "
        "their logarithm is used, so the calibration is right)",
    )
    p.add_argument(
        "--class-map",
        default=None,
        metavar="FILE",
        help="the model output of each of the data's classes (a JSON list or integers, in the "
        "data's label order; ImageNet-R's indices_in_1k): only those outputs are scored. "
        "Without it, data whose classes are not the model's (CIFAR-10 on a 1000-class model) "
        "is refused",
    )
    p.add_argument(
        "--on-the-fly",
        dest="on_the_fly",
        metavar="SRC",
        default=None,
        help="clean image folder / CIFAR batch, corrupted in the workers instead of --data",
    )
    p.add_argument(
        "--trust-shards",
        action="store_true",
        help="WebDataset --data: check each shard's size and sample count against shards.json "
        "but not its SHA-256 (storage you trust; by default every shard is hashed first, about "
        "one extra read of the data)",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (a bar on a terminal, else a line every ~10 s or 5 %%)",
    )
    p.add_argument(
        "--quiet", action="store_true", help="print only the results (no plan, cells or progress)"
    )


def eval_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords eval-c and eval-p pass alike to ``evaluate_c`` / ``evaluate_p`` (the model is
    already on ``--device``; progress unless ``--quiet`` / ``--no-progress``)."""
    check_eval_outputs(args)  # before the evaluation starts (nothing written yet)
    kwargs: dict[str, Any] = {
        "batch_size": args.batch_size,
        "limit": args.limit,
        "seed": args.seed,
        "profile": args.profile,
        "verify_shards": "count" if args.trust_shards else "hash",
        "progress": "off" if args.quiet or args.no_progress else "auto",
        "run": run_options(args),
        "outputs": args.outputs,
        "class_map": args.class_map,
    }
    if args.ece_bins is not None:  # else the library's default
        kwargs["ece_bins"] = args.ece_bins
    return kwargs


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
    """Loader workers, model threads, results file and log lines from the options."""
    from ..evaluation import RunOptions, stderr_log

    return RunOptions(
        workers=args.workers,
        threads=args.threads,
        out=args.out,
        overwrite=args.overwrite,
        log=None if args.quiet else stderr_log,
    )


def eval_interrupted(args: argparse.Namespace) -> str:
    """What an interrupted eval-c / eval-p kept (the CLI prints it after ``interrupted:``)."""
    cells = "cells" if args.command == "eval-c" else "perturbations"
    if args.out:
        return (
            f"the finished {cells} are saved in {args.out}; run the same command again to resume "
            "(finished ones are not recomputed)"
        )
    return f"nothing was saved (no --out); give --out to keep finished {cells} and resume"


def build_interrupted(args: argparse.Namespace) -> str:
    """What an interrupted make-c / make-p kept (the CLI prints it after ``interrupted:``)."""
    return (
        f"the outputs written so far are kept in {args.out}; run the same command again to "
        "resume (they are not recomputed)"
    )


def finish_eval(args: argparse.Namespace, res: Results) -> None:
    """``--csv``, the terminal summary and where the results file is."""
    from ..report import print_summary
    from ..results import to_csv

    if args.csv:
        to_csv(res, args.csv)
    print_summary(res)
    if args.out:
        print(f"results: {printable(os.path.abspath(args.out))}", file=sys.stderr)


# ------------------------------------------------------------------------------------------------
# make-c / make-p
# ------------------------------------------------------------------------------------------------
def add_list_argument(
    p: argparse.ArgumentParser, *flags: str, default: Any, metavar: str, help: str, **kw: Any
) -> None:
    """A flag that takes a list: comma-separated, space-separated or both (``--corruptions
    fog,snow``, ``--corruptions fog snow``, ``--severities 1-5``, ``1,3,5``, ``1 3 5``)."""
    p.add_argument(
        *flags,
        nargs="+",
        default=default,
        metavar=metavar,
        help=f"{help} (comma- or space-separated: a,b or a b)",
        **kw,
    )


def split_list(values: str | Sequence[str] | None) -> list[str]:
    """The items of a list flag's values: each value split at commas, blanks dropped."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [part.strip() for v in values for part in str(v).split(",") if part.strip()]


def parse_levels(values: str | Sequence[str], kind: str) -> list[int]:
    """``"1-5"`` / ``"1,3,5"`` / ``["1", "3", "5"]`` / ``"2"`` -> the sorted unique levels of
    ``kind`` (severities of ``"c"``, difficulties of ``"p"``; range checked by
    :func:`corruptbench.grid.check_levels`)."""
    text = " ".join([values] if isinstance(values, str) else values)
    gk = GRID_KINDS[kind]
    out: set[int] = set()
    for part in split_list(values):
        try:
            if "-" in part[1:]:
                a, b = (int(x) for x in part.split("-", 1))
                out.update(range(a, b + 1))
            else:
                out.add(int(part))
        except ValueError:
            raise GridError(
                "bad ", Arg(gk.levels_arg), f" list {text!r} (use e.g. 1-5, 1,3,5 or 1 3 5)"
            ) from None
    try:
        return list(check_levels(kind, sorted(out)))
    except GridError:
        lo, hi = gk.levels[0], gk.levels[-1]
        raise GridError(Arg(gk.levels_arg), f" must be in {lo}..{hi}, got {text!r}") from None


def parse_names(values: str | Sequence[str], kind: str, suite: str = "imagenet_c") -> list[str]:
    """Names and subsets of ``kind`` (``benchmark``, ``extra``, ``all``, a family; ImageNet-P:
    ``test``, ``validation``, ``all``) -> names in the order given (a subset in the reference
    order), each once (:func:`corruptbench.grid.resolve_names`)."""
    return list(resolve_names(kind, split_list(values), suite=suite))


def add_quality_argument(p: argparse.ArgumentParser, help: str, default: int | None) -> None:
    """``--quality Q``: a JPEG quality, 1..100 (checked by the library, with Pillow's limits)."""
    p.add_argument(
        "--quality",
        type=int,
        default=default,
        metavar="Q",
        help=f"{help}; 1..100 (Pillow's scale; above 95 files grow for little gain)",
    )


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
        help="run shards as Ray tasks: 'auto' = ray.init() (local, or the cluster in RAY_ADDRESS), or a cluster address; SRC and OUT must be at the same path on every node",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="only N source images: a subset chosen by --seed and spread evenly over the classes "
        "(kept in sorted order). Note: the released CIFAR-10-C keeps test_batch's order, and "
        "RobustBench's loader assumes 10,000 images per severity, so a limited CIFAR build is "
        "not a drop-in for it",
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
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress display (a bar on a terminal, else a line every ~10 s or 5 %%)",
    )


def execute_build(kind: str, args: argparse.Namespace, **kwargs: Any) -> int:
    """Run make-``kind`` with the shared options; print the summary; the exit status."""
    from ..builders import build, format_summary

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
        progress="off" if args.no_progress else "auto",
        **kwargs,  # type: ignore[arg-type]
    )
    print(format_summary(summary))
    if summary.exit_code == 0 and args.strict and summary.skipped:
        print(f"--strict: {len(summary.skipped)} input(s) skipped", file=sys.stderr)
        return 1
    return summary.exit_code


# ------------------------------------------------------------------------------------------------
# outputs never replace inputs: the one check of every command that writes a file
# ------------------------------------------------------------------------------------------------
#: what a command writes -> how messages name it; ``results:<kind>`` is a results file of that kind
_WRITES = {"report": "a report", "csv": "a CSV table", "image": "an image"}
_PEEK = 1 << 16  # the schema and kind lead a results file (Results.to_dict's order)


def _same_path(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """One file: the same inode when both exist (a hard link, ``./x`` and ``x``), else the same
    resolved path (symbolic links followed)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies in ``folder`` or below it (symbolic links followed)."""
    root = os.path.realpath(folder)
    return os.path.commonpath([root, os.path.realpath(path)]) == root


def _existing_kind(path: str | os.PathLike[str]) -> str:
    """``results:<kind>`` for a corruptbench results file (read from its first 64 KiB:
    ``"schema"`` and ``"kind"`` lead it; ``results:?`` when the kind is not there), else
    ``other``."""
    import re

    from ..results import SCHEMA_PREFIX

    try:
        with open(path, "rb") as fh:
            head = fh.read(_PEEK).decode("utf-8", "replace")
    except OSError:
        return "other"
    if not re.search(rf'"schema"\s*:\s*"{re.escape(SCHEMA_PREFIX)}/', head):
        return "other"
    kind = re.search(r'"kind"\s*:\s*"(\w+)"', head)
    return f"results:{kind.group(1) if kind else '?'}"


def _describe(kind: str) -> str:
    if kind == "other":
        return "a file that is not a corruptbench results file"
    if kind.startswith("results:"):
        sub = kind.partition(":")[2]
        return "a results file" + ("" if sub == "?" else f" (kind {sub!r})")
    return _WRITES[kind]


def check_output(
    out: str | os.PathLike[str] | None,
    flag: str,
    *,
    writes: str | None,
    inputs: Sequence[tuple[str, str | os.PathLike[str] | None]] = (),
) -> None:
    """Refuse to write ``out`` (named ``flag`` in the message) over an input or over an existing
    file of another kind, before any work: one line naming both paths.

    Args:
        out: The path a command is about to write (None: nothing to check).
        flag: How the message names it (``"--report"``).
        writes: What is written there: ``"report"``, ``"csv"``, ``"image"`` or
            ``"results:<kind>"``. An existing corruptbench results file is replaced only by
            results of its kind, and a results file only replaces one of its kind; ``None``: no
            check of an existing file (eval-c's ``--out`` checks its own, with ``--overwrite``).
        inputs: ``(what, path)`` of every file and folder the command reads and every other
            file it writes (``("the input table", "t.csv")``); None paths are skipped. No output
            goes anywhere inside an input folder, existing file or new: a file added to a data
            folder can change what the next run reads (a CIFAR-C folder's next domain).

    Raises:
        ValueError: ``"--csv r.json is the results file --out r.json: an output never replaces
            an input; choose another path"``, ``"--csv d/s.csv is inside the data d: ..."``, or
            ``"--out-dir's a.json already holds ..."``.
    """
    if out is None:
        return
    for what, path in inputs:
        if path is not None and _same_path(out, path):
            raise ValueError(
                f"{flag} {out} is {what} {path}: an output never replaces an input or another "
                "output; choose another path"
            )
        if path is not None and os.path.isdir(path) and _inside(out, path):
            raise ValueError(
                f"{flag} {out} is inside {what} {path}: an output is never written into an "
                "input folder; choose a path outside it"
            )
    if writes is None or not os.path.isfile(out):
        return
    found = _existing_kind(out)
    clash = found != writes if writes.startswith("results:") else found.startswith("results:")
    if clash:
        raise ValueError(
            f"{flag} {out} already holds {_describe(found)}, and this would replace it with "
            f"{_describe(writes)}: refusing; choose another path (or move the file away)"
        )


def check_eval_outputs(args: argparse.Namespace) -> None:
    """eval-c / eval-p: ``--out`` and ``--csv`` replace none of the inputs, nor each other, and
    go inside no input folder."""
    reads = [
        (f"--{flag}", getattr(args, flag.replace("-", "_"), None))
        for flag in ("data", "clean", "on-the-fly", "weights", "baseline")
    ]
    # --baseline may name a model instead of a file; folders count (check_output's folder rule)
    reads = [(what, p) for what, p in reads if p is not None and os.path.exists(p)]
    check_output(args.out, "--out", writes=None, inputs=reads)
    check_output(
        args.csv, "--csv", writes="csv", inputs=[*reads, ("the results file --out", args.out)]
    )
