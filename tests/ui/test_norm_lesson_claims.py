"""The lesson's norm step and its class question tell the truth on the model's own norm (issue 36 §2): LayerNorm's mean
0 and standard deviation 1 on a LayerNorm model (post-norm `random`, pre-norm GPT-2), RMSNorm's root mean square 1 on
an RMSNorm one (converted Qwen2 / Qwen3 folders: pre-norm, rotary, decoder-only), in English and Chinese. Each claim
is stated against its number, recomputed here from the norm's input and the model's config; and the lesson, run on
the rotary decoder-only model, claims no sinusoid, no LayerNorm and no cross-attention."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
import streamlit as st

from runs import lesson
from runs.class_questions import LN_SETTLED, RMS_CHOICES
from runs.teaching_arrays import stack_reading_text
from ui.caches import get_bundle
from ui.i18n import catalog
from ui.inputs import example_text
from ui.pages.lesson.steps import build_step, lesson_for, small
from viz.layernorm import norm_sites

LAYERNORM = ("random", "pretrained:tiny-gpt2")  # post-norm (the paper's), pre-norm
RMSNORM = ("pretrained:tiny-qwen2", "pretrained:tiny-qwen3")
CHINESE = "你好，猫坐在垫子上。"


@pytest.fixture(scope="module")
def models(pretrained_dir) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
        yield


def _first_norm_input(ls) -> np.ndarray:
    """(T, d_model) what the first norm of the stack reading the text reads, from the run's arrays."""
    stack, _ = stack_reading_text(ls.bundle)
    site = norm_sites(ls.bundle.model.hook_names, stack)[0]
    return ls.trace.arrays[site.hook_in][0].astype(np.float64)


def _words(content) -> str:
    return " ".join(filter(None, (content.title, content.text, content.question, content.answer, content.notes)))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", RMSNORM)
def test_the_rmsnorm_step_asks_about_the_root_mean_square_with_this_runs_numbers(models, model, lang):
    st.session_state["lang"] = lang
    ui = catalog(lang)
    bundle = get_bundle(model)
    assert bundle.config.norm == "rmsnorm" and bundle.config.norm_position == "pre"
    ls = lesson_for(model, CHINESE)
    numbers = ls.numbers("layernorm")
    x = _first_norm_input(ls)
    rms_in = np.sqrt((x**2).mean(-1))  # (T,)
    normed = x / np.sqrt((x**2).mean(-1, keepdims=True) + bundle.config.norm_eps)  # RMSNorm's division, eps included
    rms_out, mean_out = np.sqrt((normed**2).mean(-1)), np.abs(normed.mean(-1))
    assert numbers.norm == "rmsnorm"
    assert np.isclose(numbers.in_rms_min, rms_in.min(), rtol=1e-5) and np.isclose(numbers.in_rms_max, rms_in.max(), rtol=1e-5)
    assert abs(numbers.out_rms_min - rms_out.min()) < 1e-4 and abs(numbers.out_rms_max - rms_out.max()) < 1e-4
    assert abs(numbers.out_mean - mean_out.max()) < 1e-4
    content = build_step("layernorm", ls)
    assert content.question == ui["lesson_parts.rms_question"]
    assert content.text == ui["modern.lesson_layernorm_text"]  # pre-norm: x + Sublayer(RMSNorm(x))
    for said, value in ((small(numbers.out_rms_min), rms_out.min()), (small(numbers.out_rms_max), rms_out.max())):
        assert said in content.answer and abs(float(said) - value) < 1e-3, (said, value)
    assert small(numbers.out_mean) in content.answer
    for claim in (content.question, content.answer, content.title):  # nothing claims LayerNorm's mean 0 or its bias
        assert "LayerNorm" not in claim and "RMSNorm" in claim + content.title, claim
    question = lesson.class_question("layernorm", numbers, ls.trace)
    assert tuple(c.code for c in question.choices) == RMS_CHOICES
    centred = mean_out.max() < LN_SETTLED
    unit = abs(rms_out.min() - 1) < LN_SETTLED and abs(rms_out.max() - 1) < LN_SETTLED
    assert unit  # RMSNorm's promise, from its own definition
    assert question.truth == ("mean0_rms1" if centred else "rms1")
    labels = [ui[f"classroom.opt_{c.label}"] for c in question.choices]
    assert all("LayerNorm" not in label and ("root mean square" in label.lower() or "均方根" in label) for label in labels)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", LAYERNORM)
def test_the_layernorm_step_keeps_the_papers_question_and_says_where_the_norm_sits(models, model, lang):
    st.session_state["lang"] = lang
    ui = catalog(lang)
    bundle = get_bundle(model)
    assert bundle.config.norm == "layernorm"
    ls = lesson_for(model, example_text(bundle))
    numbers = ls.numbers("layernorm")
    x = _first_norm_input(ls)
    normed = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + bundle.config.norm_eps)
    assert numbers.norm == "layernorm"
    assert abs(numbers.out_std_max - normed.std(-1).max()) < 1e-3 and abs(numbers.out_mean - np.abs(normed.mean(-1)).max()) < 1e-4
    content = build_step("layernorm", ls)
    assert content.question == ui["lesson.layernorm_question"]
    pre = bundle.config.norm_position == "pre"
    assert content.text == ui["lesson_parts.text_pre_layernorm" if pre else "lesson.layernorm_text"]
    sublayer = "Sublayer" if lang == "en" else "子层"
    assert (f"x + {sublayer}(LayerNorm(x))" in content.text) == pre  # where this model's norm sits
    question = lesson.class_question("layernorm", numbers, ls.trace)
    assert {c.code for c in question.choices} == {"mean0_std1", "mean0", "std1", "unchanged"}
    assert question.truth == "mean0_std1"  # LayerNorm's promise before its gain and bias
    assert "RMSNorm" not in _words(content)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", RMSNORM)
def test_the_lesson_on_a_rotary_decoder_only_rmsnorm_model_claims_none_of_the_papers_parts(models, model, lang):
    st.session_state["lang"] = lang
    ui = catalog(lang)
    ls = lesson_for(model, CHINESE)
    config = ls.bundle.config
    assert config.positional == "rotary" and not config.is_encoder_decoder
    for step in ("embeddings", "positional"):  # no position vector added: nothing to ask about one
        assert ls.numbers(step) is None and lesson.class_question(step, ls.numbers(step), ls.trace) is None
        content = build_step(step, ls)
        assert content.question is None and content.skipped
    cross = build_step("cross", ls)
    assert cross.skipped == ui["lesson.skip_cross_decoder_only"] and cross.question is None
    recap = build_step("recap", ls)
    assert recap.question == ui["lesson_parts.recap_question_rms"]
    paper = config.d_model // config.n_heads
    numbers = ls.numbers("recap")
    own = numbers.d_k != paper
    assert own == (config.d_k != config.d_model // config.n_heads)
    assert (f"d_k = {config.d_model} / {config.n_heads} = {numbers.d_k}" in recap.answer) == (not own)
    if own:  # Qwen3's head_dim: the paper's d_model / h is named as the paper's, not as this model's d_k
        assert f"d_k = {numbers.d_k}" in recap.answer and f"{config.d_model} / {config.n_heads} = {paper}" in recap.answer
    said = " ".join(_words(build_step(step, ls)) for step in lesson.STEPS)
    for paper in ("embeddings_text", "positional_text", "layernorm_text", "layernorm_question", "cross_text"):
        assert ui[f"lesson.{paper}"].split("{")[0] not in said, paper  # the paper's sinusoid, LayerNorm, cross step


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", RMSNORM)
def test_the_swiglu_feed_forward_step_asks_the_papers_question_on_its_own_layer(models, model, lang):
    st.session_state["lang"] = lang
    ui = catalog(lang)
    ls = lesson_for(model, CHINESE)
    config = ls.bundle.config
    assert config.feed_forward == "swiglu"
    params = dict(ls.bundle.model.named_parameters())
    ffn = sum(p.numel() for name, p in params.items() if ".feed_forward." in name)  # W₁, W₃ and W₂ of every layer
    attn = sum(p.numel() for name, p in params.items() if "_attn." in name)
    assert ffn == 3 * config.n_layers * config.d_model * config.d_ff  # the gate's third matrix is counted
    numbers = ls.numbers("feed_forward")
    assert (numbers.ffn_params, numbers.attn_params) == (ffn, attn)
    content = build_step("feed_forward", ls)
    assert content.question == ui["lesson.feed_forward_question"]
    assert f"{ffn:,}" in content.answer and f"{attn:,}" in content.answer
    assert content.text == ui["modern.lesson_feed_forward_text"].format(d_model=config.d_model, d_ff=config.d_ff)
    assert "ReLU" not in content.extra and "max(0" not in content.text and "W₃" in content.extra
    question = lesson.class_question("feed_forward", numbers, ls.trace)
    assert question.truth == ("ffn" if ffn > attn else "attn")
    bars = list(content.figure.data[0].x)
    assert ui["lesson_parts.part_rmsnorm"] in bars and ui["lesson.part_norm"] not in bars, bars
