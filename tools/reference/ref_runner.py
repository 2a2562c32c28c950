# ruff: noqa: NPY002  (the reference draws from NumPy's legacy global RNG on purpose)
"""Run the original ImageNet-C code (imagenet-c==0.0.3) inside the reference env.

This script runs ONLY inside the reference venv built by ``tools/reference/setup_refenv.sh``
(numpy 1.26, OpenCV 3.4, scikit-image 0.24, Wand + ImageMagick 6). It is never imported by
corruptbench; the client ``tests/reference.py`` starts it with the refenv's python.

Usage::

    python ref_runner.py REQUEST.npz RESPONSE.npz
    python ref_runner.py --selftest

Protocol (plain ``.npz`` both ways, no pickles, so numpy 1.x and 2.x sides interoperate):

* request: arrays under any keys, plus ``__request__``: a 0-d str array holding JSON
  ``{"ops": [op, ...]}``; each op names its input array by key:

  - ``{"op": "corrupt", "image": KEY, "name": str, "severity": int, "seed": int | null}``
    -> ``np.random.seed(seed)`` (skipped when null), then ``imagenet_c.corrupt(x, severity, name)``
    which already returns ``np.uint8(result)`` (truncating cast). Response array ``r{i}``.
  - ``{"op": "magick_motion_blur", "image": KEY, "radius": float, "sigma": float, "angle": float}``
    -> the reference MotionImage path (PIL -> PNG -> Wand MagickMotionBlurImage -> PNG ->
    ``cv2.imdecode(IMREAD_UNCHANGED)``). Response ``r{i}_raw`` (decoded array as is: BGR HxWx3,
    or HxW when ImageMagick wrote a grayscale PNG) and ``r{i}_rgb`` (the handling of
    ``imagenet_c.motion_blur``: 3-D -> channels reversed to RGB, 2-D -> replicated to 3 channels).
  - ``{"op": "function", "image": KEY, "module": "imagenet_c" | "imagecorruptions", "name": str,
    "severity": int, "seed": int | null}`` -> ``np.random.seed(seed)``, then the module's
    ``corruption_dict[name](PIL image, severity)``: the function's own result (float64, float32,
    or a PIL image as uint8) as ``r{i}``; its ``type`` and ``dtype`` in the response JSON.
  - ``{"op": "ic_corrupt", "image": KEY, "name": str | null, "number": int | null, "severity":
    int, "seed": int | null}`` -> ``imagecorruptions.corrupt`` (1.1.2, shims below) as ``r{i}``.
  - ``{"op": "ic_names", "subset": str}`` -> ``imagecorruptions.get_corruption_names(subset)`` in
    the response JSON (``names``).
  - ``{"op": "time_corrupt", "image": KEY, "cases": [[name, severity], ...], "repeats": int,
    "seed": int, "clock": "perf_counter" | "process_time", "warmup": "all" | "first" | "none"}``
    -> untimed warm-up calls (``all``, the default: one per case; ``first``: one per corruption,
    before its first case), then ``repeats`` timed calls per case, single-threaded, timed with
    ``clock`` (default ``perf_counter``; ``process_time``: CPU time of the process, steadier on a
    busy machine). Result in the response JSON: seconds per call.

* response: arrays ``r{i}`` / ``r{i}_raw`` / ``r{i}_rgb`` plus ``__response__`` (JSON:
  ``{"results": [{"op": ..., ...}, ...], "versions": {...}}``).

Shims applied to imagenet_c 0.0.3 (which was written for scikit-image 0.13.1):

a. ``skimage.filters.gaussian`` as seen by ``imagenet_c.corruptions``: the removed
   ``multichannel=True`` is mapped to ``channel_axis=-1``, and float32 input is promoted to
   float64 first (0.13's ``img_as_float`` did that; newer versions keep float32).
b. the frost files: 0.0.3's wheel does not ship them and ``resource_filename`` resolves paths
   inside ``imagenet_c``; they are looked up in ``imagecorruptions/frost/`` (byte-identical).
c. ``impulse_noise``: newer ``skimage.util.random_noise`` draws from a private Generator, so
   the 0.13.1 salt-and-pepper (two global ``np.random.choice`` masks) is re-implemented.

imagecorruptions 1.1.2 (the ``function`` / ``ic_*`` ops) gets shims (a) and (c) too: it calls
``gaussian(..., multichannel=True)`` and ``sk.util.random_noise`` the same way.

The client may set ``NPY_DISABLE_CPU_FEATURES`` for a run (NumPy 1.26's AVX-512 ``exp`` differs
from other builds in the last bit, which moves a few Gaussian-blurred values by one level).
"""

from __future__ import annotations

import os

# Single thread everywhere, before numpy / OpenCV load (timings are single-core figures).
for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "MAGICK_THREAD_LIMIT",
):
    os.environ[_var] = "1"

import io  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)

import numpy as np  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Import the reference with the shims.
# ---------------------------------------------------------------------------------------------


def random_noise_sp_0131(image, amount, salt_vs_pepper=0.5):
    """scikit-image 0.13.1's ``random_noise(mode='s&p')``: two global ``np.random.choice`` masks."""
    image = np.asarray(image, dtype=np.float64)
    low_clip = -1.0 if image.min() < 0 else 0.0
    out = image.copy()
    flipped = np.random.choice([True, False], size=image.shape, p=[amount, 1 - amount])
    salted = np.random.choice(
        [True, False], size=image.shape, p=[salt_vs_pepper, 1 - salt_vs_pepper]
    )
    peppered = ~salted
    out[flipped & salted] = 1
    out[flipped & peppered] = low_clip
    return np.clip(out, low_clip, 1.0)


def _load_reference():
    import cv2
    import imagecorruptions
    import skimage.filters

    cv2.setNumThreads(1)

    import imagenet_c
    import imagenet_c.corruptions as corr

    # (a) scikit-image 0.13 `gaussian(..., multichannel=...)` on top of the current API.
    _gaussian = skimage.filters.gaussian

    def gaussian_013(image, sigma=1, *args, multichannel=None, **kwargs):
        image = np.asarray(image)
        if image.dtype == np.float32 or image.dtype == np.float16:
            image = image.astype(np.float64)  # 0.13's img_as_float always gave float64
        if multichannel is not None and "channel_axis" not in kwargs:
            kwargs["channel_axis"] = -1 if multichannel else None
        return _gaussian(image, sigma, *args, **kwargs)

    corr.gaussian = gaussian_013

    # (b) frost textures from imagecorruptions' copy (same md5 as ImageNet-C's create_c/frost*).
    frost_dir = os.path.join(os.path.dirname(imagecorruptions.__file__), "frost")
    _resource_filename = corr.resource_filename

    def resource_filename(package, resource):
        if resource.startswith("frost/"):
            path = os.path.join(frost_dir, resource[len("frost/") :])
            if not os.path.isfile(path):
                raise FileNotFoundError(f"reference frost file missing: {path}")
            return path
        return _resource_filename(package, resource)

    corr.resource_filename = resource_filename

    # (c) impulse_noise with scikit-image 0.13.1's salt-and-pepper on the global NumPy RNG.
    #     Same body as imagenet_c 0.0.3 except the random_noise call.
    def impulse_noise(x, severity=1):
        c = [0.03, 0.06, 0.09, 0.17, 0.27][severity - 1]

        x = random_noise_sp_0131(np.array(x) / 255.0, amount=c)
        return np.clip(x, 0, 1) * 255

    impulse_noise.__name__ = "impulse_noise"
    corr.impulse_noise = impulse_noise
    # imagenet_c.corrupt dispatches through these two containers built at import time.
    imagenet_c.impulse_noise = impulse_noise
    imagenet_c.corruption_dict["impulse_noise"] = impulse_noise
    imagenet_c.corruption_tuple = tuple(
        impulse_noise if f.__name__ == "impulse_noise" else f for f in imagenet_c.corruption_tuple
    )
    return imagenet_c, corr


imagenet_c, corr = _load_reference()


def _load_imagecorruptions():
    """imagecorruptions 1.1.2 (bethgelab) with the same two shims as (a) and (c) above: its
    ``gaussian(..., multichannel=True)`` calls and its ``impulse_noise`` (whose
    ``sk.util.random_noise`` ignores ``np.random.seed`` under scikit-image >= 0.19)."""
    import imagecorruptions
    import imagecorruptions.corruptions as icc

    icc.gaussian = corr.gaussian  # shim (a)

    def impulse_noise(x, severity=1):  # imagecorruptions' body, shim (c)'s draws
        c = [0.03, 0.06, 0.09, 0.17, 0.27][severity - 1]
        x = random_noise_sp_0131(np.array(x) / 255.0, amount=c)
        return np.clip(x, 0, 1) * 255

    impulse_noise.__name__ = "impulse_noise"
    icc.impulse_noise = impulse_noise
    imagecorruptions.impulse_noise = impulse_noise
    imagecorruptions.corruption_dict["impulse_noise"] = impulse_noise
    imagecorruptions.corruption_tuple = tuple(
        impulse_noise if f.__name__ == "impulse_noise" else f
        for f in imagecorruptions.corruption_tuple
    )
    return imagecorruptions


_IC = []


def ic():
    """imagecorruptions with its shims, imported on first use."""
    if not _IC:
        _IC.append(_load_imagecorruptions())
    return _IC[0]


def versions() -> dict:
    import cv2
    import PIL
    import scipy
    import skimage
    import wand.version

    return {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "opencv": cv2.__version__,
        "scikit-image": skimage.__version__,
        "scipy": scipy.__version__,
        "pillow": PIL.__version__,
        "wand": wand.version.VERSION,
        "imagemagick": wand.version.MAGICK_VERSION,
    }


# ---------------------------------------------------------------------------------------------
# Operations.
# ---------------------------------------------------------------------------------------------


def op_corrupt(image: np.ndarray, name: str, severity: int, seed) -> np.ndarray:
    if name not in imagenet_c.corruption_dict:
        raise ValueError(f"unknown corruption {name!r}")
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    out = imagenet_c.corrupt(x, int(severity), name)  # np.uint8(...) inside: truncation
    return np.asarray(out)


def op_function(image: np.ndarray, module: str, name: str, severity: int, seed):
    """``module.corruption_dict[name](PIL image, severity)`` after ``np.random.seed(seed)``: the
    function's own result (its dtype; a PIL result as a uint8 array) and what it was."""
    from PIL import Image as PILImage

    mod = imagenet_c if module == "imagenet_c" else ic()
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    out = mod.corruption_dict[name](PILImage.fromarray(x), int(severity))
    arr = np.asarray(out)
    return np.array(arr), {"type": type(out).__name__, "dtype": str(arr.dtype)}


def op_ic_corrupt(image: np.ndarray, name, number, severity: int, seed) -> np.ndarray:
    """``imagecorruptions.corrupt(x, severity, name, number)`` after ``np.random.seed(seed)``."""
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    kwargs = {"corruption_name": name} if name is not None else {"corruption_number": int(number)}
    return np.asarray(ic().corrupt(x, severity=int(severity), **kwargs))


def op_magick_motion_blur(image: np.ndarray, radius, sigma, angle):
    import cv2
    from PIL import Image as PILImage

    x = np.ascontiguousarray(image, dtype=np.uint8)
    pil = PILImage.fromarray(x, mode="L" if x.ndim == 2 else "RGB")
    buf = io.BytesIO()
    pil.save(buf, format="PNG")
    wimg = corr.MotionImage(blob=buf.getvalue())
    try:
        wimg.motion_blur(radius=float(radius), sigma=float(sigma), angle=float(angle))
        blob = wimg.make_blob()
    finally:
        wimg.close()
    raw = cv2.imdecode(np.frombuffer(blob, np.uint8), cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise RuntimeError("cv2.imdecode failed on ImageMagick's output blob")
    # imagenet_c.motion_blur: `if x.shape != (224, 224)` BGR -> RGB, else gray -> 3 channels.
    if raw.ndim == 3:
        rgb = np.clip(raw[..., [2, 1, 0]], 0, 255)
    else:
        rgb = np.clip(np.array([raw, raw, raw]).transpose((1, 2, 0)), 0, 255)
    return raw, rgb


_CLOCKS = {"perf_counter": time.perf_counter, "process_time": time.process_time}


def op_time_corrupt(
    image: np.ndarray,
    cases,
    repeats: int,
    seed: int,
    clock: str = "perf_counter",
    warmup: str = "all",
) -> list:
    x = np.ascontiguousarray(image, dtype=np.uint8)
    now = _CLOCKS[clock]
    results = []
    warmed = set()
    for name, severity in cases:
        np.random.seed(int(seed))
        if warmup == "all" or (warmup == "first" and name not in warmed):
            imagenet_c.corrupt(x, int(severity), name)  # warm-up (first-call costs, caches)
            warmed.add(name)
        times = []
        for _ in range(int(repeats)):
            t0 = now()
            imagenet_c.corrupt(x, int(severity), name)
            times.append(now() - t0)
        results.append({"name": name, "severity": int(severity), "seconds": times})
    return results


def handle(request: dict, arrays: dict) -> tuple[dict, dict]:
    out_arrays: dict = {}
    results = []
    for i, op in enumerate(request.get("ops", [])):
        kind = op.get("op")
        try:
            if kind == "ic_names":
                results.append({"op": kind, "names": ic().get_corruption_names(op["subset"])})
                continue
            image = arrays[op["image"]]
            if kind == "function":
                out, info = op_function(
                    image, op["module"], op["name"], op["severity"], op.get("seed")
                )
                out_arrays[f"r{i}"] = out
                results.append({"op": kind, **info})
            elif kind == "ic_corrupt":
                out_arrays[f"r{i}"] = op_ic_corrupt(
                    image, op.get("name"), op.get("number"), op["severity"], op.get("seed")
                )
                results.append({"op": kind})
            elif kind == "corrupt":
                out_arrays[f"r{i}"] = op_corrupt(image, op["name"], op["severity"], op.get("seed"))
                results.append({"op": kind})
            elif kind == "magick_motion_blur":
                raw, rgb = op_magick_motion_blur(image, op["radius"], op["sigma"], op["angle"])
                out_arrays[f"r{i}_raw"] = raw
                out_arrays[f"r{i}_rgb"] = rgb
                results.append({"op": kind})
            elif kind == "time_corrupt":
                timings = op_time_corrupt(
                    image,
                    op["cases"],
                    op.get("repeats", 3),
                    op.get("seed", 0),
                    op.get("clock", "perf_counter"),
                    op.get("warmup", "all"),
                )
                results.append({"op": kind, "timings": timings})
            else:
                raise ValueError(f"unknown op {kind!r}")
        except Exception as exc:
            raise RuntimeError(f"op #{i} {json.dumps(op)} failed: {exc!r}") from exc
    return {"results": results, "versions": versions()}, out_arrays


def main_request(req_path: str, resp_path: str) -> int:
    with np.load(req_path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    request = json.loads(str(arrays.pop("__request__")))
    meta, out_arrays = handle(request, arrays)
    tmp = resp_path + ".part.npz"
    np.savez(tmp, __response__=np.array(json.dumps(meta)), **out_arrays)
    os.replace(tmp, resp_path)
    return 0


# ---------------------------------------------------------------------------------------------
# Self-test (run by setup_refenv.sh).
# ---------------------------------------------------------------------------------------------


def selftest() -> int:
    yy, xx = np.mgrid[0:224, 0:224]
    img = np.stack([xx, yy, (xx + yy) // 2], axis=-1).astype(np.uint8)
    t0 = time.perf_counter()
    for name in imagenet_c.corruption_dict:
        severity = 1 if name == "glass_blur" else 3
        a = op_corrupt(img, name, severity, seed=5)
        b = op_corrupt(img, name, severity, seed=5)
        assert a.shape == (224, 224, 3) and a.dtype == np.uint8, (name, a.shape, a.dtype)
        assert np.array_equal(a, b), f"{name}: not deterministic under np.random.seed"
    raw, rgb = op_magick_motion_blur(img, 10, 3, 30)
    assert raw.shape == (224, 224, 3) and rgb.shape == (224, 224, 3), raw.shape
    assert not np.array_equal(rgb, img)
    gray, _ = op_magick_motion_blur(img[..., 0], 10, 3, -90)
    assert gray.shape == (224, 224), gray.shape
    print(f"[ref_runner] selftest ok in {time.perf_counter() - t0:.1f} s; {versions()}")
    return 0


def main(argv: list[str]) -> int:
    if argv == ["--selftest"]:
        return selftest()
    if argv == ["--versions"]:
        print(json.dumps(versions()))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        return main_request(argv[0], argv[1])
    except Exception:
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
