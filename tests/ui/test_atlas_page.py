"""The corpus page in AppTest, in both languages: a head's stored corpus scores and top sentences drawn small, the head
finder's filter from the URL, the map of queries and keys with the user's sentence, and the heads-page button."""

from __future__ import annotations

import pytest

from hook_names import ordinal
from runs.atlas_page import filter_rows, head_rows, stored_atlas
from tests.ui.conftest import app_test, assert_no_exception, figures
from transformer.probes.atlas import head_key
from ui.i18n import catalog
from ui.safe import md_literal

MODEL = "translate-en-zh"


def _open(lang: str, **params: str):
    at = app_test("atlas", params={"lang": lang, "model": MODEL, **params})
    at.run()
    assert_no_exception(at)
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_head_view_shows_the_stored_means_and_top_sentences(lang):
    at = _open(lang, a_kind="encoder", a_layer="2", a_head="1", text="i read a book")
    words = catalog(lang)
    atlas = stored_atlas(MODEL)
    entry = atlas.heads[head_key("encoder", 1, 0)]
    title = words["atlas.head_title"].format(kind=words["heads.kind_encoder"], layer=2, head=1)
    assert title in [h.value for h in at.subheader]
    table = at.table[0].value
    assert list(table[words["atlas.mean"]]) == [f"{entry['scores'][n]:.2f}" for n in atlas.names if n in entry["scores"]]
    thumbs = [k for k in figures(at) if k.startswith("atlas_top_")]
    assert len(thumbs) == len(entry["top"])
    shown = " ".join(m.value for m in at.markdown)
    for item in entry["top"]:
        assert item["text"].split()[0] in shown
    assert words["atlas.source_heldout"].split("{n}")[0] in " ".join(c.value for c in at.caption)
    buttons = [b for b in at.button if b.key and b.key.startswith("atlas_open_")]
    assert (
        len(buttons) == len(entry["top"])
        and buttons[0].label == words["atlas.open_short"]
        and buttons[0].help == words["atlas.open_on_heads"]
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_finder_filters_from_the_url(lang):
    at = _open(lang, atlas_view="finder", f_score="diagonal", f_min="0.50", f_first="1", f_last="1")
    words = catalog(lang)
    expected = filter_rows(head_rows(stored_atlas(MODEL)), score="diagonal", at_least=0.5, layers=(1, 1))
    frame = at.dataframe[0].value
    assert len(frame) == len(expected) > 0
    assert list(frame[words["atlas.col_layer"]]) == [ordinal(r.layer) for r in expected] == [1] * len(expected)
    diagonal = list(frame[words["atlas.score_diagonal"]])
    assert diagonal == sorted(diagonal, reverse=True) and min(diagonal) >= 0.5
    assert all("atlas_view=head" in link for link in frame[words["atlas.col_open"]])


def test_finder_says_when_no_head_matches():
    at = _open("zh", atlas_view="finder", f_score="anti_diagonal", f_min="1.00")
    assert catalog("zh")["atlas.finder_none"] in [i.value for i in at.info]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_map_rings_the_users_sentence(lang):
    at = _open(lang, atlas_view="map", a_kind="encoder", a_layer="1", a_head="1", text="i read a book")
    fig = figures(at)["atlas_qk_chart"]
    names = [trace["name"] for trace in fig["data"]]
    words = catalog(lang)
    assert names == [words["atlas.map_queries"], words["atlas.map_keys"], words["atlas.map_user"]]
    assert all(trace["type"] == "scattergl" for trace in fig["data"])
    assert "PCA" in fig["layout"]["xaxis"]["title"]["text"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_model_without_a_held_out_set_reads_the_bundled_set_and_says_so(lang, tmp_path, monkeypatch):
    from runs.atlas_page import CACHE_ENV
    from transformer.probes.atlas import bundled_sentences

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    at = app_test("atlas", params={"lang": lang, "model": "random"})
    at.run()
    assert_no_exception(at)
    words = catalog(lang)
    n = len(bundled_sentences())
    said = " ".join(i.value for i in at.info)
    assert words["atlas.source_bundled"].split("{n}")[0] in said and str(n) in said
    assert md_literal(str(tmp_path), code=True) in said
    assert len(list(tmp_path.glob("*.json"))) == 1  # cached on disk, where the page says
    assert [k for k in figures(at) if k.startswith("atlas_top_")]
