"""Peak memory of every corruption x severity on large images, in bytes per pixel.

Usage::

    PYTHONPATH=src .venv/bin/python benchmarks/memory.py               # 2, 8, 25 MP, 19 x 5
    PYTHONPATH=src .venv/bin/python benchmarks/memory.py --megapixels 2 8 \\
        --names elastic_transform fog --severities 1 5
    PYTHONPATH=src .venv/bin/python benchmarks/memory.py --baseline-src ../other/src \\
        --json memory.json                      # the same cases with another checkout, same run

Each case (corruption, severity, size, checkout) runs in a fresh Python process whose
``PYTHONPATH`` is that checkout's ``src``. The process imports corruptbench, loads the test image
(a real photo, ``../shared/data/imagenet-sample``, upscaled with OpenCV's bicubic resize to the
megapixels asked, passed as a ``.npy`` file), calls the corruption once on a 640 x 640 crop (the
kernels loaded or compiled, lazy imports done, caches filled: what any process that has corrupted
one image holds), resets the kernel's record of its peak resident set (``/proc/self/clear_refs``,
Linux) and then calls ``corrupt(image, name, severity, profile="imagenet", rng=RandomState(0))``.

* **bytes per pixel**: the peak resident set during that call minus the resident set just before
  it (``VmHWM - VmRSS`` of ``/proc/self/status``; the baseline is the same process with the image
  loaded), divided by H x W: what the call needs on top of the loaded image, its uint8 output
  included (3 B/px). Where ``clear_refs`` cannot be written, the process's lifetime peak is used
  instead (an over-estimate when the warm-up peaked higher; the table says so).
* **peak GB**: the whole process's peak resident set (the larger ``VmHWM`` of the warm-up and of
  the call): Python, NumPy, the kernels, the image and the call; what ``corrupt`` on such an
  image costs a user.
* **same bytes** (with ``--baseline-src``): whether both checkouts return identical outputs (the
  SHA-256 of each result) at every severity of that size.

A progress line per case (stderr) and ``--json`` also give each call's wall-clock and CPU seconds.

Sizes run one at a time, smallest first; a case whose peak, extrapolated from its bytes per pixel
at a smaller size, would exceed ``--max-gb`` (default 6) is skipped and listed. Every process is
single-threaded (``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1``), so the figures do not depend on the
machine's core count.
"""

from __future__ import annotations

# first: one thread for NumPy, OpenCV and numba (set before they load); paths of the test images
from _common import PHOTO  # isort: split

import argparse
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

SEVERITIES = (1, 2, 3, 4, 5)
WARMUP_SIDE = 640  # > 512: the same code paths as the large image (e.g. elastic's FFT filter)
_STATUS = Path("/proc/self/status")


# --------------------------------------------------------------------------------------------
# The measuring process (``memory.py --child IMAGE NAME SEVERITY``)
# --------------------------------------------------------------------------------------------


def _status_kib(field: str) -> int:
    """A ``kB`` field of /proc/self/status (VmRSS, VmHWM)."""
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.MULTILINE)
    if match is None:  # pragma: no cover - not Linux
        raise RuntimeError(f"no {field} in {_STATUS}")
    return int(match.group(1))


def _reset_peak() -> bool:
    """Reset the process's peak resident set to its current one (Linux >= 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def measure_call(image_path: str, name: str, severity: int) -> dict:
    """One case in this process: warm-up on a crop, reset the peak, the measured call."""
    import gc

    import corruptbench

    image = np.load(image_path)
    crop = np.ascontiguousarray(image[:WARMUP_SIDE, :WARMUP_SIDE])
    corruptbench.corrupt(crop, name, severity, profile="imagenet", rng=np.random.RandomState(0))
    del crop
    gc.collect()
    warm_peak = _status_kib("VmHWM")
    exact = _reset_peak()
    before = _status_kib("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    out = corruptbench.corrupt(
        image, name, severity, profile="imagenet", rng=np.random.RandomState(0)
    )
    seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
    peak = _status_kib("VmHWM")
    return {
        "net_bytes": (peak - before) * 1024,
        "process_peak_bytes": max(warm_peak, peak) * 1024,
        "rss_before_bytes": before * 1024,
        "exact": exact,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "sha256": hashlib.sha256(np.ascontiguousarray(out).data).hexdigest(),
        "module": corruptbench.__file__,
    }


# --------------------------------------------------------------------------------------------
# The driver
# --------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One measured (or skipped) call."""

    checkout: str
    megapixels: float
    height: int
    width: int
    name: str
    severity: int
    net_bytes: int | None = None
    bytes_per_pixel: float | None = None
    process_peak_bytes: int | None = None
    rss_before_bytes: int | None = None
    seconds: float | None = None
    cpu_seconds: float | None = None
    sha256: str | None = None
    exact: bool = True
    skipped: str | None = None


def upscaled_photo(megapixels: float, folder: Path) -> tuple[Path, int, int]:
    """The test photo resized (bicubic, aspect kept) to about ``megapixels``, as a .npy file."""
    bgr = cv2.imread(str(PHOTO), cv2.IMREAD_COLOR)
    if bgr is None:
        raise SystemExit(f"the benchmark needs its real photo: {PHOTO} is absent or unreadable")
    h0, w0 = bgr.shape[:2]
    scale = math.sqrt(megapixels * 1e6 / (h0 * w0))
    h, w = round(h0 * scale), round(w0 * scale)
    rgb = cv2.cvtColor(cv2.resize(bgr, (w, h), interpolation=cv2.INTER_CUBIC), cv2.COLOR_BGR2RGB)
    path = folder / f"photo-{megapixels:g}mp.npy"
    np.save(path, rgb)
    return path, h, w


def run_child(src: Path, image: Path, name: str, severity: int) -> dict:
    """:func:`measure_call` in a fresh process with ``PYTHONPATH=src``: its figures."""
    env = dict(os.environ, PYTHONPATH=str(src))
    cmd = [sys.executable, __file__, "--child", str(image), name, str(severity)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-3:]
        raise RuntimeError(f"{name} {severity} failed under {src}: " + " | ".join(tail))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def measure(case: Case, src: Path, image: Path) -> Case:
    """Fill ``case`` from one child process."""
    result = run_child(src, image, case.name, case.severity)
    if not Path(result["module"]).resolve().is_relative_to(src.resolve()):
        raise RuntimeError(f"the child imported {result['module']}, not from {src}")
    case.net_bytes = int(result["net_bytes"])
    case.bytes_per_pixel = case.net_bytes / (case.height * case.width)
    case.process_peak_bytes = int(result["process_peak_bytes"])
    case.rss_before_bytes = int(result["rss_before_bytes"])
    case.seconds = float(result["seconds"])
    case.cpu_seconds = float(result["cpu_seconds"])
    case.sha256 = result["sha256"]
    case.exact = bool(result["exact"])
    return case


def predicted_peak(case: Case, done: list[Case]) -> float | None:
    """The process peak (bytes) of ``case`` from the same checkout, corruption and severity at
    the largest smaller size measured: its fixed part plus its bytes per pixel at this size."""
    smaller = [
        c
        for c in done
        if c.bytes_per_pixel is not None
        and (c.checkout, c.name, c.severity) == (case.checkout, case.name, case.severity)
        and c.megapixels < case.megapixels
    ]
    if not smaller:
        return None
    last = max(smaller, key=lambda c: c.megapixels)
    assert last.rss_before_bytes is not None and last.bytes_per_pixel is not None
    pixels = case.height * case.width
    image_growth = 3 * (pixels - last.height * last.width)
    return last.rss_before_bytes + image_growth + last.bytes_per_pixel * pixels


def run_size(
    megapixels: float, checkouts: dict[str, Path], args: argparse.Namespace, done: list[Case]
) -> list[Case]:
    """Every case of one size, one process at a time; a progress line per case on stderr."""
    with tempfile.TemporaryDirectory(prefix="cb-memory-") as tmp:
        image, h, w = upscaled_photo(megapixels, Path(tmp))
        cases = []
        for name in args.names:
            for severity in args.severities:
                for label, src in checkouts.items():
                    case = Case(label, megapixels, h, w, name, severity)
                    guess = predicted_peak(case, done)
                    if guess is not None and guess > args.max_gb * 1e9:
                        case.skipped = f"predicted peak {guess / 1e9:.1f} GB > --max-gb"
                    else:
                        measure(case, src, image)
                    cases.append(case)
                    print(_progress(case), file=sys.stderr, flush=True)
        return cases


def _progress(case: Case) -> str:
    head = f"  {case.megapixels:g} MP {case.checkout:<8} {case.name:<18} {case.severity}: "
    if case.skipped:
        return head + "skipped, " + case.skipped
    assert case.process_peak_bytes is not None
    return (
        head + f"{case.bytes_per_pixel:6.1f} B/px, process peak "
        f"{case.process_peak_bytes / 1e9:.2f} GB, {case.seconds:.1f} s ({case.cpu_seconds:.1f} s CPU)"
    )


def _fmt(v: float | None, width: int, digits: int = 1) -> str:
    return f"{'-':>{width}}" if v is None else f"{v:{width}.{digits}f}"


def _worst(cases: list[Case]) -> Case | None:
    """The case with the most bytes per pixel (None when none was measured)."""
    measured = [c for c in cases if c.bytes_per_pixel is not None]
    return max(measured, key=lambda c: c.bytes_per_pixel or 0.0) if measured else None


def _same_bytes(cases: list[Case], checkouts: list[str]) -> str:
    """``same`` when every severity measured in each checkout gave the same output."""
    by_sev: dict[int, set[str]] = {}
    counts: dict[int, int] = {}
    for c in cases:
        if c.sha256 is not None:
            by_sev.setdefault(c.severity, set()).add(c.sha256)
            counts[c.severity] = counts.get(c.severity, 0) + 1
    compared = [s for s in by_sev if counts[s] == len(checkouts)]
    if not compared:
        return "n/a"
    return "same" if all(len(by_sev[s]) == 1 for s in compared) else "DIFFERENT"


def print_size(cases: list[Case], names: list[str], checkouts: list[str]) -> None:
    """The table of one size: B/px per severity (first checkout), worst severity per checkout."""
    first = cases[0]
    print(
        f"\n== {first.megapixels:g} MP: {first.height} x {first.width} ({PHOTO.name} upscaled) =="
    )
    sevs = sorted({c.severity for c in cases})
    head = f"{'corruption':<18}" + "".join(f"{'sev' + str(s):>7}" for s in sevs)
    for label in checkouts:
        head += f"{'max ' + label:>14}{'peak GB':>9}"
    if len(checkouts) == 2:
        head += f"{'ratio':>7}{'bytes':>11}"
    print(f"bytes per pixel of the call ({checkouts[0]} per severity; max over severities)")
    if len(checkouts) == 2:
        print(f"ratio: max {checkouts[1]} / max {checkouts[0]}; bytes: the outputs' SHA-256")
    print(head)
    for name in names:
        mine = [c for c in cases if c.name == name]
        line = f"{name:<18}"
        for s in sevs:
            sel = [c for c in mine if c.severity == s and c.checkout == checkouts[0]]
            line += _fmt(sel[0].bytes_per_pixel if sel else None, 7)
        worst = [_worst([c for c in mine if c.checkout == label]) for label in checkouts]
        for w in worst:
            line += _fmt(w and w.bytes_per_pixel, 14)
            line += _fmt(w and w.process_peak_bytes and w.process_peak_bytes / 1e9, 9, 2)
        if len(checkouts) == 2:
            a, b = (w and w.bytes_per_pixel for w in worst)
            line += _fmt(b / a if a and b else None, 7, 2) + f"{_same_bytes(mine, checkouts):>11}"
        print(line)
    for c in cases:
        if c.skipped:
            print(f"skipped: {c.checkout} {c.name} {c.severity}: {c.skipped}")
    if not all(c.exact for c in cases if c.bytes_per_pixel is not None):
        print("(/proc/self/clear_refs not writable: lifetime peaks, warm-up included)")


def print_summary(cases: list[Case], names: list[str], checkouts: list[str]) -> None:
    """Worst bytes per pixel over the severities, per corruption, size and checkout."""
    sizes = sorted({c.megapixels for c in cases})
    print("\n== bytes per pixel, worst severity, per size ==")
    print(
        f"{'corruption':<18}"
        + "".join(
            f"{f'{mp:g} MP ' + label:>{max(12, len(label) + 9)}}"
            for mp in sizes
            for label in checkouts
        )
    )
    for name in names:
        line = f"{name:<18}"
        for mp in sizes:
            for label in checkouts:
                sel = [c for c in cases if (c.name, c.megapixels, c.checkout) == (name, mp, label)]
                w = _worst(sel)
                line += _fmt(w and w.bytes_per_pixel, max(12, len(label) + 9))
        print(line)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--megapixels", type=float, nargs="+", default=[2.0, 8.0, 25.0])
    ap.add_argument("--names", nargs="+", default=None, help="corruptions (default: all 19)")
    ap.add_argument("--severities", type=int, nargs="+", default=list(SEVERITIES))
    ap.add_argument(
        "--src",
        type=Path,
        default=None,
        help="the checkout's src to measure (default: the one this process imports)",
    )
    ap.add_argument("--baseline-src", type=Path, help="another checkout's src, measured alike")
    ap.add_argument("--label", default="new", help="the name of --src in the tables")
    ap.add_argument("--baseline-label", default="baseline", help="the name of --baseline-src")
    ap.add_argument("--max-gb", type=float, default=6.0, help="skip cases predicted above this")
    ap.add_argument("--json", type=Path, help="also write every case to this JSON file")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # the tables before
    # the progress lines of the next size (stderr)
    import corruptbench
    from corruptbench.corruptions import ALL_CORRUPTIONS

    src = args.src or Path(corruptbench.__file__).resolve().parents[1]
    if args.label == args.baseline_label:
        print("--label and --baseline-label must differ")
        return 2
    checkouts = {args.label: src}
    if args.baseline_src is not None:
        checkouts[args.baseline_label] = args.baseline_src
    for option, path in (("--src", src), ("--baseline-src", args.baseline_src)):
        if path is not None and not (path / "corruptbench" / "__init__.py").is_file():
            print(f"{option}: no corruptbench under {path}")
            return 2
    args.names = args.names or list(ALL_CORRUPTIONS)
    print(
        "peak memory per call; checkouts: " + ", ".join(f"{k} = {v}" for k, v in checkouts.items())
    )
    cases: list[Case] = []
    for mp in sorted(args.megapixels):
        size_cases = run_size(mp, checkouts, args, cases)
        cases += size_cases
        print_size(size_cases, args.names, list(checkouts))
    print_summary(cases, args.names, list(checkouts))
    if args.json:
        args.json.write_text(json.dumps([asdict(c) for c in cases], indent=1))
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(measure_call(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
        raise SystemExit(0)
    raise SystemExit(main())
