"""The Masks page in AppTest: renders for both architectures, shows the masks of a batch, and its
experiments (causal mask off, a hidden token, an ablated head) change exactly what they should;
on the shipped translator, the causal experiment's two truths carry the right numbers."""

import html
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from hook_names import attn_module
from runs.model_ref import ModelRef, load_bundle
from runs.reference import model_task
from runs.text_run import run_text
from tests.ui.conftest import ROOT, figure, open_page, plotly_array
from transformer.interventions import InterventionSpec
from transformer.probes.causal import causal_experiment

ZH = "translate-en-zh"


def _open(arch: str = "encoder-decoder", *, lang: str = "en", text: str = "abcd", more: str = "ab") -> AppTest:
    """The Masks page alone (app.py's navigation is covered by the smoke test) on a small seeded
    random model, with its widgets seeded through session state so the first run is the only slow one."""
    return open_page("masks", model="random", r_arch=arch, text=text, more=more, lang=lang)


def _in_chinese(at: AppTest) -> AppTest:
    """Switch the UI language and rerun once. (Only once: AppTest formats a widget's value outside
    the script run, where the sidebar's translated `format_func` sees English and rejects the value.)"""
    at.session_state["lang"] = "zh"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("arch", ["encoder-decoder", "decoder-only"])
def test_page_renders_for_both_architectures(arch):
    at = _open(arch)
    assert at.title[0].value == "Masks"
    names = [c.proto.id.split("-", 2)[-1] for c in at.get("plotly_chart")]
    assert "mask_causal" in names and "mask_decoder" in names
    assert ("mask_cross" in names) == (arch == "encoder-decoder")
    assert ("batch_source" in names) == (arch == "encoder-decoder")


def test_three_sentences_of_different_lengths_show_padding_and_masks():
    at = _open(text="abcdef", more="abc\na")
    batch = figure(at, "batch_source")["data"][0]
    assert plotly_array(batch["z"]).astype(int).tolist() == [[1] * 7, [1] * 4 + [0] * 3, [1] * 2 + [0] * 5]
    assert batch["text"][2][2] == "&lt;pad&gt;"
    at.selectbox(key="row").set_value(2).run()
    padding = plotly_array(figure(at, "mask_padding")["data"][0]["z"])
    assert padding.shape == (7, 7) and (padding[:, :2] == 1).all() and (padding[:, 2:] == 0).all()
    combined = plotly_array(figure(at, "mask_decoder")["data"][0]["z"])
    assert (np.triu(combined, 1) == 0).all()


def test_scores_of_a_short_sentence_show_its_padding_blocked_and_its_real_cells_unchanged():
    """Block 3 runs the chosen row inside the padded batch: its <pad> keys are −∞ and weigh 0, and its
    real cells are the numbers the sentence gets alone (block 4's "before" run)."""
    at = _open(text="abcdef", more="abc\na")
    at.selectbox(key="row").set_value(2).run()  # "a": a, <eos> and five <pad>
    at.selectbox(key="kind").set_value("encoder").run()
    at.toggle(key="ablate").set_value(True).run()  # any experiment, so block 4 draws the "before" pattern
    steps = figure(at, "score_steps_encoder_0_0")["data"]
    assert steps[2]["text"][0][2:] == ["−∞"] * 5 and steps[2]["text"][0][:2] == ["", ""]
    batched = plotly_array(steps[3]["z"])  # softmax panel
    assert batched.shape == (7, 7) and (batched[:, 2:] == 0).all()
    alone = plotly_array(figure(at, "pattern_before_encoder_0_0")["data"][0]["z"])  # (2, 2)
    assert alone.shape == (2, 2)
    np.testing.assert_allclose(batched[:2, :2], alone, atol=1e-6)


def test_too_few_sentences_get_a_translated_error():
    at = _open(text="abc", more="")
    assert at.error and "2 to 4" in at.error[0].value and not at.get("plotly_chart")
    at = _in_chinese(at)
    assert at.error and "批次" in at.error[0].value


def test_blank_and_extra_lines_are_reported_and_the_page_keeps_working():
    at = _open(text="abc", more="a\n\nab\nabcd\nabcde")
    assert any("Empty line(s) 2 of the “more sentences” box" in i.value for i in at.info)  # a line of that box, not sentence 2
    assert any("first 4 sentences" in w.value for w in at.warning)
    assert figure(at, "batch_source")["data"][0]["text"][3][0] == "a"  # sentence 4 is "abcd"
    at.text_area(key="more").set_value("a\x07b")
    at = _in_chinese(at)
    assert any("第 2 句" in i.value and "控制字符" in i.value for i in at.info)


def test_skipped_empty_lines_are_named_as_lines_of_the_box_in_chinese():
    at = _in_chinese(_open(text="abc", more="a\n\nab"))
    assert any("“其他句子”框中的空行：该框的第 2 行" in i.value for i in at.info)


def _upper(at: AppTest, name: str) -> np.ndarray:
    pattern = plotly_array(figure(at, name)["data"][0]["z"])
    return pattern[np.triu_indices(pattern.shape[0], 1)]


def test_switching_off_the_causal_mask_fills_the_upper_triangle():
    at = _open()
    at.selectbox(key="kind").set_value("decoder").run()
    at.toggle(key="no_causal").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert (_upper(at, "forced_with_0_0") == 0).all()
    assert (_upper(at, "forced_without_0_0") > 0).all()
    assert any("untrained" in i.value for i in at.info)  # a random model is not generated: said so


def _shipped(**state) -> AppTest:
    """The Masks page on the shipped English → Chinese translator with its default text and batch."""
    return open_page("masks", model=ZH, lang="en", **state)


def test_default_batch_sentences_are_all_inside_the_grammar():
    at = _shipped()
    task = model_task(load_bundle(ModelRef.parse(ZH)))
    lines = [at.text_input(key="text").value, *at.text_area(key="more").value.splitlines()]
    assert len(lines) == 3
    for line in lines:
        assert task.reference(line) is not None, f"{line!r} has no right answer"
    assert not at.warning  # nothing reported about the default lines


def test_decoder_rows_are_labelled_reads_then_writes():
    at = _shipped(row=0)
    rows = figure(at, "mask_causal")["layout"]["yaxis"]["ticktext"]
    assert [html.unescape(r) for r in rows[:3]] == ["<bos> → 我", "我 → 今天", "今天 → 在"]
    assert figure(at, "mask_cross")["layout"]["yaxis"]["ticktext"] == rows
    steps = figure(at, "score_steps_decoder_0_0")["layout"]["yaxis"]["ticktext"]
    assert html.unescape(steps[1]) == "我 → 今天"
    assert any("row i reads" in c.value for c in at.caption)  # the one sentence that says why


@pytest.mark.slow
def test_causal_experiment_shows_both_truths_with_the_right_numbers():
    at = _shipped(row=0, no_causal=True)
    bundle = load_bundle(ModelRef.parse(ZH))
    text = "i read a book in the library today"
    expected = causal_experiment(bundle, text, model_task(bundle).reference(text).target)  # the oracle, run here
    codes = [c.value for c in at.code]
    # (a) generation with and without the mask: unchanged, with the reason
    assert codes.count(expected.generated_with_mask) >= 2 and expected.generated_with_mask == expected.generated_without_mask
    assert any(s.value.startswith("Unchanged on this sentence") for s in at.success)  # what happened here, not how often
    # (b) teacher forcing on the task's right answer: the table holds the oracle's predictions
    assert model_task(bundle).reference(text).target in codes
    table = at.dataframe[0].value
    assert list(table["should write"]) == [p.expected for p in expected.positions]
    assert list(table["predicts with the mask"]) == [f"{p.with_mask} · {p.p_with_mask:.0%}" for p in expected.positions]
    assert list(table["predicts without the mask"]) == [f"{p.without_mask} · {p.p_without_mask:.0%}" for p in expected.positions]
    np.testing.assert_allclose(table["weight on later tokens"], [p.future_weight for p in expected.positions], atol=1e-6)
    n = len(expected.positions)
    summary = next(m.value for m in at.markdown if "predictions change" in m.value)
    assert f"**{n - 1} of {n}** rows" in summary and f"**{expected.n_changed} of {n}** predictions" in summary
    right_without = sum(p.without_mask == p.expected for p in expected.positions)
    assert f"**{n} of {n}** with the mask, **{right_without} of {n}** without it" in summary
    # the patterns of the same pass: nothing above the diagonal with the mask, weight there without it
    assert (_upper(at, "forced_with_0_0") == 0).all() and _upper(at, "forced_without_0_0").sum() > 0
    assert not any("usually changes" in m.value for m in at.markdown)


def test_ablation_defaults_to_a_head_that_changes_the_output():
    at = _shipped(row=0, ablate=True)
    assert at.selectbox(key="ablate_head").value == "auto"
    found = next(c.value for c in at.caption if c.value.startswith("Ablating "))
    assert "changes this sentence's output" in found
    assert any("changed the model's output" in w.value for w in at.warning)
    # the named head, ablated independently, changes the output too
    bundle = load_bundle(ModelRef.parse(ZH))
    catalog = {
        **json.loads((ROOT / "assets/i18n/en/heads.json").read_text()),
        **json.loads((ROOT / "assets/i18n/en/masks.json").read_text()),
    }
    named = [
        (k, i, h)
        for k in ("encoder", "decoder", "cross")
        for i in range(2)
        for h in range(4)
        if catalog["ablate_which"].format(kind=catalog[f"kind_{k}"], layer=i + 1, head=h + 1) in found
    ]
    assert len(named) == 1
    kind, layer, head = named[0]
    text = "i read a book in the library today"
    base = run_text(bundle, text, names=())
    spec = InterventionSpec("zero_output", attn_module(kind, layer), head=head)
    ablated = run_text(bundle, text, names=(), interventions=(spec,))
    assert ablated.output_tokens != base.output_tokens
    at.selectbox(key="ablate_head").set_value("encoder-0-0").run()  # any head can still be chosen
    assert not at.exception and not any(c.value.startswith("Ablating ") for c in at.caption)


@pytest.mark.slow
def test_a_long_line_is_announced_as_truncated():
    at = _open(text="abc", more="a" * 600)
    assert any("Sentence 2 has 600 tokens" in w.value and "511" in w.value for w in at.warning)


def test_hiding_a_token_zeroes_its_column():
    at = _open()
    at.selectbox(key="row").set_value(0).run()
    at.selectbox(key="kind").set_value("cross").run()
    at.multiselect(key="blocked").set_value([1]).run()
    assert not at.exception, [e.value for e in at.exception]
    before = plotly_array(figure(at, "pattern_before_cross_0_0")["data"][0]["z"])
    after = plotly_array(figure(at, "pattern_after_cross_0_0")["data"][0]["z"])
    assert (before[:, 1] > 0).all() and (after[:, 1] == 0).all()
    assert np.allclose(after.sum(-1), 1.0, atol=1e-5)


def test_ablating_a_head_runs_and_compares_outputs():
    at = _open()
    at.toggle(key="ablate").set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.success or at.warning  # "changed" or "unchanged", said in words
    assert len(at.code) >= 2  # output without and with the experiment


def test_chinese_ui_translates_headings():
    at = _open(lang="zh")
    assert at.title[0].value == "掩码"
    assert at.header[0].value.startswith("1 · 填充")
    assert figure(at, "mask_causal")["layout"]["xaxis"]["title"]["text"] == "键"
