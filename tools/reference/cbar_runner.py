# ruff: noqa: NPY002  (the reference draws from NumPy's legacy global RNG on purpose)
"""Run the original ImageNet-C-bar / CIFAR-10-C-bar corruptions inside the reference env.

The code is the ``imagenet_c_bar/`` folder of facebookresearch/augmentation-corruption (commit
ba4d5a5; Mintun, Kirillov, Xie, NeurIPS 2021): ``corrupt.py`` (30 ``Transform`` classes),
``transform_finder.py``, ``base.py``, ``utils/``. The client (``tests/reference.py``) passes the
folder's path (it lives in ``../shared/reference/``; nothing of it is in this repository). This
script runs ONLY in the reference venv (``tools/reference/setup_refenv.sh``: numpy 1.26, scipy
1.13, scikit-image 0.24, Pillow 10.4) and is never imported by corruptbench.

Usage::

    python cbar_runner.py REQUEST.npz RESPONSE.npz
    python cbar_runner.py --selftest SOURCE_DIR

Protocol (plain ``.npz`` both ways, no pickles): arrays under any keys plus ``__request__``, a 0-d
str array holding JSON ``{"source": DIR, "ops": [op, ...]}``.

- ``{"op": "transform", "image": KEY, "name": str, "level": float, "im_size": int,
  "seed": int | null, "record": bool}`` -> ``np.random.seed(seed)`` (skipped when null), then
  ``transform_dict[name](severity=level, im_size=im_size)`` called on the image, and
  ``np.uint8(...)`` of its result (as the dataset scripts save it) as ``r{i}``; for ``im_size``
  224 and 32 the transform is ``build_transform(name, level, "imagenet" | "cifar")`` itself
  (which only picks the size). With ``record`` the drawn parameters come
  back in the response JSON (``params``: lists of floats / ints).
- ``{"op": "time", "image": KEY, "cases": [[name, level], ...], "im_size": int, "repeats": int,
  "seed": int, "clock": "process_time" | "perf_counter", "warmup": "all" | "first" | "none"}``
  -> one untimed call per case (``first``: per corruption, before its first case), then
  ``repeats`` timed calls (each after ``np.random.seed(seed)``), single-threaded; seconds per
  call in the response JSON (``timings``).

Response: arrays ``r{i}`` plus ``__response__`` (JSON ``{"results": [...], "versions": {...}}``).

Shims (the original does not run on NumPy >= 1.24 as it is; neither changes an output):

a. ``np.int``: ``Lines`` and ``FishEye`` call ``np.array(..., dtype=np.int)`` /
   ``.astype(np.int)``. NumPy 1.24 removed the alias; before that ``np.int`` *was* the builtin
   ``int`` (``np.int is int``), so setting ``np.int = int`` restores exactly what the original ran
   with (the self-test checks that the two corruptions run).
b. ``ImageEnhance``: ``ColorBalance.transform`` calls ``ImageEnhance.Color`` but ``corrupt.py``
   never imports it (``from PIL import Image`` only), so ``color_balance`` raises ``NameError``
   everywhere. The shim binds the name to ``PIL.ImageEnhance``, the only module of that name the
   code can mean.

``randint(high=2**32)`` (the README's third fault) fails only where NumPy's default integer is
32-bit (Windows); on Linux it runs unchanged.
"""

from __future__ import annotations

import os

# Single thread everywhere, before numpy loads (timings are single-core figures).
for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
):
    os.environ[_var] = "1"

import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=RuntimeWarning)

_LOADED: dict = {}


def load(source: str):
    """``transform_finder`` of the original folder ``source``, imported once, with the shims."""
    if "finder" in _LOADED:
        if _LOADED["source"] != source:
            raise RuntimeError(f"one source per process: {_LOADED['source']} then {source}")
        return _LOADED["finder"]
    if not os.path.isfile(os.path.join(source, "transform_finder.py")):
        raise FileNotFoundError(f"no transform_finder.py in {source}")
    import PIL.ImageEnhance

    if "int" not in np.__dict__:
        np.int = int  # noqa: NPY001  (shim (a): the alias NumPy < 1.24 had, np.int is int)
    sys.path.insert(0, source)
    import corrupt
    import transform_finder

    corrupt.ImageEnhance = PIL.ImageEnhance  # shim (b)
    _LOADED.update(source=source, finder=transform_finder)
    return transform_finder


def _jsonable(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def build(finder, name, level, im_size):
    """``build_transform(name, level, dataset_type)`` for 224 (``imagenet``) and 32 (``cifar``),
    else the class with that ``im_size`` (what ``build_transform`` does for its two sizes)."""
    if int(im_size) in (32, 224):
        dataset_type = "cifar" if int(im_size) == 32 else "imagenet"
        return finder.build_transform(name, float(level), dataset_type)
    return finder.transform_dict[name](severity=float(level), im_size=int(im_size))


def op_transform(finder, image, name, level, im_size, seed, record):
    x = np.ascontiguousarray(image, dtype=np.uint8)
    if seed is not None:
        np.random.seed(int(seed))
    t = build(finder, name, level, im_size)
    params = t.sample_parameters()  # Transform.__call__: sample_parameters, then transform
    out = np.uint8(t.transform(x, **params))
    info = {"params": {k: _jsonable(v) for k, v in params.items()}} if record else {}
    return out, info


_CLOCKS = {"perf_counter": time.perf_counter, "process_time": time.process_time}


def op_time(finder, image, cases, im_size, repeats, seed, clock, warmup="all"):
    x = np.ascontiguousarray(image, dtype=np.uint8)
    now = _CLOCKS[clock]
    results = []
    warmed = set()
    for name, level in cases:
        t = build(finder, name, level, im_size)
        if warmup == "all" or (warmup == "first" and name not in warmed):
            np.random.seed(int(seed))
            np.uint8(t(x))  # warm-up: lazy imports, first-call costs
            warmed.add(name)
        times = []
        for _ in range(int(repeats)):
            np.random.seed(int(seed))
            t0 = now()
            np.uint8(t(x))
            times.append(now() - t0)
        results.append({"name": name, "level": float(level), "seconds": times})
    return results


def versions() -> dict:
    import PIL
    import scipy
    import skimage

    return {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-image": skimage.__version__,
        "pillow": PIL.__version__,
        "NPY_DISABLE_CPU_FEATURES": os.environ.get("NPY_DISABLE_CPU_FEATURES", ""),
    }


def handle(request: dict, arrays: dict) -> tuple[dict, dict]:
    finder = load(request["source"])
    out_arrays: dict = {}
    results = []
    for i, op in enumerate(request.get("ops", [])):
        kind = op.get("op")
        try:
            image = arrays[op["image"]]
            if kind == "transform":
                out, info = op_transform(
                    finder,
                    image,
                    op["name"],
                    op["level"],
                    op["im_size"],
                    op.get("seed"),
                    op.get("record", False),
                )
                out_arrays[f"r{i}"] = out
                results.append({"op": kind, **info})
            elif kind == "time":
                timings = op_time(
                    finder,
                    image,
                    op["cases"],
                    op["im_size"],
                    op.get("repeats", 3),
                    op.get("seed", 0),
                    op.get("clock", "process_time"),
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


def selftest(source: str) -> int:
    """Every transform runs at 16 px with the shims (``lines`` and ``fish_eye`` need (a),
    ``color_balance`` needs (b)), deterministically under ``np.random.seed``."""
    finder = load(source)
    yy, xx = np.mgrid[0:16, 0:16]
    img = np.stack([xx * 16, yy * 16, (xx + yy) * 8], axis=-1).astype(np.uint8)
    assert np.__dict__["int"] is int
    for name in finder.transform_dict:
        a, _ = op_transform(finder, img, name, 5.0, 16, 3, False)
        b, _ = op_transform(finder, img, name, 5.0, 16, 3, False)
        assert a.shape == img.shape and np.array_equal(a, b), name
    print(f"[cbar_runner] selftest ok: {len(finder.transform_dict)} transforms; {versions()}")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--selftest":
        return selftest(argv[1])
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
