"""The head-detector section of the heads page in AppTest: one grid per attention kind with every
score, the top heads starred, meanings in both languages, and "no cross-attention" for a decoder-only model."""

import re

import numpy as np
import pytest

from runs.head_detectors import detector_table
from runs.model_ref import ModelRef, load_bundle
from tests.ui.conftest import figures, open_page, plotly_array
from ui.i18n import catalog


def kind_name_in(lang: str, kind: str) -> str:
    """A kind's tab label in `lang` (the tabs' session state holds the label)."""
    return catalog(lang)[f"heads.kind_{kind}"]


def _detector_charts(at) -> set[str]:
    return {key for key in figures(at) if key.startswith("detectors_")}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.slow
def test_translator_has_grids_for_every_kind(lang):
    at = open_page("heads", model="translate-en-zh", text="i read a book", lang=lang)
    assert _detector_charts(at) == {"detectors_cross"}  # the kind the page opens on; the hidden tabs are not built
    for kind in ("encoder", "decoder", "cross"):  # choosing a tab draws its grid
        at.session_state["detectors_tab"] = kind_name_in(lang, kind)
        at.run()
        assert _detector_charts(at) == {f"detectors_{kind}"}
    charts = figures(at)
    table = detector_table(load_bundle(ModelRef.parse("translate-en-zh")))
    cross = charts["detectors_cross"]
    assert len(cross["data"]) == len(table.scores["cross"].names)
    np.testing.assert_allclose(plotly_array(cross["data"][-1]["z"]), table.scores["cross"].score("source_alignment"), atol=1e-6)
    text = np.array(cross["data"][-1]["text"])
    assert sum("★" in cell for cell in text.ravel()) >= 1  # the source-aligned head is marked
    meanings = " ".join(m.value for m in at.markdown)
    assert bool(re.search(r"源端对齐", meanings)) == (lang == "zh")  # the open (cross) tab's scores, explained


def test_decoder_only_says_it_has_no_cross_attention():
    at = open_page("heads", model="gpt-translate-en-zh", text="i read a book", lang="en")
    assert "detectors_decoder" in figures(at) and "detectors_cross" not in figures(at)
    assert any("no cross-attention" in c.value for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cross_tab_says_why_index_scores_are_not_shown(lang):
    at = open_page("heads", model="translate-en-zh", text="i read a book", lang=lang)  # opens on the cross tab
    text = " ".join(c.value for c in at.caption)
    if lang == "en":
        assert (
            "compare positions by index (previous token, duplicate token, diagonal (itself), anti-diagonal) mean nothing here"
            in text
        )
    else:
        assert "按位置序号比较的分数（前一个词元、重复词元、对角线（自身）、反对角线）" in text
