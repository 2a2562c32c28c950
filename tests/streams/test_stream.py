"""Streams over data: batches in order with their resets, the pixels of each sample, workers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import corruptbench.streams as S
from corruptbench.evaluation.layouts import OnTheFly
from streams.conftest import NAMES


def _ids(images: np.ndarray) -> list[str]:
    px = images.reshape(len(images), -1)[:, :3].astype(int)
    return [str(a * 256 + b) for a, b in px[:, :2]]


def test_batches_hold_the_samples_pixels_labels_and_resets(tiny_cifar: Path) -> None:
    st = S.stream(
        tiny_cifar,
        "cifar10_c",
        "reset_each_shift",
        order=NAMES[:2],
        severities=[5, 2],
        batch_size=128,
    )
    assert len(st) == 2 * 2 * 300
    batches = list(st.batches())
    # per block of 300: 128, 128, 44 (the last batch kept); batches never span blocks
    assert [len(b.labels) for b in batches] == [128, 128, 44] * 4
    assert [b.reset for b in batches] == [True, False, False, False, False, False] * 2
    seen = [s for b in batches for s in b.samples]
    assert seen == list(st.samples)
    for b in batches:
        assert _ids(b.images) == [s.id for s in b.samples]
        assert (b.images[:, 0, 0, 2] == [s.severity for s in b.samples]).all()
        assert b.labels.dtype == np.int64 and b.images.dtype == np.uint8
        assert b.labels.tolist() == [s.label for s in b.samples]
    labels = np.load(tiny_cifar / "labels.npy")
    assert all(labels[int(s.id)] == s.label for s in seen)


def test_resumed_batches_continue_where_they_stopped(tiny_cifar: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES, batch_size=100)
    every = list(st.batches())
    later = list(st.batches(start=4))
    assert [b.samples for b in later] == [b.samples for b in every[4:]]


def test_samples_view_indexes_like_a_list(tiny_cifar: Path) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", "mixed_domains", order=NAMES, num_examples=50)
    listed = list(st.samples)
    assert len(listed) == 50 and listed[-1] == st.samples[-1] == st.samples[49]
    assert st.samples[10:13] == listed[10:13]
    assert [s.index for s in listed] == list(range(50))
    assert {s.domain for s in listed} <= set(NAMES)


def test_on_the_fly_pixels_do_not_depend_on_workers() -> None:
    rs = np.random.RandomState(0)
    images = rs.randint(0, 256, size=(12, 32, 32, 3), dtype=np.uint8)
    data = OnTheFly(images, labels=np.arange(12) % 10)
    st = S.stream(data, "cifar10_c", order=["gaussian_noise", "fog"], batch_size=5)
    assert st.data.kind == "on-the-fly"
    one = list(st.batches())
    two = list(st.batches(workers=2))
    assert [b.images.tobytes() for b in one] == [b.images.tobytes() for b in two]
    assert not np.array_equal(one[0].images, images[[int(s.id) for s in one[0].samples]])


_CTRL_C = """
import os, signal, sys, threading, time
import corruptbench.streams as S
if __name__ == "__mp_main__":  # a worker: its start slowed, so that a Ctrl-C comes in it
    time.sleep(2)
if __name__ == "__main__":
    st = S.stream(sys.argv[1], "cifar10_c", order=["fog"], batch_size=10)
    signal.signal(signal.SIGINT, lambda *_: None)  # the driver's own reaction is the CLI's
    batches = st.batches(workers=2)
    threading.Timer(1.0, os.killpg, (0, signal.SIGINT)).start()  # while the workers start
    next(batches)
    os.killpg(0, signal.SIGINT)  # and while they wait for work
    time.sleep(2)  # time for a worker to print
    batches.close()  # the driver stops its workers
    print("stopped", file=sys.stderr)
"""


def test_ctrl_c_reaches_the_workers_and_none_prints_a_traceback(
    tiny_cifar: Path, tmp_path: Path
) -> None:
    """``eval-stream --workers 2`` stopped with Ctrl-C printed each SpawnPoolWorker's
    KeyboardInterrupt traceback above its one "interrupted" line: the terminal sends SIGINT to
    the whole process group. The workers leave it to their driver, which stops them, from the
    moment they start."""
    script = tmp_path / "ctrl_c.py"
    script.write_text(_CTRL_C)
    res = subprocess.run(
        [sys.executable, str(script), str(tiny_cifar)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # a group of its own: the signal stays out of pytest's
        timeout=300,
    )
    assert (res.returncode, res.stderr) == (0, "stopped\n"), res.stderr


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [({"batch_size": 0}, "batch_size must be"), ({"workers": -1}, "workers must be")],
)
def test_batches_refuse_bad_sizes(tiny_cifar: Path, kwargs: dict, needle: str) -> None:
    st = S.stream(tiny_cifar, "cifar10_c", order=NAMES[:1])
    with pytest.raises(S.StreamError, match=needle):
        next(st.batches(**kwargs))


def test_data_lacking_a_domain_is_refused_with_its_name(tiny_cifar: Path) -> None:
    with pytest.raises(S.StreamError, match=r"1 domain\(s\) of the order: snow"):
        S.stream(tiny_cifar, "cifar10_c", order=["fog", "snow"])


def test_an_unknown_corruption_on_the_fly_is_refused_up_front() -> None:
    """On the fly ``fog,foo_blur`` built a stream (its CSV had rows for foo_blur) and eval-stream
    failed only at foo_blur's first batch: refused when the stream is made, as a folder lacking
    the domain is, with the closest name."""
    data = OnTheFly(np.zeros((4, 32, 32, 3), np.uint8), labels=np.arange(4))
    with pytest.raises(S.StreamError) as info:
        S.stream(data, "cifar10_c", order=["fog", "foo_blur"])
    assert str(info.value) == (
        "order: unknown corruption 'foo_blur'; did you mean 'zoom_blur'? (on the fly, each "
        "domain is a corruption to apply)"
    )
    # a known name in another spelling goes, as ever
    assert S.stream(data, "cifar10_c", order=["fog", "Zoom-Blur"]).config.order[1] == "zoom_blur"


def test_imagenet_folder_lacking_listed_images_is_refused_naming_them(tmp_path: Path) -> None:
    from PIL import Image

    from corruptbench.formats.imagenet import wnid_to_index
    from corruptbench.formats.robustbench import robustbench_image_ids

    first = robustbench_image_ids()[0]  # n09468604/ILSVRC2012_val_00015253.JPEG
    (tmp_path / "fog" / "5" / first).parent.mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(tmp_path / "fog" / "5" / first)
    with pytest.raises(S.StreamError) as info:
        S.stream(tmp_path, "imagenet_c", order=["fog"])
    msg = str(info.value)
    assert "4,999 of the 5,000 images of the robustbench list are missing" in msg
    assert "n02823750/ILSVRC2012_val_00020685.JPEG" in msg and first not in msg
    st = S.stream(tmp_path, "imagenet_c", order=["fog"], image_list="data")
    assert [s.id for s in st.samples] == [first]
    assert st.samples[0].label == wnid_to_index("n09468604")
    assert next(st.batches()).images.shape == (1, 8, 8, 3)
    with pytest.raises(S.StreamError, match=r"lacks 1 cell\(s\) the stream needs .*: fog/3"):
        S.stream(tmp_path, "imagenet_c", order=["fog"], severities=[3], image_list="data")


def test_imagenet_stream_from_ids_alone_takes_the_lists() -> None:
    five = S.stream(None, "imagenet_c", order=["fog"])
    assert len(five) == 5000 and five.data.kind == "ids"
    fifty = S.stream(None, "imagenet_c", "correlated", order=["fog"])
    assert len(fifty) == 50000
    labels = [s.label for s in fifty.samples]
    assert labels == sorted(labels)
    with pytest.raises(S.StreamError, match="give data to read images"):
        next(five.batches())


def test_cifar10_c_bar_streams_its_ten_corruptions_in_order(tmp_path: Path) -> None:
    from corruptbench.streams.settings import ORDERS
    from streams.tta_reference import write_cifar_c

    names = list(ORDERS["cifar10_c_bar"])
    write_cifar_c(tmp_path, names, np.arange(20) % 10)
    st = S.stream(tmp_path, "cifar10_c_bar", num_examples=5)
    assert [b.name for b in st.blocks] == names and len(st) == 50
    assert st.config.batch_size == 200
