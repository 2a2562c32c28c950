"""The benchmark grid: which cells ``(name, level)`` a command works on, decided in one place.

A *kind* is what a dataset is made of: ``"c"`` (corruptions x severities 1..5, ImageNet-C) or
``"p"`` (perturbation sequences x difficulties 1..3, ImageNet-P, where difficulties 2 and 3 exist
only for the noise perturbations: ``ImageNet-P/test.py`` of hendrycks/robustness reads
``<name>_2`` / ``<name>_3`` folders only for those). :func:`select` is the one filter over the
registry (timm's ``list_models`` way): it resolves names, subsets, families and suites, checks
the levels and returns a :class:`Grid` whose :attr:`Grid.cells` are what make-c / make-p build,
eval-c / eval-p evaluate, the demo runs and a results file holds. Every command, builder and
reader takes its names, levels and cell keys from here.

Subsets of the ImageNet-C suite: ``benchmark`` (the 15 averaged into mCE; imagecorruptions'
``common``), ``extra`` (the 4 held-out ones; ``validation``), ``all`` and the four families of the
paper's Figure 1 (``noise``, ``blur``, ``weather``, ``digital``). Subsets of ImageNet-P: ``test``
(the 10 of the paper's tables; also ``benchmark``), ``validation`` (the 4 others; also ``extra``)
and ``all``. Other suites (ImageNet-C-bar's family, ``cbar``) add their own subsets from the tags
of their registered corruptions.

Examples:
    >>> g = select("c", ["fog", "noise"], [1, 3])
    >>> g.names
    ('fog', 'gaussian_noise', 'shot_noise', 'impulse_noise')
    >>> g.cells[:2], g.keys[0]
    ((Cell(name='fog', level=1), Cell(name='fog', level=3)), 'fog/1')
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from .errors import Arg, ArgumentError
from .registry import (
    canonical_name,
    corruption_specs,
    corruption_suites,
    perturbation_specs,
    resolve_alias,
    suggest,
)
from .tables.cbar import table_key

__all__ = [
    "GridKind",
    "GRID_KINDS",
    "SEVERITIES",
    "DIFFICULTIES",
    "Cell",
    "CLEAN",
    "cell_key",
    "parse_cell_key",
    "Grid",
    "GridError",
    "SUBSET_ALIASES",
    "subsets",
    "subset_names",
    "check_suite",
    "default_subset",
    "suite_of",
    "reference_order",
    "resolve_name",
    "resolve_names",
    "split_names",
    "check_levels",
    "select",
]


class GridError(ArgumentError):
    """An unknown name or subset, or levels outside the kind's range (names the argument)."""


@dataclass(frozen=True)
class GridKind:
    """What differs between the two kinds of benchmark dataset."""

    key: str  #: ``"c"`` or ``"p"``
    what: str  #: ``"corruption"`` or ``"perturbation"``
    names_arg: str  #: the argument (and manifest key) holding the names
    level: str  #: ``"severity"`` or ``"difficulty"``
    levels_arg: str  #: the argument (and manifest key) holding the levels
    levels: tuple[int, ...]  #: every level of the kind, in order


#: ``"c"``: ImageNet-C's severities 1..5; ``"p"``: ImageNet-P's difficulties 1..3
GRID_KINDS: dict[str, GridKind] = {
    "c": GridKind("c", "corruption", "corruptions", "severity", "severities", (1, 2, 3, 4, 5)),
    "p": GridKind("p", "perturbation", "perturbations", "difficulty", "difficulties", (1, 2, 3)),
}
SEVERITIES: tuple[int, ...] = GRID_KINDS["c"].levels
DIFFICULTIES: tuple[int, ...] = GRID_KINDS["p"].levels


class Cell(NamedTuple):
    """One cell of a grid: a corruption and a severity, or a perturbation and a difficulty; the
    clean images are :data:`CLEAN` (level 0)."""

    name: str
    level: int

    @property
    def key(self) -> str:
        """``"fog/3"``, or ``"clean"``: the cell's key in results files and logs."""
        return cell_key(self)


#: the clean images' cell
CLEAN = Cell("clean", 0)


def cell_key(cell: tuple[str, int]) -> str:
    """``"fog/3"`` for ``("fog", 3)``, ``"clean"`` for :data:`CLEAN`."""
    return "clean" if tuple(cell) == CLEAN else f"{cell[0]}/{cell[1]}"


def parse_cell_key(key: str) -> Cell:
    """The :class:`Cell` of a key written by :func:`cell_key` (ValueError if it is not one)."""
    if key == "clean":
        return CLEAN
    name, sep, level = key.rpartition("/")
    if not sep or not name or not level.isdigit():
        raise ValueError(f"not a cell key: {key!r} (expected 'name/level' or 'clean')")
    return Cell(name, int(level))


# ------------------------------------------------------------------------------------------------
# names and subsets
# ------------------------------------------------------------------------------------------------
#: other spellings of subsets (imagecorruptions' names; the paper's "test" set of ImageNet-P)
SUBSET_ALIASES = {
    "c": {"common": "benchmark", "validation": "extra"},
    "p": {"benchmark": "test", "extra": "validation"},
}


def _specs(kind: str, suite: str | None) -> tuple[Any, ...]:
    if kind == "c":
        return corruption_specs(suite)
    from . import perturbations  # noqa: F401  (importing registers the 14 sequences)

    return perturbation_specs()


def subsets(kind: str, suite: str = "imagenet_c") -> dict[str, tuple[str, ...]]:
    """Every subset of ``kind`` (and corruption ``suite``) -> its names in the reference order;
    aliases included. Derived from the registered specs."""
    specs = _specs(kind, suite)
    if kind == "p":
        out = {
            "test": tuple(s.name for s in specs if not s.validation),
            "validation": tuple(s.name for s in specs if s.validation),
            "all": tuple(s.name for s in specs),
        }
    else:
        out = {
            "benchmark": tuple(s.name for s in specs if not s.extra),
            "extra": tuple(s.name for s in specs if s.extra),
            "all": tuple(s.name for s in specs),
        }
        for group in dict.fromkeys(g for s in specs for g in (s.family, *s.tags) if g):
            out[group] = tuple(s.name for s in specs if group in (s.family, *s.tags))
    for alias, target in SUBSET_ALIASES[kind].items():
        out.setdefault(alias, out[target])
    return out


def subset_names(kind: str, subset: str, suite: str = "imagenet_c") -> tuple[str, ...]:
    """The names of one subset (ValueError naming the choices for an unknown one)."""
    known = subsets(kind, suite)
    key = canonical_name(subset) if isinstance(subset, str) else ""
    if key not in known:
        raise GridError(
            f"unknown subset {subset!r}{suggest(key, list(known))} (choices: {', '.join(known)})"
        )
    return known[key]


def check_suite(kind: str, suite: object) -> str:
    """``suite`` when ``kind`` has it: for corruptions a registered suite
    (:func:`corruptbench.registry.corruption_suites`: ``imagenet_c``, ``cbar``), for perturbations
    ``imagenet_c`` only (ImageNet-P's). Else a :class:`GridError` naming the argument ``suite``."""
    known = corruption_suites() if kind == "c" else ("imagenet_c",)
    if not isinstance(suite, str) or suite not in known:
        raise GridError(Arg("suite"), f" must be one of {', '.join(known)}, got {suite!r}")
    return suite


def default_subset(suite: str = "imagenet_c", profile: str | None = None) -> str:
    """The corruptions a command takes when none are named: the subset of ``suite`` named after
    the benchmark whose level table ``profile`` reads (:func:`corruptbench.tables.cbar.table_key`:
    ``cifar10_c_bar`` for ``cifar``, else ``imagenet_c_bar``: CIFAR-10-C-bar's or ImageNet-C-bar's
    ten), else ``all`` (ImageNet-C's 19)."""
    key = table_key(profile or "imagenet")
    return key if key in subsets("c", suite) else "all"


def suite_of(name: str) -> str:
    """The suite of the registered corruption ``name`` (canonical, as :func:`resolve_name`
    returns it)."""
    return next(s.suite for s in corruption_specs(None) if s.name == name)


def reference_order(names: Sequence[str]) -> tuple[str, ...]:
    """The registered corruptions among ``names`` suite by suite (ImageNet-C's first), each
    suite in its reference order: the order results files and reports list them in."""
    wanted = set(names)
    return tuple(s.name for s in corruption_specs(None) if s.name in wanted)


def resolve_name(kind: str, name: object, *, suite: str | None = None) -> str:
    """One registered name of ``kind`` (not a subset), any spelling :func:`resolve_names`
    accepts; ``suite`` limits corruptions to one suite (None: any).

    Raises:
        TypeError: ``name`` is not a str.
        GridError: an unknown name (with a suggestion, else the known names).
    """
    gk = GRID_KINDS[kind]
    if not isinstance(name, str):
        raise TypeError(f"{gk.what} names must be strings, got {name!r} ({type(name).__name__})")
    key = canonical_name(name)
    key = resolve_alias(key) if kind == "c" else key
    every = tuple(s.name for s in _specs(kind, suite))
    if key not in every:
        hint = suggest(key, every) or f"; known {gk.what}s: {', '.join(every)}"
        raise GridError(f"unknown {gk.what} {name!r}{hint}")
    return key


def split_names(names: str | Sequence[object]) -> list[object]:
    """The items of a list of names: every string split at its commas, blanks dropped (the
    CLI's ``--corruptions fog,snow`` and the Python API's ``corruptions="fog,snow"`` alike);
    a non-string item is kept as it is, for :func:`resolve_names` to refuse."""
    items = [names] if isinstance(names, str) else list(names)
    out: list[object] = []
    for item in items:
        if isinstance(item, str):
            out += [part.strip() for part in item.split(",") if part.strip()]
        else:
            out.append(item)
    return out


def resolve_names(
    kind: str,
    names: str | Sequence[str] | None = None,
    *,
    suite: str = "imagenet_c",
) -> tuple[str, ...]:
    """Names and subsets -> registered names, in the order given (a subset in the reference
    order), each once; ``None`` = every name of the suite (ImageNet-P: all 14).

    Spelling is forgiving (case, ``-`` or `` `` for ``_``, registered aliases). A name may come
    from any suite; subsets are those of ``suite``. Commas separate names inside a string, as on
    the command line (``"fog,snow"``, ``["fog,snow", "frost"]``: :func:`split_names`).

    Raises:
        GridError: an unknown name (with a suggestion), or an empty list.
    """
    gk = GRID_KINDS[kind]
    known = subsets(kind, suite)
    if names is None:
        return known["all"]
    items = split_names(names)
    every = tuple(s.name for s in _specs(kind, None))
    out: list[str] = []
    for raw in items:
        if not isinstance(raw, str):
            raise GridError(Arg(gk.names_arg), f" must hold names (str), got {raw!r}")
        key = canonical_name(raw)
        if key in known:
            out.extend(known[key])
            continue
        if resolve_alias(key) not in every and kind == "c" or kind == "p" and key not in every:
            hint = suggest(key, [*every, *known])
            listing = f" (names: {', '.join(every)}; subsets: {', '.join(known)})"
            raise GridError(f"unknown {gk.what} {raw!r}{hint or listing}")
        out.append(resolve_name(kind, raw))
    if not out:
        raise GridError(Arg(gk.names_arg), " is empty")
    return tuple(dict.fromkeys(out))


def check_levels(kind: str, levels: int | Sequence[int] | None = None) -> tuple[int, ...]:
    """Levels of ``kind`` as sorted unique ints (``None`` = all). Refuses bools, non-integers
    and values outside the kind's range with a :class:`GridError` naming the argument."""
    gk = GRID_KINDS[kind]
    if levels is None:
        return gk.levels
    values = [levels] if isinstance(levels, int) else list(levels)
    lo, hi = gk.levels[0], gk.levels[-1]
    out: set[int] = set()
    for v in values:
        try:
            if isinstance(v, bool):
                raise TypeError
            out.add(operator.index(v))
        except TypeError:
            raise GridError(
                Arg(gk.levels_arg), f" must be integers in {lo}..{hi}, got {values}"
            ) from None
    if not out or any(not lo <= v <= hi for v in out):
        raise GridError(Arg(gk.levels_arg), f" must be in {lo}..{hi}, got {values}")
    return tuple(sorted(out))


# ------------------------------------------------------------------------------------------------
# the grid
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    """Names x levels of one kind, and the cells they make (see :func:`select`)."""

    kind: str
    names: tuple[str, ...]
    levels: tuple[int, ...]
    suite: str = "imagenet_c"

    @property
    def spec(self) -> GridKind:
        return GRID_KINDS[self.kind]

    @property
    def cells(self) -> tuple[Cell, ...]:
        """Every cell, name by name then level by level. ImageNet-P: difficulties above 1 only
        for the noise perturbations (the others have one dataset, difficulty 1)."""
        if self.kind == "c":
            return tuple(Cell(n, lv) for n in self.names for lv in self.levels)
        noise = {s.name for s in _specs("p", None) if s.noise}
        return tuple(Cell(n, lv) for n in self.names for lv in self.levels if lv == 1 or n in noise)

    @property
    def keys(self) -> tuple[str, ...]:
        """The cells' keys (``"fog/3"``)."""
        return tuple(c.key for c in self.cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(self.cells)

    def __len__(self) -> int:
        return len(self.cells)


def select(
    kind: str,
    names: str | Sequence[str] | None = None,
    levels: int | Sequence[int] | None = None,
    *,
    suite: str = "imagenet_c",
) -> Grid:
    """The grid of ``kind`` (``"c"`` or ``"p"``) over ``names`` (names and subsets, see
    :func:`resolve_names`; default all) and ``levels`` (default all of the kind).

    Raises:
        GridError: unknown names or subsets, levels outside the range, or (ImageNet-P) a grid with
            no cell because difficulties 2-3 were asked of perturbations that have only 1.
    """
    if kind not in GRID_KINDS:
        raise GridError(f"kind must be 'c' or 'p', got {kind!r}")
    check_suite(kind, suite)
    grid = Grid(kind, resolve_names(kind, names, suite=suite), check_levels(kind, levels), suite)
    if not grid.cells:
        noise = ", ".join(s.name for s in _specs("p", None) if s.noise)
        raise GridError(
            "nothing to do: difficulties 2 and 3 exist only for "
            f"{noise} (the other perturbations have one dataset, difficulty 1)"
        )
    return grid
