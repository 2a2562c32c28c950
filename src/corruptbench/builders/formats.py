"""The output formats of make-c and make-p: which writer makes each and which options of
:func:`~corruptbench.builders.build` it takes (each writer keeps its own defaults).

Data only: a writer class is imported when a build makes one, so the command line can list the
formats (its ``--format`` choices) without importing the pipeline.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spec import Writer

__all__ = ["OutputFormat", "FORMATS", "LAYOUTS"]

#: make-c ``--layout``: ``imagenet`` (class folders, the profile's resize + crop, the released
#: layouts: every format but ``tree``) or ``tree`` (any dataset folder at native size)
LAYOUTS = ("imagenet", "tree")


@dataclass(frozen=True)
class OutputFormat:
    """One output format: its writer (``"module:Class"`` in this package) and its options."""

    writer: str
    options: tuple[str, ...] = ()

    def writer_class(self) -> type[Writer]:
        module, _, name = self.writer.partition(":")
        return getattr(importlib.import_module(f".{module}", __package__), name)  # type: ignore[no-any-return]

    def make(self, out: str, profile: str, options: dict[str, Any]) -> Writer:
        """The writer for ``out`` with ``options`` (those given: not None)."""
        cls = self.writer_class()
        kwargs = dict(options)
        if "profile" in {f.name for f in dataclasses.fields(cls)}:
            kwargs["profile"] = profile
        if "copy_files" in kwargs:
            kwargs["copy_files"] = tuple(kwargs["copy_files"])
        return cls(out, **kwargs)  # type: ignore[call-arg]


#: kind ("c", "p") -> format name -> its writer and options (the CLI's --format choices)
FORMATS: dict[str, dict[str, OutputFormat]] = {
    "c": {
        "jpeg": OutputFormat("writers:JpegTreeWriter", ("quality", "level_names")),
        "npy": OutputFormat("writers:NpyCWriter"),
        "tree": OutputFormat("tree:TreeWriter", ("quality", "copy_files", "links")),
        "webdataset": OutputFormat("shards:WebDatasetCWriter", ("quality",)),
    },
    "p": {
        "mp4": OutputFormat("writers:Mp4TreeWriter", ("preset", "pix_fmt")),
        "npy": OutputFormat("writers:NpyPWriter"),
        "webdataset": OutputFormat("shards:WebDatasetPWriter", ("preset", "pix_fmt")),
    },
}
