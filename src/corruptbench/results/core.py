"""The results type written by ``eval-c``, ``eval-p`` and ``demo`` and read by the report.

A results file (schema ``corruptbench.results/1``) is one JSON object with ``schema``, ``kind``
(``"c"``, ``"p"``, ``"demo"`` or ``"score"``), ``model``, ``dataset``, ``versions``, ``time_s``,
``created``, then the ImageNet-C part (``errors``, ``ce``, ``mce`` ...) at the top level and/or the
ImageNet-C-bar / CIFAR-10-C-bar part under ``"cbar"`` (:mod:`~corruptbench.results.cbar_part`; an
eval-c file holds either or both) and/or the ImageNet-P part (top level for ``kind="p"``, under ``"p"`` for a demo file), or, for
``kind="score"`` (:func:`corruptbench.evaluate_grid`, ``corruptbench score``), the task-score grid
under ``"score"`` (:mod:`~corruptbench.results.scores`), or, for ``kind="stream"``
(``eval-stream``, :func:`corruptbench.evaluate_stream`), an online evaluation under ``"stream"``
(:mod:`~corruptbench.results.stream_part`; a file of the first eval-stream format is read as
one), then eval-c / eval-p's ``calibration`` (NLL,
Brier, ECE per cell: :mod:`~corruptbench.results.calibration`), then ``run`` (eval-c / eval-p /
evaluate_grid: what resuming needs) or ``demo`` (the demo's photos). All rates are fractions.

:class:`Results` holds one such file, typed. :meth:`Results.to_text` writes the keys in that order
(``json`` with ``indent=1``), so a file written, read and written again is byte-identical.
:meth:`Results.from_dict` / :meth:`Results.from_json` check everything: a malformed file (bad JSON,
a missing key, a value of the wrong type or outside its range, NaN or infinity), one written for
another major schema version, or one whose stored CE / mCE / means disagree with its own errors
(:mod:`~corruptbench.results.c_part`; P / mPC / rPC likewise, :mod:`~corruptbench.results.scores`)
raises ``ValueError`` whose message starts with the file name and says what is wrong. Derived
numbers missing from a file are computed from its errors.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fileio import write_text
from ..perturbations import ALL_PERTURBATIONS
from ..protocols import DEFAULT_PROTOCOL, PROTOCOLS, leaderboard
from .c_part import parse_c, summarize_errors
from .calibration import parse_calibration
from .cbar_part import CBAR_KEY, parse_cbar
from .parts import (
    CalibrationResults,
    CBarResults,
    CResults,
    DatasetInfo,
    PResults,
    ScoreResults,
)
from .reader import Reader, load_json, short_repr, type_name
from .scores import parse_score
from .stream_part import LEGACY_FORMAT, STREAM_KEY, StreamPart, legacy_document, parse_stream

__all__ = [
    "SCHEMA",
    "SCHEMA_PREFIX",
    "SCHEMA_MAJOR",
    "KINDS",
    "CResults",
    "CBarResults",
    "PResults",
    "ScoreResults",
    "DatasetInfo",
    "Results",
    "summarize_errors",
]

SCHEMA_PREFIX = "corruptbench.results"
SCHEMA_MAJOR = 1
SCHEMA = f"{SCHEMA_PREFIX}/{SCHEMA_MAJOR}"
KINDS = ("c", "p", "demo", "score", "stream")
_T5D_MAX = 15.0


@dataclass(frozen=True, repr=False)
class Results:
    """One results file (see the module docstring).

    ``source`` (where it was read from) and ``label`` (display name, default the model id) are
    not part of the file. In a notebook a result shows its summary card and CE figure
    (``_repr_html_``); :meth:`summary` gives the terminal summary as text.

    Examples:
        >>> res = Results.from_json("lite0-c.json")  # doctest: +SKIP
        >>> res.mce, res.relative_mce, res.clean_error  # doctest: +SKIP
        >>> print(res.summary())  # doctest: +SKIP
    """

    kind: str
    model: dict[str, Any]
    dataset: DatasetInfo = field(default_factory=DatasetInfo)
    c: CResults | None = None
    p: PResults | None = None
    score: ScoreResults | None = None
    cbar: CBarResults | None = None
    stream: StreamPart | None = None
    calibration: CalibrationResults | None = None
    versions: dict[str, Any] = field(default_factory=dict)
    time_s: float | None = None
    created: str | None = None
    run: dict[str, Any] | None = None
    demo: dict[str, Any] | None = None
    source: str = ""
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.model_id)

    @property
    def model_id(self) -> str:
        return str(self.model.get("id", ""))

    @property
    def suites(self) -> tuple[str, ...]:
        """The corruption suites whose results the file holds: ``imagenet_c`` (the ImageNet-C
        part, :attr:`c`), ``cbar`` (ImageNet-C-bar / CIFAR-10-C-bar, :attr:`cbar`)."""
        return tuple(name for name, part in (("imagenet_c", self.c), ("cbar", self.cbar)) if part)

    @property
    def cbar_mean_error(self) -> float | None:
        """The C-bar mean error (test_c_bar.py's ``overall-avg`` over the benchmark's cells
        evaluated; see :class:`~corruptbench.results.CBarResults`)."""
        return None if self.cbar is None else self.cbar.mean_error

    # the headline numbers, for interactive use
    @property
    def errors(self) -> dict[str, list[float | None]] | None:
        return None if self.c is None else self.c.errors

    @property
    def clean_error(self) -> float | None:
        return None if self.c is None else self.c.clean_error

    @property
    def ce(self) -> dict[str, float | None] | None:
        return None if self.c is None else self.c.ce

    @property
    def relative_ce(self) -> dict[str, float | None] | None:
        return None if self.c is None else self.c.relative_ce

    @property
    def mce(self) -> float | None:
        """The mCE over the 15 benchmark corruptions; None when fewer have a CE (see
        :attr:`partial_mce`)."""
        return None if self.c is None else self.c.mce

    @property
    def relative_mce(self) -> float | None:
        """The relative mCE over the 15; None when fewer have one (:attr:`partial_relative_mce`)."""
        return None if self.c is None else self.c.relative_mce

    @property
    def partial_mce(self) -> float | None:
        """The mean CE over the benchmark corruptions evaluated when fewer than the 15 were (not
        the mCE: ``c.missing`` names the others); None for a complete result."""
        return None if self.c is None else self.c.partial_mce

    @property
    def partial_relative_mce(self) -> float | None:
        """The mean relative CE over the benchmark corruptions evaluated when fewer than 15 were."""
        return None if self.c is None else self.c.partial_relative_mce

    @property
    def mfr(self) -> float | None:
        return None if self.p is None else self.p.mfr

    @property
    def mt5d(self) -> float | None:
        return None if self.p is None else self.p.mt5d

    @property
    def clean_score(self) -> float | None:
        """P, the clean score of a task-score grid."""
        return None if self.score is None else self.score.clean

    @property
    def mpc(self) -> float | None:
        """mPC, the mean score under corruption of a task-score grid."""
        return None if self.score is None else self.score.mpc

    @property
    def rpc(self) -> float | None:
        """rPC = mPC / P of a task-score grid."""
        return None if self.score is None else self.score.rpc

    @property
    def leaderboard(self) -> dict[str, Any] | None:
        """The figures the leaderboard of the result's protocol lists
        (:func:`corruptbench.protocols.leaderboard`: ``robustbench``'s ``clean_acc`` and
        ``corruptions_acc``, fractions), derived from the errors; ``None`` for the ``full``
        protocol (mCE is its figure) and for results that name no protocol."""
        if self.c is None:
            return None
        return leaderboard(self.dataset.protocol, self.c.errors, self.c.clean_error)

    @property
    def notes(self) -> list[str]:
        """The dataset's notes, then the ImageNet-P notes."""
        return list(self.dataset.notes) + (list(self.p.notes) if self.p is not None else [])

    # ---- showing (the views live in text.py and card.py, imported on call: rich, matplotlib) --
    def summary(self) -> str:
        """The terminal summary as plain text: headline numbers, the per-corruption (or
        per-perturbation) table and the notes, as ``eval-c`` prints them, without colours."""
        if self.stream is not None:
            from .stream_views import stream_summary

            return stream_summary(self)
        from .text import summary_text

        return summary_text(self)

    def _repr_html_(self) -> str:
        """A notebook cell's view: the report's summary card and CE-per-corruption figure (a
        stream result: its TTA table)."""
        if self.stream is not None:
            from .stream_views import html_fragment

            return html_fragment([self])
        from .card import render_fragment

        return render_fragment([self])

    def __repr__(self) -> str:
        figures = {
            "clean_error": self.clean_error,
            "mce": self.mce,
            "relative_mce": self.relative_mce,
            "partial_mce": self.partial_mce,
            "partial_relative_mce": self.partial_relative_mce,
            "mfr": self.mfr,
            "mt5d": self.mt5d,
            "cbar_mean_error": self.cbar_mean_error,
            "P": self.clean_score,
            "mPC": self.mpc,
            "rPC": self.rpc,
            "stream_mean": None if self.stream is None else self.stream.mean,
        }
        shown = ", ".join(f"{k}={v:.4f}" for k, v in figures.items() if v is not None)
        return f"Results(kind={self.kind!r}, model={self.model_id!r}" + (
            f", {shown})" if shown else ")"
        )

    # ---- writing ---------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the file, keys in file order."""
        out: dict[str, Any] = {
            "schema": SCHEMA,
            "kind": self.kind,
            "model": self.model,
            "dataset": self.dataset.to_dict(),
            "versions": self.versions,
            "time_s": self.time_s,
            "created": self.created,
        }
        if self.c is not None:
            out.update(self.c.to_dict())
            if self.leaderboard is not None:
                out["leaderboard"] = self.leaderboard  # derived, not read back
        if self.cbar is not None:
            out[CBAR_KEY] = self.cbar.to_dict()
        if self.p is not None and self.kind == "p":
            out.update(self.p.to_dict())
        if self.demo is not None:
            out["demo"] = self.demo
        if self.p is not None and self.kind != "p":
            out["p"] = self.p.to_dict()
        if self.score is not None:
            out["score"] = self.score.to_dict()
        if self.stream is not None:
            out[STREAM_KEY] = self.stream.to_dict()
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        if self.run is not None:
            out["run"] = self.run
        return out

    def to_text(self) -> str:
        """The file's text: ``json`` with ``indent=1``, no NaN, one final newline."""
        return json.dumps(self.to_dict(), indent=1, allow_nan=False) + "\n"

    def to_json(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically (:func:`corruptbench.fileio.write_text`: temporary file in the
        same folder + rename; the permissions of any new file of the user)."""
        write_text(path, self.to_text(), make_parents=True)

    def to_html(self, path: str | os.PathLike[str] | None = None, *, title: str = "") -> str:
        """This result's report page as one self-contained HTML document (:mod:`.page`: cards,
        tables, figures, provenance; no contact sheet, which :func:`corruptbench.report.build_report`
        adds from photos). Written atomically to ``path`` when given. Needs matplotlib.
        ``title`` defaults to ``"corruptbench: <model>"``."""
        from ..extras import require

        require("matplotlib", "Results.to_html")
        from .page import render_html
        from .stream_views import render_stream_html

        render = render_stream_html if self.stream is not None else render_html
        text = render([self], title=title or f"corruptbench: {self.model_id}")
        if path is not None:
            write_text(path, text, make_parents=True)
        return text

    # ---- reading ---------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str = "<results>") -> Results:
        """Validate a results object (already decoded from JSON).

        Raises:
            ValueError: the message starts with ``source`` and names the problem.
        """
        return _parse(data, str(source))

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> Results:
        """Read and validate one results file.

        Raises:
            ValueError: unreadable file, bad JSON, missing keys, wrong types, incompatible schema.
        """
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ValueError(f"{p}: no such results file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"{p}: cannot read the results file ({exc})") from None
        return _parse(load_json(text, str(p)), str(p))


# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------
def _check_schema(r: Reader, data: Mapping[str, Any]) -> None:
    schema = data.get("schema")
    if schema is None:
        raise r.fail(
            f"missing key 'schema' (expected {SCHEMA!r}); is this a corruptbench results file?"
        )
    if not isinstance(schema, str) or "/" not in schema:
        raise r.fail(f"'schema' must be a string like {SCHEMA!r}, got {short_repr(schema)}")
    prefix, _, version = schema.partition("/")
    if prefix != SCHEMA_PREFIX:
        raise r.fail(
            f"schema {schema!r} is not a corruptbench results schema (expected {SCHEMA!r})"
        )
    major_text = version.split(".")[0]
    if not major_text.isdigit():
        raise r.fail(f"schema {schema!r} has no version number (expected {SCHEMA!r})")
    if int(major_text) != SCHEMA_MAJOR:
        raise r.fail(
            f"results schema version {version} is incompatible: this corruptbench reads "
            f"{SCHEMA!r}. Re-create the file with this version, or use the corruptbench that wrote it."
        )


def _parse_p(r: Reader, data: Mapping[str, Any], where: str) -> PResults:
    r2 = Reader(f"{r.source}: {where}" if where else r.source)
    fp = r2.rate_map(
        data,
        "flip_probability",
        ALL_PERTURBATIONS,
        "perturbation",
        required=True,
        allow_none_values=False,
    )
    assert fp is not None
    if not fp:
        raise r2.fail("'flip_probability' is empty: no perturbation was evaluated")
    t5d = (
        r2.rate_map(
            data,
            "top5_distance",
            ALL_PERTURBATIONS,
            "perturbation",
            hi=_T5D_MAX,
            allow_none_values=False,
        )
        or {}
    )
    zipf = (
        r2.rate_map(
            data,
            "zipf_distance",
            ALL_PERTURBATIONS,
            "perturbation",
            hi=math.inf,
            allow_none_values=False,
        )
        or {}
    )
    nseq_raw = r2.obj(data, "num_sequences", "", required=False) or {}
    nseq = {
        r2.name(k, ALL_PERTURBATIONS, "perturbation", "'num_sequences'"): r2.integer(
            v, f"num_sequences[{k!r}]", allow_none=False
        )
        for k, v in nseq_raw.items()
    }
    difficulty = data.get("difficulty", 1)
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or difficulty < 1:
        raise r2.fail(f"'difficulty' must be a positive integer, got {short_repr(difficulty)}")
    baseline = data.get("baseline")
    if baseline is not None and not isinstance(baseline, str):
        raise r2.fail(f"'baseline' must be a string or null, got {short_repr(baseline)}")
    fr = r2.rate_map(
        data, "flip_rate", ALL_PERTURBATIONS, "perturbation", hi=math.inf, allow_none_values=False
    )
    t5r = r2.rate_map(
        data, "t5d_ratio", ALL_PERTURBATIONS, "perturbation", hi=math.inf, allow_none_values=False
    )
    return PResults(
        flip_probability=fp,
        top5_distance=t5d,
        zipf_distance=zipf,
        num_sequences={k: int(v or 0) for k, v in nseq.items()},
        difficulty=difficulty,
        baseline=baseline,
        flip_rate=fr,
        t5d_ratio=t5r,
        mfr=r2.number(data.get("mfr"), "'mfr'", hi=math.inf),
        mt5d=r2.number(data.get("mt5d"), "'mt5d'", hi=math.inf),
        notes=r2.str_list(data, "notes"),
    )


def _protocol(r: Reader, dataset: Mapping[str, Any], kind: str) -> str | None:
    """``dataset.protocol``: a known protocol's name; an eval-c file without one (written before
    protocols) was evaluated as ``full``."""
    name = r.string(dataset, "protocol", "dataset.", required=False)
    if name is not None and name not in PROTOCOLS:
        raise r.fail(
            f"dataset.protocol must be one of {', '.join(map(repr, PROTOCOLS))}, got {name!r}"
        )
    return DEFAULT_PROTOCOL if name is None and kind == "c" else name


#: the note eval-c writes for inputs it could not read: ``... (not counted): fog/1 2, clean 1``
_SKIPPED = re.compile(r"unreadable inputs skipped \(not counted\): (.*)$")


def _check_protocol_counts(r: Reader, info: DatasetInfo, c: CResults | None) -> None:
    """A protocol that fixes its images (``robustbench``: 5,000) fixes every cell's image count:
    a file claiming it for other counts (hand-edited, or evaluated otherwise) is refused, so no
    view shows a leaderboard number of other images. Inputs eval-c could not read and says it
    skipped (the dataset notes) may be missing from a cell, no more."""
    proto = PROTOCOLS.get(info.protocol or "")
    if c is None or proto is None or proto.image_ids is None:
        return
    expected = len(proto.image_ids())
    skipped: dict[str, int] = {}
    for note in info.notes:
        found = _SKIPPED.search(note)
        for part in found.group(1).split(", ") if found else ():
            key, _, n = part.rpartition(" ")
            skipped[key] = int(n) if n.isdigit() else 0
    cells = [(f"{name}/{i + 1}", n) for name, ns in c.counts.items() for i, n in enumerate(ns)]
    cells.append(("clean", c.clean_count))
    for key, n in cells:
        if n is not None and not expected - skipped.get(key, 0) <= n <= expected:
            raise r.fail(
                f"dataset.protocol {proto.name} evaluates {expected:,} images per cell, but cell "
                f"{key} counts {n:,}: not a {proto.name} result (evaluate it with protocol "
                "full, or give the file its true protocol)"
            )


def _parse(data: Any, source: str) -> Results:
    r = Reader(source)
    if not isinstance(data, dict):
        raise r.fail(f"a results file must hold a JSON object, got {type_name(data)}")
    if data.get("format") == LEGACY_FORMAT:  # the first eval-stream files: read as the part
        data = legacy_document(data, SCHEMA)
    _check_schema(r, data)
    kind = data.get("kind")
    if kind not in KINDS:
        raise r.fail(f"'kind' must be one of {', '.join(map(repr, KINDS))}, got {short_repr(kind)}")
    model = r.obj(data, "model", "")
    assert model is not None
    model_id = r.string(model, "id", "model.")
    assert model_id is not None
    if not model_id.strip():
        raise r.fail("model.id is empty")
    for key in ("source", "preprocessing"):
        r.string(model, key, "model.", required=False)
    dataset = r.obj(data, "dataset", "", required=False)
    info = DatasetInfo(protocol=_protocol(r, {}, kind))
    if dataset is not None:
        strings = {
            key: r.string(dataset, key, "dataset.", required=False)
            for key in ("path", "layout", "profile", "fingerprint", "content_fingerprint")
        }
        info = DatasetInfo(
            **strings,
            num_images=dataset.get("num_images"),
            notes=r.str_list(dataset, "notes"),
            protocol=_protocol(r, dataset, kind),
        )
    versions = r.obj(data, "versions", "", required=False)
    if versions is not None and not all(
        isinstance(v, (str, type(None))) for v in versions.values()
    ):
        raise r.fail("'versions' must map package names to version strings")
    r.number(data.get("time_s"), "'time_s'", hi=math.inf)
    created = r.string(data, "created", "", required=False)

    c = p = score = None
    if kind == "score":
        score = parse_score(r, data)
    # an eval-c file of C-bar corruptions only has no ImageNet-C keys
    if kind == "demo" or kind == "c" and ("errors" in data or data.get(CBAR_KEY) is None):
        c = parse_c(r, data)
    cbar = parse_cbar(r, data, c) if kind in ("c", "demo") else None
    _check_protocol_counts(r, info, c)
    stream = parse_stream(r, data) if kind == "stream" else None
    if kind == "p":
        p = _parse_p(r, data, "")
    elif kind == "demo" and data.get("p") is not None:
        p_data = r.obj(data, "p", "")
        assert p_data is not None
        p = _parse_p(r, p_data, "'p'")
    demo = data.get("demo")
    run = data.get("run")
    return Results(
        kind=kind,
        model=model,
        dataset=info,
        c=c,
        p=p,
        score=score,
        cbar=cbar,
        stream=stream,
        calibration=parse_calibration(r, data, c=c, p=p, cbar=cbar),
        versions=versions or {},
        time_s=data.get("time_s"),
        created=created,
        run=run if isinstance(run, dict) else None,
        demo=demo if isinstance(demo, dict) else None,
        source=source,
        label=model_id,
    )
