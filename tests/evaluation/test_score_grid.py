"""``evaluate_grid``: a user's score function over the cells of real make-c builds (tree, ImageNet
folders, WebDataset shards), P / mPC / rPC, resuming after a crash, and the errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from builders.support import make_source
from corruptbench import evaluate_grid
from corruptbench.builders import build, build_tree
from corruptbench.corruptions import BENCHMARK_CORRUPTIONS
from corruptbench.datasets.webdataset import iter_samples
from corruptbench.errors import ArgumentError
from corruptbench.evaluation import EvalError
from corruptbench.metrics import summarize_scores
from corruptbench.results import Results
from support import IMAGENET_SAMPLE, need_shared

NAMES = ["gaussian_noise", "brightness", "contrast"]  # reference order


def mean_pixel(paths) -> float:
    """The score of the tests: the mean pixel value of the images / 255 (a number every cell
    has its own of, read from the cell's real files)."""
    total = count = 0.0
    for p in paths:
        with Image.open(p) as im:
            arr = np.asarray(im.convert("RGB"), dtype=np.float64)
        total += arr.sum()
        count += arr.size
    return total / count / 255.0


def image_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png"))


def folder_score(root: Path) -> float:
    assert isinstance(root, Path) and root.is_dir()
    return mean_pixel(image_files(root))


def shard_score(target) -> float:
    if isinstance(target, Path):  # the clean folder
        return folder_score(target)
    assert isinstance(target, tuple) and all(p.suffix == ".tar" for p in target)
    import io

    blobs = [io.BytesIO(s["jpg"]) for shard in target for _key, s in iter_samples(shard)]
    return mean_pixel(blobs)


@pytest.fixture(scope="module")
def coco(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A COCO-style root (2 real photos + annotations) and its make-c --layout tree build."""
    need_shared()
    base = tmp_path_factory.mktemp("grid")
    src = base / "coco"
    (src / "val2017").mkdir(parents=True)
    (src / "annotations").mkdir()
    for i, f in enumerate(sorted(IMAGENET_SAMPLE.iterdir())[:2]):
        with Image.open(f) as im:
            im.convert("RGB").resize((96, 72)).save(src / "val2017" / f"{i:012d}.jpg", quality=90)
    (src / "annotations" / "instances_val2017.json").write_text('{"images": []}')
    out = base / "coco-c"
    s = build_tree(src, out, corruptions=NAMES, copy_files=["annotations"])
    assert s.exit_code == 0
    return src, out


def test_tree_cells_get_their_dataset_root(coco: tuple[Path, Path], tmp_path: Path) -> None:
    src, data = coco
    seen: list[Path] = []

    def score(root: Path) -> float:
        seen.append(root)
        assert (root / "annotations" / "instances_val2017.json").is_file()  # a complete root
        return folder_score(root)

    out = tmp_path / "r.json"
    res = evaluate_grid(
        score, data, clean=src, partial=True, metric="mean pixel", out=out, progress=False
    )
    assert seen == [src] + [data / n / str(s) for n in NAMES for s in range(1, 6)]
    grid = {n: [folder_score(data / n / str(s)) for s in range(1, 6)] for n in NAMES}
    want = summarize_scores(grid, folder_score(src), partial=True)
    assert res.score is not None and res.score.summary == want
    assert res.mpc == want.mpc and res.rpc == want.rpc and res.clean_score == want.clean
    assert res.model_id == "score" and res.score.metric == "mean pixel"
    assert res.dataset.layout == "tree" and res.dataset.path == str(data)
    assert Results.from_json(out).to_text() == res.to_text()
    run = json.loads(out.read_text())["run"]
    assert run["clean"] == str(src) and set(run["seconds"]) == {"clean"} | {
        f"{n}/{s}" for n in NAMES for s in range(1, 6)
    }


def test_imagenet_folders_and_shards_give_the_same_grid(tmp_path: Path) -> None:
    src = make_source(tmp_path, n=3)
    kw = dict(profile="imagenet", names=NAMES[:2], levels=[1, 2, 3, 4, 5], seed=0, workers=1)
    build("c", src, tmp_path / "jpeg", fmt="jpeg", progress=False, **kw)  # type: ignore[arg-type]
    build("c", src, tmp_path / "wds", fmt="webdataset", progress=False, **kw)  # type: ignore[arg-type]
    a = evaluate_grid(folder_score, tmp_path / "jpeg", clean=0.5, partial=True, progress=False)
    b = evaluate_grid(shard_score, tmp_path / "wds", clean=0.5, partial=True, progress=False)
    assert a.dataset.layout == "imagenet" and b.dataset.layout == "webdataset"
    assert a.score is not None and b.score is not None
    assert a.score.scores == b.score.scores  # the shards hold the folder build's JPEG bytes
    assert a.clean_score == b.clean_score == 0.5


def test_resume_after_a_crash_scores_only_the_rest(coco: tuple[Path, Path], tmp_path: Path) -> None:
    src, data = coco
    calls: list[Path] = []
    crash_at = [4]

    def flaky(root: Path) -> float:
        calls.append(root)
        if len(calls) == crash_at[0]:
            raise RuntimeError("the detector ran out of memory")
        return folder_score(root)

    out = tmp_path / "r.json"
    kw = dict(clean=src, partial=True, name="det", out=out, progress=False, log=None)
    with pytest.raises(RuntimeError, match="out of memory"):
        evaluate_grid(flaky, data, **kw)  # type: ignore[arg-type]
    half = Results.from_json(out)
    assert half.score is not None and not half.score.complete and half.mpc is None
    assert len(half.score.missing_cells()) == 16 - 3  # clean + 2 cells were finished
    calls.clear()
    crash_at[0] = 0  # fixed
    lines: list[str] = []
    res = evaluate_grid(flaky, data, **{**kw, "log": lines.append})  # type: ignore[arg-type]
    assert len(calls) == 13 and src not in calls and data / "gaussian_noise" / "1" not in calls
    assert lines[0] == f"  3 of 16 cells already scored in {out}"
    full = evaluate_grid(folder_score, data, **{**kw, "out": None})  # type: ignore[arg-type]
    assert res.score == full.score  # the same numbers as one uninterrupted run
    calls.clear()
    again = evaluate_grid(flaky, data, **kw)  # type: ignore[arg-type]
    assert calls == [] and again.score == full.score  # nothing left to do


def test_resume_refuses_other_results(coco: tuple[Path, Path], tmp_path: Path) -> None:
    src, data = coco
    out = tmp_path / "r.json"
    kw = dict(clean=0.7, partial=True, out=out, progress=False, log=None)
    evaluate_grid(folder_score, data, name="a", **kw)  # type: ignore[arg-type]
    for change in ({"name": "b"}, {"name": "a", "metric": "AP"}):
        with pytest.raises(EvalError, match="holds other results") as info:
            evaluate_grid(folder_score, data, **{**kw, **change})  # type: ignore[arg-type]
        assert "pass overwrite to replace" in str(info.value)
    res = evaluate_grid(folder_score, data, name="b", overwrite=True, **kw)  # type: ignore[arg-type]
    assert Results.from_json(out).model_id == "b" == res.model_id
    out.write_text("{not json")
    with pytest.raises(EvalError, match=r"not valid JSON .*; pass overwrite"):
        evaluate_grid(folder_score, data, name="b", **kw)  # type: ignore[arg-type]


def test_bad_scores_stop_the_run_and_keep_the_finished_cells(
    coco: tuple[Path, Path], tmp_path: Path
) -> None:
    src, data = coco
    out = tmp_path / "r.json"
    kw = dict(clean=src, partial=True, out=out, progress=False, log=None)

    def nan_at_contrast(root: Path) -> float:
        return float("nan") if root.parent.name == "contrast" else folder_score(root)

    with pytest.raises(EvalError, match=r"^score\(\) of contrast/1 is NaN; nothing was recorded"):
        evaluate_grid(nan_at_contrast, data, **kw)  # type: ignore[arg-type]
    kept = Results.from_json(out).score
    assert kept is not None and kept.scores["brightness"] == [
        folder_score(data / "brightness" / str(s)) for s in range(1, 6)
    ]
    assert kept.scores["contrast"] == [None] * 5
    calls: list[Path] = []

    def zero_clean(root: Path) -> float:
        calls.append(root)
        return 0.0

    with pytest.raises(EvalError, match=r"score\(\) of clean returned 0.0: the clean score is 0"):
        evaluate_grid(zero_clean, data, **{**kw, "out": None})  # type: ignore[arg-type]
    assert calls == [src]  # stopped before the corrupted cells
    with pytest.raises(EvalError, match=r"score\(\) of clean must be a number, got 'x'"):
        evaluate_grid(lambda r: "x", data, **{**kw, "out": None})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^the clean score is 0"):
        evaluate_grid(folder_score, data, **{**kw, "clean": 0, "out": None})  # type: ignore[arg-type]


def test_scores_may_be_numpy_or_torch_scalars(coco: tuple[Path, Path]) -> None:
    src, data = coco
    res = evaluate_grid(
        lambda r: np.float32(0.25) if r == src else np.array(0.125),
        data,
        clean=src,
        corruptions=["brightness"],
        partial=True,
        progress=False,
        log=None,
    )
    assert res.model_id == "model" and res.rpc == 0.5  # a lambda has no usable name
    assert res.score is not None and list(res.score.scores) == ["brightness"]


def test_errors_before_the_first_call(coco: tuple[Path, Path], tmp_path: Path) -> None:
    src, data = coco

    def never(_root: Path) -> float:
        raise AssertionError("no cell may be scored")

    kw = dict(clean=src, progress=False, log=None)
    with pytest.raises(ArgumentError, match=r"no scores for 12 of the 15 .*\(pass partial for"):
        evaluate_grid(never, data, **kw)  # type: ignore[arg-type]
    with pytest.raises(EvalError, match=r"coco-c has no cells of fog$"):
        evaluate_grid(never, data, corruptions=["fog"], partial=True, **kw)  # type: ignore[arg-type]
    with pytest.raises(EvalError, match=r"unknown corruption 'fogg'"):
        evaluate_grid(never, data, corruptions=["fogg"], partial=True, **kw)  # type: ignore[arg-type]
    with pytest.raises(EvalError, match=r"clean '.*absent' does not exist"):
        evaluate_grid(never, data, partial=True, clean=tmp_path / "absent", progress=False)
    with pytest.raises(EvalError, match=r"data '.*nowhere' is not a folder"):
        evaluate_grid(never, tmp_path / "nowhere", **kw)  # type: ignore[arg-type]
    # a hole in a copy of the build, and an unfinished build
    copy = tmp_path / "copy"
    shutil.copytree(data, copy, symlinks=True)
    shutil.rmtree(copy / "contrast" / "3")
    with pytest.raises(EvalError, match=r"the cell folder contrast/3 is missing"):
        evaluate_grid(never, copy, partial=True, **kw)  # type: ignore[arg-type]
    manifest = json.loads((copy / "manifest.json").read_text())
    (copy / "manifest.json").write_text(json.dumps({**manifest, "status": "running"}))
    with pytest.raises(EvalError, match=r"the make-c build is 'running', not complete"):
        evaluate_grid(never, copy, partial=True, **kw)  # type: ignore[arg-type]


def test_a_full_benchmark_folder_without_manifest(tmp_path: Path) -> None:
    """A downloaded COCO-C style folder: <corruption>/<severity>/ sub-folders, no manifest."""
    for n in BENCHMARK_CORRUPTIONS:
        for s in range(1, 6):
            (tmp_path / "c" / n / str(s)).mkdir(parents=True)
    (tmp_path / "c" / "not_a_corruption" / "1").mkdir(parents=True)
    (tmp_path / "clean").mkdir()

    def score(root: Path) -> float:  # a known answer: severity s of the k-th corruption
        if root.name == "clean":
            return 40.0
        return 40.0 - BENCHMARK_CORRUPTIONS.index(root.parent.name) - 5 * int(root.name)

    res = evaluate_grid(score, tmp_path / "c", clean=tmp_path / "clean", progress=False, log=None)
    assert res.dataset.layout == "folder" and res.score is not None and not res.score.partial
    # mPC = 40 - mean(k) - 5 * mean(s) = 40 - 7 - 15
    assert res.mpc == 18.0 and res.rpc == 18.0 / 40.0 and res.clean_score == 40.0
    assert res.score.summary is not None
    assert res.score.summary.severity_means == (28.0, 23.0, 18.0, 13.0, 8.0)


def test_quiet_when_progress_is_off_and_no_resume_line_without_out(
    coco: tuple[Path, Path], capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 12: progress=False printed a line per cell (76 on a full grid), and a clean
    score given as a number printed "1 cells already scored in None"."""
    _src, data = coco
    res = evaluate_grid(folder_score, data, clean=0.9, partial=True, progress=False)
    assert res.mpc is not None
    assert capfd.readouterr().err == ""
    lines: list[str] = []
    evaluate_grid(folder_score, data, clean=0.9, partial=True, progress=False, log=lines.append)
    assert len(lines) == 3 * 5 and not any("already scored" in line for line in lines)
    assert all(
        line.split()[0] in {f"{n}/{s}" for n in NAMES for s in range(1, 6)} for line in lines
    )
    evaluate_grid(folder_score, data, clean=0.9, partial=True, progress="lines", log="auto")
    import re

    err = capfd.readouterr().err  # progress on: the cell lines are printed
    assert len(re.findall(r"(?m)^  \w+/\d +score \d", err)) == 3 * 5
    with pytest.raises(TypeError, match="log must be a callable"):
        evaluate_grid(folder_score, data, clean=0.9, partial=True, log="loud")


def test_another_suite_is_refused_by_name(coco: tuple[Path, Path], tmp_path: Path) -> None:
    """Issue 33 item 12: ImageNet-C-bar cells were "unknown corruption"; evaluate_grid says it
    covers ImageNet-C's suite, for a folder without a manifest and for a make-c build."""
    for s in range(1, 6):
        (tmp_path / "bar" / "blue_noise_sample" / str(s)).mkdir(parents=True)
    kw = dict(clean=0.5, partial=True, progress=False, log=None)
    message = r"holds cells of the 'cbar' suite \(blue_noise_sample\): evaluate_grid covers Imag"
    with pytest.raises(EvalError, match=message):
        evaluate_grid(folder_score, tmp_path / "bar", **kw)  # type: ignore[arg-type]
    _src, data = coco
    copy = tmp_path / "copy"
    shutil.copytree(data, copy, symlinks=True)
    (copy / "contrast").rename(copy / "blue_noise_sample")
    manifest = json.loads((copy / "manifest.json").read_text())
    names = manifest["params"]["corruptions"]
    manifest["params"]["corruptions"] = [
        "blue_noise_sample" if n == "contrast" else n for n in names
    ]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(EvalError, match=message):
        evaluate_grid(folder_score, copy, **kw)  # type: ignore[arg-type]


def test_minus_one_from_the_score_function_is_refused(coco: tuple[Path, Path]) -> None:
    """Issue 33 item 9: pycocotools' stats hold -1 for an undefined metric; never a score."""
    _src, data = coco
    kw = dict(clean=0.5, corruptions=["brightness"], partial=True, progress=False, log=None)
    with pytest.raises(EvalError, match=r"score\(\) of brightness/1 is -1, COCOeval's mark"):
        evaluate_grid(lambda r: -1.0, data, **kw)  # type: ignore[arg-type]
