"""A result's notebook view: summary card and figure, escaped, with a scoped stylesheet."""

from __future__ import annotations

import re

from corruptbench.results import Results
from corruptbench.results.card import render_fragment
from results.support import EVIL, make_results


def test_fragment_for_a_notebook() -> None:
    res = Results.from_dict(make_results(EVIL, 0.9, 0.3), "e.json")
    html = render_fragment([res])
    assert EVIL not in html and "&lt;script&gt;" in html  # escaped like the page
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style is not None
    for selectors, _body in re.findall(r"([^{}]+)\{([^}]*)\}", style.group(1)):
        for sel in selectors.split(","):  # every rule styles only the fragment
            assert sel.strip().startswith(".corruptbench-results"), sel
    assert ".corruptbench-results .card {" in style.group(1) and "--soft:" in style.group(1)
    assert 'alt="CE per corruption"' in html and "<script" not in html.replace("&lt;script", "")
    # no CE without all five severities: the error-against-severity figure instead
    data = make_results("m", 0.9, 0.3)
    for key in (
        "ce",
        "relative_ce",
        "mce",
        "relative_mce",
        "mean_error",
        "extra_mean_error",
        "extra_ce",
        "partial",
        "missing",
    ):
        data.pop(key, None)
    data["errors"] = {"fog": [0.3, 0.4, None, None, None]}
    partial = Results.from_dict(data, "p.json")
    html = render_fragment([partial])
    assert "No CE: it needs all five severities" in html and 'alt="Error vs severity"' in html


def test_task_score_card_and_figure() -> None:
    from results.support import make_score_results

    res = Results.from_dict(make_score_results(EVIL, 0.36, names=("fog", "snow")), "s.json")
    html = render_fragment([res])
    assert EVIL not in html and "partial: 2/15" in html
    assert "<dt>mPC [partial: 2/15]</dt>" in html and "<dt>rPC = mPC / P</dt>" in html
    assert 'alt="Relative performance per corruption"' in html


def test_the_card_names_the_protocol_and_its_leaderboard_figures() -> None:
    from corruptbench.results.card import summary_card

    data = make_results("m", 0.9, 0.3)
    full = summary_card(Results.from_dict(data, "m.json"))
    assert "imagenet-c, imagenet, protocol full, 50000 images" in full
    assert "clean_acc" not in full
    data = make_results("m", 0.9, 0.3, images=5000)  # the protocol's 5,000 images per cell
    data["dataset"]["protocol"] = "robustbench"
    rb = Results.from_dict(data, "m.json")
    card = summary_card(rb)
    assert "protocol robustbench" in card
    assert "<dt>Clean accuracy (RobustBench clean_acc)</dt><dd>70.00%</dd>" in card
    assert rb.leaderboard is not None
    acc = f"{100 * rb.leaderboard['corruptions_acc']:.2f}%"
    assert (
        f"<dt>Corruption accuracy, 75 cells (RobustBench corruptions_acc)</dt><dd>{acc}</dd>"
        in (card)
    )


def test_cbar_card_and_figure() -> None:
    from results.support import make_cbar

    res = Results.from_dict(make_cbar("m", n=4), "m.json")
    html = render_fragment([res])
    assert "ImageNet-C-bar mean error" in html and 'alt="C-bar error vs level"' in html
    assert '<span class="badge">partial: 4/10</span>' in html
    assert 'alt="CE per corruption"' not in html  # no ImageNet-C part
