"""Single-thread timing of every corruption x severity, against the reference timed in the same run.

Usage::

    .venv/bin/python benchmarks/corruptions.py                 # 224, 64 and 32 px, reference if built
    .venv/bin/python benchmarks/corruptions.py --sizes 224 --rounds 7
    .venv/bin/python benchmarks/corruptions.py --sizes 224 --repeats 20 --no-reference
    .venv/bin/python benchmarks/corruptions.py --json timings.json

Prints, per image size, a table of milliseconds per call for the 19 corruptions and 5 severities
(the median of all timed calls of a case, after one untimed warm-up call per case), the sum over
severities, and the total of the 15 benchmark corruptions. Times are CPU time of this process
(``--clock process_time``, the default: steady on a shared machine, where wall-clock figures
drift with the other jobs; ``thread_time`` or ``perf_counter`` on request).

At 224 px, when the reference environment (``tools/reference/setup_refenv.sh``) is built, the
reference (imagenet-c 0.0.3 in its own venv, ``tests/reference.py``) is timed in the same run and
in the same CPU-time clock, interleaved: ``--rounds`` rounds, each one reference pass (one call per
case, after one untimed warm-up call per corruption, in a fresh runner process; CPU time of that
process) and one pass of ours (``--repeats`` calls per case), alternating which goes first. Each
round gives a ratio of the totals (reference / ours, the 15 benchmark corruptions x 5 severities);
the table shows medians over the rounds and the line below it the median ratio and its spread
(min-max over the rounds). The first call of each corruption (numba JIT compile or cache load,
imports, file reads) is reported separately and excluded from the table.

Everything runs on one thread: ``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1`` are set before NumPy,
OpenCV and numba load, and ``cv2.setNumThreads(1)`` (the reference runner does the same, and
``MAGICK_THREAD_LIMIT=1``).
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import CIFAR_DIR, PHOTO, REPO, synthetic  # isort: split

import argparse
import json
import os
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


CLOCKS = {
    "process_time": time.process_time,
    "thread_time": time.thread_time,
    "perf_counter": time.perf_counter,
}
clock = time.process_time


def time_round(
    img: np.ndarray, names: list[str], profile: str, repeats: int
) -> dict[tuple[str, int], list[float]]:
    """Seconds of ``repeats`` calls per (corruption, severity), case after case."""
    out: dict[tuple[str, int], list[float]] = {}
    for name in names:
        for sev in SEVERITIES:
            samples = []
            for _ in range(repeats):
                t0 = clock()
                corruptbench.corrupt(img, name, sev, profile=profile, rng=0)
                samples.append(clock() - t0)
            out[(name, sev)] = samples
    return out


def warm_up(img: np.ndarray, names: list[str], profile: str) -> None:
    """One untimed call per case (the first-call costs are measured by :func:`first_calls`)."""
    for name in names:
        for sev in SEVERITIES:
            corruptbench.corrupt(img, name, sev, profile=profile, rng=0)


def first_calls(img: np.ndarray, profile: str, names: list[str]) -> dict[str, float]:
    """Seconds of the first call per corruption (JIT compile / cache load, lazy imports)."""
    out = {}
    for name in names:
        t0 = time.perf_counter()
        corruptbench.corrupt(img, name, 5, profile=profile, rng=0)
        out[name] = time.perf_counter() - t0  # wall time: includes file reads
    return out


def reference_module():  # type: ignore[no-untyped-def]
    """``tests/reference.py`` when the reference environment is built, else None."""
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import reference  # tests/reference.py
    except ImportError:
        return None
    return reference if reference.reference_available() else None


def reference_round(reference, img: np.ndarray, clock_name: str) -> dict[tuple[str, int], float]:  # type: ignore[no-untyped-def]
    """One timed reference call per case (a fresh runner; one warm-up call per corruption)."""
    clk = "perf_counter" if clock_name == "perf_counter" else "process_time"
    return reference.reference_timings(
        img, names=ALL_CORRUPTIONS, severities=SEVERITIES, repeats=1, clock=clk, warmup="first"
    )


def _median(values: list[float]) -> float:
    return float(np.median(values))


def _fmt(v: float | None, width: int = 8, digits: int = 2) -> str:
    return f"{'n/a':>{width}}" if v is None else f"{v:{width}.{digits}f}"


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--sizes", type=int, nargs="+", default=[224, 64, 32], choices=sorted(SIZE_PROFILE)
    )
    ap.add_argument(
        "--repeats", type=int, default=5, help="timed calls per case and round (default 5)"
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="interleaved rounds (each: one reference pass and one of ours; default 5)",
    )
    ap.add_argument("--names", nargs="+", default=list(ALL_CORRUPTIONS), help="corruptions to time")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference timings")
    ap.add_argument("--json", type=Path, help="also write all figures to this JSON file")
    ap.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="process_time",
        help="CPU time of this process (default), of this thread, or the wall clock (perf_counter; "
        "the reference then too)",
    )
    return ap.parse_args(argv)


def _select_names(requested: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``(names, available, missing)``: the known names asked for, those registered, the rest."""
    registered = set(corruption_registry())
    unknown = [n for n in requested if n not in ALL_CORRUPTIONS]
    if unknown:
        print(f"unknown corruption names ignored: {', '.join(unknown)}")
    names = [n for n in requested if n in ALL_CORRUPTIONS]
    available = [n for n in names if n in registered]
    missing = [n for n in names if n not in registered]
    return names, available, missing


def _announce(args: argparse.Namespace, rounds: int, missing: list[str]):  # type: ignore[no-untyped-def]
    """The header lines; the reference module when it is to be timed (else None)."""
    version = getattr(corruptbench, "__version__", "?")
    print(
        f"corruptbench {version}: single thread, median of {rounds} rounds x {args.repeats} calls"
        f" per case, ms ({args.clock})"
    )
    if missing:
        print(f"not registered (n/a): {', '.join(missing)}")
    reference = None if args.no_reference else reference_module()
    if not args.no_reference and reference is None:
        print(
            "reference environment not built: no reference timings (tools/reference/setup_refenv.sh)"
        )
    return reference


def _interleaved_rounds(  # type: ignore[no-untyped-def]
    reference, img: np.ndarray, available: list[str], profile: str, args, rounds: int
) -> tuple[dict, list[dict], list[dict]]:
    """Alternating rounds of ours and the reference (when given): (all our samples per case,
    our medians per round, the reference's timings per round)."""
    ours: dict[tuple[str, int], list[float]] = {}
    ours_rounds: list[dict[tuple[str, int], float]] = []
    ref_rounds: list[dict[tuple[str, int], float]] = []
    for r in range(rounds):
        order = ("ref", "ours") if r % 2 == 0 else ("ours", "ref")
        for side in order:
            if side == "ref" and reference is not None:
                ref_rounds.append(reference_round(reference, img, args.clock))
            elif side == "ours":
                samples = time_round(img, available, profile, args.repeats)
                for case, v in samples.items():
                    ours.setdefault(case, []).extend(v)
                ours_rounds.append({c: _median(v) for c, v in samples.items()})
    return ours, ours_rounds, ref_rounds


def _reference_medians(ref_rounds: list[dict]) -> dict | None:
    """The reference's median per corruption and severity over the rounds (None: not timed)."""
    if not ref_rounds:
        return None
    return {
        n: [_median([rr[(n, s)] for rr in ref_rounds]) for s in SEVERITIES]
        for n in ALL_CORRUPTIONS
        if (n, SEVERITIES[0]) in ref_rounds[0]
    }


def _print_table(
    names: list[str], rows: dict, ref: dict | None, firsts: dict[str, float]
) -> tuple[float, float, bool]:
    """One size's table; returns (our total, the reference's total, all 15 timed) over the 15."""
    head = (
        f"{'corruption':<18}" + "".join(f"{'sev' + str(s):>8}" for s in SEVERITIES) + f"{'sum':>9}"
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
    return total, ref_total, complete


def _print_totals(  # type: ignore[no-untyped-def]
    totals: tuple[float, float, bool], rows, ref, ours_rounds, ref_rounds, firsts, clock_name
) -> list[float]:
    """The total line, the per-round ratios, first calls and load; returns the ratios."""
    total, ref_total, complete = totals
    tag = "" if complete else " (incomplete: some of the 15 not timed or n/a)"
    line = f"total of the 15 benchmark corruptions x 5 severities: {total * 1e3:.1f} ms{tag}"
    ratios: list[float] = []
    if ref is not None and total > 0:
        line += (
            f"; reference {ref_total * 1e3:.1f} ms; ratio of the medians {ref_total / total:.1f}x"
        )
        bench = [(n, s) for n in BENCHMARK if n in rows for s in SEVERITIES]
        for ours_r, ref_r in zip(ours_rounds, ref_rounds):
            ratios.append(sum(ref_r[c] for c in bench) / sum(ours_r[c] for c in bench))
    print(line)
    if ratios:
        print(
            f"ratio per round (reference total / ours, same run, {clock_name}): median"
            f" {np.median(ratios):.1f}x, spread {min(ratios):.1f}-{max(ratios):.1f}x over"
            f" {len(ratios)} rounds: " + ", ".join(f"{r:.1f}" for r in ratios)
        )
    print(
        f"first calls (JIT compile / cache load; excluded above): {sum(firsts.values()) * 1e3:.0f} ms in all"
    )
    print(
        f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
        " (a shared machine: CPU time is steadier than wall time, not immune)"
    )
    return ratios


def _run_size(
    size: int, names: list[str], available: list[str], reference, args, rounds: int
) -> dict:  # type: ignore[no-untyped-def]
    """Time one size (with the reference at 224 px), print its table, return its figures."""
    profile = SIZE_PROFILE[size]
    img, desc = test_image(size)
    firsts = first_calls(img, profile, available)
    warm_up(img, available, profile)
    with_ref = reference if size == 224 else None
    ours, ours_rounds, ref_rounds = _interleaved_rounds(
        with_ref, img, available, profile, args, rounds
    )
    rows = {n: [_median(ours[(n, s)]) for s in SEVERITIES] for n in available}
    ref = _reference_medians(ref_rounds)
    print()
    print(f"== {size} x {size} ({profile} profile; image: {desc}) ==")
    totals = _print_table(names, rows, ref, firsts)
    ratios = _print_totals(totals, rows, ref, ours_rounds, ref_rounds, firsts, args.clock)
    total, ref_total, complete = totals
    return {
        "profile": profile,
        "image": desc,
        "seconds": rows,
        "first_call_seconds": firsts,
        "benchmark_total_seconds": total,
        "complete": complete,
        "reference_seconds": ref,
        "reference_benchmark_total_seconds": ref_total if ref is not None else None,
        "ratio_per_round": ratios,
    }


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    rounds = max(1, args.rounds)
    names, available, missing = _select_names(args.names)
    report: dict = {
        "threads": 1,
        "repeats": args.repeats,
        "rounds": rounds,
        "clock": args.clock,
        "sizes": {},
        "missing": missing,
        "cpus": os.cpu_count(),
    }
    reference = _announce(args, rounds, missing)
    for size in args.sizes:
        report["sizes"][str(size)] = _run_size(size, names, available, reference, args, rounds)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
