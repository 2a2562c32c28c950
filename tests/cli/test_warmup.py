"""``corruptbench warmup``: compile everything into the cache, say where and how big."""

from __future__ import annotations

import pytest

from corruptbench.cli import main


@pytest.mark.slow  # compiles every kernel when the cache is empty
def test_warmup_reports_the_cache(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("37 kernel signatures ready in ")
    assert out[1].startswith("cache: ") and " MB" in out[1]
    assert out[2].startswith("ahead-of-time kernels: ")
