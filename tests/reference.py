"""Client for the reference environment (the original ImageNet-C code, imagenet-c==0.0.3).

The reference runs in its own venv (numpy 1.26, OpenCV 3.4, ImageMagick through Wand), built by
``bash tools/reference/setup_refenv.sh [DIR]``. This module runs
``tools/reference/ref_runner.py`` with that venv's python in a subprocess; requests and
responses travel as plain ``.npz`` files (no pickles), one subprocess per call, so batch cases.

Where the env is looked for (first hit wins): ``$CORRUPTBENCH_REFENV``, ``/work/refenv``,
``<repo>/.refenv``. Tests that need it are marked ``reference`` and skip when
``reference_available()`` is false (CI builds the env, so they run there)::

    pytestmark = pytest.mark.skipif(not reference_available(), reason=REFERENCE_MISSING)

Never import this from ``corruptbench`` itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from corruptbench.corruptions import ALL_CORRUPTIONS, BENCHMARK_CORRUPTIONS

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tools" / "reference" / "ref_runner.py"
DEFAULT_LOCATIONS = (Path("/work/refenv"), REPO / ".refenv")
REFERENCE_MISSING = (
    "reference env not built (bash tools/reference/setup_refenv.sh; "
    "or set CORRUPTBENCH_REFENV to its directory)"
)

# The 15 benchmark corruptions and the 4 extra ("validation") ones, in imagenet_c's order: the
# package's one registry (this client runs in our venv; the runner it starts never imports corruptbench).
ALL_CORRUPTIONS = ALL_CORRUPTIONS


class ReferenceRunnerError(RuntimeError):
    """The reference runner failed; the message carries its stderr."""


#: seconds a run waits for a reference env that setup_refenv.sh is still building
BUILD_WAIT_S = 900.0


def wait_for_build(directory: Path, timeout: float = BUILD_WAIT_S) -> bool:
    """Wait until no setup_refenv.sh builds ``directory`` (it holds an exclusive lock on
    ``<directory>.lock`` while it runs); False when one still does after ``timeout`` s."""
    lock = directory.with_name(directory.name + ".lock")
    if not lock.exists():
        return True
    import fcntl  # (POSIX, like the reference env itself)

    deadline = time.monotonic() + timeout
    with open(lock) as f:
        while True:
            try:
                fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.2)


def refenv_python() -> Path | None:
    """Python of the reference venv, or None when no built env is found.

    A directory counts as built when it has ``bin/python`` and the ``.ok`` marker that
    setup_refenv.sh writes last. ``$CORRUPTBENCH_REFENV``, when set, is the only place looked at.
    """
    env = os.environ.get("CORRUPTBENCH_REFENV")
    candidates = [Path(env)] if env else list(DEFAULT_LOCATIONS)
    for directory in candidates:
        wait_for_build(directory)
        python = directory / "bin" / "python"
        if python.exists() and (directory / ".ok").exists():
            return python
    return None


def reference_available() -> bool:
    """True when the reference env is built and the runner script is present."""
    return refenv_python() is not None and RUNNER.is_file()


def _run(
    ops: list[dict],
    arrays: dict[str, np.ndarray],
    timeout: float,
    env: dict[str, str] | None = None,
    *,
    runner: Path = RUNNER,
    request: dict[str, Any] | None = None,
) -> tuple[dict, dict]:
    python = refenv_python()
    if python is None:
        raise ReferenceRunnerError(REFERENCE_MISSING)
    with tempfile.TemporaryDirectory(prefix="corruptbench-ref-") as tmp:
        req = Path(tmp) / "request.npz"
        resp = Path(tmp) / "response.npz"
        body = json.dumps({**(request or {}), "ops": ops})
        payload: dict[str, Any] = {"__request__": np.array(body), **arrays}
        np.savez(req, **payload)
        env = dict(
            os.environ,
            OMP_NUM_THREADS="1",
            OPENBLAS_NUM_THREADS="1",
            MKL_NUM_THREADS="1",
            **(env or {}),
        )
        try:
            proc = subprocess.run(
                [str(python), str(runner), str(req), str(resp)],
                capture_output=True,
                text=True,
                timeout=timeout,
                env=env,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as exc:
            raise ReferenceRunnerError(f"reference runner timed out after {timeout:.0f} s") from exc
        if proc.returncode != 0 or not resp.exists():
            raise ReferenceRunnerError(
                f"reference runner failed (exit {proc.returncode}; {python} {runner}):\n"
                f"{proc.stderr.strip()[-4000:]}"
            )
        with np.load(resp, allow_pickle=False) as data:
            out = {k: data[k] for k in data.files}
    meta = json.loads(str(out.pop("__response__")))
    return meta, out


class _Images:
    """Collects input arrays, sending an array object only once per request."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self._keys: dict[int, str] = {}

    def key(self, image: np.ndarray) -> str:
        k = self._keys.get(id(image))
        if k is None:
            arr = np.asarray(image)
            if arr.dtype != np.uint8:
                raise TypeError(f"reference inputs must be uint8, got {arr.dtype}")
            k = f"a{len(self.arrays)}"
            self.arrays[k] = np.ascontiguousarray(arr)
            self._keys[id(image)] = k
        return k


def reference_corrupt(
    cases: Sequence[tuple[np.ndarray, str, int, int | None]], *, timeout: float = 1800.0
) -> list[np.ndarray]:
    """Corrupt with the original code: one uint8 HxWx3 result per (image, name, severity, seed).

    Each case runs ``np.random.seed(seed)`` (skipped for seed None) and then
    ``imagenet_c.corrupt(image, severity, name)``, which returns ``np.uint8(result)`` (a
    truncating cast of the function's clipped float output, or of the PIL image for
    jpeg_compression/pixelate). imagenet-c 0.0.3 hard-codes 224x224 in several corruptions
    (glass_blur loops, motion_blur's shape test, frost/fog crops, snow reshape, pixelate), so
    pass 224x224x3 uint8 images. All cases run in one subprocess.
    """
    images = _Images()
    ops = [
        {
            "op": "corrupt",
            "image": images.key(image),
            "name": str(name),
            "severity": int(severity),
            "seed": None if seed is None else int(seed),
        }
        for image, name, severity, seed in cases
    ]
    _, out = _run(ops, images.arrays, timeout)
    return [out[f"r{i}"] for i in range(len(ops))]


#: ``NPY_DISABLE_CPU_FEATURES`` that keeps NumPy 1.26 off its AVX-512 ``exp`` (whose last bit
#: differs from other builds' and moves a few Gaussian-blurred values by one level)
NO_AVX512 = {
    "NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"
}


def reference_functions(
    cases: Sequence[tuple[np.ndarray, str, int, int | None]],
    *,
    module: str = "imagenet_c",
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> list[tuple[np.ndarray, str, str]]:
    """The corruption functions themselves: ``(result, type name, dtype)`` per case.

    Each ``(image, name, severity, seed)`` runs ``np.random.seed(seed)`` and then
    ``module.corruption_dict[name](PIL image, severity)``, ``module`` being ``"imagenet_c"``
    (0.0.3), ``"imagecorruptions"`` (1.1.2 with the 0.13 shims) or ``"imagecorruptions_plain"``
    (1.1.2, only the ``multichannel`` shim: its real impulse noise). The result keeps its dtype
    (float64, float32; a PIL image comes back as its uint8 array, with type ``"Image"`` /
    ``"JpegImageFile"``). ``env``: extra environment of the reference process (e.g.
    :data:`NO_AVX512`). :func:`reference_function_calls` returns more about each call.
    """
    calls = reference_function_calls(cases, module=module, env=env, timeout=timeout)
    return [(out, info["type"], info["dtype"]) for out, info in calls]  # type: ignore[misc]


def reference_function_calls(
    cases: Sequence[tuple[np.ndarray, str, int, int | None]],
    *,
    module: str = "imagenet_c",
    catch: bool = False,
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> list[tuple[np.ndarray | None, dict[str, Any]]]:
    """Like :func:`reference_functions`, ``(result, info)`` per case: ``info`` holds ``type``,
    ``dtype``, PIL ``mode`` and ``format``, and ``state`` (the global random state after the call:
    md5 of the key, position, has_gauss, cached Gaussian). A 2-D image goes in as a mode-L PIL
    image. With ``catch``, a call that raises gives ``(None, {"error": "Type: message"})``."""
    images = _Images()
    ops = [
        {
            "op": "function",
            "module": module,
            "image": images.key(image),
            "name": str(name),
            "severity": int(severity),
            "seed": None if seed is None else int(seed),
            "catch": bool(catch),
        }
        for image, name, severity, seed in cases
    ]
    meta, out = _run(ops, images.arrays, timeout, env)
    return [(out.get(f"r{i}"), res) for i, res in enumerate(meta["results"])]


def reference_ic_sequence(
    image: np.ndarray,
    calls: Sequence[tuple[str, int]],
    *,
    seed: int = 0,
    module: str = "imagecorruptions_plain",
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> tuple[np.ndarray, list[list[Any]]]:
    """A script that seeds once: ``np.random.seed(seed)``, then ``module.corrupt(image, severity,
    name)`` for each ``(name, severity)`` in order. Returns the stacked uint8 results and the
    global random state after each call (as in :func:`reference_function_calls`)."""
    images = _Images()
    op = {
        "op": "ic_sequence",
        "module": module,
        "image": images.key(image),
        "calls": [[str(n), int(s)] for n, s in calls],
        "seed": int(seed),
    }
    meta, out = _run([op], images.arrays, timeout, env)
    return out["r0"], meta["results"][0]["states"]


def reference_ic_helpers(
    cases: Sequence[tuple[str, Sequence[Any], np.ndarray | None, int | None]],
    *,
    env: dict[str, str] | None = None,
    timeout: float = 300.0,
) -> list[tuple[np.ndarray, list[Any]]]:
    """imagecorruptions 1.1.2's helpers: ``imagecorruptions.corruptions.<name>(image, *args)``
    per ``(name, args, image or None, seed)``, after ``np.random.seed(seed)``; the result and the
    global random state after the call."""
    imgs = _Images()
    ops = [
        {
            "op": "ic_helper",
            "name": str(name),
            "args": list(args),
            "image": None if image is None else imgs.key(image),
            "seed": None if seed is None else int(seed),
        }
        for name, args, image, seed in cases
    ]
    meta, out = _run(ops, imgs.arrays, timeout, env)
    return [(out[f"r{i}"], res["state"]) for i, res in enumerate(meta["results"])]


def reference_gaussian_shim(
    images: Sequence[np.ndarray], sigma: float, *, timeout: float = 300.0
) -> list[tuple[np.ndarray, np.ndarray]]:
    """For each image: the ``multichannel=True`` shim of ``imagecorruptions_plain`` on ``image /
    255.`` and the SciPy call scikit-image 0.19.3 makes for it (``gaussian_filter`` with sigma 0
    on the last axis): ``(shimmed, direct)``."""
    imgs = _Images()
    ops = [{"op": "gaussian_shim", "image": imgs.key(x), "sigma": float(sigma)} for x in images]
    _, out = _run(ops, imgs.arrays, timeout)
    return [(out[f"r{i}_shimmed"], out[f"r{i}_direct"]) for i in range(len(ops))]


def reference_ic_corrupt(
    cases: Sequence[tuple[np.ndarray, str | int, int, int | None]],
    *,
    module: str = "imagecorruptions",
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> list[np.ndarray]:
    """``imagecorruptions.corrupt`` (1.1.2) per ``(image, name or number, severity, seed)``,
    after ``np.random.seed(seed)``; ``module`` as in :func:`reference_functions`."""
    images = _Images()
    ops = [
        {
            "op": "ic_corrupt",
            "module": module,
            "image": images.key(image),
            "name": which if isinstance(which, str) else None,
            "number": None if isinstance(which, str) else int(which),
            "severity": int(severity),
            "seed": None if seed is None else int(seed),
        }
        for image, which, severity, seed in cases
    ]
    _, out = _run(ops, images.arrays, timeout, env)
    return [out[f"r{i}"] for i in range(len(ops))]


def reference_ic_names(subsets: Sequence[str]) -> dict[str, list[str]]:
    """``imagecorruptions.get_corruption_names(subset)`` for each subset."""
    meta, _ = _run([{"op": "ic_names", "subset": s} for s in subsets], {}, 300.0)
    return {s: res["names"] for s, res in zip(subsets, meta["results"])}


def reference_motion_blur(
    images: Sequence[np.ndarray],
    radius: float,
    sigma: float,
    angle: float,
    *,
    raw: bool = False,
    timeout: float = 600.0,
) -> list[np.ndarray]:
    """ImageMagick motion blur as the reference calls it (MagickMotionBlurImage through ctypes).

    Path: PIL image (mode 'L' for HxW input, 'RGB' for HxWx3) -> PNG -> Wand ``MotionImage`` ->
    ``motion_blur(radius, sigma, angle)`` -> PNG -> ``cv2.imdecode(..., IMREAD_UNCHANGED)``.
    With ``raw=True`` the decoded arrays are returned as they are: BGR HxWx3, or HxW when
    ImageMagick wrote a grayscale PNG (any input whose pixels are all gray, e.g. snow's 'L'
    layer or an RGB image with R == G == B). Otherwise the handling of imagenet_c's motion_blur
    is applied: 3-D -> reversed to RGB, 2-D -> replicated to HxWx3.
    """
    return reference_motion_blur_cases(
        [(image, radius, sigma, angle) for image in images], raw=raw, timeout=timeout
    )


def reference_motion_blur_cases(
    cases: Sequence[tuple[np.ndarray, float, float, float]],
    *,
    raw: bool = False,
    timeout: float = 600.0,
) -> list[np.ndarray]:
    """Like :func:`reference_motion_blur`, one ``(image, radius, sigma, angle)`` per case, all
    cases in one subprocess (so that many parameter sets cost one reference start)."""
    imgs = _Images()
    ops = [
        {
            "op": "magick_motion_blur",
            "image": imgs.key(image),
            "radius": float(radius),
            "sigma": float(sigma),
            "angle": float(angle),
        }
        for image, radius, sigma, angle in cases
    ]
    _, out = _run(ops, imgs.arrays, timeout)
    suffix = "_raw" if raw else "_rgb"
    return [out[f"r{i}{suffix}"] for i in range(len(ops))]


def reference_timings(
    image: np.ndarray,
    names: Sequence[str] = BENCHMARK_CORRUPTIONS,
    severities: Sequence[int] = (1, 2, 3, 4, 5),
    repeats: int = 3,
    *,
    seed: int = 0,
    timeout: float = 3600.0,
    clock: str = "perf_counter",
    warmup: str = "all",
    module: str = "imagenet_c",
    via: str = "corrupt",
    statistic: str = "median",
) -> dict[tuple[str, int], float]:
    """Seconds per ``imagenet_c.corrupt`` call (or ``module``'s ``corrupt``, e.g.
    ``"imagecorruptions_plain"``; ``via="function"``: its corruption function on a PIL image),
    single-threaded, for each (name, severity). ``statistic="min"``: the fastest of the timed
    calls instead of their median (the least disturbed one, on a busy machine).

    Every case gets one untimed warm-up call (``warmup="first"``: only the first severity of each
    corruption, ``"none"``: none), then ``repeats`` timed calls; the value is the median.
    ``clock``: ``"perf_counter"`` (wall clock) or ``"process_time"`` (the runner's CPU time). The
    runner forces OMP/OpenBLAS/OpenCV/ImageMagick to one thread.
    """
    imgs = _Images()
    cases = [[str(n), int(s)] for n in names for s in severities]
    ops = [
        {
            "op": "time_corrupt",
            "image": imgs.key(image),
            "cases": cases,
            "repeats": int(repeats),
            "seed": int(seed),
            "clock": str(clock),
            "warmup": str(warmup),
            "module": str(module),
            "via": str(via),
        }
    ]
    meta, _ = _run(ops, imgs.arrays, timeout)
    reduce = {"median": np.median, "min": np.min}[statistic]
    return {
        (t["name"], t["severity"]): float(reduce(t["seconds"]))
        for t in meta["results"][0]["timings"]
    }


def reference_versions() -> dict[str, str]:
    """Library versions inside the reference env (numpy, opencv, scikit-image, ImageMagick...)."""
    meta, _ = _run([], {}, 300.0)
    return meta["versions"]


# ---------------------------------------------------------------------------------------------
# ImageNet-C-bar / CIFAR-10-C-bar: the original corruptions (tools/reference/cbar_runner.py)
# ---------------------------------------------------------------------------------------------

CBAR_RUNNER = REPO / "tools" / "reference" / "cbar_runner.py"
#: the original ``imagenet_c_bar/`` folder (facebookresearch/augmentation-corruption, commit
#: ba4d5a5), read from the shared checkout beside the repository, never copied into it
CBAR_SOURCE = REPO.parent / "shared" / "reference" / "augmentation-corruption" / "imagenet_c_bar"
CBAR_MISSING = f"the original ImageNet-C-bar code is absent ({CBAR_SOURCE})"


def cbar_available() -> bool:
    """True when the original ImageNet-C-bar folder is present (the env is checked apart)."""
    return (CBAR_SOURCE / "transform_finder.py").is_file()


def reference_cbar(
    cases: Sequence[tuple[np.ndarray, str, float, int | None]],
    *,
    im_size: int | None = None,
    record: bool = False,
    env: dict[str, str] | None = None,
    timeout: float = 1800.0,
) -> list[Any]:
    """The original transforms: one ``np.uint8`` result per ``(image, name, level, seed)``.

    Each case runs ``np.random.seed(seed)`` (skipped for None), then
    ``transform_dict[name](severity=level, im_size=S)(image)`` and ``np.uint8`` of the result, as
    ``build_transform(name, level, dataset_type)`` does with ``S`` 224 (``imagenet``) or 32
    (``cifar``). ``S`` is ``im_size`` or else the image's side (the originals take square images).
    ``level`` is the original's severity (the CSVs' values, e.g. 2.35). With ``record`` each
    result is ``(array, params)``, the drawn parameters as JSON values. All cases run in one
    subprocess; ``env``: extra environment (e.g. :data:`NO_AVX512`).
    """
    if not cbar_available():
        raise ReferenceRunnerError(CBAR_MISSING)
    images = _Images()
    ops = [
        {
            "op": "transform",
            "image": images.key(image),
            "name": str(name),
            "level": float(level),
            "im_size": int(im_size if im_size is not None else image.shape[0]),
            "seed": None if seed is None else int(seed),
            "record": bool(record),
        }
        for image, name, level, seed in cases
    ]
    meta, out = _run(
        ops,
        images.arrays,
        timeout,
        env,
        runner=CBAR_RUNNER,
        request={"source": str(CBAR_SOURCE)},
    )
    if record:
        return [(out[f"r{i}"], res["params"]) for i, res in enumerate(meta["results"])]
    return [out[f"r{i}"] for i in range(len(ops))]


def reference_cbar_timings(
    image: np.ndarray,
    cases: Sequence[tuple[str, float]],
    *,
    repeats: int = 3,
    seed: int = 0,
    clock: str = "process_time",
    warmup: str = "all",
    env: dict[str, str] | None = None,
    timeout: float = 3600.0,
) -> dict[tuple[str, float], float]:
    """Seconds per call of the original transform (median of ``repeats``, each after
    ``np.random.seed(seed)``), single-threaded, per ``(name, level)``, at the image's size.
    ``warmup``: one untimed call per case (``all``), per corruption (``first``) or none;
    ``clock``: ``process_time`` (CPU time of the runner) or ``perf_counter``."""
    if not cbar_available():
        raise ReferenceRunnerError(CBAR_MISSING)
    images = _Images()
    ops = [
        {
            "op": "time",
            "image": images.key(image),
            "cases": [[str(n), float(v)] for n, v in cases],
            "im_size": int(image.shape[0]),
            "repeats": int(repeats),
            "seed": int(seed),
            "clock": str(clock),
            "warmup": str(warmup),
        }
    ]
    meta, _ = _run(
        ops, images.arrays, timeout, env, runner=CBAR_RUNNER, request={"source": str(CBAR_SOURCE)}
    )
    return {
        (t["name"], t["level"]): float(np.median(t["seconds"]))
        for t in meta["results"][0]["timings"]
    }
