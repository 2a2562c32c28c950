"""Single-thread timing of every corruption x severity, with the reference's time when available.

Usage::

    .venv/bin/python benchmarks/corruptions.py                 # 224, 64 and 32 px, reference if built
    .venv/bin/python benchmarks/corruptions.py --sizes 224 --repeats 20 --no-reference
    .venv/bin/python benchmarks/corruptions.py --json timings.json

Prints, per image size, a table of milliseconds per call (the minimum over ``--repeats`` rounds
that each time one call of every case, after one untimed warm-up call per case) for the 19
corruptions and 5 severities, the sum over severities, and the total of the 15 benchmark
corruptions. At 224 px, when the reference environment (``tools/reference/setup_refenv.sh``) is
built, it also prints the reference's time (``tests/reference.py`` ``reference_timings``:
wall-clock median of its repeats, on the same image) and the speed-up ratio per corruption and in
total. ``--clock thread_time`` times our calls in CPU time instead (steadier on a busy machine;
the reference stays wall-clock). Corruptions not (yet) registered are shown as n/a. The first
call of each corruption (numba JIT compile or cache load, imports, file reads) is reported
separately and excluded from the table.

Everything runs on one thread: ``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1`` are set before NumPy,
OpenCV and numba load, and ``cv2.setNumThreads(1)``.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import CIFAR_DIR, PHOTO, REPO, synthetic  # isort: split

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import corruptbench
from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS
from corruptbench.profiles import PROFILES
from corruptbench.registry import corruption_registry

SIZE_PROFILE = {p.size: p.name for p in PROFILES.values()}
SEVERITIES = (1, 2, 3, 4, 5)
BENCHMARK = BENCHMARK_CORRUPTIONS


def test_image(size: int) -> tuple[np.ndarray, str]:
    """A real photo prepared as the profile's generator does, or a synthetic image."""
    from PIL import Image

    from corruptbench.ops.preprocess import profile_preprocess, resize_exact

    profile = SIZE_PROFILE.get(size)
    if size == 32 and CIFAR_DIR.is_dir():
        first = sorted(CIFAR_DIR.iterdir())[0]
        with Image.open(first) as im:
            return np.asarray(im.convert("RGB")), f"CIFAR-10 test {first.name}"
    if PHOTO.is_file():
        with Image.open(PHOTO) as im:
            rgb = im.convert("RGB")
        if profile in ("imagenet", "inception", "tiny"):
            return profile_preprocess(rgb, profile), f"{PHOTO.name} ({profile} preprocessing)"
        return np.asarray(resize_exact(rgb, (size, size)), dtype=np.uint8), f"{PHOTO.name} resized"
    return synthetic(size, size), "synthetic"


CLOCKS = {"perf_counter": time.perf_counter, "thread_time": time.thread_time}
clock = time.perf_counter


def time_cases(
    img: np.ndarray, names: list[str], profile: str, repeats: int
) -> dict[str, list[float]]:
    """Minimum seconds per (corruption, severity) over ``repeats`` rounds.

    Every case gets one untimed warm-up call; then each round times one call of every case. Spreading
    a case's samples over the whole run (rather than timing it ``repeats`` times in a row) keeps a
    burst of load from another process from spoiling all of its samples.
    """
    cases = [(n, s) for n in names for s in SEVERITIES]
    for name, sev in cases:
        corruptbench.corrupt(img, name, sev, profile=profile, rng=0)
    best = dict.fromkeys(cases, float("inf"))
    for _ in range(repeats):
        for name, sev in cases:
            t0 = clock()
            corruptbench.corrupt(img, name, sev, profile=profile, rng=0)
            best[(name, sev)] = min(best[(name, sev)], clock() - t0)
    return {n: [best[(n, s)] for s in SEVERITIES] for n in names}


def first_calls(img: np.ndarray, profile: str, names: list[str]) -> dict[str, float]:
    """Seconds of the first call per corruption (JIT compile / cache load, lazy imports)."""
    out = {}
    for name in names:
        t0 = time.perf_counter()
        corruptbench.corrupt(img, name, 5, profile=profile, rng=0)
        out[name] = time.perf_counter() - t0  # wall time: includes file reads
    return out


def reference_seconds(img: np.ndarray, repeats: int) -> dict[str, list[float]] | None:
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import reference  # tests/reference.py
    except ImportError:
        return None
    if not reference.reference_available():
        return None
    timings = reference.reference_timings(
        img, names=ALL_CORRUPTIONS, severities=SEVERITIES, repeats=repeats
    )
    return {
        n: [timings[(n, s)] for s in SEVERITIES]
        for n in ALL_CORRUPTIONS
        if (n, SEVERITIES[0]) in timings
    }


def _fmt(v: float | None, width: int = 8, digits: int = 2) -> str:
    return f"{'n/a':>{width}}" if v is None else f"{v:{width}.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--sizes", type=int, nargs="+", default=[224, 64, 32], choices=sorted(SIZE_PROFILE)
    )
    ap.add_argument(
        "--repeats", type=int, default=10, help="timed calls per case (minimum is kept)"
    )
    ap.add_argument("--names", nargs="+", default=list(ALL_CORRUPTIONS), help="corruptions to time")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference timings")
    ap.add_argument("--reference-repeats", type=int, default=3)
    ap.add_argument("--json", type=Path, help="also write all figures to this JSON file")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="perf_counter",
        help="wall clock (default) or this thread's CPU time (steadier on a busy machine)",
    )
    args = ap.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]

    registered = set(corruption_registry())
    unknown = [n for n in args.names if n not in ALL_CORRUPTIONS]
    if unknown:
        print(f"unknown corruption names ignored: {', '.join(unknown)}")
    names = [n for n in args.names if n in ALL_CORRUPTIONS]
    available = [n for n in names if n in registered]
    missing = [n for n in names if n not in registered]
    report: dict = {
        "threads": 1,
        "repeats": args.repeats,
        "clock": args.clock,
        "sizes": {},
        "missing": missing,
    }
    version = getattr(corruptbench, "__version__", "?")
    print(f"corruptbench {version}: single thread, min of {args.repeats} rounds, ms ({args.clock})")
    if missing:
        print(f"not registered (n/a): {', '.join(missing)}")

    for size in args.sizes:
        profile = SIZE_PROFILE[size]
        img, desc = test_image(size)
        firsts = first_calls(img, profile, available)
        rows = time_cases(img, available, profile, args.repeats)
        ref = None
        if size == 224 and not args.no_reference:
            ref = reference_seconds(img, args.reference_repeats)
        print()
        print(f"== {size} x {size} ({profile} profile; image: {desc}) ==")
        head = (
            f"{'corruption':<18}"
            + "".join(f"{'sev' + str(s):>8}" for s in SEVERITIES)
            + f"{'sum':>9}"
        )
        if ref is not None:
            head += f"{'ref sum':>10}{'ratio':>8}"
        head += f"{'1st call':>10}"
        print(head)
        total = 0.0
        ref_total = 0.0
        complete = all(n in names for n in BENCHMARK)
        for name in names:
            sec = rows.get(name)
            line = f"{name:<18}"
            if sec is None:
                line += "".join(_fmt(None) for _ in SEVERITIES) + _fmt(None, 9)
            else:
                line += "".join(_fmt(v * 1e3) for v in sec) + _fmt(sum(sec) * 1e3, 9)
            if ref is not None:
                rs = ref.get(name)
                line += _fmt(None if rs is None else sum(rs) * 1e3, 10, 1)
                ratio = None if (rs is None or sec is None) else sum(rs) / sum(sec)
                line += _fmt(ratio, 8, 1)
            line += _fmt(firsts[name] * 1e3 if name in firsts else None, 10, 1)
            print(line)
            if name in BENCHMARK:
                if sec is None:
                    complete = False
                else:
                    total += sum(sec)
                    if ref is not None and name in ref:
                        ref_total += sum(ref[name])
        tag = "" if complete else " (incomplete: some of the 15 not timed or n/a)"
        line = f"total of the 15 benchmark corruptions x 5 severities: {total * 1e3:.1f} ms{tag}"
        if ref is not None and total > 0:
            line += f"; reference {ref_total * 1e3:.1f} ms; ratio {ref_total / total:.1f}x"
        print(line)
        print(
            f"first calls (JIT compile / cache load; excluded above): {sum(firsts.values()) * 1e3:.0f} ms in all"
        )
        report["sizes"][str(size)] = {
            "profile": profile,
            "image": desc,
            "seconds": rows,
            "first_call_seconds": firsts,
            "benchmark_total_seconds": total,
            "complete": complete,
            "reference_seconds": ref,
            "reference_benchmark_total_seconds": ref_total if ref is not None else None,
        }
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
