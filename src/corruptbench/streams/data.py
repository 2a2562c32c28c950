"""The one door from streams to the data: released / built files and clean images corrupted on
the fly, through the project's public readers (:mod:`corruptbench.formats`, :mod:`corruptbench.layouts`,
:mod:`corruptbench.pipeline`, :mod:`corruptbench.evaluation.readers`).

:func:`open_data` gives a :class:`StreamData`: an id table, each needed cell's ids and labels in
the reference's base order (the :class:`~.sequence.Catalog` the sequence is built from), a
reader per image, and a fingerprint per part of the data (what a manifest replays against).

* CIFAR-10/100-C, CIFAR-10-C-bar: ``<corruption>.npy`` + ``labels.npy``; ids are the row numbers
  ``0`` .. ``N-1`` of a severity (robustbench/data.py ``load_corruptions_cifar`` order).
* ImageNet-C style folders (the release, Tiny-ImageNet-C, ImageNet-C-bar, make-c builds):
  ``<corruption>/<severity>/<wnid>/<file>``; ids ``<wnid>/<file>`` in the order of the chosen list
  (RobustBench's 5,000, the 50,000, or the folder's sorted order for ``data``).
* make-c ``--format webdataset`` shards (``shards.json``): the same ids, from each sample's
  ``.json`` (ImageNet) or position (CIFAR rows).
* :class:`~corruptbench.evaluation.layouts.OnTheFly` clean images (a folder, a CIFAR batch,
  arrays), corrupted per image with make-c's seeds (the same pixels make-c writes before
  encoding).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import Arg
from ..evaluation.layouts import OnTheFly, default_profile
from ..evaluation.layouts.base import open_labelled_source
from ..evaluation.readers import ImageFileReader, NpyRowReader, Reader, StepReader
from ..grid import Cell
from ..pipeline import hash_lines, item_step
from ..profiles import PROFILES
from .config import StreamConfig, StreamError
from .idlists import image_list_ids
from .settings import DATASETS

__all__ = ["StreamData", "open_data", "open_ids", "DataLike"]

#: what a stream reads: a folder, or clean images corrupted on the fly
DataLike = str | os.PathLike[str] | OnTheFly


@dataclass
class StreamData:
    """The data of one stream (see the module docstring)."""

    kind: str  #: ``cifar-c``, ``imagenet-c`` or ``on-the-fly``
    where: str  #: the folder, or a description of the clean source
    ids: tuple[str, ...]
    reader: Reader
    payload: Callable[[str, int, int], Any]  #: (domain, severity, id code) -> reader payload
    fingerprints: dict[str, str] = field(default_factory=dict)
    profile: str = ""
    cells: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)

    def cell(self, domain: str, severity: int) -> tuple[np.ndarray, np.ndarray]:
        """Id codes and labels of a cell, in base order."""
        return self.cells[(domain, severity)]

    def read(self, domain: str, severity: int, code: int) -> np.ndarray:
        """One image, uint8 ``(H, W, 3)``."""
        return self.reader.read(self.payload(domain, severity, code))


def _needed(config: StreamConfig) -> list[tuple[str, int]]:
    return [(d, s) for d in config.order for s in dict.fromkeys(config.schedule())]


def _edge_digest(path: Path) -> str:
    """Size and SHA-256 of the first and last MiB of a file: cheap, and it tells released,
    rebuilt and truncated arrays apart."""
    h = hashlib.sha256()
    size = path.stat().st_size
    with open(path, "rb") as fh:
        h.update(fh.read(1 << 20))
        fh.seek(max(0, size - (1 << 20)))
        h.update(fh.read(1 << 20))
    return f"{size}:{h.hexdigest()[:32]}"


def _missing_names(missing: list[str], where: str, what: str) -> StreamError:
    shown = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
    return StreamError(f"{where}: no {what} for {len(missing)} domain(s) of the order: {shown}")


def _open_cifar(root: Path, config: StreamConfig) -> StreamData:
    from ..layouts.cifar_c import load_cifar_c_labels, scan_cifar_c

    try:
        index = scan_cifar_c(root, config.order)
    except ValueError as exc:
        raise StreamError(str(exc)) from None
    if index.missing:
        raise _missing_names(index.missing, str(root), "<corruption>.npy")
    if index.labels_path is None:
        raise StreamError(f"{root}: a CIFAR-C folder needs labels.npy beside the .npy files")
    try:
        labels = load_cifar_c_labels(root)
    except ValueError as exc:
        raise StreamError(str(exc)) from None
    classes = DATASETS[config.dataset].num_classes
    if labels.size and int(labels.max()) >= classes:  # e.g. CIFAR-100-C read as cifar10_c
        others = [
            k for k, v in DATASETS.items() if v.family == "cifar" and v.num_classes > labels.max()
        ]
        hint = f"; give the dataset (--dataset {others[0]}?)" if others else ""
        raise StreamError(
            f"{root}/labels.npy holds labels up to {int(labels.max())}, but {config.dataset} has "
            f"{classes} classes{hint}"
        )
    n = index.n
    files = {name: str(p) for name, p in index.files.items()}
    cells = {
        (d, s): (np.arange(n, dtype=np.int64), labels[(s - 1) * n : s * n])
        for d, s in _needed(config)
    }
    prints = {"labels": _edge_digest(index.labels_path)}
    prints.update({d: _edge_digest(Path(files[d])) for d in config.order})
    return StreamData(
        "cifar-c",
        str(root),
        tuple(str(i) for i in range(n)),
        NpyRowReader(),
        lambda d, s, i: (files[d], (s - 1) * n + i),
        prints,
        "cifar",
        cells,
    )


def _listed(config: StreamConfig) -> tuple[str, ...] | None:
    if config.id_list() == "data" or not DATASETS[config.dataset].image_lists:
        return None
    return image_list_ids(config.id_list())


def _imagenet_labeller(classes: list[str], num_classes: int) -> Callable[[str], int]:
    from ..formats.imagenet import is_wnid, wnid_to_index

    if num_classes == 1000 and all(is_wnid(w) for w in classes):
        return wnid_to_index
    pos = {c: i for i, c in enumerate(sorted(classes))}
    return pos.__getitem__


def _missing_ids(where: str, listed: int, name: str, missing: list[str]) -> StreamError:
    shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
    return StreamError(
        f"{where}: {len(missing):,} of the {listed:,} images of the {name} list are missing "
        f"(e.g. {shown}); the stream takes every listed image"
    )


def _open_imagenet(root: Path, config: StreamConfig) -> StreamData:
    from ..layouts.imagenet_c import scan_imagenet_c

    needed = _needed(config)
    try:
        index = scan_imagenet_c(root, config.order, sorted({s for _, s in needed}))
    except ValueError as exc:
        raise StreamError(str(exc)) from None
    absent = [c for c in index.missing if c in needed]
    if absent:
        shown = ", ".join(f"{c}/{s}" for c, s in absent[:4]) + (", ..." if len(absent) > 4 else "")
        raise StreamError(
            f"{root}: the data lacks {len(absent)} cell(s) the stream needs "
            f"(<corruption>/<severity>): {shown}",
            "" if any(k for k in index.cells) else "; is this an ImageNet-C style folder?",
        )
    keyed = {
        cell: {f"{w}/{p.name}": p for p, w in entries} for cell, entries in index.cells.items()
    }
    listed = _listed(config)
    table = list(listed) if listed is not None else sorted({k for m in keyed.values() for k in m})
    code = {k: i for i, k in enumerate(table)}
    label_of = _imagenet_labeller(
        sorted({k.split("/")[0] for k in table}), DATASETS[config.dataset].num_classes
    )
    labels = np.asarray([label_of(k.split("/")[0]) for k in table], dtype=np.int64)
    cells, prints, dirs = {}, {}, {}
    for d, s in needed:
        have = keyed[Cell(d, s)]
        if listed is not None:
            missing = [k for k in listed if k not in have]
            if missing:
                raise _missing_ids(f"{root / d / str(s)}", len(listed), config.id_list(), missing)
            codes = np.arange(len(listed), dtype=np.int64)
        else:
            codes = np.asarray([code[k] for k in sorted(have)], dtype=np.int64)
        cells[(d, s)] = (codes, labels[codes])
        dirs[(d, s)] = index.level_dirs[Cell(d, s)]
        prints[f"{d}/{s}"] = hash_lines(
            f"{table[c]}\t{have[table[c]].stat().st_size}" for c in codes
        )
    base = str(root)
    return StreamData(
        "imagenet-c",
        base,
        tuple(table),
        ImageFileReader(),
        lambda d, s, i: os.path.join(base, d, dirs[(d, s)], table[i]),
        prints,
        "imagenet",
        cells,
    )


def _shard_entries(root: Path, row: dict[str, Any], media: str) -> list[Any]:
    """The samples of a cell's shards, in order (their counts checked against ``shards.json``)."""
    from ..formats.webdataset import scan_samples

    out = []
    for shard in row["shards"]:
        path = root / shard["name"]
        try:
            found = [e for e in scan_samples(path, read=("json", "cls")) if media in e.members]
        except (OSError, ValueError) as exc:
            raise StreamError(f"{path}: not a readable tar shard ({exc})") from None
        if len(found) != int(shard["samples"]):
            raise StreamError(
                f"{path}: {len(found)} samples, shards.json lists {shard['samples']}: the shard "
                "is not the one the index describes"
            )
        out += [(str(path), e) for e in found]
    return out


def _shard_sample(path: str, entry: Any, position: int, media: str) -> tuple[str, str | int, Any]:
    """(id, class, payload) of one shard sample: CIFAR rows are numbered, ImageNet samples
    named ``<wnid>/<file>`` by their ``.json`` (the folder build's name)."""
    meta = json.loads(entry.small.get("json", b"{}") or b"{}")
    offset, size = entry.members[media]
    if media in ("png", "npy") or not meta.get("file"):
        cls: str | int = int(entry.small["cls"]) if "cls" in entry.small else str(meta.get("wnid"))
        return str(position), cls, (path, offset, size)
    return (
        f"{meta.get('wnid')}/{os.path.basename(meta['file'])}",
        str(meta.get("wnid")),
        (path, offset, size),
    )


def _open_shards(root: Path, config: StreamConfig) -> StreamData:
    """make-c ``--format webdataset`` shards (``shards.json``)."""
    from ..evaluation.readers import ShardMemberReader
    from ..layouts.webdataset import read_index

    try:
        doc = read_index(root)
    except ValueError as exc:
        raise StreamError(str(exc)) from None
    if doc.get("kind") != "c":
        raise StreamError(f"{root}: these shards hold {doc.get('kind')!r} data, not corruptions")
    nk, lk, media = doc["name_key"], doc["level_key"], str(doc["media"])
    rows = {(r[nk], int(r[lk])): r for r in doc["cells"] if r.get("shards")}
    needed = _needed(config)
    absent = [c for c in needed if c not in rows]
    if absent:
        shown = ", ".join(f"{c}/{s}" for c, s in absent[:4]) + (", ..." if len(absent) > 4 else "")
        raise StreamError(
            f"{root}: the shards lack {len(absent)} cell(s) the stream needs: {shown}"
        )
    samples: dict[tuple[str, int], dict[str, tuple[str | int, Any]]] = {}
    for cell in needed:
        entries = _shard_entries(root, rows[cell], media)
        samples[cell] = {
            k: (c, p)
            for k, c, p in (_shard_sample(q, e, i, media) for i, (q, e) in enumerate(entries))
        }
    listed = _listed(config)
    table = (
        list(listed)
        if listed is not None
        else list(dict.fromkeys(k for m in samples.values() for k in m))
    )
    code = {k: i for i, k in enumerate(table)}
    classes = sorted({str(c) for m in samples.values() for c, _ in m.values()})
    label_of = _imagenet_labeller(classes, DATASETS[config.dataset].num_classes)
    cells, prints, payloads = {}, {}, {}
    for cell in needed:
        have = samples[cell]
        if listed is not None:
            missing = [k for k in listed if k not in have]
            if missing:
                raise _missing_ids(
                    f"{root}: {cell[0]}/{cell[1]}", len(listed), config.id_list(), missing
                )
        keys = list(listed) if listed is not None else list(have)
        codes = np.asarray([code[k] for k in keys], dtype=np.int64)
        labels = [c if isinstance(c, int) else label_of(c) for c, _ in (have[k] for k in keys)]
        cells[cell] = (codes, np.asarray(labels, dtype=np.int64))
        payloads[cell] = {code[k]: have[k][1] for k in keys}
        prints[f"{cell[0]}/{cell[1]}"] = hash_lines(
            f"{sh['name']}\t{sh['sha256']}" for sh in rows[cell]["shards"]
        )
    return StreamData(
        "webdataset",
        str(root),
        tuple(table),
        ShardMemberReader(media),
        lambda d, s, i: payloads[(d, s)][i],
        prints,
        str(doc.get("profile") or ""),
        cells,
    )


def _check_corruptions(order: tuple[str, ...]) -> None:
    """Each domain of an on-the-fly order is a corruption to apply: an unknown one refused
    before any image is listed (a folder's domains are its files, checked when opened)."""
    from ..grid import GridError, resolve_name

    for name in order:
        try:
            resolve_name("c", name)
        except GridError as exc:
            raise StreamError(
                Arg("order"), f": {exc} (on the fly, each domain is a corruption to apply)"
            ) from None


def _open_on_the_fly(data: OnTheFly, config: StreamConfig, seed: int) -> StreamData:
    from ..evaluation.common import EvalError

    _check_corruptions(config.order)
    info = DATASETS[config.dataset]
    try:
        source = data.open()
        profile = _profile_of(source, config.dataset)  # before the labels: the first mismatch
        items, labels = open_labelled_source(source, info.num_classes, [], None, 0)
    except EvalError as exc:
        raise StreamError(*exc.parts) from None
    if info.family == "cifar":
        ids = tuple(str(i) for i in range(len(items)))
        order = np.arange(len(items), dtype=np.int64)
    else:
        ids = tuple(it.rel for it in items)
        listed = _listed(config)
        if listed is not None:
            code = {k: i for i, k in enumerate(ids)}
            missing = [k for k in listed if k not in code]
            if missing:
                raise _missing_ids(source.root.as_posix(), len(listed), config.id_list(), missing)
            order = np.asarray([code[k] for k in listed], dtype=np.int64)
        else:
            order = np.arange(len(items), dtype=np.int64)
    lab = np.asarray(labels, dtype=np.int64)
    cells = {(d, s): (order, lab[order]) for d, s in _needed(config)}
    step = item_step("c", profile, seed)
    return StreamData(
        "on-the-fly",
        f"{source.root} corrupted on the fly (seed {seed}, profile {profile})",
        ids,
        StepReader(step),
        lambda d, s, i: (items[i], d, s),
        {"clean": source.fingerprint, "corruption_seed": str(seed)},
        profile,
        cells,
    )


def _profile_of(source: Any, dataset: str) -> str:
    """The dataset's profile, if the clean images suit it: of its size, or photos (sizes other
    than the small profiles' 32 / 64) for the profiles that resize them (imagenet, tiny: make-c's
    preprocessing); else one line: a CIFAR folder made into an ImageNet stream, or photos into a
    CIFAR one, would be resized and corrupted at the wrong levels."""
    profile = DATASETS[dataset].profile
    found = default_profile(source)
    photos = found in ("imagenet", "inception")
    if found == profile or (photos and profile != "cifar"):
        return profile
    side = PROFILES[profile].size
    raise StreamError(
        f"{dataset} streams corrupt {side} x {side} images at the {profile!r} profile, but the "
        f"clean images of {source.root} are {_what(found)}: give the dataset these images "
        "belong to (--dataset) or images of that size"
    )


def _what(profile: str) -> str:
    if profile == "imagenet":
        return "photos of other sizes"
    side = PROFILES[profile].size
    return f"{side} x {side} (the {profile!r} profile's size)"


class _NoImages(Reader):
    """The reader of a stream built from ids alone."""

    def read(self, payload: Any) -> np.ndarray:
        raise StreamError(
            "this stream was built from the id list alone (no data); give data to read images"
        )


def _needs_images(config: StreamConfig) -> StreamError:
    """Why ``config`` has no sequence without data, and what to give."""
    give = ("give ", Arg("data", "D"), " or ", Arg("on_the_fly", "SRC", python="OnTheFly(src)"))
    if config.image_list == "data":
        return StreamError(Arg("image_list"), " 'data' takes its ids from the data: ", *give)
    return StreamError(
        f"{config.dataset} needs images: ", *give,
        " (a sequence without images comes from ImageNet-C's id lists only: robustbench, "
        "imagenet_50k)",
    )  # fmt: skip


def open_ids(config: StreamConfig) -> StreamData:
    """An ImageNet-C stream's catalog from its id list alone, no images: enough for the
    sequence, its CSV and its manifest (the reference builds its sequence from the list too).

    Raises:
        StreamError: a dataset without an id list (CIFAR ids and labels come from the data).
    """
    listed = _listed(config)
    if listed is None:
        raise _needs_images(config)
    from ..formats.imagenet import wnid_to_index

    labels = np.asarray([wnid_to_index(k.split("/")[0]) for k in listed], dtype=np.int64)
    codes = np.arange(len(listed), dtype=np.int64)
    cells = {cell: (codes, labels) for cell in _needed(config)}
    return StreamData(
        "ids",
        f"the {config.id_list()} id list (no images)",
        listed,
        _NoImages(),
        lambda d, s, i: None,
        {"ids": config.id_list()},
        "imagenet",
        cells,
    )


def open_data(data: DataLike | None, config: StreamConfig, *, seed: int = 0) -> StreamData:
    """The data of a stream of ``config``: a CIFAR-C folder (it has ``labels.npy``), an
    ImageNet-C style folder, :class:`~corruptbench.evaluation.layouts.OnTheFly` clean images
    (``seed``: make-c's base seed of the corruption), or None: ImageNet-C's id list alone
    (:func:`open_ids`).

    Raises:
        StreamError: the data misses a domain, a severity or a listed image (named), or is of
            another family than ``config.dataset``.
    """
    if isinstance(data, OnTheFly):
        return _open_on_the_fly(data, config, seed)
    if data is None:
        return open_ids(config)
    root = Path(data)
    if not root.is_dir():
        raise StreamError(Arg("data"), f" {root}: folder not found")
    family = DATASETS[config.dataset].family
    if (root / "shards.json").is_file():
        return _open_shards(root, config)
    is_cifar = (root / "labels.npy").is_file()
    if is_cifar != (family == "cifar"):
        found = "a CIFAR-C folder (labels.npy)" if is_cifar else "an ImageNet-C style folder"
        raise StreamError(Arg("data"), f" {root} is {found}, not data of {config.dataset}")
    return _open_cifar(root, config) if is_cifar else _open_imagenet(root, config)
