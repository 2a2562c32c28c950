"""CCC generation per image at 224 px (two corruptions + JPEG), ours against the original.

Usage::

    .venv/bin/python benchmarks/ccc.py            # small: 8 cases, 2 repeats, 3 rounds (~1.5 min)
    .venv/bin/python benchmarks/ccc.py --large    # 40 cases, 5 repeats, 3 rounds
    .venv/bin/python benchmarks/ccc.py --breakdown  # where ours spends its time (seconds)

A case is a corruption pair of CCC-Medium's 13 corruptions at two severities drawn on its 0.25
grid (seeded). Per case, both sides do ``ApplyTransforms.__getitem__``'s work after the crop
(generate.py of github.com/oripress/CCC): corruption 1, ``np.uint8``, corruption 2, ``np.uint8``,
Pillow JPEG at quality 85 with ``optimize=True``. The original runs in the reference env
(``tools/reference/ccc_runner.py``'s ``time_pipeline``: one untimed call, then ``repeats`` timed
ones) in the same run; ours is :func:`corruptbench.ccc.functions.corrupt_pair` plus make-c's
JPEG writer (:func:`corruptbench.formats.jpeg.encode_jpeg`: Pillow's bytes). CPU time (``process_time``) of one thread. Glass blur is left out of the
comparison: the reference env has no numba, and the original's shuffle in plain Python would be
unfairly slow (ours is timed anyway, in our column).

Both sides run in ``--rounds`` interleaved rounds (the original's batch, then ours); per case the
median over the rounds is printed, and the ratio of each round's means (its spread shows how much
a shared machine moved the figures).

Printed: per case ours / the original in ms and the ratio; the mean per image; images per second
per core; the core-hours of one 7.5M-image run for ours including the steps before the
corruptions (JPEG decode of a full-size photo, flip + RandomResizedCrop: :func:`make_sample`),
measured on the test photos; and the same projection for the original's corruption + JPEG work
alone.

``--breakdown`` prints where ours spends its time instead: each corruption of CCC (mean over
severities 1..5, ``--large``: the 0.25 grid), the JPEG writer split into OpenCV's standard-table
encode and the Huffman transcode (on the outputs of the pairs), and the cost of one double of
NumPy's legacy MT19937 stream, the floor under every exact draw.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO, REPO, synthetic  # isort: split

import argparse
import sys
import time
from typing import Any

import numpy as np
from PIL import Image

from corruptbench.ccc.functions import ccc_frost_texture, corrupt_pair
from corruptbench.ccc.plan import corruptions_for
from corruptbench.formats.jpeg import encode_jpeg
from corruptbench.tables.ccc import IMAGES_PER_RUN

clock = time.process_time


def photo224() -> np.ndarray:
    from corruptbench.ops.preprocess import profile_preprocess

    if not PHOTO.is_file():
        return synthetic(224, 224)
    with Image.open(PHOTO) as im:
        return profile_preprocess(im.convert("RGB"), "imagenet")


def cases(n: int, with_glass: bool) -> list[tuple[str, float, str, float]]:
    names = [c for c in corruptions_for(20) if with_glass or c != "glass_blur"]
    rng = np.random.RandomState(0)
    out = []
    for _ in range(n):
        a, b = rng.choice(names, 2, replace=False)
        out.append((str(a), rng.randint(1, 21) / 4, str(b), rng.randint(1, 21) / 4))
    return out


def ours(img: np.ndarray, case: tuple[str, float, str, float], repeats: int) -> float:
    def once(rng: np.random.RandomState) -> bytes:
        x = corrupt_pair(img, case[0], case[1], case[2], case[3], rng)
        return encode_jpeg(np.ascontiguousarray(x), 85)  # Pillow's bytes, faster

    rng = np.random.RandomState(0)
    once(rng)
    t0 = clock()
    for _ in range(repeats):
        once(rng)
    return (clock() - t0) / repeats


def full_sample_seconds(n: int) -> float:
    """Ours per image with everything generate does: decode, flip + crop, two corruptions, JPEG."""
    import torch

    from corruptbench.ccc.generate import SampleRecord, make_sample, scan_source
    from corruptbench.ccc.plan import Step

    source = scan_source(PHOTO.parent)
    g = torch.Generator().manual_seed(0)
    rng = np.random.RandomState(0)
    todo = cases(n, with_glass=True)
    recs = [
        SampleRecord(k, f"sample_{k}", Step(k, a, b, s1, s2), k % len(source), "", 0)
        for k, (a, s1, b, s2) in enumerate(todo)
    ]
    for r in recs:  # warm: each corruption's first call (kernels, tables) is not a run's cost
        make_sample(r, source, rng, g)
    t0 = clock()
    for r in recs:
        make_sample(r, source, rng, g)
    return (clock() - t0) / len(recs)


def _per_call(fn: Any, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(3):  # best of three rounds: the machine may be shared
        t0 = clock()
        for _ in range(repeats):
            fn()
        best = min(best, (clock() - t0) / repeats)
    return best


def breakdown(img: np.ndarray, large: bool) -> None:
    """Ours, part by part: each corruption, the JPEG writer's two steps, the MT19937 floor."""
    import cv2

    from corruptbench.ccc.functions import FUNCTIONS
    from corruptbench.formats.jpeg_transcoder import transcode
    from corruptbench.ops.legacy_random import legacy_uniform

    severities = np.arange(0.25, 5.01, 0.25) if large else np.arange(1.0, 5.01)
    repeats = 5 if large else 3
    rng = np.random.RandomState(0)
    print(f"{'corruption':16s} {'ms (mean over severities)':>26s}")
    for name, fn in FUNCTIONS.items():
        ms = [_per_call(lambda s=s, fn=fn: fn(img, float(s), rng), repeats) for s in severities]
        print(f"{name:16s} {np.mean(ms) * 1e3:26.2f}")
    outs = [corrupt_pair(img, a, s1, b, s2, rng) for a, s1, b, s2 in cases(8, True)]

    def opencv(x: np.ndarray) -> Any:  # the JPEG writer's first step (formats/jpeg.py)
        bgr = cv2.cvtColor(x, cv2.COLOR_RGB2BGR)
        return cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()

    t_all = np.mean([_per_call(lambda x=x: encode_jpeg(x, 85), 20) for x in outs])
    t_base = np.mean([_per_call(lambda x=x: opencv(x), 20) for x in outs])
    bases = [opencv(x) for x in outs]
    t_tc = np.mean([_per_call(lambda b=b: transcode(b), 20) for b in bases])
    print(
        f"\nJPEG q85 optimize of the pairs' outputs: {t_all * 1e3:.2f} ms; its steps alone: OpenCV's "
        f"standard-table encode {t_base * 1e3:.2f} ms, the Huffman transcode {t_tc * 1e3:.2f} ms"
    )
    n = 1 << 18
    t_mt = _per_call(lambda: legacy_uniform(rng, 0.0, 1.0, n), 10)
    print(
        f"MT19937 legacy stream: {t_mt / n * 1e9:.2f} ns per double (compiled, the floor of every exact draw)"
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--large", action="store_true")
    parser.add_argument("--breakdown", action="store_true", help="where ours spends its time")
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds (per case: their median)"
    )
    args = parser.parse_args()
    n, repeats = (40, 5) if args.large else (8, 2)
    img = photo224()
    if args.breakdown:
        for k in range(5):
            ccc_frost_texture(k)
        breakdown(img, args.large)
        return 0
    todo = cases(n, with_glass=False)
    sys.path.insert(0, str(REPO / "tests"))
    try:
        from ccc_reference import ccc_reference_available, run_ccc
    except ImportError:  # pragma: no cover
        ccc_reference_available = lambda: False  # noqa: E731
    for k in range(5):  # the frost textures' one-time re-encoding (per process), before timing
        ccc_frost_texture(k)
    refs, mines = [], []
    for _ in range(args.rounds):  # interleaved: the original's batch, then ours, per round
        if ccc_reference_available():
            op = {"op": "time_pipeline", "image": "a", "cases": todo, "repeats": repeats, "seed": 0}
            meta, _ = run_ccc([op], {"a": img}, timeout=3600)
            refs.append(meta["results"][0]["timings"])
        mines.append([ours(img, c, repeats) for c in todo])
    mine = np.median(mines, axis=0)  # per case, over the rounds
    ref = np.median(refs, axis=0) if refs else None
    print(f"{'case (median of the rounds)':52s} {'ours ms':>8s} {'orig ms':>8s} {'ratio':>6s}")
    for k, c in enumerate(todo):
        label = f"{c[0]}@{c[1]} + {c[2]}@{c[3]}"
        r = f"{ref[k] * 1e3:8.1f} {ref[k] / mine[k]:6.1f}" if ref is not None else "       -      -"
        print(f"{label:52s} {mine[k] * 1e3:8.1f} {r}")
    m = float(np.mean(mine))
    print(
        f"\nmean per image, corruptions + JPEG: ours {m * 1e3:.1f} ms ({1 / m:.0f} images/s/core)"
    )
    if ref is not None:
        r = float(np.mean(ref))
        print(f"original {r * 1e3:.1f} ms ({1 / r:.1f} images/s/core): {r / m:.1f}x")
        per_round = sorted(float(np.mean(a) / np.mean(b)) for a, b in zip(refs, mines))
        print(f"the ratio per round: {', '.join(f'{x:.1f}x' for x in per_round)}")
        print(
            f"original, one 7.5M-image run, corruptions + JPEG only: {r * IMAGES_PER_RUN / 3600:,.0f} core-hours"
        )
    if PHOTO.is_file():
        full = full_sample_seconds(n)
        print(
            f"ours, everything per image (decode, crop, 2 corruptions incl. glass blur, JPEG): "
            f"{full * 1e3:.1f} ms = {1 / full:.0f} images/s/core; one 7.5M-image run: "
            f"{full * IMAGES_PER_RUN / 3600:,.0f} core-hours"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
