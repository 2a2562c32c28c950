"""Record what corruptbench produces, so that a refactoring can show it changed nothing.

Writes one JSON of SHA-256 digests (and the normalised results files) of:

* ``corrupt`` for all 19 corruptions x 5 severities x 4 profiles on real photos (plus odd sizes,
  grayscale and RGBA input, and a ``np.random.Generator``);
* ``perturb`` for all 14 perturbations (noise ones at difficulties 1-3) at every profile;
* the trees written by ``corruptbench make-c`` (JPEG and npy) and ``make-p`` (MP4 and npy),
  including a broken input file;
* the results of ``eval-c`` / ``eval-p`` on those trees with real pretrained models (timestamps,
  timings, versions and paths dropped), and the Markdown / CSV reports of them.

Only public entry points are used (``corruptbench.corrupt``, ``corruptbench.perturb`` and the CLI),
so the script runs unchanged before and after a change of layout::

    python tools/behaviour_snapshot.py record before.json       # on the old commit
    python tools/behaviour_snapshot.py record after.json        # on the new one
    python tools/behaviour_snapshot.py compare before.json after.json

Needs ``../shared`` (real photos and CIFAR-10 weights) and the ``[dev]`` extra.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
PHOTOS = SHARED / "data" / "imagenet-sample"
CIFAR = SHARED / "data" / "cifar10-test"
RESNET20 = SHARED / "models" / "resnet20-12fca82f.th"

PHOTO_NAMES = (
    "n01440764_tench.JPEG",
    "n01530575_brambling.JPEG",
    "n02105505_komondor.JPEG",
)
PROFILE_SIZES = {"imagenet": 224, "inception": 299, "tiny": 64, "cifar": 32}
VOLATILE_KEYS = {
    "created",
    "time",
    "time_s",
    "seconds",
    "elapsed",
    "versions",
    "path",
    "command",
    "finished_at",
}


def digest(a: Any) -> str:
    if isinstance(a, np.ndarray):
        h = hashlib.sha256(f"{a.dtype}|{a.shape}|".encode())
        h.update(np.ascontiguousarray(a).tobytes())
        return h.hexdigest()[:24]
    return hashlib.sha256(a).hexdigest()[:24]


def photo(name: str, size: int | tuple[int, int]) -> np.ndarray:
    with Image.open(PHOTOS / name) as im:
        im = im.convert("RGB")
        wh = (size, size) if isinstance(size, int) else size
        return np.asarray(im.resize(wh, Image.BILINEAR))


def cifar_images(n: int) -> list[np.ndarray]:
    out = []
    for cls in sorted(os.listdir(CIFAR))[:n]:
        f = sorted((CIFAR / cls).iterdir())[0]
        with Image.open(f) as im:
            out.append(np.asarray(im.convert("RGB")))
    return out


def snap_corrupt(out: dict[str, str]) -> None:
    import corruptbench

    names = list(corruptbench.ALL_CORRUPTIONS)
    for profile, size in PROFILE_SIZES.items():
        imgs = cifar_images(3) if profile == "cifar" else [photo(n, size) for n in PHOTO_NAMES]
        for k, img in enumerate(imgs):
            for name in names:
                for sev in range(1, 6):
                    y = corruptbench.corrupt(img, name, sev, profile=profile, rng=k * 1000 + sev)
                    out[f"corrupt/{profile}/{k}/{name}/{sev}"] = digest(y)
    odd = photo(PHOTO_NAMES[0], (300, 200))
    gray = odd[:, :, 1].copy()
    rgba = np.dstack([odd, np.arange(odd.size // 3, dtype=np.uint32).reshape(odd.shape[:2]) % 251])
    rgba = rgba.astype(np.uint8)
    for name in names:
        for sev in (1, 3, 5):
            for profile in ("imagenet", "cifar", "auto"):
                y = corruptbench.corrupt(odd, name, sev, profile=profile, rng=7)
                out[f"corrupt/odd300x200/{profile}/{name}/{sev}"] = digest(y)
            out[f"corrupt/gray/{name}/{sev}"] = digest(corruptbench.corrupt(gray, name, sev, rng=3))
            out[f"corrupt/rgba/{name}/{sev}"] = digest(corruptbench.corrupt(rgba, name, sev, rng=3))
            g = np.random.default_rng(11)
            out[f"corrupt/generator/{name}/{sev}"] = digest(
                corruptbench.corrupt(photo(PHOTO_NAMES[1], 224), name, sev, rng=g)
            )


def snap_perturb(out: dict[str, str]) -> None:
    import corruptbench

    full = np.asarray(Image.open(PHOTOS / PHOTO_NAMES[0]).convert("RGB"))
    small = cifar_images(1)[0]
    for profile in PROFILE_SIZES:
        src = small if profile == "cifar" else full
        for name in corruptbench.ALL_PERTURBATIONS:
            diffs = (1, 2, 3) if "noise" in name else (1,)
            for d in diffs:
                seq = corruptbench.perturb(src, name, profile=profile, difficulty=d, rng=5)
                out[f"perturb/{profile}/{name}/{d}"] = digest(np.asarray(seq))


#: machine paths in outputs (temporary folders, the checkout) are replaced by these names
PLACES: dict[str, str] = {sys.prefix: "<venv>", str(REPO): "<repo>", str(REPO.parent): "<work>"}


def unplace(text: str) -> str:
    for path, name in PLACES.items():
        text = text.replace(path, name)
    return text


def file_digest(p: Path) -> str:
    if p.suffix in (".json", ".csv", ".md", ".txt"):
        text = unplace(p.read_text())
        if p.suffix == ".json":
            text = json.dumps(normalise(json.loads(text)), sort_keys=True)
        return digest(text.encode())
    return digest(p.read_bytes())


def tree_digests(root: Path, prefix: str, out: dict[str, str]) -> None:
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[f"{prefix}/{p.relative_to(root).as_posix()}"] = file_digest(p)


def normalise(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: normalise(v) for k, v in obj.items() if k not in VOLATILE_KEYS}
    if isinstance(obj, list):
        return [normalise(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 12)
    if isinstance(obj, str):
        return unplace(obj)
    return obj


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "corruptbench", *map(str, args)]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({res.returncode}):\n{res.stderr[-3000:]}")
    return res


def pipeline_sources(tmp: Path) -> tuple[Path, Path]:
    """The inputs of the pipelines under ``tmp``: ``(src, csrc)``, the photos in class folders
    (plus a truncated JPEG) and 4 CIFAR-10 test images per class."""
    src = tmp / "src"
    for n in PHOTO_NAMES:
        wnid = n.split("_")[0]
        (src / wnid).mkdir(parents=True, exist_ok=True)
        shutil.copy(PHOTOS / n, src / wnid / n)
    (src / "n01440764" / "broken.JPEG").write_bytes((PHOTOS / PHOTO_NAMES[0]).read_bytes()[:300])
    csrc = tmp / "csrc"
    for cls in sorted(os.listdir(CIFAR)):
        (csrc / cls).mkdir(parents=True)
        for f in sorted((CIFAR / cls).iterdir())[:4]:
            shutil.copy(f, csrc / cls / f.name)
    return src, csrc


def snap_builds(out: dict[str, Any], src: Path, csrc: Path, tmp: Path) -> dict[str, Path]:
    """make-c (JPEG tree, CIFAR npy) and make-p (MP4, CIFAR npy) trees, digested: the trees."""
    trees = {name: tmp / name for name in ("c-jpeg", "c-npy", "p-mp4", "p-npy")}
    cli("make-c", src, trees["c-jpeg"], "--workers", "1", "--seed", "3", "--no-progress")
    cli("make-c", csrc, trees["c-npy"], "--profile", "cifar", "--workers", "1", "--no-progress")
    subset = ("--perturbations", "gaussian_noise,rotate,snow,brightness", "--difficulty", "1,2")
    cli("make-p", src, trees["p-mp4"], "--workers", "1", "--no-progress", *subset)
    cifar = ("--profile", "cifar", "--workers", "1", "--no-progress", "--limit", "12")
    cli("make-p", csrc, trees["p-npy"], *cifar)
    for d in trees.values():
        tree_digests(d, d.name, out)
    return trees


def snap_evaluations(
    out: dict[str, Any], trees: dict[str, Path], src: Path, csrc: Path, r: Path
) -> None:
    """eval-c / eval-p of the trees (and on the fly) with real models: the normalised results."""
    quiet = ("--workers", "0", "--quiet")
    lite0 = ("--model", "efficientnet_lite0")
    r20 = ("--model", "cifar_resnet20", "--weights", RESNET20)
    cli(
        "eval-c",
        *lite0,
        "--data",
        trees["c-jpeg"],
        "--clean",
        src,
        "--out",
        r / "lite0-c.json",
        *quiet,
    )
    cli(
        "eval-c", *r20, "--data", trees["c-npy"], "--clean", csrc, "--out", r / "r20-c.json", *quiet
    )
    otf = ("--on-the-fly", csrc, "--corruptions", "fog", "snow")
    cli("eval-c", *r20, *otf, "--out", r / "r20-otf.json", *quiet)
    cli("eval-p", *lite0, "--data", trees["p-mp4"], "--out", r / "lite0-p.json", *quiet)
    cli("eval-p", *r20, "--data", trees["p-npy"], "--out", r / "r20-p.json", *quiet)
    for f in sorted(r.glob("*.json")):
        out[f"results/{f.name}"] = normalise(json.loads(unplace(f.read_text())))


def snap_reports(out: dict[str, Any], r: Path) -> None:
    """The Markdown and CSV reports of every results file under ``r``."""
    jsons = sorted(r.glob("*.json"))
    cli("report", *jsons, "--format", "md", "--out", r / "report.md")
    cli("report", *jsons, "--format", "csv", "--out", r / "report.csv")
    for f in ("report.md", "report.csv"):
        out[f"report/{f}"] = file_digest(r / f)


def snap_cli_commands(out: dict[str, Any], tmp: Path) -> None:
    """The CLI's corrupt (PNG, JPEG) and perturb (frames, npy) commands."""
    photo1, photo2 = PHOTOS / PHOTO_NAMES[1], PHOTOS / PHOTO_NAMES[2]
    cli("corrupt", photo1, tmp / "c.png", "-c", "frost", "-s", "4", "--seed", "2")
    cli("corrupt", photo1, tmp / "c.jpg", "-c", "spatter", "-s", "5", "--seed", "2")
    cli("perturb", photo2, tmp / "pt", "-p", "tilt", "--seed", "1")
    npy = ("-p", "shot_noise", "-d", "2", "-f", "npy", "--seed", "4")
    cli("perturb", photo2, tmp / "pt-npy", *npy)
    for f in ("c.png", "c.jpg"):
        out[f"cli/{f}"] = digest((tmp / f).read_bytes())
    tree_digests(tmp / "pt", "cli/pt", out)
    tree_digests(tmp / "pt-npy", "cli/pt-npy", out)


def snap_pipelines(out: dict[str, Any], tmp: Path) -> None:
    """Builds, evaluations, reports and CLI commands, in a temporary folder ``tmp``."""
    PLACES[str(tmp)] = "<tmp>"
    src, csrc = pipeline_sources(tmp)
    trees = snap_builds(out, src, csrc, tmp)
    r = tmp / "results"
    r.mkdir()
    snap_evaluations(out, trees, src, csrc, r)
    snap_reports(out, r)
    snap_cli_commands(out, tmp)


def record(path: Path, parts: list[str]) -> None:
    if not PHOTOS.is_dir():
        raise SystemExit(f"{PHOTOS} is absent: this script needs ../shared")
    out: dict[str, Any] = {}
    t0 = time.time()
    if "corrupt" in parts:
        snap_corrupt(out)
    if "perturb" in parts:
        snap_perturb(out)
    if "pipelines" in parts:
        with tempfile.TemporaryDirectory() as tmp:
            snap_pipelines(out, Path(tmp))
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"{len(out)} entries -> {path} ({time.time() - t0:.0f} s)")


def compare(a: Path, b: Path) -> int:
    x, y = json.loads(a.read_text()), json.loads(b.read_text())
    keys = sorted(set(x) | set(y))
    bad = [k for k in keys if x.get(k) != y.get(k)]
    for k in bad[:50]:
        print(f"DIFFERENT {k}: {str(x.get(k))[:200]} != {str(y.get(k))[:200]}")
    print(f"{len(keys)} entries, {len(bad)} different")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("--parts", default="corrupt,perturb,pipelines")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.out, args.parts.split(","))
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
