"""WebDataset shard folders (``make-c`` / ``make-p --format webdataset``, ``corruptbench convert``):
``<name>-<level>-<shard>.tar`` listed in ``shards.json``.

Each sample's image (or sequence) is read straight from its shard at the offset found by scanning
the tar headers when the layout is opened. The numbers equal those of the folder build: labels
follow :class:`~.imagenet_c.ImageNetCFolder` (class names from the sample's ``wnid``) or, for
sources with integer labels (CIFAR), the ``.cls`` member like :class:`~.cifar_c.CifarCFolder`; the
``limit`` subset is drawn by the same keys (``<wnid>/<file>`` of the folder layout, or the row
number where the folder build is an array).

Before any image is read, every shard of the requested cells is compared with ``shards.json``
(:func:`~corruptbench.layouts.webdataset.shard_problem`): its size and sample count always, its
SHA-256 too unless :attr:`~.base.Selection.verify_shards` is ``"count"`` (storage you trust). A
shard that differs stops the evaluation with its name and what was expected: a damaged or
shortened shard would otherwise give a plausible error rate over the wrong images.
"""

from __future__ import annotations

import io
import json
import os
import tarfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

from ...formats.webdataset import (
    SampleEntry,
    ShardInfo,
    UnsafeMemberError,
    inspect_shard,
    map_shards,
    read_member,
)
from ...grid import Cell
from ...layouts.webdataset import SHARD_INDEX, read_index, stats_problem
from ...pipeline import Source, SourceItem, hash_lines
from ...profiles import detect_profile
from ..common import EvalError, check_label_space, content_digest, label_mapper
from ..readers import ShardMemberReader
from .base import Item, Layout, Selection, select_positions
from .same_images import check_same_images

__all__ = ["WebDatasetC", "WebDatasetP", "ShardSample"]


@dataclass(frozen=True)
class ShardSample:
    """One sample found in a shard: where its main member is, and its metadata."""

    path: str
    offset: int
    size: int
    meta: dict[str, Any]
    cls: int | None


def _open_index(root: Path, kind: str) -> dict[str, Any]:
    try:
        doc = read_index(root)
    except ValueError as exc:
        raise EvalError(str(exc)) from None
    if doc.get("kind") != kind:
        other = {"c": "eval-c", "p": "eval-p"}.get(str(doc.get("kind")), "another command")
        raise EvalError(f"{root}: these shards hold {doc.get('kind')!r} data; use {other}")
    return doc


def _inspect(root: Path, shard: dict[str, Any], hash: bool) -> ShardInfo:
    """One shard read (and hashed) and compared with its index entry, or :class:`EvalError`."""
    path = root / shard["name"]
    if not path.is_file():
        raise EvalError(f"{path}: listed in {SHARD_INDEX} but missing")
    try:
        info = inspect_shard(path, hash=hash, read=("json", "cls"))
    except UnsafeMemberError as exc:
        raise EvalError(f"{path}: {exc}") from None
    except (OSError, ValueError, tarfile.TarError) as exc:
        raise EvalError(f"{path}: not a readable tar shard ({exc})") from None
    problem = stats_problem(info, shard)
    if problem is not None:
        raise EvalError(
            f"{path}: {problem}: the shard is not the one {SHARD_INDEX} lists (damaged, shortened "
            "or changed after it was written); re-run the make-c / convert command that wrote it "
            "(it remakes such shards) or restore the file"
        )
    return info


def _verify_note(shards: Sequence[dict[str, Any]], verify: str) -> str:
    n, size = len(shards), sum(int(s.get("bytes", 0)) for s in shards)
    what = "sizes, sample counts and SHA-256" if verify == "hash" else "sizes and sample counts"
    trusted = "" if verify == "hash" else " (SHA-256 not checked: verify_shards='count')"
    return (
        f"shards checked against {SHARD_INDEX}: {what} of {n} shards, {size / 1e9:.2f} GB{trusted}"
    )


def _verified_scan(
    root: Path, rows: dict[Cell, dict[str, Any]], media: str, verify: str, notes: list[str]
) -> dict[Cell, list[ShardSample]]:
    """Every sample of the cells ``rows``, in order, after each shard was compared with the
    index (sizes and sample counts, and with ``verify="hash"`` the SHA-256: one read of each
    shard, several at once); a note says what was checked."""
    shards = [s for row in rows.values() for s in row["shards"]]
    infos = map_shards(lambda s: _inspect(root, s, verify == "hash"), shards)
    by_name = {s["name"]: info for s, info in zip(shards, infos)}
    notes.append(_verify_note(shards, verify))
    return {
        cell: [
            _sample(str(root / s["name"]), e, media)
            for s in row["shards"]
            for e in by_name[s["name"]].entries
            if media in e.members
        ]
        for cell, row in rows.items()
    }


def _sample(path: str, e: SampleEntry, media: str) -> ShardSample:
    offset, size = e.members[media]
    try:
        meta = json.loads(e.small["json"]) if "json" in e.small else {}
    except ValueError as exc:
        raise EvalError(f"{path}: sample {e.key!r} has an unreadable .json ({exc})") from None
    cls = _class_index(e.small["cls"], path, e.key) if "cls" in e.small else None
    return ShardSample(path, offset, size, meta, cls)


def _class_index(raw: bytes, path: str, key: str) -> int:
    """A ``.cls`` member: a class index, ASCII decimal digits (``b"8"``); ``8.5`` or ``-2`` are
    refused rather than truncated or counted as a class no model outputs."""
    text = raw.decode("ascii", "replace").strip()
    if not text.isdigit() or not text.isascii():
        raise EvalError(
            f"{path}: sample {key!r} has class {text[:20]!r} (.cls must be a class index, an "
            "integer >= 0)"
        )
    return int(text)


def _select_key(s: ShardSample, position: int, media: str) -> str:
    # what the folder layout draws the limit subset by: "<wnid>/<file name>" of the JPEG / MP4
    # tree, or the row number of the .npy arrays (png / npy media)
    if media in ("png", "npy") or not s.meta.get("file"):
        return str(position)
    return f"{s.meta.get('wnid')}/{os.path.basename(s.meta['file'])}"


@dataclass
class _Shards(Layout):
    """What the C and P shard layouts share: the index, the scanned samples per cell."""

    name: ClassVar[str] = "webdataset"
    kind: ClassVar[str]

    media: str = "jpg"
    _samples: dict[Cell, list[ShardSample]] = field(default_factory=dict)  #: selected samples
    _positions: dict[Cell, list[int]] = field(default_factory=dict)

    def _add(
        self, cell: Cell, row: dict[str, Any], samples: list[ShardSample], sel: Selection
    ) -> None:
        """Select the cell's samples; its fingerprint: the shards' SHA-256 and the keys used."""
        keys = [_select_key(s, i, self.media) for i, s in enumerate(samples)]
        rows = select_positions(keys, sel, f"{self.root}: {self.key(cell)}")
        self.cells.append(cell)
        self._samples[cell] = [samples[i] for i in rows]
        self._positions[cell] = rows
        self.fingerprints[self.key(cell)] = hash_lines(
            [*(f"{s['name']}\t{s['sha256']}" for s in row["shards"]), *(keys[i] for i in rows)]
        )
        if self.media not in ("png", "npy"):  # named files in the folder build: comparable
            self.contents[self.key(cell)] = content_digest((keys[i], samples[i].size) for i in rows)
        self.images_per_cell = max(self.images_per_cell, len(rows))


def _rows(doc: dict[str, Any]) -> dict[Cell, dict[str, Any]]:
    nk, lk = doc["name_key"], doc["level_key"]
    return {Cell(r[nk], int(r[lk])): r for r in doc["cells"] if r.get("shards")}


@dataclass
class WebDatasetC(_Shards):
    """ImageNet-C style WebDataset shards (``.jpg`` / ``.png`` samples)."""

    kind: ClassVar[str] = "c"

    @staticmethod
    def peek(root: Path) -> tuple[set[str], str | None]:
        """The names of the cells ``shards.json`` lists, and the profile it records."""
        doc = _open_index(root, "c")
        profile = doc.get("profile")
        return {c.name for c in _rows(doc)}, profile if isinstance(profile, str) else None

    _label: Callable[[ShardSample], int] | None = None
    _sources: set[str] = field(default_factory=set)  #: "source" of the selected samples
    _per_cell: int = 0  #: samples in a full cell (CIFAR: rows of the batch)

    @classmethod
    def open(
        cls, root: Path, sel: Selection, num_classes: int | None, profile: str | None
    ) -> WebDatasetC:
        doc = _open_index(root, "c")
        rows = _rows(doc)
        wanted = [Cell(c, s) for c in sel.names for s in sel.levels]
        if not any(cell in rows for cell in wanted):
            raise EvalError(
                f"{root}: none of the requested cells is in {SHARD_INDEX} (it has "
                + ", ".join(f"{c}/{s}" for c, s in list(rows)[:6])
                + (", ..." if len(rows) > 6 else "")
                + ")"
            )
        media = str(doc["media"])
        lay = cls(root, profile or doc.get("profile") or "imagenet", media=media)
        lay.missing = [cell for cell in wanted if cell not in rows]
        scanned = _verified_scan(
            root, {c: rows[c] for c in wanted if c in rows}, media, sel.verify_shards, lay.notes
        )
        if profile is None and not doc.get("profile"):
            lay.profile = _detect(scanned)
        labels = doc.get("labels")
        if labels == "batch":
            lay._label = lambda s: int(s.cls if s.cls is not None else -1)
            lay.notes.append("labels: the .cls member of each sample (CIFAR batch labels)")
            found = {s.cls or 0 for v in scanned.values() for s in v}
            check_label_space(found, num_classes, "the shards' .cls")
        else:
            classes = sorted({s.meta.get("wnid") or "" for v in scanned.values() for s in v})
            if labels == "none" or "" in classes:
                raise EvalError(f"{root}: the samples have no class (wnid), so no label")
            mapper = label_mapper(classes, num_classes, lay.notes)
            lay._label = lambda s: mapper(s.meta["wnid"])
        lay._per_cell = max((len(v) for v in scanned.values()), default=0)
        for cell, samples in scanned.items():
            lay._add(cell, rows[cell], samples, sel)
            lay._sources.update(str(s.meta.get("source")) for s in lay._samples[cell])
        if sel.images is not None:
            unlisted = max(len(v) - len(lay._samples[c]) for c, v in scanned.items())
            lay.notes.append(sel.images.note(unlisted))
        check_same_images(root, {c: partial(lay._selected_keys, c) for c in lay._samples})
        return lay

    def _selected_keys(self, cell: Cell) -> list[str]:
        """What each selected sample of ``cell`` is (its ``<wnid>/<file>``, or its row)."""
        pairs = zip(self._samples[cell], self._positions[cell])
        return [_select_key(s, pos, self.media) for s, pos in pairs]

    def items(self, cell: Cell) -> list[Item]:
        assert self._label is not None
        reader = ShardMemberReader(self.media)
        return [(reader, self._label(s), (s.path, s.offset, s.size)) for s in self._samples[cell]]

    def match_clean(self, source: Source) -> list[SourceItem] | None:
        """CIFAR: the same rows of a batch of as many images; else the clean images whose
        relative path is a selected sample's ``source``."""
        if self.media == "png":
            if source.kind == "cifar-batch" and len(source.items) == self._per_cell:
                rows = next(iter(self._positions.values()), [])
                return [source.items[i] for i in rows]
            return None
        chosen = [it for it in source.items if it.rel in self._sources]
        if chosen and len(chosen) < len(source.items):
            self.notes.append(
                f"clean error over the {len(chosen)} clean images that are sources of the evaluated "
                f"samples (of {len(source.items)} in the clean folder)"
            )
        return chosen or None

    @property
    def subset_selected(self) -> bool:
        return bool(self._sources)


def _detect(scanned: dict[Cell, list[ShardSample]]) -> str:
    """The profile from the size of the first readable image."""
    from PIL import Image

    for samples in scanned.values():
        for s in samples[:5]:
            try:
                with Image.open(io.BytesIO(read_member(s.path, s.offset, s.size))) as im:
                    return detect_profile(im.height, im.width)
            except (OSError, ValueError):
                continue
    return "imagenet"


@dataclass
class WebDatasetP(_Shards):
    """ImageNet-P style WebDataset shards (one ``.mp4`` or ``.npy`` sequence per sample)."""

    kind: ClassVar[str] = "p"

    @classmethod
    def open(cls, root: Path, sel: Selection, profile: str | None) -> WebDatasetP:
        from ...perturbations import NOISE_PERTURBATIONS

        doc = _open_index(root, "p")
        rows = _rows(doc)
        media = str(doc["media"])
        if media == "mp4":
            from ...extras import require

            require("av", "eval-p on MP4 shards")
        lay = cls(root, profile or doc.get("profile") or "imagenet", media=media)
        (difficulty,) = sel.levels
        stored: dict[Cell, dict[str, Any]] = {}  #: requested cell -> the index row holding it
        for p in sel.names:
            # the other perturbations have one dataset; their difficulty is a stride at eval time
            d = difficulty if p in NOISE_PERTURBATIONS else 1
            if Cell(p, d) in rows:
                stored[Cell(p, difficulty)] = rows[Cell(p, d)]
            else:
                lay.missing.append(Cell(p, difficulty))
        scanned = _verified_scan(root, stored, media, sel.verify_shards, lay.notes)
        for cell, row in stored.items():
            lay._add(cell, row, scanned[cell], sel)
        return lay

    def key(self, cell: Cell) -> str:
        return cell[0]

    def items(self, cell: Cell) -> list[Item]:
        reader = ShardMemberReader(self.media)
        return [(reader, 0, (s.path, s.offset, s.size)) for s in self._samples[cell]]

    def classes(self, cell: Cell) -> list[str | int | None]:
        """Each sequence's class folder (the ``wnid`` of its metadata), as the MP4 folder layout
        has it, else its ``.cls`` label (a CIFAR batch's); ``None``: neither."""
        return [s.meta.get("wnid") or s.cls for s in self._samples[cell]]
