# ruff: noqa: NPY002  (the reference draws from NumPy's legacy global RNG on purpose)
"""Run CCC's ``make_imagenet_c.py`` (github.com/oripress/CCC, MIT) inside the reference env.

The client (``tests/ccc_reference.py``, ``benchmarks/ccc.py``) passes the folder holding the
original (``../shared/reference/ccc``; nothing of it is in this repository). This script runs ONLY
in the reference venv (``tools/reference/setup_refenv.sh``: numpy 1.26, scipy 1.13, scikit-image
0.24, OpenCV 3.4, Pillow 10.4, Wand + ImageMagick 6) and is never imported by corruptbench.

Usage::

    python ccc_runner.py REQUEST.npz RESPONSE.npz
    python ccc_runner.py --selftest SOURCE_DIR

Protocol (plain ``.npz``, no pickles): arrays plus ``__request__``, JSON ``{"source": DIR,
"ops": [op, ...]}``:

- ``{"op": "ccc", "image": KEY, "name": str, "severity": float, "seed": int | null}`` ->
  ``np.random.seed(seed)``, ``np.uint8(noise_dict()[name](Image.fromarray(x), severity))`` as
  ``r{i}``.
- ``{"op": "time_pipeline", "image": KEY, "cases": [[n1, s1, n2, s2], ...], "repeats": int,
  "seed": int}`` -> per case, ``ApplyTransforms.__getitem__``'s work after the crop (generate.py):
  ``n1``, ``np.uint8``, ``n2``, ``np.uint8``, ``save(JPEG, quality=85, optimize=True)``; one
  untimed call, then ``repeats`` timed ones (``process_time``, single thread). Seconds per image
  in the response JSON (``timings``).

What the original needs and this env lacks or changed (none of it alters an output):

a. ``numba``: not installed; a stub whose ``jit()`` returns the function unchanged, so glass
   blur's ``shuffle_pixels`` runs as the plain Python it is written in. Its ``np.random.randint``
   then draws from the global stream, which ``np.random.seed`` sets: the one change of
   behaviour, on purpose (with numba the draws come from numba's own generator, which no seed
   of the original reaches; the values are uniform over the same range either way).
b. scikit-image 0.13's ``gaussian(..., multichannel=True)`` and ``random_noise(mode='s&p')``:
   the shims of ``ref_runner.py`` (a) and (c), imported from it.
c. the frost textures: ``get_frost_images`` downloads ImageNet-C's six files and writes them with
   ``Image.open(BytesIO(data)).save(path)``; the same is done here from imagecorruptions' copy
   (identical md5), into ``./frost/`` of a temporary working directory.
"""

from __future__ import annotations

import os

for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "MAGICK_THREAD_LIMIT",
):
    os.environ[_var] = "1"

import importlib.util  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
import types  # noqa: E402
import warnings  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)

import numpy as np  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOADED: dict[str, types.ModuleType] = {}


def _numba_stub() -> types.ModuleType:
    stub = types.ModuleType("numba")

    def jit(*args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda fn: fn

    stub.jit = jit
    return stub


def _frost_dir() -> str:
    """``./frost`` as ``get_frost_images`` leaves it (Pillow's re-save of each file)."""
    import imagecorruptions
    from PIL import Image

    source = os.path.join(os.path.dirname(imagecorruptions.__file__), "frost")
    work = tempfile.mkdtemp(prefix="ccc-runner-")
    os.makedirs(os.path.join(work, "frost"))
    for name in sorted(os.listdir(source)):
        with open(os.path.join(source, name), "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
            img.save(os.path.join(work, "frost", name))
    return work


def load(source: str) -> types.ModuleType:
    """``make_imagenet_c.py`` of ``source`` with the shims of the module docstring."""
    if source in _LOADED:
        return _LOADED[source]
    sys.path.insert(0, _HERE)
    import ref_runner  # noqa: E402  (the imagenet_c shims (a) and (c))

    sys.modules.setdefault("numba", _numba_stub())
    spec = importlib.util.spec_from_file_location(
        "ccc_make_imagenet_c", os.path.join(source, "make_imagenet_c.py")
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.gaussian = ref_runner.corr.gaussian  # shim (a): multichannel=True, float64
    import skimage

    def random_noise(image, mode, amount):
        assert mode == "s&p", mode
        return ref_runner.random_noise_sp_0131(image, amount=amount)

    mod.sk = types.SimpleNamespace(
        util=types.SimpleNamespace(random_noise=random_noise), color=skimage.color
    )
    os.chdir(_frost_dir())  # the original opens "./frost/frostN"
    _LOADED[source] = mod
    return mod


def op_ccc(mod, image, name, severity, seed):
    from PIL import Image

    if seed is not None:
        np.random.seed(seed)
    return np.uint8(mod.noise_dict()[name](Image.fromarray(image), severity))


def _pipeline(mod, image, n1, s1, n2, s2):
    from PIL import Image

    d = mod.noise_dict()
    img = Image.fromarray(image)
    if s1 > 0:
        img = Image.fromarray(np.uint8(d[n1](img, s1)))
    if s2 > 0:
        img = Image.fromarray(np.uint8(d[n2](img, s2)))
    out = io.BytesIO()
    img.save(out, format="JPEG", quality=85, optimize=True)
    return out.getvalue()


def op_time_pipeline(mod, image, cases, repeats, seed):
    timings = []
    for n1, s1, n2, s2 in cases:
        np.random.seed(seed)
        _pipeline(mod, image, n1, s1, n2, s2)
        t0 = time.process_time()
        for _ in range(repeats):
            _pipeline(mod, image, n1, s1, n2, s2)
        timings.append((time.process_time() - t0) / repeats)
    return timings


def versions() -> dict:
    import cv2
    import PIL
    import scipy
    import skimage

    return {
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-image": skimage.__version__,
        "opencv": cv2.__version__,
        "pillow": PIL.__version__,
        "numba": "stub (jit = identity)",
    }


def handle(request: dict, arrays: dict) -> tuple[dict, dict]:
    mod = load(request["source"])
    results, out = [], {}
    for i, op in enumerate(request["ops"]):
        kind = op["op"]
        image = np.ascontiguousarray(arrays[op["image"]], dtype=np.uint8)
        if kind == "ccc":
            out[f"r{i}"] = op_ccc(mod, image, op["name"], op["severity"], op.get("seed"))
            results.append({"op": kind})
        elif kind == "time_pipeline":
            t = op_time_pipeline(mod, image, op["cases"], int(op["repeats"]), int(op["seed"]))
            results.append({"op": kind, "timings": t})
        else:
            raise ValueError(f"unknown op {kind!r}")
    return {"results": results, "versions": versions()}, out


def main_request(req_path: str, resp_path: str) -> int:
    req_path, resp_path = os.path.abspath(req_path), os.path.abspath(resp_path)
    with np.load(req_path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    request = json.loads(str(arrays.pop("__request__")))
    meta, out_arrays = handle(request, arrays)
    tmp = resp_path + ".part.npz"
    np.savez(tmp, __response__=np.array(json.dumps(meta)), **out_arrays)
    os.replace(tmp, resp_path)
    return 0


def selftest(source: str) -> int:
    mod = load(source)
    yy, xx = np.mgrid[0:224, 0:224]
    img = np.stack([xx, yy, (xx + yy) // 2], axis=-1).astype(np.uint8)
    for name in mod.noise_dict():
        a = op_ccc(mod, img, name, 2.5, 5)
        b = op_ccc(mod, img, name, 2.5, 5)
        assert a.shape == (224, 224, 3) and np.array_equal(a, b), name
    print(f"[ccc_runner] selftest ok; {versions()}")
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
