"""CCC runs: the plan follows generate.py's choices; shards are the same for any worker count and
after kill -9; they read back with the original's WebDataset recipe; the stream equals them."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import numpy as np
import pytest

from corruptbench.ccc.generate import random_resized_crop, scan_source
from corruptbench.ccc.matrices import pair_key, save_matrices
from corruptbench.ccc.plan import corruptions_for, plan_run
from corruptbench.ccc.runs import RUN_FILE, CCCStream, generate
from corruptbench.errors import ArgumentError
from support import IMAGENET_SAMPLE, need_shared

REPO = Path(__file__).resolve().parents[2]


def synthetic_matrices(names, seed=0):
    """Accuracies falling with both severities, different per pair."""
    rng = np.random.default_rng(seed)
    grid = np.add.outer(np.arange(21), np.arange(21))
    return {
        pair_key(a, b): np.clip(76 - grid * rng.uniform(4, 7), 0, 100)
        for a in names
        for b in names
        if a != b
    }


MATRICES = synthetic_matrices(corruptions_for(40))
RUN = {"baseline": 20, "speed": 4, "seed": 44, "images": 12, "images_per_shard": 4}


def test_plan_follows_the_originals_choices():
    plan = plan_run(MATRICES, 20, 1000, 43, images=300_000)
    noises = corruptions_for(20)
    rnd = random.Random(43)  # generate.py: random.seed(seed), then its choice loops
    n1, n2 = rnd.choice(noises), rnd.choice(noises)
    while n2 == n1:
        n2 = rnd.choice(noises)
    first = plan.shards[0].steps[0]
    assert (first.n1, first.n2) == (n1, n2) and first.s2 == 0.0 and first.s1 > 0
    steps = [s for sh in plan.shards for s in sh.steps]
    assert len(plan.shards) == 12 and all(len(sh) == 25_000 for sh in plan.shards)
    for a, b in zip(steps, steps[1:]):
        if (a.n1, a.n2) != (b.n1, b.n2):  # a walk ends at s1 = 0; the next starts from its n2
            assert a.s1 == 0.0 and b.n1 == a.n2 and b.n2 != b.n1 and b.s2 == 0.0


def test_plan_speed_2000_shards_of_26000():
    plan = plan_run(MATRICES, 20, 2000, 44, images=60_000)
    assert [len(s) for s in plan.shards] == [26_000, 26_000, 26_000]


def test_plan_refusals():
    with pytest.raises(ArgumentError, match=r"matrix lacks 1 of the 156 corruption pairs"):
        plan_run({k: v for k, v in MATRICES.items() if k != "n1_fog_n2_snow"}, 20, 1000, 43)
    with pytest.raises(ArgumentError, match=r"n1_\w+_n2_\w+: baseline 90 cannot be held"):
        plan_run(MATRICES, 90, 1000, 43)
    with pytest.raises(ArgumentError, match="speed must be a positive int"):
        plan_run(MATRICES, 20, 0, 43)


def test_crop_is_224_and_seeded():
    torch = pytest.importorskip("torch")
    need_shared()
    from PIL import Image

    img = Image.open(IMAGENET_SAMPLE / "n01440764_tench.JPEG").convert("RGB")
    a = random_resized_crop(img, torch.Generator().manual_seed(3))
    b = random_resized_crop(img, torch.Generator().manual_seed(3))
    assert a.size == (224, 224) and np.array_equal(np.asarray(a), np.asarray(b))


def _whole_image_flip_crop(img, g):
    """torchvision's order, literally: flip the whole image, then draw, crop and resize."""
    import math

    import torch
    from PIL import Image

    if torch.rand(1, generator=g) < 0.5:
        img = img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    width, height = img.size
    log_ratio = torch.log(torch.tensor((3.0 / 4.0, 4.0 / 3.0)))
    for _ in range(10):
        area = height * width * torch.empty(1).uniform_(0.08, 1.0, generator=g).item()
        aspect = torch.exp(
            torch.empty(1).uniform_(float(log_ratio[0]), float(log_ratio[1]), generator=g)
        ).item()
        w = int(round(math.sqrt(area * aspect)))
        h = int(round(math.sqrt(area / aspect)))
        if 0 < w <= width and 0 < h <= height:
            i = int(torch.randint(0, height - h + 1, size=(1,), generator=g).item())
            j = int(torch.randint(0, width - w + 1, size=(1,), generator=g).item())
            return img.crop((j, i, j + w, i + h)).resize((224, 224), Image.Resampling.BILINEAR)
    raise AssertionError("no crop in ten tries: pick another seed")


def test_crop_flips_the_crop_as_torchvision_flips_the_image():
    # random_resized_crop mirrors the crop's box and flips the crop only: the same pixels and
    # the same draws as flipping the whole image first (both flips occur over these seeds)
    torch = pytest.importorskip("torch")
    need_shared()
    from PIL import Image

    img = Image.open(IMAGENET_SAMPLE / "n01530575_brambling.JPEG").convert("RGB")
    g1, g2 = torch.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    for _ in range(12):
        a = random_resized_crop(img, g1)
        assert np.array_equal(np.asarray(a), np.asarray(_whole_image_flip_crop(img, g2)))
    assert torch.rand(1, generator=g1).item() == torch.rand(1, generator=g2).item()


def _tars(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("serial_*.tar"))}


@pytest.fixture(scope="module")
def one_worker(tmp_path_factory):
    pytest.importorskip("torch")
    need_shared()
    out = tmp_path_factory.mktemp("ccc1")
    return generate(IMAGENET_SAMPLE, MATRICES, out, **RUN)


def test_run_layout_and_members(one_worker):
    tars = _tars(one_worker)
    assert list(tars) == ["serial_00000.tar", "serial_00001.tar", "serial_00002.tar"]
    with tarfile.open(one_worker / "serial_00001.tar") as t:
        names = t.getnames()
        info = t.extractfile("sample_0.info").read().decode()
    assert names[:3] == ["sample_0.info", "sample_0.input.jpg", "sample_0.output.cls"]
    assert len(names) == 12
    assert info.startswith("++dir++n") and "++n1++" in info and "++s2++" in info
    assert one_worker.name == "baseline_20_transition+speed_4_seed_44"


@pytest.mark.slow
def test_two_workers_same_bytes(one_worker, tmp_path):
    folder = generate(IMAGENET_SAMPLE, MATRICES, tmp_path, workers=2, **RUN)
    assert _tars(folder) == _tars(one_worker)


def test_reads_back_with_the_originals_recipe(one_worker):
    wds = pytest.importorskip("webdataset")
    url = str(one_worker / "serial_{00000..00002}.tar")
    # generate.py's isValid / eval.py: decode("pil"), to_tuple("input.jpg", "output.cls")
    ds = (
        wds.WebDataset(url, shardshuffle=False)
        .decode("pil")
        .to_tuple("input.jpg", "output.cls", "info")
    )
    rows = list(ds)
    assert len(rows) == 12
    source = scan_source(IMAGENET_SAMPLE)
    for img, label, info in rows:
        assert img.size == (224, 224) and isinstance(label, int)
        wnid = info.decode().split("++dir++")[1].split("++")[0]  # "info": no extension, bytes
        assert source.labels[[c for c, _ in source.names].index(wnid)] == label


def test_stream_equals_shards(one_worker):
    wds = pytest.importorskip("webdataset")
    url = str(one_worker / "serial_{00000..00002}.tar")
    ds = wds.WebDataset(url, shardshuffle=False).decode("rgb8").to_tuple("input.jpg", "output.cls")
    from_shards = list(ds)
    stream = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    batches = list(stream.batches(batch_size=5))
    assert [len(b.labels) for b in batches] == [5, 5, 2] and len(stream) == 12
    images = np.concatenate([b.images for b in batches])
    labels = np.concatenate([b.labels for b in batches])
    for k, (img, label) in enumerate(from_shards):
        assert np.array_equal(images[k], img) and labels[k] == label
    s = batches[0].samples[0]
    assert s.index == 0 and "+" in s.domain and "+" in s.severity and s.id.startswith("n")


def test_stream_csv_and_manifest(tmp_path):
    need_shared()
    stream = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    stream.to_csv(tmp_path / "s.csv")
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == "index,domain,severity,id,label" and len(lines) == 13
    assert stream.manifest()["total_images"] == 12


@pytest.mark.slow
def test_resumes_after_kill_9_to_identical_shards(one_worker, tmp_path):
    matrix = tmp_path / "m.npz"
    save_matrices(matrix, MATRICES)
    cmd = [
        sys.executable, "-m", "corruptbench", "ccc", "generate", "--data", str(IMAGENET_SAMPLE),
        "--matrix", str(matrix), "--out", str(tmp_path / "out"), "--baseline", "20",
        "--speed", "4", "--seed", "44", "--images", "12", "--shard-images", "4",
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    folder = tmp_path / "out" / one_worker.name
    deadline = time.time() + 120
    while time.time() < deadline and not (folder / "serial_00000.tar").exists():
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(_tars(folder)) < 3  # killed mid-run
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _tars(folder) == _tars(one_worker)
    assert not [p for p in folder.iterdir() if p.name.endswith(".cbtmp")]
    assert (folder / RUN_FILE).is_file()


def test_second_generate_into_the_same_run_is_refused(one_worker):
    from corruptbench.builders.lock import OutLock

    with OutLock(one_worker, one_worker, "another"):
        with pytest.raises(ValueError, match="another"):
            generate(IMAGENET_SAMPLE, MATRICES, one_worker.parent, **RUN)


def test_refuses_other_settings_in_the_same_folder(one_worker):
    with pytest.raises(ArgumentError, match="holds a CCC run with other settings"):
        generate(
            IMAGENET_SAMPLE,
            MATRICES,
            one_worker.parent,
            **{
                **RUN,
                "images_per_shard": 8,
                "images": 12,
                "speed": 4,
                "seed": 44,
                "draws": "reference",
            },
        )


def test_refuses_speed_above_source(tmp_path):
    need_shared()
    with pytest.raises(ArgumentError, match="speed 1000 exceeds the 500 images"):
        generate(IMAGENET_SAMPLE, MATRICES, tmp_path, baseline=20, speed=1000, seed=43, images=1000)
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_stream_workers_same_images():
    need_shared()
    stream = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    a = np.concatenate([b.images for b in stream.batches(batch_size=6)])
    b = np.concatenate([b.images for b in stream.batches(batch_size=6, workers=2)])
    assert np.array_equal(a, b)


def test_stream_samples_and_resume_start():
    need_shared()
    from corruptbench.streams.core import Batch, Sample

    stream = CCCStream.create(IMAGENET_SAMPLE, MATRICES, **RUN)
    samples = stream.samples
    assert len(samples) == 12 and isinstance(samples[5], Sample) and samples[5].index == 5
    assert [s.index for s in samples] == list(range(12)) and samples[-1] == samples[11]
    assert stream.num_batches(5) == 3
    whole = list(stream.batches(5))
    later = list(stream.batches(5, start=1))
    assert isinstance(whole[0], Batch) and [b.samples for b in later] == [
        b.samples for b in whole[1:]
    ]
    assert all(np.array_equal(a.images, b.images) for a, b in zip(later, whole[1:]))


def test_a_source_mixing_wnid_folders_with_others_is_refused(tmp_path):
    need_shared()
    from corruptbench.ccc.generate import scan_source

    for photo in sorted(IMAGENET_SAMPLE.iterdir())[:4]:
        wnid = photo.name.split("_")[0]
        (tmp_path / wnid).mkdir(exist_ok=True)
        (tmp_path / wnid / photo.name).write_bytes(photo.read_bytes())
    labels = scan_source(tmp_path).labels  # all wnids: ImageNet's indices
    (tmp_path / "misc").mkdir()
    (tmp_path / "misc" / "x.JPEG").write_bytes(photo.read_bytes())
    with pytest.raises(
        ArgumentError, match=r"mixes ImageNet wnid classes with 1 other\(s\) \('misc'\)"
    ):
        scan_source(tmp_path)
    from corruptbench.formats.imagenet import wnid_to_index

    wnids = sorted(p.name for p in tmp_path.iterdir() if p.name != "misc")
    assert sorted(set(labels)) == [wnid_to_index(w) for w in wnids]  # ImageNet's indices


def test_out_inside_data_is_refused_before_anything_is_written(tmp_path):
    need_shared()
    data = tmp_path / "data"
    data.mkdir()
    for photo in sorted(IMAGENET_SAMPLE.iterdir())[:8]:
        (data / photo.name).write_bytes(photo.read_bytes())
    for out in (data, data / "runs"):
        with pytest.raises(
            ArgumentError, match=r"^out .* must not be the --data folder .* or inside it"
        ):
            generate(data, MATRICES, out, **RUN)
    assert sorted(p.name for p in data.iterdir()) == sorted(
        p.name for p in sorted(IMAGENET_SAMPLE.iterdir())[:8]
    )
