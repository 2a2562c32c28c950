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
  - ``{"op": "function", "image": KEY, "module": MODULE, "name": str, "severity": int, "seed":
    int | null, "catch": bool}`` -> ``np.random.seed(seed)``, then the module's
    ``corruption_dict[name](PIL image, severity)`` (a 2-D image as a mode-L PIL image): the
    function's own result (float64, float32, or a PIL image as uint8) as ``r{i}``; its ``type``,
    ``dtype``, PIL ``mode`` and ``format`` and the global random state after the call (``state``:
    md5 of the key, pos, has_gauss, cached_gaussian) in the response JSON. With ``catch`` an
    exception is returned as ``error`` (``"Type: message"``) instead of failing the request.
  - ``{"op": "ic_corrupt", "image": KEY, "name": str | null, "number": int | null, "severity":
    int, "seed": int | null, "module": MODULE}`` -> ``MODULE.corrupt`` (imagecorruptions 1.1.2)
    as ``r{i}``.
  - ``{"op": "ic_sequence", "image": KEY, "module": MODULE, "calls": [[name, severity], ...],
    "seed": int}`` -> ``np.random.seed(seed)`` once, then ``MODULE.corrupt`` per call in order
    (a script that seeds once): the results stacked as ``r{i}``, the state after each call in
    the response JSON (``states``).
  - ``{"op": "ic_helper", "name": str, "args": [...], "image": KEY | null, "seed": int | null}``
    -> ``np.random.seed(seed)``, then ``imagecorruptions.corruptions.<name>(image, *args)`` of the
    plain module (``image`` only when given): its result as ``r{i}``, the state after it in the
    response JSON.
  - ``{"op": "gaussian_shim", "image": KEY, "sigma": float}`` -> the ``multichannel=True`` shim
    of ``imagecorruptions_plain`` and the SciPy call it stands for, on ``image / 255.``:
    ``r{i}_shimmed``, ``r{i}_direct``.
  - ``{"op": "ic_names", "subset": str}`` -> ``imagecorruptions.get_corruption_names(subset)`` in
    the response JSON (``names``).
  - ``{"op": "time_corrupt", "image": KEY, "cases": [[name, severity], ...], "repeats": int,
    "seed": int, "clock": "perf_counter" | "process_time", "warmup": "all" | "first" | "none",
    "module": MODULE, "via": "corrupt" | "function"}`` -> ``MODULE.corrupt`` (default
    ``imagenet_c``; ``via="function"``: ``MODULE.corruption_dict[name](PIL image, severity)``, the
    PIL image made once before the timing): untimed warm-up calls
    (``all``, the default: one per case; ``first``: one per corruption, before its first case),
    then ``repeats`` timed calls per case, single-threaded, timed with ``clock`` (default
    ``perf_counter``; ``process_time``: CPU time of the process, steadier on a busy machine).
    Result in the response JSON: seconds per call.

  ``MODULE``: ``imagenet_c`` (0.0.3, shims a-c below), ``imagecorruptions`` (1.1.2, shims a and
  c) or ``imagecorruptions_plain`` (1.1.2, only the ``multichannel`` keyword mapped to
  ``channel_axis``, as scikit-image 0.19.3 itself did: its real ``impulse_noise``, whose
  ``random_noise`` draws from a fresh ``np.random.default_rng()`` that ``np.random.seed`` does
  not control, and float32 kept float32 by ``gaussian``).

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


def gaussian_multichannel(image, sigma=1, *args, multichannel=None, **kwargs):
    """``skimage.filters.gaussian`` taking 0.19's deprecated ``multichannel`` keyword: 0.19.3's
    ``deprecate_multichannel_kwarg`` turned ``multichannel=True`` into ``channel_axis=-1`` (and
    ``False`` into ``None``) and called the same function, which is all this does. No other
    change (float32 stays float32, as in 0.19)."""
    if multichannel is not None and "channel_axis" not in kwargs:
        kwargs["channel_axis"] = -1 if multichannel else None
    return _skimage_gaussian()(image, sigma, *args, **kwargs)


def _skimage_gaussian():
    import skimage.filters

    return skimage.filters.gaussian


def _load_imagecorruptions_plain():
    """A second, separate copy of imagecorruptions 1.1.2 (module ``ic_plain``) with only the
    ``multichannel`` keyword shim: its real ``impulse_noise`` (``sk.util.random_noise`` with
    scikit-image's own ``default_rng``, not controlled by ``np.random.seed``) and every other
    call as a user of scikit-image >= 0.19 runs them."""
    import importlib.util

    import imagecorruptions

    base = os.path.dirname(imagecorruptions.__file__)
    spec = importlib.util.spec_from_file_location(
        "ic_plain", os.path.join(base, "__init__.py"), submodule_search_locations=[base]
    )
    mod = importlib.util.module_from_spec(spec)
    sys.modules["ic_plain"] = mod
    spec.loader.exec_module(mod)
    sys.modules["ic_plain.corruptions"].gaussian = gaussian_multichannel
    return mod


_IC_PLAIN = []


def ic_plain():
    """imagecorruptions with only the ``multichannel`` shim, imported on first use."""
    if not _IC_PLAIN:
        _IC_PLAIN.append(_load_imagecorruptions_plain())
    return _IC_PLAIN[0]


def module_named(module: str):
    """``imagenet_c``, ``imagecorruptions`` (shims a and c) or ``imagecorruptions_plain``."""
    if module == "imagenet_c":
        return imagenet_c
    if module == "imagecorruptions":
        return ic()
    if module == "imagecorruptions_plain":
        return ic_plain()
    raise ValueError(f"unknown module {module!r}")


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


def op_function(image: np.ndarray, module: str, name: str, severity: int, seed, catch=False):
    """``module.corruption_dict[name](PIL image, severity)`` after ``np.random.seed(seed)``: the
    function's own result (its dtype; a PIL result as a uint8 array), what it was (type, dtype,
    PIL mode) and the global random state after the call. A 2-D image is passed as a mode-L
    PIL image. With ``catch``, an exception becomes ``{"error": "Type: message"}``."""
    from PIL import Image as PILImage

    mod = module_named(module)
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    try:
        with np.errstate(all="ignore"):
            out = mod.corruption_dict[name](PILImage.fromarray(x), int(severity))
    except Exception as exc:
        if not catch:
            raise
        return None, {"error": f"{type(exc).__name__}: {exc}"}
    arr = np.asarray(out)
    info = {
        "type": type(out).__name__,
        "dtype": str(arr.dtype),
        "mode": getattr(out, "mode", None),
        "format": getattr(out, "format", None),
        "state": state_summary(),
    }
    return np.array(arr), info


def state_summary() -> list:
    """NumPy's global legacy state as ``[md5 of the key, pos, has_gauss, cached_gaussian]``."""
    import hashlib

    _, key, pos, has_gauss, cached = np.random.get_state()
    return [hashlib.md5(key.tobytes()).hexdigest(), int(pos), int(has_gauss), float(cached)]


def op_ic_sequence(image: np.ndarray, module: str, calls, seed: int):
    """``np.random.seed(seed)`` once, then ``module.corrupt(x, severity, name)`` for each
    ``[name, severity]`` of ``calls`` in order (a script that seeds once): the stacked uint8
    results and :func:`state_summary` after each call."""
    mod = module_named(module)
    x = np.ascontiguousarray(image, dtype=np.uint8)
    np.random.seed(int(seed))
    outs, states = [], []
    for name, severity in calls:
        outs.append(np.asarray(mod.corrupt(x, severity=int(severity), corruption_name=name)))
        states.append(state_summary())
    return np.stack(outs), states


def op_ic_helper(name: str, args, image, seed):
    """``imagecorruptions.corruptions.<name>(*args)`` (the plain module), ``image`` first when
    given, after ``np.random.seed(seed)``: its result as an array and the state after it."""
    ic_plain()
    func = getattr(sys.modules["ic_plain.corruptions"], name)
    if seed is not None:
        np.random.seed(int(seed))
    call_args = ([image] if image is not None else []) + list(args)
    with np.errstate(all="ignore"):
        out = func(*call_args)
    return np.asarray(out), state_summary()


def op_gaussian_shim(image: np.ndarray, sigma: float):
    """The ``multichannel=True`` shim against the computation it names: scikit-image 0.19.3 (and
    0.13) blur every axis but the last with ``sigma`` and leave the last one alone, i.e.
    ``scipy.ndimage.gaussian_filter(x, (sigma, ..., sigma, 0), mode='nearest', truncate=4)`` of
    ``x = image / 255.``; returns both."""
    import scipy.ndimage as ndi

    x = np.asarray(image) / 255.0
    shimmed = gaussian_multichannel(x, sigma=float(sigma), multichannel=True)
    sigmas = (float(sigma),) * (x.ndim - 1) + (0.0,)
    direct = ndi.gaussian_filter(x, sigmas, mode="nearest", truncate=4.0)
    return shimmed, direct


def op_ic_corrupt(
    image: np.ndarray, name, number, severity: int, seed, module: str = "imagecorruptions"
) -> np.ndarray:
    """``imagecorruptions.corrupt(x, severity, name, number)`` after ``np.random.seed(seed)``."""
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    kwargs = {"corruption_name": name} if name is not None else {"corruption_number": int(number)}
    return np.asarray(module_named(module).corrupt(x, severity=int(severity), **kwargs))


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
    module: str = "imagenet_c",
    via: str = "corrupt",
) -> list:
    from PIL import Image as PILImage

    mod = module_named(module)
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if via == "function":  # the corruption function on a PIL image made once, outside the timing
        pil = PILImage.fromarray(x)

        def corrupt(_, severity, name):
            return mod.corruption_dict[name](pil, severity)

    else:  # imagenet_c.corrupt and imagecorruptions.corrupt both take (x, severity, name)
        corrupt = mod.corrupt
    now = _CLOCKS[clock]
    results = []
    warmed = set()
    for name, severity in cases:
        np.random.seed(int(seed))
        if warmup == "all" or (warmup == "first" and name not in warmed):
            corrupt(x, int(severity), name)  # warm-up (first-call costs, caches)
            warmed.add(name)
        times = []
        for _ in range(int(repeats)):
            t0 = now()
            corrupt(x, int(severity), name)
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
            if kind == "ic_helper":
                image = arrays[op["image"]] if op.get("image") else None
                out, state = op_ic_helper(op["name"], op.get("args", []), image, op.get("seed"))
                out_arrays[f"r{i}"] = out
                results.append({"op": kind, "state": state})
                continue
            image = arrays[op["image"]]
            if kind == "function":
                out, info = op_function(
                    image,
                    op["module"],
                    op["name"],
                    op["severity"],
                    op.get("seed"),
                    op.get("catch", False),
                )
                if out is not None:
                    out_arrays[f"r{i}"] = out
                results.append({"op": kind, **info})
            elif kind == "ic_corrupt":
                out_arrays[f"r{i}"] = op_ic_corrupt(
                    image,
                    op.get("name"),
                    op.get("number"),
                    op["severity"],
                    op.get("seed"),
                    op.get("module", "imagecorruptions"),
                )
                results.append({"op": kind})
            elif kind == "ic_sequence":
                outs, states = op_ic_sequence(image, op["module"], op["calls"], op["seed"])
                out_arrays[f"r{i}"] = outs
                results.append({"op": kind, "states": states})
            elif kind == "gaussian_shim":
                shimmed, direct = op_gaussian_shim(image, op["sigma"])
                out_arrays[f"r{i}_shimmed"] = shimmed
                out_arrays[f"r{i}_direct"] = direct
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
                    op.get("module", "imagenet_c"),
                    op.get("via", "corrupt"),
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
    shimmed, direct = op_gaussian_shim(img, 2.0)
    assert np.array_equal(shimmed, direct), "the multichannel shim changed gaussian's output"
    assert ic_plain().corrupt(img[:64, :64], 1, "glass_blur").shape == (64, 64, 3)
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
