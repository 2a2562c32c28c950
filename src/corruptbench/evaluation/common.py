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
    if num_classes is not None and len(classes) > num_classes:
        raise EvalError(
            f"the data has {len(classes)} classes but the model outputs {num_classes} logits"
        )
    pos = {c: i for i, c in enumerate(classes)}
    notes.append(
        f"labels: index among the {len(classes)} sorted class folders (model has {num_classes} outputs)"
    )
    return lambda w: pos[str(w)]


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
