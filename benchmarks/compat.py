"""corruptbench.compat against imagecorruptions 1.1.2, per corruption, timed in the same run.

Usage::

    .venv/bin/python benchmarks/compat.py                      # 224 x 224 and a native-size photo
    .venv/bin/python benchmarks/compat.py --rounds 5 --names pixelate jpeg_compression
    .venv/bin/python benchmarks/compat.py --via function       # the functions on a PIL image
    .venv/bin/python benchmarks/compat.py --statistic min      # each case's fastest call

imagecorruptions runs in the reference environment (``tools/reference/setup_refenv.sh``) as a
user of scikit-image >= 0.19 runs it (``imagecorruptions_plain``: only the ``multichannel``
keyword mapped to ``channel_axis``). For each image, ``--rounds`` interleaved rounds each time
one pass of imagecorruptions (fresh runner processes, one untimed warm-up call per corruption,
then ``--repeats`` calls per corruption and severity, one for its slow glass and zoom blur) and one
pass of compat (``--repeats`` calls per case, after one untimed warm-up call per case in the first
round), alternating which goes first; each case's figure is the median of its calls in a round
(``--statistic min``: the fastest, the least disturbed on a busy machine); both
single-threaded, in CPU time of their process. ``--via corrupt`` (default) times
``corrupt(x, severity, name)`` on a uint8 array, ``--via function`` the corruption function on a
PIL image made beforehand.

Prints per corruption the milliseconds per call (median over the rounds of the per-round
medians, averaged over the 5 severities) of both, their ratio (imagecorruptions / compat; above 1: compat is faster) and the
lowest per-severity ratio, and says which corruption, if any, is slower than imagecorruptions'.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import REPO, SHARED  # isort: split

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

from corruptbench import compat
from corruptbench.corruptions import ALL_CORRUPTIONS

SEVERITIES = (1, 2, 3, 4, 5)
PHOTOS = SHARED / "data" / "imagenet-sample"
PHOTO = "n01440764_tench.JPEG"


def images(photo: Path, sizes: list[str]) -> list[tuple[str, np.ndarray]]:
    """The photo at 224 x 224 (bilinear resize) and/or at its native size."""
    with Image.open(photo) as im:
        rgb = im.convert("RGB")
    out = []
    for size in sizes:
        if size == "native":
            arr = np.asarray(rgb)
        else:
            side = int(size)
            arr = np.asarray(rgb.resize((side, side), Image.BILINEAR))
        out.append((f"{photo.name} {arr.shape[0]} x {arr.shape[1]}", arr))
    return out


STATISTICS = {"median": np.median, "min": np.min}
#: imagecorruptions takes about a second per call of these: timed once per round
SLOW = ("glass_blur", "zoom_blur")


def time_compat(
    img: np.ndarray, names: list[str], via: str, warm: bool, repeats: int, statistic: str
) -> dict[tuple[str, int], float]:
    """CPU seconds per compat call, the median (or min) of ``repeats`` calls per case (after an
    untimed call per case with ``warm``)."""
    pil = Image.fromarray(img)

    def call(name: str, sev: int) -> object:
        if via == "function":
            return compat.corruption_dict[name](pil, sev)
        return compat.corrupt(img, sev, name)

    out = {}
    for name in names:
        for sev in SEVERITIES:
            np.random.seed(0)  # noqa: NPY002 - compat draws from the global state
            if warm:
                call(name, sev)
            samples = []
            for _ in range(repeats):
                t0 = time.process_time()
                call(name, sev)
                samples.append(time.process_time() - t0)
            out[(name, sev)] = float(STATISTICS[statistic](samples))
    return out


def time_peer(
    reference, img: np.ndarray, names: list[str], via: str, repeats: int, statistic: str
) -> dict[tuple[str, int], float]:  # type: ignore[no-untyped-def]
    """CPU seconds per imagecorruptions call, the median (or min) of ``repeats`` calls per case
    (one for :data:`SLOW`), in fresh runners with one warm-up call per corruption."""
    out = {}
    fast = [n for n in names if n not in SLOW]
    for group, reps in ((fast, repeats), ([n for n in names if n in SLOW], 1)):
        if group:
            timings = reference.reference_timings(
                img,
                names=group,
                severities=SEVERITIES,
                repeats=reps,
                clock="process_time",
                warmup="first",
                module="imagecorruptions_plain",
                via=via,
                statistic=statistic,
            )
            out.update(timings)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", nargs="+", default=["224", "native"], help="224 | native | N")
    ap.add_argument("--photo", default=PHOTO, help=f"file in {PHOTOS} (default {PHOTO})")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    ap.add_argument("--repeats", type=int, default=5, help="calls per case and round (default 5)")
    ap.add_argument(
        "--statistic",
        choices=sorted(STATISTICS),
        default="median",
        help="of a case's calls in a round: median (default) or min (the least disturbed call)",
    )
    ap.add_argument("--names", nargs="+", default=list(ALL_CORRUPTIONS))
    ap.add_argument("--via", choices=("corrupt", "function"), default="corrupt")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO / "tests"))
    import reference  # tests/reference.py

    if not reference.reference_available():
        print(f"imagecorruptions is not available: {reference.REFERENCE_MISSING}")
        return 2
    if not (PHOTOS / args.photo).is_file():
        print(f"photo not found: {PHOTOS / args.photo}")
        return 2
    names = [n for n in args.names if n in ALL_CORRUPTIONS]
    print(
        f"compat vs imagecorruptions 1.1.2 ({args.via}), one thread, CPU time, {args.statistic} of "
        f"{args.repeats} calls per case and round, median of {args.rounds} interleaved rounds; ms "
        "per call, mean over severities 1-5"
    )
    for desc, img in images(PHOTOS / args.photo, args.sizes):
        ours: dict[tuple[str, int], list[float]] = {}
        peer: dict[tuple[str, int], list[float]] = {}
        for r in range(max(1, args.rounds)):
            for side in ("peer", "ours") if r % 2 == 0 else ("ours", "peer"):
                if side == "peer":
                    got = time_peer(reference, img, names, args.via, args.repeats, args.statistic)
                    dest = peer
                else:
                    got = time_compat(img, names, args.via, r == 0, args.repeats, args.statistic)
                    dest = ours
                for case, sec in got.items():
                    dest.setdefault(case, []).append(sec)
        print(f"\n== {desc} ==")
        print(f"{'corruption':<18}{'compat ms':>11}{'imagecorr. ms':>15}{'ratio':>8}{'lowest':>8}")
        slower = []
        for name in names:
            mine = [float(np.median(ours[(name, s)])) for s in SEVERITIES]
            theirs = [float(np.median(peer[(name, s)])) for s in SEVERITIES]
            ratio = sum(theirs) / sum(mine) if sum(mine) > 0 else float("inf")
            lowest = min(t / m if m > 0 else float("inf") for t, m in zip(theirs, mine))
            if ratio < 1:
                slower.append(name)
            print(
                f"{name:<18}{np.mean(mine) * 1e3:>11.2f}{np.mean(theirs) * 1e3:>15.2f}"
                f"{ratio:>8.1f}{lowest:>8.1f}"
            )
        total_mine = sum(float(np.median(v)) for v in ours.values())
        total_theirs = sum(float(np.median(v)) for v in peer.values())
        print(
            f"all {len(names)} x 5: compat {total_mine:.3f} s, imagecorruptions "
            f"{total_theirs:.3f} s ({total_theirs / total_mine:.0f}x); slower than "
            f"imagecorruptions: {', '.join(slower) if slower else 'none'}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
