"""``corruptbench verify DIR``: is a corruption dataset on disk complete and intact?

:func:`verify` recognises the layout of DIR (:func:`corruptbench.layouts.find`: the released
ImageNet-C / -P, Tiny-ImageNet-C / -P, ImageNet-C-bar, CIFAR-10-C / CIFAR-100-C and MNIST-C,
corruptbench's own make-c / make-p builds and WebDataset shards), compares it with what a
complete copy holds (:mod:`.checks`, one per layout) and checks every file
(:mod:`corruptbench.formats.checks`: a cheap structural check, or a full decode with ``decode``).
The :class:`~.report.VerifyReport` lists per cell the missing, extra, zero-byte, truncated,
undecodable and wrongly shaped files.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

from ..errors import Arg
from ..layouts import cifar_c, find, mnist_c, webdataset
from ..progress import Progress, progress
from .checks import LAYOUTS, Selected, layout_key
from .report import CellReport, VerifyError, VerifyReport, format_report

__all__ = [
    "CellReport",
    "VerifyError",
    "VerifyReport",
    "format_report",
    "verify",
    "LAYOUTS",
    "layout_key",
]

#: layouts whose checks read whole files (headers, sizes, hashes), not start and end markers
_WHOLE_FILES = (cifar_c.NAME, mnist_c.NAME, webdataset.NAME)


def _find_root(root: Path) -> tuple[Path, str, list[str]]:
    """The folder holding the data (DIR, or its only sub-folder, as an archive extracts it)."""
    found, notes = find(root)
    key = layout_key(found)
    if key is not None:
        return found.root, key, notes
    raise VerifyError(
        f"{root}: no known layout (ImageNet-C style <corruption>/<severity>/<class>/<file>, "
        "ImageNet-P <perturbation>/<class>/<file>.mp4, CIFAR-C <corruption>.npy + labels.npy, "
        "MNIST-C <corruption>/*.npy, a make-c / make-p build with manifest.json, or shards.json)"
    )


def verify(
    root: str | os.PathLike[str],
    *,
    layout: str | None = None,
    decode: bool = False,
    hash: bool = False,
    present_only: bool = False,
    progress_mode: str | bool = "auto",
    names: Sequence[str] | None = None,
    levels: Sequence[int] | None = None,
) -> VerifyReport:
    """Check the dataset in ``root``.

    Args:
        root: The folder (or the folder an archive was extracted into, holding only it).
        layout: Force a layout (a key of :data:`LAYOUTS`; :func:`layout_key` of what
            :func:`corruptbench.layouts.detect` found) instead of detecting it.
        decode: Decode every image / video fully (slow) instead of the cheap checks.
        hash: Compare file hashes where published ones exist (CIFAR-C's ``.npy``, shards).
        present_only: Check only the corruption folders present (a download of some parts).
        progress_mode: As :func:`corruptbench.progress.progress` (counted in cells).
        names, levels: Check only these corruptions (perturbations) and levels of an ImageNet-C
            style tree, a make-c / make-p folder build or CIFAR-C (default: all the layout has);
            what ``corruptbench convert`` compares its source with.

    Raises:
        VerifyError: ``root`` is not a folder, or its layout is not recognised.
    """
    path = Path(root)
    if not path.is_dir():
        raise VerifyError(Arg("root", python="root"), f" {path}: folder not found")
    notes: list[str] = []
    if layout is None:
        path, layout, notes = _find_root(path)
    elif layout not in LAYOUTS:
        raise VerifyError("unknown ", Arg("layout"), f" {layout!r}; known: {', '.join(LAYOUTS)}")

    def bar_factory(total: int) -> Progress:
        return progress(total, f"verify {path.name}", unit="cells", mode=progress_mode)

    t0 = time.perf_counter()
    only = None
    if names is not None or levels is not None:
        only = Selected(
            None if names is None else tuple(names), None if levels is None else tuple(levels)
        )
    report = LAYOUTS[layout](
        path,
        decode=decode,
        hash=hash,
        bar_factory=bar_factory,
        present_only=present_only,
        only=only,
    )
    report.seconds = time.perf_counter() - t0
    report.notes[:0] = notes
    if not decode and layout not in _WHOLE_FILES:
        report.notes.append(
            "cheap checks (start and end markers of each file); --decode decodes every file"
        )
    return report
