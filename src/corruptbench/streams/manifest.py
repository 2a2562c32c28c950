"""A stream's manifest and CSV: what replays it, and what a user can diff.

The manifest (JSON) holds the settings, the data's fingerprints (per part: ``labels``, each
``<corruption>.npy`` or ``<corruption>/<severity>`` cell, or the clean source and the corruption
seed), the library version, the number of samples and ``sequence_sha256``: the SHA-256 of the
CSV export, so ``sha256sum stream.csv`` checks a CSV against its manifest. :func:`replay`
rebuilds the stream from a manifest and new data and refuses, in one line, a manifest of another
format or library version, data whose fingerprints differ (naming the parts), or a sequence
that comes out different.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from ..errors import Arg
from ..fileio import write_atomic
from ..version import __version__
from .config import StreamError

__all__ = [
    "CSV_COLUMNS",
    "StreamLike",
    "MANIFEST_FORMAT",
    "MANIFEST_VERSION",
    "stream_manifest",
    "csv_chunks",
    "sequence_sha256",
    "write_csv",
    "write_manifest",
    "read_manifest",
]

MANIFEST_FORMAT = "corruptbench-stream"
#: the CSV export's columns, one row per sample
CSV_COLUMNS = ("index", "domain", "severity", "id", "label")


class StreamLike(Protocol):
    """What a manifest reads of a stream (:class:`~corruptbench.streams.core.Stream`); a protocol,
    so that this module sits below the stream it describes."""

    @property
    def sequence(self) -> Any: ...
    @property
    def config(self) -> Any: ...
    @property
    def data(self) -> Any: ...
    @property
    def blocks(self) -> Any: ...

    def __len__(self) -> int: ...


MANIFEST_VERSION = 1


def csv_chunks(stream: StreamLike, rows: int = 65536) -> Iterator[bytes]:
    """The CSV export in chunks of UTF-8 bytes (header first, ``\\n`` line ends)."""
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    seq = stream.sequence
    for start in range(0, len(seq), rows):
        out.writerows(seq.rows(start, min(start + rows, len(seq))))
        yield buf.getvalue().encode("utf-8")
        buf.seek(0)
        buf.truncate()
    if buf.tell():
        yield buf.getvalue().encode("utf-8")


def sequence_sha256(stream: StreamLike) -> str:
    """SHA-256 of the CSV export."""
    h = hashlib.sha256()
    for chunk in csv_chunks(stream):
        h.update(chunk)
    return h.hexdigest()


def stream_manifest(stream: StreamLike) -> dict[str, Any]:
    """The manifest of ``stream`` (module docstring)."""
    return {
        "format": MANIFEST_FORMAT,
        "format_version": MANIFEST_VERSION,
        "corruptbench": __version__,
        "settings": stream.config.to_dict(),
        "data": {
            "kind": stream.data.kind,
            "where": stream.data.where,
            "profile": stream.data.profile,
            "fingerprints": dict(stream.data.fingerprints),
        },
        "samples": len(stream),
        "blocks": len(stream.blocks),
        "sequence_sha256": sequence_sha256(stream),
    }


def write_csv(stream: StreamLike, path: str | os.PathLike[str]) -> None:
    """Write the CSV export to ``path`` atomically (nothing is left on failure)."""

    def fill(fh: Any) -> None:
        for chunk in csv_chunks(stream):
            fh.write(chunk)

    write_atomic(path, fill)


def write_manifest(stream: StreamLike, path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write the manifest to ``path`` atomically and return it."""
    doc = stream_manifest(stream)
    text = json.dumps(doc, indent=2) + "\n"
    write_atomic(path, lambda fh: fh.write(text.encode("utf-8")))
    return doc


def read_manifest(path: str | os.PathLike[str] | dict[str, Any]) -> dict[str, Any]:
    """A manifest file (or dict), checked to be one of this format and library version.

    Raises:
        StreamError: not readable, not a stream manifest, or of another version.
    """
    if isinstance(path, dict):
        doc = path
        where = "manifest"
    else:
        where = os.fspath(path)
        try:
            doc = json.loads(Path(path).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise StreamError(
                Arg("manifest"), f" {where}: not a readable JSON file ({exc})"
            ) from None
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        raise StreamError(Arg("manifest"), f" {where}: not a corruptbench stream manifest")
    if doc.get("format_version") != MANIFEST_VERSION or doc.get("corruptbench") != __version__:
        raise StreamError(
            Arg("manifest"),
            f" {where} was written by corruptbench {doc.get('corruptbench')} (manifest format "
            f"{doc.get('format_version')}); this is corruptbench {__version__} (format "
            f"{MANIFEST_VERSION}): rebuild the stream with this version",
        )
    return doc
