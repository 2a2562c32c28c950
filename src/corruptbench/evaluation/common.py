"""Small pieces every part of the evaluation uses: the error, cells, subsets, labels, fingerprints."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import ArgumentError
from ..pipeline import hash_lines
from ..registry import canonical_name, suggest

__all__ = [
    "EvalError",
    "RunOptions",
    "Cell",
    "CLEAN",
    "SEVERITIES",
    "Log",
    "stderr_log",
    "cell_key",
    "select_subset",
    "check_names",
    "label_mapper",
    "detect_profile",
    "files_fingerprint",
    "npy_fingerprint",
    "hash_lines",
]

SEVERITIES = (1, 2, 3, 4, 5)
Cell = tuple[str, int]  #: (corruption, severity); (perturbation, difficulty) for eval-p
CLEAN: Cell = ("clean", 0)  #: the clean images' cell
Log = Callable[[str], None]

_PERTURBATION_GROUPS = ("all", "test", "validation")


class EvalError(ArgumentError):
    """The evaluation cannot run (bad data folder, label mismatch, incompatible results file)."""


def stderr_log(msg: str) -> None:
    """A ``RunOptions.log`` that prints each line on stderr (what eval-c / eval-p use)."""
    print(msg, file=sys.stderr, flush=True)


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


def cell_key(cell: Cell) -> str:
    """``"fog/3"``, or ``"clean"`` (keys of the results' ``run.cell_fingerprints``)."""
    return "clean" if cell == CLEAN else f"{cell[0]}/{cell[1]}"


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


def check_names(names: Sequence[str] | None, allowed: Sequence[str], what: str) -> list[str]:
    """Resolve ``names`` (names or subsets; case- and hyphen-forgiving) to ``allowed`` names, in
    ``allowed`` order; ``None`` means all."""
    if names is None:
        return list(allowed)
    from ..api import SUBSET_ALIASES, SUBSETS, get_corruption_names

    out: list[str] = []
    for raw in names:
        key = canonical_name(raw)
        if what == "corruption" and (key in SUBSETS or key in SUBSET_ALIASES):
            out.extend(n for n in get_corruption_names(key) if n not in out)
            continue
        if what == "perturbation" and key in _PERTURBATION_GROUPS:
            from ..perturbations import ALL_PERTURBATIONS as ALLP
            from ..perturbations import EXTRA_PERTURBATIONS, PERTURBATIONS

            grp = {"all": ALLP, "test": PERTURBATIONS, "validation": EXTRA_PERTURBATIONS}[key]
            out.extend(n for n in grp if n not in out)
            continue
        if key not in allowed:
            hint = suggest(key, allowed) or f"; known: {', '.join(allowed)}"
            raise EvalError(f"unknown {what} {raw!r}{hint}")
        if key not in out:
            out.append(key)
    return [n for n in allowed if n in out]


def detect_profile(size: tuple[int, int]) -> str:
    """The profile of stored corrupted images of ``size`` (224 -> imagenet, 299, 64, 32)."""
    return {224: "imagenet", 299: "inception", 64: "tiny", 32: "cifar"}.get(min(size), "imagenet")


def label_mapper(
    wnids: Sequence[str], num_classes: int | None, notes: list[str]
) -> Callable[[str | None], int]:
    """Class folder name -> label: the standard ImageNet-1k index of a wnid for a 1000-class
    model, else the index among the sorted folders present. Appends a note saying which."""
    from ..datasets.imagenet import is_wnid, wnid_to_index

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


def npy_fingerprint(arr: np.ndarray, labels: np.ndarray | None) -> str:
    """Hash of an array's shape and bytes (and of its labels)."""
    h = hashlib.blake2b(digest_size=16)
    h.update(str(arr.shape).encode())
    h.update(np.ascontiguousarray(arr).tobytes())
    if labels is not None:
        h.update(np.ascontiguousarray(labels).tobytes())
    return h.hexdigest()
