"""corruptbench in a real Jupyter kernel (nbclient + ipykernel, no browser, no network): the
progress bar is an HTML display updated in place, and a Results shows its summary card and CE
figure inline (``_repr_html_``), its short repr as text."""

from __future__ import annotations

import os

import pytest

nbformat = pytest.importorskip(
    "nbformat", reason="the notebook test needs nbformat (the [dev] extra)"
)
nbclient = pytest.importorskip(
    "nbclient", reason="the notebook test needs nbclient (the [dev] extra)"
)
pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel (the [dev] extra)")
pytest.importorskip("torch")

from support import REPO  # noqa: E402

CELLS = [
    "import numpy as np, torch, corruptbench\n"
    "torch.manual_seed(0)\n"
    "net = torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), "
    "torch.nn.Linear(12, 10))\n"
    "rng = np.random.RandomState(0)\n"
    "x = rng.randint(0, 256, (12, 32, 32, 3), dtype=np.uint8)\n"
    "y = rng.randint(0, 10, 12)",
    "res = corruptbench.evaluate_c(net, corruptbench.OnTheFly(x, labels=y), "
    "corruptions=['fog', 'contrast'], severities=[1, 2, 3, 4, 5], input_size=32)",
    "res",
    "print(res.summary())",
]


@pytest.mark.slow
def test_progress_and_results_in_a_notebook() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in CELLS]
    env_path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "src"), env_path) if p)
    try:
        client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3")
        client.execute()
    finally:
        os.environ["PYTHONPATH"] = env_path
    run, shown, printed = nb.cells[1].outputs, nb.cells[2].outputs, nb.cells[3].outputs
    bars = [o for o in run if o.output_type == "display_data" and "text/html" in o.data]
    assert len(bars) == 1, run  # one display, updated in place
    html = bars[0].data["text/html"]
    total = 12 * 10 + 12  # 10 cells and the clean images
    assert "<progress" in html and f'value="{total}" max="{total}"' in html, html
    assert not [o for o in run if o.output_type == "stream" and o.name == "stderr"]

    (result,) = [o for o in shown if o.output_type == "execute_result"]
    page = result.data["text/html"]
    assert page.startswith('<div class="corruptbench-results"><style>')
    assert "Clean error" in page and "mCE" in page  # the summary card
    assert page.count("data:image/png;base64,") == 1 and 'alt="CE per corruption"' in page
    assert "http" not in page.replace("http-equiv", "")  # nothing to fetch
    assert result.data["text/plain"].startswith("Results(kind='c', model='Sequential', ")
    (text,) = [o for o in printed if o.output_type == "stream"]
    assert "Fog" in text.text and "\x1b[" not in text.text  # plain text, no terminal codes
