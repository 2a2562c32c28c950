"""Small pieces every part of the evaluation uses: the error, run options, subsets, labels,
fingerprints (cells and their keys come from :mod:`corruptbench.grid`)."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import Arg, ArgumentError
from ..grid import CLEAN, SEVERITIES, Cell, cell_key
from ..pipeline import hash_lines
from ..safe_text import printable

__all__ = [
    "EvalError",
    "RunOptions",
    "CORRUPT_ON",
    "VERIFY_SHARDS",
    "check_verify_shards",
    "Cell",
    "CLEAN",
    "SEVERITIES",
    "Log",
    "stderr_log",
    "cell_key",
    "select_subset",
    "label_mapper",
    "describe_labels",
    "check_label_space",
    "files_fingerprint",
    "content_digest",
    "npy_fingerprint",
    "hash_lines",
]

Log = Callable[[str], None]
#: where on-the-fly corruption runs (``evaluate_c(corrupt_on=...)``, ``eval-c --corrupt-on``)
CORRUPT_ON = ("auto", "workers", "device")
#: how WebDataset shards are checked against ``shards.json`` (``verify_shards=``): ``hash`` = size,
#: sample count and SHA-256 (the default); ``count`` = size and sample count (trusted storage)
VERIFY_SHARDS = ("hash", "count")


class EvalError(ArgumentError):
    """The evaluation cannot run (bad data folder, label mismatch, incompatible results file)."""


def check_verify_shards(value: str) -> str:
    """``verify_shards`` checked (:data:`VERIFY_SHARDS`), or :class:`EvalError` naming it."""
    if value not in VERIFY_SHARDS:
        raise EvalError(
            Arg("verify_shards"),
            f" must be {' or '.join(repr(v) for v in VERIFY_SHARDS)}, got {value!r}",
        )
    return value


def stderr_log(msg: str) -> None:
    """A ``RunOptions.log`` that prints each line on stderr (what eval-c / eval-p use), control
    characters of file names escaped (:func:`~corruptbench.safe_text.printable`)."""
    print(printable(msg, keep_newlines=True), file=sys.stderr, flush=True)


@dataclass(frozen=True)
class RunOptions:
    """How an evaluation runs, as opposed to what it measures (the batch size is a keyword of
    :func:`~corruptbench.evaluation.evaluate_c` itself).

    Attributes:
        workers: Data-loader processes (0 = load in this process); default:
            :func:`~corruptbench.evaluation.loader.plan_resources`.
        threads: Torch threads of the model during the run (default: ``plan_resources``).
        out: Results JSON, rewritten after each finished cell; resumed when it exists.
        overwrite: Replace an existing ``out`` written for another model instead of failing.
        log: Called with one line per finished cell and per notable event (e.g.
            :func:`stderr_log`, ``print``); ``None`` = no lines (the progress bar is separate).
    """

    workers: int | None = None
    threads: int | None = None
    out: str | os.PathLike[str] | None = None
    overwrite: bool = False
    log: Log | None = None


def select_subset(n: int, keys: Sequence[str], limit: int | None, seed: int) -> list[int]:
    """Indices of the ``limit`` items to use: a seeded pseudo-random subset chosen by key hash,
    so the same images are picked in every cell (kept in their original order)."""
    if limit is None or limit >= n:
        return list(range(n))
    ranked = sorted(
        range(n),
        key=lambda i: hashlib.blake2b(f"{seed}|{keys[i]}".encode(), digest_size=8).digest(),
    )
    return sorted(ranked[:limit])


def label_mapper(
    wnids: Sequence[str], num_classes: int | None, notes: list[str]
) -> Callable[[str | None], int]:
    """Class folder name -> label: the standard ImageNet-1k index of a wnid for a 1000-class
    model, else the index among the sorted folders present. Appends a note saying which."""
    from ..formats.imagenet import is_wnid, wnid_to_index

    classes = sorted(set(wnids))
    if num_classes == 1000 and all(is_wnid(w) for w in classes):
        try:
            for w in classes:
                wnid_to_index(w)
        except ValueError as exc:
            raise EvalError(f"class folder {exc}") from None
        notes.append(
            f"labels: standard ImageNet-1k index of each wnid ({len(classes)} classes present)"
        )
        return lambda w: wnid_to_index(str(w))
    if num_classes is not None and len(classes) != num_classes:
        shown = ", ".join(classes[:4]) + (", ..." if len(classes) > 4 else "")
        raise EvalError(
            f"the data has {len(classes)} classes but the model outputs {num_classes} logits "
            f"(class folders {shown}): labelled by their position among the sorted folders they "
            "would not be the model's classes; give ",
            Arg("class_map"),
            " (the model output of each class folder, in sorted order) or a model of "
            f"{len(classes)} classes",
        )
    pos = {c: i for i, c in enumerate(classes)}
    notes.append(
        f"labels: index among the {len(classes)} sorted class folders (model has {num_classes} outputs)"
    )
    return lambda w: pos[str(w)]


def describe_labels(labels: Iterable[int]) -> str:
    """``"classes 0..9"`` when the labels are every integer from 0 up, else the set itself,
    ``"classes {0, 3}"`` (at most 8 shown): a count would hide which classes are there."""
    values = sorted({int(v) for v in labels})
    if not values:
        return "no classes"
    if values == list(range(len(values))):
        return f"classes 0..{values[-1]}" if len(values) > 1 else "class 0"
    shown = ", ".join(map(str, values[:8])) + (f", ... ({len(values)} in all)" * (len(values) > 8))
    return f"classes {{{shown}}}"


def check_label_space(
    labels: Iterable[int], num_classes: int | None, where: str, *, whole: bool = True
) -> str:
    """Integer labels that index the model's outputs directly (a CIFAR ``labels.npy``, a shard's
    ``.cls``) checked against the model's classes; returns :func:`describe_labels`.

    Refused: a label the model has no output for; and labels ``0..K - 1``, every one present,
    when the model has another number of outputs than K: the data is of another label space
    (CIFAR-10's 10 classes on an ImageNet model's 1000 outputs would score 100 % error), unless a
    class map (``class_map``) makes the model's outputs the data's classes. Sparse labels (some
    classes absent) cannot tell the label space and pass; so do labels that are not a whole
    dataset's (``whole=False``: arrays the caller labelled), whose range alone is checked.

    Raises:
        EvalError: naming ``where``, the classes and the model's outputs.
    """
    values = sorted({int(v) for v in labels})
    text = describe_labels(values)
    if num_classes is None or not values:
        return text
    if values[0] < 0 or values[-1] >= num_classes:
        bad = values[0] if values[0] < 0 else values[-1]
        raise EvalError(f"{where} has class {bad} but the model outputs {num_classes} logits")
    dense = len(values) > 1 and values == list(range(len(values)))
    if whole and dense and len(values) != num_classes:
        raise EvalError(
            f"{where} has {text} but the model outputs {num_classes} logits: its labels are "
            "not the model's classes; give ",
            Arg("class_map"),
            f" (the model output of each of the {len(values)} classes) or a model of "
            f"{len(values)} classes",
        )
    return text


def files_fingerprint(root: Path, paths: Iterable[Path]) -> str:
    """Hash of the files' paths relative to ``root`` and their sizes."""
    return hash_lines(f"{p.relative_to(root).as_posix()}\t{p.stat().st_size}" for p in paths)


def content_digest(images: Iterable[tuple[str, int]]) -> str:
    """Digest of one cell's images, whatever holds them: ``(key, size in bytes)`` of each, in key
    order. The key is ``"<wnid>/<file name>"`` as a folder build names the image (a shard
    sample's ``.json`` records the same name), so a folder and its byte-identical WebDataset
    shards give the same digest. It costs nothing beyond what opening either layout reads
    (file sizes from the listing, member sizes from the tar headers); like the folder layout's
    own fingerprint it tells data apart by names and sizes, not by hashing every byte."""
    return hash_lines(sorted(f"{key}\t{size}" for key, size in images))


def npy_fingerprint(arr: np.ndarray, labels: np.ndarray | None) -> str:
    """Hash of an array's shape and bytes (and of its labels)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(arr.shape).encode())
    h.update(np.ascontiguousarray(arr).tobytes())
    if labels is not None:
        h.update(np.ascontiguousarray(labels).tobytes())
    return h.hexdigest()
