"""The Attention heads page, driven through AppTest: models, head picking, languages, hostile text."""

import base64
import json

import pytest
from streamlit.testing.v1 import AppTest

from runs import head_importance
from runs.heads import card_alignment_head, opening
from runs.model_ref import ModelRef, load_bundle
from runs.text_run import attention_kinds
from tests.ui.conftest import app_test, errors, figures, open_page
from transformer.storage.registry import MODELS_DIR
from ui.i18n import catalog

CARD_LAYER, CARD_HEAD = card_alignment_head(load_bundle(ModelRef.parse("translate-en-zh")))  # the grammar translator's


GRAMMAR = "translate-en-zh"  # the grammar translator: its rules give every sentence a gold word alignment to outline


def _app(text: str, lang: str = "en", **params: str) -> AppTest:
    return app_test("heads", params={"lang": lang, "text": text, "model": GRAMMAR, **params})  # the lesson is the home page


def _random(at: AppTest, architecture: str = "encoder-decoder") -> AppTest:
    at.run()
    at.selectbox(key="model").set_value("random").run()
    if architecture != "encoder-decoder":
        at.selectbox(key="r_arch").set_value(architecture).run()
    return at


@pytest.mark.parametrize("architecture", ["encoder-decoder", "decoder-only"])
def test_renders_for_random_models(architecture):
    at = _random(_app("hi there"), architecture)
    assert not errors(at), errors(at)
    kinds = ["encoder", "decoder", "cross"] if architecture == "encoder-decoder" else ["decoder"]
    for kind in kinds:  # one grid per kind, drawn when its tab is open (the hidden tabs are not built)
        at.session_state["heads_grid_tab"] = catalog("en")[f"heads.kind_{kind}"]
        at.run()
        charts = figures(at)
        assert sorted(k for k in charts if k.startswith("grid_")) == [f"grid_{kind}_0"]
        grid = charts[f"grid_{kind}_0"]  # one compact image plus tiny label/click traces
        assert grid["data"][0]["type"] == "image"
        assert grid["data"][0]["source"].startswith("data:image/png;base64,")
    assert {"head_fig", "heads_metric_fig", "rollout_fig"} <= set(charts)
    assert at.dataframe, "the sortable per-head table is shown"
    assert any("teacher forcing" in c.value for c in at.caption), "an untrained model reads the text; the page says so"


def test_picking_layer_and_head_changes_the_enlarged_figure():
    at = _app("the cat sees the dog")
    at.run()
    before = figures(at)["head_fig"]
    at.selectbox(key="layer").set_value(1).run()
    at.selectbox(key="head").set_value(2).run()
    assert not errors(at), errors(at)
    after = figures(at)["head_fig"]
    assert "layer 2, head 3" in after["layout"]["title"]["text"]  # indices 1, 2: pages count from 1
    assert after["data"][0]["z"] != before["data"][0]["z"]


def test_kind_layer_and_head_come_from_the_url_and_bad_values_are_ignored():
    other = (CARD_HEAD + 1) % 4  # a head the page would not open on by itself
    at = _app("the cat sees the dog", kind="cross", layer="2", head=str(other + 1))  # links count from 1
    at.run()
    picked = (at.selectbox(key="kind").value, at.selectbox(key="layer").value, at.selectbox(key="head").value)
    assert picked == ("cross", 1, other)
    at = _app("the cat sees the dog", kind="nonsense", layer="99")
    at.run()
    assert not errors(at), errors(at)
    # a bad layer is dropped from the link, so the page opens on the translator's telling head (the card's)
    assert (at.selectbox(key="kind").value, at.selectbox(key="layer").value) == ("cross", 1)


def test_chinese_input_labels_the_axes():
    at = _random(_app("你好，世界"))
    assert not errors(at), errors(at)
    head = figures(at)["head_fig"]
    assert head["layout"]["xaxis"]["ticktext"][:2] == ["你", "好"]


def test_markup_in_the_input_is_shown_literally():
    at = _random(_app("<b>x</b>"))
    assert not errors(at), errors(at)
    ticktext = figures(at)["head_fig"]["layout"]["xaxis"]["ticktext"]
    assert "".join(ticktext).startswith("&lt;b&gt;x&lt;/b&gt;")
    assert not any("<" in tick for tick in ticktext)
    assert any("<b>x</b>" in block.value or "< · b · >" in block.value for block in at.code)


def test_spaces_are_visible_in_the_token_lists():
    at = _random(_app("a b"))
    assert any(block.value.startswith("a · ␣ · b") for block in at.code), [b.value for b in at.code]


def test_switching_to_chinese_translates_the_page():
    at = _app("the cat sees the dog")
    at.run()
    at.session_state["lang"] = "zh"  # what the sidebar's language switch sets
    at.run()
    assert not errors(at), errors(at)
    headers = [h.value for h in at.header]
    assert "所有层 × 所有头" in headers and "放大查看一个头" in headers
    head = figures(at)["head_fig"]
    assert head["layout"]["xaxis"]["title"]["text"] == "键（被关注）"


def test_grid_payload_stays_compact():
    at = _app("the cat sees the dog and the bird")
    at.run()
    for key, spec in figures(at).items():
        if key.startswith("grid_"):
            png = base64.b64decode(spec["data"][0]["source"].split(",", 1)[1])
            assert png.startswith(b"\x89PNG")
            assert len(json.dumps(spec)) < 60_000, key


def test_past_the_payload_budget_layers_are_paged_with_a_notice(monkeypatch):
    import viz.payload

    monkeypatch.setattr(viz.payload, "DEFAULT_BUDGET", 1)  # far below one layer: one layer a page, pooled
    at = _app("the cat sees the dog")
    at.run()
    assert not errors(at), errors(at)
    assert any("layers are shown at a time" in info.value for info in at.info)
    at.session_state["heads_grid_tab"] = catalog("en")["heads.kind_encoder"]  # the encoder's grid (only the open tab is drawn)
    at.run()
    first = figures(at)["grid_encoder_0"]
    at.segmented_control(key="grid_page").set_value(1).run()
    assert not errors(at), errors(at)
    second = figures(at)["grid_encoder_0"]

    def layer_labels(grid: dict) -> list[str]:  # the text trace naming the grid's rows (other traces mark heads)
        return next(t["text"] for t in grid["data"] if t.get("mode") == "text" and t.get("text"))

    assert layer_labels(first)[0].startswith("L1") and layer_labels(second)[0].startswith("L2")


def test_exports_work_offline_and_load_without_pickle():
    import io

    import numpy as np
    import plotly.graph_objects as go

    from ui.export import html_bytes, npz_bytes, safe_name

    page = html_bytes(go.Figure(go.Heatmap(z=[[0.0, 1.0]]))).decode("utf-8")
    assert '<script src="https://cdn.plot.ly' not in page and len(page) > 1_000_000  # plotly.js is embedded
    data = npz_bytes({"encoder.layers.0.self_attn.hook_pattern": np.eye(2)[None, None]}, src_tokens=("<b>", "好"), text="<b>好")
    with np.load(io.BytesIO(data), allow_pickle=False) as saved:
        assert saved["src_tokens"].tolist() == ["<b>", "好"] and str(saved["text"]) == "<b>好"
        assert saved["encoder.layers.0.self_attn.hook_pattern"].shape == (1, 1, 2, 2)
    assert safe_name("attention-encoder-L0-H1") == "attention-encoder-L0-H1" and safe_name("a/b c") == "a-b-c"


DEFAULT = "i read a book in the library today"  # the translator's example: the page opens on it


def _opened() -> AppTest:
    at = app_test("heads")  # the lesson is the home page
    at.query_params.update(lang="en", model=GRAMMAR)
    at.run()
    assert not errors(at), errors(at)
    return at


def test_translator_opens_on_cross_attention_with_the_cards_head_and_rows_named_by_what_they_write():
    at = _opened()
    assert at.text_input(key="text").value == DEFAULT
    card = at.session_state["heads_opened_for"]
    assert card == "translate-en-zh"
    assert (at.selectbox(key="kind").value, at.selectbox(key="layer").value, at.selectbox(key="head").value) == (
        "cross",
        CARD_LAYER,
        CARD_HEAD,
    )
    head = figures(at)["head_fig"]
    rows = head["layout"]["yaxis"]["ticktext"]
    assert "我 → 今天" in rows and "在 → 图书馆" in rows, rows
    assert f"Cross-attention (decoder → encoder), layer {CARD_LAYER + 1}, head {CARD_HEAD + 1}" in head["layout"]["title"]["text"]
    assert any("named by the token they write" in c.value for c in at.caption)
    assert any("opens on this model's alignment head" in c.value for c in at.caption)
    assert "kind" not in at.query_params  # the default kind stays out of links


def test_gold_alignment_outline_turns_on_and_off():
    at = _opened()
    shapes = figures(at)["head_fig"]["layout"].get("shapes", [])
    rows = figures(at)["head_fig"]["layout"]["yaxis"]["ticktext"]
    cells = {(round(s["y0"] + 0.5), round(s["x0"] + 0.5)) for s in shapes}
    assert (rows.index("我 → 今天"), 7) in cells and (rows.index("在 → 图书馆"), 6) in cells  # today, library
    metric = figures(at)["heads_metric_fig"]
    assert "Alignment" in metric["layout"]["title"]["text"]  # cross-attention: the alignment score, no index metrics
    options = at.selectbox(key="heads_metric").options  # entropy, first token, alignment: no index score
    assert len(options) == 3 and not {"previous_token", "Previous token"} & set(options), options
    at.toggle(key="heads_alignment").set_value(False).run()
    assert not errors(at), errors(at)
    assert not figures(at)["head_fig"]["layout"].get("shapes")


def test_important_heads_are_marked_and_explained():
    at = _opened()
    labels = next(d["text"] for d in figures(at)["grid_cross_0"]["data"] if d.get("mode") == "text")
    assert sum("★" in label for label in labels) >= 1
    assert "heads_importance_cross" in figures(at)
    assert any("removal changes at least one output" in c.value for c in at.caption)


def test_url_keeps_the_grid_tab_and_both_stretch_switches():
    at = app_test("heads")  # the lesson is the home page
    at.query_params.update(lang="en", grid="decoder", grid_stretch="true", heads_stretch="true")
    at.run()
    assert not errors(at), errors(at)
    assert at.toggle(key="grid_stretch").value and at.toggle(key="heads_stretch").value
    assert at.session_state["heads_grid_tab"] == "Decoder masked self-attention"  # a code in the URL, a label on screen
    # (AppTest does not show what a bound widget writes to the URL; tests/e2e/test_heads_browser.py checks that)


def test_the_chinese_ui_gives_plotly_its_locale():
    at = _opened()
    at.session_state["lang"] = "zh"  # what the sidebar's language switch sets
    at.run()
    assert not errors(at), errors(at)
    for chart in at.get("plotly_chart"):
        config = json.loads(chart.proto.config)
        assert config["locale"] == "zh-CN"
        assert config["locales"]["zh-CN"]["dictionary"]["Download plot"] == "下载图表"


def test_untrained_models_measure_importance_on_demand():
    at = _random(_app("hi there", r_layers="1", r_heads="2"))  # 6 heads to remove: quick on a busy machine
    assert not [k for k in figures(at) if k.startswith("heads_importance_")]
    assert any("copy task" in c.value for c in at.caption)
    at.button(key="heads_importance_measure").click().run()
    assert not errors(at), errors(at)
    assert [k for k in figures(at) if k.startswith("heads_importance_")]  # the open tab's figure
    at = _random(_app("hi there", r_layers="1", r_heads="2"), "decoder-only")  # measured on the same sample, as a prompt
    at.button(key="heads_importance_measure").click().run()
    assert not errors(at), errors(at)
    assert [k for k in figures(at) if k.startswith("heads_importance_")] == ["heads_importance_decoder"]


SHIPPED = sorted(p.name for p in MODELS_DIR.iterdir() if (p / "card.json").is_file())
REASON_WORDS = {  # what the caption calls the head, per reason of runs.heads.opening
    "alignment": "alignment head",
    "prompt": "prompt-reading head",
    "induction": "induction head",
    "important": "most important head",
}


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_model_opens_on_its_telling_head_and_says_why_with_its_numbers(name):
    bundle = load_bundle(ModelRef.parse(name))
    table = head_importance.stored_importance(bundle)
    assert table is not None, f"regenerate: python -m transformer importance --model {name}"
    opened = opening(bundle, attention_kinds(bundle), table)
    assert opened.reason in REASON_WORDS, f"{name} opens on layer 0 head 0 for no reason"
    at = open_page("heads", model=name, text=bundle.card["example"], lang="en")
    assert (at.selectbox(key="kind").value, at.selectbox(key="layer").value, at.selectbox(key="head").value) == opened.key
    caption = next((c.value for c in at.caption if "The page opens on" in c.value), "")
    assert f"{REASON_WORDS[opened.reason]} (layer {opened.layer + 1}, head {opened.head + 1})" in caption, caption
    row = opened.row
    assert row is not None and f"changes {row.changed:.0%} of the sample's outputs" in caption, caption
    assert f"by {row.logprob_drop:.2f}" in caption, caption
    if opened.reason != "important":
        assert f"{opened.score:.0%}" in caption, caption  # the card's alignment or induction score
    if opened.kind == "cross" or name.startswith("gpt-"):
        assert opened.reason in ("alignment", "prompt"), "a translator opens on the head that reads the source"


@pytest.mark.parametrize(
    ("start", "other", "lang"),
    [("translate-en-zh", "gpt-translate-en-zh", "en"), ("gpt-translate-en-zh", "translate-en-zh", "zh")],
)
def test_the_same_sentence_runs_through_the_other_architecture_in_one_click(start, other, lang):
    """Issue 13: one sentence through both translators shows cross-attention becoming self-attention over the prompt."""
    text = "i read a book in the library today"
    at = app_test("heads", params={"lang": lang})
    at.run()
    at.selectbox(key="model").set_value(start).run()
    at.text_input(key="text").set_value(text).run()
    assert not errors(at), errors(at)
    said = catalog(lang)["heads.counterpart_from_cross" if start == "translate-en-zh" else "heads.counterpart_from_prompt"]
    assert any(c.value == said.replace("{other}", other) for c in at.caption)
    at.button(key="counterpart").click().run()
    assert not errors(at), errors(at)
    assert at.selectbox(key="model").value == other and at.text_input(key="text").value == text
    assert at.selectbox(key="kind").value == ("decoder" if other.startswith("gpt") else "cross")  # its own telling head
    assert "我 今天 在 图书馆 读 一 本 书" in [c.value for c in at.code]  # the same translation, the other way


def test_models_without_a_counterpart_offer_no_switch():
    at = open_page("heads", model="reverse", text="hello")
    assert not [b for b in at.button if b.key == "counterpart"]


def test_a_new_text_leaves_nothing_of_the_last_run_alive_outside_the_cache():
    """The grid's click callbacks, the fragments and the download button keep what they hold until the next run:
    they hold the run's key, never its arrays, so a cache that drops a run frees it (a GPT-2-sized run is 604 MB)."""
    import gc

    from runs.byte_cache import shared_cache
    from viz.trace import TraceData

    first, second = "I read a book in the library.", "She came to see us yesterday."
    at = open_page("heads", params={"text": first})
    at.text_input(key="text").set_value(second).run()
    assert not at.exception
    shared_cache().clear()
    gc.collect()
    alive = {obj.text for obj in gc.get_objects() if isinstance(obj, TraceData)}
    assert first not in alive, "the first text's run is still reachable from the page"
