"""``corruptbench eval-stream``: evaluate a model online on a test-time-adaptation stream with
``--adapt source|norm|tent``; print the errors as the reference logs them and the TTA-paper
table; write the results file (``corruptbench report`` reads it), a Markdown report section and
the error-along-stream figure. A CCC run is one more stream: ``--ccc RUN`` reads the shards
``corruptbench ccc generate`` wrote, ``--ccc-on-the-fly SRC`` (with the run's options) makes the
same images without writing them (``--ccc-backend torch``: the corruptions on ``--device``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import Arg
from ..streams.config import StreamError
from .ccc import add_run_args, run_kwargs
from .stream import (
    add_stream_args,
    changed_options,
    option_flag,
    stream_from_args,
    stream_inputs,
)

__all__ = ["register", "run"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval-stream",
        help="online test-time adaptation on a stream (source, norm, tent)",
        description=(
            "Feed a stream (see 'corruptbench stream') batch by batch to a model adapted with "
            "--adapt: source (none), norm (BatchNorm statistics of each test batch) or tent "
            "(entropy minimisation of the BatchNorm affine parameters, the reference's "
            "optimiser: Adam 1e-3 on CIFAR, SGD 2.5e-4 on ImageNet). The model is reset where "
            "the setting resets it."
        ),
    )
    add_stream_args(p)
    c = p.add_argument_group("CCC run (instead of a TTA setting's stream; never reset)")
    c.add_argument(
        "--ccc",
        default=None,
        metavar="RUN",
        help="a CCC run folder 'corruptbench ccc generate' wrote (OUT/baseline_..._seed_S)",
    )
    c.add_argument(
        "--ccc-on-the-fly",
        dest="ccc_on_the_fly",
        default=None,
        metavar="SRC",
        help="make the CCC run from these source images as it is evaluated (nothing written): "
        "the images 'ccc generate --data SRC' with the same --matrix, --baseline, --speed, "
        "--seed, --images, ... writes",
    )
    add_run_args(c, required=False, seed=False)
    c.add_argument(
        "--ccc-backend",
        dest="ccc_backend",
        choices=("numpy", "torch"),
        default="numpy",
        help="--ccc-on-the-fly: the corruptions with the NumPy functions (the bytes 'ccc "
        "generate' writes; default) or on the torch backend on --device (the same samples, "
        "statistically equivalent images)",
    )
    p.add_argument(
        "--model",
        required=True,
        help="model source: efficientnet_lite0|1|2, cifar_resnet20|56 (with --weights), "
        "torchvision:<name>, timm:<name>, python:<module|file.py>:<factory>, ...",
    )
    p.add_argument("--weights", default=None, help="weights file (cifar_resnet*)")
    p.add_argument("--adapt", default="source", help="source | norm | tent (default source)")
    p.add_argument("--lr", type=float, default=None, help="tent: learning rate")
    p.add_argument("--optimizer", default=None, help="tent: adam | sgd")
    p.add_argument("--steps", type=int, default=None, help="tent: updates per batch (default 1)")
    p.add_argument("--device", default="cpu", help="cpu | cuda | cuda:N")
    p.add_argument(
        "--workers",
        type=int,
        default=0,
        help="processes reading / corrupting batches ahead of the model (default 0)",
    )
    p.add_argument("--ece-bins", type=int, default=15, metavar="B", help="ECE bins (default 15)")
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write the results file (kind 'stream'; 'corruptbench report' tabulates several)",
    )
    p.add_argument("--markdown", default=None, metavar="FILE", help="write the report section")
    p.add_argument(
        "--figure",
        default=None,
        metavar="FILE.png",
        help="write the error along the stream (needs matplotlib)",
    )
    p.add_argument(
        "--checkpoint",
        default=None,
        metavar="FILE",
        help="save the counts and the adapted state here every 20 batches; run the same command "
        "again after an interruption to resume to the same numbers (removed at the end)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..fileio import write_bytes, write_text
    from ..models import load_model
    from ..streams.adapters import adapter_options, check_method
    from ..streams.harness import evaluate_stream
    from ..streams.results import markdown_table

    check_method(args.adapt)
    _check_outputs(args)
    if args.figure:  # refused before any work, not after the evaluation
        from ..extras import require

        require("matplotlib", "eval-stream --figure", "report")
    if args.ccc is not None or args.ccc_on_the_fly is not None:
        st: Any = _ccc_stream(args)
    else:
        st = stream_from_args(args)
        if st.data.kind == "ids":  # before the model loads
            raise StreamError(
                "eval-stream needs images: give ",
                Arg("data", "D"),
                " or ",
                Arg("on_the_fly", "SRC"),
            )
    options = {
        k: v
        for k, v in (("lr", args.lr), ("method", args.optimizer), ("steps", args.steps))
        if v is not None
    }
    adapter_options(args.adapt, st.dataset, options)  # before the model loads
    model = load_model(args.model, weights=args.weights, device=args.device, probe=False)
    if not args.quiet:
        print(f"{st}; {args.adapt} on {model.id}", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        if not args.quiet and (done == total or done % 20 == 0):
            print(f"  batch {done}/{total}", file=sys.stderr)

    res = evaluate_stream(
        model,
        st,
        args.adapt,
        device=args.device,
        batch_size=args.batch_size,
        workers=args.workers,
        ece_bins=args.ece_bins,
        adapt_options=options,
        progress=progress,
        checkpoint=args.checkpoint,
    )
    print(res.summary())
    print()
    print(markdown_table([res]))
    if args.out:
        res.save(args.out)
    if args.markdown:
        write_text(args.markdown, res.report_section())
    if args.figure:
        import io

        from ..streams.results import error_along_stream_figure

        buf = io.BytesIO()
        error_along_stream_figure([res]).savefig(buf, format="png", dpi=120)
        write_bytes(args.figure, buf.getvalue())
    return 0


def _ccc_stream(args: argparse.Namespace) -> Any:
    """The CCC run of ``--ccc`` (its shards) or ``--ccc-on-the-fly`` (made as evaluated)."""
    from ..ccc.runs import CCCStream

    given = [
        f"--{k.replace('_', '-')}"
        for k in ("data", "on_the_fly", "replay")
        if getattr(args, k) is not None
    ]
    if args.ccc is not None and args.ccc_on_the_fly is not None:
        given.append("--ccc-on-the-fly")
    if given:
        raise StreamError(
            "a CCC run is its own stream: give ", Arg("ccc", "RUN"), " or ",
            Arg("ccc_on_the_fly", "SRC"), f" alone, not with {', '.join(given)}",
        )  # fmt: skip
    # options a CCC run would ignore: a TTA setting's (batch size and the run's seed apart)
    setting = [d for d in changed_options(args, add_stream_args) if d not in ("batch_size", "seed")]
    if setting:
        raise StreamError(
            option_flag(setting[0]), " sets a TTA setting's stream; a CCC run (",
            Arg("ccc", "RUN"), " / ", Arg("ccc_on_the_fly", "SRC"), ") has its own",
        )  # fmt: skip
    if args.ccc is not None:
        run_opts = changed_options(args, lambda q: add_run_args(q, required=False, seed=False))
        run_opts += ["seed"] if args.seed is not None else []
        if run_opts:
            raise StreamError(
                option_flag(run_opts[0]), " applies to ", Arg("ccc_on_the_fly", "SRC"), " (",
                Arg("ccc", "RUN"), " reads a written run, which records its own settings)",
            )  # fmt: skip
        if args.ccc_backend != "numpy":
            raise StreamError(
                Arg("ccc_backend", "torch"), " applies to ", Arg("ccc_on_the_fly", "SRC"),
                " (--ccc reads the images its shards hold)",
            )  # fmt: skip
        return CCCStream.open(args.ccc)
    from ..ccc.matrices import load_matrices

    missing = [o for o in ("matrix", "baseline", "speed", "seed") if getattr(args, o) is None]
    if missing:
        raise StreamError(
            Arg("ccc_on_the_fly", "SRC"),
            f" needs the run's {', '.join('--' + m for m in missing)} (as 'ccc generate')",
        )
    backend = {"backend": "torch", "device": args.device} if args.ccc_backend == "torch" else {}
    return CCCStream.create(
        args.ccc_on_the_fly, load_matrices(args.matrix), **run_kwargs(args), **backend
    )


def _check_outputs(args: argparse.Namespace) -> None:
    """No output over an input, another output or a file of another kind (issue 33 item 13)."""
    from .options import check_output

    inputs = [
        *stream_inputs(args),
        ("the CCC run", args.ccc),
        ("the source images --ccc-on-the-fly", args.ccc_on_the_fly),
        ("the matrix file --matrix", args.matrix),
        ("the weights file --weights", args.weights),
    ]
    outs = [
        ("--out", args.out, "results:stream"),
        ("--markdown", args.markdown, "report"),
        ("--figure", args.figure, "image"),
        ("--checkpoint", args.checkpoint, None),
    ]
    for flag, path, writes in outs:
        others = [(f"the {f} file", p) for f, p, _ in outs if f != flag]
        check_output(path, flag, writes=writes, inputs=[*inputs, *others])
