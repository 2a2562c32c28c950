"""Cold start: what a fresh environment pays before the first result (issue 14, target 1).

Every case runs in a fresh Python process with one thread (``OMP/OPENBLAS/MKL/NUMBA_NUM_THREADS=1``,
``cv2.setNumThreads(1)``) and its own temporary ``NUMBA_CACHE_DIR``, three ways: "JIT cold"
(``CORRUPTBENCH_KERNELS=jit``, an empty cache: a fresh environment without the ahead-of-time
kernels), "JIT warm" (a cache filled by ``corruptbench.warmup()`` in an earlier process) and
"AOT" (``CORRUPTBENCH_KERNELS=aot``, an empty cache: an install that built the ahead-of-time
kernels; skipped when there are none). Cases:

* ``import``: ``import corruptbench``;
* ``corrupt:NAME``: the first ``corrupt(photo, NAME, 3, rng=0)`` (one process per corruption);
* ``all``: all 19 corruptions x 5 severities at 224 in one process;
* ``jpeg``: the first JPEG write of make-c (``encode_jpeg``, quality 85);
* ``perturb:NAME``: the first ``perturb(photo, NAME)`` (imagenet profile, one process each);
* ``cli``: ``corruptbench corrupt photo.png out.png -c glass_blur -s 3`` end to end;
* ``warmup``: ``corruptbench.warmup()`` (everything the package compiles).

Printed per case: the operation's CPU seconds measured inside the process (after the imports,
except for ``import``), the whole process's CPU seconds (``RUSAGE_CHILDREN``: interpreter start
and imports included) and its wall-clock seconds; the median of ``--repeats`` runs and their
range. The targets: the first ``corrupt()`` of any corruption <= 1 s, all 19 x 5 <= 5 s, with an
empty cache on one core. ``--table`` prints ``COMPILE_SECONDS`` for
:mod:`corruptbench.tables.kernel_signatures` (cold minus warm operation CPU seconds).

    python benchmarks/cold_start.py                 # everything, 3 repeats (~15 min on 2 cores)
    python benchmarks/cold_start.py --quick         # import, 5 corruptions, all, jpeg, cli; 1 repeat
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHOTO = REPO.parent / "shared" / "data" / "imagenet-sample" / "n01440764_tench.JPEG"
THREADS = {
    v: "1"
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
}
QUICK_CORRUPTIONS = ("gaussian_noise", "glass_blur", "snow", "contrast", "elastic_transform")


def child(mode: str, image: str) -> None:
    """One measured process: print ``{"op_cpu", "op_wall", "compiles"}`` as JSON."""
    t0, w0 = time.process_time(), time.perf_counter()
    import corruptbench

    if mode == "import":
        print(json.dumps({"op_cpu": time.process_time() - t0, "op_wall": time.perf_counter() - w0}))
        return
    import cv2
    import numpy as np

    cv2.setNumThreads(1)
    from corruptbench.ops import jit

    img = np.load(image)
    img.flags.writeable = False
    kind, _, name = mode.partition(":")
    # (recording compiles imports numba: not for the AOT runs, which must not need it)
    aot_run = os.environ.get("CORRUPTBENCH_KERNELS") == "aot"
    with contextlib.nullcontext([]) if aot_run else jit.record_compiles() as compiled:
        t0, w0 = time.process_time(), time.perf_counter()
        if kind == "corrupt":
            corruptbench.corrupt(img, name, 3, rng=0)
        elif kind == "all":
            for c in corruptbench.ALL_CORRUPTIONS:
                for s in range(1, 6):
                    corruptbench.corrupt(img, c, s, rng=s)
        elif kind == "jpeg":
            from corruptbench.formats.jpeg import encode_jpeg

            encode_jpeg(img, 85)
        elif kind == "perturb":
            corruptbench.perturb(img, name, profile="imagenet", rng=0)
        elif kind == "warmup":
            corruptbench.warmup()
        else:
            raise SystemExit(f"unknown mode {mode}")
        cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    row = {"op_cpu": cpu, "op_wall": wall, "compiles": len(compiled)}
    row["numba_imported"] = float("numba" in sys.modules)
    print(json.dumps(row))


def runtime(image: str, reps: int) -> None:
    """Warm per-image time of the AOT kernels against the JIT's, interleaved, in this process."""
    import cv2
    import numpy as np

    import corruptbench
    from corruptbench.ops import aot, jit

    cv2.setNumThreads(1)
    print(aot.status())
    if aot.load() is None:
        return
    img = np.load(image)
    img.flags.writeable = False
    corruptbench.warmup()
    names = corruptbench.ALL_CORRUPTIONS
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(reps):
        for which in ("auto", "jit"):
            jit.use(which)
            for name in names:
                for s in range(1, 6):  # first call outside the clock (routes, scratch)
                    corruptbench.corrupt(img, name, s, rng=s)
                t0 = time.process_time()
                for s in range(1, 6):
                    corruptbench.corrupt(img, name, s, rng=s)
                times.setdefault((which, name), []).append(time.process_time() - t0)
    print(f"\nwarm ms per image (5 severities, 224 px), min of {reps} interleaved runs")
    print(f"{'corruption':<20} {'AOT':>8} {'JIT':>8} {'AOT/JIT':>8}")
    tot = {"auto": 0.0, "jit": 0.0}
    for name in names:
        a, j = min(times[("auto", name)]) * 1e3, min(times[("jit", name)]) * 1e3
        tot["auto"] += a
        tot["jit"] += j
        print(f"{name:<20} {a:8.2f} {j:8.2f} {a / j:8.2f}")
    print(f"{'all 19':<20} {tot['auto']:8.2f} {tot['jit']:8.2f} {tot['auto'] / tot['jit']:8.2f}")


def run_case(
    mode: str, image: str, cache: str, png: str, out_dir: str, kernels: str
) -> dict[str, float]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, CORRUPTBENCH_KERNELS=kernels, **THREADS)
    env["PYTHONPATH"] = str(REPO / "src") + os.pathsep + env.get("PYTHONPATH", "")
    if mode == "cli":
        out = os.path.join(out_dir, "out.png")
        cmd = [sys.executable, "-m", "corruptbench", "corrupt", png, out, "-c", "glass_blur"]
        cmd += ["-s", "3", "--seed", "0"]
    else:
        cmd = [sys.executable, __file__, "--child", mode, image]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{res.stderr[-3000:]}")
    proc_cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    row = {"proc_cpu": proc_cpu, "wall": wall}
    if mode != "cli":
        row.update(json.loads(res.stdout.strip().splitlines()[-1]))
    row["notice"] = float("compiling kernels, one time" in res.stderr)
    return row


def fmt(values: list[float]) -> str:
    if not values:
        return "-"
    med = statistics.median(values)
    if len(values) == 1:
        return f"{med:7.2f}"
    return f"{med:7.2f} ({min(values):.2f}-{max(values):.2f})"


def _parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer cases, 1 repeat")
    ap.add_argument("--no-warm", action="store_true", help="skip the warm-cache runs")
    ap.add_argument("--table", action="store_true", help="print COMPILE_SECONDS")
    ap.add_argument("--no-aot", action="store_true", help="skip the ahead-of-time kernels")
    ap.add_argument("--json", help="write all measurements to this file")
    ap.add_argument(
        "--runtime", action="store_true", help="only: warm ms per image, AOT against JIT"
    )
    return ap.parse_args()


def _photo():  # type: ignore[no-untyped-def]
    """The test photo as make-c prepares it (Resize(256) + CenterCrop(224)), or a synthetic one."""
    import numpy as np
    from PIL import Image

    if PHOTO.is_file():
        with Image.open(PHOTO) as im:
            im = im.convert("RGB")
            w, h = im.size
            s = 256 / min(w, h)
            im = im.resize((round(w * s), round(h * s)), Image.BILINEAR)
            left, top = (im.width - 224) // 2, (im.height - 224) // 2
            return np.asarray(im.crop((left, top, left + 224, top + 224)))
    print(f"({PHOTO} absent: a synthetic image)")
    yy, xx = np.mgrid[0:224, 0:224]
    return np.stack([xx, yy, (xx + yy) % 256], axis=2).astype(np.uint8)


def _run_all(
    modes: list[str], runs: list[str], image: str, png: str, work: Path, repeats: int
) -> dict[str, dict[str, list[dict[str, float]]]]:
    """Every case in every run kind, ``repeats`` times: the rows per run kind and case."""
    results: dict[str, dict[str, list[dict[str, float]]]] = {r: {} for r in runs}
    for rep in range(repeats):
        warm_cache = str(work / f"warm-{rep}")
        if "warm" in runs:
            run_case("warmup", image, warm_cache, png, str(work), "jit")  # fills it
        for mode in modes:
            for run in runs:
                cache = warm_cache if run == "warm" else tempfile.mkdtemp(prefix="c-", dir=work)
                kernels = "aot" if run == "aot" else "jit"
                if run == "aot" and mode == "warmup":
                    continue  # the warm-up is the JIT's
                row = run_case(mode, image, cache, png, str(work), kernels)
                results[run].setdefault(mode, []).append(row)
            print(f"  rep {rep + 1}/{repeats} {mode} done", file=sys.stderr, flush=True)
    return results


def _print_cases(
    results: dict, modes: list[str], cols: list[tuple[str, str]], repeats: int
) -> None:
    """The table: per case, the operation's and the process's CPU seconds per run kind."""
    print(f"\ncorruptbench cold start, {repeats} repeat(s), one thread; CPU and wall seconds")
    print("op = the operation inside the process (after imports); proc = the whole process")
    print(
        "JIT cold: empty numba cache; JIT warm: after corruptbench.warmup(); AOT: ahead of time\n"
    )
    head = f"{'case':<24}"
    for _, label in cols:
        head += f" {label + ' op':>19} {label + ' proc':>19}"
    head += f" {'JIT cold wall':>19} {'compiles':>8}"
    print(head)
    for mode in modes:
        line = f"{mode:<24}"
        for run, _ in cols:
            rows = results[run].get(mode, [])
            line += f" {fmt([r.get('op_cpu', float('nan')) for r in rows]):>19}"
            line += f" {fmt([r['proc_cpu'] for r in rows]):>19}"
        cold = results["cold"][mode]
        comp = [r["compiles"] for r in cold if "compiles" in r]
        line += f" {fmt([r['wall'] for r in cold]):>19}"
        line += f" {int(statistics.median(comp)) if comp else '-':>8}"
        print(line)


def _median_of(results: dict, mode: str, key: str, which: str = "cold") -> float:
    return statistics.median(r[key] for r in results[which][mode])


def _print_targets(results: dict, names, cols: list[tuple[str, str]]) -> None:  # type: ignore[no-untyped-def]
    """The targets per run kind: first corrupt() <= 1 s, all 19 x 5 <= 5 s, the CLI's notice."""
    for run, label in cols:
        firsts = [_median_of(results, f"corrupt:{n}", "proc_cpu", run) for n in names]
        print(f"\nTargets, {label} (one core):")
        print(
            f"  first corrupt() <= 1 s (whole process): worst {max(firsts):.2f} s, median "
            f"{statistics.median(firsts):.2f} s, {sum(f <= 1 for f in firsts)} of {len(firsts)} within"
        )
        print(
            f"  all 19 x 5 <= 5 s: {_median_of(results, 'all', 'op_cpu', run):.2f} s "
            f"({_median_of(results, 'all', 'proc_cpu', run):.2f} s whole process)"
        )
        notice = any(r["notice"] for r in results[run]["cli"])
        print(f"  the CLI printed the compile notice: {notice}")


def _print_compile_table(results: dict, modes: list[str]) -> None:
    """``COMPILE_SECONDS`` entries: JIT cold minus warm operation CPU seconds, medians."""
    print("\nCOMPILE_SECONDS (JIT cold minus warm operation CPU s, medians):")
    for mode in modes:
        if mode in ("import", "cli", "all"):
            continue
        key = mode.replace("corrupt:", "corruption:").replace("perturb:", "perturbation:")
        key = {"warmup": "all"}.get(key, key)
        d = max(
            0.0, _median_of(results, mode, "op_cpu") - _median_of(results, mode, "op_cpu", "warm")
        )
        print(f'        "{key}": {d:.1f},')


def main() -> None:
    args = _parse_args()
    if args.child:
        child(*args.child)
        return

    sys.path.insert(0, str(REPO / "src"))
    import numpy as np
    from PIL import Image

    import corruptbench

    repeats = 1 if args.quick else args.repeats
    names = QUICK_CORRUPTIONS if args.quick else corruptbench.ALL_CORRUPTIONS
    perturbs = () if args.quick else tuple(corruptbench.ALL_PERTURBATIONS)
    modes = ["import", *(f"corrupt:{n}" for n in names), "all", "jpeg"]
    modes += [f"perturb:{p}" for p in perturbs] + ["cli", "warmup"]

    work = Path(tempfile.mkdtemp(prefix="cold-start-"))
    photo = _photo()
    image = str(work / "photo.npy")
    np.save(image, photo)
    if args.runtime:
        runtime(image, max(3, args.repeats))
        return
    png = str(work / "photo.png")
    Image.fromarray(photo).save(png)

    from corruptbench.ops import aot

    paths = ["jit"] + (["aot"] if aot.load() is not None and not args.no_aot else [])
    print(aot.status())
    # "cold" / "warm": the JIT with an empty / a warmed-up cache; "aot": the ahead-of-time
    # kernels (with an empty cache, which they do not use)
    runs = ["cold"] + ([] if args.no_warm else ["warm"]) + (["aot"] if "aot" in paths else [])
    results = _run_all(modes, runs, image, png, work, repeats)
    cols = [("cold", "JIT cold"), ("warm", "JIT warm"), ("aot", "AOT")]
    cols = [(r, label) for r, label in cols if r in runs]
    _print_cases(results, modes, cols, repeats)
    _print_targets(results, names, cols)
    if args.table and "warm" in runs:
        _print_compile_table(results, modes)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
