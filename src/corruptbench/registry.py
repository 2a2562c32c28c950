"""The registry of corruptions and perturbations (timm-style): each function registers itself with
its metadata, and every list, subset and CLI choice is derived from the registered specs.

The registry keeps no names of its own and imports nothing of the package: importing
:mod:`corruptbench.corruptions` (``import corruptbench`` does) registers the 19 corruptions,
importing :mod:`corruptbench.perturbations` the 14 perturbations, and importing
:mod:`corruptbench.torch` adds the batch implementations to the corruption specs.
"""

from __future__ import annotations

import dataclasses
import difflib
import fnmatch
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "CorruptionSpec",
    "PerturbationSpec",
    "register_corruption",
    "register_batch",
    "register_perturbation",
    "corruption_specs",
    "corruption_registry",
    "corruption_suites",
    "resolve_alias",
    "get_corruption",
    "perturbation_specs",
    "get_perturbation",
    "canonical_name",
    "resolve_name",
    "suggest",
    "plain_summary",
    "list_corruptions",
]


@dataclass(frozen=True)
class CorruptionSpec:
    """One registered corruption."""

    name: str
    #: ``noise``, ``blur``, ``weather`` or ``digital`` (the paper's Figure 1, as imagecorruptions'
    #: subsets); ``None`` for the 4 extra corruptions, which belong to no family
    family: str | None
    order: int  #: position in the reference's ``corruption_tuple`` (0..18)
    extra: bool  #: True for the 4 extra/validation corruptions, reported apart from mCE
    random: bool  #: whether the corruption draws random numbers
    doc: str  #: first line of the function's docstring
    func: Callable[..., Any]  #: ``func(image, severity, *, profile, rng)`` (CPU library)
    #: the torch batch implementation (:class:`corruptbench.torch.BatchImpl`), set when
    #: :mod:`corruptbench.torch` is imported; None before (torch is optional)
    batch: Any = None
    #: the benchmark suite the corruption belongs to: ``imagenet_c`` (the 19 of Hendrycks &
    #: Dietterich 2019) or another registered suite (e.g. ``cbar``, ImageNet-C-bar's family);
    #: ``order`` is unique within a suite
    suite: str = "imagenet_c"
    #: free-form labels a suite uses to select its subsets (e.g. ``imagenet_c_bar``)
    tags: tuple[str, ...] = ()
    #: other spellings :func:`get_corruption` accepts (e.g. a paper's), canonical form
    aliases: tuple[str, ...] = ()
    #: the names of the keyword parameters of :attr:`apply`, in the order of the severity
    #: tables' entries (:func:`corruptbench.corruptions.params_of`)
    params: tuple[str, ...] = ()
    #: the function of the parameters, ``apply(image, *, <params>, rng)`` (``rng`` only when
    #: :attr:`random`): what :attr:`func` calls with its severity's parameters
    apply: Callable[..., Any] | None = None
    #: ``(param, low, high, low_open)`` of the parameters with a domain (None: unbounded; the
    #: low end excluded when ``low_open``), checked by :func:`corruptbench.apply_params`
    bounds: tuple[tuple[str, float | None, float | None, bool], ...] = ()

    @property
    def benchmark(self) -> bool:
        """True for the 15 benchmark corruptions (averaged into mCE)."""
        return not self.extra

    @property
    def summary(self) -> str:
        """:attr:`doc` as plain text for users (:func:`plain_summary`)."""
        return plain_summary(self.doc)


@dataclass(frozen=True)
class PerturbationSpec:
    """One registered ImageNet-P perturbation."""

    name: str
    order: int  #: position in the generator scripts (10 test, then 4 validation)
    validation: bool  #: True for the 4 validation perturbations, reported apart from mFR / mT5D
    #: frames are compared with the clean frame 0, and there are difficulty 2/3 datasets
    #: (ImageNet-P/test.py:234,257 decides by ``'noise' in name``)
    noise: bool
    doc: str
    func: Callable[..., Any]  #: ``func(source, schedule, difficulty, rng) -> frames``

    @property
    def summary(self) -> str:
        """:attr:`doc` as plain text for users (:func:`plain_summary`)."""
        return plain_summary(self.doc)


class _Registered(dict[str, Any]):
    """``name -> spec``, with the specs and names sorted by ``order`` kept up to date (they are
    read on every call of ``corrupt``)."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what
        self.specs: tuple[Any, ...] = ()
        self.names: tuple[str, ...] = ()
        #: alias -> name, from the specs' ``aliases``
        self.aliases: dict[str, str] = {}

    def add(self, spec: Any, *, replace: bool = False) -> None:
        if not replace:
            if spec.name in self:
                raise RuntimeError(f"{self.what} {spec.name!r} registered twice")
            clash = [
                s.name
                for s in self.values()
                if s.order == spec.order
                and getattr(s, "suite", None) == getattr(spec, "suite", None)
            ]
            if clash:
                raise RuntimeError(
                    f"{self.what} {spec.name!r}: order {spec.order} is already {clash[0]!r}'s"
                )
            for alias in getattr(spec, "aliases", ()):
                if alias in self or alias in self.aliases or alias == spec.name:
                    raise RuntimeError(f"{self.what} {spec.name!r}: alias {alias!r} is taken")
        self[spec.name] = spec
        self.aliases.update((a, spec.name) for a in getattr(spec, "aliases", ()))
        # suite by suite (imagenet_c first, then in registration order), each in its own order
        seen = list(dict.fromkeys(getattr(s, "suite", "") for s in self.values()))
        rank = {x: (x != "imagenet_c", i) for i, x in enumerate(seen)}
        self.specs = tuple(
            sorted(self.values(), key=lambda s: (rank[getattr(s, "suite", "")], s.order))
        )
        self.names = tuple(s.name for s in self.specs)


_CORRUPTIONS = _Registered("corruption")
_PERTURBATIONS = _Registered("perturbation")


def plain_summary(doc: str) -> str:
    """A docstring line for users: without reStructuredText literals' double backticks."""
    return doc.replace("``", "").strip()


def _first_line(func: Callable[..., Any]) -> str:
    lines = (func.__doc__ or "").strip().splitlines()
    return lines[0] if lines else ""


def register_corruption(
    name: str,
    *,
    family: str | None,
    order: int,
    extra: bool = False,
    random: bool = True,
    suite: str = "imagenet_c",
    tags: Sequence[str] = (),
    aliases: Sequence[str] = (),
    params: Sequence[str] = (),
    apply: Callable[..., Any] | None = None,
    bounds: Mapping[str, tuple[float | None, float | None, bool]] | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register a corruption function under ``name`` with its metadata.

    In the ``imagenet_c`` suite a benchmark corruption names its family and an extra one
    (``extra=True``) has ``family=None``. ``aliases``: other spellings that resolve to ``name``
    (written in any form :func:`canonical_name` accepts). ``params``: the keyword parameters of
    ``apply``, the function of the parameters that the registered function of the severity
    calls; ``bounds``: ``param -> (low, high, low_open)`` for those with a domain.
    """
    if suite == "imagenet_c" and (family is None) != extra:
        raise ValueError(
            f"corruption {name!r}: the 15 benchmark corruptions have a family, the extra ones none"
        )

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        _CORRUPTIONS.add(
            CorruptionSpec(
                name,
                family,
                order,
                extra,
                random,
                _first_line(func),
                func,
                suite=suite,
                tags=tuple(tags),
                aliases=tuple(canonical_name(a) for a in aliases),
                params=tuple(params),
                apply=apply,
                bounds=tuple((k, *v) for k, v in (bounds or {}).items()),
            )
        )
        return func

    return deco


def register_batch(name: str, impl: Any) -> None:
    """Attach the torch batch implementation ``impl`` to the registered corruption ``name``."""
    if name not in _CORRUPTIONS:
        raise KeyError(f"no corruption {name!r} registered")
    _CORRUPTIONS.add(dataclasses.replace(_CORRUPTIONS[name], batch=impl), replace=True)


def register_perturbation(
    name: str, *, order: int, validation: bool = False, noise: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: register an ImageNet-P sequence generator under ``name`` with its metadata."""

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        _PERTURBATIONS.add(
            PerturbationSpec(name, order, validation, noise, _first_line(func), func)
        )
        return func

    return deco


def corruption_specs(suite: str | None = "imagenet_c") -> tuple[CorruptionSpec, ...]:
    """The registered corruptions of ``suite`` (default the 19 of ImageNet-C; None: every
    suite, suite by suite), each suite in its reference order (their ``order`` field)."""
    if suite is None:
        return _CORRUPTIONS.specs
    return tuple(s for s in _CORRUPTIONS.specs if s.suite == suite)


def list_corruptions(
    pattern: str | Sequence[str] | None = None,
    *,
    suite: str | None = None,
    family: str | None = None,
    extra: bool | None = None,
) -> list[str]:
    """The registered corruption names that match, in registry order (timm's ``list_models``).

    Args:
        pattern: a shell-style wildcard (:mod:`fnmatch`, case-insensitive; ``"*blur*"``), or a
            sequence of them (a name matching any); None: every name.
        suite: ``imagenet_c``, ``cbar`` (:func:`corruption_suites`); None: every suite.
        family: the spec's family (``noise``, ``blur``, ``weather``, ``digital``; in ``cbar``
            also ``color``, ``obscure``, ``distortion``, ``pil``); None: any.
        extra: True for the extra corruptions only (reported apart), False for the benchmark
            ones only; None: both.

    Raises ValueError naming the problem for an unknown suite or family.
    """
    suites = corruption_suites()
    if suite is not None and suite not in suites:
        raise ValueError(
            f"unknown suite {suite!r}{suggest(suite, suites)} (choices: {', '.join(suites)})"
        )
    specs = corruption_specs(suite)
    if family is not None:
        families = tuple(dict.fromkeys(s.family for s in specs if s.family is not None))
        if family not in families:
            raise ValueError(
                f"unknown family {family!r}{suggest(family, families)} "
                f"(choices: {', '.join(families)})"
            )
        specs = tuple(s for s in specs if s.family == family)
    if extra is not None:
        specs = tuple(s for s in specs if s.extra == bool(extra))
    if pattern is None:
        return [s.name for s in specs]
    patterns = [pattern] if isinstance(pattern, str) else list(pattern)
    if not all(isinstance(p, str) for p in patterns):
        raise TypeError("pattern must be a str or a sequence of str")
    keys = [canonical_name(p) for p in patterns]
    return [s.name for s in specs if any(fnmatch.fnmatchcase(s.name, k) for k in keys)]


def corruption_suites() -> tuple[str, ...]:
    """The suites of the registered corruptions, ``imagenet_c`` first."""
    return tuple(dict.fromkeys(s.suite for s in _CORRUPTIONS.specs))


def corruption_registry(suite: str | None = "imagenet_c") -> dict[str, CorruptionSpec]:
    """``name -> spec`` of the registered corruptions of ``suite`` (as :func:`corruption_specs`)."""
    return {s.name: s for s in corruption_specs(suite)}


def perturbation_specs() -> tuple[PerturbationSpec, ...]:
    """Every registered perturbation, in the generator scripts' order."""
    return _PERTURBATIONS.specs


def canonical_name(text: str) -> str:
    """``text`` as a registry key: stripped, lower case, ``-`` and `` `` written as ``_``."""
    return text.strip().lower().replace("-", "_").replace(" ", "_")


def suggest(name: str, choices: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) for what ``name`` may have meant, or ``""``.

    Candidates, first kind that gives any: the choices that start with ``name`` (``jpeg`` ->
    ``jpeg_compression``; at most 3, else none of this kind), then the choices with a word that
    starts with it (``compression`` -> ``jpeg_compression``; at most 3), then the closest by edit
    distance (:func:`difflib.get_close_matches`, ``fogg`` -> ``fog``).
    """
    key = canonical_name(name) if isinstance(name, str) else ""
    options = list(choices)
    close: list[str] = []
    if key:
        for match in (
            lambda c: c.startswith(key),
            lambda c: any(w.startswith(key) for w in c.split("_")),
        ):
            found = [c for c in options if match(c)]
            if 0 < len(found) <= 3:
                close = found
                break
    if not close:
        close = difflib.get_close_matches(key, options, n=1, cutoff=0.5)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"


def resolve_name(
    name: object,
    choices: Sequence[str],
    what: str,
    aliases: Mapping[str, str] | None = None,
) -> str:
    """``name`` as one of ``choices`` (case-insensitive; '-' or ' ' may stand for '_'; an entry of
    ``aliases``, ``alias -> choice`` in canonical form, stands for its choice).

    Raises TypeError for a non-str, ValueError (with a suggestion and the choices) for an unknown
    name; ``what`` names the kind in the messages ("corruption", "perturbation").
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    key = canonical_name(name)
    if aliases:
        key = aliases.get(key, key)
    if key not in choices:
        raise ValueError(
            f"unknown {what} {name!r}{suggest(key, choices)} (choices: {', '.join(choices)})"
        )
    return key


def resolve_alias(key: str) -> str:
    """The corruption name an alias stands for (any other ``key`` is returned unchanged)."""
    return _CORRUPTIONS.aliases.get(key, key)


def get_corruption(name: object) -> CorruptionSpec:
    """The spec of corruption ``name`` (any spelling :func:`resolve_name` accepts, or one of its
    registered aliases)."""
    return _CORRUPTIONS[resolve_name(name, _CORRUPTIONS.names, "corruption", _CORRUPTIONS.aliases)]


def get_perturbation(name: object) -> PerturbationSpec:
    """The spec of perturbation ``name`` (any spelling :func:`resolve_name` accepts)."""
    return _PERTURBATIONS[resolve_name(name, _PERTURBATIONS.names, "perturbation")]
