"""Every sentence a lesson step states about the run, side by side with the number it rests on (issue 39).

For every step of the lesson's registry (`runs.lesson.LESSON`), on every shipped model, the untrained `random`
model, a converted decoder-only (GPT-2) and encoder-only (BERT) folder, in English and Chinese: each claim is the
catalog sentence the page shows, filled from the step's record, and the number it rests on, recomputed here a
second way (from the model's config, its parameters, the run's arrays or a fresh run) where one exists. A claim
holds when its words are what the page shows and the number makes them true. A failure prints the table of the
step's claims: words | number | holds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest
import streamlit as st

from hook_names import ordinal
from runs import lesson
from runs.head_importance import stored_importance
from runs.lesson_numbers import NEAR_CAP, SAME_SIZE
from runs.model_ref import shipped_models
from runs.teaching_arrays import parameter_sizes
from ui.caches import get_bundle
from ui.i18n import catalog
from ui.inputs import example_text
from ui.pages.lesson.steps import Lesson, build_step, clip_output, lesson_for, num, probability, small, tidy

# a decoder-only and an encoder-only folder (tests/conftest.py builds them), converted as a user's would be
CONVERTED = ("pretrained:tiny-gpt2", "pretrained:tiny-bert")
MODELS = (*shipped_models(), "random", *CONVERTED)


@dataclass(frozen=True)
class Claim:
    """One sentence the page states (`words`), the number it rests on, and whether the number makes it true."""

    step: str
    words: str
    number: object
    holds: bool
    shown: bool  # the words are in what the page shows for the step


def table(claims: list[Claim]) -> str:
    return "\n".join(f"{c.step:13} | {c.words[:110]!r:112} | {c.number!s:>24} | {c.holds} {c.shown}" for c in claims)


@pytest.fixture(scope="module")
def models(pretrained_dir) -> Iterator[None]:
    """The converted folders found by name, as the app finds a user's `ATLAS_MODELS_DIR`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATLAS_MODELS_DIR", str(pretrained_dir))
        yield


def fill(ui: dict[str, str], key: str, **values: object) -> str:
    return ui[f"lesson.{key}"].format(**values)


def content_words(content) -> str:
    return " ".join(filter(None, (content.text, content.extra, content.question, content.answer, content.skipped)))


def step_claims(step: str, ls: Lesson, ui: dict[str, str]) -> Iterator[tuple[str, object, bool]]:
    """(words, number, holds) for each sentence step `step` states on `ls`, in the language of `ui`."""
    bundle, trace, config = ls.bundle, ls.trace, ls.bundle.config
    numbers = ls.numbers(step)
    d_k = config.d_model // config.n_heads  # the paper's d_k = d_model / h, from the config
    if step == "task" and numbers is not None and numbers.correct is not None and not ls.kind.corpus:
        said = "correct" if numbers.correct else "wrong"
        yield (
            fill(ui, f"task_answer_{said}", output=f"`{numbers.output}`", expected=f"`{numbers.expected}`").split("`")[0],
            (
                numbers.output,
                numbers.expected,
            ),
            (numbers.output == numbers.expected) == numbers.correct or numbers.more > 0,
        )
        if numbers.alignment is None and numbers.head is None and numbers.correct:  # right, yet nothing to draw
            yield fill(ui, "task_no_figure_unaligned"), numbers.correct, True
    elif step == "task" and numbers is not None and ls.kind.corpus:
        said = "none" if numbers.expected is None else "match" if numbers.correct else "differs"
        words = ui[f"lesson.task_answer_corpus_{said}"].split("{output}")[0]
        yield words, (numbers.output, numbers.expected), said == "none" or numbers.correct == (numbers.output == numbers.expected)
    elif step in ("masks", "cross", "architecture") and (numbers is None or not config.has_decoder):
        why = {"masks": "encoder_only", "architecture": "encoder_only"}.get(step)
        why = why or ("decoder_only" if config.has_decoder else "encoder_only")
        yield ui[f"lesson.skip_{step}_{why}"], config.architecture, (why == "encoder_only") == config.is_encoder_only
    elif step == "why_attention":
        tokens = numbers.tokens
        words = [i for i, tok in enumerate(tokens) if not (tok.startswith("<") and tok.endswith(">"))] or [0]
        yield (
            fill(ui, "why_attention_answer", rnn=numbers.rnn, attention=1, n=len(tokens)),
            (
                numbers.rnn,
                len(tokens),
            ),
            numbers.rnn == max(words[-1] - words[0], 1) and numbers.n == len(tokens),
        )
    elif step in ("embeddings", "positional") and numbers is None:  # rotary positions: no vector is added to ask about
        yield ui[f"modern.lesson_{step}_why"], config.positional, config.positional == "rotary"
    elif step == "embeddings":
        yield fill(ui, "embeddings_question", d_model=config.d_model), config.d_model, numbers.d_model == config.d_model
        scaled_again = numbers.raw * math.sqrt(config.d_model)  # × √d_model is linear: the mean norm scales with it
        yield (
            fill(
                ui,
                "embeddings_answer",
                raw=num(numbers.raw),
                scaled=num(numbers.scaled),
                pe=num(numbers.pe),
                sqrt_d=num(math.sqrt(config.d_model)),
                d_model=config.d_model,
            ),
            (numbers.raw, numbers.scaled),
            math.isclose(numbers.scaled, scaled_again, rel_tol=1e-3),
        )
        ratio = max(numbers.scaled, numbers.pe) / min(numbers.scaled, numbers.pe)
        balance = "same" if ratio <= SAME_SIZE else "word" if numbers.scaled > numbers.pe else "position"
        yield (
            fill(ui, f"embeddings_balance_{balance}", ratio=num(ratio, 1)),
            (
                numbers.scaled,
                numbers.pe,
            ),
            balance == numbers.balance,
        )
    elif step == "positional":
        table_ = numbers.table.astype(np.float64)
        unit = table_ / np.linalg.norm(table_, axis=-1, keepdims=True)
        others = np.delete(unit @ unit[numbers.position], numbers.position)  # cosines, as shown to 3 decimals
        yield num(numbers.cos_nearest, 3), float(others.max()), num(numbers.cos_nearest, 3) == num(others.max(), 3)
        yield num(numbers.cos_farthest, 3), float(others.min()), num(numbers.cos_farthest, 3) == num(others.min(), 3)
    elif step == "attention":
        pattern = trace.pattern(numbers.kind, 0)[0]  # (Tq, Tk) layer 1, head 1
        row = pattern[numbers.query_index]
        yield num(numbers.weight), float(row.max()), numbers.key_index == int(np.argmax(row))
    elif step == "scaling":
        yield fill(ui, "scaling_question", d_k=d_k), d_k, numbers.d_k == d_k == config.d_k
        yield (
            fill(
                ui,
                "scaling_answer",
                unscaled=num(numbers.unscaled, 3),
                scaled=num(numbers.scaled, 3),
                variance=num(numbers.variance, 3),
                d_k=d_k,
            ),
            numbers.variance,
            abs(numbers.variance - d_k) <= 0.15 * d_k and numbers.unscaled >= numbers.scaled,
        )
    elif step == "heads":
        table_ = stored_importance(bundle)
        choice = numbers.choice
        if numbers.from_table:
            scores = {(s.kind, s.layer, s.head): s.changed for s in table_.heads}
            best = max(scores.values())
            mine = (choice.kind, choice.layer, choice.head)  # a tie is listed as the table ranks it (log-prob drop)
            tied = [k for k in ((s.kind, s.layer, s.head) for s in table_.important()) if scores[k] == best and k != mine]
            key = "heads_question_tie" if tied else "heads_question"
            yield (
                fill(
                    ui,
                    key,
                    kind=ui[f"lesson.kind_{choice.kind}"],
                    layer=ordinal(choice.layer),
                    head=ordinal(choice.head),
                    share=f"{best:.0%}",
                    others=ui["lesson.list_sep"].join(
                        fill(ui, "head_named", kind=ui[f"lesson.kind_{k}"], layer=ordinal(la), head=ordinal(h))
                        for k, la, h in tied
                    ),
                ),
                best,
                scores[(choice.kind, choice.layer, choice.head)] == best,
            )
        said = "changed" if numbers.before != numbers.after else "same"
        yield (
            fill(
                ui,
                f"heads_answer_{said}",
                changed=numbers.changed,
                before=f"`{clip_output(numbers.before)}`",
                after=f"`{clip_output(numbers.after)}`",
            ).split("`")[0],
            numbers.changed,
            (numbers.changed > 0) == (said == "changed"),
        )
    elif step == "layernorm" and numbers.norm == "rmsnorm":
        yield from rms_claims(ls, numbers, ui)
    elif step == "layernorm":
        yield small(numbers.out_std_max), numbers.out_std_max, numbers.out_std_min <= numbers.out_std_max
    elif step == "feed_forward":
        sizes = parameter_sizes(bundle)
        ffn = sum(v for k, v in sizes.items() if ".feed_forward." in k)
        shapes = "lesson_parts.feed_forward_shapes_swiglu" if config.feed_forward == "swiglu" else "lesson.feed_forward_shapes"
        yield (
            ui[shapes].format(n=numbers.n, d_model=config.d_model, d_ff=config.d_ff),
            (
                config.d_model,
                config.d_ff,
            ),
            (numbers.d_model, numbers.d_ff) == (config.d_model, config.d_ff),
        )
        share = ffn / sum(sizes.values())
        yield (
            fill(ui, "feed_forward_answer", ffn=f"{ffn:,}", attn=f"{numbers.attn_params:,}", share=f"{share:.0%}"),
            share,
            numbers.ffn_params == ffn,
        )
    elif step == "masks" and numbers is not None:
        clipped = numbers.shown < numbers.positions
        words = fill(ui, "masks_clipped", shown=numbers.shown, n=numbers.positions) if clipped else ""
        yield words, (numbers.shown, numbers.positions), numbers.shown == min(lesson.MASK_POSITIONS, len(trace.tgt_tokens))
        if numbers.changed is not None:
            yield (
                ui[f"lesson.masks_answer_{'changed' if numbers.changed else 'same'}"].split("{")[0],
                (
                    numbers.with_mask,
                    numbers.without_mask,
                ),
                numbers.changed == (numbers.with_mask != numbers.without_mask),
            )
    elif step == "cross" and numbers is not None:
        row = numbers.pattern[numbers.row]
        yield num(numbers.weight), float(row.max()), numbers.key == int(np.argmax(row))
    elif step == "architecture" and numbers is not None:
        probs = [p for _, p in numbers.probabilities]
        if probs:
            yield probability(numbers.p), min(probs), numbers.p == min(probs)
        eps = numbers.label_smoothing
        if ls.kind.trained and eps and probs:
            gap = float(np.mean(probs)) - (1 - eps)
            where = "near" if abs(gap) <= NEAR_CAP else "below" if gap < 0 else "above"
            sentence = fill(
                ui, f"architecture_smoothing_{where}", eps=f"{eps:g}", cap=num(1 - eps), mean=probability(numbers.mean)
            )
            yield sentence, (round(float(np.mean(probs)), 4), 1 - eps), where == numbers.versus_cap
    elif step == "recap":
        kinds = len(trace.kinds())
        heads = kinds * config.n_layers * config.n_heads
        yield (
            fill(
                ui,
                "recap_answer",
                heads=heads,
                kinds=kinds,
                layers=config.n_layers,
                n_heads=config.n_heads,
                d_k=d_k,
                d_model=config.d_model,
                params=f"{sum(p.numel() for p in bundle.model.parameters()):,}",
            ),
            (heads, d_k),
            numbers.heads == heads and numbers.d_k == d_k,
        )


def rms_claims(ls: Lesson, numbers, ui: dict[str, str]) -> Iterator[tuple[str, object, bool]]:
    """The RMSNorm step's answer, its numbers recomputed from the first norm's input and output arrays: the output's
    root mean square (gain divided out) is 1 for every token, and the input's extremes are the ones stated."""
    from viz.layernorm import norm_sites

    stack = "encoder" if ls.bundle.config.has_encoder else "decoder"
    site = norm_sites(ls.bundle.model.hook_names, stack)[0]
    gain = dict(ls.bundle.model.named_parameters())[f"{site.prefix}.gain"].detach().double().numpy()
    x = ls.trace.arrays[site.hook_in][0].astype(np.float64)  # (T, d_model)
    y = ls.trace.arrays[site.hook_out][0].astype(np.float64) / gain
    rms_in, rms_out = np.sqrt((x**2).mean(-1)), np.sqrt((y**2).mean(-1))  # (T,)
    words = ui["lesson_parts.rms_answer"].format(
        in_mean=small(numbers.in_mean),
        in_rms_min=small(numbers.in_rms_min),
        in_rms_max=small(numbers.in_rms_max),
        out_mean=small(numbers.out_mean),
        out_rms_min=small(numbers.out_rms_min),
        out_rms_max=small(numbers.out_rms_max),
    )
    stated = (small(numbers.in_rms_min), small(numbers.in_rms_max), small(numbers.out_rms_min), small(numbers.out_rms_max))
    holds = stated == tuple(small(v) for v in (rms_in.min(), rms_in.max(), rms_out.min(), rms_out.max()))
    yield words, (float(rms_in.min()), float(rms_in.max())), holds and bool(np.allclose(rms_out, 1.0, atol=1e-3))
    yield small(numbers.in_mean), float(np.abs(x.mean(-1)).max()), small(numbers.in_mean) == small(np.abs(x.mean(-1)).max())


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("model", MODELS)
def test_every_claim_of_every_step_stands_on_its_number(models, model, lang):
    st.session_state["lang"] = lang
    ui = catalog(lang)
    ls = lesson_for(model, example_text(get_bundle(model)))
    claims: list[Claim] = []
    for step in lesson.STEPS:
        shown = content_words(build_step(step, ls))
        for words, number, holds in step_claims(step, ls, ui):
            claims.append(Claim(step, words, number, bool(holds), tidy(words) in shown or words in shown))
    print(f"\n{model} ({lang})\n{table(claims)}")
    assert claims and all(c.holds and c.shown for c in claims), f"{model} ({lang})\n{table(claims)}"
