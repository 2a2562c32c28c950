"""The cells of a built dataset, for :func:`~corruptbench.evaluation.evaluate_grid`: what the score
function of each (corruption, severity) cell is given.

* **Folders** — ``make-c --layout tree`` (``OUT/<corruption>/<severity>/`` is a complete dataset
  root: the corrupted images under their own relative paths plus links to the copied annotations),
  ``make-c`` in the ImageNet layout (``OUT/<corruption>/<severity>/<wnid>/...``) or a downloaded
  ImageNet-C / COCO-C folder: the cell's target is the folder ``OUT/<corruption>/<severity>``.
  A make-c build is read from its ``manifest.json`` (it must be complete); a folder without one
  from its ``<corruption>/<1..5>`` sub-folders.
* **WebDataset shards** (``make-c --format webdataset``, ``corruptbench convert``): the cell's
  target is the tuple of its shard files in order (``OUT/fog-3-000000.tar``, ...), as
  ``shards.json`` lists them; read them with ``webdataset.WebDataset([str(p) for p in shards])``
  or :func:`corruptbench.datasets.webdataset.iter_samples`.

The fingerprint that resuming compares: a make-c build's parameters (its manifest's ``params``:
source fingerprint, seed, corruptions, ...), the shards' names and SHA-256, or, for a folder
without a manifest, its cell names only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..corruptions import ALL_CORRUPTIONS
from ..datasets.webdataset import SHARD_INDEX, read_index
from ..errors import Arg
from ..grid import SEVERITIES, Cell, cell_key, subsets, suite_of
from ..pipeline import hash_lines
from ..registry import corruption_suites
from .common import EvalError

__all__ = ["GridData", "Target", "open_grid_data"]

_MANIFEST = "manifest.json"  # builders.outputs.MANIFEST (evaluation does not import builders)
Target = Path | tuple[Path, ...]  #: a cell's folder, or its shard files


@dataclass(frozen=True)
class GridData:
    """A built dataset's cells.

    Attributes:
        root: The dataset folder.
        layout: ``tree``, ``imagenet`` (make-c's JPEG folders), ``folder`` (no manifest) or
            ``webdataset``.
        targets: Cell -> what the score function gets for it (reference order).
        fingerprint: What must match for a results file to be resumed.
    """

    root: Path
    layout: str
    targets: dict[Cell, Target]
    fingerprint: str


def _read_manifest(root: Path) -> dict[str, Any] | None:
    path = root / _MANIFEST
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise EvalError(f"{path}: not a readable make-c manifest ({exc})") from None
    return doc if isinstance(doc, dict) else None


def _manifest_cells(root: Path, doc: dict[str, Any]) -> tuple[str, list[Cell], str]:
    """(layout, cells, fingerprint) of a complete make-c build."""
    params = doc.get("params") or {}
    if params.get("command") != "make-c":
        raise EvalError(f"{root}: built by {params.get('command')!r}, not make-c")
    status = doc.get("status")
    if status != "complete":
        raise EvalError(
            f"{root}: the make-c build is {status!r}, not complete: re-run the same make-c "
            "command to finish it first"
        )
    fmt = params.get("format")
    if fmt not in ("tree", "jpeg"):
        raise EvalError(
            f"{root}: a make-c --format {fmt} build has no folder per cell; score folders "
            "(--layout tree, --format jpeg) or shards (--format webdataset)"
        )
    cells = [
        Cell(str(c), int(s)) for c in params.get("corruptions", []) for s in params["severities"]
    ]
    fingerprint = hash_lines([json.dumps(params, sort_keys=True)])
    return ("tree" if fmt == "tree" else "imagenet"), cells, fingerprint


def _scanned_cells(root: Path) -> list[Cell]:
    """``<corruption>/<severity>`` sub-folders of a folder without a manifest (every registered
    corruption's, so that another suite's are named by :func:`open_grid_data`)."""
    cells = []
    every = [n for suite in corruption_suites() for n in subsets("c", suite)["all"]]
    for name in every:
        for sev in SEVERITIES:
            if (root / name / str(sev)).is_dir():
                cells.append(Cell(name, sev))
    return cells


def _folder_data(root: Path) -> GridData:
    doc = _read_manifest(root)
    if doc is not None:
        layout, cells, fingerprint = _manifest_cells(root, doc)
    else:
        layout, cells = "folder", _scanned_cells(root)
        fingerprint = hash_lines([cell_key(c) for c in cells])
    if not cells:
        raise EvalError(
            f"{root}: no <corruption>/<severity> folders and no {SHARD_INDEX}: not a dataset "
            "built by make-c (--layout tree, --format jpeg or webdataset)"
        )
    absent = [cell_key(c) for c in cells if not (root / c[0] / str(c[1])).is_dir()]
    if absent:
        raise EvalError(f"{root}: the cell folder {absent[0]} is missing")
    return GridData(root, layout, {c: root / c[0] / str(c[1]) for c in cells}, fingerprint)


def _shard_data(root: Path) -> GridData:
    try:
        doc = read_index(root)
    except ValueError as exc:
        raise EvalError(str(exc)) from None
    if doc.get("kind") != "c":
        raise EvalError(f"{root}: these shards hold {doc.get('kind')!r} data, not make-c cells")
    if not doc.get("complete", True):
        raise EvalError(
            f"{root}: {SHARD_INDEX} says the build is not complete: re-run the same make-c "
            "command to finish it first"
        )
    nk, lk = doc["name_key"], doc["level_key"]
    targets: dict[Cell, Target] = {}
    lines = []
    for row in doc["cells"]:
        cell = Cell(str(row[nk]), int(row[lk]))
        shards = tuple(root / s["name"] for s in row["shards"])
        gone = [p for p in shards if not p.is_file()]
        if gone:
            raise EvalError(f"{gone[0]}: listed in {SHARD_INDEX} but missing")
        if shards:
            targets[cell] = shards
        lines += [f"{cell_key(cell)}\t{s['name']}\t{s['sha256']}" for s in row["shards"]]
    if not targets:
        raise EvalError(f"{root}: {SHARD_INDEX} lists no shard")
    return GridData(root, "webdataset", targets, hash_lines(lines))


def _refuse_other_suites(root: Path, names: list[str]) -> None:
    """The error for cells that are not ImageNet-C's: another registered suite's (ImageNet-C-bar)
    by name, else an unknown corruption."""
    suites: dict[str, list[str]] = {}
    for name in names:
        try:
            suites.setdefault(suite_of(name), []).append(name)
        except StopIteration:  # not registered at all
            raise EvalError(f"{root}: unknown corruption {name!r} in the dataset") from None
    suite, some = next(iter(suites.items()))
    raise EvalError(
        f"{root} holds cells of the {suite!r} suite ({', '.join(some[:3])}"
        f"{', ...' if len(some) > 3 else ''}): evaluate_grid covers ImageNet-C's 19 corruptions "
        "only (suite 'imagenet_c', where P, mPC and rPC of Michaelis et al. 2019 are defined)"
    )


def open_grid_data(data: str | os.PathLike[str]) -> GridData:
    """The cells of the dataset at ``data`` (see the module docstring).

    Raises:
        EvalError: not a folder, an unfinished build, no cells, a cell or shard missing.
    """
    root = Path(data)
    if not root.is_dir():
        raise EvalError(Arg("data"), f" {os.fspath(data)!r} is not a folder")
    data_ = _shard_data(root) if (root / SHARD_INDEX).is_file() else _folder_data(root)
    order = {c: i for i, c in enumerate(ALL_CORRUPTIONS)}
    unknown = list(dict.fromkeys(c for c, _ in data_.targets if c not in order))
    if unknown:
        _refuse_other_suites(root, unknown)
    targets = dict(sorted(data_.targets.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])))
    return GridData(data_.root, data_.layout, targets, data_.fingerprint)
