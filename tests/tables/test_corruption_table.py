"""Every per-severity parameter of ImageNet-C and the profile constants against the spec's tables
(corruptbench.tables.corruptions, corruptbench.profiles)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from corruptbench.profiles import PROFILES
from corruptbench.tables.corruptions import ELASTIC_SCALE, TABLES
from support import SHARED

SPEC = SHARED / "spec" / "reference-spec.md"

COLUMNS = ("imagenet", "inception", "tiny", "cifar")


def _spec_rows() -> dict[str, list[str]]:
    if not SPEC.is_file():
        pytest.skip(f"reference spec not available at {SPEC}")
    text = SPEC.read_text(encoding="utf-8")
    block = text[text.index("### 1.3") : text.index("Source lines: 224")]
    rows: dict[str, list[str]] = {}
    for line in block.splitlines():
        if not line.startswith("| ") or line.startswith("| Corruption"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def _numbers(s: str) -> list[float]:
    return [float(t) for t in re.findall(r"-?\d*\.?\d+", s)]


def _parse(cell: str, columns: dict[str, object], key: str) -> object:
    """Turn one spec cell into five entries (flat numbers or tuples)."""
    cell = cell.strip()
    if cell in ("same",) or cell.startswith("same as 224"):
        return columns["imagenet"]
    if cell.startswith("same as 64"):
        return columns["tiny"]
    if cell.startswith("as 64 but blend"):
        blends = _numbers(cell.split("blend", 1)[1])
        return [tuple(row[:6]) + (b,) for row, b in zip(columns["tiny"], blends)]  # type: ignore[arg-type]
    m = re.match(r"^(\d+)× the same five triples", cell)
    if m:
        s = float(m.group(1))
        base = [tuple(v / ELASTIC_SCALE["imagenet"] for v in t) for t in columns["imagenet"]]  # type: ignore[union-attr]
        return [tuple(s * v for v in t) for t in base]
    if "×(" in cell:
        out = []
        for mult, inner in re.findall(r"(\d+)×\(([^)]*)\)", cell):
            out.append(tuple(float(mult) * v for v in _numbers(inner)))
        return out
    if "(" in cell:
        return [tuple(_numbers(t)) for t in re.findall(r"\(([^)]*)\)", cell)]
    return _numbers(cell)


SPEC_NAMES = {
    "gaussian_noise σ": "gaussian_noise",
    "shot_noise c": "shot_noise",
    "impulse_noise amount": "impulse_noise",
    "defocus_blur (radius, alias)": "defocus_blur",
    "glass_blur (σ, d, iters)": "glass_blur",
    "motion_blur (radius, σ)": "motion_blur",
    "zoom_blur np.arange(1, stop, step)": "zoom_blur",
    "snow (loc, scale, zoom, thr, mb_r, mb_σ, blend)": "snow",
    "frost (img_w, frost_w)": "frost",
    "fog (strength, wibbledecay)": "fog",
    "brightness ΔV": "brightness",
    "contrast factor": "contrast",
    "elastic (alpha, σ, jitter)": "elastic_transform",
    "pixelate factor": "pixelate",
    "jpeg quality": "jpeg_compression",
    "speckle_noise σ": "speckle_noise",
    "gaussian_blur σ": "gaussian_blur",
    "spatter (loc, scale, σ, thr, intensity, mode)": "spatter",
    "saturate (mult, add)": "saturate",
}


def test_every_table_number_matches_the_spec() -> None:
    rows = _spec_rows()
    checked = 0
    for spec_name, name in SPEC_NAMES.items():
        cells = rows[spec_name]
        parsed: dict[str, object] = {}
        for col, cell in zip(COLUMNS, cells):
            parsed[col] = _parse(cell, parsed, col)
        for col in COLUMNS:
            want = parsed[col]
            got = TABLES[col][name]
            assert len(got) == 5 and len(want) == 5, (name, col)  # type: ignore[arg-type]
            for sev, (g, w) in enumerate(zip(got, want), start=1):  # type: ignore[call-overload]
                np.testing.assert_allclose(
                    np.asarray(g, dtype=float),
                    np.asarray(w, dtype=float),
                    rtol=1e-12,
                    err_msg=f"{name} {col} sev {sev}",
                )
                checked += 1
    assert checked == 19 * 4 * 5
    assert set(SPEC_NAMES.values()) == set(TABLES["imagenet"])


def test_profile_constants_match_the_spec() -> None:
    rows = _spec_rows()
    mapsizes = [int(v) for v in rows["fog plasma mapsize"]]
    assert [PROFILES[c].fog_mapsize for c in COLUMNS] == mapsizes
    rescale = rows["frost image rescale"]
    for col, cell in zip(COLUMNS, rescale):
        want = None if cell == "none" else float(cell.replace("×", ""))
        assert PROFILES[col].frost_scale == want
    assert [PROFILES[c].size for c in COLUMNS] == [224, 299, 64, 32]


def test_zoom_lists_from_arange_quirk() -> None:
    # list lengths from np.arange round-off
    lengths = {
        p: [len(np.arange(1, stop, step)) for stop, step in TABLES[p]["zoom_blur"]] for p in COLUMNS
    }
    assert lengths["imagenet"] == [12, 16, 11, 13, 11]
    assert lengths["tiny"] == lengths["cifar"] == [7, 12, 16, 21, 26]


def test_elastic_uses_244_at_224() -> None:
    assert TABLES["imagenet"]["elastic_transform"][0] == (244 * 2, 244 * 0.7, 244 * 0.1)
