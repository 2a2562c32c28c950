"""eval-c / eval-p on WebDataset shards give the numbers of the folder builds (make-c / make-p
shards, converted released trees, CIFAR)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

from builders.support import (  # noqa: E402
    BuildCache,
    make_source,
    run_c,
    shorten_shard,
    tamper_jpegs,
    write_batch,
)
from corruptbench.builders import build  # noqa: E402
from corruptbench.builders.convert import convert  # noqa: E402
from corruptbench.cli import main  # noqa: E402
from corruptbench.evaluation import EvalError, evaluate_c, evaluate_p  # noqa: E402
from corruptbench.evaluation.layouts import (  # noqa: E402
    ImageIds,
    ImageNetCFolder,
    Selection,
    WebDatasetC,
    open_c_layout,
)
from corruptbench.results import Results  # noqa: E402
from evaluation.support import fast_model, quiet  # noqa: E402

CELLS = dict(names=["brightness", "gaussian_noise", "defocus_blur"], levels=[1, 3, 5])


def _numbers(r: Results) -> dict[str, Any]:
    assert r.c is not None
    c = r.c
    return {
        "errors": c.errors,
        "counts": c.counts,
        "clean": (c.clean_error, c.clean_count),
        "ce": c.ce,
        "mce": (c.mce, c.relative_mce, c.mean_error, c.baseline),
        "images": r.dataset.num_images,
        "profile": r.dataset.profile,
    }


@pytest.fixture(scope="module")
def builds(c_builds: BuildCache, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One source built as a JPEG tree, as make-c shards (the run's shared builds, read-only)
    and converted from the tree."""
    folder = c_builds.c(12, **CELLS)
    conv = tmp_path_factory.mktemp("shard-eval") / "converted"
    convert(folder, conv, shard_size=4)
    return {
        "src": c_builds.source(12),
        "folder": folder,
        "made": c_builds.c(12, fmt="webdataset", shard_size=5, **CELLS),
        "conv": conv,
    }


def test_layout_detection(builds: dict[str, Path]) -> None:
    sel = Selection(["brightness"], [1])
    assert isinstance(open_c_layout(builds["made"], sel, 12, None), WebDatasetC)
    assert isinstance(open_c_layout(builds["conv"], sel, 12, None), WebDatasetC)
    assert isinstance(open_c_layout(builds["folder"], sel, 12, None), ImageNetCFolder)


@pytest.mark.parametrize("kind", ["made", "conv"])
def test_eval_c_on_shards_equals_the_folder_build(builds: dict[str, Path], kind: str) -> None:
    # 12 classes present -> a 12-output model gets labels by sorted class, as on the folder
    opts: dict[str, Any] = dict(clean=builds["src"], batch_size=5, run=quiet(workers=0))
    folder = evaluate_c(fast_model(12), builds["folder"], **opts)
    shards = evaluate_c(fast_model(12), builds[kind], **opts)
    assert _numbers(shards) == _numbers(folder)
    assert shards.dataset.layout == "webdataset" and shards.dataset.fingerprint
    errors = [e for row in folder.c.errors.values() for e in row if e is not None]  # type: ignore[union-attr]
    assert len(set(errors)) > 1  # a model that tells the images apart
    # the seeded subset of --limit is the same images
    lim = dict(limit=5, seed=3, run=quiet(workers=0))
    assert _numbers(evaluate_c(fast_model(12), builds[kind], **lim)) == _numbers(
        evaluate_c(fast_model(12), builds["folder"], **lim)
    )


def test_eval_c_cli_on_shards_and_resume(builds: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    args = ["eval-c", "--model", "efficientnet_lite0", "--data", str(builds["made"])]
    args += [
        "--corruptions",
        "gaussian_noise",
        "--severities",
        "3",
        "--limit",
        "4",
        "--workers",
        "0",
    ]
    assert main([*args, "--out", str(out), "--quiet"]) == 0
    doc = json.loads(out.read_text())
    assert doc["dataset"]["layout"] == "webdataset" and doc["counts"]["gaussian_noise"][2] == 4
    assert main([*args, "--out", str(out), "--quiet"]) == 0  # resumed: the cell is kept
    again = json.loads(out.read_text())
    assert again["run"]["resumed_cells"] == 1 and again["errors"] == doc["errors"]


def test_cifar_shards_equal_the_npy_build(tmp_path: Path) -> None:
    write_batch(tmp_path / "test_batch", 30)
    kw = dict(profile="cifar", names=["gaussian_noise", "contrast"], levels=[1, 2, 3, 4, 5])
    run_c(tmp_path / "test_batch", tmp_path / "npy", fmt="npy", **kw)
    run_c(tmp_path / "test_batch", tmp_path / "wds", fmt="webdataset", shard_size=7, **kw)
    convert(tmp_path / "npy", tmp_path / "conv", shard_size=8)
    opts: dict[str, Any] = dict(clean=tmp_path / "test_batch", run=quiet(workers=0))
    ref = _numbers(evaluate_c(fast_model(10, 32), tmp_path / "npy", **opts))
    assert ref["mce"][3] == "uniform"
    for d in ("wds", "conv"):
        assert _numbers(evaluate_c(fast_model(10, 32), tmp_path / d, **opts)) == ref
    lim = dict(limit=9, run=quiet(workers=0))
    ref_lim = _numbers(evaluate_c(fast_model(10, 32), tmp_path / "npy", **lim))
    assert _numbers(evaluate_c(fast_model(10, 32), tmp_path / "wds", **lim)) == ref_lim


def _p_numbers(r: Results) -> dict[str, Any]:
    assert r.p is not None
    return {
        "fp": r.p.flip_probability,
        "t5d": r.p.top5_distance,
        "zipf": r.p.zipf_distance,
        "n": r.p.num_sequences,
    }


def test_eval_p_on_mp4_shards_equals_the_folder_build(tmp_path: Path) -> None:
    pytest.importorskip("av")
    src = make_source(tmp_path, 4)
    kw: dict[str, Any] = dict(
        profile="imagenet", names=["translate", "gaussian_noise"], progress=False
    )
    build("p", src, tmp_path / "mp4", fmt="mp4", levels=[1, 2], **kw)
    build("p", src, tmp_path / "wds", fmt="webdataset", levels=[1, 2], shard_size=3, **kw)
    for difficulty in (1, 2):
        opts: dict[str, Any] = dict(difficulty=difficulty, run=quiet(workers=0))
        folder = evaluate_p(fast_model(), tmp_path / "mp4", **opts)
        shards = evaluate_p(fast_model(), tmp_path / "wds", **opts)
        assert _p_numbers(shards) == _p_numbers(folder) and shards.dataset.layout == "webdataset"
        content = folder.dataset.content_fingerprint
        assert content and shards.dataset.content_fingerprint == content  # the same MP4 bytes
        assert set(shards.p.flip_probability) == {"translate", "gaussian_noise"}  # type: ignore[union-attr]
    lim: dict[str, Any] = dict(limit=2, seed=1, run=quiet(workers=0))
    assert _p_numbers(evaluate_p(fast_model(), tmp_path / "wds", **lim)) == _p_numbers(
        evaluate_p(fast_model(), tmp_path / "mp4", **lim)
    )


def test_eval_p_on_cifar_shards_equals_the_npy_build(tmp_path: Path) -> None:
    write_batch(tmp_path / "test_batch", 6)
    kw: dict[str, Any] = dict(
        profile="cifar", names=["brightness", "shot_noise"], levels=[1], progress=False
    )
    build("p", tmp_path / "test_batch", tmp_path / "npy", fmt="npy", **kw)
    build("p", tmp_path / "test_batch", tmp_path / "wds", fmt="webdataset", shard_size=4, **kw)
    opts: dict[str, Any] = dict(run=quiet(workers=0))
    assert _p_numbers(evaluate_p(fast_model(10, 32), tmp_path / "wds", **opts)) == _p_numbers(
        evaluate_p(fast_model(10, 32), tmp_path / "npy", **opts)
    )


def test_shard_folders_that_do_not_fit(builds: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(EvalError, match="use eval-c"):
        evaluate_p(fast_model(), builds["made"], run=quiet(workers=0))
    with pytest.raises(EvalError, match="none of the requested cells"):
        evaluate_c(fast_model(12), builds["made"], corruptions=["fog"], run=quiet(workers=0))
    broken = tmp_path / "broken"
    shutil.copytree(builds["made"], broken)
    (broken / "brightness-3-000001.tar").unlink()
    with pytest.raises(EvalError, match="listed in shards.json but missing"):
        evaluate_c(fast_model(12), broken, corruptions=["brightness"], run=quiet(workers=0))
    (broken / "brightness-3-000001.tar").write_bytes(b"not a tar" * 100)
    with pytest.raises(EvalError, match="not a readable tar shard"):
        evaluate_c(fast_model(12), broken, corruptions=["brightness"], run=quiet(workers=0))
    index = json.loads((broken / "shards.json").read_text())
    del index["cells"][0]["shards"][0]["sha256"]
    (broken / "shards.json").write_text(json.dumps(index))
    with pytest.raises(EvalError, match="malformed shard index"):
        evaluate_c(fast_model(12), broken, run=quiet(workers=0))
    # requested cells absent from the shards are reported as missing
    res = evaluate_c(
        fast_model(12), builds["made"], corruptions=["brightness", "fog"], run=quiet(workers=0)
    )
    assert res.c is not None and res.c.errors["fog"] == [None] * 5
    assert res.c.errors["brightness"][1] is None and res.c.errors["brightness"][0] is not None


@pytest.mark.parametrize("kind", ["made", "conv"])
def test_listed_images_select_the_samples_of_the_folder_build(
    builds: dict[str, Path], kind: str
) -> None:
    folder = ImageNetCFolder.open(builds["folder"], Selection(**CELLS), 12, None)
    keys = sorted(
        f"{Path(p).parent.name}/{Path(p).name}" for _r, _l, p in folder.items(folder.cells[0])
    )
    images = ImageIds(frozenset(keys[::3]), "protocol x")
    listed = ImageNetCFolder.open(builds["folder"], Selection(**CELLS, images=images), 12, None)
    shards = WebDatasetC.open(builds[kind], Selection(**CELLS, images=images), 12, None)
    assert shards.cells == listed.cells and shards.images_per_cell == len(keys[::3]) == 4
    for cell in listed.cells:
        want, got = listed.items(cell), shards.items(cell)
        assert [lab for _r, lab, _p in got] == [lab for _r, lab, _p in want]
        for (r1, _l1, p1), (r2, _l2, p2) in zip(want, got):
            assert np.array_equal(r1.read(p1), r2.read(p2))  # the same JPEG, decoded
    assert (
        "protocol x: its 4 listed images of each cell (8 other images of a cell not "
        "evaluated)" in shards.notes
    )
    gone = ImageIds(frozenset([*keys[:2], "n00000000/gone.JPEG"]), "protocol x")
    with pytest.raises(EvalError, match="1 of the 3 images of protocol x are missing"):
        WebDatasetC.open(builds[kind], Selection(**CELLS, images=gone), 12, None)


@pytest.fixture(scope="module")
def sw(c_builds: BuildCache) -> Path:
    """The issue's scenario, smaller: 12 photos, one cell in 3 shards of 4 (read-only: copy it)."""
    return c_builds.c(12, fmt="webdataset", shard_size=4, names=["brightness"], levels=[1])


def test_eval_c_refuses_shards_changed_in_place(sw: Path, tmp_path: Path) -> None:
    # issue 22 item 1: 800 bytes overwritten inside each JPEG of one shard (a valid tar of the
    # same size): the old code evaluated the damaged images and returned a plausible error
    data = tmp_path / "sw"
    shutil.copytree(sw, data)
    opts: dict[str, Any] = dict(corruptions=["brightness"], severities=[1], run=quiet(workers=0))
    good = evaluate_c(fast_model(12), data, **opts)
    assert good.c is not None and good.c.counts["brightness"][0] == 12
    tamper_jpegs(data / "brightness-1-000001.tar")
    with pytest.raises(EvalError) as err:
        evaluate_c(fast_model(12), data, **opts)
    msg = str(err.value)
    assert msg.startswith(f"{data / 'brightness-1-000001.tar'}: sha256 ")
    assert "shards.json says" in msg and "re-run the make-c / convert command" in msg
    assert any("SHA-256 of 3 shards" in n for n in good.dataset.notes)
    # storage the user trusts: sizes and counts only, as asked (the note says so)
    trusted = evaluate_c(fast_model(12), data, verify_shards="count", **opts)
    assert any("SHA-256 not checked" in n for n in trusted.dataset.notes)
    with pytest.raises(EvalError, match="verify_shards must be 'hash' or 'count', got 'none'"):
        evaluate_c(fast_model(12), data, verify_shards="none", **opts)


@pytest.mark.parametrize("verify", ["hash", "count"])
def test_eval_c_refuses_a_shortened_shard(sw: Path, tmp_path: Path, verify: str) -> None:
    # issue 22 item 1: the shard rewritten with 2 of its 4 samples; the old code counted 10 images
    data = tmp_path / "sw"
    shutil.copytree(sw, data)
    shorten_shard(data / "brightness-1-000001.tar", 2)
    kw: dict[str, Any] = {} if verify == "hash" else {"verify_shards": verify}  # hash: the default
    with pytest.raises(EvalError) as err:
        evaluate_c(fast_model(12), data, run=quiet(workers=0), **kw)
    assert str(err.value).startswith(
        f"{data / 'brightness-1-000001.tar'}: 2 samples, shards.json says 4: the shard is not the one"
    )


def test_cli_trust_shards(sw: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "sw"
    shutil.copytree(sw, data)
    tamper_jpegs(data / "brightness-1-000002.tar")
    args = ["eval-c", "--model", "efficientnet_lite0", "--random-weights", "--data", str(data)]
    args += ["--corruptions", "brightness", "--severities", "1", "--workers", "0", "--quiet"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "brightness-1-000002.tar: sha256" in err and "Traceback" not in err
    assert main([*args, "--trust-shards"]) == 0


def test_hostile_shard_names_and_members(sw: Path, tmp_path: Path) -> None:
    # issue 22 item 10: shards.json naming files outside --data, tar members with '..'
    outside = tmp_path / "x.tar"
    shutil.copy(sw / "brightness-1-000000.tar", outside)
    for name in ("../x.tar", str(outside), "sub/../../x.tar"):
        data = tmp_path / f"d{abs(hash(name))}"
        shutil.copytree(sw, data)
        index = json.loads((data / "shards.json").read_text())
        index["cells"][0]["shards"][0]["name"] = name
        (data / "shards.json").write_text(json.dumps(index))
        with pytest.raises(EvalError, match=r"shard name .* is not a plain \.tar file name"):
            evaluate_c(fast_model(12), data, run=quiet(workers=0))
    from corruptbench.formats.webdataset import TarShardWriter, iter_samples

    data = tmp_path / "evil"
    shutil.copytree(sw, data)
    tar = data / "brightness-1-000000.tar"
    samples = list(iter_samples(tar))
    w = TarShardWriter(tar.with_suffix(".new"), tar.name)
    for i, (key, mem) in enumerate(samples):
        w.add("../../evil" if i == 1 else key, mem)
    w.close()
    tar.with_suffix(".new").replace(tar)
    with pytest.raises(EvalError, match=r"tar member '\.\./\.\./evil\.\w+' has an unsafe name"):
        evaluate_c(fast_model(12), data, verify_shards="count", run=quiet(workers=0))


@pytest.mark.parametrize("bad", [b"8.5", b"-2", b"x"])
def test_a_cls_member_that_is_not_a_class_index(sw: Path, tmp_path: Path, bad: bytes) -> None:
    # issue 22 item 3, in shards: int(b"8.5") raised a bare ValueError; b"-2" counted as a class
    from corruptbench.formats.webdataset import TarShardWriter, iter_samples, shard_stats

    data = tmp_path / "sw"
    shutil.copytree(sw, data)
    tar = data / "brightness-1-000002.tar"
    samples = list(iter_samples(tar))
    w = TarShardWriter(tar.with_suffix(".new"), tar.name)
    for i, (key, mem) in enumerate(samples):
        w.add(key, {**mem, "cls": bad} if i == 2 else mem)
    w.close()
    tar.with_suffix(".new").replace(tar)
    index = json.loads((data / "shards.json").read_text())  # an index that agrees with it
    index["cells"][0]["shards"][2] = shard_stats(tar).to_dict()
    (data / "shards.json").write_text(json.dumps(index))
    key = samples[2][0]
    with pytest.raises(EvalError, match=f"sample '{key}' has class .* must be a class index"):
        evaluate_c(fast_model(12), data, run=quiet(workers=0))


def test_a_folder_and_its_shards_are_one_dataset(builds: dict[str, Path]) -> None:
    # issue 22 item 15: results on a folder build and on its byte-identical shards were reported
    # as "from 2 different datasets"
    from corruptbench.report.baseline import dataset_mismatches, unique_labels

    opts: dict[str, Any] = dict(clean=builds["src"], run=quiet(workers=0))
    folder = evaluate_c(fast_model(12, name="a"), builds["folder"], **opts)
    made = evaluate_c(fast_model(12, name="b"), builds["made"], **opts)
    conv = evaluate_c(fast_model(12, name="c"), builds["conv"], **opts)
    assert folder.dataset.fingerprint != made.dataset.fingerprint  # other containers
    content = folder.dataset.content_fingerprint
    assert (
        content and made.dataset.content_fingerprint == conv.dataset.content_fingerprint == content
    )
    assert dataset_mismatches(unique_labels([folder, made, conv])) == []
    # other images (a subset) are other data, in any container
    fewer = evaluate_c(fast_model(12, name="d"), builds["made"], limit=5, **opts)
    assert fewer.dataset.content_fingerprint != content
    (line,) = dataset_mismatches(unique_labels([folder, fewer]))
    assert line.startswith("the ImageNet-C results come from 2 different datasets")
    # a file without a content fingerprint (an older version): compared by fingerprint
    old = Results.from_dict({**folder.to_dict(), "dataset": {"fingerprint": "old"}}, "old.json")
    assert len(dataset_mismatches(unique_labels([old, made]))) == 1
