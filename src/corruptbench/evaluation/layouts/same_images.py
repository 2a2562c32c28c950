"""What eval-c and eval-p refuse before any work, so that no number averages unlike cells:

* a make-c / make-p build that did not finish (its ``manifest.json`` is not ``complete``): its
  cells hold some of the images, or none;
* cells that hold different images: a file missing from one cell, an extra one, a damaged one
  (the cheap check of :func:`corruptbench.formats.checks.file_problem`: a truncated or zero-byte
  file, which the loader would skip), one class missing in one cell. The errors of such cells
  are over different images and cannot be compared or averaged into a CE or mCE. The cells are
  compared with each other (each cell's selected images, after ``limit`` or a protocol's list) and,
  in a make-c build, with the count its manifest records per cell (the source's items less the
  skipped ones). The released counts (50,000 per ImageNet-C cell) are not required: eval-c reads
  subsets of the releases by design (some classes, ``limit``).

Each refusal is one line naming the problem and suggesting ``corruptbench verify``, which lists
every defect.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from ...grid import Cell, cell_key
from ...layouts import build
from ...pipeline import hash_lines
from ..common import EvalError

__all__ = ["check_finished_build", "check_build_counts", "check_same_images"]


def _verify_hint(root: Path) -> str:
    return f"`corruptbench verify {root}` lists what is missing or damaged"


def check_finished_build(root: Path) -> None:
    """Refuse a make-c / make-p build whose manifest does not say it finished.

    Raises:
        EvalError: the manifest's status is not ``complete`` (or the manifest is unreadable).
    """
    if not build.is_build(root):
        return
    try:
        info = build.build_info(root)
    except ValueError as exc:
        raise EvalError(f"{exc}; {_verify_hint(root)}") from None
    if info.status != build.COMPLETE:
        raise EvalError(
            f"{root}: the make-{info.kind} build did not finish (its {build.MANIFEST} says "
            f"{info.status!r}, not {build.COMPLETE!r}): re-run the same make-{info.kind} command "
            f"to finish it; {_verify_hint(root)}"
        )


def check_build_counts(root: Path, totals: Mapping[Cell, int]) -> None:
    """Refuse cells of a make-c build that hold another number of files than its manifest
    records per cell (``totals``: every file of each cell, before any selection).

    Raises:
        EvalError: naming the first cell that differs.
    """
    if not build.is_build(root):
        return
    try:
        per_cell = build.build_info(root).per_cell
    except ValueError:
        return  # check_finished_build has said what is wrong with it
    wrong = [(c, n) for c, n in totals.items() if n != per_cell]
    if wrong:
        cell, n = wrong[0]
        more = f" (and {len(wrong) - 1} other cells)" if len(wrong) > 1 else ""
        raise EvalError(
            f"{root}: the cell {cell_key(cell)} holds {n} images where the make-c "
            f"{build.MANIFEST} records {per_cell} per cell{more}: the cells cannot be compared; "
            f"{_verify_hint(root)}"
        )


def _shown(names: Collection[str], limit: int = 3) -> str:
    first = sorted(names)[:limit]
    return ", ".join(first) + (", ..." if len(names) > limit else "")


def check_same_images(
    root: Path,
    images: Mapping[Cell, Callable[[], Collection[str]]],
    damaged: Mapping[Cell, Collection[str]] | None = None,
) -> None:
    """Refuse cells that do not hold the same images.

    Args:
        root: The data (named in the message).
        images: Per cell, a function giving the relative keys (``<wnid>/<file>``) of its
            selected, undamaged images (called once per cell, and again for the cells that
            differ: a cell's keys are not all held at once).
        damaged: Per cell, ``"<key>: <problem>"`` of its selected images that are damaged.

    Raises:
        EvalError: the cells' images differ: the cells that differ from the most common set,
            what they lack and hold besides, and ``verify``.
    """
    if len(images) < 2:
        return
    digests = {cell: hash_lines(sorted(get())) for cell, get in images.items()}
    common, _ = Counter(digests.values()).most_common(1)[0]
    odd = [c for c, d in digests.items() if d != common]
    if not odd:
        return
    reference = set(images[next(c for c, d in digests.items() if d == common)]())
    parts = []
    for cell in odd[:3]:
        keys = set(images[cell]())
        lacks, extra = reference - keys, keys - reference
        what = []
        broken = list((damaged or {}).get(cell, ()))
        if broken:
            what.append(f"{len(broken)} damaged ({_shown(broken, 1)})")
        missing = lacks - {b.split(": ", 1)[0] for b in broken}
        if missing:
            what.append(f"lacks {len(missing)} ({_shown(missing)})")
        if extra:
            what.append(f"holds {len(extra)} others ({_shown(extra)})")
        parts.append(f"{cell_key(cell)} " + ", ".join(what))
    more = f"; {len(odd) - 3} more cells differ" if len(odd) > 3 else ""
    raise EvalError(
        f"{root}: the cells hold different images, so their errors cannot be compared or "
        f"averaged: {'; '.join(parts)}{more} (against {len(reference)} images in "
        f"{len(images) - len(odd)} other cells); {_verify_hint(root)}"
    )
