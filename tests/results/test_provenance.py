"""What a results file records about the run (corruptbench.results.provenance): the versions of the
libraries that can change a number, and the creation time."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import platform
import subprocess
import sys

import cv2
import numpy as np
import PIL
import pytest
import scipy

import corruptbench
from corruptbench.results.provenance import library_versions, now


def test_versions_of_what_can_change_a_number() -> None:
    v = library_versions()
    assert v["corruptbench"] == corruptbench.__version__
    assert v["python"] == platform.python_version()
    assert v["numpy"] == np.__version__ and v["scipy"] == scipy.__version__
    assert v["opencv"] == cv2.__version__ and v["pillow"] == PIL.__version__
    assert list(v)[:2] == ["corruptbench", "python"]
    assert all(isinstance(x, str) and x for x in v.values())


def test_optional_libraries_only_once_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    # scikit-image is recorded when something imported it (the reference formulas), not otherwise
    import skimage

    monkeypatch.delitem(sys.modules, "skimage")
    assert "scikit-image" not in library_versions()
    monkeypatch.setitem(sys.modules, "skimage", skimage)
    assert library_versions()["scikit-image"] == skimage.__version__


def test_torch_recorded_even_before_it_is_imported() -> None:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed (the [torch] extra)")
    code = (
        "import sys, json; from corruptbench.results.provenance import library_versions;"
        "before = 'torch' in sys.modules; v = library_versions();"
        "print(json.dumps([before, v.get('torch'), sys.modules['torch'].__version__]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, recorded, version = json.loads(out.stdout.splitlines()[-1])
    assert not before and recorded == version


def test_now_is_utc_to_the_second() -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    stamp = now()
    after = dt.datetime.now(dt.timezone.utc)
    parsed = dt.datetime.fromisoformat(stamp)
    assert stamp.endswith("+00:00") and "." not in stamp and len(stamp) == 25
    assert parsed.utcoffset() == dt.timedelta(0)
    assert before <= parsed <= after
