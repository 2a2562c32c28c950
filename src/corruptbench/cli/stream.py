"""``corruptbench stream``: build a test-time-adaptation stream (or replay a manifest), print
what it is, export its sequence as CSV and its manifest; ``--list`` shows the settings, orders
and datasets. The stream options are shared with ``eval-stream`` (:func:`add_stream_args`,
:func:`stream_from_args`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..errors import Arg, ArgumentError

__all__ = [
    "register",
    "run",
    "add_stream_args",
    "stream_from_args",
    "changed_options",
    "option_flag",
    "stream_inputs",
]

#: the stream options that go with --replay: where the data is, and the batch size (the manifest
#: fixes the rest; its sequence does not depend on how it is cut into batches)
_REPLAY_TAKES = ("data", "on_the_fly", "replay", "batch_size")


def add_stream_args(p: argparse.ArgumentParser) -> None:
    """The options that make a stream."""
    g = p.add_argument_group("stream")
    g.add_argument(
        "--data",
        default=None,
        metavar="D",
        help="CIFAR-C folder (<corruption>.npy + labels.npy) or ImageNet-C style "
        "folder (<corruption>/<severity>/<wnid>/<file>: the release, make-c builds); "
        "leave out (with --on-the-fly too) for ImageNet-C's id lists alone",
    )
    g.add_argument(
        "--on-the-fly",
        dest="on_the_fly",
        default=None,
        metavar="SRC",
        help="clean image folder / CIFAR batch file, corrupted per image as make-c does",
    )
    g.add_argument(
        "--corruption-seed",
        type=int,
        default=0,
        metavar="K",
        help="make-c's base seed for --on-the-fly (default 0)",
    )
    g.add_argument(
        "--replay",
        default=None,
        metavar="MANIFEST",
        help="rebuild the stream a manifest describes (refused on other data)",
    )
    g.add_argument(
        "--dataset",
        default=None,
        help="cifar10_c | cifar100_c | imagenet_c | tiny_imagenet_c | imagenet_c_bar | "
        "cifar10_c_bar (default: cifar10_c for a folder with labels.npy, else imagenet_c)",
    )
    g.add_argument(
        "--setting",
        default="continual",
        help="continual | reset_each_shift | gradual | mixed_domains | correlated | "
        "mixed_domains_correlated | gradual_correlated | reset_each_shift_correlated | "
        "recurring (default continual)",
    )
    g.add_argument(
        "--order",
        default=None,
        help="canonical | cotta0..cotta9 | a comma-separated list of domains "
        "(default: the dataset's, canonical for the -C sets)",
    )
    g.add_argument(
        "--severities",
        default=None,
        help="comma-separated severities (default 5; gradual: 1,2,3,4,5,4,3,2,1)",
    )
    g.add_argument(
        "--num-examples",
        type=int,
        default=None,
        metavar="N",
        help="the reference's NUM_EX: a random N of each block (mixed: of the block); -1: every "
        "image (the reference's default)",
    )
    g.add_argument(
        "--delta",
        type=float,
        default=None,
        help="Dirichlet delta of the correlated settings (default: sorted by label)",
    )
    g.add_argument("--seed", type=int, default=None, help="RNG_SEED (default 1)")
    g.add_argument(
        "--batch-size", type=int, default=None, help="default 200 on CIFAR, 64 on ImageNet"
    )
    g.add_argument("--rounds", type=int, default=None, help="recurring: repetitions (default 20)")
    g.add_argument(
        "--image-list",
        default="reference",
        help="ImageNet-C: reference | robustbench | imagenet_50k | data (default reference: "
        "RobustBench's 5,000, or the 50,000 with --num-examples or a correlated setting)",
    )


def changed_options(args: argparse.Namespace, add: Callable[[Any], None]) -> list[str]:
    """The destinations of the options ``add`` puts on a parser that ``args`` holds at other
    than their defaults (the defaults read from such a parser: written once, in ``add``)."""
    probe = argparse.ArgumentParser(add_help=False)
    add(probe)
    defaults = vars(probe.parse_args([]))
    return [dest for dest, value in defaults.items() if getattr(args, dest, value) != value]


def option_flag(dest: str) -> Arg:
    """An option named by its flag (``--num-examples``) on the command line and in Python."""
    return Arg(dest, python="--" + dest.replace("_", "-"))


def _flags(dests: list[str]) -> list[str | Arg]:
    """``--a, --b`` as message parts."""
    parts: list[str | Arg] = []
    for dest in dests:
        parts += [", "] if parts else []
        parts.append(option_flag(dest))
    return parts


def _check_replay(args: argparse.Namespace) -> None:
    """Refuse, with --replay, the options that make a stream: the manifest fixes them, and they
    would be ignored."""
    fixed = [d for d in changed_options(args, add_stream_args) if d not in _REPLAY_TAKES]
    if fixed:
        takes = [d for d in _REPLAY_TAKES if d != "replay"]
        raise ArgumentError(
            *_flags(fixed), " would be ignored: the manifest of ", option_flag("replay"),
            " fixes the stream (only ", *_flags(takes), " go with it)",
        )  # fmt: skip


def _split(text: str | None) -> list[str] | None:
    return None if text is None else [t.strip() for t in text.split(",") if t.strip()]


def stream_inputs(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """What the stream options read, as ``check_output``'s inputs: no output replaces them or
    goes inside the folders among them."""
    return [
        ("the data", args.data),
        ("the clean images --on-the-fly", args.on_the_fly),
        ("the manifest replayed", args.replay),
    ]


def stream_from_args(args: argparse.Namespace) -> Any:
    """The stream the options describe (a replayed manifest with ``--replay``, in batches of
    ``--batch-size`` when given)."""
    from ..evaluation.layouts import OnTheFly
    from ..streams import replay, stream

    if args.data is not None and args.on_the_fly is not None:
        raise ArgumentError(
            "give at most one of ", Arg("data", "D"), " or ", Arg("on_the_fly", "SRC")
        )
    data = OnTheFly(args.on_the_fly) if args.on_the_fly is not None else args.data
    if args.replay is not None:
        _check_replay(args)
        return replay(args.replay, data, batch_size=args.batch_size)
    sev = _split(args.severities)
    try:
        severities = None if sev is None else [int(s) for s in sev]
    except ValueError:
        raise ArgumentError(
            Arg("severities"), f" must be integers 1..5, got {args.severities!r}"
        ) from None
    return stream(
        data,
        args.dataset,
        args.setting,
        order=args.order,
        severities=severities,
        num_examples=args.num_examples,
        delta=args.delta,
        seed=args.seed,
        batch_size=args.batch_size,
        rounds=args.rounds,
        image_list=args.image_list,
        corruption_seed=args.corruption_seed,
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "stream",
        help="build / export / replay a test-time-adaptation stream",
        description=(
            "Build the stream of a TTA setting over CIFAR-C / ImageNet-C data (or clean images "
            "corrupted on the fly), in the order the reference code (mariodoebler/"
            "test-time-adaptation) feeds its model, and write its sequence "
            "(index,domain,severity,id,label) and a manifest that replays it."
        ),
    )
    add_stream_args(p)
    p.add_argument("--csv", default=None, metavar="FILE", help="write the sequence as CSV")
    p.add_argument("--manifest", default=None, metavar="FILE", help="write the manifest (JSON)")
    p.add_argument("--list", action="store_true", help="list settings, orders and datasets")
    p.set_defaults(func=run)


def _listing() -> str:
    from ..streams.settings import DATASETS, ORDERS, SETTINGS

    lines = ["settings:"]
    lines += [f"  {name:<28} {s.help}" for name, s in SETTINGS.items()]
    lines.append("orders:")
    lines += [f"  {name:<15} {', '.join(o)}" for name, o in ORDERS.items()]
    lines.append("datasets:")
    lines += [
        f"  {name:<16} {d.family}, {d.num_classes} classes, batch {d.batch_size}, order {d.order}"
        for name, d in DATASETS.items()
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from .options import check_output

    inputs = stream_inputs(args)
    check_output(args.csv, "--csv", writes="csv", inputs=[*inputs, ("--manifest", args.manifest)])
    check_output(args.manifest, "--manifest", writes="report", inputs=inputs)
    if args.list:
        print(_listing())
        return 0
    from ..streams.manifest import sequence_sha256, write_csv, write_manifest

    st = stream_from_args(args)
    print(st)
    print(f"data: {st.data.where}")
    if args.csv:
        write_csv(st, args.csv)
        print(f"wrote {args.csv}")
    if args.manifest:
        doc = write_manifest(st, args.manifest)
        print(f"wrote {args.manifest}")
        digest = doc["sequence_sha256"]
    else:
        digest = sequence_sha256(st)
    print(f"sequence SHA-256 (of the CSV): {digest}")
    return 0
