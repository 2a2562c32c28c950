"""ImageNet-C-bar's 30 corruptions at 224 px, timed against the original in the same run.

Usage::

    .venv/bin/python benchmarks/cbar.py                        # all 30, 3 rounds, reference if built
    .venv/bin/python benchmarks/cbar.py --names sparkles,perlin_noise --rounds 5
    .venv/bin/python benchmarks/cbar.py --no-reference --repeats 10
    .venv/bin/python benchmarks/cbar.py --json cbar.json

Each corruption runs at its five ImageNet-C-bar levels (``corruptbench.tables.cbar``, ``imagenet``
profile) on a real photo after Resize(256) + CenterCrop(224). Times are CPU time (``process_time``)
of one thread. The original (``imagenet_c_bar/`` of facebookresearch/augmentation-corruption
ba4d5a5, ``build_transform(name, level, "imagenet")``, in the reference environment through
``tools/reference/cbar_runner.py``'s timing mode, with NumPy's default CPU features) is timed in
the same run, interleaved: ``--rounds`` rounds, each one reference pass (a fresh runner: one
untimed call per corruption, then one timed call per level) and one pass of ours (one untimed call
per case, then ``--repeats`` calls per case), the order alternating. Per case the median over the
rounds (ours: of the per-round medians) is reported; the table shows per corruption the mean over
its levels, ours and the original's, their ratio and the smallest per-level ratio.

Below the table: the 10 ImageNet-C-bar corruptions x 5 levels, ours against the original (the
issue's goal: at least 20x, none slower), and a projection of a full ImageNet-C-bar build (50,000
validation images, 10 x 5 per image): our 50 corruptions, 50 JPEG q85 ``optimize=True`` encodes
of their outputs with make-c's writer (``corruptbench.formats.jpeg.encode_jpeg``) and one decode +
Resize(256) + CenterCrop(224) of the full-size photo, in core-hours (the original's corruptions
alone, for comparison).
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO, REPO, synthetic  # isort: split

import argparse
import json
import sys
import time

import numpy as np

import corruptbench
from corruptbench.registry import corruption_specs
from corruptbench.tables.cbar import cbar_level

SEVERITIES = (1, 2, 3, 4, 5)
IMAGES = 50_000
clock = time.process_time


def photo224() -> tuple[np.ndarray, str]:
    from PIL import Image

    from corruptbench.ops.preprocess import profile_preprocess

    if not PHOTO.is_file():
        return synthetic(224, 224), "synthetic 224 x 224"
    with Image.open(PHOTO) as im:
        return profile_preprocess(im.convert("RGB"), "imagenet"), f"{PHOTO.name}, 256 / 224 crop"


def ours_round(img: np.ndarray, names: list[str], repeats: int) -> dict[tuple[str, int], float]:
    """Median seconds of ``repeats`` calls per (corruption, severity), after one untimed call."""
    out = {}
    for name in names:
        for sev in SEVERITIES:
            corruptbench.corrupt(img, name, sev, profile="imagenet", rng=0)
            samples = []
            for k in range(repeats):
                t0 = clock()
                corruptbench.corrupt(img, name, sev, profile="imagenet", rng=k)
                samples.append(clock() - t0)
            out[(name, sev)] = float(np.median(samples))
    return out


def reference_round(reference, img: np.ndarray, names: list[str]) -> dict[tuple[str, int], float]:  # type: ignore[no-untyped-def]
    cases = [(n, cbar_level(n, s, "imagenet")) for n in names for s in SEVERITIES]
    secs = reference.reference_cbar_timings(img, cases, repeats=1, warmup="first")
    return {(n, s): secs[(n, cbar_level(n, s, "imagenet"))] for n in names for s in SEVERITIES}


def reference_module():  # type: ignore[no-untyped-def]
    """``tests/reference.py`` when the reference env and the original code are there."""
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import reference  # tests/reference.py
    except ImportError:
        return None
    ok = reference.reference_available() and reference.cbar_available()
    return reference if ok else None


def build_costs(img: np.ndarray, names: list[str], repeats: int) -> dict[str, float]:
    """Seconds per image besides the corruptions: 50 JPEG encodes of our outputs and one decode +
    preprocess of the full-size photo."""
    from PIL import Image

    from corruptbench.formats.jpeg import encode_jpeg
    from corruptbench.ops.preprocess import profile_preprocess

    outs = [
        corruptbench.corrupt(img, n, s, profile="imagenet", rng=s)
        for n in names
        for s in SEVERITIES
    ]
    for o in outs:
        encode_jpeg(o, 85)
    enc = []
    for _ in range(repeats):
        t0 = clock()
        for o in outs:
            encode_jpeg(o, 85)
        enc.append((clock() - t0) / len(outs))
    dec = []
    if PHOTO.is_file():
        for _ in range(repeats):
            t0 = clock()
            with Image.open(PHOTO) as im:
                profile_preprocess(im.convert("RGB"), "imagenet")
            dec.append(clock() - t0)
    return {"jpeg_encode_s": float(np.median(enc)), "decode_s": float(np.median(dec or [0.0]))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--names", help="comma-separated corruptions (default: all 30)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="calls of ours per case and round")
    parser.add_argument("--no-reference", action="store_true", help="time ours only")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    specs = {s.name: s for s in corruption_specs("cbar")}
    names = args.names.split(",") if args.names else list(specs)
    for n in names:
        if n not in specs:
            parser.error(f"--names: unknown corruption {n!r} (choices: {', '.join(specs)})")
    img, what = photo224()
    reference = None if args.no_reference else reference_module()
    if not args.no_reference and reference is None:
        print("reference env or original code not found: timing ours only", file=sys.stderr)
    for n in names:  # first calls: JIT compile or cache load, lazy imports
        corruptbench.corrupt(img, n, 1, profile="imagenet", rng=0)
    rounds = max(1, args.rounds)
    ours_r: list[dict[tuple[str, int], float]] = []
    ref_r: list[dict[tuple[str, int], float]] = []
    for r in range(rounds):
        steps = [lambda: ours_r.append(ours_round(img, names, args.repeats))]
        if reference is not None:
            steps.append(lambda: ref_r.append(reference_round(reference, img, names)))
        for step in steps if r % 2 == 0 else steps[::-1]:
            step()
        done = f"round {r + 1}/{rounds}: ours {sum(ours_r[-1].values()):.2f} s"
        if ref_r:
            done += f", original {sum(ref_r[-1].values()):.1f} s (CPU, one call per case)"
        print(done, file=sys.stderr, flush=True)
        if args.json:  # the raw seconds so far, in case a long run is cut short
            raw = {
                "ours_rounds": [{f"{n}/{s}": v for (n, s), v in o.items()} for o in ours_r],
                "original_rounds": [{f"{n}/{s}": v for (n, s), v in o.items()} for o in ref_r],
            }
            with open(args.json, "w") as f:
                json.dump({"image": what, "raw": raw}, f, indent=1)
    ours = {c: float(np.median([o[c] for o in ours_r])) for c in ours_r[0]}
    ref = {c: float(np.median([o[c] for o in ref_r])) for c in ref_r[0]} if ref_r else {}
    print(
        f"corruptbench {corruptbench.__version__}, 224 px ({what}), ImageNet-C-bar levels; CPU "
        f"time of one thread, median of {rounds} rounds (ours: of {args.repeats} calls each)"
    )
    print(
        f"{'corruption':32s} {'sets':28s} {'ours ms':>9s} {'orig ms':>10s} {'ratio':>8s} {'min':>7s}"
    )
    rows = {}
    for n in names:
        o = [ours[(n, s)] for s in SEVERITIES]
        row = {"ours_ms": 1e3 * float(np.mean(o)), "levels_ours_ms": [1e3 * v for v in o]}
        line = f"{n:32s} {','.join(specs[n].tags):28s} {row['ours_ms']:9.2f}"
        if ref:
            g = [ref[(n, s)] for s in SEVERITIES]
            row.update(
                orig_ms=1e3 * float(np.mean(g)),
                levels_orig_ms=[1e3 * v for v in g],
                ratio=sum(g) / sum(o),
                min_ratio=min(a / b for a, b in zip(g, o)),
            )
            line += f" {row['orig_ms']:10.1f} {row['ratio']:8.1f} {row['min_ratio']:7.1f}"
        rows[n] = row
        print(line)
    bench = [n for n in names if "imagenet_c_bar" in specs[n].tags]
    summary: dict[str, float] = {}
    if bench:
        per_image = sum(ours[(n, s)] for n in bench for s in SEVERITIES)
        costs = build_costs(img, bench, max(3, args.repeats))
        full = per_image + 50 * costs["jpeg_encode_s"] + costs["decode_s"]
        summary = {
            "corruptions_s_per_image": per_image,
            **costs,
            "build_s_per_image": full,
            "core_hours_50k": full * IMAGES / 3600,
        }
        print(
            f"\nImageNet-C-bar, {len(bench)} corruptions x 5 levels: ours {per_image * 1e3:.1f} ms"
            " per image"
        )
        if ref and len(bench) == 10:
            orig = sum(ref[(n, s)] for n in bench for s in SEVERITIES)
            slowest = min(rows[n]["min_ratio"] for n in bench)
            summary.update(original_s_per_image=orig, ratio=orig / per_image, min_ratio=slowest)
            print(
                f"  original {orig:.2f} s per image: {orig / per_image:.0f}x in total (goal >= 20x);"
                f" smallest per-level ratio {slowest:.1f} (goal >= 1)"
            )
            print(
                f"  original, corruptions alone: {orig * IMAGES / 3600:.0f} core-hours for 50,000"
            )
        print(
            f"  build per image: {per_image * 1e3:.1f} ms corruptions + 50 x"
            f" {costs['jpeg_encode_s'] * 1e3:.2f} ms JPEG q85 optimize + {costs['decode_s'] * 1e3:.1f}"
            f" ms decode/crop = {full * 1e3:.1f} ms -> {summary['core_hours_50k']:.2f} core-hours"
            " for 50,000 images (goal < 1)"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"image": what, "rounds": rounds, "rows": rows, "summary": summary}, f, indent=1
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
